"""Running a SWE task's held-out tests inside the sandbox, one session per task.

A session's workspace holds `repo/` (a copy of the solver's snapshot), `env/`
(the repository version's virtual environment, built once and reused) and
`patches/`. Within the one session the project is installed once, then
submissions are applied and the test files of the test patch are run as
often as needed: the container (or namespace) start is paid once per task.
Applying a submission follows SWE-bench: the submission first, then the test
files are reset to the base commit and the test patch is applied over them,
so a submission cannot change the held-out tests.

The runs of a task (the test patch alone once, with the solution `repeats`
times, then each shortcut patch of `graders.swe.shortcuts` once) are cached
under `runs/` in the SWE cache by the content hash of everything they depend
on (snapshot, environment, recipe, test files, both patches, repeats; the
shortcut patches are a function of the snapshot and the test patch): the
builder's harvest and the validators' re-derivation of FAIL_TO_PASS /
PASS_TO_PASS and of the shortcut scores share one sandbox session, and a later
cycle or `taskforge validate` on the same machine reads the runs instead of
repeating them. A changed patch or test patch is a new key, so it is run again.

A shortcut patch's run only has to say whether the patch resolves the task, so
under pytest it stops at its first failure (`-x`): the tests before it ran as
in the whole run, and when the failing test is one of the lists the runs give,
the patch resolves nothing whatever the other tests do. Otherwise (the first
failure is a test in neither list) the shortcut runs again whole. Such a run is
named in `Outcomes.shortcuts_stopped`; a check grading it against other lists
reruns it whole when what it reached does not decide (`whole_shortcut_run`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import tempfile
import threading
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from taskforge import sandbox
from taskforge.graders.swe.eval_script import python_env
from taskforge.graders.swe.grading import LOG_PARSERS, Harvest, StatusMap, fails_a_listed_test, harvest
from taskforge.graders.swe.safe_git import git_in
from taskforge.graders.swe.patch import split_files
from taskforge.graders.swe.shortcuts import shortcut_patches
from taskforge.sandbox import Job, Result, Session
from taskforge.sandbox.api import WORKSPACE
from taskforge.sandbox.filelock import locked
from taskforge.schemas import InfrastructureError, TaskforgeError, content_id
from taskforge.store.files import write_text_atomic

CACHE_ENV = "TASKFORGE_SWE_CACHE"
SANDBOX_PYTHON = "python3"
"""The sandbox's own Python; its pip installs into the task environments, which carry no pip of their own."""
ENV_DIR, REPO_DIR, PATCH_DIR = "env", "repo", "patches"
INSTALL_TIMEOUT_S = 300.0
LOG_TAIL_CHARS = 2000
SHARED_ENVS = "taskforge-swe-envs"
SUBMISSION_REFUSED, TEST_PATCH_REFUSED = 90, 91
"""Exit codes of the submit command: the submission, or the held-out test patch, did not apply."""
STAGED = "/staged"
"""Where a session sees its staged workspace, bound read-only, to copy it into /workspace."""
COPY_IN_FAILED = 92
"""Exit code of a session's first command when the staged workspace could not be copied in."""
FAILURE_CHARS = 1500
RUNS_VERSION = "6"
"""Bumped when what a cached run records changes."""
_FAILURE_HEADER = re.compile(r"^_+ ([^_\s].*?) _+$")
"""A failure section's header: pytest centres the test's title in underscores, down to one on each side when the
title nearly fills the line (the spaced `_ _ _` between frames is no header: its title would start with `_`)."""
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_IN_WORKSPACE = re.compile(rf"/[^\s'\"()]*/{REPO_DIR}/")
"""An absolute path into the session's copy of the repository: where the session runs, not what the project is."""
COLLECTING = "ERROR collecting "
"""How pytest titles the section of a test file that failed to import: its tests have no status of their own."""


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
    ready: bool = False
    """Sessions install nothing (the project was installed when the environment was built, or runs from its
    source): the environment is bound read-only instead of copied."""
    image: str = ""
    """The interpreter image the environment was built in ("": the sandbox's own); its sessions run there and
    install with the environment's own pip."""

    @classmethod
    def of(cls, payload: dict[str, Any], grader: dict[str, Any], environment: dict[str, Any],
           test_files: tuple[str, ...] | None = None) -> "TaskBed":
        """The test bed a task names (its folders are relative to the cache root); `test_files` replaces the
        grader's list where a check derives it itself."""
        root = cache_root()
        return cls(snapshot=root / environment["snapshot"], env=root / environment["env"],
                   recipe=payload["environment_recipe"],
                   test_files=tuple(grader["test_files"]) if test_files is None else test_files,
                   timeout_s=float(grader.get("timeout_s", 300.0)),
                   ready=bool(environment.get("env_ready", False)), image=environment.get("image", ""))


@dataclass(frozen=True)
class SuiteRun:
    """One run of the held-out tests: statuses by test id, exit code, seconds, and the log's tail."""

    statuses: StatusMap
    exit_code: int | None
    seconds: float
    log_tail: str
    failures: dict[str, str] = field(default_factory=dict)
    """Test id → the short traceback pytest printed for it, and a test file that failed to collect → its error
    (runs asked for them only)."""

    def shown_by(self, test: str) -> str:
        """What a test showed in this run: its traceback, else the error of its file that failed to collect, else
        its status (`missing`: the run never reached it)."""
        return (self.failures.get(test) or self.failures.get(test.split("::", 1)[0])
                or self.statuses.get(test, "missing"))

    def summary(self) -> dict[str, Any]:
        """A JSON-ready record of the run, without timings (a task's content is the same on every build)."""
        return {"statuses": self.statuses, "exit_code": self.exit_code}

    def to_dict(self) -> dict[str, Any]:
        """Everything, for the run cache."""
        return dict(self.__dict__)


def failure_sections(log: str, statuses: StatusMap) -> dict[str, str]:
    """The traceback section of each failed test in a `pytest --tb=short` log, by test id, and of each test file
    that failed to collect, by its path; memory addresses are masked and paths into the session's repository made
    relative, so the same failure reads the same on every run and in every sandbox. A parametrised test whose
    parameters hold spaces has the id the log parser gives it, cut at the first space, as SWE-bench's does."""
    by_header = {test.split("::", 1)[-1].replace("::", "."): test for test in statuses}
    by_header |= {f"{COLLECTING}{path}": path for path in statuses if "::" not in path}
    sections: dict[str, str] = {}
    current: str | None = None
    lines: list[str] = []
    for line in log.splitlines() + ["___ end ___"]:
        header = _FAILURE_HEADER.match(line.strip())
        if header or line.startswith(("====", "FAILED ", "PASSED ", "ERROR ")):
            if current is not None and lines:
                text = _IN_WORKSPACE.sub("", _ADDRESS.sub("0x…", "\n".join(lines).strip()))
                sections[current] = text[:FAILURE_CHARS]
            current, lines = (by_header.get(header[1]) or by_header.get(header[1].split(" ", 1)[0])
                              if header else None), []
            continue
        if current is not None:
            lines.append(line)
    return {test: text for test, text in sections.items() if statuses.get(test) in ("FAILED", "ERROR")}


def _sh(script: str) -> tuple[str, ...]:
    return ("sh", "-c", script)


def install_command(recipe: dict[str, Any], own_pip: bool = False) -> str | None:
    """The in-session command installing the project itself into `env/` (None when it runs from its source),
    with the sandbox's pip, or the environment's `own_pip` (an interpreter image's environment)."""
    if recipe["install"] != "editable":
        return None
    flags = "".join(f" {flag}" for flag in recipe.get("pip_flags", []))
    pip = f"../{ENV_DIR}/bin/python -m pip" if own_pip else f"{SANDBOX_PYTHON} -m pip --python ../{ENV_DIR}/bin/python"
    return f"cd {REPO_DIR} && {pip} install -q --no-index --no-deps --no-build-isolation{flags} -e ."


def stops_at_first_failure(recipe: dict[str, Any]) -> bool:
    """Whether the recipe's runner is pytest, which `-x` stops at its first failing test."""
    return recipe["test_cmd"].startswith("python -m pytest ") and recipe["log_parser"] == "pytest"


def suite_command(recipe: dict[str, Any], test_files: tuple[str, ...], tracebacks: bool = False,
                  first_failure: bool = False) -> str:
    """The command running only the given test files with the recipe's runner, from inside `repo/` (with short
    tracebacks of the failures when asked; stopping at the first failure when asked, pytest only)."""
    runner = (recipe["test_cmd"].removeprefix("python ") + (" --tb=short" if tracebacks else "")
              + (" -x" if first_failure else ""))
    return f"cd {REPO_DIR} && ../{ENV_DIR}/bin/python {runner} {' '.join(map(shlex.quote, test_files))}"


def reset_paths(test_patch: str) -> tuple[list[str], list[str]]:
    """The files `GradingSession.submit` puts back before applying the test patch: those the test patch changes
    or deletes (checked out at the base commit) and those it adds (removed)."""
    files = split_files(test_patch)
    return [f.old_path for f in files if not f.is_new], [f.new_path for f in files if f.is_new]


def resets_whole(test_patch: str, submission: str) -> bool:
    """Whether every file a submission touches is put back by `submit`: the tree it leaves is the empty patch's
    (the test patch over the base commit)."""
    existing, added = reset_paths(test_patch)
    touched = {path for piece in split_files(submission) for path in (piece.old_path, piece.new_path)}
    return touched <= {*existing, *added}


class GradingSession:
    """A live sandbox session over one test bed: install once, then apply patches and run the tests."""

    def __init__(self, session: Session, bed: TaskBed, workspace: Path):
        self.session = session
        self.bed = bed
        self.workspace = workspace
        self.base = git_in(bed.snapshot, "rev-parse", "HEAD").strip()
        self.setup_log = ""
        self._copy_in = copy_in_command(bed)

    def exec(self, script: str, timeout_s: float) -> Result:
        """Run a shell script in /workspace; the first one copies the staged workspace in before it (one sandbox
        command fewer than a copy of its own)."""
        copy, self._copy_in = self._copy_in, ""
        command = f"{copy} || exit {COPY_IN_FAILED}\n{script}" if copy else script
        result = self.session.exec(_sh(command), timeout_s=timeout_s, env=python_env(self.bed.recipe))
        if result.infrastructure_error:
            raise InfrastructureError(f"sandbox failed while running tests: {result.infrastructure_error}")
        if copy and result.exit_code == COPY_IN_FAILED:
            raise InfrastructureError(f"sandbox could not copy the staged workspace in: {tail(result.stderr, 500)}")
        return result

    def install(self) -> Result | None:
        """Install the project into the environment (once per session), when the recipe says so."""
        command = install_command(self.bed.recipe, own_pip=bool(self.bed.image))
        if command is None:
            return None
        result = self.exec(command, INSTALL_TIMEOUT_S)
        self.setup_log = scrub(result.stdout + result.stderr, self.workspace)
        return result

    def _apply_step(self, name: str, code: int) -> str | None:
        """A shell step applying `patches/<name>.diff`, exiting `code` when it does not apply (None: empty)."""
        if not (self.workspace / PATCH_DIR / f"{name}.diff").read_text().strip():
            return None
        return f"{{ git apply --whitespace=nowarn ../{PATCH_DIR}/{name}.diff || exit {code}; }}"

    def _submit_script(self, test_patch_name: str, test_patch: str, submission: str | None, fresh: bool) -> str:
        """The shell command of `submit`: exits `SUBMISSION_REFUSED` or `TEST_PATCH_REFUSED` (or git's code)."""
        existing, added = reset_paths(test_patch)
        steps = [f"cd {REPO_DIR}"]
        if fresh:
            steps.append(f"git reset -q --hard {self.base} && git clean -fdq -e '*.egg-info'")
        steps.append(self._apply_step(submission, SUBMISSION_REFUSED) if submission else None)
        if existing:
            steps.append(f"git checkout -q {self.base} -- {' '.join(map(shlex.quote, existing))}")
        if added:
            steps.append(f"rm -f {' '.join(map(shlex.quote, added))}")
        steps.append(self._apply_step(test_patch_name, TEST_PATCH_REFUSED))
        return " && ".join(step for step in steps if step)

    def submit(self, test_patch_name: str, test_patch: str, submission: str | None, fresh: bool = False) -> bool:
        """Apply a submission (a patch name; None for the empty patch), put the files the test patch touches back
        as they are at the base commit, then apply the held-out test patch — in one sandbox command. `fresh`
        first resets the repository to the base commit (tracked files restored, untracked ones removed, install
        metadata kept).

        Returns whether the submission applied; the test patch must apply, or the task itself is broken."""
        result = self.exec(self._submit_script(test_patch_name, test_patch, submission, fresh), 60.0)
        if result.exit_code == SUBMISSION_REFUSED:
            return False
        if result.exit_code != 0:
            raise BedError("the test patch does not apply to the base commit")
        return True

    def collect_tests(self) -> Result:
        """Collect (not run) the whole test suite with the recipe's runner, with the errors' tracebacks."""
        runner = self.bed.recipe["test_cmd"].removeprefix("python ")
        return self.exec(f"cd {REPO_DIR} && ../{ENV_DIR}/bin/python {runner} --collect-only -q --tb=short",
                          self.bed.timeout_s)

    def run_tests(self, tracebacks: bool = False, first_failure: bool = False, first: str = "") -> SuiteRun:
        """Run the test files of the test patch once and parse the log with the recipe's parser (keeping each
        failure's short traceback when asked; stopping at the first failure when asked); `first` is a shell
        command run before, in the same sandbox command, that ends it when it fails."""
        started = time.perf_counter()
        suite = suite_command(self.bed.recipe, self.bed.test_files, tracebacks, first_failure)
        result = self.exec(f"{first}; {suite}" if first else suite, self.bed.timeout_s)
        log = scrub(result.stdout + "\n" + result.stderr, self.workspace)
        statuses = LOG_PARSERS[self.bed.recipe["log_parser"]](log) if not result.timed_out else {}
        return SuiteRun(statuses=statuses, exit_code=result.exit_code, seconds=time.perf_counter() - started,
                        log_tail=tail(log), failures=failure_sections(log, statuses) if tracebacks else {})

    def try_submission(self, test_patch_name: str, test_patch: str, submission: str,
                       first_failure: bool = False) -> SuiteRun | None:
        """`submit` over a fresh repository, then the held-out tests (stopping at the first failure when asked), in
        one sandbox command; None when the submission does not apply or the test patch no longer applies over
        it (pytest itself never exits `SUBMISSION_REFUSED`)."""
        script = self._submit_script(test_patch_name, test_patch, submission, fresh=True)
        run = self.run_tests(first_failure=first_failure, first=f"( {script} ) || exit {SUBMISSION_REFUSED}")
        return None if run.exit_code == SUBMISSION_REFUSED else run


def _link_or_copy(source: str, dest: str) -> None:
    """Hard-link a file (the sandbox copies the workspace in, never writes to it), copying across devices."""
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def copy_in_command(bed: TaskBed) -> str:
    """The in-session command copying the staged `repo/`, `patches/` (and an environment that is not ready)
    from `STAGED` into /workspace, as a copy into the sandbox would: links kept, modes and times preserved,
    owned by the session's user."""
    folders = " ".join(f"{STAGED}/{name}" for name in (REPO_DIR, PATCH_DIR, *(() if bed.ready else (ENV_DIR,))))
    return f"cp -R -P --preserve=mode,timestamps,links {folders} {WORKSPACE}/"


def stage_workspace(bed: TaskBed, patches: dict[str, str], into: Path) -> Path:
    """Lay out `repo/`, `env/` and `patches/` for a session in a host folder the sandbox binds read-only at
    `STAGED` (readable by every sandbox user) and copies in with its first command (`GradingSession.exec`); a ready
    environment is bound read-only instead of copied (see `grading_session`)."""
    into.chmod(0o755)
    shutil.copytree(bed.snapshot, into / REPO_DIR, symlinks=True, copy_function=_link_or_copy)
    if not bed.ready:
        shutil.copytree(bed.env, into / ENV_DIR, symlinks=True, copy_function=_link_or_copy)
    (into / PATCH_DIR).mkdir()
    for name, text in patches.items():
        (into / PATCH_DIR / f"{name}.diff").write_text(text, encoding="utf-8")
    return into


def shared_env(env: Path) -> Path:
    """A ready environment at a path every sandbox user can read, to bind read-only: a hard-linked copy under the
    temp root, made once per environment (the SWE cache may sit in a home folder that the process backend's
    throwaway uid cannot enter)."""
    target = Path(tempfile.gettempdir()) / SHARED_ENVS / env.parent.name / ENV_DIR
    with locked(target.parent):
        if not target.exists():
            staging = target.with_name(ENV_DIR + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(env, staging, symlinks=True, copy_function=_link_or_copy)
            for folder in [target.parent.parent, target.parent, *(p for p in staging.rglob("*") if p.is_dir()), staging]:
                folder.chmod(0o755)
            staging.rename(target)
    return target


_RELEASING: list[threading.Thread] = []
"""The thread closing the last finished session, if it is still at it."""
_RELEASING_LOCK = threading.Lock()


def release_in_background(stack: ExitStack) -> None:
    """Close a finished session (container removed, staged workspace deleted) in a thread, so the next task does
    not wait for it; the releases started before it are then waited for (so they never pile up), and the
    interpreter waits for the last at exit. Safe from several threads."""
    thread = threading.Thread(target=stack.close, name="swe-session-release")
    with _RELEASING_LOCK:
        earlier, _RELEASING[:] = list(_RELEASING), [thread]
        thread.start()
    for done in earlier:
        done.join()


@contextmanager
def grading_session(bed: TaskBed, patches: dict[str, str], label: str = "swe-tests") -> Iterator[GradingSession]:
    """A sandbox session (network off) over a staged test bed, with the project installed; a session left
    without an error is released in the background (`release_in_background`)."""
    if not bed.snapshot.is_dir() or not bed.env.is_dir():
        raise BedError("the task's snapshot or environment is missing from the SWE cache; rebuild it")
    with ExitStack() as stack:
        staged = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="swe-ws-")))
        workspace = stage_workspace(bed, patches, staged)
        shared = ((str(shared_env(bed.env)), f"{WORKSPACE}/{ENV_DIR}"),) if bed.ready else ()
        image = {"image": bed.image} if bed.image else {}
        job = Job(command=(), network=False, mounts=((str(workspace), STAGED), *shared), **image,
                  timeout_s=bed.timeout_s * 12 + INSTALL_TIMEOUT_S, memory_mb=2048, pids=512, label=label)
        session = stack.enter_context(sandbox.session(job))
        live = GradingSession(session, bed, workspace)
        installed = None if bed.ready else live.install()
        if installed is not None and installed.exit_code != 0:
            raise InstallFailed(live.setup_log)
        yield live
        release_in_background(stack.pop_all())


@dataclass(frozen=True)
class Outcomes:
    """The held-out tests run once with the empty patch, `repeats` times with the solution and once with each
    shortcut patch, in one session."""

    empty: SuiteRun
    solution: list[SuiteRun]
    solution_applied: bool
    setup_s: float
    session_s: float
    shortcuts: dict[str, StatusMap | None] = field(default_factory=dict)
    """Each shortcut patch's test statuses by name (None: the patch did not apply); not part of `summary`."""
    shortcuts_stopped: list[str] = field(default_factory=list)
    """The shortcut runs that stopped at their first failure, a test of the lists the runs give: their statuses
    are those of the tests up to it."""
    cached: bool = False
    """Read from the run cache (no session ran for it in this process)."""

    def summary(self) -> dict[str, Any]:
        """A JSON-ready record of the runs (statuses and exit codes; timings stay out of the task)."""
        return {"empty": self.empty.summary(), "solution": [run.summary() for run in self.solution],
                "solution_applied": self.solution_applied}

    def to_json(self) -> str:
        """Everything but `cached`, for the run cache."""
        return json.dumps({"empty": self.empty.to_dict(), "solution": [run.to_dict() for run in self.solution],
                           "solution_applied": self.solution_applied, "setup_s": self.setup_s,
                           "session_s": self.session_s, "shortcuts": self.shortcuts,
                           "shortcuts_stopped": self.shortcuts_stopped})

    @classmethod
    def from_json(cls, text: str) -> "Outcomes":
        """Outcomes read back from the run cache."""
        data = json.loads(text)
        return cls(empty=SuiteRun(**data["empty"]), solution=[SuiteRun(**run) for run in data["solution"]],
                   solution_applied=data["solution_applied"], setup_s=data["setup_s"], session_s=data["session_s"],
                   shortcuts=data["shortcuts"], shortcuts_stopped=data["shortcuts_stopped"], cached=True)


def run_empty_and_solution(bed: TaskBed, patch: str, test_patch: str, repeats: int,
                           label: str = "swe-tests") -> Outcomes:
    """Grade-time runs of one task: the test patch over the base commit (with the failures' tracebacks), then
    over the solution, repeated, then each shortcut patch once (`shortcut_runs`)."""
    started = time.perf_counter()
    shortcuts = shortcut_patches(bed.snapshot, test_patch)
    with grading_session(bed, {"test": test_patch, "solution": patch, **shortcuts}, label=label) as live:
        setup_s = time.perf_counter() - started
        live.submit("test", test_patch, None)
        empty = live.run_tests(tracebacks=True)
        applied = live.submit("test", test_patch, "solution", fresh=True)
        runs = [live.run_tests() for _ in range(repeats)] if applied else []
        lists = harvest(empty.statuses, [run.statuses for run in runs]) if runs else None
        found, stopped = shortcut_runs(live, test_patch, empty, shortcuts, lists)
    return Outcomes(empty=empty, solution=runs, solution_applied=applied, setup_s=setup_s,
                    session_s=time.perf_counter() - started, shortcuts=found, shortcuts_stopped=stopped)


def shortcut_runs(live: GradingSession, test_patch: str, empty: SuiteRun, shortcuts: dict[str, str],
                  lists: Harvest | None) -> tuple[dict[str, StatusMap | None], list[str]]:
    """Each shortcut patch's test statuses (None: it did not apply, or the test patch no longer applies over it,
    as over a renamed test file), and the names of the runs that stopped at their first failure; a patch
    `submit` puts back whole has the empty run's. A run stops at its first failure when that decides it
    against the `lists` the runs give (FAIL_TO_PASS / PASS_TO_PASS); otherwise it runs whole (a run that timed
    out keeps no statuses, as the whole run, which runs the same tests first, would keep none)."""
    found: dict[str, StatusMap | None] = {}
    stopped: list[str] = []
    early = stops_at_first_failure(live.bed.recipe) and lists is not None
    for name, shortcut in shortcuts.items():
        if resets_whole(test_patch, shortcut):
            found[name] = empty.statuses
            continue
        run = live.try_submission("test", test_patch, name, first_failure=early)
        if lists is not None and early and run is not None and run.exit_code not in (0, None):
            if fails_a_listed_test(run.statuses, lists.fail_to_pass, lists.pass_to_pass):
                stopped.append(name)
            else:
                run = live.try_submission("test", test_patch, name)
        found[name] = None if run is None else run.statuses
    return found, stopped


def whole_shortcut_run(bed: TaskBed, test_patch: str, name: str, label: str = "swe-validate") -> StatusMap | None:
    """A shortcut patch's test statuses from a whole run in a session of its own (None: it did not apply), for a
    check whose lists the stopped run does not decide."""
    shortcut = shortcut_patches(bed.snapshot, test_patch)[name]
    with grading_session(bed, {"test": test_patch, name: shortcut}, label=label) as live:
        run = live.try_submission("test", test_patch, name)
    return None if run is None else run.statuses


def runs_key(bed: TaskBed, patch: str, test_patch: str, repeats: int) -> str:
    """The content hash of everything a task's runs depend on."""
    return content_id({"version": RUNS_VERSION, "snapshot": bed.snapshot.name, "env": bed.env.parent.name,
                       "ready": bed.ready, "recipe": bed.recipe, "test_files": list(bed.test_files),
                       "patch": patch, "test_patch": test_patch, "repeats": repeats}, prefix="runs-")


def cached_runs(bed: TaskBed, patch: str, test_patch: str, repeats: int, label: str = "swe-tests") -> Outcomes:
    """The task's runs from the run cache, or run in one sandbox session and cached."""
    path = cache_root() / "runs" / f"{runs_key(bed, patch, test_patch, repeats)}.json"
    if path.exists():
        return Outcomes.from_json(path.read_text(encoding="utf-8"))
    outcomes = run_empty_and_solution(bed, patch, test_patch, repeats, label)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, outcomes.to_json())
    return outcomes
