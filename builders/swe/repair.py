"""Rule-based repairs of an environment recipe, read off the log of a failed build.

Each rule recognises one kind of failure and returns the revised recipe with a
note saying what it changed; `repair` returns None when no rule applies (or the
rule would change nothing), which ends the build-and-repair loop.
"""

from __future__ import annotations

import re
from typing import Callable

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from taskforge.builders.swe.recipe import Recipe

IMPORT_TO_DISTRIBUTION = {
    "yaml": "PyYAML", "dateutil": "python-dateutil", "PIL": "Pillow", "sklearn": "scikit-learn",
    "cv2": "opencv-python-headless", "bs4": "beautifulsoup4", "attr": "attrs", "google.protobuf": "protobuf",
    "jwt": "PyJWT", "dotenv": "python-dotenv", "magic": "python-magic", "serial": "pyserial",
    "hypothesis": "hypothesis", "mock": "mock", "toml": "toml", "six": "six",
}
"""Import names whose distribution is named differently (the rest install under their import name)."""
PYTEST_PLUGIN_FOR_OPTION = {
    "--cov": "pytest-cov", "--timeout": "pytest-timeout", "-n": "pytest-xdist", "--numprocesses": "pytest-xdist",
    "--benchmark": "pytest-benchmark", "--mypy": "pytest-mypy", "--flake8": "pytest-flake8",
    "--reruns": "pytest-rerunfailures", "--asyncio-mode": "pytest-asyncio", "--doctest-plus": "pytest-doctestplus",
    "--mpl": "pytest-mpl", "--randomly": "pytest-randomly", "--forked": "pytest-forked",
}
"""pytest options (from a repository's addopts) and the plugin that provides them."""

Rule = Callable[[Recipe, str, str], Recipe | None]


def _names(recipe: Recipe) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in recipe.packages}


def _add_package(recipe: Recipe, distribution: str, why: str) -> Recipe | None:
    if canonicalize_name(distribution) in _names(recipe):
        return None
    return recipe.revised(packages=recipe.packages + (distribution,), notes=recipe.notes + (why,))


def unpin_unavailable(recipe: Recipe, stage: str, log: str) -> Recipe | None:
    """A requirement with no wheel for this Python: drop its version bound, or the requirement if it had none."""
    match = re.search(r"(?:No matching distribution found for|satisfies the requirement) ([A-Za-z0-9_.\-\[\]]+)", log)
    if stage != "download" or not match:
        return None
    missing = canonicalize_name(re.sub(r"\[.*\]", "", match[1]))
    for requirement in recipe.packages:
        parsed = Requirement(requirement)
        if canonicalize_name(parsed.name) != missing:
            continue
        others = tuple(r for r in recipe.packages if r != requirement)
        if parsed.specifier:
            bare = parsed.name + (f"[{','.join(sorted(parsed.extras))}]" if parsed.extras else "")
            return recipe.revised(packages=others + (bare,), notes=recipe.notes + (f"unpinned {requirement}",))
        if missing != "pytest":
            return recipe.revised(packages=others, notes=recipe.notes + (f"dropped {requirement} (no wheel)",))
    return None


def unpin_for_older_python(recipe: Recipe, stage: str, log: str) -> Recipe | None:
    """A version bound (such as the default `setuptools>=61`) that only releases for newer Pythons satisfy (pip:
    `Packages require a different Python … required by setuptools 84.0.0`): drop the bound, so the newest release
    for this Python is taken."""
    if stage != "download" or "Packages require a different Python" not in log:
        return None
    named = {canonicalize_name(name) for name in re.findall(r"required by ([A-Za-z0-9_.\-]+) \d", log)}

    def unpinned(requirements: tuple[str, ...]) -> tuple[str, ...]:
        parsed = [Requirement(r) for r in requirements]
        return tuple(p.name if canonicalize_name(p.name) in named and p.specifier else str(p) for p in parsed)

    packages, build = unpinned(recipe.packages), unpinned(recipe.build_requires)
    if (packages, build) == (recipe.packages, recipe.build_requires):
        return None
    return recipe.revised(packages=packages, build_requires=build,
                          notes=recipe.notes + (f"unpinned {', '.join(sorted(named))} for this Python",))


def add_missing_module(recipe: Recipe, stage: str, log: str) -> Recipe | None:
    """Tests or the project import a module nothing installed: add its distribution."""
    match = re.search(r"No module named '?([A-Za-z0-9_.]+)'?", log)
    if not match:
        return None
    module = match[1]
    top = module.split(".")[0]
    distribution = IMPORT_TO_DISTRIBUTION.get(module) or IMPORT_TO_DISTRIBUTION.get(top) or top.replace("_", "-")
    return _add_package(recipe, distribution, f"added {distribution} (missing module {module})")


def add_pytest_plugin(recipe: Recipe, stage: str, log: str) -> Recipe | None:
    """pytest refuses an option from the repository's configuration: add the plugin that defines it."""
    match = re.search(r"unrecognized arguments: (\S+)", log)
    if not match:
        return None
    option = match[1].split("=")[0]
    plugin = next((p for o, p in PYTEST_PLUGIN_FOR_OPTION.items() if option == o or option.startswith(o + "-")), None)
    return _add_package(recipe, plugin, f"added {plugin} (pytest option {option})") if plugin else None


def ignore_python_requirement(recipe: Recipe, stage: str, log: str) -> Recipe | None:
    """The project (or a dependency) declares it does not support this Python: install it anyway."""
    if "requires a different Python" not in log or "--ignore-requires-python" in recipe.pip_flags:
        return None
    return recipe.revised(pip_flags=recipe.pip_flags + ("--ignore-requires-python",),
                          notes=recipe.notes + ("ignored the declared Python requirement",))


def run_from_source(recipe: Recipe, stage: str, log: str) -> Recipe | None:
    """The project will not install (no or broken build backend): run the tests from its source tree."""
    if stage != "install_project" or recipe.install == "pythonpath":
        return None
    return recipe.revised(install="pythonpath", notes=recipe.notes + ("project not installable; tests run from source",))


RULES: tuple[Rule, ...] = (unpin_unavailable, unpin_for_older_python, ignore_python_requirement, add_pytest_plugin, add_missing_module,
                           run_from_source)
TASK_RULES: tuple[Rule, ...] = (ignore_python_requirement, run_from_source)
"""The repairs that need no new environment: what a single task may still change about installing the project."""


def repair(recipe: Recipe, stage: str, log: str, rules: tuple[Rule, ...] = RULES) -> Recipe | None:
    """The recipe revised by the first of `rules` that recognises the failure, or None."""
    for rule in rules:
        revised = rule(recipe, stage, log)
        if revised is not None and revised != recipe:
            return revised
    return None
