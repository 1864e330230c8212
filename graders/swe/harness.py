"""Running a SWE task's held-out tests inside the sandbox, one session per task.

A session's workspace holds `repo/` (a copy of the solver's snapshot), `env/`
(the repository version's virtual environment, built once and reused) and
`patches/`. Within the one session the project is installed once, then
submissions are applied and the test files of the test patch are run as
often as needed: the container (or namespace) start is paid once per task.
Applying a submission follows SWE-bench: the submission first, then the test
files are reset to the base commit and the test patch is applied over them,
so a submission cannot change the held-out tests.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from taskforge import sandbox
from taskforge.graders.swe.grading import LOG_PARSERS, StatusMap
from taskforge.graders.swe.safe_git import git_in
from taskforge.graders.swe.patch import split_files
from taskforge.sandbox import Job, Result, Session
from taskforge.schemas import InfrastructureError, TaskforgeError

CACHE_ENV = "TASKFORGE_SWE_CACHE"
SANDBOX_PYTHON = "python3"
"""The sandbox's own Python; its pip installs into the task environments, which carry no pip of their own."""
ENV_DIR, REPO_DIR, PATCH_DIR = "env", "repo", "patches"
INSTALL_TIMEOUT_S = 300.0
LOG_TAIL_CHARS = 2000


class BedError(TaskforgeError):
    """The task's own test bed is broken (the project does not install, the test patch does not apply)."""


class InstallFailed(BedError):
    """Installing the project into the environment failed; carries the (scrubbed) log for the repair rules."""

    def __init__(self, log: str):
        self.log = log
        super().__init__(f"installing the project failed: {tail(log, 1500)}")


def cache_root() -> Path:
    """Where SWE builds keep clones, snapshots and environments (`$TASKFORGE_SWE_CACHE`, else the user cache)."""
    configured = os.environ.get(CACHE_ENV)
    user_cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    base = Path(configured) if configured else user_cache / "taskforge" / "swe"
    base.mkdir(parents=True, exist_ok=True)
    return base


def scrub(text: str, *roots: Path | str) -> str:
    """Text with host paths (the given roots, the cache, the home folder) replaced by placeholders."""
    for root, name in [*((r, "<workspace>") for r in roots), (cache_root(), "<cache>"), (Path.home(), "~")]:
        text = text.replace(str(root), name)
    return text


def tail(text: str, chars: int = LOG_TAIL_CHARS) -> str:
    """The end of a log, the part that says what went wrong."""
    return text[-chars:]


@dataclass(frozen=True)
class TaskBed:
    """What a task's tests run on: snapshot and environment folders, and how to install and test."""

    snapshot: Path
    env: Path
    recipe: dict[str, Any]
    test_files: tuple[str, ...]
    timeout_s: float = 300.0

    @classmethod
    def of(cls, payload: dict[str, Any], grader: dict[str, Any], environment: dict[str, Any]) -> "TaskBed":
        """The test bed a task names (its folders are relative to the cache root)."""
        root = cache_root()
        return cls(snapshot=root / environment["snapshot"], env=root / environment["env"],
                   recipe=payload["environment_recipe"], test_files=tuple(grader["test_files"]),
                   timeout_s=float(grader.get("timeout_s", 300.0)))


@dataclass(frozen=True)
class SuiteRun:
    """One run of the held-out tests: statuses by test id, exit code, seconds, and the log's tail."""

    statuses: StatusMap
    exit_code: int | None
    seconds: float
    log_tail: str

    def summary(self) -> dict[str, Any]:
        """A JSON-ready record of the run, without timings (a task's content is the same on every build)."""
        return {"statuses": self.statuses, "exit_code": self.exit_code}


def _sh(script: str) -> tuple[str, ...]:
    return ("sh", "-c", script)


def python_env(recipe: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Variables every command in a test bed gets (the source on the path when the project is not installed)."""
    variables = [("PIP_NO_INDEX", "1"), ("PIP_DISABLE_PIP_VERSION_CHECK", "1"), ("PIP_CONFIG_FILE", "/dev/null"),
                 ("PYTHONDONTWRITEBYTECODE", "1")]
    if recipe["install"] == "pythonpath":
        variables.append(("PYTHONPATH", recipe["pythonpath"]))
    return tuple(variables)


def install_command(recipe: dict[str, Any]) -> str | None:
    """The in-session command installing the project itself into `env/` (None when it runs from its source)."""
    if recipe["install"] != "editable":
        return None
    flags = "".join(f" {flag}" for flag in recipe.get("pip_flags", []))
    return (f"cd {REPO_DIR} && {SANDBOX_PYTHON} -m pip --python ../{ENV_DIR}/bin/python install -q --no-index "
            f"--no-deps --no-build-isolation{flags} -e .")


def suite_command(recipe: dict[str, Any], test_files: tuple[str, ...]) -> str:
    """The command running only the given test files with the recipe's runner, from inside `repo/`."""
    runner = recipe["test_cmd"].removeprefix("python ")
    return f"cd {REPO_DIR} && ../{ENV_DIR}/bin/python {runner} {' '.join(map(shlex.quote, test_files))}"


class GradingSession:
    """A live sandbox session over one test bed: install once, then apply patches and run the tests."""

    def __init__(self, session: Session, bed: TaskBed, workspace: Path):
        self.session = session
        self.bed = bed
        self.workspace = workspace
        self.base = git_in(bed.snapshot, "rev-parse", "HEAD").strip()
        self.setup_log = ""

    def _exec(self, script: str, timeout_s: float) -> Result:
        result = self.session.exec(_sh(script), timeout_s=timeout_s, env=python_env(self.bed.recipe))
        if result.infrastructure_error:
            raise InfrastructureError(f"sandbox failed while running tests: {result.infrastructure_error}")
        return result

    def install(self) -> Result | None:
        """Install the project into the environment (once per session), when the recipe says so."""
        command = install_command(self.bed.recipe)
        if command is None:
            return None
        result = self._exec(command, INSTALL_TIMEOUT_S)
        self.setup_log = scrub(result.stdout + result.stderr, self.workspace)
        return result

    def apply(self, name: str) -> bool:
        """Apply `patches/<name>.diff` to the repository; False when it does not apply (an empty patch applies)."""
        if not (self.workspace / PATCH_DIR / f"{name}.diff").read_text().strip():
            return True
        result = self._exec(f"cd {REPO_DIR} && git apply --whitespace=nowarn ../{PATCH_DIR}/{name}.diff", 60.0)
        return result.exit_code == 0

    def reset_test_files(self, test_patch: str) -> None:
        """Put the files the test patch touches back as they are at the base commit."""
        files = split_files(test_patch)
        existing = [f.old_path for f in files if not f.is_new]
        added = [f.new_path for f in files if f.is_new]
        steps = [f"cd {REPO_DIR}"]
        if existing:
            steps.append(f"git checkout -q {self.base} -- {' '.join(map(shlex.quote, existing))}")
        if added:
            steps.append(f"rm -f {' '.join(map(shlex.quote, added))}")
        self._exec(" && ".join(steps), 60.0)

    def reset(self) -> None:
        """Back to the base commit: tracked files restored, untracked ones removed (install metadata kept)."""
        self._exec(f"cd {REPO_DIR} && git reset -q --hard {self.base} && git clean -fdq -e '*.egg-info'", 60.0)

    def submit(self, test_patch_name: str, test_patch: str, submission: str | None) -> bool:
        """Apply a submission (a patch name; None for the empty patch), then the held-out test patch.

        Returns whether the submission applied; the test patch must apply, or the task itself is broken."""
        applied = submission is None or self.apply(submission)
        if not applied:
            return False
        self.reset_test_files(test_patch)
        if not self.apply(test_patch_name):
            raise BedError("the test patch does not apply to the base commit")
        return True

    def collect_tests(self) -> Result:
        """Collect (not run) the whole test suite with the recipe's runner, with the errors' tracebacks."""
        runner = self.bed.recipe["test_cmd"].removeprefix("python ")
        return self._exec(f"cd {REPO_DIR} && ../{ENV_DIR}/bin/python {runner} --collect-only -q --tb=short",
                          self.bed.timeout_s)

    def run_tests(self) -> SuiteRun:
        """Run the test files of the test patch once and parse the log with the recipe's parser."""
        started = time.perf_counter()
        result = self._exec(suite_command(self.bed.recipe, self.bed.test_files), self.bed.timeout_s)
        log = result.stdout + "\n" + result.stderr
        statuses = LOG_PARSERS[self.bed.recipe["log_parser"]](log) if not result.timed_out else {}
        return SuiteRun(statuses=statuses, exit_code=result.exit_code, seconds=time.perf_counter() - started,
                       log_tail=tail(scrub(log, self.workspace)))


def _link_or_copy(source: str, dest: str) -> None:
    """Hard-link a file (the sandbox copies the workspace in, never writes to it), copying across devices."""
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def stage_workspace(bed: TaskBed, patches: dict[str, str], into: Path) -> Path:
    """Lay out `repo/`, `env/` and `patches/` for a session in a host folder the sandbox copies in."""
    shutil.copytree(bed.snapshot, into / REPO_DIR, symlinks=True, copy_function=_link_or_copy)
    shutil.copytree(bed.env, into / ENV_DIR, symlinks=True, copy_function=_link_or_copy)
    (into / PATCH_DIR).mkdir()
    for name, text in patches.items():
        (into / PATCH_DIR / f"{name}.diff").write_text(text, encoding="utf-8")
    return into


@contextmanager
def grading_session(bed: TaskBed, patches: dict[str, str], label: str = "swe-tests") -> Iterator[GradingSession]:
    """A sandbox session (network off) over a staged test bed, with the project installed."""
    if not bed.snapshot.is_dir() or not bed.env.is_dir():
        raise BedError("the task's snapshot or environment is missing from the SWE cache; rebuild it")
    with tempfile.TemporaryDirectory(prefix="swe-ws-") as tmp:
        workspace = stage_workspace(bed, patches, Path(tmp))
        job = Job(command=(), workspace=workspace, network=False,
                  timeout_s=bed.timeout_s * 12 + INSTALL_TIMEOUT_S, memory_mb=2048, pids=512, label=label)
        with sandbox.session(job) as session:
            live = GradingSession(session, bed, workspace)
            installed = live.install()
            if installed is not None and installed.exit_code != 0:
                raise InstallFailed(live.setup_log)
            yield live


@dataclass(frozen=True)
class Outcomes:
    """The held-out tests run once with the empty patch and `repeats` times with the solution, in one session."""

    empty: SuiteRun
    solution: list[SuiteRun]
    solution_applied: bool
    setup_s: float
    session_s: float

    def summary(self) -> dict[str, Any]:
        """A JSON-ready record of the runs (statuses and exit codes; timings stay out of the task)."""
        return {"empty": self.empty.summary(), "solution": [run.summary() for run in self.solution],
                "solution_applied": self.solution_applied}


def run_empty_and_solution(bed: TaskBed, patch: str, test_patch: str, repeats: int,
                           label: str = "swe-tests") -> Outcomes:
    """Grade-time runs of one task: the test patch over the base commit, then over the solution, repeated."""
    started = time.perf_counter()
    with grading_session(bed, {"test": test_patch, "solution": patch}, label=label) as live:
        setup_s = time.perf_counter() - started
        live.submit("test", test_patch, None)
        empty = live.run_tests()
        live.reset()
        applied = live.submit("test", test_patch, "solution")
        runs = [live.run_tests() for _ in range(repeats)] if applied else []
    return Outcomes(empty=empty, solution=runs, solution_applied=applied, setup_s=setup_s,
                    session_s=time.perf_counter() - started)
