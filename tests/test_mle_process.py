"""MLE tasks where no Docker engine is used: the baselines run in the process backend with the `science`
environment built on the host from the same recipe as the docker image."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from taskforge.builders.base import BuildContext
from taskforge.builders.mle import MleBuilder
from taskforge.graders.mle.grading import reaches
from mle_data import generated_frame, write_dataset
from conftest import SAMPLES
from taskforge.schemas import PlanItem, Task
from taskforge.validators.runner import validate

SMALL = {"min_test_rows": 0, "min_gap_sd": 0, "search_iterations": 2}


def _build(folder, **options) -> list:
    item = PlanItem(family="mle", capability="implementation", quota=1, gap_ids=["gap-m"], priority=1.0)
    return list(MleBuilder().build(item, BuildContext(cycle_id="test-mle-process",
                                                      options={"source": str(folder), "sandbox": "process", **options})))


def test_a_dataset_becomes_an_accepted_task_with_baselines_run_in_the_process_backend(tmp_path):
    write_dataset(generated_frame("binary", rows=300, seed=1), tmp_path / "datasets", "generated_binary")
    (task,) = _build(tmp_path / "datasets", **SMALL)
    assert isinstance(task, Task), task
    assert task.reference["baseline_backend"] == "process"
    assert len(task.payload["leaderboard"]) == 15
    decided = validate(task)
    assert decided.status == "accepted", decided.reasons


def test_thresholds_put_a_default_linear_model_at_or_below_the_median_on_real_data(tmp_path):
    """Real bike-sharing rentals (a seeded sample of 1,500 hours, split by time): the default linear model earns no
    reward, gold needs a tree ensemble, and the gold-median gap is at least three bootstrap deviations."""
    real = pl.read_parquet(SAMPLES / "mle" / "bike_sharing_hourly.parquet").sample(1500, seed=3)
    write_dataset(real, tmp_path / "bikes", "bike_sharing_hourly",
                  {"target": "count", "task_type": "regression", "metric": "rmse"})
    (task,) = _build(tmp_path / "bikes", min_test_rows=450, search_iterations=2)
    assert isinstance(task, Task), task
    board = {e["entry"]: e for e in task.payload["leaderboard"]}
    thresholds = task.payload["thresholds"]
    linear = board["linear_100"]
    assert reaches(thresholds["median"], linear["score"], is_lower_better=True), (linear, thresholds)
    assert linear["rank"] > 8 and task.payload["split"]["test_rows"] >= 450
    assert task.payload["split"]["strategy"] == "time"
    assert board[task.reference["best_entry"]]["model"] in {"stacking", "gradient_boosting_tuned", "gradient_boosting",
                                                             "random_forest_tuned", "random_forest", "extra_trees"}
    assert task.payload["noise"]["gaps_sd"]["gold_median"] >= 3.0
    assert validate(task).status == "accepted"


def test_the_shipped_flights_become_a_task_that_passes_the_noop_reference_and_leakage_checks(tmp_path):
    """The nycflights13 fixture (CC0, shipped in the repository): the latest 3,000 flights, split by their date, with
    the dataset's own settings; the sample submission earns nothing, the best reference reaches gold, no leak."""
    flights = Path(__file__).parent / "fixtures" / "mle" / "nyc_flights_air_time.parquet"
    latest = pl.read_parquet(flights).tail(3000)
    settings = json.loads(flights.with_suffix(".json").read_text(encoding="utf-8"))
    write_dataset(latest, tmp_path / "flights", "nyc_flights_air_time", settings)
    (task,) = _build(tmp_path / "flights", min_test_rows=600, search_iterations=2, min_gap_sd=0,
                     linear_at_or_below_median=False)
    assert isinstance(task, Task), task
    split = task.payload["split"]
    assert (split["strategy"], split["time_column"]) == ("time", "date") and split["test_rows"] >= 600
    decided = validate(task)
    assert decided.status == "accepted", decided.reasons
    strategies = {r.check: r.detail.get("strategy") for r in decided.validation}
    assert strategies["noop"] == ["scorer_noop", "mle_noop"]
    assert strategies["reference"] == ["scorer_reference", "mle_reference"]
    assert strategies["leakage"] == ["mle_leaks", "mle_neighbour_labels"]
