"""Bounded retries of a batch whose infrastructure fails: the sandbox, the engine, the disk — never the task."""

from __future__ import annotations

import errno
import pickle

import pytest

from taskforge.flows.tasks import BatchInfrastructureFailure, with_infrastructure_retries
from taskforge.sandbox.api import Job
from taskforge.sandbox.launchers import Bubblewrap
from taskforge.sandbox.process import ProcessSandbox
from taskforge.schemas import InfrastructureError


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    monkeypatch.setenv("TASKFORGE_INFRA_ATTEMPTS", "3")
    monkeypatch.setenv("TASKFORGE_INFRA_BACKOFF_S", "0.01")


def _ran(sandbox: ProcessSandbox) -> str:
    result = sandbox.run(Job(command=("echo", "ran")))
    if result.infrastructure_error:
        raise InfrastructureError(result.infrastructure_error)
    return result.stdout


def test_a_batch_is_retried_until_the_sandbox_works(process_sandbox, sandbox_temp_root):
    broken = ProcessSandbox(temp_root=sandbox_temp_root, launcher=Bubblewrap("/nonexistent/bwrap"))
    sandboxes = iter([broken, broken, process_sandbox])

    out, events = with_infrastructure_retries("validate", "batch-1", lambda: _ran(next(sandboxes)))

    assert out == "ran\n"
    assert [(e["stage"], e["batch"], e["attempt"]) for e in events] == [("validate", "batch-1", 1),
                                                                         ("validate", "batch-1", 2)]
    assert all("bubblewrap" in e["error"] for e in events)


def test_a_batch_failing_every_attempt_raises_with_each_attempt_and_travels_between_processes(sandbox_temp_root):
    broken = ProcessSandbox(temp_root=sandbox_temp_root, launcher=Bubblewrap("/nonexistent/bwrap"))

    with pytest.raises(BatchInfrastructureFailure) as raised:
        with_infrastructure_retries("build", "batch-2", lambda: _ran(broken))

    failure = pickle.loads(pickle.dumps(raised.value))
    assert (failure.stage, failure.batch, [e["attempt"] for e in failure.events]) == ("build", "batch-2", [1, 2, 3])
    assert str(failure).startswith("build of batch-2: infrastructure failed 3 time(s), last: ")


def test_a_full_disk_is_infrastructure_and_a_missing_file_is_not():
    calls = []

    def full() -> None:
        calls.append(1)
        raise OSError(errno.ENOSPC, "No space left on device", "/data/out/shards/x.parquet.tmp")

    with pytest.raises(BatchInfrastructureFailure, match="No space left on device: x.parquet.tmp"):
        with_infrastructure_retries("land", "shards", full)
    assert len(calls) == 3

    def missing() -> None:
        calls.append(1)
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "input.json")

    with pytest.raises(FileNotFoundError):
        with_infrastructure_retries("build", "batch-3", missing)
    assert len(calls) == 4, "an input problem is raised at once, never retried"


def test_a_task_failure_is_never_retried():
    calls = []

    def rejected() -> None:
        calls.append(1)
        raise ValueError("the reference solution scores 0.4")

    with pytest.raises(ValueError):
        with_infrastructure_retries("validate", "batch-4", rejected)
    assert calls == [1]
