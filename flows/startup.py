"""Prefect for one CLI call: an API server started at once, beside the imports, and quiet expected failures.

Without `PREFECT_API_URL`, Prefect starts a temporary API server the first time a
flow runs: after every import of the command, and in a parent that then also
imports the whole server. Here the server process is started as soon as the
command line is parsed, from the same uvicorn factory Prefect uses for its
temporary server, so it boots while the flow's modules import; its URL is
exported before Prefect is imported, and it is stopped when the command ends (or
dies: it is sent SIGTERM when the CLI process is gone, even after a SIGKILL).
Its start-up wait is `PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS` (default
here 180 s rather than Prefect's 20 s, which a loaded machine overruns).

Batches whose infrastructure failed on every attempt are recorded and summed up
by the run; Prefect's task-run log keeps their one-line message, without a traceback.
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from taskforge.schemas.errors import InfrastructureError

API_URL = "PREFECT_API_URL"
STARTUP_TIMEOUT = "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"
DEFAULT_STARTUP_TIMEOUT_S = 180
POLL_S = 0.1
STOP_GRACE_S = 5
RUN_LOGGERS = ("prefect.task_runs", "prefect.flow_runs")
PR_SET_PDEATHSIG = 1


def prepare_prefect(json_output: bool) -> None:
    """Settings every command wants before Prefect is imported: no analytics, a start-up wait that fits a loaded
    machine, and only warnings when the output is one JSON object."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault(STARTUP_TIMEOUT, str(DEFAULT_STARTUP_TIMEOUT_S))
    if json_output:
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


class _NoInfrastructureTraceback(logging.Filter):
    """Keeps a run log record, dropping the traceback of an infrastructure failure (it is recorded and summed up)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], InfrastructureError):
            record.exc_info = None
            record.exc_text = None
        return True


def quiet_infrastructure_tracebacks() -> None:
    """Install the filter on Prefect's flow-run and task-run loggers (once)."""
    for name in RUN_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NoInfrastructureTraceback) for f in logger.filters):
            logger.addFilter(_NoInfrastructureTraceback())


def _die_with_parent() -> None:
    """In the server's process before it starts: be sent SIGTERM when the CLI process dies, even by SIGKILL
    (Linux `prctl(PR_SET_PDEATHSIG)`; the CLI starts the server before it starts any thread)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class TemporaryAPI:
    """A Prefect API server process for the length of one command."""

    def __init__(self) -> None:
        spec = importlib.util.find_spec("prefect")
        if spec is None or not spec.submodule_search_locations:
            raise InfrastructureError("prefect is not installed: pip install -e .")
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/api"
        app_dir = Path(next(iter(spec.submodule_search_locations))).parent
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--app-dir", str(app_dir), "--factory",
             "prefect.server.api.server:create_app", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "error", "--lifespan", "on"],
            env={**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
                 "PREFECT__SERVER_FINAL": "1"},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        self.ready = False

    def wait(self) -> None:
        """Block until the server answers its health check; InfrastructureError (one line) when it exits or does
        not answer within the start-up timeout."""
        if self.ready:
            return
        timeout = float(os.environ.get(STARTUP_TIMEOUT, DEFAULT_STARTUP_TIMEOUT_S))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = (self.process.stderr.read() or b"").decode(errors="replace").strip().splitlines()[-1:]
                raise InfrastructureError(f"the Prefect API server exited with code {self.process.returncode}"
                                          + (f": {tail[0]}" if tail else ""))
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=POLL_S * 10) as response:
                    if response.status == 200:
                        self.ready = True
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(POLL_S)
        raise InfrastructureError(f"the Prefect API server did not answer within {timeout:.0f} s "
                                  f"(raise {STARTUP_TIMEOUT}, or set {API_URL} to a running server)")

    def stop(self) -> None:
        """Terminate the server (kill it if it does not stop within a few seconds)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()


def api_configured() -> bool:
    """Whether an API URL is set: in the environment, or in the active profile of `$PREFECT_HOME/profiles.toml`
    (where `prefect config set` writes it)."""
    if os.environ.get(API_URL):
        return True
    home = Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    try:
        profiles = tomllib.loads((home / "profiles.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False
    active = os.environ.get("PREFECT_PROFILE") or profiles.get("active", "ephemeral")
    return bool(profiles.get("profiles", {}).get(active, {}).get(API_URL))


@contextmanager
def prefect_api(needed: bool) -> Iterator[TemporaryAPI | None]:
    """For a command that runs flows without a configured API: a temporary server, started now and exported
    as `PREFECT_API_URL` until the command ends. Otherwise nothing."""
    if not needed or api_configured():
        yield None
        return
    api = TemporaryAPI()
    os.environ[API_URL] = api.url
    try:
        yield api
    finally:
        _drain_prefect_workers()
        os.environ.pop(API_URL, None)
        api.stop()


def _drain_prefect_workers() -> None:
    """Send the logs and events Prefect still holds to the server before it stops (what Prefect does at exit)."""
    if "prefect.logging.handlers" in sys.modules:
        from prefect.logging.handlers import APILogWorker

        APILogWorker.drain_all(timeout=STOP_GRACE_S)
    if "prefect.events.worker" in sys.modules:
        from prefect.events.worker import EventsWorker

        EventsWorker.drain_all(timeout=STOP_GRACE_S)
