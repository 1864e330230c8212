"""Workflow reference check: the shipped reference workflow, run again on the task's inputs in the sandbox, writes
every required deliverable; its fresh deliverables score 1 under the task's grader program in separate grading
runs (a grader that is not deterministic fails); and the reference the task stores is exactly what it wrote
(a stored reference with one computed number changed is rejected, naming the file and the line)."""

from __future__ import annotations

from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.workflow import WorkflowReference
from taskforge.validators.workflow.grading import grade
from taskforge.validators.workflow.rederive import rerun


def _lines(text: str) -> list[str]:
    """A deliverable's lines as compared: line endings and trailing spaces ignored, trailing blank lines too."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def first_difference(stored: str, fresh: str) -> str | None:
    """Where a stored deliverable first differs from the re-derived one, in words (None when they agree)."""
    left, right = _lines(stored), _lines(fresh)
    for number, (was, now) in enumerate(zip(left, right), start=1):
        if was != now:
            return f"line {number} reads {was[:80]!r}, the workflow writes {now[:80]!r}"
    if len(left) != len(right):
        return f"it has {len(left)} lines, the workflow writes {len(right)}"
    return None


def stored_differences(stored: dict[str, str], fresh: dict[str, str]) -> list[str]:
    """Each required deliverable whose stored text is not what the workflow writes, or that is not stored."""
    problems = []
    for path, text in fresh.items():
        if path not in stored:
            problems.append(f"the stored reference lacks {path}")
        elif (where := first_difference(stored[path], text)) is not None:
            problems.append(f"the stored reference {path} is not what the workflow writes: {where}")
    return problems


class WorkflowReferenceCheck:
    """Runs the reference workflow again, grades its deliverables `repeats` times (1.0 each time), and compares
    them with the stored reference."""

    name = "workflow_reference"

    def __init__(self, repeats: int = 2):
        self.repeats = repeats

    def applies_to(self, task: Task) -> bool:
        return task.family == "workflow"

    def run(self, task: Task) -> ValidationResult:
        again = rerun(task)
        detail = {"run": again.run.detail, "run_cached": again.cached}
        failure = again.failure()
        if failure:
            return ValidationResult(check=self.name, passed=False, score=0.0, reason=failure, detail=detail)
        fresh = again.deliverables
        scores = [grade(task, {"rerun": fresh})["rerun"]["score"] for _ in range(self.repeats)]
        problems = [] if all(s == 1.0 for s in scores) else [f"the re-derived deliverables score {scores}, not 1.0"]
        problems += stored_differences(WorkflowReference.of(task).deliverables, fresh)
        return ValidationResult(check=self.name, passed=not problems, score=min(scores),
                                reason="; ".join(problems) or None, detail={**detail, "scores": scores})
