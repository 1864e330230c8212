"""Prepare a competition from a labelled frame: a seeded split into public and private files, checked.

Public files: `train.csv` (with labels), `test.csv` (without), and
`sample_submission.csv` (test ids with a placeholder prediction); private:
`answers.csv` (test ids and labels). Every row gets a fresh id from a seeded
permutation, so neither ids nor row order say anything about labels or the split.

Rows repeating another row exactly (features and label) are dropped first: split apart, the train copy would
give away the test copy's label (`split.duplicates_dropped` counts them).

How rows are held out (`split.strategy`): a dataset ordered in time (a
`time_column`, declared or found) is split by time, the test set being the
latest period (whole moments, never a moment on both sides), as a forecast is
judged: a random split of time-ordered rows would give away each test row's
label through the train rows just before and after it. Otherwise the split is
stratified by class (`stratified`), by whole groups for ranking (`groups`), or
uniform (`random`).

Storage: a competition travels inline in its task row (CSV texts as JSON
strings), so a shard alone is enough to rebuild the workspace anywhere. To keep
shards light (a shard holds ~64 MiB of rows, a trainer reads a shard at once)
a competition is kept within `INLINE_BUDGET_BYTES`; a larger dataset is
subsampled, seeded and stratified, and the task says so.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from taskforge.builders.mle.inference import Problem
from taskforge.graders.mle.grading import prediction_columns
from taskforge.graders.mle.metrics import METRICS
from taskforge.graders.mle.order import time_values
from taskforge.schemas import InputError, TaskforgeError

INLINE_BUDGET_BYTES = 2 << 20
"""At most this many bytes of CSV per competition (public and private files together)."""
DATASET_SHARE = 0.75
"""The share of the budget the dataset itself may take; ids, the sample submission and the answers need the rest."""
MAX_TEST_FRACTION = 0.5
PUBLIC_FILES = ("train.csv", "test.csv", "sample_submission.csv")
ANSWERS_FILE = "answers.csv"


class PreparationError(TaskforgeError):
    """A prepared split broke one of its guarantees (a bug, never a property of the input)."""


@dataclass(frozen=True)
class Competition:
    """A prepared competition: public file texts, private answers, the split's facts and every file's checksum."""

    competition_id: str
    id_column: str
    problem: Problem
    grader: dict[str, Any]
    public: dict[str, str]
    answers: str
    split: dict[str, Any]
    checksums: dict[str, str]


def grader_spec(competition_id: str, problem: Problem, id_column: str) -> dict[str, Any]:
    """What the grader needs besides the medal thresholds: metric, direction, columns, classes."""
    return {
        "scorer": "mle.competition", "competition_id": competition_id, "metric": problem.metric,
        "is_lower_better": METRICS[problem.metric].is_lower_better, "id_column": id_column,
        "target_column": problem.target, "classes": list(problem.classes), "group_column": problem.group_column,
    }


def checksum(text: str) -> str:
    """The sha256 of a file's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def slug(name: str) -> str:
    """A lower-case, dash-separated identifier from a dataset name."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "dataset"


def _require(condition: bool, message: str) -> None:
    """Stop preparation when a guarantee of the split does not hold."""
    if not condition:
        raise PreparationError(f"split check failed: {message}")


def _stratified_pick(keys: np.ndarray, share: float, rng: np.random.Generator, at_least: int) -> np.ndarray:
    """A boolean mask picking about `share` of the rows of every key (at least `at_least`, never all)."""
    mask = np.zeros(len(keys), dtype=bool)
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        take = min(len(rows) - 1, max(at_least, int(round(share * len(rows)))))
        mask[rng.permutation(rows)[:take]] = True
    return mask


def _group_pick(groups: np.ndarray, share: float, rng: np.random.Generator) -> np.ndarray:
    """A mask over whole groups, drawn in seeded order until about `share` of the rows are picked."""
    names, sizes = np.unique(groups, return_counts=True)
    order = rng.permutation(len(names))
    picked, total = [], 0
    for k in order:
        if total >= share * len(groups):
            break
        picked.append(names[k])
        total += sizes[k]
    return np.isin(groups, picked)


def time_keys(frame: pl.DataFrame, column: str) -> np.ndarray:
    """The rows' moments in a time column, as sortable numbers (dates as microseconds, numbers as they are)."""
    moments = time_values(frame[column])
    return (moments if moments is not None else frame[column].cast(pl.Float64)).to_numpy()


def _latest_pick(keys: np.ndarray, share: float) -> np.ndarray:
    """A mask of the latest rows: whole moments, from the last one back, until about `share` of the rows (the
    earliest moment always stays out)."""
    moments, counts = np.unique(keys, return_counts=True)
    taken = int(np.searchsorted(np.cumsum(counts[::-1]), share * len(keys))) + 1
    return keys >= moments[-min(taken, len(moments) - 1)]


def split_strategy(problem: Problem) -> str:
    """How the rows are held out: by time, stratified by class, by whole groups, or uniformly at random."""
    if problem.time_column:
        return "time"
    return {"classification": "stratified", "ranking": "groups"}.get(problem.task_type, "random")


def _pick(frame: pl.DataFrame, problem: Problem, share: float, rng: np.random.Generator) -> np.ndarray:
    """Rows for a share of the data: the latest for time-ordered rows, stratified by class, whole groups for
    ranking, uniform otherwise."""
    if problem.time_column:
        return _latest_pick(time_keys(frame, problem.time_column), share)
    if problem.task_type == "classification":
        return _stratified_pick(frame[problem.target].to_numpy(), share, rng, at_least=1)
    if problem.task_type == "ranking":
        return _group_pick(frame[problem.group_column].cast(pl.Utf8).to_numpy(), share, rng)
    mask = np.zeros(frame.height, dtype=bool)
    mask[rng.permutation(frame.height)[: max(1, int(round(share * frame.height)))]] = True
    return mask


def _within_budget(frame: pl.DataFrame, problem: Problem, rng: np.random.Generator) -> pl.DataFrame:
    """The frame itself, or a subsample whose CSV fits the dataset's share of the budget: seeded and stratified,
    or the latest period of time-ordered rows."""
    allowed = INLINE_BUDGET_BYTES * DATASET_SHARE
    while (size := len(frame.write_csv().encode("utf-8"))) > allowed:
        frame = frame.filter(pl.Series(_pick(frame, problem, 0.95 * allowed / size, rng)))
    return frame


def _id_column(columns: list[str]) -> str:
    """The name of the fresh id column: `id`, unless a feature already has that name."""
    name = "id"
    while name in columns:
        name = f"{name}_"
    return name


def _placeholder(problem: Problem, train: pl.DataFrame) -> Any:
    """The prediction every row of the sample submission carries: uninformed on purpose."""
    prediction = METRICS[problem.metric].prediction
    if prediction == "label":
        return problem.classes[0]
    if prediction == "probability":
        return 0.5 if len(problem.classes) == 2 else round(1.0 / len(problem.classes), 6)
    if problem.task_type == "regression":
        return round(float(train[problem.target].cast(pl.Float64).mean()), 6)
    return 0.0


def _check(frame: pl.DataFrame, train: pl.DataFrame, test: pl.DataFrame, sample: pl.DataFrame,
           answers: pl.DataFrame, id_column: str, problem: Problem) -> None:
    """The guarantees of the split; a failure is a bug in preparation and stops the build."""
    target = problem.target
    _require(train.height + test.height == frame.height, "train and test together are not the whole dataset")
    _require(train.height > 0 and test.height > 0, "train or test is empty")
    for name, part in (("train", train), ("test", test)):
        _require(part[id_column].n_unique() == part.height, f"ids are not unique in {name}")
    _require(set(train[id_column]).isdisjoint(set(test[id_column])), "train and test share ids")
    _require(train.columns == frame.columns, "train columns differ from the dataset's")
    _require(test.columns == [c for c in frame.columns if c != target], "test columns are not train's minus the label")
    _require(target not in test.columns, "the public test file holds the label")
    _require(sample[id_column].to_list() == test[id_column].to_list(), "sample submission ids differ from test ids")
    _require(answers[id_column].to_list() == test[id_column].to_list(), "answer ids differ from test ids")
    if problem.task_type == "classification":
        for name, part in (("train", train), ("test", answers)):
            _require(set(part[target]) == set(problem.classes), f"{name} does not hold every class")
    if problem.group_column:
        _require(set(train[problem.group_column]).isdisjoint(set(test[problem.group_column])),
                 "a ranking group is split between train and test")


def _time_bounds(train: pl.DataFrame, test: pl.DataFrame, column: str | None) -> dict[str, Any]:
    """For a split by time: its column, the last moment of train and the first of test, as the data writes them."""
    if not column:
        return {}
    last = train[column][int(np.argmax(time_keys(train, column)))]
    first = test[column][int(np.argmin(time_keys(test, column)))]
    return {"time_column": column, "train_until": str(last), "test_from": str(first)}


def test_share(rows: int, test_fraction: float, min_test_rows: int, display: str) -> float:
    """The share of rows to hold out: the one asked for, raised (up to `MAX_TEST_FRACTION`) until the test set
    has `min_test_rows` rows; a dataset too small for that is an InputError naming it."""
    share = max(test_fraction, 1.01 * min_test_rows / rows)
    if share > MAX_TEST_FRACTION:
        raise InputError(display, f"{rows} rows (after the inline budget) cannot give a test set of {min_test_rows} "
                                  f"rows with at most {MAX_TEST_FRACTION:.0%} held out: medal gaps would drown in "
                                  "the noise of a small test set")
    return share


def prepare(frame: pl.DataFrame, problem: Problem, seed: int, name: str, test_fraction: float = 0.2,
            min_test_rows: int = 0, display: str | None = None) -> Competition:
    """Split a labelled frame into a competition's public and private files, with checks and checksums."""
    if not 0.05 <= test_fraction <= MAX_TEST_FRACTION:
        raise PreparationError(f"test_fraction {test_fraction} is outside [0.05, {MAX_TEST_FRACTION}]")
    rng = np.random.default_rng(seed)
    source_rows = frame.height
    distinct = frame.unique(maintain_order=True)
    frame = _within_budget(distinct, problem, rng)
    test_fraction = test_share(frame.height, test_fraction, min_test_rows, display or name)
    id_column = _id_column(frame.columns)
    columns = [id_column, *frame.columns]
    frame = frame.with_columns(pl.Series(id_column, rng.permutation(frame.height))).select(columns)
    in_test = pl.Series(_pick(frame, problem, test_fraction, rng))
    train = frame.filter(~in_test).sort(id_column)
    test_full = frame.filter(in_test).sort(id_column)
    test = test_full.drop(problem.target)
    answers = test_full.select([c for c in (id_column, problem.group_column, problem.target) if c])
    competition_id = f"{slug(name)}-{seed:08x}"
    grader = grader_spec(competition_id, problem, id_column)
    placeholder = _placeholder(problem, train)
    sample = test.select(id_column).with_columns(
        [pl.lit(placeholder).alias(column) for column in prediction_columns(grader)])
    if problem.time_column and problem.task_type == "classification":
        held = set(answers[problem.target]) & set(train[problem.target])
        missing = sorted(set(problem.classes) - held)
        if missing:
            raise InputError(display or name, f"split by time ({problem.time_column!r}), the earlier or the later "
                                              f"period holds no row of the classes {missing}")
    _check(frame, train, test, sample, answers, id_column, problem)
    public = {"train.csv": train.write_csv(), "test.csv": test.write_csv(), "sample_submission.csv": sample.write_csv()}
    answers_text = answers.write_csv()
    checksums = {**{f"public/{k}": checksum(v) for k, v in public.items()},
                 f"private/{ANSWERS_FILE}": checksum(answers_text)}
    total = sum(len(text.encode("utf-8")) for text in [*public.values(), answers_text])
    _require(total <= INLINE_BUDGET_BYTES, f"{total} bytes of files exceed the inline budget of {INLINE_BUDGET_BYTES}")
    split = {
        "seed": seed, "rows": frame.height, "source_rows": source_rows, "train_rows": train.height,
        "test_rows": test.height, "test_fraction": test_fraction, "bytes": total,
        "strategy": split_strategy(problem),
        "stratified_by": None if problem.time_column else
        problem.target if problem.task_type == "classification" else problem.group_column,
        "duplicates_dropped": source_rows - distinct.height, "subsampled": frame.height < distinct.height,
        **_time_bounds(train, test_full, problem.time_column),
    }
    return Competition(competition_id=competition_id, id_column=id_column, problem=problem, grader=grader,
                       public=public, answers=answers_text, split=split, checksums=checksums)
