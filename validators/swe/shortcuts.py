"""SWE shortcut scores, the SWE part of the `shortcut` question: the empty patch, the held-out test patch submitted
as the fix, and the last touched source file reverted (`taskforge.graders.swe.shortcuts`), each applied to the
snapshot like a solver's patch and graded by SWE-bench's resolution against the task's FAIL_TO_PASS /
PASS_TO_PASS lists (which the reference check re-derives).

Their test statuses come from the task's runs (`outcomes_for`: the one sandbox session, or the SWE run cache,
that the no-op and reference checks read too), where each shortcut patch runs once after the solution's runs,
stopping at its first failure when that failure is a test of the lists the runs give. Where such a stopped run
does not decide the grade against the task's own lists (they are not the lists the runs give), the shortcut runs
again whole (`whole_shortcut_run`).
"""

from __future__ import annotations

from taskforge.graders.swe.grading import fails_a_listed_test, grade
from taskforge.graders.swe.harness import whole_shortcut_run
from taskforge.schemas import Task
from taskforge.schemas.swe import SwePayload, SweReference
from taskforge.validators.swe.execution import outcomes_for, task_bed


def swe_shortcut_scores(task: Task) -> dict[str, float]:
    """Each shortcut patch's resolution (1 or 0) of the task; a patch that does not apply scores 0."""
    payload, outcomes = SwePayload.of(task), outcomes_for(task)
    f2p, p2p = payload.FAIL_TO_PASS, payload.PASS_TO_PASS
    scores = {"empty_patch": grade(outcomes.empty.statuses, f2p, p2p).score}
    for name, statuses in outcomes.shortcuts.items():
        if statuses is not None and name in outcomes.shortcuts_stopped and not fails_a_listed_test(statuses, f2p, p2p):
            statuses = whole_shortcut_run(task_bed(task), SweReference.of(task).test_patch, name)
        scores[name] = 0.0 if statuses is None else grade(statuses, f2p, p2p).score
    return scores
