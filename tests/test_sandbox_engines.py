"""The docker backend over two real engines: jobs spread over both, never more at once on one than its cap.

The second engine is a dockerd of its own (socket, data root, exec root, no
bridge) started by the fixture beside the machine's engine, with the base image
copied in (`docker save | docker load`).
"""

from __future__ import annotations

import os
import secrets
import shutil
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import docker
import pytest

from private_engine import PrivateEngine
from taskforge.sandbox import get_sandbox
from taskforge.sandbox.api import BASE_IMAGE, Job
from taskforge.sandbox.choose import probe_engine
from taskforge.sandbox.container import SANDBOX_LABEL
from taskforge.sandbox.engines import SpreadDockerSandbox
from taskforge.schemas.errors import InfrastructureError

NO_ENGINE = "unix:///nonexistent/docker.sock"


@pytest.fixture(scope="module")
def second_engine(docker_engine):
    """The endpoint of a second dockerd on this machine holding the base image; stopped afterwards if started here."""
    if shutil.which("dockerd") is None:
        pytest.fail("dockerd is not installed: the second engine cannot start")
    engine = PrivateEngine("docker2")
    engine.start()
    engine.load_base_image(docker_engine)
    yield engine.endpoint
    if engine.process is not None:
        engine.stop()


def _running_peaks(clients: list[docker.DockerClient], label: str, stop: threading.Event) -> list[int]:
    """Poll each engine for running containers of `label` until `stop`; the most seen at once on each."""
    peaks = [0] * len(clients)
    while not stop.is_set():
        for index, client in enumerate(clients):
            running = client.api.containers(filters={"label": f"{SANDBOX_LABEL}={label}", "status": "running"})
            peaks[index] = max(peaks[index], len(running))
        time.sleep(0.05)
    return peaks


@pytest.mark.docker
def test_jobs_spread_over_two_engines_and_never_exceed_the_cap_on_either(docker_engine, second_engine, monkeypatch,
                                                                        sandbox_temp_root):
    first = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    monkeypatch.setenv("TASKFORGE_DOCKER_HOSTS", f"{first},{second_engine}")
    monkeypatch.setenv("TASKFORGE_DOCKER_JOBS_PER_HOST", "2")
    sandbox = get_sandbox("docker", temp_root=sandbox_temp_root)
    assert isinstance(sandbox, SpreadDockerSandbox)
    assert sandbox.reason == f"docker: docker engines at 2 of 2 endpoints answered and have {BASE_IMAGE}"

    label = f"spread-{secrets.token_hex(4)}"
    job = Job(command=("sh", "-c", "sleep 1.5; cat /etc/hostname"), label=label, timeout_s=60)
    watched = [docker.DockerClient(base_url=first), docker.DockerClient(base_url=second_engine)]
    stop = threading.Event()
    with ThreadPoolExecutor(1) as watcher:
        peaks = watcher.submit(_running_peaks, watched, label, stop)
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda _: sandbox.run(job), range(8)))
        stop.set()
        peaks = peaks.result()

    assert all(r.ok and r.stdout == "sandbox\n" for r in results), [r.infrastructure_error for r in results]
    assert Counter(r.extra["engine"] for r in results) == {0: 4, 1: 4}
    assert max(peaks) <= 2, f"running jobs per engine peaked at {peaks} (cap 2)"
    assert min(peaks) >= 1, f"both engines ran jobs while watched: {peaks}"
    assert not docker_engine.containers.list(all=True, filters={"label": f"{SANDBOX_LABEL}={label}"})


def test_engines_that_do_not_answer_are_left_out_or_fall_back(monkeypatch, sandbox_temp_root):
    monkeypatch.setenv("TASKFORGE_DOCKER_HOSTS", f"{NO_ENGINE}, {NO_ENGINE}")
    fallback = get_sandbox("auto", temp_root=sandbox_temp_root)
    assert fallback.backend == "process"
    assert fallback.reason.startswith(f"auto: docker engines at 0 of 1 endpoints answered and have {BASE_IMAGE}; "
                                      "using the process backend (")
    launcher = fallback.reason.rsplit(" (", 1)[1]
    assert launcher == "bubblewrap)" or "unshare" in launcher, "the reason names the launcher this host uses"
    with pytest.raises(InfrastructureError, match="docker backend asked for, but docker engines at 0 of 1"):
        get_sandbox("docker", temp_root=sandbox_temp_root)


@pytest.mark.docker
def test_an_unreachable_endpoint_is_left_out_and_the_others_serve(docker_engine, monkeypatch, sandbox_temp_root):
    first = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    monkeypatch.setenv("TASKFORGE_DOCKER_HOSTS", f"{NO_ENGINE},{first}")
    sandbox = get_sandbox("auto", temp_root=sandbox_temp_root)
    assert sandbox.reason == f"auto: docker engines at 1 of 2 endpoints answered and have {BASE_IMAGE}"
    result = sandbox.run(Job(command=("true",)))
    assert result.ok and result.extra["engine"] == 0
    assert probe_engine(NO_ENGINE)[0] is None
