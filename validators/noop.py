"""No-op check: doing nothing (an empty or refusing answer) must score zero."""

from __future__ import annotations

from taskforge.graders import scorer_for
from taskforge.schemas import Task, ValidationResult


class NoOpCheck:
    """Scores every no-op submission of the task's scorer; any score above zero rejects the task."""

    name = "noop"

    def applies_to(self, task: Task) -> bool:
        return "scorer" in task.grader

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
