"""The environment recipe of a repository at a commit, read from its files (nothing of it is run here).

What SWE-rebench's recipe holds: the Python requirement, the packages to
install (runtime and test dependencies, the build backend, the test runner),
how the project itself is installed, the test command and the log parser.
Requirement lines are parsed and re-written as plain specifiers, so pip options
hidden in a repository's requirement files never reach pip.
"""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import git
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from taskforge.builders.swe.versioning import file_at
from taskforge.graders.swe.functions import parse_module

TEST_COMMAND = "python -m pytest -rA --tb=no -p no:cacheprovider"
"""SWE-bench's pytest invocation: every test's outcome in the short summary, no tracebacks, no cache writes."""
TEST_EXTRAS = ("test", "tests", "testing", "dev")
_REQUIREMENT_FILES = re.compile(
    r"(requirements|requirements[-_](dev|test|tests|testing)|(dev|test|tests|testing)[-_]requirements)\.(txt|in)$")
_DEFAULT_BUILD = ["setuptools>=61", "wheel"]
_DOC_FOLDERS = ("doc", "docs", "documentation")
_TOOLING = re.compile(r"^(sphinx.*|furo|mkdocs.*|myst-.*|pre-commit|mypy|black|ruff|isort|flake8.*|pylint|"
                      r"types-.*|tox|nox|twine|build|codespell|pyright|commitizen|bump.*)$")
"""Development tools a poetry dev group lists that no test needs (left out of the environment)."""
POETRY_GROUPS = ("dev", "test", "tests", "testing")


@dataclass(frozen=True)
class Recipe:
    """How to install and test one repository version (stored with every task of that version)."""

    python: str
    packages: tuple[str, ...]
    build_requires: tuple[str, ...]
    install: str
    pythonpath: str
    test_cmd: str = TEST_COMMAND
    log_parser: str = "pytest"
    pip_flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Recipe":
        """The recipe a `to_dict` copy describes."""
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})

    def revised(self, **changes: Any) -> "Recipe":
        """A copy with some fields changed."""
        return replace(self, **changes)


def clean_requirement(line: str) -> str | None:
    """A requirement line as a plain specifier, or None for comments, pip options, paths and URLs."""
    line = line.split(" #", 1)[0].strip()
    if not line or line.startswith(("#", "-", ".", "/")) or "://" in line or "@" in line.split(";")[0]:
        return None
    try:
        return str(Requirement(line))
    except InvalidRequirement:
        return None


def _requirements_text(repo: git.Repo, commit: str, path: str, seen: set[str]) -> list[str]:
    """The requirements of a requirements file, following `-r other.txt` inside the repository."""
    if path in seen:
        return []
    seen.add(path)
    text = file_at(repo, commit, path) or ""
    found = []
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    for line in text.splitlines():
        included = re.match(r"^\s*(?:-r|--requirement)\s*(\S+)", line)
        if included:
            found += _requirements_text(repo, commit, folder + included[1], seen)
        elif (requirement := clean_requirement(line)) is not None:
            found.append(requirement)
    return found


def _setup_py_keywords(text: str) -> dict[str, Any]:
    """Literal keyword arguments of the `setup(...)` call in a setup.py (read, never run)."""
    try:
        tree = parse_module(text)
    except SyntaxError:
        return {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup":
            found = {}
            for keyword in node.keywords:
                try:
                    found[keyword.arg] = ast.literal_eval(keyword.value)
                except ValueError:
                    continue
            return found
    return {}


def _project_name(pyproject: dict[str, Any], setup_kw: dict[str, Any], setup_cfg: configparser.ConfigParser) -> str:
    name = pyproject.get("project", {}).get("name") or setup_kw.get("name") or setup_cfg.get("metadata", "name",
                                                                                            fallback="")
    return canonicalize_name(str(name)) if name else ""


def _unique(requirements: list[str], exclude: str) -> tuple[str, ...]:
    """Requirements without repeats and without the project itself."""
    kept: dict[str, str] = {}
    for requirement in requirements:
        name = canonicalize_name(Requirement(requirement).name)
        if name != exclude:
            kept.setdefault(str(Requirement(requirement)), name)
    return tuple(kept)


def dependency_files_id(repo: git.Repo, commit: str) -> str:
    """The object ids of the files a recipe is read from, at a commit: equal ids, equal recipes."""
    listing = repo.git.ls_tree("-r", commit).splitlines()
    return "\n".join(line for line in listing if _is_dependency_file(line.split("\t", 1)[-1]))


def _is_dependency_file(path: str) -> bool:
    """pyproject.toml, setup.py, setup.cfg, or a requirements file at the top or one folder down (not the
    documentation's)."""
    return path in ("pyproject.toml", "setup.py", "setup.cfg") or (
        path.count("/") <= 1 and path.split("/")[0] not in _DOC_FOLDERS
        and _REQUIREMENT_FILES.search(path.rsplit("/", 1)[-1]) is not None)


def poetry_test_requirements(pyproject: dict[str, Any]) -> list[str]:
    """The names of a poetry project's dev and test dependencies, development tools left out (poetry's own
    version syntax is dropped: the newest wheel is taken)."""
    poetry = pyproject.get("tool", {}).get("poetry", {})
    groups = [poetry.get("group", {}).get(name, {}).get("dependencies", {}) for name in POETRY_GROUPS]
    names = [name for group in [*groups, poetry.get("dev-dependencies", {})] for name in group]
    return [name for name in names if name.lower() != "python" and not _TOOLING.match(name.lower())]


def detect_recipe(repo: git.Repo, commit: str) -> Recipe:
    """Read pyproject.toml, setup.py, setup.cfg and requirement files at a commit into a recipe."""
    files = repo.git.ls_tree("--name-only", "-r", commit).splitlines()
    try:
        pyproject = tomllib.loads(file_at(repo, commit, "pyproject.toml") or "")
    except tomllib.TOMLDecodeError:
        pyproject = {}
    setup_kw = _setup_py_keywords(file_at(repo, commit, "setup.py") or "") if "setup.py" in files else {}
    setup_cfg = configparser.ConfigParser(interpolation=None)
    try:
        setup_cfg.read_string(file_at(repo, commit, "setup.cfg") or "")
    except configparser.Error:
        setup_cfg = configparser.ConfigParser(interpolation=None)
    project = pyproject.get("project", {})
    runtime = list(project.get("dependencies", []))
    extras = {**setup_kw.get("extras_require", {}), **project.get("optional-dependencies", {})}
    tests = [r for extra in TEST_EXTRAS for r in extras.get(extra, [])] + poetry_test_requirements(pyproject)
    runtime += list(setup_kw.get("install_requires", []) or [])
    runtime += setup_cfg.get("options", "install_requires", fallback="").splitlines()
    runtime += list(setup_kw.get("tests_require", []) or [])
    seen: set[str] = set()
    for path in sorted(p for p in files if p not in ("pyproject.toml", "setup.py", "setup.cfg")
                       and _is_dependency_file(p)):
        tests += _requirements_text(repo, commit, path, seen)
    requirements = [r for r in map(clean_requirement, [*runtime, *tests, "pytest"]) if r]
    build = pyproject.get("build-system", {}).get("requires") or (_DEFAULT_BUILD if "setup.py" in files else [])
    installable = "pyproject.toml" in files and "build-system" in pyproject or "setup.py" in files
    python = str(project.get("requires-python") or setup_kw.get("python_requires")
                 or setup_cfg.get("options", "python_requires", fallback="") or "")
    return Recipe(
        python=python,
        packages=_unique(requirements, _project_name(pyproject, setup_kw, setup_cfg)),
        build_requires=tuple(r for r in map(clean_requirement, build) if r) if installable else (),
        install="editable" if installable else "pythonpath",
        pythonpath="src" if any(p.startswith("src/") for p in files) else ".",
    )
