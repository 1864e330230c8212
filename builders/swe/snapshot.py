"""The repository the solver gets: a fresh repository holding only what the base commit reaches.

Resetting a clone is not enough (tags, stash, notes, reflogs, packed refs,
FETCH_HEAD / ORIG_HEAD and alternates survive it), so a snapshot is made by
fetching the base commit alone into a new, empty repository: no later commit,
tag or branch can come along. The one branch points at the base commit and
the work tree is checked out there. From a shallow clone the snapshot is
shallow too (`--update-shallow`): it holds what the clone holds below the base.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from taskforge.graders.swe.safe_git import git_in

SNAPSHOT_BRANCH = "main"


def make_snapshot(source_git_dir: Path, base_commit: str, dest: Path) -> Path:
    """Create `dest` as a repository with only `base_commit` and its ancestors, checked out on `main`."""
    staging = dest.with_name(dest.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    git_in(staging, "init", "-q", "-b", SNAPSHOT_BRANCH)
    git_in(staging, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--update-shallow", str(source_git_dir),
           base_commit)
    git_in(staging, "update-ref", f"refs/heads/{SNAPSHOT_BRANCH}", base_commit)
    git_in(staging, "checkout", "-q", "-f", SNAPSHOT_BRANCH)
    for leftover in ("FETCH_HEAD", "ORIG_HEAD", "logs", "description"):
        target = staging / ".git" / leftover
        shutil.rmtree(target, ignore_errors=True) if target.is_dir() else target.unlink(missing_ok=True)
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)
    return dest
