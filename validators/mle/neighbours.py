"""Test labels that neighbouring train labels give away, found from the public files and the private answers alone.

A random split of rows ordered in time (hourly rentals, daily sales) leaves
each test row between train rows of the hour before and the hour after, whose
labels give its own away: a solver interpolating them reaches gold. The
builder's record of how it split is never read; the orders are derived from the
public rows:
- the id (in an honest task ids come from a seeded permutation and neighbouring
  ids share nothing);
- each column holding dates (`graders.mle.order`), alone and with each other
  column of few values breaking ties within a moment (the hour of a day);
- each integer column whose values are nearly all distinct (a row number, a
  timestamp).
In each order every test row is predicted twice from train labels only: without
neighbours (the train mean or class shares, or, when a column breaks ties, its
per-value mean: the hour's profile), and with them (that prediction corrected by
the train rows' residuals at its own place in the order, else at the nearest
places before and after it). Scored with the task's metric, the neighbours leak
when they reach the median of the leaderboard's baselines as they give it when
run again, or remove at least `MIN_REMOVED_ERROR` of the error the same
prediction makes without them. A split by time passes: its test rows all lie
after the last train row, so the neighbours say little.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from taskforge.graders.mle.grading import frame_from_csv, reaches
from taskforge.graders.mle.order import time_values
from taskforge.graders.mle.shortcuts import Target
from taskforge.schemas import Task
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference
from taskforge.validators.mle.leakage import score_error
from taskforge.validators.mle.rederive import rederived_leaderboard

MAX_TIE_LEVELS = 100
"""A column breaks ties within a moment when it has at most this many distinct values (the hour of a day: 24)."""
INDEX_DISTINCT_SHARE = 0.95
"""An integer column is a row index or a timestamp when at least this share of its values are distinct."""
MIN_REMOVED_ERROR = 0.4
"""Neighbours leak when they remove at least this share of the error the same prediction makes without them (a
random split of the hourly bike rentals: 0.56; split by time: 0.08 at most; the wine's ids: none)."""
PRIOR_WEIGHT = 0.05
"""Predicted class shares are blended with the train class shares by this weight (no probability is 0)."""


@dataclass(frozen=True)
class Order:
    """One order of the rows: a sortable key per row (NaN where missing), and the codes of the column that breaks
    ties within a place (None: no such column)."""

    keys: np.ndarray
    ties: np.ndarray | None = None


@dataclass(frozen=True)
class NeighbourScore:
    """How the train neighbours in one order predict the test labels: the metric's score with them and without
    them, and the share of test rows lying between train rows (or sharing a place with one) in that order."""

    order: str
    score: float
    without: float
    enclosed: float


def _numbers(values: pl.Series) -> np.ndarray | None:
    """The values as floats (NaN when missing), or None when a present value is not a number."""
    cast = values.cast(pl.Float64, strict=False)
    if cast.null_count() > values.null_count():
        return None
    return cast.to_numpy().astype(float)


def _codes(values: pl.Series) -> np.ndarray:
    """Sortable numbers for any column: its numbers, else the rank of its texts (missing values: -1)."""
    numbers = _numbers(values)
    if numbers is not None:
        return np.nan_to_num(numbers, nan=-1.0)
    return np.unique(values.cast(pl.Utf8).fill_null("").to_numpy(), return_inverse=True)[1].astype(float)


def _lexical_rank(primary: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """One sortable key for the order by `primary`, ties broken by `tie` (equal pairs get equal keys)."""
    order = np.lexsort((tie, primary))
    pairs = np.column_stack([primary[order], tie[order]])
    changes = np.concatenate([[0], np.any(pairs[1:] != pairs[:-1], axis=1).cumsum()])
    ranks = np.empty(len(primary))
    ranks[order] = changes
    return ranks


def orders(rows: pl.DataFrame, id_column: str, target_column: str) -> dict[str, Order]:
    """Every order of the rows worth trying, by description."""
    found: dict[str, Order] = {}
    ids = _numbers(rows[id_column]) if id_column in rows.columns else None
    if ids is not None:
        found[f"id ({id_column!r})"] = Order(ids)
    columns = [c for c in rows.columns if c not in (id_column, target_column)]
    few = [c for c in columns if 1 < rows[c].n_unique() <= MAX_TIE_LEVELS]
    for column in columns:
        moments = time_values(rows[column])
        if moments is not None:
            key = moments.cast(pl.Float64).to_numpy()
            found[f"time ({column!r})"] = Order(key)
            for tie in few:
                if tie != column:
                    codes = _codes(rows[tie])
                    found[f"time ({column!r}, then {tie!r})"] = Order(
                        _lexical_rank(np.nan_to_num(key, nan=-np.inf), codes), codes)
            continue
        numbers = _numbers(rows[column])
        if numbers is not None and np.all(numbers[~np.isnan(numbers)] % 1 == 0) \
                and rows[column].n_unique() >= INDEX_DISTINCT_SHARE * rows.height:
            found[f"index ({column!r})"] = Order(numbers)
    return found


def _encoded(labels: np.ndarray, target: Target) -> np.ndarray:
    """Labels as rows of numbers to average: the value, or a one-hot row over the classes."""
    if not target.classes:
        return labels.astype(float).reshape(-1, 1)
    return (labels.reshape(-1, 1) == np.array(target.classes, dtype=object).reshape(1, -1)).astype(float)


def _as_prediction(encoded: np.ndarray, prior: np.ndarray, target: Target) -> np.ndarray:
    """Averaged encoded labels as the metric reads predictions."""
    if not target.classes:
        return encoded
    shares = np.clip(encoded, 0.0, None)
    shares = shares / np.maximum(shares.sum(axis=1, keepdims=True), 1e-12)
    shares = (1 - PRIOR_WEIGHT) * shares + PRIOR_WEIGHT * prior
    if target.prediction == "label":
        return np.array(target.classes, dtype=object)[np.argmax(shares, axis=1)]
    return shares[:, -1:] if len(target.classes) == 2 else shares


def _group_means(keys: np.ndarray, values: np.ndarray, query: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """The mean of `values` per key, looked up for each query key (`fallback` for keys train does not hold)."""
    places, inverse = np.unique(keys, return_inverse=True)
    sums = np.zeros((len(places), values.shape[1]))
    np.add.at(sums, inverse, values)
    means = sums / np.bincount(inverse, minlength=len(places)).reshape(-1, 1)
    at = np.minimum(np.searchsorted(places, query), len(places) - 1)
    return np.where((places[at] == query)[:, None], means[at], fallback)


def neighbour_means(train_keys: np.ndarray, values: np.ndarray, test_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each test row, the mean of the train `values` at its place in the order, else at the nearest places
    before and after it (zero where it has none); with whether it lies between train rows or shares a place."""
    known = ~np.isnan(train_keys)
    places, inverse = np.unique(train_keys[known], return_inverse=True)
    means = np.zeros((len(test_keys), values.shape[1]))
    if not len(places):
        return means, np.zeros(len(test_keys), dtype=bool)
    sums = np.zeros((len(places), values.shape[1]))
    np.add.at(sums, inverse, values[known])
    stats = sums / np.bincount(inverse, minlength=len(places)).reshape(-1, 1)
    at = np.searchsorted(places, test_keys)
    after, before = np.minimum(at, len(places) - 1), np.maximum(at - 1, 0)
    has_before, has_after = at > 0, at < len(places)
    exact = has_after & (places[after] == test_keys)
    both = has_before & has_after & ~exact
    means = np.where(exact[:, None], stats[after], means)
    means = np.where(both[:, None], (stats[before] + stats[after]) / 2, means)
    means = np.where((has_before & ~has_after)[:, None], stats[before], means)
    means = np.where((has_after & ~has_before)[:, None], stats[after], means)
    missing = np.isnan(test_keys)
    means[missing] = 0.0
    return means, (exact | both) & ~missing


def neighbour_scores(train: pl.DataFrame, labelled_test: pl.DataFrame, target: Target) -> list[NeighbourScore]:
    """How the train neighbours in each order predict the test labels (rows: public train, and test with its
    answers), scored with and without them."""
    columns = [c for c in labelled_test.columns if c in train.columns]
    both = pl.concat([train.select(columns), labelled_test.select(columns)])
    encoded = _encoded(target.labels(train[target.column].to_list()), target)
    prior = encoded.mean(axis=0)
    split = train.height
    scores = []
    for name, order in orders(both, target.id_column, target.column).items():
        if order.ties is None:
            base_train, base_test = np.tile(prior, (split, 1)), np.tile(prior, (both.height - split, 1))
        else:
            base_train = _group_means(order.ties[:split], encoded, order.ties[:split], prior)
            base_test = _group_means(order.ties[:split], encoded, order.ties[split:], prior)
        correction, enclosed = neighbour_means(order.keys[:split], encoded - base_train, order.keys[split:])
        try:
            with_them = target.score(labelled_test, _as_prediction(base_test + correction, prior, target))
            without = target.score(labelled_test, _as_prediction(base_test, prior, target))
        except ValueError:
            continue
        scores.append(NeighbourScore(order=name, score=with_them, without=without,
                                     enclosed=float(enclosed.mean()) if len(enclosed) else 0.0))
    return scores


def leaks(found: NeighbourScore, median: float, lower_is_better: bool) -> bool:
    """The neighbours reach the median baseline, or remove at least `MIN_REMOVED_ERROR` of the error made
    without them."""
    error, without = score_error(found.score, lower_is_better), score_error(found.without, lower_is_better)
    return reaches(found.score, median, lower_is_better) or error <= (1 - MIN_REMOVED_ERROR) * without


def neighbour_leaks(task: Task) -> list[str]:
    """Orders of the public rows in which neighbouring train labels give the test labels away."""
    payload, grader = MlePayload.of(task), MleGrader.of(task)
    target = Target.of(task.grader)
    answers = frame_from_csv(MleReference.of(task).answers, "answers")
    train = frame_from_csv(payload.files.train, "train.csv")
    test = frame_from_csv(payload.files.test, "test.csv")
    if target.column not in train.columns or target.id_column not in test.columns:
        return []
    labelled_test = answers.select(target.id_column, target.column).join(
        test.drop(target.column, strict=False), on=target.id_column, how="left")
    median = rederived_leaderboard(task).thresholds.median
    return [f"the labels of neighbouring train rows in {found.order} order give the test labels away: with them "
            f"a prediction from train labels alone scores {found.score:.5g}, without them {found.without:.5g} "
            f"(median baseline {median}); {found.enclosed:.0%} of the test rows lie between train rows in that "
            "order (split by time, none would)"
            for found in neighbour_scores(train, labelled_test, target)
            if leaks(found, median, grader.is_lower_better)]
