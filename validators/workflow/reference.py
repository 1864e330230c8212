"""Workflow reference check: the reference workflow ran, and its deliverables score 1 under the
task's grader program, in separate grading runs (a grader that is not deterministic fails)."""

from __future__ import annotations

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.workflow.grading import grade


class WorkflowReferenceCheck:
    """Grades the reference deliverables `repeats` times in the sandbox; anything but 1.0 each time rejects."""

    name = "workflow_reference"

    def __init__(self, repeats: int = 2):
        self.repeats = repeats

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow"

    def run(self, task: Task) -> ValidationResult:
        run = task.reference.get("run", {})
        required = [d["path"] for d in task.grader["deliverables"]]
        missing = [p for p in required if p not in task.reference.get("deliverables", {})]
        if not run.get("ok") or missing:
            why = f"exit {run.get('exit_code')}: {run.get('stderr_tail', '').strip()[-300:]}" if not run.get("ok") \
                else f"it did not write {', '.join(missing)}"
            return ValidationResult(check=self.name, passed=False, score=0.0,
                                    reason=f"the reference workflow failed ({why})", detail={"run": run})
        submission = dict(task.reference["deliverables"])
        scores = [grade(task, {"reference": submission})["reference"]["score"] for _ in range(self.repeats)]
        passed = all(score == 1.0 for score in scores)
        return ValidationResult(
            check=self.name, passed=passed, score=min(scores),
            reason=None if passed else f"the reference deliverables score {scores}, not 1.0",
            detail={"scores": scores, "run": run},
        )
