"""`taskforge build mle` end to end: small datasets land as shards, unusable datasets are quarantined."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import polars as pl
import pytest

from taskforge.flows.cli import main
from reward_checks import assert_reward_contract
from mle_data import generated_frame, write_dataset
from taskforge.store.catalog import Catalog
from taskforge.validators.questions import QUESTIONS

FIXTURES = Path(__file__).parent / "fixtures" / "mle"
"""Small synthetic datasets whose settings relax the size, noise and linear rules (the real samples take minutes)."""
pytestmark = [pytest.mark.usefixtures("prefect_server", "docker_engine"), pytest.mark.docker]


@pytest.fixture(autouse=True)
def docker_backend(monkeypatch):
    """The baselines need the docker backend's science image."""
    monkeypatch.setenv("TASKFORGE_SANDBOX", "docker")


def _cli_json(capsys, *argv: str) -> dict:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_build_mle_lands_accepted_tasks_and_rejects_one_a_linear_model_wins(capsys, data_dir, tmp_path):
    """Both fixtures relax the builder's linear rule; on the greenhouse data a plain linear model reaches gold,
    which the `linear_model` shortcut finds: that task is rejected, the orchard task lands and is released."""
    small = tmp_path / "small"
    small.mkdir()
    for name in ("greenhouse_valve_faults", "orchard_yield"):
        for suffix in (".csv", ".json"):
            shutil.copyfile(FIXTURES / f"{name}{suffix}", small / f"{name}{suffix}")
    summary = _cli_json(capsys, "build", "mle", "--count", "2", "--source", str(small), "--data-dir", str(data_dir))
    assert summary["families"]["mle"]["accepted"] == 1 and summary["quarantine"] == []
    assert summary["families"]["mle"]["rejected_by_check"] == {"shortcut": 1}
    loaded = datasets.load_dataset("parquet", data_files=summary["shard_paths"], split="train",
                                   cache_dir=str(data_dir / "hf"))
    assert loaded.num_rows == 1 and set(loaded["family"]) == {"mle"}
    payload = json.loads(loaded["payload"][0])
    assert payload["title"] == "Orchard yield" and payload["is_lower_better"] is True
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        checks = catalog.query('SELECT v."check", v.passed, t.status, t.reasons FROM validations v '
                               'JOIN tasks t USING (task_id)')
    assert {row["check"] for row in checks} == {*QUESTIONS, "near_duplicate"}
    assert all(row["passed"] for row in checks if row["status"] == "accepted")
    (reasons,) = {tuple(row["reasons"]) for row in checks if row["status"] == "rejected"}
    assert len(reasons) == 1 and "the linear_model shortcut scores 1.0" in reasons[0]

    release = _cli_json(capsys, "release", "--version", "1.0.0", "--out", str(data_dir / "release"),
                        "--data-dir", str(data_dir))
    assert release
    rows = datasets.load_dataset(str(data_dir / "release"), "mle", split="train", cache_dir=str(data_dir / "hf"))
    assert rows.num_rows == 1
    for row in rows:
        assert_reward_contract(row)


def test_build_mle_quarantines_a_dataset_without_labels(capsys, data_dir, tmp_path):
    source = tmp_path / "uploads"
    write_dataset(generated_frame("binary").drop("label"), source, "survey")
    summary = _cli_json(capsys, "build", "mle", "--source", str(source), "--data-dir", str(data_dir))
    assert summary["families"] == {} and len(summary["quarantine"]) == 1
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        (row,) = catalog.query("SELECT stage, source, error_type, reason FROM quarantine")
    assert row["stage"] == "build" and row["source"] == "uploads/survey.csv" and row["error_type"] == "InputError"
    assert "dataset without labels" in row["reason"]
