"""Planted MLE defects of the time-ordered kind, validated by `taskforge validate` on a stored Parquet file: a good
competition built from seven weeks of real bike-sharing hours (split by time) is accepted; a copy of it split at
random (neighbouring hours give the test labels away) is rejected by `leakage`, naming the neighbouring-labels part
and the columns; a copy whose split was recorded without its seed (its baselines, drawn unseeded, give other
thresholds every time) is rejected by `determinism`.

The sandbox is the process backend; the baseline runs (the build's, the good row's re-run, one per planted row, and
the determinism check's second run of the three seeded entries) are what cost time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from typing import Any

import numpy as np
import polars as pl
import pytest

from conftest import SAMPLES
from mle_data import write_dataset
from taskforge import sandbox
from taskforge.builders.base import BuildContext
from taskforge.builders.mle import MleBuilder
from taskforge.flows.cli import main
from taskforge.graders.mle.grading import frame_from_csv
from taskforge.schemas import PlanItem, Task
from taskforge.store.batches import write_batch
from taskforge.validators.cache import CACHE_ENV

HOURS = 1200
"""The first 1,200 hours of the bike-sharing sample: January and February 2011, the last 240 held out."""
RULES = {"min_test_rows": 0, "min_gap_sd": 0, "search_iterations": 2, "linear_at_or_below_median": False}
"""Rules that let a seven-week slice through the size, noise and linear rules (the full rules are measured on the
whole samples by bench/quality_sample.py)."""


@pytest.fixture(scope="module")
def process_backend(tmp_path_factory):
    """The process backend, and a validation cache of this module's own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TASKFORGE_SANDBOX", "process")
        patch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("validation-cache")))
        sandbox.default_sandbox.cache_clear()
        yield
    sandbox.default_sandbox.cache_clear()


@pytest.fixture(scope="module")
def good(process_backend, tmp_path_factory) -> Task:
    hours = pl.read_parquet(SAMPLES / "mle" / "bike_sharing_hourly.parquet").head(HOURS)
    folder = tmp_path_factory.mktemp("mle-planted") / "datasets"
    write_dataset(hours, folder, "bike_hours", {"target": "count", "task_type": "regression", "metric": "rmse",
                                                "time_column": "dteday", **RULES})
    item = PlanItem(family="mle", capability="implementation", quota=1, gap_ids=[], priority=1.0)
    (task,) = MleBuilder().build(item, BuildContext(cycle_id="mle-planted", options={"source": str(folder),
                                                                                      "sandbox": "process"}))
    assert isinstance(task, Task), task
    assert task.payload["split"]["strategy"] == "time"
    return task


def _copy(task: Task, label: str, payload: dict[str, Any], reference: dict[str, Any] | None = None) -> Task:
    """A stored copy with its payload (and reference) replaced, under an id of its own."""
    return task.model_copy(update={"task_id": f"{task.task_id}~{label}", "validation": [], "status": "candidate",
                                   "reasons": [], "payload": payload, "reference": reference or task.reference})


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _split_at_random(task: Task) -> Task:
    """The same rows, ids and columns, a seeded fifth of them held out at random instead of the latest period."""
    payload = task.payload
    train = frame_from_csv(payload["files"]["train.csv"])
    answers = frame_from_csv(task.reference["answers"])
    rows = pl.concat([train, frame_from_csv(payload["files"]["test.csv"]).join(answers, on="id")
                     .select(train.columns)]).sort(pl.col("id").cast(pl.Int64))
    held = pl.Series(np.random.default_rng(11).random(rows.height) < 0.2)
    train, test = rows.filter(~held), rows.filter(held)
    mean = round(float(train["count"].cast(pl.Float64).mean()), 6)
    files = {**payload["files"], "train.csv": train.write_csv(), "test.csv": test.drop("count").write_csv(),
             "sample_submission.csv": test.select("id").with_columns(pl.lit(mean).alias("count")).write_csv()}
    answers_text = test.select("id", "count").write_csv()
    split = {**payload["split"], "train_rows": train.height, "test_rows": test.height}
    return _copy(task, "random-split",
                 {**payload, "files": files, "split": split,
                  "checksums": {f"public/{name}": _digest(text) for name, text in files.items()}},
                 {**task.reference, "answers": answers_text, "best_submission": files["sample_submission.csv"],
                  "checksums": {"private/answers.csv": _digest(answers_text)}})


def _unseeded(task: Task) -> Task:
    """The split recorded without its seed: a split (and baselines) drawn from an unseeded generator."""
    return _copy(task, "unseeded", {**task.payload, "split": {**task.payload["split"], "seed": None}})


@pytest.fixture(scope="module")
def verdicts(good, tmp_path_factory) -> dict[str, dict[str, Any]]:
    """The good row and its planted copies stored in one Parquet file and validated by `taskforge validate`."""
    rows = {"good": good, "random-split": _split_at_random(good), "unseeded": _unseeded(good)}
    folder = tmp_path_factory.mktemp("stored")
    path = folder / "mle-planted.parquet"
    write_batch(path, list(rows.values()), Task)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["validate", str(path), "--data-dir", str(folder / "data"), "--json"]) == 0
    by_id = {row["task_id"]: row for row in json.loads(out.getvalue())["tasks"]}
    return {name: by_id[task.task_id] for name, task in rows.items()}


def _reasons(row: dict[str, Any]) -> dict[str, str]:
    """The row's reasons by the check that gave each."""
    return dict(reason.split(": ", 1) for reason in row["reasons"].split("; ") if ": " in reason)


def test_the_competition_split_by_time_is_accepted(verdicts):
    assert verdicts["good"]["status"] == "accepted", verdicts["good"]["reasons"]


def test_a_random_split_of_time_ordered_rows_is_rejected_by_leakage_naming_the_columns(verdicts):
    row = verdicts["random-split"]
    assert row["status"] == "rejected"
    assert "leakage" in _reasons(row), row["reasons"]
    assert "mle_neighbour_labels: the labels of neighbouring train rows in time ('dteday', then 'hr') order" \
           in row["reasons"]


def test_a_split_recorded_without_its_seed_is_rejected_by_determinism(verdicts):
    row = verdicts["unseeded"]
    assert row["status"] == "rejected"
    assert "determinism" in _reasons(row), row["reasons"]
    assert "predict differently when run again with the task's seed (None)" in row["reasons"]
