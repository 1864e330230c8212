"""The SWE family's reward entry: a reply is a unified diff, graded like the reference check grades the
solution — applied to the task's snapshot with the held-out test patch, tests run in `sandbox/` (network off),
SWE-bench's FULL resolution as 1 or 0.

It needs the task's snapshot and environment in the SWE cache (`$TASKFORGE_SWE_CACHE`)
on the machine that computes rewards, as the validators did.
"""

from __future__ import annotations

from typing import Any

from taskforge.graders.base import decoded
from taskforge.graders.swe.grading import grade
from taskforge.graders.swe.harness import TaskBed, grading_session
from taskforge.schemas.swe import SwePayload, SweReference


class SweSandboxScorer:
    """Grades a patch against the held-out tests of the task in a sandbox session; an empty reply is the
    empty patch."""

    def score(self, solution: str, reference: dict[str, Any], grader: dict[str, Any],
              extra_info: dict[str, Any]) -> float:
        payload = decoded(extra_info.get("payload"))
        instance, test_patch = SwePayload.parse(payload, "swe"), SweReference.parse(reference, "swe").test_patch
        bed = TaskBed.of(payload, grader, decoded(extra_info.get("environment")))
        patches = {"test": test_patch, **({"submission": solution} if solution.strip() else {})}
        with grading_session(bed, patches, label="swe-reward") as live:
            if not live.submit("test", test_patch, "submission" if "submission" in patches else None):
                return 0.0
            run = live.run_tests()
        return grade(run.statuses, instance.FAIL_TO_PASS, instance.PASS_TO_PASS).score

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return SweReference.parse(reference, "swe").patch

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return [""]
