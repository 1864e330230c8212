"""The `shortcut` question's part every family shares in shape: each cheap solver's submission is scored like a
solver's, by the task's own grader at its partial-credit score, and may score at most the family's threshold.

A family gives a function from a task to `{shortcut name: score}` (its
solvers, and how its grader scores them); a shortcut that does not apply to a
task is left out of the mapping. The thresholds, and why each is where it is,
are in validators/README.md.
"""

from __future__ import annotations

from typing import Callable

from taskforge.graders.literature.shortcuts import SHORTCUT_THRESHOLD
from taskforge.graders.long_context.solvers import HARD_POOL_THRESHOLD
from taskforge.schemas import Task, ValidationResult

THRESHOLDS: dict[str, float] = {"literature": SHORTCUT_THRESHOLD, "long_context": HARD_POOL_THRESHOLD, "mle": 0.5,
                                "swe": 0.5, "workflow": 0.5}
"""The most a shortcut may score (partial credit included) on a task of the family; above it rejects the task."""

ShortcutScores = Callable[[Task], dict[str, float]]


def too_easy(family: str, scores: dict[str, float]) -> list[str]:
    """Why the task is too easy: each shortcut scoring above the family's threshold, best first."""
    threshold = THRESHOLDS[family]
    over = sorted(((score, name) for name, score in scores.items() if score > threshold), reverse=True)
    return [f"too easy: the {name} shortcut scores {score}, above the {family} threshold {threshold}"
            for score, name in over]


class ShortcutSolvers:
    """A family's shortcut solvers as a strategy part: no score may be above the family's threshold."""

    def __init__(self, name: str, scores: ShortcutScores, applies: Callable[[Task], bool] = lambda task: True):
        self.name = name
        self.scores = scores
        self.applies = applies

    def applies_to(self, task: Task) -> bool:
        return self.applies(task)

    def run(self, task: Task) -> ValidationResult:
        scores = {name: round(score, 6) for name, score in self.scores(task).items()}
        problems = too_easy(task.family, scores)
        return ValidationResult(check=self.name, passed=not problems, score=max(scores.values(), default=0.0),
                                reason="; ".join(problems) or None,
                                detail={"scores": scores, "threshold": THRESHOLDS[task.family]})
