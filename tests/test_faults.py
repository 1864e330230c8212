"""Faults made to happen for real: each ends with a clear error in the catalog, bounded retries for
infrastructure failures (never counted against a task), and the rest of the cycle completed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import docker
import pytest

from conftest import REPO, SAMPLES
from llm_server import Canned, ChatServer
from private_engine import PrivateEngine
from taskforge.sandbox.container import SANDBOX_LABEL
from taskforge.store.catalog import Catalog
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
    cycle = subprocess.Popen([sys.executable, "-m", "taskforge.flows.cli", "cycle", "--traces", str(traces), "--data-dir",
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


@contextmanager
def small_disk(path: Path, size: str = "1m"):
    """A real, small filesystem (tmpfs) mounted at `path` for the duration; needs root, as CI runs."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True,
                             text=True)
    assert mounted.returncode == 0, f"cannot mount a tmpfs (run as root): {mounted.stderr}"
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def _fill(disk: Path, leave_bytes: int) -> Path:
    """A ballast file that leaves about `leave_bytes` free on the disk."""
    ballast = disk / "ballast"
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    ballast.write_bytes(b"\0" * max(0, free - leave_bytes))
    return ballast


DISK_RUN = ["--budget", "8", "--target-tokens", "4096", "--family", "long_context"]


def test_full_data_disk_is_retried_recorded_and_a_rerun_lands_everything(capsys, tmp_path, monkeypatch):
    from catalog_state import data_dir_state

    monkeypatch.setenv("TASKFORGE_INFRA_BACKOFF_S", "0.2")
    uninterrupted = tmp_path / "uninterrupted"
    _cli_json(capsys, "cycle", "--data-dir", str(uninterrupted), *DISK_RUN)
    catalog = tmp_path / "catalog.duckdb"
    with small_disk(tmp_path / "disk") as disk:
        ballast = _fill(disk, 80_000)
        full = _cli_json(capsys, "cycle", "--data-dir", str(disk / "data"), "--catalog", str(catalog), *DISK_RUN,
                         expect_code=1)
        failures = full["infrastructure_failures"]
        assert failures, "the full disk failed no batch"
        assert all(f["attempts"] == 3 and "No space left on device" in f["reason"] for f in failures), failures
        with Catalog(catalog, read_only=True) as store:
            events = store.query("SELECT stage, batch, attempt, error, recovered FROM infrastructure_events "
                                 "WHERE NOT recovered ORDER BY stage, batch, attempt")
            status = store.query("SELECT status FROM cycles")
            rejected = store.query("SELECT reasons FROM tasks WHERE status = 'rejected'")
        assert len(events) == 3 * len(failures) and {e["attempt"] for e in events} == {1, 2, 3}
        assert status == [{"status": "incomplete"}]
        assert all(r.startswith("shortcut:") for row in rejected for r in row["reasons"]), "a full disk rejects no task"
        assert not list(disk.rglob("*.tmp")), "no partial file is left under the data dir"

        ballast.unlink()
        rerun = _cli_json(capsys, "cycle", "--data-dir", str(disk / "data"), "--catalog", str(catalog), *DISK_RUN)
        assert rerun["infrastructure_failures"] == [] and rerun["cycle_id"] == full["cycle_id"]
        (disk / "data" / "catalog.duckdb").symlink_to(catalog)
        resumed = data_dir_state(disk / "data")
    expected = data_dir_state(uninterrupted)
    for table in ("tasks", "validations", "diagnoses", "episodes", "shards", "gaps", "plan"):
        assert resumed["tables"][table] == expected["tables"][table], f"{table} differs after the disk was freed"
    assert resumed["files"] == expected["files"]


WORKFLOW_RUN = ["--budget", "4", "--target-tokens", "4096", "--family", "workflow", "--family", "long_context"]
VALIDATION_JOBS = ("workflow-solver:", "workflow-grade:")


@pytest.fixture
def stoppable_engine(docker_engine, monkeypatch):
    """A private dockerd that the test may stop; the cycle's sandboxes run on it and only on it."""
    engine = PrivateEngine("faults")
    engine.start()
    engine.load_base_image(docker_engine)
    monkeypatch.setenv("TASKFORGE_SANDBOX", "docker")
    monkeypatch.setenv("DOCKER_HOST", engine.endpoint)
    monkeypatch.delenv("TASKFORGE_DOCKER_HOSTS", raising=False)
    yield engine
    engine.stop()


def _stop_mid_validation(engine: PrivateEngine, restart_after_s: float | None, seen: list[str]) -> None:
    """Wait until a validation job runs on the engine, then stop the engine (and start it again after a while)."""
    client = docker.DockerClient(base_url=engine.endpoint)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not seen:
        running = client.api.containers(filters={"label": SANDBOX_LABEL, "status": "running"})
        labels = [c["Labels"][SANDBOX_LABEL] for c in running]
        seen.extend(label for label in labels if label.startswith(VALIDATION_JOBS))
        time.sleep(0.05)
    client.close()
    engine.stop()
    if restart_after_s is not None:
        time.sleep(restart_after_s)
        engine.start()


def _cycle_with_engine_stopped(capsys, engine, data_dir, restart_after_s):
    """Run a cycle while the engine stops; a cycle whose engine stays down ends incomplete (exit code 1)."""
    seen: list[str] = []
    watcher = threading.Thread(target=_stop_mid_validation, args=(engine, restart_after_s, seen))
    watcher.start()
    try:
        summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *WORKFLOW_RUN,
                            expect_code=0 if restart_after_s is not None else 1)
    finally:
        watcher.join()
    assert seen, "no validation job ran on the engine before it stopped"
    return summary


@pytest.mark.docker
def test_docker_engine_stopping_mid_validation_is_retried_and_the_tasks_are_accepted(capsys, data_dir, monkeypatch,
                                                                                    stoppable_engine):
    monkeypatch.setenv("TASKFORGE_INFRA_BACKOFF_S", "4")
    summary = _cycle_with_engine_stopped(capsys, stoppable_engine, data_dir, restart_after_s=0.5)
    assert summary["infrastructure_failures"] == []
    assert summary["families"]["workflow"]["accepted"] == summary["families"]["workflow"]["candidates"] > 0
    events = _catalog(data_dir, "SELECT stage, attempt, error, recovered FROM infrastructure_events")
    assert any(e["stage"] == "validate" for e in events) and all(e["recovered"] for e in events), events
    assert any("docker" in e["error"].lower() or "engine" in e["error"].lower() for e in events), events
    assert _catalog(data_dir, "SELECT status FROM cycles") == [{"status": "completed"}]


@pytest.mark.docker
def test_docker_engine_staying_down_quarantines_its_batches_and_the_rest_of_the_cycle_lands(
        capsys, data_dir, monkeypatch, stoppable_engine):
    monkeypatch.setenv("TASKFORGE_INFRA_BACKOFF_S", "0.2")
    down = _cycle_with_engine_stopped(capsys, stoppable_engine, data_dir, restart_after_s=None)
    failures = down["infrastructure_failures"]
    assert failures and all(f["attempts"] == 3 for f in failures), failures
    assert any(f["stage"] == "validate" for f in failures), failures
    assert all(f["batch"].startswith("workflow") for f in failures), failures
    assert down["families"]["long_context"]["accepted"] > 0, "the rest of the cycle landed"
    assert down["families"].get("workflow", {}).get("rejected", 0) == 0, "an engine down rejects no task"
    assert _catalog(data_dir, "SELECT status FROM cycles") == [{"status": "incomplete"}]

    stoppable_engine.start()
    rerun = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), *WORKFLOW_RUN)
    assert rerun["cycle_id"] == down["cycle_id"] and rerun["infrastructure_failures"] == []
    assert rerun["families"]["workflow"]["accepted"] == rerun["families"]["workflow"]["candidates"] > 0
    assert _catalog(data_dir, "SELECT status FROM cycles") == [{"status": "completed"}]


def test_a_resource_repository_that_disappeared_is_quarantined_by_name_and_the_rest_lands(capsys, data_dir, tmp_path):
    import git

    repo = git.Repo.init(tmp_path / "tool")
    (tmp_path / "tool" / "tool.py").write_text("def value():\n    return 1\n")
    repo.index.add(["tool.py"])
    repo.index.commit("tool: first version")
    repo.close()
    shutil.rmtree(tmp_path / "tool")
    summary = _cli_json(capsys, "cycle", "--data-dir", str(data_dir), "--family", "swe", "--family", "long_context",
                        "--source", f"swe={tmp_path / 'tool'}", "--budget", "4", "--target-tokens", "4096")
    gone = [q for q in summary["quarantine"] if q["source"].startswith("swe:")]
    assert gone and all(q["stage"] == "build" for q in gone), summary["quarantine"]
    assert all(q["reason"] == "local/tool: no such repository (deleted or moved?)" for q in gone), gone
    assert summary["families"]["long_context"]["accepted"] > 0 and "swe" not in summary["families"]
    assert summary["infrastructure_failures"] == [], "a missing repository is the input's fault: never retried"
    assert _catalog(data_dir, "SELECT count(*) AS n FROM infrastructure_events") == [{"n": 0}]
    stored = _catalog(data_dir, "SELECT reason, infrastructure FROM quarantine")
    assert all(str(tmp_path) not in row["reason"] and not row["infrastructure"] for row in stored), stored
    assert _catalog(data_dir, "SELECT status FROM cycles") == [{"status": "completed"}]
