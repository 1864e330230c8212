"""Which CPython a commit's tests were written for: what the commit declares, else the release of its day.

Read from the commit's files (nothing is run): `python_requires` / `requires-python` bounds the choice; the
versions it lists (trove classifiers, tox's envlist, the CI's Python matrix in `.travis.yml` or GitHub
workflows) name the newest it was tested on; a commit that lists none is taken to target the newest CPython
released by its commit date. The choice is the nearest interpreter at or above that target that the
requirement admits (code tested on 3.5 runs on 3.6, not on 3.11), else the newest it admits.

The sandbox's own Python is still tried first (`builders.swe.environment.build_environment`): every environment
built before interpreters were chosen ran there, and its tasks stay what they were; the choice is the
interpreter of the environments it cannot build (`retry_python`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

import git
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from taskforge.builders.swe.versioning import file_at

CPYTHON_RELEASES = {
    "3.0": "2008-12-03", "3.1": "2009-06-27", "3.2": "2011-02-20", "3.3": "2012-09-29", "3.4": "2014-03-16",
    "3.5": "2015-09-13", "3.6": "2016-12-23", "3.7": "2018-06-27", "3.8": "2019-10-14", "3.9": "2020-10-05",
    "3.10": "2021-10-04", "3.11": "2022-10-24", "3.12": "2023-10-02", "3.13": "2024-10-07", "3.14": "2025-10-07",
}
"""The release date of each CPython 3 feature release (`X.Y.0`)."""
CI_FILES = (".travis.yml", "appveyor.yml", ".github/workflows")
METADATA_FILES = ("setup.py", "setup.cfg", "pyproject.toml", "tox.ini")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d{1,2})\b")
_TOX_BRACES = re.compile(r"\bpy3\{([\d,\s]+)\}")
_TOX_ENV = re.compile(r"\bpy3(\d{1,2})\b")
_CI_ITEM = re.compile(r"""(?m)^\s*(?:-\s*|python(?:-version)?\s*:\s*)["']?(3\.\d{1,2})\b""")
_CI_LIST = re.compile(r"python(?:-version)?\s*:\s*\[([^\]]*)\]")


@dataclass(frozen=True)
class Declared:
    """What a commit says about its Python: the requirement, the versions it lists, and its commit date."""

    requires: str
    listed: frozenset[str]
    committed_at: str


def _key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def listed_versions(metadata: Iterable[str], ci: Iterable[str]) -> frozenset[str]:
    """The `3.X` versions named by classifiers and tox envlists in `metadata` texts and Python matrices in `ci`
    texts."""
    found: set[str] = set()
    for text in metadata:
        found.update(_CLASSIFIER.findall(text))
        found.update(f"3.{minor.strip()}" for group in _TOX_BRACES.findall(text) for minor in group.split(",")
                     if minor.strip())
        found.update(f"3.{minor}" for minor in _TOX_ENV.findall(text))
    for text in ci:
        found.update(_CI_ITEM.findall(text))
        found.update(re.findall(r"3\.\d{1,2}", " ".join(_CI_LIST.findall(text))))
    return frozenset(found)


def released_by(date: str) -> str:
    """The newest CPython 3 feature release out on `date` (ISO; 3.0 before any)."""
    out = [version for version, released in CPYTHON_RELEASES.items() if released <= date[:10]]
    return max(out, key=_key, default="3.0")


def admits(requires: str, version: str) -> bool:
    """Whether a `python_requires` specifier admits a `major.minor` (an unreadable or empty one admits all)."""
    try:
        spec = SpecifierSet(requires)
    except InvalidSpecifier:
        return True
    return spec.contains(f"{version}.99", prereleases=True) or spec.contains(f"{version}.0", prereleases=True)


def choose_python(declared: Declared, available: Iterable[str]) -> str:
    """The interpreter (a `major.minor` of `available`) a commit's tests are run on (see the module)."""
    admitted = sorted((v for v in available if admits(declared.requires, v)), key=_key) or sorted(available, key=_key)
    target = max(declared.listed, key=_key) if declared.listed else released_by(declared.committed_at)
    return next((v for v in admitted if _key(v) >= _key(target)), admitted[-1])


def retry_python(declared: Declared, available: Iterable[str], default: str) -> str | None:
    """The interpreter an environment is built on when the sandbox's own Python (`default`) fails it: the
    commit's choice, where that is older than `default` or the commit's requirement excludes `default` (a
    commit of today that fails on the sandbox's Python fails on a newer one too: no newer image is built for it)."""
    chosen = choose_python(declared, available)
    if chosen == default or _key(chosen) > _key(default) and admits(declared.requires, default):
        return None
    return chosen


def declared_at(repo: git.Repo, commit: str, requires: str) -> Declared:
    """What a commit declares about its Python (`requires`: the recipe's `python_requires`)."""
    files = repo.git.ls_tree("--name-only", "-r", commit).splitlines()
    metadata = [file_at(repo, commit, path) or "" for path in METADATA_FILES if path in files]
    ci = [file_at(repo, commit, path) or "" for path in files
          if path in CI_FILES or path.startswith(CI_FILES[-1] + "/") and path.endswith((".yml", ".yaml"))]
    committed_at = repo.git.show("-s", "--format=%cI", commit).strip()
    return Declared(requires=requires, listed=listed_versions(metadata, ci), committed_at=committed_at)
