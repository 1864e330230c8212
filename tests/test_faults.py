"""Faults made to happen for real: each ends with a clear error in the catalog, bounded retries for
infrastructure failures (never counted against a task), and the rest of the cycle completed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, SAMPLES
from llm_server import Canned, ChatServer
from store.catalog import Catalog
from test_agents import endpoint_env
from test_flows import _cli_json

pytestmark = pytest.mark.usefixtures("prefect_server")
RUN = ["--target-tokens", "4096", "--budget", "2", "--family", "long_context"]


def _catalog(data_dir: Path, sql: str) -> list[dict]:
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        return catalog.query(sql)


@pytest.mark.parametrize("fault,canned,settings,error", [
    ("5xx", Canned(status=503, error="overloaded"), {"TASKFORGE_LLM_MAX_RETRIES": "2"}, "503"),
    ("hang", Canned(content="{}", delay_s=5.0), {"TASKFORGE_LLM_MAX_RETRIES": "1", "TASKFORGE_LLM_TIMEOUT_S": "0.5"},
     "timed out"),
])
def test_llm_endpoint_failing_is_retried_recorded_and_the_cycle_lands(capsys, data_dir, monkeypatch, tmp_path,
                                                                      fault, canned, settings, error):
    with ChatServer(lambda body: canned) as server:
        for name, value in endpoint_env(server, tmp_path, **settings).items():
            monkeypatch.setenv(name, value)
        summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *RUN)
    calls = _catalog(data_dir, "SELECT stage, status, requests, error FROM llm_calls ORDER BY stage, subject")
    attempts = int(settings["TASKFORGE_LLM_MAX_RETRIES"]) + 1
    assert calls and all(c["status"] == "error" for c in calls), calls
    assert all(c["requests"] == attempts for c in calls), "every call was retried exactly the allowed number of times"
    assert all(error in c["error"].lower() for c in calls), calls[0]["error"]
    assert len(server.requests) == attempts * len(calls)
    reviews = [c for c in calls if c["stage"] == "validate"]
    assert {c["stage"] for c in calls} == {"build", "validate"}, "the judge model (build) and reviewer were asked"
    assert len(reviews) == 2, "the reviewer was asked about each accepted task"
    assert summary["families"]["long_context"]["accepted"] == 2, "a failed LLM call never rejects a task"
    assert summary["llm_steps"]["review"].endswith(f"{len(reviews)} failed")
    landed = _catalog(data_dir, "SELECT count(*) AS n FROM tasks WHERE status = 'accepted' AND shard IS NOT NULL")
    assert landed == [{"n": 2}]


def _file_position(pid: int, path: Path) -> int | None:
    """Where process `pid` is reading `path`, from /proc (None while it has not opened it)."""
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        for fd in fd_dir.iterdir():
            if os.readlink(fd) == str(path):
                for line in Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text().splitlines():
                    if line.startswith("pos:"):
                        return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def test_trace_truncated_while_being_read_is_quarantined_and_the_rest_lands(tmp_path):
    from prefect.settings import PREFECT_API_URL

    traces = tmp_path / "traces"
    traces.mkdir()
    for sample in (SAMPLES / "traces").iterdir():
        (traces / sample.name).write_bytes(sample.read_bytes())
    lines = (SAMPLES / "traces" / "research_agent.openai.jsonl").read_text().splitlines()
    big = traces / "zz_growing.openai.jsonl"
    with big.open("w") as handle:
        for copy in range(1000):
            for line in lines:
                record = json.loads(line)
                record["id"] = f"{record['id']}-{copy}"
                handle.write(json.dumps(record) + "\n")
    size = big.stat().st_size
    data_dir = tmp_path / "data"
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    cycle = subprocess.Popen([sys.executable, "-m", "flows.cli", "cycle", "--traces", str(traces), "--data-dir",
                              str(data_dir), *RUN, "--json"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    position = None
    while not (position and position < size // 2) and time.monotonic() < deadline and cycle.poll() is None:
        position = _file_position(cycle.pid, big)
        time.sleep(0.002)
    assert position and position < size // 2, f"the reader was not caught mid-file (position {position} of {size})"
    cut = size // 2 + 17
    os.truncate(big, cut)
    out, err = cycle.communicate(timeout=600)
    assert cycle.returncode == 0, err[-3000:]
    summary = json.loads(out)
    broken = [q for q in summary["quarantine"] if q["source"].startswith("traces/zz_growing.openai.jsonl:")]
    assert len(broken) == 1 and "not valid JSON" in broken[0]["reason"], summary["quarantine"]
    whole_lines = big.read_bytes().count(b"\n")
    assert broken[0]["source"] == f"traces/zz_growing.openai.jsonl:{whole_lines + 1}"
    assert summary["episodes"] == 14 + whole_lines, "every complete line before the cut was read"
    assert summary["families"]["long_context"]["accepted"] == 2
    stored = _catalog(data_dir, "SELECT stage, source, infrastructure FROM quarantine")
    assert stored == [{"stage": "read", "source": broken[0]["source"], "infrastructure": False}]
