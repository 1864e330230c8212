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

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLES = REPO / "data" / "samples"
FIXTURE_SEEDS = REPO / "tests" / "fixtures" / "workflow_seeds"
"""Small hand-made workflow seeds (shipped inputs): fast fixtures for the workflow machinery."""


@pytest.fixture(scope="session")
def prefect_server():
    """One Prefect test server (ephemeral API + SQLite) for every flow test of the session."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data dir per test."""
    path = tmp_path / "data"
    path.mkdir()
    return path
