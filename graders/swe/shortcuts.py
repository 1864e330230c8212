"""Shortcut patches of SWE tasks, made from what the solver's snapshot shows, for the `shortcut` check to grade like
a solver's patch: the empty patch, the held-out test patch submitted as the fix, and the last touched source file
reverted. The last two run in the task's own session, after the runs of the test patch and of the solution
(`harness.run_empty_and_solution`).

`revert_last_touched` walks the snapshot's history back from the base commit to
the latest commit that changed a Python source file (not a test file, not a file
the test patch touches) and returns the patch that puts that file back as it was
before that commit: the cheap guess that the last change brought the bug.
"""

from __future__ import annotations

import re
from pathlib import Path

from taskforge.graders.swe.patch import split_files
from taskforge.graders.swe.safe_git import GitError, git_in

_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_test\.py$|(^|/)conftest\.py$")
HISTORY_DEPTH = 50
"""How many commits back from the base commit the last touched source file is looked for."""


def is_test_path(path: str) -> bool:
    """Whether a repository path is a test file or lies in a test folder."""
    return bool(_TEST_PATH.search(path))


def revert_last_touched(snapshot: Path, exclude: set[str]) -> tuple[str, str] | None:
    """(path, patch) reverting the source file the latest commit before the base changed (None: the history
    holds no such change)."""
    try:
        log = git_in(snapshot, "log", f"-{HISTORY_DEPTH}", "--format=@%H %P", "--name-only", "HEAD")
    except GitError:
        return None
    commit, parents = None, []
    for line in log.splitlines():
        if line.startswith("@"):
            commit, *parents = line[1:].split()
            continue
        path = line.strip()
        if path.endswith(".py") and commit and parents and not is_test_path(path) and path not in exclude:
            patch = git_in(snapshot, "diff", "--binary", "HEAD", parents[0], "--", path)
            if patch.strip():
                return path, patch
    return None


def shortcut_patches(snapshot: Path, test_patch: str) -> dict[str, str]:
    """The patches a solver could submit from the snapshot alone, by name: the test patch itself and, where the
    history before the base commit changed a source file, that file reverted (a function of the snapshot and the
    test patch)."""
    patches = {"test_patch_alone": test_patch}
    touched = {path for piece in split_files(test_patch) for path in (piece.old_path, piece.new_path)}
    reverted = revert_last_touched(snapshot, touched)
    if reverted is not None:
        patches["revert_last_touched"] = reverted[1]
    return patches
