"""Inspect AI's sandbox interface over taskforge's sandbox: `sandbox=("taskforge", SandboxConfig(...))`.

An Inspect sample's tools (`bash()`, `python()`, file reads and writes) then run
where taskforge runs the same task's code: one sandbox session per sample (a
container of the task's image, or of its Python environment's image; the
process backend where there is no engine and the task needs no image of its
own), network off, limits on, removed when the sample ends. Commands start in
the sample's working directory (`/testbed` for a SWE task) with the image's PATH:
a login shell (`bash --login`, as Inspect's tools start one) would reset PATH from
/etc/profile and hide the task's environment, so `--login` is dropped.

Importing this module registers the provider (the exported Inspect tasks do).
"""

from __future__ import annotations

import posixpath
import tempfile
from contextlib import ExitStack
from itertools import count
from pathlib import Path
from typing import Any, Literal, Union, overload

import anyio
from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from pydantic import BaseModel

from taskforge import sandbox
from taskforge.sandbox.api import BASE_IMAGE, WORKSPACE, Job, Session

PROVIDER = "taskforge"
DEFAULT_TIMEOUT_S = 600
_STDIN_DIR = ".inspect-stdin"


class SandboxConfig(BaseModel, frozen=True):
    """A sample's sandbox: an image of its own (needs the docker backend) or a taskforge Python environment,
    the working directory and the session's limits."""

    image: str | None = None
    python_env: str | None = None
    workdir: str = WORKSPACE
    timeout_s: float = 3600.0
    memory_mb: int = 4096


def _job(config: SandboxConfig) -> Job:
    return Job(command=(), image=config.image or BASE_IMAGE, python_env=config.python_env, network=False,
               timeout_s=config.timeout_s, memory_mb=config.memory_mb, pids=512, label="inspect-sample")


@sandboxenv(name=PROVIDER)
class TaskforgeSandboxEnvironment(SandboxEnvironment):
    """One taskforge sandbox session serving one Inspect sample."""

    def __init__(self, session: Session, stack: ExitStack, workdir: str):
        super().__init__()
        self.session = session
        self.stack = stack
        self.workdir = workdir
        self._stdin = count()

    def _path(self, file: str) -> str:
        return posixpath.normpath(posixpath.join(self.workdir, file))

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        command = [part for k, part in enumerate(cmd) if not (k == 1 and cmd[0] == "bash" and part == "--login")]
        start = ["sh", "-c", 'cd "$1" || exit 1; shift; exec "$@"', "sh", self._path(cwd or ".")]
        if input is not None:
            stdin = f"{WORKSPACE}/{_STDIN_DIR}/{next(self._stdin)}"
            await self.write_file(stdin, input)
            start = ["sh", "-c", 'cd "$1" || exit 1; f="$2"; shift 2; exec "$@" < "$f"', "sh",
                     self._path(cwd or "."), stdin]
        result = await anyio.to_thread.run_sync(
            lambda: self.session.exec((*start, *command), timeout_s=float(timeout or DEFAULT_TIMEOUT_S),
                                      env=tuple((env or {}).items())))
        if result.infrastructure_error:
            raise RuntimeError(f"taskforge sandbox: {result.infrastructure_error}")
        if result.timed_out:
            raise TimeoutError(f"command timed out after {timeout or DEFAULT_TIMEOUT_S} s")
        return ExecResult(success=result.exit_code == 0, returncode=result.exit_code or 0, stdout=result.stdout,
                          stderr=result.stderr)

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        target = self._path(file)
        with tempfile.TemporaryDirectory(prefix="inspect-put-") as folder:
            local = Path(folder) / posixpath.basename(target)
            local.write_bytes(data)
            await anyio.to_thread.run_sync(lambda: self.session.put(local, target))

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> Union[str | bytes]:
        source = self._path(file)
        with tempfile.TemporaryDirectory(prefix="inspect-get-") as folder:
            await anyio.to_thread.run_sync(lambda: self.session.get(source, Path(folder)))
            data = (Path(folder) / posixpath.basename(source)).read_bytes()
        return data.decode("utf-8") if text else data

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return SandboxConfig(**config)

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        settings = config if isinstance(config, SandboxConfig) else SandboxConfig()
        backend = sandbox.get_sandbox("docker") if settings.image else sandbox.default_sandbox()

        def start() -> TaskforgeSandboxEnvironment:
            stack = ExitStack()
            session = stack.enter_context(backend.session(_job(settings)))
            return cls(session, stack, settings.workdir)

        return {"default": await anyio.to_thread.run_sync(start)}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        for environment in environments.values():
            if isinstance(environment, TaskforgeSandboxEnvironment):
                await anyio.to_thread.run_sync(environment.stack.close)
