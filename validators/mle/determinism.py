"""MLE determinism: the same submission always gets the same report, whatever its row and column order; and the
leaderboard the thresholds come from is the same every time its baselines run (a split or a baseline drawn from
an unseeded random generator gives other thresholds on every re-derivation)."""

from __future__ import annotations

import random

from taskforge.graders.mle.grading import frame_from_csv, grade
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.mle import MlePayload, MleReference
from taskforge.validators.mle.rederive import baseline_plan, graded, rederived_leaderboard, run_cached

REPEATS = 3
RERUN_KIND = "mle-baselines-rerun"
"""The validation cache's kind for the second run of the seeded baselines (apart from the first, which the other
checks share)."""


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


class BaselineRerunCheck:
    """Runs the leaderboard's entries that fit a seeded share of train (the cheapest ones that draw rows and
    trees from the task's seed) a second time in the sandbox; each must predict exactly what it predicted in the
    re-run leaderboard the other checks grade against."""

    name = "mle_baseline_rerun"

    def applies_to(self, task: Task) -> bool:
        return task.family == "mle"

    def run(self, task: Task) -> ValidationResult:
        board = rederived_leaderboard(task)
        entries = [{"name": e.entry, "model": e.model, "fraction": e.train_fraction}
                   for e in MlePayload.of(task).leaderboard if e.train_fraction < 1.0 and e.entry in board.submissions]
        if not entries:
            return ValidationResult(check=self.name, passed=True, detail={"entries": [], "why": "the leaderboard has "
                                    "no entry fitted on a seeded share of train"})
        runs, cached = run_cached(task, baseline_plan(task, entries), RERUN_KIND)
        again, _ = graded(task, runs["submissions"])
        differing = {e["name"]: [board.scores.get(e["name"]), again.get(e["name"])] for e in entries
                     if runs["submissions"].get(e["name"]) != board.submissions[e["name"]]}
        reason = None
        if differing:
            seed = MlePayload.of(task).split.seed
            reason = (f"the leaderboard's baselines predict differently when run again with the task's seed ({seed}): "
                      f"{', '.join(differing)} (scores in the first and second run: {differing}); the thresholds "
                      "derived from them are not reproducible")
        return ValidationResult(check=self.name, passed=not differing, reason=reason,
                                detail={"entries": [e["name"] for e in entries], "differing": differing,
                                        "runs_cached": cached})
