"""Scorer determinism check: the task's scorer gives the same score every time, stays in [0, 1], and does
not depend on how a correct answer is dressed (reasoning before it, the marker's case, a final period)."""

from __future__ import annotations

from taskforge.graders import scorer_for
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.long_context import LongContextReference

REPEATS = 3


def dressed(answer_text: str) -> list[str]:
    """The reference answer as solvers write it: after some reasoning, with other marker cases, with a period."""
    return [f"Let me work through the documents.\nThe relevant statements are above.\nAnswer: {answer_text}",
            f"ANSWER: {answer_text}", f"answer : {answer_text}.", f"Answer:   {answer_text}  \n"]


class DeterminismCheck:
    """Scores the reference, its dressed variants, the no-op answers and a wrong answer `REPEATS` times each."""

    name = "determinism"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context"

    def run(self, task: Task) -> ValidationResult:
        scorer = scorer_for(task.grader)
        reference = scorer.reference_submission(task.reference, task.grader)
        variants = dressed(LongContextReference.of(task).answer_text)
        submissions = [reference, *variants, *scorer.noop_submissions(task.grader), "Answer: zz-unrelated-zz"]
        scores = {text: [scorer.score(text, task.reference, task.grader) for _ in range(REPEATS)]
                  for text in submissions}
        problems = [f"{text[:40]!r} scores {runs}" for text, runs in scores.items() if len(set(runs)) > 1]
        problems += [f"{text[:40]!r} scores {runs[0]}, outside [0, 1]" for text, runs in scores.items()
                     if not 0.0 <= runs[0] <= 1.0]
        problems += [f"the reference written as {text[:40]!r} scores {scores[text][0]}, not 1.0"
                     for text in variants if scores[text][0] != 1.0]
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"scores": {text[:60] or "<empty>": runs[0] for text, runs in scores.items()}})
