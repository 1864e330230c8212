"""SWE shortcut scores, the SWE part of the `shortcut` question: the empty patch (its run is the no-op check's),
the held-out test patch submitted as the fix, and the last touched source file reverted
(`taskforge.graders.swe.shortcuts`), each applied to the snapshot like a solver's patch and graded by SWE-bench's
resolution against the task's FAIL_TO_PASS / PASS_TO_PASS lists (which the reference check re-derives).

The two submitted patches run in one sandbox session; their test statuses are
cached by the content hash of the test bed and the patches
(`taskforge.validators.cache`, kind `swe-shortcuts`).
"""

from __future__ import annotations

from typing import Any

from taskforge.graders.swe.grading import grade
from taskforge.graders.swe.harness import TaskBed, grading_session, runs_key
from taskforge.graders.swe.patch import split_files
from taskforge.graders.swe.shortcuts import revert_last_touched
from taskforge.schemas import Task
from taskforge.schemas.swe import SwePayload, SweReference
from taskforge.validators.cache import cached_run
from taskforge.validators.swe.execution import outcomes_for, task_bed

CACHE_KIND = "swe-shortcuts"


def shortcut_patches(task: Task, bed: TaskBed) -> dict[str, str]:
    """The shortcut patches a solver could make from the snapshot alone."""
    test_patch = SweReference.of(task).test_patch
    patches = {"test_patch_alone": test_patch}
    touched = {path for piece in split_files(test_patch) for path in (piece.old_path, piece.new_path)}
    reverted = revert_last_touched(bed.snapshot, touched)
    if reverted is not None:
        patches["revert_last_touched"] = reverted[1]
    return patches


def shortcut_statuses(task: Task, bed: TaskBed, patches: dict[str, str]) -> dict[str, Any]:
    """Each patch's test statuses (None: the patch did not apply), from one sandbox session or the cache."""
    test_patch = SweReference.of(task).test_patch
    sources = {"bed": runs_key(bed, "", test_patch, 0), "patches": patches}

    def run() -> dict[str, Any]:
        found: dict[str, Any] = {}
        with grading_session(bed, {"test": test_patch, **patches}, label=f"swe-shortcuts:{task.task_id}") as live:
            for name in patches:
                applied = live.submit("test", test_patch, name, fresh=True)
                found[name] = live.run_tests().statuses if applied else None
        return found

    return cached_run(CACHE_KIND, sources, run)[0]


def swe_shortcut_scores(task: Task) -> dict[str, float]:
    """Each shortcut patch's resolution (1 or 0) of the task."""
    payload, bed = SwePayload.of(task), task_bed(task)
    f2p, p2p = payload.FAIL_TO_PASS, payload.PASS_TO_PASS
    scores = {"empty_patch": grade(outcomes_for(task).empty.statuses, f2p, p2p).score}
    for name, statuses in shortcut_statuses(task, bed, shortcut_patches(task, bed)).items():
        scores[name] = 0.0 if statuses is None else grade(statuses, f2p, p2p).score
    return scores
