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
