"""One environment per repository version: built once, repaired by rules, reused by every task of the version.

An attempt has three stages: `download` (wheels only, on the host, with the
network: no repository code runs), `install` (a virtual environment built from
those wheels inside the sandbox, network off) and `smoke` (in a test session:
the project installed as tasks will install it, the whole suite collected).
A failed stage's log goes to the repair rules; the loop stops after
`MAX_ATTEMPTS` or when no rule applies, and the failure is recorded with its
log tail, so a repository that will not build is never retried for the same
recipe rules (a repair that leads back to a recipe already tried ends the loop too).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taskforge import sandbox
from taskforge.sandbox.filelock import locked
from taskforge.builders.swe.recipe import Recipe
from taskforge.builders.swe.repair import repair
from taskforge.graders.swe.harness import (ENV_DIR, SANDBOX_PYTHON, BedError, TaskBed, cache_root, grading_session,
                                 python_env, scrub, tail)
from taskforge.sandbox import Job
from taskforge.schemas import InfrastructureError, TaskforgeError, content_id

MAX_ATTEMPTS = 4
RULES_VERSION = "1"
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


def download_wheels(recipe: Recipe, python: str, wheelhouse: Path) -> None:
    """Download wheels (never sdists: nothing is built or run on the host) for the recipe's packages."""
    wheelhouse.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--python-version", python,
             "--dest", str(wheelhouse), *recipe.packages, *recipe.build_requires],
            capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise InfrastructureError(f"downloading wheels took over {DOWNLOAD_TIMEOUT_S} s (is the index reachable?)")
    if done.returncode != 0:
        raise StageFailed("download", done.stdout + done.stderr)


def install_environment(recipe: Recipe, wheelhouse: Path, out: Path) -> None:
    """Build `out/env` from the wheelhouse inside the sandbox, network off."""
    requirements = " ".join(f"'{r}'" for r in (*recipe.packages, *recipe.build_requires))
    script = (f"{SANDBOX_PYTHON} -m venv --without-pip --copies {ENV_DIR} && {SANDBOX_PYTHON} -m pip --python "
              f"{ENV_DIR}/bin/python install -q --no-index --find-links wheelhouse {' '.join(recipe.pip_flags)} "
              f"{requirements}")
    with tempfile.TemporaryDirectory(prefix="swe-envbuild-") as tmp:
        shutil.copytree(wheelhouse, Path(tmp) / "wheelhouse")
        result = sandbox.run(Job(command=("sh", "-c", script), workspace=Path(tmp), network=False,
                                 env=python_env(recipe.to_dict()),
                                 timeout_s=INSTALL_TIMEOUT_S, memory_mb=2048, pids=512, collect=(ENV_DIR,),
                                 label="swe-env-install"), collect_to=out)
        if result.infrastructure_error:
            raise InfrastructureError(f"the sandbox failed while building an environment: {result.infrastructure_error}")
        if not result.ok:
            raise StageFailed("install", scrub(result.stdout + result.stderr, Path(tmp)))


def smoke_test(recipe: Recipe, snapshot: Path, env: Path) -> None:
    """Install the project as a task session will, and collect the whole test suite."""
    bed = TaskBed(snapshot=snapshot, env=env, recipe=recipe.to_dict(), test_files=())
    try:
        with grading_session(bed, {}, label="swe-env-smoke") as live:
            result = live.collect_tests()
    except BedError as exc:
        raise StageFailed("install_project", str(exc)) from None
    if result.exit_code not in (0, 5):
        raise StageFailed("smoke", scrub(result.stdout + result.stderr))


def _attempt(recipe: Recipe, python: str, snapshot: Path, folder: Path) -> None:
    shutil.rmtree(folder / ENV_DIR, ignore_errors=True)
    download_wheels(recipe, python, folder / "wheelhouse")
    install_environment(recipe, folder / "wheelhouse", folder)
    smoke_test(recipe, snapshot, folder / ENV_DIR)


def environment_key(repo: str, version: str, setup_commit: str, recipe: Recipe) -> str:
    """The cache key of one version's environment (the detected recipe and the repair rules included)."""
    return content_id({"repo": repo, "version": version, "commit": setup_commit, "recipe": recipe.to_dict(),
                       "rules": RULES_VERSION, "backend": sandbox.default_sandbox().backend,
                       "image": sandbox.BASE_IMAGE}, prefix="env-")


def build_environment(repo: str, version: str, setup_commit: str, detected: Recipe, snapshot: Path) -> EnvironmentRecord:
    """The environment of a repository version: from the cache, or built (with repairs) and recorded."""
    key = environment_key(repo, version, setup_commit, detected)
    folder = cache_root() / "envs" / key
    record_file = folder / "record.json"
    with locked(folder):
        if record_file.exists():
            return EnvironmentRecord(**json.loads(record_file.read_text()))
        folder.mkdir(parents=True, exist_ok=True)
        recipe, attempts, failure, tried = detected, 0, None, {detected}
        python = sandbox_python_version()
        while attempts < MAX_ATTEMPTS:
            attempts += 1
            try:
                _attempt(recipe, python, snapshot, folder)
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
            log_tail=tail(scrub(failure.log)) if failure else "")
        shutil.rmtree(folder / "wheelhouse", ignore_errors=True)
        record_file.write_text(json.dumps(record.to_dict(), indent=1))
        return record
