"""Backend choice with its reason, and infrastructure failures told apart from the job's own."""

from __future__ import annotations

import logging

import docker
import pytest

from taskforge.sandbox import get_sandbox
from taskforge.sandbox.api import Job
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.launchers import Bubblewrap
from taskforge.sandbox.process import ProcessSandbox
from taskforge.schemas.errors import InfrastructureError

NO_ENGINE = "unix:///nonexistent/docker.sock"


@pytest.mark.docker
def test_auto_picks_docker_where_the_engine_answers_and_records_why(docker_engine, caplog):
    caplog.set_level(logging.INFO, logger="taskforge.sandbox.choose")

    result = get_sandbox("auto").run(Job(command=("true",)))

    assert result.ok and result.backend == "docker"
    assert result.backend_reason.startswith("auto: docker engine") and "answered" in result.backend_reason
    assert "sandbox backend docker" in caplog.text


def test_auto_falls_back_to_the_process_backend_without_an_engine(monkeypatch, caplog):
    monkeypatch.setenv("DOCKER_HOST", NO_ENGINE)
    caplog.set_level(logging.INFO, logger="taskforge.sandbox.choose")

    result = get_sandbox("auto").run(Job(command=("true",)))

    assert result.ok and result.backend == "process"
    assert result.backend_reason.startswith(
        "auto: no docker engine answered (DockerException); using the process backend (")
    assert "sandbox backend process" in caplog.text


def test_environment_variable_and_explicit_kinds(monkeypatch):
    monkeypatch.setenv("TASKFORGE_SANDBOX", "process")
    assert get_sandbox().backend == "process"
    monkeypatch.setenv("DOCKER_HOST", NO_ENGINE)
    with pytest.raises(InfrastructureError, match="docker backend asked for, but no docker engine answered"):
        get_sandbox("docker")
    with pytest.raises(ValueError, match="unknown sandbox kind"):
        get_sandbox("vm")


def test_engine_gone_is_an_infrastructure_error_not_a_job_failure():
    sandbox = DockerSandbox(client=docker.DockerClient(base_url=NO_ENGINE, version="1.41"))

    result = sandbox.run(Job(command=("true",)))

    assert result.infrastructure_error == "docker engine unreachable: ConnectionError"
    assert result.exit_code is None and not result.ok


@pytest.mark.docker
def test_missing_image_is_an_infrastructure_error_that_says_what_to_do(docker_sandbox):
    result = docker_sandbox.run(Job(command=("true",), image="taskforge/no-such-image:1"))

    assert result.infrastructure_error.startswith("image taskforge/no-such-image:1 is missing: build it with")
    assert not result.ok


def test_missing_bubblewrap_is_an_infrastructure_error(sandbox_temp_root):
    sandbox = ProcessSandbox(temp_root=sandbox_temp_root, launcher=Bubblewrap("/nonexistent/bwrap"))

    result = sandbox.run(Job(command=("true",)))

    assert result.infrastructure_error and "bubblewrap" in result.infrastructure_error
    assert list(sandbox_temp_root.iterdir()) == []
