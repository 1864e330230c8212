"""Nothing is left behind: 50 jobs, failures included, leave no container, temporary folder or process; the
containers of a process killed mid-job are removed by the next process that picks the docker backend."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time

import pytest

from conftest import REPO
from taskforge.sandbox import get_sandbox
from taskforge.sandbox.api import BASE_IMAGE, Job
from taskforge.sandbox.container import SANDBOX_LABEL
from taskforge.sandbox.orphans import OWNER_LABEL, owner_alive, owner_tag
from taskforge.sandbox.process import ProcessSandbox

JOB_COUNT = 50
CLEANUP_UIDS = range(300_000, 300_500)


def fifty_jobs(label: str, workspace, missing_workspace) -> list[Job]:
    """Successes, failures, timeouts, memory hogs, missing commands and workspaces, with collection, in turn."""
    kinds = [
        Job(command=("sh", "-c", "mkdir out && echo ok > out/r.txt"), workspace=workspace, collect=("out",),
            label=label),
        Job(command=("sh", "-c", "exit 1"), label=label),
        Job(command=("python3", "-c", "while True: pass"), timeout_s=0.5, label=label),
        Job(command=("python3", "-c", "blocks = [bytearray(16 << 20) for _ in range(16)]"), memory_mb=64,
            label=label),
        Job(command=("no-such-command",), label=label),
        Job(command=("true",), workspace=missing_workspace, label=label),
    ]
    return [kinds[index % len(kinds)] for index in range(JOB_COUNT)]


def processes_of_this_test() -> list[str]:
    """Processes (zombies included) running as one of the uids this test's jobs were given."""
    listing = subprocess.run(["ps", "-eo", "uid=,pid=,stat=,comm="], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if int(line.split()[0]) in CLEANUP_UIDS]


def run_all(sandbox, jobs, collect_root) -> list:
    """Run every job, each collecting into its own folder."""
    return [sandbox.run(job, collect_to=collect_root / str(index)) for index, job in enumerate(jobs)]


def outcomes(results) -> dict[str, int]:
    """How many results ended each way."""
    counts = {"ok": 0, "failed": 0, "timed_out": 0, "infrastructure": 0}
    for result in results:
        key = ("infrastructure" if result.infrastructure_error else "timed_out" if result.timed_out
               else "ok" if result.ok else "failed")
        counts[key] += 1
    return counts


def test_fifty_process_jobs_leave_no_folder_and_no_process(sandbox_temp_root, tmp_path):
    sandbox = ProcessSandbox(reason="test", temp_root=sandbox_temp_root, uids=CLEANUP_UIDS)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    jobs = fifty_jobs("cleanup", workspace, tmp_path / "missing")

    results = run_all(sandbox, jobs, tmp_path / "collected")

    assert outcomes(results) == {"ok": 9, "failed": 25, "timed_out": 8, "infrastructure": 8}
    assert list(sandbox_temp_root.iterdir()) == []
    assert processes_of_this_test() == []


@pytest.mark.docker
def test_fifty_container_jobs_leave_no_container_and_no_file(docker_sandbox, docker_engine, sandbox_temp_root,
                                                             tmp_path):
    label = f"cleanup-{secrets.token_hex(4)}"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    jobs = fifty_jobs(label, workspace, tmp_path / "missing")

    results = run_all(docker_sandbox, jobs, tmp_path / "collected")

    assert outcomes(results) == {"ok": 9, "failed": 25, "timed_out": 8, "infrastructure": 8}
    assert sum(result.oom_killed for result in results) == 8
    assert docker_engine.containers.list(all=True, filters={"label": f"{SANDBOX_LABEL}={label}"}) == []
    assert list(sandbox_temp_root.iterdir()) == []


ORPHAN_MAKER = """
import sys
from taskforge.sandbox import get_sandbox
from taskforge.sandbox.api import Job
get_sandbox("docker").run(Job(command=("sleep", "300"), label=sys.argv[1], timeout_s=600))
"""


@pytest.mark.docker
def test_containers_of_a_killed_process_are_swept_and_live_ones_kept(docker_engine, tmp_path):
    label = f"orphan-{secrets.token_hex(4)}"
    maker = subprocess.Popen([sys.executable, "-c", ORPHAN_MAKER, label], cwd=REPO)
    wanted = {"label": f"{SANDBOX_LABEL}={label}", "status": "running"}
    deadline = time.monotonic() + 60
    while not docker_engine.containers.list(filters=wanted) and time.monotonic() < deadline:
        assert maker.poll() is None, "the process that runs the job ended early"
        time.sleep(0.1)
    maker.kill()
    maker.wait()
    (orphan,) = docker_engine.containers.list(filters=wanted)
    assert not owner_alive(orphan.labels[OWNER_LABEL])
    live = docker_engine.containers.run(BASE_IMAGE, ["sleep", "300"], detach=True, network_mode="none",
                                        labels={SANDBOX_LABEL: label, OWNER_LABEL: owner_tag()})
    try:
        get_sandbox("docker")
        left = docker_engine.containers.list(all=True, filters={"label": f"{SANDBOX_LABEL}={label}"})
        assert [c.id for c in left] == [live.id], "the orphan is removed, the live process's container kept"
    finally:
        live.remove(force=True)


@pytest.mark.docker
def test_containers_another_tool_starts_from_a_committed_image_are_never_swept(docker_sandbox, docker_engine):
    """An image committed from a sandbox session carries no owner; a container that inherits a dead owner from an
    older image (how the SWE-bench harness runs instance images) was not made by a sandbox and is kept."""
    tag = f"taskforge/test-committed:{secrets.token_hex(4)}"
    with docker_sandbox.session(Job(command=(), label="commit-probe")) as session:
        session.commit(*tag.split(":"), [])
    older = docker_engine.containers.create(BASE_IMAGE, ["true"], labels={OWNER_LABEL: f"{owner_tag()}:gone"})
    older_image = older.commit(repository="taskforge/test-committed", tag="owner-gone")
    older.remove(force=True)
    started = [docker_engine.containers.run(image, ["sleep", "300"], detach=True, network_mode="none")
               for image in (tag, older_image.id)]
    try:
        assert docker_engine.images.get(tag).labels[OWNER_LABEL] == ""
        assert not owner_alive(started[1].labels[OWNER_LABEL])
        get_sandbox("docker")
        for container in started:
            container.reload()
            assert container.status == "running", "a container no sandbox created is left to its tool"
    finally:
        for container in started:
            container.remove(force=True)
        for image in (tag, older_image.id):
            docker_engine.images.remove(image, force=True)
