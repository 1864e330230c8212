"""git on repositories the SWE family makes or audits, with nothing of the repository allowed to run."""

from __future__ import annotations

import subprocess
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


def names_at(repository: Path, commit: str, names: set[str]) -> set[str]:
    """Which of `names` occur as whole words in the Python files of a repository at a commit."""
    if not names:
        return set()
    patterns = [arg for name in sorted(names) for arg in ("-e", name)]
    done = subprocess.run([*SAFE_GIT, "-C", str(repository), "grep", "-h", "-o", "-w", "-F", *patterns, commit,
                           "--", "*.py"], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise GitError(f"git grep failed in {repository.name}: {done.stderr.strip()[-300:]}")
    return set(done.stdout.split()) & names
