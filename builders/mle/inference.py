"""What a dataset asks to predict: target column, task type and metric, given or inferred, then confirmed.

Inference is conservative: the target must be named (settings, options) or
carry a conventional label name; a dataset with no such column, or whose label
column is empty, is refused as a dataset without labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from taskforge.builders.mle.source import DatasetSpec
from taskforge.graders.mle.order import time_columns, time_values
from taskforge.graders.mle.metrics import METRICS, default_metric
from taskforge.schemas import InputError

TARGET_NAMES = ("target", "label", "labels", "class", "y", "outcome", "response")
ID_NAMES = ("id", "row_id", "index", "", "unnamed: 0")
TASK_TYPES = ("classification", "regression", "ranking")
MIN_ROWS = 50
MIN_PER_CLASS = 5
MAX_CLASSES = 50
CLASSIFICATION_MAX_LEVELS = 20
"""A numeric target with integer values and at most this many levels is read as class labels."""
MIN_GROUPS = 10


@dataclass(frozen=True)
class Problem:
    """The prediction problem a dataset defines, after inference and checks."""

    target: str
    task_type: str
    metric: str
    features: tuple[str, ...]
    classes: tuple[str, ...] = ()
    group_column: str | None = None
    time_column: str | None = None
    """The column that orders the rows in time (declared, or a date column found): the split is then by time."""
    dropped_columns: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())


def _target_column(frame: pl.DataFrame, spec: DatasetSpec) -> str:
    """The label column: the one named in the settings, else the one column with a label-like name."""
    if spec.target:
        if spec.target not in frame.columns:
            raise InputError(spec.display, f"target column {spec.target!r} is not among the columns {frame.columns}")
        return spec.target
    named = [c for c in frame.columns if c.lower() in TARGET_NAMES]
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise InputError(spec.display, f"several columns could be the label ({named}); name one with --target "
                                       "(or 'target' in its settings file)")
    raise InputError(spec.display, "dataset without labels: no column is named like a label "
                                   f"({', '.join(TARGET_NAMES)}) and no target was given: name the label column "
                                   "with --target COLUMN (or 'target' in a settings file beside the dataset)")


def _is_integral(values: pl.Series) -> bool:
    """All values are whole numbers."""
    floats = values.cast(pl.Float64)
    return bool((floats == floats.round(0)).all())


def _task_type(target: pl.Series, spec: DatasetSpec) -> str:
    """The task type given, else: ranking with a group column, classification for text or few integer
    levels, regression otherwise."""
    if spec.task_type:
        if spec.task_type not in TASK_TYPES:
            raise InputError(spec.display, f"task type {spec.task_type!r} is not one of {', '.join(TASK_TYPES)}")
        return spec.task_type
    if spec.group_column:
        return "ranking"
    if not target.dtype.is_numeric():
        return "classification"
    if _is_integral(target) and target.n_unique() <= CLASSIFICATION_MAX_LEVELS:
        return "classification"
    return "regression"


def _sorted_labels(labels: list[str]) -> tuple[str, ...]:
    """Class labels in numeric order when they are all numbers, else in text order."""
    try:
        return tuple(sorted(labels, key=float))
    except ValueError:
        return tuple(sorted(labels))


def _as_labels(target: pl.Series) -> pl.Series:
    """Class labels as text; integral numbers lose their '.0' so '1' and '1.0' are one class."""
    if target.dtype.is_numeric() and _is_integral(target):
        return target.cast(pl.Int64).cast(pl.Utf8)
    return target.cast(pl.Utf8)


def _dropped_id_columns(frame: pl.DataFrame, spec: DatasetSpec, target: str) -> list[str]:
    """Row identifiers of the source: replaced by fresh ids, since their values may encode the label."""
    if spec.id_column:
        if spec.id_column not in frame.columns:
            raise InputError(spec.display, f"id column {spec.id_column!r} is not among the columns {frame.columns}")
        return [spec.id_column]
    return [c for c in frame.columns if c.lower() in ID_NAMES and c != target and frame[c].n_unique() == frame.height]


def _check_classes(labels: pl.Series, spec: DatasetSpec) -> tuple[str, ...]:
    """The sorted classes, after checking there are 2 to MAX_CLASSES of them, each with enough rows."""
    counts = labels.value_counts()
    classes = _sorted_labels(counts[labels.name].to_list())
    if len(classes) < 2:
        raise InputError(spec.display, f"the label has a single class {classes}: nothing to predict")
    if len(classes) > MAX_CLASSES:
        raise InputError(spec.display, f"the label has {len(classes)} classes (at most {MAX_CLASSES}); "
                                       "set task_type to 'regression' if it is a quantity")
    rare = counts.filter(pl.col("count") < MIN_PER_CLASS)
    if rare.height:
        raise InputError(spec.display, f"classes {sorted(rare[labels.name].to_list())} have fewer than "
                                       f"{MIN_PER_CLASS} rows; a stratified split needs at least {MIN_PER_CLASS}")
    return classes


def _check_numeric(target: pl.Series, spec: DatasetSpec, task_type: str) -> None:
    """A regression or ranking label must be finite numbers."""
    if not target.dtype.is_numeric():
        raise InputError(spec.display, f"a {task_type} target must be numeric, {target.name!r} is {target.dtype}")
    if not target.cast(pl.Float64).is_finite().all():
        raise InputError(spec.display, f"the target {target.name!r} has infinite values")


def _check_groups(frame: pl.DataFrame, spec: DatasetSpec) -> str:
    """The ranking group column, after checking it exists and has enough groups of two or more rows."""
    group = spec.group_column
    if not group or group not in frame.columns:
        raise InputError(spec.display, f"a ranking task needs its 'group_column' among the columns ({group!r} is not)")
    sizes = frame[group].value_counts()
    if sizes.filter(pl.col("count") >= 2).height < MIN_GROUPS:
        raise InputError(spec.display, f"a ranking task needs at least {MIN_GROUPS} groups of two or more rows")
    return group


def _metric(spec: DatasetSpec, task_type: str, classes: tuple[str, ...]) -> str:
    """The metric asked for (or the task type's default), checked against the task type and the classes."""
    name = spec.metric or default_metric(task_type, len(classes))
    metric = METRICS.get(name)
    if metric is None:
        raise InputError(spec.display, f"unknown metric {name!r}; known: {', '.join(METRICS)}")
    if task_type not in metric.task_types:
        raise InputError(spec.display, f"metric {name!r} does not score {task_type} tasks")
    if metric.binary_only and len(classes) != 2:
        raise InputError(spec.display, f"metric {name!r} needs two classes, the label has {len(classes)}")
    return name


def _time_column(frame: pl.DataFrame, spec: DatasetSpec, task_type: str, skip: tuple[str, ...]) -> str | None:
    """The column that orders the rows in time: the one declared (dates or numbers), else the first column holding
    dates; none for ranking, whose split keeps whole groups."""
    if spec.time_column:
        if spec.time_column not in frame.columns or spec.time_column in skip:
            raise InputError(spec.display, f"time column {spec.time_column!r} is not among the feature columns "
                                           f"{[c for c in frame.columns if c not in skip]}")
        values = frame[spec.time_column]
        if time_values(values) is None and not values.dtype.is_numeric():
            raise InputError(spec.display, f"time column {spec.time_column!r} holds neither dates nor numbers")
        if values.n_unique() < 2:
            raise InputError(spec.display, f"time column {spec.time_column!r} holds a single moment: nothing to order")
        if values.null_count():
            raise InputError(spec.display, f"time column {spec.time_column!r} has {values.null_count()} empty values")
        return spec.time_column
    if task_type == "ranking":
        return None
    found = [c for c in time_columns(frame, skip) if not frame[c].null_count()]
    return found[0] if found else None


def define_problem(frame: pl.DataFrame, spec: DatasetSpec) -> tuple[pl.DataFrame, Problem]:
    """The dataset's problem and the frame it is built from (labelled rows only, labels as text, ids dropped)."""
    target = _target_column(frame, spec)
    labelled = frame.filter(pl.col(target).is_not_null())
    if labelled.height == 0:
        raise InputError(spec.display, f"dataset without labels: the label column {target!r} is empty")
    notes = []
    if labelled.height < frame.height:
        notes.append(f"{frame.height - labelled.height} rows without a label were left out")
    if labelled.height < MIN_ROWS:
        raise InputError(spec.display, f"only {labelled.height} labelled rows; at least {MIN_ROWS} are needed")
    task_type = _task_type(labelled[target], spec)
    classes: tuple[str, ...] = ()
    group = None
    if task_type == "classification":
        labelled = labelled.with_columns(_as_labels(labelled[target]))
        classes = _check_classes(labelled[target], spec)
    else:
        _check_numeric(labelled[target], spec, task_type)
        if task_type == "ranking":
            group = _check_groups(labelled, spec)
            if (labelled[target] < 0).any():
                raise InputError(spec.display, "ranking relevance must not be negative")
    dropped = _dropped_id_columns(labelled, spec, target)
    features = tuple(c for c in labelled.columns if c not in (target, group, *dropped))
    if not features:
        raise InputError(spec.display, "no feature columns besides the label")
    problem = Problem(target=target, task_type=task_type, metric=_metric(spec, task_type, classes),
                      features=features, classes=classes, group_column=group,
                      time_column=_time_column(labelled, spec, task_type, (target, group, *dropped)),
                      dropped_columns=tuple(dropped), notes=tuple(notes))
    return labelled.drop(dropped), problem
