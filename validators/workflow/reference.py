"""Workflow reference check: the reference workflow ran, and its deliverables score 1 under the
task's grader program, in separate grading runs (a grader that is not deterministic fails)."""

from __future__ import annotations

from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.workflow import WorkflowGrader, WorkflowReference
from taskforge.validators.workflow.grading import grade


class WorkflowReferenceCheck:
    """Grades the reference deliverables `repeats` times in the sandbox; anything but 1.0 each time rejects."""

    name = "workflow_reference"

    def __init__(self, repeats: int = 2):
        self.repeats = repeats

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow"

    def run(self, task: Task) -> ValidationResult:
        reference = WorkflowReference.of(task)
        run = reference.run
        required = [spec.path for spec in WorkflowGrader.of(task).deliverables]
        missing = [p for p in required if p not in reference.deliverables]
        recorded = run.model_dump(exclude_unset=True)
        if not run.ok or missing:
            why = f"exit {run.exit_code}: {run.stderr_tail.strip()[-300:]}" if not run.ok \
                else f"it did not write {', '.join(missing)}"
            return ValidationResult(check=self.name, passed=False, score=0.0,
                                    reason=f"the reference workflow failed ({why})", detail={"run": recorded})
        submission = dict(reference.deliverables)
        scores = [grade(task, {"reference": submission})["reference"]["score"] for _ in range(self.repeats)]
        passed = all(score == 1.0 for score in scores)
        return ValidationResult(
            check=self.name, passed=passed, score=min(scores),
            reason=None if passed else f"the reference deliverables score {scores}, not 1.0",
            detail={"scores": scores, "run": recorded},
        )
