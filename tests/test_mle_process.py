"""MLE tasks where no Docker engine is used: the baselines run in the process backend with the `science`
environment built on the host from the same recipe as the docker image."""

from __future__ import annotations

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
