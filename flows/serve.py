"""Serve the deployments for real: a Prefect server, the process work pool, prefect.yaml deployed, a worker.

`taskforge serve` starts `prefect server start` (SQLite under $PREFECT_HOME by
default, PostgreSQL when a database URL is given), waits until the API answers,
creates the process work pool named in prefect.yaml, runs `prefect deploy --all`
from the project root, starts a worker on the pool, and stops both on Ctrl-C or
SIGTERM. The server's scheduler then runs `nightly-cycle` on its cron.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable

from taskforge.schemas import InfrastructureError
from taskforge.store.layout import PROJECT_ROOT

POOL = "taskforge"
PREFECT = [sys.executable, "-m", "prefect"]


def wait_until_healthy(api_url: str, timeout_s: float = 120.0, alive: Callable[[], bool] = lambda: True) -> None:
    """Block until `<api_url>/health` answers, or raise naming the URL."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive():
            raise InfrastructureError(f"the Prefect server exited before {api_url} answered")
        try:
            with urllib.request.urlopen(f"{api_url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise InfrastructureError(f"no Prefect API at {api_url} after {timeout_s:.0f} s")


def serve(host: str = "127.0.0.1", port: int = 4200, database_url: str | None = None,
          project: Path = PROJECT_ROOT) -> int:
    """Run server + worker until interrupted; returns the exit code."""
    api_url = f"http://{host}:{port}/api"
    env = {**os.environ, "PREFECT_API_URL": api_url, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    if database_url:
        env["PREFECT_API_DATABASE_CONNECTION_URL"] = database_url
    server = subprocess.Popen([*PREFECT, "server", "start", "--host", host, "--port", str(port)], env=env)
    worker: subprocess.Popen | None = None
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    try:
        wait_until_healthy(api_url, alive=lambda: server.poll() is None)
        for command in ([*PREFECT, "work-pool", "create", POOL, "--type", "process", "--overwrite"],
                        [*PREFECT, "--no-prompt", "deploy", "--all"]):
            done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise InfrastructureError(f"`{' '.join(command[2:])}` failed: {done.stderr.strip()[-500:]}")
        worker = subprocess.Popen([*PREFECT, "worker", "start", "--pool", POOL], cwd=project, env=env)
        print(f"serving {api_url}: deployments from {project / 'prefect.yaml'}, worker on pool {POOL!r}", flush=True)
        while not stopping and server.poll() is None and worker.poll() is None:
            time.sleep(0.5)
        return 0 if stopping else 1
    except KeyboardInterrupt:
        return 0
    finally:
        for process in (worker, server):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
