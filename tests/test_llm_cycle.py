"""The LLM steps inside `taskforge cycle`: skipped without an endpoint; against a local server, accounted
per stage in the catalog, replayed on rerun, and never leaking the key."""

from __future__ import annotations

import io
import json
import logging
import re
import shutil
from pathlib import Path

import pytest
from prefect.settings import PREFECT_SERVER_DATABASE_CONNECTION_URL

from taskforge.agents.config import ROLES
from conftest import SAMPLES
from taskforge.agents.steps import LLM_STEPS
from taskforge.flows.cli import main
from llm_server import Canned, ChatServer, schema_name
from model_answers import ANSWERS
from taskforge.store.catalog import Catalog
from test_agents import SECRET, endpoint_env
from test_flows import _cli_json
from test_hooks_literature import _rewrite

pytestmark = pytest.mark.usefixtures("prefect_server")
RUN = ["--target-tokens", "2048", "--budget", "2", "--family", "long_context"]
LLM_RUN = ["--target-tokens", "2048", "--budget", "4", "--family", "long_context", "--family", "literature"]
SETTINGS = ("BASE_URL", "API_KEY", "MODEL")


@pytest.fixture
def no_endpoint(monkeypatch):
    """An environment with no LLM endpoint, whatever the machine running the tests has set."""
    for name in ["OPENAI_BASE_URL", "OPENAI_API_KEY", "TASKFORGE_LLM_MODEL", "TASKFORGE_LLM_CONFIG",
                 *(f"TASKFORGE_{role.upper()}_{s}" for role in ROLES for s in SETTINGS)]:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def client_logs():
    """Everything the client side logs at DEBUG (ours, `openai`, the HTTP library), whatever Prefect's setup."""
    buffer, handler = io.StringIO(), logging.StreamHandler()
    handler.setStream(buffer)
    loggers = [logging.getLogger(name) for name in ("taskforge", "openai", "httpx", "httpx2", "httpcore")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
    yield buffer
    for logger, level in zip(loggers, levels):
        logger.setLevel(level)
        logger.removeHandler(handler)


def _respond(body: dict) -> Canned:
    """The diagnoser names an evidence-selection failure (trained by literature and long-context tasks) at
    the first assistant step (on an episode of another family, the first mode its taxonomy lists); the builder rewrites literature questions to their brief; the judge model
    answers wrongly; reviewers and judges accept (`model_answers`)."""
    schema = schema_name(body)
    user = body["messages"][1]["content"]
    if schema == "TaskAnswer":
        return Canned(content=json.dumps({"reasoning": "no event fits", "answer": "Answer: none"}))
    if schema == "QuestionRewrite":
        return Canned(content=_rewrite(body))
    if schema == "LLMDiagnosisReply":
        step = int(re.search(r"^\[(\d+)\] assistant", user, re.M).group(1))
        listed = re.findall(r"^- ([a-z_]+\.[a-z_]+): ", body["messages"][0]["content"], re.M)
        mode = "literature.poor_evidence_selection"
        mode = mode if mode in listed else listed[0]
        return Canned(content=json.dumps({"analysis": f"From step {step} on the evidence drifts.",
                                          "findings": [{"decisive_step": step,
                                                        "failure_mode": mode,
                                                        "evidence_steps": [step], "confidence": 0.6,
                                                        "explanation": f"step {step} drifts"}]}))
    if schema in ANSWERS:
        return Canned(content=json.dumps(ANSWERS[schema](body)))
    return Canned(status=400, error=f"unexpected schema {schema}")


def test_cycle_without_endpoint_reports_every_llm_step_skipped(capsys, data_dir, no_endpoint):
    from prefect.client.orchestration import get_client

    summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *RUN)
    assert summary["llm_steps"] == {step.name: "skipped: no endpoint configured" for step in LLM_STEPS}
    assert summary["llm"]["total"]["calls"] == 0 and summary["families"]["long_context"]["accepted"] == 2
    assert all(d["diagnoser"] == "rules" for d in _diagnoses(data_dir))
    assert main(["report", "--data-dir", str(data_dir)]) == 0
    assert "LLM review: skipped: no endpoint configured" in capsys.readouterr().out
    with get_client(sync_client=True) as client:
        markdown = next(a for a in client.read_artifacts() if a.key == "cycle-summary"
                        and summary["cycle_id"] in a.description).data
    assert "- diagnosis: skipped: no endpoint configured" in markdown


def test_cycle_against_local_server_accounts_per_stage_and_replays(capsys, client_logs, data_dir, monkeypatch,
                                                                   tmp_path):
    with ChatServer(_respond) as server:
        for name, value in endpoint_env(server, tmp_path, TASKFORGE_LLM_DIAGNOSIS="all").items():
            monkeypatch.setenv(name, value)
        summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *LLM_RUN)
        sent = len(server.requests)
        steps, families = summary["llm_steps"], summary["families"]
        long_context, literature = families["long_context"]["candidates"], families["literature"]["candidates"]
        assert steps["diagnosis"].startswith("ran: 9 call(s)")
        assert steps["swe_problem_statement"] == "enabled: no calls in this run"
        assert steps["easiness_estimate"] == f"ran: {long_context} call(s), 0 replayed from cache, 0 failed"
        assert steps["literature_questions"] == f"ran: {literature} call(s), 0 replayed from cache, 0 failed"
        accepted_long_context = families["long_context"]["accepted"]
        assert steps["review"] == f"ran: {literature + accepted_long_context} call(s), 0 replayed from cache, 0 failed"

        with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
            per_stage = catalog.query("""SELECT stage, count(*) AS calls, sum(tokens_in) AS tokens_in,
                                         sum(tokens_out) AS tokens_out, sum(cost_usd) AS cost_usd
                                         FROM llm_calls GROUP BY stage ORDER BY stage""")
            by_purpose = catalog.query("""SELECT stage, family, purpose, count(*) AS calls FROM llm_calls
                                          GROUP BY ALL ORDER BY ALL""")
            (roots,) = catalog.query("""SELECT count(*) AS n FROM tasks WHERE family = 'long_context'
                                        AND json_extract_string(lineage, '$.parent_task_id') IS NULL""")
        assert [r["stage"] for r in per_stage] == ["build", "diagnose", "validate"]
        built = {(r["stage"], r["family"], r["purpose"]): r["calls"] for r in by_purpose if r["stage"] != "diagnose"}
        assert built == {
            ("build", "literature", "literature_questions"): literature, ("build", "literature", "review"): literature,
            ("build", "long_context", "easiness_estimate"): long_context,
            ("build", "long_context", "evolution_judge"): long_context - roots["n"],
            ("validate", "long_context", "review"): accepted_long_context}
        assert steps["evolution_judge"] == f"ran: {long_context - roots['n']} call(s), 0 replayed from cache, 0 failed"
        assert literature > 0 and long_context > roots["n"] > 0
        assert families["literature"]["accepted"] == literature, "rewritten questions pass every check"
        for row in per_stage:
            assert row["tokens_in"] > 0 and row["tokens_out"] > 0
            assert row["cost_usd"] == pytest.approx((row["tokens_in"] * 2.0 + row["tokens_out"] * 8.0) / 1e6)
        assert {d["diagnoser"] for d in _diagnoses(data_dir)} == {"rules", "llm"}
        report = _cli_json(capsys, "report", "--data-dir", str(data_dir))
        assert report["llm_steps"] == summary["llm_steps"] and report["llm"] == summary["llm"]
        assert {(r["stage"], r["family"]) for r in report["llm"]["by_stage"]} >= {
            ("validate", "long_context"), ("build", "long_context"), ("build", "literature")}

        shutil.rmtree(data_dir / "work")
        again = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *LLM_RUN)
        assert len(server.requests) == sent, "the rerun replayed every call from the cache"
        assert again["cycle_id"] == summary["cycle_id"]
        diagnosed = _cli_json(capsys, "diagnose", "--data-dir", str(data_dir), str(SAMPLES / "traces"))
        assert len(server.requests) == sent
        assert diagnosed["llm_steps"]["diagnosis"] == "ran: 9 call(s), 9 replayed from cache, 0 failed"
        assert diagnosed["llm"]["total"]["cost_usd"] == 0.0
    output = capsys.readouterr()
    prefect_db = Path(PREFECT_SERVER_DATABASE_CONNECTION_URL.value().split(":///", 1)[1]).parent
    stored = [p for folder in (data_dir, prefect_db) for p in folder.rglob("*") if p.is_file()]
    assert any(p.name.startswith("prefect") for p in stored), "the Prefect database (runs, logs) is searched too"
    leaked = [p.name for p in stored if SECRET.encode() in p.read_bytes()]
    logged = client_logs.getvalue()
    assert "diagnoser diagnosis" in logged and "HTTP Request" in logged, "the client's logs were captured"
    assert leaked == [] and SECRET not in logged + output.out + output.err


def _diagnoses(data_dir) -> list[dict]:
    """Every diagnosis in a data dir's catalog: episode and diagnoser."""
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        return catalog.query("SELECT episode_id, diagnoser FROM diagnoses")
