"""Leaks of an MLE competition: can the private answers be read off the public files?

Looked for: the label column in the public test file; test ids that also occur
in train (their labels are public); a public column that reproduces the answers
row by row (a sample submission holding the answers); and any single public
column (the id included, also through its residues and last character) from
which a one-feature nearest-neighbour lookup learnt on train predicts every
label, both on train (leave-one-out) and on the hidden test rows.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import polars as pl

from taskforge.graders.mle.grading import frame_from_csv
from taskforge.schemas import Task
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference

ANSWER_AGREEMENT = 0.99
"""A public column agreeing with this share of the answers reproduces them."""
REGRESSION_PERFECT_R2 = 0.999
"""A regression label this well predicted by one column counts as perfectly predicted."""
ID_RESIDUES = tuple(range(2, 11))


def _numbers(values: list[str | None]) -> np.ndarray | None:
    """The values as floats (NaN for missing), or None when any present value is not a number."""
    out = np.empty(len(values))
    for k, value in enumerate(values):
        if value is None or value == "":
            out[k] = np.nan
            continue
        try:
            out[k] = float(value)
        except ValueError:
            return None
    return out


def _agree(left: str | None, right: str | None) -> bool:
    """Two cell texts denote the same value (numbers compared as numbers)."""
    if left is None or right is None:
        return False
    if left.strip() == right.strip():
        return True
    try:
        return math.isclose(float(left), float(right), rel_tol=1e-9, abs_tol=1e-9)
    except ValueError:
        return False


def _reproduced_answers(name: str, public: pl.DataFrame, answers: pl.DataFrame, id_column: str,
                        target: str) -> list[str]:
    """Columns of a public file that, joined on the id, repeat the private labels."""
    if id_column not in public.columns:
        return []
    joined = answers.join(public, on=id_column, how="left", suffix="__public")
    truth = joined[target].to_list()
    leaks = []
    for column in public.columns:
        if column == id_column:
            continue
        values = joined[f"{column}__public" if column == target else column].to_list()
        if len(set(values)) < 2:
            continue
        share = sum(_agree(v, t) for v, t in zip(values, truth)) / len(truth)
        if share >= ANSWER_AGREEMENT:
            leaks.append(f"{name} column {column!r} reproduces the private answers ({share:.1%} of test rows)")
    return leaks


def _lookup_predictions(train_x: list[Any], train_y: list[Any], query: list[Any], leave_one_out: bool) -> list[Any]:
    """Most common train label of each query value (exact match); with leave_one_out the row itself is left out."""
    by_value: dict[Any, Counter] = {}
    for x, y in zip(train_x, train_y):
        by_value.setdefault(x, Counter())[y] += 1
    predictions = []
    for k, x in enumerate(query):
        counts = Counter(by_value.get(x, Counter()))
        if leave_one_out:
            counts[train_y[k]] -= 1
        counts = +counts
        predictions.append(min(counts.items(), key=lambda item: (-item[1], str(item[0])))[0] if counts else None)
    return predictions


def _nearest(xs: np.ndarray, left: np.ndarray, right: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Of two candidate positions in sorted `xs`, the one closer to `x` (the left one on ties)."""
    return np.where(np.abs(x - xs[left]) <= np.abs(xs[right] - x), left, right)


def _nearest_predictions(train_x: np.ndarray, train_y: np.ndarray, query: np.ndarray | None) -> np.ndarray:
    """Label of the nearest train value in one dimension, for each query value, or for each train row with
    the row itself left out (query None); missing values get no prediction."""
    present = ~np.isnan(train_x)
    order = np.flatnonzero(present)[np.argsort(train_x[present], kind="stable")]
    xs, ys = train_x[order], train_y[order]
    n = len(xs)
    if n < 2:
        return np.full(len(train_x) if query is None else len(query), None, dtype=object)
    if query is None:
        positions = np.arange(n)
        left = np.where(positions > 0, positions - 1, 1)
        right = np.where(positions < n - 1, positions + 1, n - 2)
        predictions = np.full(len(train_x), None, dtype=object)
        predictions[order] = ys[_nearest(xs, left, right, xs)]
        return predictions
    known = ~np.isnan(query)
    position = np.searchsorted(xs, query[known])
    left, right = np.clip(position - 1, 0, n - 1), np.clip(position, 0, n - 1)
    predictions = np.full(len(query), None, dtype=object)
    predictions[known] = ys[_nearest(xs, left, right, query[known])]
    return predictions


def _perfect(predicted: Any, truth: list[Any], regression: bool) -> bool:
    """Every label predicted: exactly for classes, with R² of at least REGRESSION_PERFECT_R2 for values."""
    if any(p is None for p in predicted):
        return False
    if not regression:
        return all(p == t for p, t in zip(predicted, truth))
    p, t = np.asarray(predicted, dtype=float), np.asarray(truth, dtype=float)
    spread = float(np.sum((t - t.mean()) ** 2))
    return spread > 0 and 1.0 - float(np.sum((t - p) ** 2)) / spread >= REGRESSION_PERFECT_R2


def _views(name: str, values: list[str | None], is_id: bool) -> dict[str, list[Any] | np.ndarray]:
    """A column as lookup keys or numbers; the id column also through its residues and last character."""
    numbers = _numbers(values)
    views: dict[str, list[Any] | np.ndarray] = {name: numbers if numbers is not None else values}
    if is_id:
        if numbers is not None and not np.isnan(numbers).any():
            for k in ID_RESIDUES:
                views[f"{name} mod {k}"] = [int(v) % k for v in numbers]
        views[f"last character of {name}"] = [str(v)[-1:] for v in values]
    return views


def _single_feature_leaks(train: pl.DataFrame, test: pl.DataFrame, answers: pl.DataFrame, id_column: str,
                          target: str, regression: bool) -> list[str]:
    """Public columns from which one-feature lookups predict every label, on train and on the test rows."""
    test = answers.select(id_column, target).join(test.drop(target, strict=False), on=id_column, how="left")
    train_y, test_y = train[target].to_list(), test[target].to_list()
    if regression:
        train_y, test_y = [float(v) for v in train_y], [float(v) for v in test_y]
    leaks = []
    for column in train.columns:
        if column == target or column not in test.columns:
            continue
        train_views = _views(column, train[column].to_list(), column == id_column)
        test_views = _views(column, test[column].to_list(), column == id_column)
        for view, train_x in train_views.items():
            test_x = test_views.get(view)
            if test_x is None or isinstance(train_x, np.ndarray) != isinstance(test_x, np.ndarray):
                continue
            if isinstance(train_x, np.ndarray):
                ys = np.asarray(train_y, dtype=object)
                on_train = _nearest_predictions(train_x, ys, None)
                on_test = _nearest_predictions(train_x, ys, test_x)
            else:
                on_train = _lookup_predictions(train_x, train_y, train_x, leave_one_out=True)
                on_test = _lookup_predictions(train_x, train_y, test_x, leave_one_out=False)
            if _perfect(on_train, train_y, regression) and _perfect(on_test, test_y, regression):
                leaks.append(f"the label is perfectly predicted by the single public feature {view!r}")
                break
    return leaks


def mle_leaks(task: Task) -> list[str]:
    """Every way found to read the private answers off the public files."""
    files, grader = MlePayload.of(task).files, MleGrader.of(task)
    id_column, target = grader.id_column, grader.target_column
    answers = frame_from_csv(MleReference.of(task).answers, "answers")
    train = frame_from_csv(files.train, "train.csv")
    test = frame_from_csv(files.test, "test.csv")
    leaks = []
    if target in test.columns:
        leaks.append(f"the public test.csv holds the label column {target!r}")
    train_ids = set(train[id_column].to_list()) if id_column in train.columns else set()
    shared = train_ids & set(answers[id_column].to_list())
    if shared:
        leaks.append(f"{len(shared)} test ids also occur in the public train.csv, with their labels")
    for name, text in (("test.csv", files.test), ("sample_submission.csv", files.sample_submission)):
        leaks += _reproduced_answers(name, frame_from_csv(text, name), answers, id_column, target)
    regression = not grader.classes
    leaks += _single_feature_leaks(train, test, answers, id_column, target, regression)
    return leaks
