"""No-op and reference strategy parts shared by every family whose grader names an in-process scorer (see
`taskforge.graders.scorer_for`): doing nothing must score zero, and the known solution full marks every time."""

from __future__ import annotations

from taskforge.graders import scorer_for
from taskforge.schemas import Task, ValidationResult


class ScorerNoOp:
    """Scores every no-op submission of the task's scorer; any score above zero rejects the task."""

    name = "scorer_noop"

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        scorer = scorer_for(task.grader)
        scores = {text or "<empty>": scorer.score(text, task.reference, task.grader)
                  for text in scorer.noop_submissions(task.grader)}
        worst = max(scores.values())
        return ValidationResult(
            check=self.name, passed=worst == 0.0, score=worst,
            reason=None if worst == 0.0 else f"a no-op submission scores {worst}",
            detail={"scores": scores},
        )


class ScorerReference:
    """Grades the reference submission `repeats` times; anything but 1.0 each time rejects the task."""

    name = "scorer_reference"

    def __init__(self, repeats: int = 2):
        self.repeats = repeats

    def applies_to(self, task: Task) -> bool:
        return True

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
