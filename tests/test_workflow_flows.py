"""Workflow tasks through the flows: a cycle and a manual build land accepted tasks built from the shipped seeds."""

from __future__ import annotations

import json

import pytest

from taskforge import sandbox
from taskforge.builders.registry import builder_for
from taskforge.flows.cli import main
from taskforge.store.catalog import Catalog
from taskforge.validators.questions import QUESTIONS

pytestmark = pytest.mark.usefixtures("prefect_server")


@pytest.fixture(autouse=True)
def process_backend(monkeypatch):
    chosen = sandbox.get_sandbox("process")
    monkeypatch.setattr(sandbox, "default_sandbox", lambda: chosen)


def _cli_json(capsys, *argv: str) -> dict:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_cycle_builds_workflow_tasks_from_the_shipped_seeds(capsys, data_dir):
    assert builder_for("workflow").default_source == "workflow_seeds"
    summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), "--budget", "3", "--family", "workflow")
    assert summary["families"]["workflow"] == {"candidates": 3, "accepted": 3, "rejected": 0, "rejected_by_check": {}}
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        checks = catalog.query('SELECT DISTINCT "check" AS name FROM validations ORDER BY 1')
    assert {row["name"] for row in checks} == {*QUESTIONS, "near_duplicate"}


def test_build_workflow_lands_accepted_tasks(capsys, data_dir):
    built = _cli_json(capsys, "build", "workflow", "--count", "2", "--data-dir", str(data_dir))
    assert built["families"]["workflow"]["accepted"] == 2 and built["shard_paths"]
