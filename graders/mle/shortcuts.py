"""Shortcut solvers of MLE competitions, in process, from the public files only: constant predictions and
one-feature lookup models. (The plain linear model is the leaderboard's `linear` baseline, run in the sandbox
with the others.)

- `constant`: the train mean (the median for MAE) for values, the class priors
  for probabilities, the majority class for labels;
- `majority_class`: the majority class, as a label or with probability one;
- a one-feature model (`one_feature`) maps one public view to the label through
  a lookup fitted on train: quantile bins of a numeric column, the values of any
  other; the id is also seen through its residues and its last character. Each
  bin predicts its majority class, its class shares, or its mean. The
  `single_best_feature` shortcut is the view that predicts a held-out fifth of
  train best, refitted on all of train.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from taskforge.graders.mle.grading import frame_from_csv, prediction_columns
from taskforge.graders.mle.metrics import METRICS, Truth

BINS = 20
"""Quantile bins of a numeric column with more distinct values than this."""
ID_RESIDUES = tuple(range(2, 11))
HOLDOUT_EVERY = 5


@dataclass(frozen=True)
class Target:
    """What a competition asks for: the label column, its classes, the metric's prediction, the columns."""

    id_column: str
    column: str
    classes: tuple[str, ...]
    metric: str
    columns: tuple[str, ...]
    group_column: str | None

    @classmethod
    def of(cls, grader: dict[str, Any]) -> "Target":
        return cls(id_column=grader["id_column"], column=grader["target_column"],
                   classes=tuple(str(c) for c in grader.get("classes", [])), metric=grader["metric"],
                   columns=tuple(prediction_columns(grader)), group_column=grader.get("group_column"))

    @property
    def prediction(self) -> str:
        return METRICS[self.metric].prediction

    def labels(self, values: list[Any]) -> np.ndarray:
        """Label values as the metric reads them: class texts, or floats."""
        return np.array([str(v) for v in values], dtype=object) if self.classes else \
            np.array([float(v) for v in values])

    def truth(self, frame: pl.DataFrame) -> Truth:
        """The metric's truth of some labelled rows."""
        groups = frame[self.group_column].to_numpy() if self.group_column else None
        return Truth(target=self.labels(frame[self.column].to_list()), classes=self.classes, groups=groups)

    def score(self, frame: pl.DataFrame, predicted: np.ndarray) -> float:
        """The metric of predictions for labelled rows."""
        return METRICS[self.metric].compute(self.truth(frame), predicted)


def _floats(values: list[str | None]) -> np.ndarray | None:
    """The values as floats (NaN when missing), or None when a present value is not a number."""
    out = np.full(len(values), np.nan)
    for k, value in enumerate(values):
        if value not in (None, ""):
            try:
                out[k] = float(value)
            except ValueError:
                return None
    return out


def views(frame: pl.DataFrame, target: Target) -> dict[str, list[Any]]:
    """Every public column but the label as a lookup key, the id also through its residues and last character."""
    found: dict[str, list[Any]] = {}
    for column in frame.columns:
        if column == target.column:
            continue
        values = frame[column].to_list()
        found[column] = values
        if column == target.id_column:
            numbers = _floats(values)
            if numbers is not None and not np.isnan(numbers).any():
                found.update({f"{column} mod {k}": [str(int(v) % k) for v in numbers] for k in ID_RESIDUES})
            found[f"last character of {column}"] = [str(v)[-1:] for v in values]
    return found


def _keys(train_x: list[Any], query_x: list[Any]) -> tuple[list[Any], list[Any]]:
    """Lookup keys: quantile bins (fitted on train) of a numeric column with many values, else the values."""
    train_numbers, query_numbers = _floats(train_x), _floats(query_x)
    if train_numbers is None or query_numbers is None or len(set(train_x)) <= BINS:
        return list(train_x), list(query_x)
    present = train_numbers[~np.isnan(train_numbers)]
    edges = np.unique(np.quantile(present, np.linspace(0, 1, BINS + 1)[1:-1])) if present.size else np.array([])

    def binned(numbers: np.ndarray) -> list[Any]:
        return [-1 if np.isnan(v) else int(np.searchsorted(edges, v, side="right")) for v in numbers]

    return binned(train_numbers), binned(query_numbers)


def _stat(labels: list[Any], target: Target) -> Any:
    """What one lookup key predicts from the train labels it holds."""
    if target.prediction == "label":
        counts = Counter(labels)
        return max(sorted(counts), key=lambda label: counts[label])
    if target.prediction == "probability":
        counts = Counter(labels)
        shares = np.array([(counts[c] + 1) / (len(labels) + len(target.classes)) for c in target.classes])
        return shares[-1:] if len(target.classes) == 2 else shares
    return float(np.mean(labels))


def one_feature(train_x: list[Any], train_y: np.ndarray, query_x: list[Any], target: Target) -> np.ndarray:
    """Predictions for the query rows of a lookup on one view, fitted on train (unseen keys get the overall
    prediction)."""
    train_keys, query_keys = _keys(train_x, query_x)
    by_key: dict[Any, list[Any]] = {}
    for key, label in zip(train_keys, train_y):
        by_key.setdefault(key, []).append(label)
    overall = _stat(list(train_y), target)
    stats = {key: _stat(labels, target) for key, labels in by_key.items()}
    predicted = [stats.get(key, overall) for key in query_keys]
    if target.prediction == "label":
        return np.array(predicted, dtype=object)
    return np.array([np.atleast_1d(p) for p in predicted], dtype=float).reshape(len(query_keys), -1)


def constant_predictions(train_y: np.ndarray, n: int, target: Target, majority: bool) -> np.ndarray:
    """The constant (or majority-class) prediction for n rows."""
    if not target.classes:
        value = float(np.median(train_y)) if target.metric == "mae" else float(np.mean(train_y))
        return np.full((n, 1), value)
    counts = Counter(train_y)
    top = max(sorted(counts), key=lambda label: counts[label])
    if target.prediction == "label":
        return np.full(n, top, dtype=object)
    shares = np.array([float(c == top) if majority else counts[c] / len(train_y) for c in target.classes])
    return np.tile(shares[-1:] if len(target.classes) == 2 else shares, (n, 1))


def submission(ids: list[Any], predicted: np.ndarray, target: Target) -> str:
    """A submission CSV of predictions for these ids."""
    if target.prediction == "label":
        columns = {target.columns[0]: [str(v) for v in predicted]}
    else:
        columns = {name: np.round(predicted[:, k], 6).tolist() for k, name in enumerate(target.columns)}
    return pl.DataFrame({target.id_column: ids, **columns}).write_csv()


def best_view(train: pl.DataFrame, target: Target) -> str | None:
    """The view whose one-feature model predicts a held-out fifth of train best (None: too few rows)."""
    rows = np.arange(train.height)
    held = rows % HOLDOUT_EVERY == 0
    fit, hold = train.filter(pl.Series(~held)), train.filter(pl.Series(held))
    if fit.height < 2 or hold.height < 2:
        return None
    fit_y = target.labels(fit[target.column].to_list())
    scores = {}
    for name, values in views(train, target).items():
        fit_x = [v for v, h in zip(values, held) if not h]
        hold_x = [v for v, h in zip(values, held) if h]
        try:
            scores[name] = target.score(hold, one_feature(fit_x, fit_y, hold_x, target))
        except ValueError:
            continue
    if not scores:
        return None
    lower = METRICS[target.metric].is_lower_better
    return min(scores, key=lambda name: (scores[name] if lower else -scores[name], name))


def shortcut_submissions(train_text: str, test_text: str, grader: dict[str, Any]) -> dict[str, str]:
    """Each in-process shortcut's submission for the public test rows."""
    target = Target.of(grader)
    train, test = frame_from_csv(train_text, "train.csv"), frame_from_csv(test_text, "test.csv")
    train_y = target.labels(train[target.column].to_list())
    ids = test[target.id_column].to_list()
    found = {"constant": submission(ids, constant_predictions(train_y, len(ids), target, False), target)}
    if target.classes:
        found["majority_class"] = submission(ids, constant_predictions(train_y, len(ids), target, True), target)
    view = best_view(train, target)
    if view is not None:
        train_views, test_views = views(train, target), views(test, target)
        if view in test_views:
            found["single_best_feature"] = submission(
                ids, one_feature(train_views[view], train_y, test_views[view], target), target)
    return found
