"""A sandboxed workspace for a solver: run a command, read a file, write a file, then submit.

The workspace is one sandbox session (`taskforge.sandbox.session`: a container,
or fresh namespaces), network off, with memory, process and per-command time
limits; it is opened on the first call and removed by `close`. Every command
and every file the solver touches stays inside it: paths are resolved under
`/workspace` (a path that leaves it is refused), commands run there with their
standard error merged into their output, and what the solver is shown of an
output is its head and tail. A family subclass stages the task's workspace
(`stage`) and reads the submission back out of it (`collect`).

Files go in and out through one host folder kept for the session's life
(`transfer/`, beside the staged workspace), one transfer at a time, emptied
after each: a fresh temporary folder per `write_file` / `read_file` cost about
as much as the sandbox's own copy of a small file.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
import threading
from contextlib import ExitStack, contextmanager
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from taskforge import sandbox
from taskforge.sandbox.api import WORKSPACE, Result, Session
from taskforge.sandbox.transfer import relative_inside
from taskforge.schemas import InfrastructureError
from taskforge.tools.base import (MAX_OBSERVATION_CHARS, SUBMIT, WORKSPACE_SUBMIT, ToolEnvironmentError,
                                  arguments_of, clipped, function, unknown_tool)

RUN, READ_FILE, WRITE_FILE = "run", "read_file", "write_file"
COMMAND_TIMEOUT_S = 120.0
SETUP_TIMEOUT_S = 300.0
MAX_READ_BYTES = 4_000_000
WORKDIR_MISSING = 97
ANY_WORKDIR = f"the working folder ({WORKSPACE}/repo for a repository task, else {WORKSPACE})"


def workspace_tools(where: str = ANY_WORKDIR) -> list[dict[str, Any]]:
    """The workspace tools, `where` naming the working folder (where commands start and relative paths point),
    `submit` last."""
    def path() -> dict[str, str]:
        return {"type": "string", "description": f"a file path, relative to {where} or absolute under {WORKSPACE}"}
    return [
        function(RUN, f"Run a bash command in {where} (no network) and see its exit code and output (standard "
                      "error merged in; long output shows its head and tail). Each command starts afresh in that "
                      "folder: chain steps with && or ;.",
                 {"command": {"type": "string", "description": "the bash command line to run"}}, ["command"]),
        function(READ_FILE, "Read a text file of the workspace (a long file shows its head and tail: use run with "
                            "sed -n or grep for the middle).", {"path": path()}, ["path"]),
        function(WRITE_FILE, "Write a text file of the workspace, creating its folders; replaces the whole file.",
                 {"path": path(), "content": {"type": "string", "description": "the file's complete new text"}},
                 ["path", "content"]),
        WORKSPACE_SUBMIT,
    ]


class WorkspaceEnvironment:
    """A task's workspace in a sandbox session. Subclasses set `family`, the layout attributes and `stage` /
    `collect`; the tools are the same for every family."""

    family = "workspace"
    workdir = "."
    """Where commands start and relative paths point, under /workspace."""
    python_env: str | None = None
    memory_mb = 2048
    pids = 512

    def __init__(self, label: str, command_timeout_s: float = COMMAND_TIMEOUT_S):
        self.label = label
        self.command_timeout_s = command_timeout_s
        self.submitted = False
        self._stack: ExitStack | None = None
        self._session: Session | None = None
        self._transfer: Path | None = None
        self._transfer_lock = threading.Lock()

    # what a family decides

    def stage(self, folder: Path) -> None:
        """Write the task's workspace into `folder` (copied into the sandbox when the session starts)."""
        raise NotImplementedError

    def collect(self) -> str:
        """The submission, read out of the live workspace."""
        raise NotImplementedError

    def mounts(self) -> tuple[tuple[str, str], ...]:
        """Host folders bound read-only into the sandbox (a shared prepared environment)."""
        return ()

    def variables(self) -> tuple[tuple[str, str], ...]:
        """Environment variables of every command."""
        return ()

    def path_first(self) -> str | None:
        """A folder put first on PATH (a task's own environment), or None."""
        return None

    def setup(self) -> str | None:
        """A command run once when the workspace opens (installing the project), or None."""
        return None

    # the tools

    @property
    def tools(self) -> list[dict[str, Any]]:
        return workspace_tools(str(PurePosixPath(WORKSPACE, self.workdir)))

    def call(self, name: str, arguments: dict[str, Any] | str) -> str:
        try:
            args = arguments_of(arguments)
        except ValueError as exc:
            return f"error: {exc}"
        if name == SUBMIT:
            self.submitted = True
            return "submitted"
        if name == RUN:
            return self.run(str(args.get("command", "")))
        if name == READ_FILE:
            return self.read_file(str(args.get("path", "")))
        if name == WRITE_FILE:
            return self.write_file(str(args.get("path", "")), str(args.get("content", "")))
        return unknown_tool(name, self.tools)

    def run(self, command: str, timeout_s: float | None = None) -> str:
        """Run a bash command line in the working folder; what it printed and how it ended, as observed."""
        if not command.strip():
            return "error: an empty command"
        result = self.execute(command, timeout_s or self.command_timeout_s)
        if result.timed_out:
            ending = f"timed out after {timeout_s or self.command_timeout_s:g} s (the command was killed)"
        elif result.oom_killed:
            ending = "killed: out of memory"
        else:
            ending = f"exit code {result.exit_code}"
        return f"{ending}\n{clipped(result.stdout, MAX_OBSERVATION_CHARS)}".rstrip()

    def read_file(self, path: str) -> str:
        """A workspace file's text (head and tail when long), or why it cannot be read."""
        try:
            relative = self._inside(path)
            text = self.read_text(str(relative))
        except ValueError as exc:
            return f"error: {exc}"
        if text is None:
            return f"error: {path} is not a file in the workspace"
        return clipped(text)

    def write_file(self, path: str, content: str) -> str:
        """Write a workspace file (its folders created), replacing what was there."""
        try:
            relative = self._inside(path)
        except ValueError as exc:
            return f"error: {exc}"
        with self._transfer_folder() as folder:
            source = folder / "content"
            source.write_text(content, encoding="utf-8")
            try:
                self._live().put(source, str(relative))
            except (OSError, ValueError) as exc:
                return f"error: {path} could not be written ({exc})"
        return f"wrote {len(content)} characters to {path}"

    # reading the workspace back

    def read_text(self, path: str) -> str | None:
        """A workspace file's text (undecodable bytes replaced), None when it is not a regular file."""
        with self._transfer_folder() as folder:
            try:
                self._live().get(path, folder)
            except (FileNotFoundError, ValueError):
                return None
            found = folder / PurePosixPath(path).name
            if not found.is_file():
                return None
            with found.open("rb") as handle:
                return handle.read(MAX_READ_BYTES).decode("utf-8", errors="replace")

    def read_folder(self, path: str) -> dict[str, str]:
        """Every regular file under a workspace folder, {path relative to the folder: text}; {} when absent."""
        with self._transfer_folder() as transfer:
            try:
                self._live().get(path, transfer)
            except (FileNotFoundError, ValueError):
                return {}
            folder = transfer / PurePosixPath(path).name
            if not folder.is_dir():
                return {}
            return {file.relative_to(folder).as_posix(): file.read_bytes()[:MAX_READ_BYTES].decode("utf-8", "replace")
                    for file in sorted(folder.rglob("*")) if file.is_file()}

    def submission(self) -> str:
        return self.collect()

    def execute(self, script: str, timeout_s: float) -> Result:
        """Run a bash script in the working folder (standard error merged into standard output)."""
        path = self.path_first()
        lines = ["exec 2>&1", *([f'export PATH={shlex.quote(path)}:"$PATH"'] if path else []),
                 f"cd {shlex.quote(self.workdir)} || exit {WORKDIR_MISSING}", script]
        result = self._live().exec(("bash", "-c", "\n".join(lines)), timeout_s=timeout_s, env=self.variables())
        if result.infrastructure_error:
            raise InfrastructureError(f"the sandbox failed in the workspace of {self.label}: "
                                      f"{result.infrastructure_error}")
        return result

    def _inside(self, path: str) -> PurePosixPath:
        """A solver's path as a path relative to /workspace; ValueError when it leaves the workspace."""
        if not path.strip():
            raise ValueError("no path given")
        joined = path if path.startswith("/") else str(PurePosixPath(WORKSPACE, self.workdir, path))
        return relative_inside(joined, WORKSPACE)

    @contextmanager
    def _transfer_folder(self) -> Iterator[Path]:
        """The session's transfer folder (the session started), held by one caller and emptied when it is done."""
        self._live()
        assert self._transfer is not None
        with self._transfer_lock:
            try:
                yield self._transfer
            finally:
                _empty(self._transfer)

    # the session

    def _live(self) -> Session:
        """The sandbox session, started (and the workspace staged and set up) on first use."""
        if self._session is None:
            self._open()
        assert self._session is not None
        return self._session

    def _open(self) -> None:
        stack = ExitStack()
        try:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="taskforge-ws-")))
            folder = root / "workspace"
            folder.mkdir()
            self._transfer = root / "transfer"
            self._transfer.mkdir()
            self.stage(folder)
            job = sandbox.Job(command=(), workspace=folder, network=False, timeout_s=self.command_timeout_s,
                              memory_mb=self.memory_mb, pids=self.pids, python_env=self.python_env,
                              mounts=self.mounts(), label=f"solver:{self.label}")
            self._session = stack.enter_context(sandbox.session(job))
            self._stack = stack
            setup = self.setup()
            if setup:
                result = self.execute(setup, SETUP_TIMEOUT_S)
                if not result.ok:
                    raise ToolEnvironmentError(f"setting up the workspace of {self.label} failed (exit "
                                               f"{result.exit_code}): {clipped(result.stdout, 1500)}")
        except BaseException:
            self._session, self._stack, self._transfer = None, None, None
            stack.close()
            raise

    def close(self) -> None:
        """Remove the sandbox session and the staged folder."""
        stack, self._stack, self._session, self._transfer = self._stack, None, None, None
        if stack is not None:
            stack.close()

    def __enter__(self) -> "WorkspaceEnvironment":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _empty(folder: Path) -> None:
    """Remove everything inside `folder` (what one transfer left there)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
