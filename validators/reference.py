"""Reference check: the known solution must score full marks, every time it is graded."""

from __future__ import annotations

from taskforge.graders import scorer_for
from taskforge.schemas import Task, ValidationResult


class ReferenceCheck:
    """Grades the reference submission `repeats` times; anything but 1.0 each time rejects the task."""

    name = "reference"

    def __init__(self, repeats: int = 2):
        self.repeats = repeats

    def applies_to(self, task: Task) -> bool:
        return "scorer" in task.grader

    def run(self, task: Task) -> ValidationResult:
        scorer = scorer_for(task.grader)
        submission = scorer.reference_submission(task.reference, task.grader)
        scores = [scorer.score(submission, task.reference, task.grader) for _ in range(self.repeats)]
        passed = all(score == 1.0 for score in scores)
        return ValidationResult(
            check=self.name, passed=passed, score=min(scores),
            reason=None if passed else f"the reference scores {scores}, not 1.0",
            detail={"scores": scores},
        )
