"""A cycle killed with SIGKILL at any stage and started again ends with the catalog and shards of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from catalog_state import TABLES, data_dir_state
from conftest import REPO
from taskforge.store.manifest import verify_manifest

pytestmark = pytest.mark.usefixtures("prefect_server")
CYCLE = ["cycle", "--budget", "6", "--target-tokens", "2048", "--family", "long_context", "--family", "literature",
         "--json"]


def _cycle(data_dir: Path, crash_at: str | None = None) -> subprocess.CompletedProcess:
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    env.pop("TASKFORGE_CRASH_AT", None)
    if crash_at:
        env["TASKFORGE_CRASH_AT"] = crash_at
    return subprocess.run([sys.executable, "-m", "taskforge.flows.cli", *CYCLE, "--data-dir", str(data_dir)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    data_dir = tmp_path_factory.mktemp("uninterrupted")
    done = _cycle(data_dir)
    assert done.returncode == 0, done.stderr[-3000:]
    return data_dir_state(data_dir)


@pytest.mark.parametrize("crash_at", ["build:2", "validate", "shard_write", "land", "catalog_commit", "catalog_commit:2",
                                      "manifest_write"])
def test_killed_cycle_resumes_to_the_same_catalog_and_shards(tmp_path, uninterrupted, crash_at):
    killed = _cycle(tmp_path, crash_at)
    assert killed.returncode == -signal.SIGKILL, f"the crash point {crash_at} was not reached: {killed.stderr[-2000:]}"
    resumed = _cycle(tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    state = data_dir_state(tmp_path)
    assert state["files"] == uninterrupted["files"]
    for table in TABLES:
        assert state["tables"][table] == uninterrupted["tables"][table], f"table {table} differs after {crash_at}"
    assert verify_manifest(tmp_path / "shards") == []
    assert not list(tmp_path.rglob("*.tmp")), "no partial file may survive the resumed run"
