"""Sandbox test fixtures (a plugin of tests/conftest.py): the Docker engine (required in CI), both backends."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from pathlib import Path

import pytest

from taskforge.sandbox.choose import probe_engine
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.launchers import Bubblewrap, Unshare
from taskforge.sandbox.process import ProcessSandbox

BACKENDS = ["process", "unshare", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(scope="session")
def docker_engine():
    """A client of a Docker engine that holds the base image; skipped without one, but a failure when CI=true."""
    client, finding = probe_engine()
    if client is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI must run the docker tests: {finding}")
        pytest.skip(finding)
    return client


@pytest.fixture
def sandbox_temp_root():
    """A fresh folder for the sandbox's temporary files, reachable by the throwaway uids of the process backend."""
    root = Path(tempfile.mkdtemp(prefix="taskforge-sandbox-test-"))
    root.chmod(0o711)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def process_sandbox(sandbox_temp_root):
    """The process backend under bubblewrap, its temporary files under `sandbox_temp_root`."""
    return ProcessSandbox(reason="test", temp_root=sandbox_temp_root, launcher=Bubblewrap())


@pytest.fixture
def unshare_sandbox(sandbox_temp_root):
    """The process backend under util-linux unshare, the fallback every Linux host has."""
    return ProcessSandbox(reason="test", temp_root=sandbox_temp_root, launcher=Unshare(as_root=os.geteuid() == 0))


@pytest.fixture
def docker_sandbox(docker_engine, sandbox_temp_root):
    """The docker backend on the engine of `docker_engine`."""
    return DockerSandbox(client=docker_engine, reason="test", temp_root=sandbox_temp_root)


@pytest.fixture(params=BACKENDS)
def any_sandbox(request):
    """Each backend in turn (the docker one marked `docker`)."""
    return request.getfixturevalue(f"{request.param}_sandbox")


@pytest.fixture
def test_network(docker_engine):
    """A Docker network made for one test, internal (no route out), removed afterwards."""
    network = docker_engine.networks.create(f"taskforge-test-{secrets.token_hex(4)}", driver="bridge", internal=True)
    yield network
    network.remove()
