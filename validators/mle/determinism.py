"""Grader determinism: the same submission always gets the same report, whatever its row and column order."""

from __future__ import annotations

import random

from taskforge.graders.mle.grading import frame_from_csv, grade
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.mle import MlePayload, MleReference

REPEATS = 3


def _reordered(submission: str, seed: int) -> str:
    """The same submission with its rows shuffled and its columns in reverse order."""
    frame = frame_from_csv(submission)
    order = list(range(frame.height))
    random.Random(seed).shuffle(order)
    return frame[order].select(list(reversed(frame.columns))).write_csv()


class GraderDeterminismCheck:
    """Grades the best baseline and the sample submission repeatedly and reordered; every report must agree."""

    name = "grader_determinism"

    def applies_to(self, task: Task) -> bool:
        return task.family == "mle"

    def run(self, task: Task) -> ValidationResult:
        problems = []
        scores = {}
        for label, submission in (("best baseline", MleReference.of(task).best_submission),
                                  ("sample submission", MlePayload.of(task).files.sample_submission)):
            reports = [grade(submission, task.reference, task.grader).to_dict() for _ in range(REPEATS)]
            reports += [grade(_reordered(submission, seed), task.reference, task.grader).to_dict()
                        for seed in range(REPEATS)]
            scores[label] = [r["score"] for r in reports]
            if any(report != reports[0] for report in reports):
                problems.append(f"the {label} gets different reports: scores {scores[label]}")
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"scores": scores})
