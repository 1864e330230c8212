"""How noisy a competition's metric is on its test set, and whether its medal gaps stand out of that noise.

The bootstrap standard deviation of the metric is measured on the best
reference submission: the test rows (whole ranking groups for ranking tasks)
are drawn again with replacement, `resamples` times with a seeded generator,
and each draw is graded by the competition's own grader. The gaps between the
medal thresholds are then stated in units of that deviation; a competition
whose gold threshold is not at least `min_gap_sd` deviations beyond its median
cannot tell a medal from luck and is refused.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from taskforge.graders.mle.grading import Thresholds, frame_from_csv, metric_score

RESAMPLES = 200
MIN_GAP_SD = 3.0
"""The gold threshold must lie at least this many bootstrap deviations beyond the median."""


@dataclass(frozen=True)
class Noise:
    """The metric's bootstrap deviation on the test set and the medal gaps measured in it."""

    bootstrap_sd: float
    resamples: int
    entry: str
    gaps_sd: dict[str, float]
    min_gold_median_sd: float

    def as_record(self) -> dict[str, Any]:
        """The figures as they are kept in the task's payload."""
        return {"bootstrap_sd": self.bootstrap_sd, "resamples": self.resamples, "entry": self.entry,
                "gaps_sd": self.gaps_sd, "min_gold_median_sd": self.min_gold_median_sd}


def _draw(aligned: pl.DataFrame, grader: dict[str, Any], rng: np.random.Generator) -> pl.DataFrame:
    """A resample of the test rows (of whole groups for ranking), each drawn row or group given a fresh id."""
    group = grader.get("group_column")
    if not group:
        picked = aligned[rng.integers(0, aligned.height, aligned.height)]
        return picked.with_columns(pl.Series(grader["id_column"], [str(k) for k in range(picked.height)]))
    names = aligned[group].unique(maintain_order=True).to_list()
    parts = [aligned.filter(pl.col(group) == names[k]).with_columns(pl.lit(str(n)).alias(group))
             for n, k in enumerate(rng.integers(0, len(names), len(names)))]
    picked = pl.concat(parts)
    return picked.with_columns(pl.Series(grader["id_column"], [str(k) for k in range(picked.height)]))


def bootstrap_sd(submission: str, answers: str, grader: dict[str, Any], prediction_columns: list[str], seed: int,
                 resamples: int = RESAMPLES) -> float:
    """The standard deviation of a submission's metric over bootstrap resamples of the test set."""
    id_column, target = grader["id_column"], grader["target_column"]
    truth = frame_from_csv(answers, "answers")
    predicted = frame_from_csv(submission).select(id_column, *prediction_columns)
    predicted = predicted.rename({c: f"{c}__predicted" for c in prediction_columns})
    aligned = truth.join(predicted, on=id_column, how="left", maintain_order="left")
    answer_columns = [c for c in (id_column, grader.get("group_column"), target) if c]
    rng = np.random.default_rng(seed)
    scores = []
    for _ in range(resamples):
        drawn = _draw(aligned, grader, rng)
        renamed = drawn.select(id_column, *[pl.col(f"{c}__predicted").alias(c) for c in prediction_columns])
        scores.append(metric_score(renamed.write_csv(), drawn.select(answer_columns).write_csv(), grader))
    return round(statistics.stdev(scores), 6)


def medal_gaps(thresholds: Thresholds, sd: float) -> dict[str, float]:
    """The distances between neighbouring thresholds (and gold to median) in bootstrap deviations (sd > 0)."""
    def gap(a: float, b: float) -> float:
        return round(abs(a - b) / sd, 3)
    return {"gold_silver": gap(thresholds.gold, thresholds.silver),
            "silver_bronze": gap(thresholds.silver, thresholds.bronze),
            "bronze_median": gap(thresholds.bronze, thresholds.median),
            "gold_median": gap(thresholds.gold, thresholds.median)}
