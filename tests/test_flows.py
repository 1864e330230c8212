"""The flows end to end under a Prefect test server: cycle, rerun, bad input, CLI, build, release, deploy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import datasets
import pytest
from prefect.flows import load_flow_from_entrypoint

from conftest import REPO, SAMPLES
from taskforge.flows.cli import main
from taskforge.schemas import TaskforgeError
from taskforge.store.catalog import Catalog
from taskforge.store.layout import DataDir
from taskforge.store.manifest import verify_manifest
from taskforge.store.report import check_cell

pytestmark = pytest.mark.usefixtures("prefect_server")
SMALL = ["--target-tokens", "2048", "--budget", "4"]


def _cli_json(capsys, *argv: str, expect_code: int = 0) -> dict:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    assert code == expect_code, captured.err
    return json.loads(captured.out)


def _catalog_rows(data_dir) -> dict[str, list]:
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        return {table: catalog.query(f"SELECT * EXCLUDE ({exclude}) FROM {table} ORDER BY ALL")
                for table, exclude in [("tasks", "cycle_id"), ("validations", "duration_s"),
                                       ("diagnoses", "cycle_id"), ("quarantine", "cycle_id"),
                                       ("shards", "cycle_id"), ("episodes", "cycle_id")]}


def test_cycle_lands_tasks_and_rerun_adds_nothing(capsys, data_dir):
    summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *SMALL, "--family", "long_context")
    assert summary["episodes"] == 14 and summary["failed_episodes"] == 10
    assert summary["diagnoses_by_mode"]["research.repeats_unproductive_approach"] == 9
    assert summary["gaps"][0]["capability"] == "history_tracking"
    assert summary["families"]["long_context"]["accepted"] == 3
    assert summary["catalog"] == str(data_dir / "catalog.duckdb")
    assert all(os.path.exists(p) for p in summary["shard_paths"]) and summary["shard_paths"]
    before = _catalog_rows(data_dir)
    accepted = [r for r in before["tasks"] if r["status"] == "accepted"]
    assert len(accepted) == 3 and all(r["shard"] for r in accepted)
    assert all(r["reasons"][0].startswith("shortcut: too easy") for r in before["tasks"] if r["status"] == "rejected")

    again = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *SMALL, "--family", "long_context")
    assert again["cycle_id"] == summary["cycle_id"]
    assert again["newly_landed"] == {"accepted": 0, "rejected": 0}
    assert _catalog_rows(data_dir) == before
    assert verify_manifest(data_dir / "shards") == []
    loaded = datasets.load_dataset("parquet", data_files=summary["shard_paths"], split="train",
                                   cache_dir=str(data_dir / "hf"))
    assert loaded.num_rows == 3

    report = _cli_json(capsys, "report", "--data-dir", str(data_dir))
    assert report["cycle"]["cycle_id"] == summary["cycle_id"] and report["cycle"]["attempts"] == "2"
    (funnel,) = report["funnel"]
    assert funnel["accepted"] == 3 and funnel["candidates"] == 3 + funnel["rejected"]
    checks = {c["check"]: c for c in funnel["checks"]}
    assert list(checks) == ["noop", "reference", "leakage", "shortcut", "determinism", "decontamination",
                            "difficulty", "review", "near_duplicate"]
    assert all(c["passed"] == funnel["candidates"] for name, c in checks.items()
               if name not in ("shortcut", "near_duplicate"))
    assert checks["near_duplicate"] == {"check": "near_duplicate", "passed": 3, "failed": 0, "not_applicable": 0,
                                        "skipped": 0}
    assert checks["review"]["skipped"] == funnel["candidates"], "no endpoint: the review says it was skipped"
    assert checks["difficulty"]["skipped"] == funnel["candidates"], "no endpoint: the solver gate says it was skipped"
    assert check_cell(checks["review"]) == "skipped"
    assert {d["failure_mode"] for d in report["diagnoses"]} >= {"research.repeats_unproductive_approach"}


def test_bad_traces_are_quarantined_and_the_cycle_goes_on(capsys, data_dir, tmp_path):
    traces = tmp_path / "traces"
    shutil.copytree(SAMPLES / "traces", traces)
    lines = (traces / "research_agent.openai.jsonl").read_text().splitlines()
    (traces / "cut.jsonl").write_text(lines[0] + "\n" + lines[1][:200])
    (traces / "mystery.json").write_text('{"what": "not a trace"}')
    summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), "--traces", str(traces), *SMALL,
                        "--family", "long_context")
    reasons = " | ".join(q["reason"] for q in summary["quarantine"])
    assert summary["quarantined"] == 2
    assert "traces/cut.jsonl:2: not valid JSON" in reasons and "traces/mystery.json: unknown trace format" in reasons
    assert summary["episodes"] == 15 and summary["families"]["long_context"]["accepted"] == 4
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        stored = catalog.query("SELECT source, reason FROM quarantine ORDER BY source")
    assert [r["source"] for r in stored] == ["traces/cut.jsonl:2", "traces/mystery.json"]
    assert not any(str(tmp_path) in r["reason"] for r in stored), "no host paths in the catalog"


def test_cli_errors_are_one_line_and_non_zero(capsys, data_dir):
    assert main(["cycle", "--data-dir", str(data_dir), "--traces", str(data_dir / "missing")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "taskforge: error: missing: no such file or folder"
    assert main(["report", "--data-dir", str(data_dir / "empty")]) == 1
    assert "run `taskforge cycle` first" in capsys.readouterr().err


def test_build_family_and_release_export(capsys, data_dir, tmp_path):
    built = _cli_json(capsys, "build", "long_context", "--count", "3", "--target-tokens", "4096",
                      "--data-dir", str(data_dir))
    assert built["families"]["long_context"]["accepted"] == 3
    out = tmp_path / "release"
    first = _cli_json(capsys, "release", "--version", "0.1.0", "--out", str(out), "--data-dir", str(data_dir))
    again = _cli_json(capsys, "release", "--version", "0.1.0", "--out", str(out), "--data-dir", str(data_dir))
    assert first["checksums"] == again["checksums"]
    assert "data/long_context/train-00000-of-00001.parquet" in first["files"]
    loaded = datasets.load_dataset(str(out), "long_context", split="train", cache_dir=str(tmp_path / "hf"))
    assert loaded.num_rows == 3 and loaded[0]["data_source"] == "taskforge/long_context"
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        assert catalog.query("SELECT family, rows, removed FROM releases WHERE version = '0.1.0'") == [
            {"family": "long_context", "rows": 3, "removed": 0}]


def test_a_candidate_that_cannot_be_built_is_quarantined_and_the_run_goes_on(capsys, data_dir, tmp_path):
    documents = tmp_path / "undated"
    documents.mkdir()
    (documents / "notes.md").write_text("# Notes\n\nNothing here carries a date.\n")
    built = _cli_json(capsys, "build", "long_context", "--count", "2", "--target-tokens", "4096",
                      "--source", str(documents), "--data-dir", str(data_dir))
    assert built["families"] == {}
    (failure,) = built["quarantine"]
    assert failure["stage"] == "build" and failure["reason"].startswith("undated: ")
    assert "0 usable dated statements" in failure["reason"]
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        assert catalog.query("SELECT stage, error_type FROM quarantine") == [{"stage": "build", "error_type": "InputError"}]


def test_validate_command_reports_each_task(capsys, data_dir):
    built = _cli_json(capsys, "build", "long_context", "--count", "2", "--target-tokens", "2048",
                      "--data-dir", str(data_dir))
    result = _cli_json(capsys, "validate", *built["shard_paths"])
    assert result["accepted"] == 2 and result["rejected"] == 0 and len(result["tasks"]) == 2


def test_literature_build_quarantines_bad_records_and_decontamination_removes_heldout_papers(capsys, data_dir,
                                                                                                 tmp_path):
    synthetic = SAMPLES / "papers_synthetic" / "synthetic_papers.jsonl"
    lines = synthetic.read_text().splitlines()
    source = tmp_path / "papers.jsonl"
    source.write_text("\n".join(lines + ['{"title": "cut', '{"id": "x-1", "title": "Only a title"}']) + "\n")
    built = _cli_json(capsys, "build", "literature", "--count", "4", "--source", str(source),
                      "--data-dir", str(data_dir))
    assert built["families"]["literature"] == {"candidates": 4, "accepted": 4, "rejected": 0, "rejected_by_check": {}}
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        kinds = catalog.query("SELECT kind FROM tasks ORDER BY kind")
        quarantined = catalog.query("SELECT source, reason FROM quarantine ORDER BY source")
    assert [k["kind"] for k in kinds] == ["find_papers", "fulltext_qa", "select_evidence", "table_synthesis"]
    assert [q["source"] for q in quarantined] == [f"papers.jsonl:{len(lines) + 1}", f"papers.jsonl:{len(lines) + 2}"]
    assert quarantined[1]["reason"] == f"papers.jsonl:{len(lines) + 2}: no abstract and no full text"
    revalidated = _cli_json(capsys, "validate", *built["shard_paths"], "--data-dir", str(data_dir))
    assert revalidated["accepted"] == 4, revalidated["tasks"]

    heldout, other = tmp_path / "heldout.txt", tmp_path / "other"
    heldout.write_text("\n".join(json.loads(line)["doi"] for line in lines) + "\n")
    registered = _cli_json(capsys, "decontam", "add", str(heldout), "--data-dir", str(other))
    assert registered["added"]["items"] == len(lines)
    rebuilt = _cli_json(capsys, "build", "literature", "--count", "4", "--source", str(synthetic),
                        "--data-dir", str(other))
    assert rebuilt["families"]["literature"]["rejected_by_check"] == {"decontamination": 4}
    with Catalog(other / "catalog.duckdb", read_only=True) as catalog:
        removed = catalog.query("SELECT reason, detail FROM validations WHERE \"check\" = 'decontamination'")
    assert len(removed) == 4 and all("evaluation set 'heldout' item" in r["reason"] for r in removed)
    assert all(json.loads(r["detail"])["matches"][0]["kind"] == "doi" for r in removed)


def test_flow_runs_leave_artifacts(capsys, data_dir):
    from prefect.client.orchestration import get_client

    summary = _cli_json(capsys, "build", "long_context", "--count", "1", "--target-tokens", "4096",
                        "--data-dir", str(data_dir))
    with get_client(sync_client=True) as client:
        artifacts = [a for a in client.read_artifacts() if a.key and a.key.startswith(("build-family", "chart-"))]
    latest = max(artifacts, key=lambda a: a.created).flow_run_id
    keys = {a.key for a in artifacts if a.flow_run_id == latest}
    assert {"build-family-summary", "build-family-funnel", "chart-funnel", "chart-gaps"} <= keys
    table = next(a for a in artifacts if a.key == "build-family-funnel" and a.flow_run_id == latest)
    assert "long_context" in json.dumps(table.data) and summary["families"]["long_context"]["accepted"] == 1


def test_prefect_yaml_deploys(tmp_path):
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    prefect = [sys.executable, "-m", "prefect"]
    subprocess.run([*prefect, "work-pool", "create", "taskforge", "--type", "process", "--overwrite"],
                   cwd=REPO, env=env, check=True, capture_output=True)
    done = subprocess.run([*prefect, "--no-prompt", "deploy", "--all"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        deployments = {d.name: d for d in client.read_deployments()}
    assert {"nightly-cycle", "build-family", "release-export"} <= set(deployments)
    (schedule,) = deployments["nightly-cycle"].schedules
    assert schedule.schedule.cron == "30 2 * * *" and schedule.schedule.timezone == "UTC"
    for name in ("nightly-cycle", "build-family", "release-export"):
        deployment = deployments[name]
        assert not deployment.pull_steps and str(REPO) not in json.dumps(deployment.model_dump(mode="json"))
        assert deployment.parameters["data_dir"] == "~/.local/share/taskforge"
        asked_at_run = {"version": "1.0.0"} if name == "release-export" else {}
        flow = load_flow_from_entrypoint(deployment.entrypoint)
        validated = flow.validate_parameters({**deployment.parameters, **asked_at_run})
        assert validated["data_dir"] == "~/.local/share/taskforge"


def test_a_deployment_data_dir_is_the_workers_and_never_the_checkout(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert DataDir.at("~/.local/share/taskforge").root == tmp_path / "home" / ".local" / "share" / "taskforge"
    monkeypatch.setenv("TASKFORGE_DATA", str(tmp_path / "srv"))
    assert DataDir.at("$TASKFORGE_DATA/taskforge").root == tmp_path / "srv" / "taskforge"
    assert DataDir.at("s3://bucket/$prefix").root == "s3://bucket/$prefix"
    monkeypatch.delenv("TASKFORGE_DATA")
    with pytest.raises(TaskforgeError, match="not set"):
        DataDir.at("$TASKFORGE_DATA")
