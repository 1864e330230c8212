"""Python environments for the process backend: a recipe of `PYTHON_ENVS` as a host virtual environment.

The docker backend runs a recipe as a derived image; the process backend has no
images, so the same recipe becomes a virtual environment of the host's system
Python (the interpreter the sandbox exposes), built once from wheels downloaded
on the host and bound read-only at /opt/venv in every job that names it. The
folder is named by a hash of the recipe and of the interpreter, so it is rebuilt
when either changes and never otherwise; it lives where the sandbox's throwaway
uids can read it (`$TASKFORGE_HOST_ENVS`, default /var/cache/taskforge/envs for
root, else ~/.cache/taskforge/envs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import asdict
from functools import cache
from pathlib import Path

from taskforge.sandbox.filelock import locked
from taskforge.sandbox.images.build import ImageBuildError, run_step
from taskforge.sandbox.images.env import download_wheels
from taskforge.sandbox.images.recipe import RECIPE_FORMAT, PythonEnvRecipe
from taskforge.schemas.base import content_id

SYSTEM_PYTHON = "/usr/bin/python3"
COMPLETE_MARK = ".complete"


def host_envs_root() -> Path:
    """Where host environments are kept."""
    if os.environ.get("TASKFORGE_HOST_ENVS"):
        return Path(os.environ["TASKFORGE_HOST_ENVS"])
    if os.geteuid() == 0:
        return Path("/var/cache/taskforge/envs")
    return Path.home() / ".cache" / "taskforge" / "envs"


@cache
def _interpreter_version() -> str:
    """The system Python's version (asked once per process: every job naming an environment needs it)."""
    done = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version)"], capture_output=True, text=True)
    if done.returncode != 0:
        raise ImageBuildError(f"no system Python at {SYSTEM_PYTHON} for the process backend's environments")
    return done.stdout.strip()


def ensure_host_env(recipe: PythonEnvRecipe) -> Path:
    """The folder of the host environment for `recipe`, built first if it is not there yet."""
    digest = content_id({"format": RECIPE_FORMAT, "python": _interpreter_version(),
                         "requirements": asdict(recipe)["requirements"]})
    root = host_envs_root()
    target = root / f"{recipe.name}-{digest}"
    if (target / COMPLETE_MARK).exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    with locked(target):
        if (target / COMPLETE_MARK).exists():
            return target
        shutil.rmtree(target, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix=f".{recipe.name}-", dir=root) as work:
            build = Path(work) / "venv"
            log = Path(work) / "build.log"
            download_wheels(recipe.requirements, Path(work) / "wheels", log)
            run_step("venv", [SYSTEM_PYTHON, "-m", "venv", str(build)], log)
            wheels = sorted(str(w) for w in (Path(work) / "wheels").glob("*.whl"))
            run_step("pip install", [str(build / "bin" / "python"), "-m", "pip", "install", "--no-index",
                                     "--no-cache-dir", "--find-links", str(Path(work) / "wheels"), *wheels], log)
            (build / COMPLETE_MARK).write_text(digest)
            build.rename(target)
    return target
