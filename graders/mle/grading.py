"""Grading of MLE competitions: submission validation, the metric, medal thresholds, MLE-bench-shaped reports.

A competition's `grader` spec names its metric, id and prediction columns,
classes and medal thresholds; its `reference` holds the private answers as CSV
text. `grade` returns the full report; `CompetitionScorer` turns it into the
[0, 1] reward every scorer gives (0 at or below the median threshold, 1 at or
beyond the gold threshold, linear in between; 0 for an invalid submission).
"""

from __future__ import annotations

import io
import math
import statistics
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import polars as pl

from taskforge.graders.mle.metrics import METRICS, Metric, Truth

SCORE_DECIMALS = 5
"""Scores are rounded like MLE-bench's, so that regrading on another machine gives the same number."""
MIN_LEADERBOARD = 10
"""Fewest leaderboard entries for which Kaggle's <100-team rule puts gold, silver and bronze on distinct ranks."""


class InvalidSubmission(ValueError):
    """A submission that cannot be graded; the message says what is wrong with it."""


@dataclass(frozen=True)
class Thresholds:
    """Scores a submission must reach for each medal, and the leaderboard median it must beat."""

    gold: float
    silver: float
    bronze: float
    median: float


@dataclass(frozen=True)
class GradingReport:
    """One graded submission, with the fields of an MLE-bench competition report."""

    competition_id: str
    metric: str
    score: float | None
    gold_threshold: float
    silver_threshold: float
    bronze_threshold: float
    median_threshold: float
    any_medal: bool
    gold_medal: bool
    silver_medal: bool
    bronze_medal: bool
    above_median: bool
    submission_exists: bool
    valid_submission: bool
    is_lower_better: bool
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON values."""
        return asdict(self)


def frame_from_csv(text: str, what: str = "submission") -> pl.DataFrame:
    """A CSV text as a frame of strings (no type guessing, so labels compare exactly as written)."""
    if not text.strip():
        raise InvalidSubmission(f"the {what} is empty")
    try:
        return pl.read_csv(io.StringIO(text), infer_schema=False)
    except (pl.exceptions.PolarsError, ValueError) as exc:
        raise InvalidSubmission(f"the {what} is not a readable CSV: {str(exc).splitlines()[0]}") from None


def prediction_columns(grader: dict[str, Any]) -> list[str]:
    """The columns a submission must have besides the id: one per class for multiclass probabilities."""
    metric = METRICS[grader["metric"]]
    classes = grader.get("classes", [])
    if metric.prediction == "probability" and len(classes) > 2:
        return [probability_column(grader["target_column"], label) for label in classes]
    return [grader["target_column"]]


def probability_column(target: str, label: str) -> str:
    """The submission column holding the probability of one class."""
    return f"{target}_{label}"


def _canonical_labels(values: pl.Series, classes: list[str]) -> np.ndarray:
    """Labels as the answers write them ("1.0" for class "1" is accepted); unknown labels are invalid."""
    known = set(classes)
    out = []
    unknown = []
    for value in values.to_list():
        label = value.strip()
        if label not in known:
            try:
                number = float(label)
                label = str(int(number)) if number.is_integer() and str(int(number)) in known else label
            except ValueError:
                pass
        if label not in known:
            unknown.append(value)
        out.append(label)
    if unknown:
        raise InvalidSubmission(f"{len(unknown)} predicted labels are not among the classes {classes}, "
                                f"e.g. {unknown[0]!r}")
    return np.array(out, dtype=object)


def _numbers(frame: pl.DataFrame, columns: list[str]) -> np.ndarray:
    """The prediction columns as a float matrix; non-numbers and non-finite values are invalid."""
    matrix = np.empty((frame.height, len(columns)))
    for k, column in enumerate(columns):
        parsed = frame[column].str.strip_chars().cast(pl.Float64, strict=False)
        bad = parsed.is_null() | ~parsed.is_finite()
        if bad.any():
            example = frame[column].filter(bad).to_list()[0]
            raise InvalidSubmission(f"column {column!r} has {int(bad.sum())} values that are not finite numbers, "
                                    f"e.g. {example!r}")
        matrix[:, k] = parsed.to_numpy()
    return matrix


def _aligned(submission: pl.DataFrame, answers: pl.DataFrame, id_column: str, columns: list[str]) -> pl.DataFrame:
    """The submission checked for columns, ids and missing values, in the answers' row order."""
    present = set(submission.columns)
    missing = [c for c in [id_column, *columns] if c not in present]
    extra = sorted(present - {id_column, *columns})
    if missing or extra:
        raise InvalidSubmission(f"wrong columns: expected {[id_column, *columns]}"
                                + (f"; missing {missing}" if missing else "")
                                + (f"; unexpected {extra}" if extra else ""))
    ids = submission[id_column].str.strip_chars()
    repeated = ids.filter(ids.is_duplicated()).unique(maintain_order=True)
    if repeated.len():
        raise InvalidSubmission(f"{repeated.len()} ids occur more than once, e.g. {repeated[0]!r}")
    expected = set(answers[id_column].to_list())
    got = set(ids.to_list())
    if expected - got:
        absent = sorted(expected - got)
        raise InvalidSubmission(f"{len(absent)} ids of the test set are missing, e.g. {absent[0]!r}")
    if got - expected:
        stray = sorted(got - expected)
        raise InvalidSubmission(f"{len(stray)} ids are not in the test set, e.g. {stray[0]!r}")
    for column in columns:
        empty = submission[column].is_null() | (submission[column].str.strip_chars() == "")
        if empty.any():
            raise InvalidSubmission(f"column {column!r} has {int(empty.sum())} missing values (NaN or empty)")
    keyed = submission.with_columns(ids.alias(id_column))
    return answers.select(id_column).join(keyed, on=id_column, how="left", maintain_order="left")


def metric_score(submission_text: str, answers_text: str, grader: dict[str, Any]) -> float:
    """The submission's metric value (rounded); raises InvalidSubmission with the reason when it cannot be graded."""
    metric: Metric = METRICS[grader["metric"]]
    id_column, target = grader["id_column"], grader["target_column"]
    answers = frame_from_csv(answers_text, "answers")
    columns = prediction_columns(grader)
    rows = _aligned(frame_from_csv(submission_text), answers, id_column, columns)
    classes = [str(c) for c in grader.get("classes", [])]
    truth = Truth(target=answers[target].to_numpy() if classes else answers[target].cast(pl.Float64).to_numpy(),
                  classes=tuple(classes),
                  groups=answers[grader["group_column"]].to_numpy() if grader.get("group_column") else None)
    if metric.prediction == "label":
        predicted = _canonical_labels(rows[target], classes)
    else:
        predicted = _numbers(rows, columns)
        if metric.prediction == "probability" and ((predicted < 0) | (predicted > 1)).any():
            raise InvalidSubmission("probabilities must lie in [0, 1]")
    value = metric.compute(truth, predicted)
    if not math.isfinite(value):
        raise InvalidSubmission(f"the {metric.name} of this submission is not a finite number")
    return round(value, SCORE_DECIMALS)


def _position_rule(n: int) -> tuple[int, int, int]:
    """1-based leaderboard positions of the gold, silver and bronze cut-offs for n teams (Kaggle progression)."""
    if n < 1:
        raise ValueError("a leaderboard needs at least one entry")
    if n < 100:
        return max(1, int(n * 0.1)), max(1, int(n * 0.2)), max(1, int(n * 0.4))
    if n < 250:
        return 10, max(1, int(n * 0.2)), max(1, int(n * 0.4))
    if n < 1000:
        return 10 + int(n * 0.002), 50, 100
    return 10 + int(n * 0.002), max(1, int(n * 0.05)), max(1, int(n * 0.1))


def thresholds_from_leaderboard(scores: list[float], is_lower_better: bool) -> Thresholds:
    """Medal thresholds as MLE-bench derives them: scores at Kaggle's medal positions, and the median score."""
    ranked = sorted(scores, reverse=not is_lower_better)
    gold, silver, bronze = _position_rule(len(ranked))
    return Thresholds(gold=ranked[gold - 1], silver=ranked[silver - 1], bronze=ranked[bronze - 1],
                      median=round(float(statistics.median(ranked)), SCORE_DECIMALS + 1))


def reaches(score: float, threshold: float, is_lower_better: bool) -> bool:
    """The score is at least as good as the threshold."""
    return score <= threshold if is_lower_better else score >= threshold


def report_for(score: float | None, thresholds: Thresholds, is_lower_better: bool, competition_id: str,
               metric: str, submission_exists: bool = True, message: str | None = None) -> GradingReport:
    """The report of a score (None: invalid submission) against the medal thresholds."""
    valid = score is not None
    gold = valid and reaches(score, thresholds.gold, is_lower_better)
    silver = valid and not gold and reaches(score, thresholds.silver, is_lower_better)
    bronze = valid and not gold and not silver and reaches(score, thresholds.bronze, is_lower_better)
    above = valid and (score < thresholds.median if is_lower_better else score > thresholds.median)
    return GradingReport(
        competition_id=competition_id, metric=metric, score=score, gold_threshold=thresholds.gold,
        silver_threshold=thresholds.silver, bronze_threshold=thresholds.bronze, median_threshold=thresholds.median,
        any_medal=gold or silver or bronze, gold_medal=gold, silver_medal=silver, bronze_medal=bronze,
        above_median=above, submission_exists=submission_exists, valid_submission=valid,
        is_lower_better=is_lower_better, message=message,
    )


def thresholds_of(grader: dict[str, Any]) -> Thresholds:
    """The medal thresholds a grader spec carries."""
    return Thresholds(**grader["thresholds"])


def grade(submission_text: str | None, reference: dict[str, Any], grader: dict[str, Any]) -> GradingReport:
    """Grade a submission CSV text (None: no submission file) against the private answers."""
    score, message = None, None
    if submission_text is None:
        message = "no submission file"
    else:
        try:
            score = metric_score(submission_text, reference["answers"], grader)
        except InvalidSubmission as exc:
            message = str(exc)
    return report_for(score, thresholds_of(grader), grader["is_lower_better"], grader["competition_id"],
                      grader["metric"], submission_exists=submission_text is not None, message=message)


def reward(report: GradingReport) -> float:
    """A report as a reward in [0, 1]: 0 up to the median threshold, 1 from the gold threshold, linear between."""
    if report.score is None or not report.above_median:
        return 0.0
    if report.gold_medal:
        return 1.0
    span = report.gold_threshold - report.median_threshold
    return round(min(1.0, max(0.0, (report.score - report.median_threshold) / span)), 6)


class CompetitionScorer:
    """The scorer of MLE competitions: the reward of a submission CSV's grading report."""

    name = "mle.competition"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        return reward(grade(submission, reference, grader))

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return reference["best_submission"]

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        """No file content at all, and the header of a submission without rows."""
        return ["", ",".join([grader["id_column"], *prediction_columns(grader)]) + "\n"]
