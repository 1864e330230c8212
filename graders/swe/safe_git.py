"""git on repositories the SWE family makes or audits, with nothing of the repository allowed to run."""

from __future__ import annotations

import re
import subprocess
from functools import lru_cache
from pathlib import Path

from taskforge.schemas import TaskforgeError

SAFE_GIT = ("git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.logAllRefUpdates=false",
            "-c", "gc.auto=0", "-c", "protocol.file.allow=always", "-c", "safe.directory=*")
"""git with hooks, fsmonitor, reflogs and background gc off."""


class GitError(TaskforgeError):
    """A git command on a snapshot failed."""


def git_in(path: Path, *args: str) -> str:
    """Run git in a repository and return its output; a failure raises GitError naming the command."""
    done = subprocess.run([*SAFE_GIT, "-C", str(path), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args[:2])} failed in {path.name}: {done.stderr.strip()[-300:]}")
    return done.stdout



def names_in_tree(work_tree: Path, names: set[str]) -> set[str]:
    """Which of `names` occur as whole words in the Python files of a checked-out tree (its `.git` left out)."""
    found: set[str] = set()
    for path in work_tree.rglob("*.py"):
        if ".git" not in path.relative_to(work_tree).parts:
            stat = path.stat()
            found |= names & words_in(str(path), stat.st_mtime_ns, stat.st_size)
    return found


@lru_cache(maxsize=4096)
def words_in(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The whole words of a file, read once while its modification time and size stay the same (a task's build and
    its checks look up names in the same snapshot several times)."""
    return frozenset(re.findall(r"\w+", Path(path).read_text(encoding="utf-8", errors="replace")))


def line_counts(work_tree: Path, paths: list[str]) -> dict[str, int]:
    """Lines of each of `paths` in a checked-out tree (absent files left out)."""
    counts = {}
    for path in paths:
        file = work_tree / path
        if file.is_file():
            counts[path] = file.read_bytes().count(b"\n")
    return counts


def text_in_tree(work_tree: Path, path: str) -> str | None:
    """A file's text in a checked-out tree; None where it is absent or the path leads out of the tree (a diff's
    path is read from a stored row)."""
    file = (work_tree / path).resolve()
    root = work_tree.resolve()
    if root not in file.parents or not file.is_file():
        return None
    return file.read_text(encoding="utf-8", errors="replace")
