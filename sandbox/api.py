"""The sandbox contract: a job to run on untrusted code, and what comes back.

Builders and validators describe a `Job` and hand it to `taskforge.sandbox.run(job)`;
they never start processes or containers themselves.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

Backend = Literal["docker", "process"]
BASE_IMAGE = "taskforge/sandbox-base:latest"
OUTPUT_TAIL_BYTES = 64 * 1024
WORKSPACE = "/workspace"


@dataclass(frozen=True)
class Job:
    """One command to run in isolation.

    `workspace` is copied in as the working directory (`/workspace` in a
    container); `collect` names files or folders (relative to the workspace) to
    copy back out into the folder the caller passes as `collect_to`. `network=True` is only for build steps
    (installing dependencies); solver, test and grading jobs never get it.
    Limits: `memory_mb` (container memory, or address space per process in the
    process backend), `cpus` (containers only), `pids` (processes and threads),
    `file_size_mb` (largest file the job may write), `timeout_s` (wall clock).
    `python_env` names a recipe of `taskforge.sandbox.images.recipe.PYTHON_ENVS` (e.g. `science`): its virtual
    environment comes first on PATH at /opt/venv — the recipe's derived image in a container, a host
    environment built from the same recipe and bound read-only in the process backend.
    `mounts` are (host folder, absolute sandbox path) pairs bound read-only instead of copied (a large folder
    many jobs share, such as a prepared environment); the engine must see the host's folders.
    """

    command: tuple[str, ...]
    workspace: Path | None = None
    image: str = BASE_IMAGE
    network: bool = False
    timeout_s: float = 60.0
    memory_mb: int = 1024
    cpus: float = 1.0
    pids: int = 256
    file_size_mb: int = 1024
    env: tuple[tuple[str, str], ...] = ()
    collect: tuple[str, ...] = ()
    label: str = "job"
    python_env: str | None = None
    mounts: tuple[tuple[str, str], ...] = ()


@dataclass
class Result:
    """What a job did: exit code, limits hit, timings, bounded output, collected files.

    `infrastructure_error` is set when the sandbox itself failed (engine gone,
    image missing, workspace copy failed): callers retry those under a bounded
    policy and never count them as the task's failure.
    """

    backend: Backend
    image: str | None
    command: tuple[str, ...]
    exit_code: int | None
    timed_out: bool = False
    oom_killed: bool = False
    setup_s: float = 0.0
    run_s: float = 0.0
    teardown_s: float = 0.0
    stdout: str = ""
    stderr: str = ""
    out_dir: Path | None = None
    infrastructure_error: str | None = None
    backend_reason: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """The job ran to completion and exited 0."""
        return self.infrastructure_error is None and not self.timed_out and not self.oom_killed and self.exit_code == 0


class Session(Protocol):
    """A sandbox kept alive across several commands (one container start for many test runs).

    The job's limits and network setting hold for every command; `timeout_s`
    (default: the job's) is per command, and a command past it is killed with
    everything it started while the workspace stays.
    """

    def exec(self, command: tuple[str, ...], timeout_s: float | None = None,
             env: tuple[tuple[str, str], ...] = ()) -> Result:
        """Run one command in the workspace; its failures are in the Result, never raised."""
        ...

    def put(self, source: Path, dest: str) -> None:
        """Copy a host file or folder to `dest`, relative to (or under) the workspace."""
        ...

    def get(self, path: str, dest: Path) -> None:
        """Copy a workspace file or folder into the host folder `dest` (regular files and folders only)."""
        ...


class Sandbox(Protocol):
    """A backend that runs jobs in isolation and always cleans up after them."""

    backend: Backend
    reason: str

    def run(self, job: Job, collect_to: Path | None = None) -> Result:
        """Run a job in a fresh sandbox, copy `job.collect` into `collect_to`, remove the sandbox."""
        ...

    def session(self, job: Job) -> AbstractContextManager[Session]:
        """A sandbox for several commands, removed when the context ends; InfrastructureError if it cannot start."""
        ...
