"""The `version` of a repository at a commit, as SWE-bench and SWE-rebench define it: major.minor.

The nearest tag reachable from the commit (`git describe --tags`) decides; a
repository without tags falls back to the version its packaging files state at
that commit. Tasks of one version share one environment.
"""

from __future__ import annotations

import re
import tomllib

import git

UNKNOWN_VERSION = "0.0"
_NUMBERS = re.compile(r"(\d+)(?:[.,](\d+))?")
_ASSIGNED = re.compile(r"""^\s*(?:__version__|version|VERSION)\s*[=:]\s*['"]([^'"]+)['"]""", re.MULTILINE)


def major_minor(text: str) -> str | None:
    """`1.20` from `v1.20.3`, `release-1.20`, `1,20`; None when the text holds no version number."""
    match = _NUMBERS.search(text)
    if not match:
        return None
    return f"{int(match[1])}.{int(match[2] or 0)}"


def file_at(repo: git.Repo, commit: str, path: str) -> str | None:
    """A file's text at a commit, or None where it does not exist (or is not text); read through the
    repository's long-running `cat-file` process, not one `git show` per file."""
    try:
        blob = repo.commit(commit).tree / path
        return blob.data_stream.read().decode("utf-8")
    except (KeyError, ValueError, UnicodeDecodeError, git.GitCommandError):
        return None


def _declared_version(repo: git.Repo, commit: str) -> str | None:
    pyproject = file_at(repo, commit, "pyproject.toml")
    if pyproject:
        try:
            declared = tomllib.loads(pyproject).get("project", {}).get("version")
        except tomllib.TOMLDecodeError:
            declared = None
        if declared:
            return major_minor(str(declared))
    tops = [p for p in repo.git.ls_tree("--name-only", "-r", commit).splitlines()
            if p in ("setup.py", "setup.cfg") or re.fullmatch(r"(src/)?[\w]+/(__init__|_?version)\.py|[\w]+\.py", p)]
    for path in sorted(tops, key=lambda p: (p.count("/"), p)):
        text = file_at(repo, commit, path) or ""
        match = _ASSIGNED.search(text)
        if match and major_minor(match[1]):
            return major_minor(match[1])
    return None


def version_at(repo: git.Repo, commit: str) -> str:
    """The major.minor version of the repository at a commit."""
    try:
        tag = repo.git.describe("--tags", "--abbrev=0", commit)
    except git.GitCommandError:
        tag = ""
    return major_minor(tag) or _declared_version(repo, commit) or UNKNOWN_VERSION
