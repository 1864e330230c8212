"""One environment per recipe: built once, repaired by rules, reused by every task whose dependency files
give the same recipe (a range of commits over which they do not change), across cycles (the cache key is
the content hash of the recipe, the repair rules, the backend and its image).

An attempt has three stages: `download` (wheels only, on the host, with the
network: no repository code runs), `install` (a virtual environment built from
those wheels inside the sandbox, network off) and `smoke` (in a test session:
the project installed from the setup commit's snapshot, the whole suite
collected; the environment then comes back out of the session with the
project installed, editable at the path every task session uses, so task
sessions install nothing).
A failed stage's log goes to the repair rules; the loop stops after
`MAX_ATTEMPTS` or when no rule applies, and the failure is recorded with its
log tail, so a repository that will not build is never retried for the same
recipe rules (a repair that leads back to a recipe already tried ends the loop too).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docker

from taskforge import sandbox
from taskforge.sandbox.filelock import locked
from taskforge.builders.swe.interpreter import Declared, retry_python
from taskforge.builders.swe.recipe import Recipe
from taskforge.builders.swe.repair import repair
from taskforge.builders.swe.wheels import MAX_ROUNDS, missing_requirements
from taskforge.graders.swe.harness import (ENV_DIR, SANDBOX_PYTHON, BedError, TaskBed, cache_root, grading_session,
                                 python_env, scrub, tail)
from taskforge.sandbox import Job
from taskforge.sandbox.images.pythons import INTERPRETERS, Interpreter, build_interpreter_image
from taskforge.schemas import InfrastructureError, TaskforgeError, content_id

MAX_ATTEMPTS = 4
RULES_VERSION = "2"
DOWNLOAD_TIMEOUT_S = 600
INSTALL_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class EnvironmentRecord:
    """The outcome of building one version's environment: where it is, with which recipe, or why it failed."""

    key: str
    status: str
    recipe: dict[str, Any]
    attempts: int
    python: str
    failed_stage: str | None = None
    log_tail: str = ""
    setup_commit: str = ""
    ready: bool = False
    """Task sessions need install nothing: the project is installed in the environment, or runs from its source."""
    uncollected: list[str] = field(default_factory=list)
    """Test modules that did not collect at the setup commit (tasks running them fail their checks)."""
    image: str = ""
    """The interpreter image its sessions run in ("": the sandbox's own, with the sandbox's Python)."""

    @property
    def ok(self) -> bool:
        """The environment built and passed its smoke test."""
        return self.status == "ok"

    @property
    def env_path(self) -> str:
        """The environment folder relative to the cache root (what tasks store)."""
        return f"envs/{self.key}/{ENV_DIR}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (what `record.json` holds)."""
        return dict(self.__dict__)


class StageFailed(TaskforgeError):
    """One stage of an environment build failed; carries the stage name and the log."""

    def __init__(self, stage: str, log: str):
        self.stage = stage
        self.log = log
        super().__init__(f"{stage} failed")


def sandbox_python_version() -> str:
    """The `major.minor` of the sandbox's Python (wheels are downloaded for it)."""
    result = sandbox.run(Job(command=(SANDBOX_PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"),
                             timeout_s=60.0, label="swe-python-version"))
    if not result.ok:
        raise InfrastructureError(f"the sandbox has no usable {SANDBOX_PYTHON}: "
                                  f"{result.infrastructure_error or result.stderr.strip()[-300:]}")
    return result.stdout.strip()


def download_wheels(recipe: Recipe, python: str, wheelhouse: Path, own_pip: bool = False) -> None:
    """Download wheels (never sdists: nothing is built or run on the host) for the recipe's packages (and pip,
    for an environment with its `own_pip`); for another Python than the host's, then what its markers need
    too (`wheels.missing_requirements`)."""
    wheelhouse.mkdir(parents=True, exist_ok=True)
    requested = [*recipe.packages, *recipe.build_requires, *(["pip"] if own_pip else [])]
    _pip_download(requested, python, wheelhouse)
    if python == "%d.%d" % sys.version_info[:2]:
        return
    for _ in range(MAX_ROUNDS):
        missing = missing_requirements(requested, wheelhouse, python)
        if not missing:
            return
        _pip_download(missing, python, wheelhouse)


def _pip_download(requirements: list[str], python: str, wheelhouse: Path) -> None:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--python-version", python,
             "--dest", str(wheelhouse), *requirements],
            capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise InfrastructureError(f"downloading wheels took over {DOWNLOAD_TIMEOUT_S} s (is the index reachable?)")
    if done.returncode != 0:
        raise StageFailed("download", done.stdout + done.stderr)


def install_script(recipe: Recipe, env: str, wheelhouse: str, interpreter: Interpreter | None = None) -> str:
    """The shell command that makes the virtual environment `env` and installs the recipe's packages into it
    from the wheels in `wheelhouse`, offline: with the sandbox's own pip, or, in an interpreter image (whose
    distribution's pip may predate `--python`), with pip run from its wheel, pip itself installed too."""
    requirements = " ".join(f"'{r}'" for r in (*recipe.packages, *recipe.build_requires))
    if interpreter is None:
        return (f"{SANDBOX_PYTHON} -m venv --without-pip --copies {env} && {SANDBOX_PYTHON} -m pip --python "
                f"{env}/bin/python install -q --no-index --find-links {wheelhouse} {' '.join(recipe.pip_flags)} "
                f"{requirements}")
    return (f"{interpreter.command} -m venv --without-pip --copies {env} && set -- {wheelhouse}/pip-*.whl && "
            f"{env}/bin/python \"$1/pip\" install -q --no-index --find-links {wheelhouse} "
            f"{' '.join(recipe.pip_flags)} pip {requirements}")


def install_environment(recipe: Recipe, wheelhouse: Path, out: Path, interpreter: Interpreter | None = None) -> None:
    """Build `out/env` from the wheelhouse inside the sandbox (in the interpreter's image, if any), network off."""
    script = install_script(recipe, ENV_DIR, "wheelhouse", interpreter)
    with tempfile.TemporaryDirectory(prefix="swe-envbuild-") as tmp:
        shutil.copytree(wheelhouse, Path(tmp) / "wheelhouse")
        result = sandbox.run(Job(command=("sh", "-c", script), workspace=Path(tmp), network=False,
                                 env=python_env(recipe.to_dict()), **image_of(interpreter),
                                 timeout_s=INSTALL_TIMEOUT_S, memory_mb=2048, pids=512, collect=(ENV_DIR,),
                                 label="swe-env-install"), collect_to=out)
        if result.infrastructure_error:
            raise InfrastructureError(f"the sandbox failed while building an environment: {result.infrastructure_error}")
        if not result.ok:
            raise StageFailed("install", scrub(result.stdout + result.stderr, Path(tmp)))


def collection_usable(recipe: Recipe, exit_code: int | None, log: str) -> bool:
    """Whether a collection run leaves a usable environment: it collected cleanly, or it collected tests and
    its errors are none a repair rule knows (a test module reading data the history does not carry, such as
    a missing submodule, breaks only the tasks that run that module)."""
    if exit_code in (0, 5):
        return True
    collected = re.search(r"(\d+) tests? collected", log)
    return bool(collected and int(collected[1]) > 0) and repair(recipe, "smoke", log) is None


def smoke_test(recipe: Recipe, snapshot: Path, folder: Path, interpreter: Interpreter | None = None
               ) -> tuple[bool, list[str]]:
    """Install the project into `folder/env` in a session over the snapshot, collect the whole test suite, and
    bring the environment back with the project installed; returns whether task sessions can use it as it is
    (the project is installed in it, or runs from its source), and the test modules that did not collect."""
    bed = TaskBed(snapshot=snapshot, env=folder / ENV_DIR, recipe=recipe.to_dict(), test_files=(),
                  image=interpreter.tag() if interpreter else "")
    returned = folder / "installed"
    shutil.rmtree(returned, ignore_errors=True)
    try:
        with grading_session(bed, {}, label="swe-env-smoke") as live:
            result = live.collect_tests()
            log = scrub(result.stdout + result.stderr)
            usable = collection_usable(recipe, result.exit_code, log)
            if usable and recipe.install == "editable":
                live.session.get(ENV_DIR, returned)
    except BedError as exc:
        raise StageFailed("install_project", str(exc)) from None
    if not usable:
        raise StageFailed("smoke", log)
    broken = sorted(set(re.findall(r"ERROR collecting (\S+)", log)))
    if not (returned / ENV_DIR).is_dir():
        return recipe.install == "pythonpath", broken
    shutil.rmtree(folder / ENV_DIR)
    (returned / ENV_DIR).rename(folder / ENV_DIR)
    shutil.rmtree(returned)
    return True, broken


def image_of(interpreter: Interpreter | None) -> dict[str, str]:
    """The `Job` arguments running a job in the interpreter's image (none: the sandbox's own)."""
    return {"image": interpreter.tag()} if interpreter else {}


def _attempt(recipe: Recipe, python: str, snapshot: Path, folder: Path,
             interpreter: Interpreter | None) -> tuple[bool, list[str]]:
    shutil.rmtree(folder / ENV_DIR, ignore_errors=True)
    download_wheels(recipe, python, folder / "wheelhouse", own_pip=interpreter is not None)
    install_environment(recipe, folder / "wheelhouse", folder, interpreter)
    return smoke_test(recipe, snapshot, folder, interpreter)


def environment_key(repo: str, recipe: Recipe, interpreter: Interpreter | None = None) -> str:
    """The cache key of one recipe's environment (the repair rules, the backend and its image included: the
    interpreter's image where it has one)."""
    return content_id({"repo": repo, "recipe": recipe.to_dict(), "rules": RULES_VERSION,
                       "backend": sandbox.default_sandbox().backend,
                       "image": interpreter.tag() if interpreter else sandbox.BASE_IMAGE}, prefix="env-")


def build_environment(repo: str, setup_commit: str, detected: Recipe, snapshot: Path,
                      declared: Declared | None = None) -> EnvironmentRecord:
    """The environment of a recipe, from the cache or built at `setup_commit`: on the sandbox's own Python first
    (what every environment was built on before interpreters were chosen, so those stay as they were), then,
    when that fails and the sandbox runs containers, on the Python the commit `declared` (`retry_python`), in
    its interpreter image."""
    record = _environment(repo, setup_commit, detected, snapshot, None)
    if record.ok or declared is None or sandbox.default_sandbox().backend != "docker":
        return record
    chosen = retry_python(declared, INTERPRETERS, record.python)
    if chosen is None:
        return record
    interpreter = INTERPRETERS[chosen]
    build_interpreter_image(docker.from_env(), interpreter)
    return _environment(repo, setup_commit, detected, snapshot, interpreter)


def _environment(repo: str, setup_commit: str, detected: Recipe, snapshot: Path,
                 interpreter: Interpreter | None) -> EnvironmentRecord:
    """One interpreter's environment of a recipe: from the cache, or built (with repairs) and recorded."""
    key = environment_key(repo, detected, interpreter)
    folder = cache_root() / "envs" / key
    record_file = folder / "record.json"
    with locked(folder):
        if record_file.exists():
            return EnvironmentRecord(**json.loads(record_file.read_text()))
        folder.mkdir(parents=True, exist_ok=True)
        recipe, attempts, failure, tried, installed, broken = detected, 0, None, {detected}, False, []
        python = interpreter.version if interpreter else sandbox_python_version()
        while attempts < MAX_ATTEMPTS:
            attempts += 1
            try:
                installed, broken = _attempt(recipe, python, snapshot, folder, interpreter)
                failure = None
                break
            except StageFailed as exc:
                failure = exc
                revised = repair(recipe, exc.stage, exc.log)
                if revised is None or revised.revised(notes=()) in {r.revised(notes=()) for r in tried}:
                    break
                recipe = revised
                tried.add(revised)
        record = EnvironmentRecord(
            key=key, status="ok" if failure is None else "failed", recipe=recipe.to_dict(), attempts=attempts,
            python=python, failed_stage=failure.stage if failure else None,
            log_tail=tail(scrub(failure.log)) if failure else "", setup_commit=setup_commit,
            ready=installed and failure is None, uncollected=broken, image=interpreter.tag() if interpreter else "")
        shutil.rmtree(folder / "wheelhouse", ignore_errors=True)
        record_file.write_text(json.dumps(record.to_dict(), indent=1))
        return record
