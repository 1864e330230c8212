"""MLE tasks where no Docker engine is used: the baselines run in the process backend with the `science`
environment built on the host from the same recipe as the docker image."""

from __future__ import annotations

from taskforge.builders.base import BuildContext
from taskforge.builders.mle import MleBuilder
from mle_data import generated_frame, write_dataset
from taskforge.schemas import PlanItem, Task
from taskforge.validators.runner import validate


def test_a_dataset_becomes_an_accepted_task_with_baselines_run_in_the_process_backend(tmp_path):
    write_dataset(generated_frame("binary", rows=300, seed=1), tmp_path / "datasets", "generated_binary")
    item = PlanItem(family="mle", capability="implementation", quota=1, gap_ids=["gap-m"], priority=1.0)
    options = {"source": str(tmp_path / "datasets"), "sandbox": "process"}
    (task,) = MleBuilder().build(item, BuildContext(cycle_id="test-mle-process", options=options))
    assert isinstance(task, Task), task
    assert task.reference["baseline_backend"] == "process"
    assert len(task.payload["leaderboard"]) >= 5
    decided = validate(task)
    assert decided.status == "accepted", decided.reasons
