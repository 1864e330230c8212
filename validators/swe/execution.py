"""The SWE family's execution checks: no-op and reference, graded in the sandbox (network off).

The no-op check grades the empty patch and must get zero; the reference check
grades the solution patch, `repeats` times, and must resolve every time; both
grade the held-out tests against the task's FAIL_TO_PASS / PASS_TO_PASS with
SWE-bench's rules. Both gradings run in one sandbox session per task (the
first of the two checks runs it, the second reads the same outcome), so the
container or namespace starts once per task, not once per run.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from taskforge.graders.swe.grading import Verdict, grade
from taskforge.graders.swe.harness import Outcomes, TaskBed, run_empty_and_solution
from taskforge.schemas import Task, ValidationResult, canonical_json
from taskforge.schemas.swe import SwePayload, SweReference

REFERENCE_REPEATS = 2


@lru_cache(maxsize=4)
def _outcomes(task_json: str) -> Outcomes:
    """One session's runs for a task (memoised on the task's content, so the two checks share it)."""
    task = Task.model_validate_json(task_json)
    bed = TaskBed.of(task.payload, task.grader, task.environment)
    reference = SweReference.of(task)
    return run_empty_and_solution(bed, reference.patch, reference.test_patch, REFERENCE_REPEATS, label="swe-validate")


def outcomes_for(task: Task) -> Outcomes:
    """The empty-patch and solution runs of a task in the sandbox."""
    return _outcomes(canonical_json(task.model_dump(mode="json", exclude={"validation", "status", "reasons"})))


def _verdicts(task: Task, outcomes: Outcomes) -> tuple[Verdict, list[Verdict]]:
    payload = SwePayload.of(task)
    f2p, p2p = payload.FAIL_TO_PASS, payload.PASS_TO_PASS
    return grade(outcomes.empty.statuses, f2p, p2p), [grade(run.statuses, f2p, p2p) for run in outcomes.solution]


class SweNoOpCheck:
    """Grades the empty patch: it must not resolve the task (a task with no FAIL_TO_PASS test always fails here)."""

    name = "noop"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        outcomes = outcomes_for(task)
        verdict, _ = _verdicts(task, outcomes)
        detail: dict[str, Any] = {"verdict": verdict.summary(), "run": outcomes.empty.summary()}
        if verdict.resolved:
            why = ("there is no FAIL_TO_PASS test: the held-out tests already pass at the base commit"
                   if not SwePayload.of(task).FAIL_TO_PASS else "the empty patch passes every FAIL_TO_PASS test")
            return ValidationResult(check=self.name, passed=False, score=1.0,
                                    reason=f"the empty patch resolves the task ({why})", detail=detail)
        return ValidationResult(check=self.name, passed=True, score=0.0, detail=detail)


class SweReferenceCheck:
    """Grades the solution patch `REFERENCE_REPEATS` times: it must resolve the task every time."""

    name = "reference"

    def applies_to(self, task: Task) -> bool:
        return task.family == "swe"

    def run(self, task: Task) -> ValidationResult:
        outcomes = outcomes_for(task)
        if not outcomes.solution_applied:
            return ValidationResult(check=self.name, passed=False, score=0.0,
                                    reason="the solution patch does not apply")
        _, verdicts = _verdicts(task, outcomes)
        scores = [verdict.score for verdict in verdicts]
        failing = sorted({t for v in verdicts for t in v.f2p_failure + v.p2p_failure})
        detail = {"scores": scores, "verdicts": [v.summary() for v in verdicts],
                  "runs": [run.summary() for run in outcomes.solution]}
        passed = all(score == 1.0 for score in scores)
        return ValidationResult(check=self.name, passed=passed, score=min(scores),
                                reason=None if passed else f"the solution does not resolve the task; failing: "
                                                           f"{', '.join(failing[:5])}", detail=detail)
