"""The process backend: jobs run in fresh namespaces (bubblewrap, else util-linux unshare), as a throwaway uid,
with rlimits.

Each session gets a temporary folder (workspace + tmp) owned by a uid picked for
it alone, so the process limit (RLIMIT_NPROC, counted per uid) counts only the
job's own processes. Inside, the host's system folders are mounted read-only,
`/workspace` and `/tmp` are the only writable places, the root is read-only,
home folders, `/run` (the Docker socket) and the project tree are not there,
and there is no network unless the job is a build step. The job is pid 1 of
its own pid namespace: a timeout kills it, which takes every process it started
with it (the process group is killed if that fails), and the launcher is always
waited for, so nothing is left running or unreaped. `taskforge.sandbox.launchers`
says how each launcher builds the sandbox.
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from taskforge.sandbox.api import WORKSPACE, Backend, Job, Result
from taskforge.sandbox.environment import SANDBOX_PATH, job_environment
from taskforge.sandbox.images.build import ImageBuildError
from taskforge.sandbox.images.host_env import ensure_host_env
from taskforge.sandbox.images.recipe import PYTHON_ENVS, VENV
from taskforge.sandbox.launchers import SETUP_DONE, Launcher, Mounts, find_launcher
from taskforge.sandbox.output import TailBuffer, drain_in_background
from taskforge.sandbox.transfer import collect_outputs, extract_into_sandbox, extract_plain, pack, relative_inside, resolve_inside
from taskforge.schemas.errors import InfrastructureError

log = logging.getLogger(__name__)

SANDBOX_UIDS = range(200_000, 300_000)
JOB_DIR_PREFIX = "taskforge-sbx-"
DRAIN_GRACE_S = 5.0
KILL_GRACE_S = 2.0
MIB = 1024 * 1024
MISSING_EXECUTABLE = "bwrap: execvp"
CHILDREN = "/proc/{pid}/task/{pid}/children"
EXIT_NOT_FOUND = 127



def limit_arguments(job: Job, timeout_s: float) -> list[str]:
    """prlimit arguments for the job's address space, CPU seconds, processes, file size and core dumps."""
    return [
        "prlimit",
        f"--as={job.memory_mb * MIB}",
        f"--cpu={math.ceil(timeout_s) + 1}",
        f"--nproc={job.pids}",
        f"--fsize={job.file_size_mb * MIB}",
        "--core=0",
        "--",
    ]


def _first_child(pid: int) -> int | None:
    """The first child of a process (a launcher's pid 1 of the new pid namespace), if it has one."""
    try:
        children = Path(CHILDREN.format(pid=pid)).read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def exit_code_of(returncode: int) -> int:
    """A shell-style exit code: death by signal N becomes 128 + N, as in a container."""
    return 128 - returncode if returncode < 0 else returncode


class BwrapStatus:
    """The JSON lines bubblewrap writes on its status pipe: `child-pid` at the start, `exit-code` at the end."""

    def __init__(self, fd: int):
        self.fd = fd
        self.data = b""
        os.set_blocking(fd, False)

    def poll(self) -> dict:
        """Everything reported so far, merged into one dict."""
        try:
            while chunk := os.read(self.fd, 65536):
                self.data += chunk
        except BlockingIOError:
            pass
        status: dict = {}
        for line in self.data.decode(errors="replace").splitlines(keepends=True):
            if line.endswith("\n") and line.strip():
                status.update(json.loads(line))
        return status

    def close(self) -> dict:
        """Everything reported, then close the pipe."""
        try:
            return self.poll()
        finally:
            os.close(self.fd)


def host_env_of(job: Job) -> Path | None:
    """The host environment a job names, built on first use; InfrastructureError when it cannot be built."""
    if job.python_env is None:
        return None
    try:
        return ensure_host_env(PYTHON_ENVS[job.python_env])
    except KeyError:
        raise InfrastructureError(f"sandbox {job.label}: no Python environment named {job.python_env!r}") from None
    except ImageBuildError as error:
        raise InfrastructureError(f"sandbox {job.label}: environment {job.python_env}: {error}") from error


class ProcessSession:
    """A temporary workspace and a uid of its own; every `exec` is a fresh sandbox over that workspace."""

    def __init__(self, sandbox: ProcessSandbox, job: Job):
        started = time.monotonic()
        self.sandbox = sandbox
        self.job = job
        self.as_root = os.geteuid() == 0
        self.uid = sandbox.uids[secrets.randbelow(len(sandbox.uids))] if self.as_root else os.getuid()
        self.python_env = host_env_of(job)
        self.root = Path(tempfile.mkdtemp(prefix=JOB_DIR_PREFIX, dir=sandbox.temp_root))
        self.workspace = self.root / "workspace"
        self.tmp = self.root / "tmp"
        try:
            self._prepare()
        except OSError as error:
            self.close()
            problem = f"sandbox {job.label}: could not prepare the workspace: {error.strerror}"
            raise InfrastructureError(problem) from error
        self.setup_s = time.monotonic() - started

    def _prepare(self) -> None:
        """Copy the job's workspace in and hand the folders to the session's uid."""
        if self.job.workspace is not None:
            with pack(self.job.workspace, "workspace", owner=self.uid, temp_root=self.sandbox.temp_root) as archive:
                extract_into_sandbox(archive, self.root)
        self.workspace.mkdir(exist_ok=True)
        self.tmp.mkdir()
        (self.root / "root").mkdir()  # where the unshare launcher mounts the job's root
        for path in (self.root, self.workspace, self.tmp):
            os.chown(path, self.uid, self.uid)

    def _argv(self, command: tuple[str, ...], status_fd: int, timeout_s: float) -> list[str]:
        """The full command line: prlimit, then the launcher with its mounts and namespaces, then the job."""
        mounts = Mounts(root=self.root, workspace=self.workspace, tmp=self.tmp, python_env=self.python_env,
                        network=self.job.network, uid=self.uid, shared=self.job.mounts)
        return [*limit_arguments(self.job, timeout_s), *self.sandbox.launcher.argv(mounts, command, status_fd)]

    def exec(self, command: tuple[str, ...], timeout_s: float | None = None,
             env: tuple[tuple[str, str], ...] = ()) -> Result:
        """Run one command in the workspace; never raises for the job's own failures."""
        timeout = self.job.timeout_s if timeout_s is None else timeout_s
        path = f"{VENV}/bin:{SANDBOX_PATH}" if self.python_env else SANDBOX_PATH
        environment = {"PATH": path, "HOME": "/tmp", "TMPDIR": "/tmp", **job_environment(self.job, env)}
        status_read, status_write = os.pipe()
        started = time.monotonic()
        try:
            on_stdin = self.sandbox.launcher.status_on_stdin
            process = subprocess.Popen(
                self._argv(command, status_write, timeout), stdin=status_write if on_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=() if on_stdin else (status_write,),
                process_group=0, env=environment, cwd=self.root, **self._identity())
        except OSError as error:
            os.close(status_read)
            return self.sandbox.failed(self.job, command,
                                       f"could not start {self.sandbox.launcher.name}: {error.strerror}")
        finally:
            os.close(status_write)
        status = BwrapStatus(status_read)
        stdout, stderr = TailBuffer(), TailBuffer()
        drains = [drain_in_background(process.stdout, stdout), drain_in_background(process.stderr, stderr)]
        timed_out = False
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            self._kill(process, status)
        for drain in drains:
            drain.join(DRAIN_GRACE_S)
        run_s = time.monotonic() - started
        result = Result(
            backend=self.sandbox.backend, image=None, command=tuple(command), exit_code=None, timed_out=timed_out,
            run_s=run_s, stdout=stdout.text(), stderr=stderr.text(), backend_reason=self.sandbox.reason)
        reported = status.close()
        if timed_out:
            return result
        if "exit-code" in reported or SETUP_DONE in reported:
            result.exit_code = exit_code_of(process.returncode)
        elif result.stderr.startswith(MISSING_EXECUTABLE):
            result.exit_code = EXIT_NOT_FOUND
        else:
            problem = result.stderr.strip().replace(str(self.root), "<sandbox>")
            result.infrastructure_error = f"{self.sandbox.launcher.name} could not set up the sandbox: {problem[-500:]}"
        return result

    def _identity(self) -> dict:
        """Popen arguments that switch to the session's uid (only root can; others run jobs as themselves), unless
        the launcher switches after its own setup."""
        if not self.as_root or self.sandbox.launcher.switches_uid:
            return {}
        return {"user": self.uid, "group": self.uid, "extra_groups": []}

    def _kill(self, process: subprocess.Popen, status: BwrapStatus) -> None:
        """Kill the job: its pid namespace first (the launcher then reaps it and exits), else the process group."""
        child = status.poll().get("child-pid") or _first_child(process.pid)
        if child is not None:
            self._kill_namespace(child)
        try:
            process.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()

    def _kill_namespace(self, pid: int) -> None:
        """SIGKILL the job's pid 1 (taking its namespace down), only if that pid is still a process of the session."""
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        try:
            if os.stat(f"/proc/{pid}").st_uid == self.uid:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
        except (ProcessLookupError, FileNotFoundError):
            pass
        finally:
            os.close(handle)

    def put(self, source: Path, dest: str) -> None:
        """Copy a host file or folder to `dest` (relative to, or under, /workspace)."""
        relative = relative_inside(dest, WORKSPACE)
        parent = resolve_inside(self.workspace, relative.parent)
        self._make_folders(parent)
        with pack(source, relative.name, owner=self.uid, temp_root=self.sandbox.temp_root) as archive:
            extract_into_sandbox(archive, parent)

    def _make_folders(self, folder: Path) -> None:
        """Create `folder` and any missing parents inside the workspace, owned by the session's uid."""
        missing = []
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for path in reversed(missing):
            path.mkdir()
            os.chown(path, self.uid, self.uid)

    def get(self, path: str, dest: Path) -> None:
        """Copy a workspace file or folder into the host folder `dest` (regular files and folders only)."""
        relative = relative_inside(path, WORKSPACE)
        source = resolve_inside(self.workspace, relative)
        if not source.exists():
            raise FileNotFoundError(f"{path} is not in the workspace")
        with pack(source, relative.name or "workspace", owner=os.getuid(), temp_root=self.sandbox.temp_root) as archive:
            extract_plain(archive, dest)

    def close(self) -> None:
        """Delete the session's folder."""
        shutil.rmtree(self.root, ignore_errors=True)
        if self.root.exists():
            log.warning("sandbox %s: could not remove its temporary folder", self.job.label)


class ProcessSandbox:
    """Runs jobs in fresh namespaces on this host; the fallback where no Docker engine answers.

    `launcher` enters the namespaces (default: bubblewrap where it works, else util-linux unshare;
    `taskforge.sandbox.launchers.find_launcher`). `temp_root` holds each session's folder; the throwaway uids
    must be able to traverse it (like /tmp, the default). `uids` is the range they are drawn from (when running
    as root; otherwise jobs run as the caller).
    """

    backend: Backend = "process"

    def __init__(self, reason: str = "process backend asked for", temp_root: Path | None = None,
                 launcher: Launcher | None = None, uids: range = SANDBOX_UIDS):
        if launcher is None:
            launcher, finding = find_launcher()
            if launcher is None:
                raise InfrastructureError(f"no sandbox can run here: {finding}")
        self.reason = reason
        self.temp_root = Path(temp_root) if temp_root is not None else Path(tempfile.gettempdir())
        self.launcher = launcher
        self.uids = uids
    def failed(self, job: Job, command: tuple[str, ...], problem: str) -> Result:
        """A result for a job the sandbox itself could not run."""
        log.warning("sandbox %s: %s", job.label, problem)
        return Result(backend=self.backend, image=None, command=tuple(command), exit_code=None,
                      infrastructure_error=problem, backend_reason=self.reason)

    @contextmanager
    def session(self, job: Job) -> Iterator[ProcessSession]:
        """A workspace kept across several `exec` calls, deleted on exit."""
        session = ProcessSession(self, job)
        try:
            yield session
        finally:
            session.close()

    def run(self, job: Job, collect_to: Path | None = None) -> Result:
        """Run one job from a fresh workspace, collect its outputs and delete everything."""
        try:
            session = ProcessSession(self, job)
        except InfrastructureError as error:
            return self.failed(job, job.command, str(error))
        try:
            result = session.exec(job.command)
            result.setup_s = session.setup_s
            teardown_started = time.monotonic()
            if collect_to is not None and result.infrastructure_error is None:
                result.extra["not_collected"] = collect_outputs(session, job.collect, collect_to)
                result.out_dir = collect_to
        finally:
            session.close()
        result.teardown_s = time.monotonic() - teardown_started
        return result
