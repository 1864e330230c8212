"""The docker backend: one container per job (or per session), no network unless a build step, always removed.

Containers get memory (no swap), CPU and pids limits, a file-size ulimit, no new
privileges, a reduced capability set and an init process that reaps orphans.
The workspace is copied in with `put_archive` and outputs come back with
`get_archive`; logs are capped by the json-file driver and only their tail is kept.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import docker
import requests
from docker.errors import APIError, DockerException, ImageNotFound, NotFound
from docker.types import LogConfig, Ulimit
from docker.utils.socket import STDERR, frames_iter

from taskforge.sandbox.api import WORKSPACE, Backend, Job, Result
from taskforge.sandbox.environment import CA_BUNDLE, job_environment
from taskforge.sandbox.orphans import OWNER_LABEL, owner_tag
from taskforge.sandbox.output import TailBuffer, tail_text
from taskforge.sandbox.transfer import collect_outputs, extract_plain, pack, relative_inside, spool_chunks
from taskforge.schemas.errors import InfrastructureError

log = logging.getLogger(__name__)

SANDBOX_LABEL = "taskforge.sandbox"
DROPPED_CAPABILITIES = ["NET_RAW", "MKNOD", "AUDIT_WRITE", "SYS_CHROOT", "SETFCAP", "SETPCAP", "NET_BIND_SERVICE"]
LOG_CONFIG = LogConfig(type=LogConfig.types.JSON, config={"max-size": "256k", "max-file": "2"})
KEEP_ALIVE = ["sleep", "infinity"]
ENGINE_ERRORS = (DockerException, requests.exceptions.RequestException)
RESTART_GRACE_S = 10.0
SIGKILL_EXIT = 137
"""The exit code of a process killed by SIGKILL (as the kernel's OOM killer does)."""
OOM_EVENT_GRACE_S = 2.0
"""How long a SIGKILLed process's `oom` event is waited for (the engine may record it after the exit)."""


def describe_engine_error(error: Exception, image: str) -> str:
    """A one-line cause for a failure of the engine (not of the job), saying what to do where it can."""
    if isinstance(error, ImageNotFound):
        return f"image {image} is missing: build it with `python -m taskforge.sandbox.images base` (or `env`)"
    if isinstance(error, APIError):
        return f"docker engine error: {error.explanation or error}"
    return f"docker engine unreachable: {error.__class__.__name__}"


class DockerSession:
    """A running container kept for several `exec` calls (one container start for many test runs)."""

    def __init__(self, sandbox: DockerSandbox, job: Job, container: Any):
        self.sandbox = sandbox
        self.job = job
        self.container = container
        self.setup_s = 0.0
        self.started_at = time.time()
        self._oom_kills_seen = 0

    def _result(self, command: tuple[str, ...]) -> Result:
        """An empty result for a command run in this session's container."""
        return Result(backend=self.sandbox.backend, image=self.job.image, command=tuple(command), exit_code=None,
                      backend_reason=self.sandbox.reason)

    def start(self) -> None:
        """Start the container; OOM kills are counted from now on."""
        self.started_at = time.time()
        self.container.start()

    def _oom_events(self) -> int:
        """How many `oom` events the engine has recorded for this container since it started."""
        events = self.sandbox.client.events(since=self.started_at, until=time.time(), decode=True,
                                            filters={"container": self.container.id, "event": "oom"})
        return sum(1 for _ in events)

    def oom_killed(self, exit_code: int | None = None) -> bool:
        """Whether the kernel killed a process of the container for its memory limit since the last call.

        Counted from the engine's `oom` events, which (unlike the container state)
        also report a process killed while the container itself kept running. The
        engine may record the event just after the killed process's exit is seen:
        when the exit code says SIGKILL and no event is there yet, it is waited for
        a moment.
        """
        kills = self._oom_events()
        deadline = time.monotonic() + OOM_EVENT_GRACE_S
        while kills <= self._oom_kills_seen and exit_code == SIGKILL_EXIT and time.monotonic() < deadline:
            time.sleep(0.05)
            kills = self._oom_events()
        killed, self._oom_kills_seen = kills > self._oom_kills_seen, kills
        return killed

    def exec(self, command: tuple[str, ...], timeout_s: float | None = None,
             env: tuple[tuple[str, str], ...] = ()) -> Result:
        """Run one command in the running container; a timeout restarts the container (killing all it started)."""
        timeout = self.job.timeout_s if timeout_s is None else timeout_s
        result = self._result(command)
        api = self.sandbox.client.api
        started = time.monotonic()
        try:
            exec_id = api.exec_create(self.container.id, cmd=list(command), workdir=WORKSPACE,
                                      environment=job_environment(self.job, env))["Id"]
            stream = api.exec_start(exec_id, socket=True)
            stdout, stderr = TailBuffer(), TailBuffer()
            reader = threading.Thread(target=self._read, args=(stream, stdout, stderr), daemon=True)
            reader.start()
            reader.join(timeout)
            result.timed_out = reader.is_alive()
            if result.timed_out:
                self.container.restart(timeout=0)
                reader.join(RESTART_GRACE_S)
            stream.close()
            result.run_s = time.monotonic() - started
            result.stdout, result.stderr = stdout.text(), stderr.text()
            if not result.timed_out:
                result.exit_code = api.exec_inspect(exec_id)["ExitCode"]
                result.oom_killed = self.oom_killed(result.exit_code)
        except ENGINE_ERRORS as error:
            result.infrastructure_error = describe_engine_error(error, self.job.image)
        return result

    @staticmethod
    def _read(stream: Any, stdout: TailBuffer, stderr: TailBuffer) -> None:
        """Copy a multiplexed exec stream into the two buffers until it ends (no read timeout: the caller has one)."""
        try:
            for stream_id, data in frames_iter(stream, tty=False):
                (stderr if stream_id == STDERR else stdout).write(data)
        except OSError:
            return

    def put(self, source: Path, dest: str) -> None:
        """Copy a host file or folder into the container at `dest` (absolute, or relative to /workspace)."""
        target = dest if dest.startswith("/") else f"{WORKSPACE}/{relative_inside(dest, WORKSPACE)}"
        with pack(source, target.lstrip("/"), owner=0, temp_root=self.sandbox.temp_root) as archive:
            self.container.put_archive("/", archive)

    def get(self, path: str, dest: Path) -> None:
        """Copy a file or folder out of the container into the host folder `dest` (regular files and folders only)."""
        source = path if path.startswith("/") else f"{WORKSPACE}/{relative_inside(path, WORKSPACE)}"
        try:
            chunks, _ = self.container.get_archive(source)
        except NotFound:
            raise FileNotFoundError(f"{path} is not in the container") from None
        with spool_chunks(chunks, temp_root=self.sandbox.temp_root) as archive:
            if extract_plain(archive, dest) == 0:
                raise FileNotFoundError(f"{path} is not a regular file or folder")

    def commit(self, repository: str, tag: str, changes: list[str]) -> str:
        """Save the container's filesystem as an image (used to derive environment images); returns its id. The
        image's owner label is emptied: a container another tool starts from it is nobody's orphan."""
        return self.container.commit(repository=repository, tag=tag,
                                     changes=[*changes, f'LABEL {OWNER_LABEL}=""']).id


class DockerSandbox:
    """Runs jobs in containers of a Docker engine reached through the docker SDK."""

    backend: Backend = "docker"

    def __init__(self, client: docker.DockerClient | None = None, reason: str = "docker backend asked for",
                 build_network: str = "bridge", ca_bundle: Path | None = Path(CA_BUNDLE),
                 temp_root: Path | None = None):
        self._client = client
        self.reason = reason
        self.build_network = build_network
        self.ca_bundle = ca_bundle if ca_bundle is not None and ca_bundle.is_file() else None
        self.temp_root = temp_root
        self._env_images: dict[str, str] = {}

    @property
    def client(self) -> docker.DockerClient:
        """The engine client, connected on first use."""
        if self._client is None:
            self._client = docker.from_env()
        return self._client

    def image_for(self, job: Job) -> str:
        """The job's image: its Python environment's derived image (built on first use), else `job.image`."""
        if job.python_env is None:
            return job.image
        if job.python_env not in self._env_images:
            # imported here: the image builder itself runs its install steps in this backend
            from taskforge.sandbox.images.env import build_python_env_image
            from taskforge.sandbox.images.recipe import PYTHON_ENVS

            if job.python_env not in PYTHON_ENVS:
                raise InfrastructureError(f"sandbox {job.label}: no Python environment named {job.python_env!r}")
            self._env_images[job.python_env] = build_python_env_image(self.client, PYTHON_ENVS[job.python_env]).tag
        return self._env_images[job.python_env]

    def container_options(self, job: Job, command: list[str]) -> dict[str, Any]:
        """Everything `containers.create` needs for a job: image, limits, network, labels, logs."""
        file_size = job.file_size_mb * 1024 * 1024
        options: dict[str, Any] = {
            "image": self.image_for(job),
            "command": command,
            "working_dir": WORKSPACE,
            "environment": job_environment(job),
            "labels": {SANDBOX_LABEL: job.label, OWNER_LABEL: owner_tag()},
            "hostname": "sandbox",
            "network_mode": self.build_network if job.network else "none",
            "mem_limit": f"{job.memory_mb}m",
            "memswap_limit": f"{job.memory_mb}m",
            "nano_cpus": int(job.cpus * 1e9),
            "pids_limit": job.pids,
            "ulimits": [Ulimit(name="fsize", soft=file_size, hard=file_size), Ulimit(name="core", soft=0, hard=0)],
            "cap_drop": DROPPED_CAPABILITIES,
            "security_opt": ["no-new-privileges"],
            "init": True,
            "log_config": LOG_CONFIG,
        }
        volumes = {host: {"bind": target, "mode": "ro"} for host, target in job.mounts}
        if job.network and self.ca_bundle is not None:
            volumes[str(self.ca_bundle)] = {"bind": CA_BUNDLE, "mode": "ro"}
        if volumes:
            options["volumes"] = volumes
        return options

    def _create(self, job: Job, command: list[str]) -> DockerSession:
        """Create a container for the job and copy its workspace in (not started yet)."""
        container = self.client.containers.create(**self.container_options(job, command))
        session = DockerSession(self, job, container)
        if job.workspace is not None:
            try:
                session.put(job.workspace, WORKSPACE)
            except OSError as error:
                self._remove(session)
                raise InfrastructureError(f"could not copy the workspace in: {error.strerror}") from error
            except BaseException:
                self._remove(session)
                raise
        return session

    def _remove(self, session: DockerSession) -> None:
        """Remove a container whatever its state; a failure is logged (the label finds leftovers)."""
        try:
            session.container.remove(force=True, v=True)
        except NotFound:
            return
        except ENGINE_ERRORS as error:
            log.warning("sandbox %s: could not remove its container: %s", session.job.label, error)

    @contextmanager
    def session(self, job: Job) -> Iterator[DockerSession]:
        """A running container for several `exec` calls, removed on exit."""
        started = time.monotonic()
        try:
            session = self._create(job, KEEP_ALIVE)
        except ENGINE_ERRORS as error:
            raise InfrastructureError(f"sandbox {job.label}: {describe_engine_error(error, job.image)}") from error
        try:
            session.start()
            session.setup_s = time.monotonic() - started
            yield session
        except ENGINE_ERRORS as error:
            raise InfrastructureError(f"sandbox {job.label}: {describe_engine_error(error, job.image)}") from error
        finally:
            self._remove(session)

    def run(self, job: Job, collect_to: Path | None = None) -> Result:
        """Run one job in a fresh container, collect its outputs and remove the container."""
        result = Result(backend=self.backend, image=job.image, command=tuple(job.command), exit_code=None,
                        backend_reason=self.reason)
        started = time.monotonic()
        session = None
        try:
            session = self._create(job, list(job.command))
            self._start_and_wait(session, result, started)
            if collect_to is not None:
                result.extra["not_collected"] = collect_outputs(session, job.collect, collect_to)
                result.out_dir = collect_to
        except ENGINE_ERRORS as error:
            result.infrastructure_error = describe_engine_error(error, job.image)
        except InfrastructureError as error:
            result.infrastructure_error = str(error)
        finally:
            teardown_started = time.monotonic()
            if session is not None:
                self._remove(session)
            result.teardown_s = time.monotonic() - teardown_started
        if result.infrastructure_error:
            log.warning("sandbox %s: %s", job.label, result.infrastructure_error)
        return result

    @staticmethod
    def _kill(container: Any) -> None:
        """Kill a container that ran past its timeout (it may have just exited on its own) and wait until it stops."""
        try:
            container.kill()
        except APIError as error:
            if error.status_code != 409:
                raise
        container.wait(timeout=30)

    def _start_and_wait(self, session: DockerSession, result: Result, started: float) -> None:
        """Start the container, wait up to the timeout (then kill it), and read exit code, OOM flag and logs."""
        container = session.container
        session.start()
        run_started = time.monotonic()
        result.setup_s = run_started - started
        try:
            result.exit_code = container.wait(timeout=session.job.timeout_s)["StatusCode"]
        except requests.exceptions.RequestException:
            if time.monotonic() - run_started < session.job.timeout_s:
                raise
            result.timed_out = True
            self._kill(container)
        result.run_s = time.monotonic() - run_started
        if result.timed_out:
            result.exit_code = None
        result.oom_killed = session.oom_killed(result.exit_code)
        result.stdout = tail_text(container.logs(stdout=True, stderr=False))
        result.stderr = tail_text(container.logs(stdout=False, stderr=True))
