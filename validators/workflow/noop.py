"""Workflow no-op check: an untouched workspace, graded by the task's grader program, scores zero.

The solver phase runs a command that does nothing in the solver's workspace
(its own sandbox); whatever it leaves under outputs/ is graded in a separate
grading sandbox.
"""

from __future__ import annotations

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.workflow.grading import grade, run_solver

NOOP_COMMAND = ("true",)


class WorkflowNoOpCheck:
    """Rejects a workflow task whose untouched workspace scores above zero."""

    name = "workflow_noop"

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow"

    def run(self, task: Task) -> ValidationResult:
        untouched = run_solver(task, NOOP_COMMAND)
        score = grade(task, {"untouched": untouched})["untouched"]["score"]
        return ValidationResult(
            check=self.name, passed=score == 0.0, score=score,
            reason=None if score == 0.0 else f"the untouched workspace scores {score}",
            detail={"files_left": sorted(untouched), "score": score},
        )
