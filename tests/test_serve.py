"""`taskforge serve` runs a real Prefect server and worker; a build-family run triggered through the API completes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from conftest import REPO


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_served_build_family_run_completes(tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    port = _free_port()
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    env.pop("PREFECT_API_URL", None)
    serving = subprocess.Popen([sys.executable, "-m", "taskforge.flows.cli", "serve", "--port", str(port)], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 180
        for line in serving.stdout:
            if line.startswith("serving "):
                break
            assert time.monotonic() < deadline and serving.poll() is None, "serve did not come up"
        with temporary_settings({PREFECT_API_URL: f"http://127.0.0.1:{port}/api"}):
            with get_client(sync_client=True) as client:
                names = {d.name for d in client.read_deployments()}
                assert {"nightly-cycle", "build-family", "release-export"} <= names
                nightly = next(d for d in client.read_deployments() if d.name == "nightly-cycle")
                assert nightly.schedules and nightly.schedules[0].active
            run = run_deployment("build-family/build-family", timeout=300, parameters={
                "family": "long_context", "count": 2, "data_dir": str(tmp_path / "data"),
                "options": {"target_tokens": 2048}})
        assert run.state.is_completed(), run.state
        assert list((tmp_path / "data" / "shards" / "long_context").glob("part-*.parquet"))
    finally:
        serving.send_signal(signal.SIGTERM)
        assert serving.wait(timeout=60) == 0
