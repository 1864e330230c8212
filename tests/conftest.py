"""Test setup: a private PREFECT_HOME, one Prefect test server per session, shared builders of test data."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_PREFECT_HOME = tempfile.mkdtemp(prefix="taskforge-prefect-")
os.environ["PREFECT_HOME"] = _PREFECT_HOME
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ["TASKFORGE_SWE_CACHE"] = tempfile.mkdtemp(prefix="taskforge-swe-")

import pytest  # noqa: E402

pytest_plugins = ["sandbox_fixtures", "s3_fixtures"]

SLOWEST_FILES = ("test_crash_resume.py", "test_planted_defects.py", "test_mle.py", "test_swebench_harness.py",
                 "test_mle_process.py", "test_bare_host.py", "test_mle_planted.py", "test_task_runners.py",
                 "test_workflow_tasks.py", "test_reward_install.py", "test_flows.py", "test_family_tools.py",
                 "test_mle_flow.py", "test_serve.py", "test_report.py")
"""Files that take minutes each (`make test --durations`), longest first: `make test`'s two workers take whole
files in collection order (`--dist loadfile --no-loadscope-reorder`), so a slow file started last leaves one
worker idle while the other finishes it."""


def pytest_collection_modifyitems(items):
    """The slowest files first, in `SLOWEST_FILES`' order; the rest keep their order, every file's tests theirs."""
    rank = {name: place for place, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLES = REPO / "data" / "samples"
FIXTURE_SEEDS = REPO / "tests" / "fixtures" / "workflow_seeds"
"""Small hand-made workflow seeds (shipped inputs): fast fixtures for the workflow machinery."""


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test server (ephemeral API + SQLite) for every flow test of the session; yields its API URL."""
    from prefect.settings import PREFECT_API_URL
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield PREFECT_API_URL.value()


@pytest.fixture
def prefect_server(prefect_harness, monkeypatch):
    """The session's Prefect test server, also named by `PREFECT_API_URL` for the test: a CLI command run in
    the test process then uses it rather than booting a temporary API of its own (which its flows never reached:
    they ran against the test server, while each command waited for an unused server to boot)."""
    monkeypatch.setenv("PREFECT_API_URL", prefect_harness)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data dir per test."""
    path = tmp_path / "data"
    path.mkdir()
    return path
