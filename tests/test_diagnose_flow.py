"""`taskforge diagnose` on a folder of mixed formats: gap table, --json, quarantine, and the change between cycles."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import REPO, SAMPLES, SHARED
from taskforge.flows.cli import main
from taskforge.store.catalog import Catalog

pytestmark = pytest.mark.usefixtures("prefect_server")


def _mixed_folder(tmp_path):
    traces = tmp_path / "traces"
    shutil.copytree(SHARED / "fixtures" / "traces", traces / "shared")
    shutil.copytree(SAMPLES / "traces", traces / "samples")
    shutil.copytree(REPO / "tests" / "fixtures" / "traces", traces / "own")
    (traces / "broken.traj").write_text('{"environment": "main", "trajectory": [{"action": "ls"')
    return traces


def test_diagnose_mixed_formats_prints_gaps_and_json(capsys, data_dir, tmp_path):
    traces = _mixed_folder(tmp_path)
    assert main(["diagnose", str(traces), "--data-dir", str(data_dir)]) == 0
    printed = capsys.readouterr().out
    assert "gaps" in printed and "history_tracking" in printed and "traces/broken.traj" in printed

    assert main(["diagnose", str(traces), "--data-dir", str(data_dir), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        formats = {r["source_format"]: r["n"] for r in catalog.query(
            "SELECT source_format, count(*) AS n FROM episodes GROUP BY 1")}
    assert formats == {"inspect": 15, "swe_agent": 3, "mini_swe_agent": 3, "openhands": 3, "native": 4,
                       "openai_messages": 10}
    assert summary["episodes"] == 38 and summary["ungraded_episodes"] == 16
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        assert catalog.query("SELECT count(*) AS n FROM episodes WHERE NOT graded") == [{"n": 16}]
    reasons = {q["source"]: q["reason"] for q in summary["quarantine"]}
    assert "not valid JSON" in reasons["traces/broken.traj"]
    assert sorted(s for s in reasons if s.endswith("LICENSE")) == [
        f"traces/shared/{d}/LICENSE" for d in ("inspect", "mini-swe-agent", "swe-agent")]
    modes = {d["failure_mode"] for d in summary["diagnoses"]}
    assert {"research.repeats_unproductive_approach", "infrastructure.environment_error"} <= modes
    assert all(d["evidence_steps"] and 0 < d["confidence"] <= 1 and isinstance(d["signals"], dict)
               for d in summary["diagnoses"])
    gaps = summary["gaps"]
    assert gaps[0]["capability"] == "history_tracking" and all(g["count"] > 0 and g["rate"] > 0 for g in gaps)
    assert not any(g["failure_mode"].startswith("infrastructure.") for g in gaps)
    assert abs(sum(g["share"] for g in gaps) - 1.0) < 1e-3
    assert {t["trend"] for t in summary["trends"]} == {"first"}


def test_second_cycle_shows_what_improved_and_regressed(capsys, data_dir, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    lines = (SAMPLES / "traces" / "research_agent.openai.jsonl").read_text().splitlines()
    (first / "run.jsonl").write_text("\n".join(lines) + "\n")
    fixed = [json.loads(line) for line in lines]
    for record in fixed[:3]:
        record.update(success=True, score=1.0)
    (second / "run.jsonl").write_text("\n".join(json.dumps(r) for r in fixed) + "\n")
    shutil.copy(SAMPLES / "traces" / "ledger_agent.native.jsonl", second / "ledger.jsonl")

    assert main(["diagnose", str(first), "--data-dir", str(data_dir), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(["diagnose", str(second), "--data-dir", str(data_dir), "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    trends = {(t["family"], t["failure_mode"]): t for t in after["trends"]}
    repeats = trends[("workflow", "research.repeats_unproductive_approach")]
    assert repeats["previous_count"] == 5 and repeats["count"] == 5, "3 research fixes, 3 ledger failures added"
    assert repeats["rate"] < repeats["previous_rate"] and repeats["trend"] == "improved"
    implementation = trends[("workflow", "coding.implementation_error")]
    assert implementation["trend"] in ("new", "regressed") and implementation["count"] > (
        implementation["previous_count"] or 0)
    assert all(t["previous_cycle"] == before["cycle_id"] for t in after["trends"])
    assert main(["report", "--data-dir", str(data_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["trends"] == after["trends"]
    assert main(["report", "--data-dir", str(data_dir)]) == 0
    assert "change since the previous cycle" in capsys.readouterr().out
