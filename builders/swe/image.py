"""SWE-bench instance images of SWE tasks, built here from each task's environment recipe (no registry).

Two layers, as SWE-bench builds them:
- the **environment image** of a recipe, `taskforge/swe-env:<content id>`: the sandbox base
  image (or the task's interpreter image) with the recipe's packages installed into `/workspace/env` from wheels downloaded
  on the host (installed offline in the container), first on PATH (login shells too), built
  once per recipe and Python;
- the **instance image** of a task (`graders/swe/eval_script.py` names it and says what it
  holds): the environment image with the task's snapshot (the repository at the base
  commit, nothing after it) in `/workspace/repo`, `/testbed` linking to it, and the project
  installed into the environment as the recipe says.

The base image's Python must be the one the task was validated on (`environment.python`): the sandbox base
image's, or the interpreter image its environment was built in (`environment.image`).
Both are skipped when their tag exists.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import docker

from taskforge.builders.swe.environment import download_wheels, install_script
from taskforge.builders.swe.recipe import Recipe
from taskforge.graders.swe.eval_script import ENV_PATH, REPO_PATH, TESTBED, python_env
from taskforge.graders.swe.harness import SANDBOX_PYTHON, cache_root, install_command
from taskforge.graders.swe.reward import instance_image
from taskforge.sandbox import BASE_IMAGE, Job
from taskforge.sandbox.api import WORKSPACE
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.images.build import ImageBuild, ImageBuildError, image_present
from taskforge.sandbox.images.pythons import interpreter_of
from taskforge.sandbox.images.recipe import CONTAINER_PATH
from taskforge.schemas import Task, content_id

ENV_REPOSITORY = "taskforge/swe-env"
WHEELHOUSE = "/tmp/wheels"
BUILD_TIMEOUT_S = 1800.0
IMAGE_FORMAT = 1
LOGIN_PATH = "/etc/profile.d/taskforge-env.sh"
"""Puts the environment first on PATH in login shells too (`bash -l`, as agents' tools start them), which reset
PATH from /etc/profile."""


def image_changes(workdir: str) -> list[str]:
    """Dockerfile instructions of both layers: the environment first on PATH, `workdir` the working directory
    (`/testbed` of an instance image; the environment image has none yet)."""
    return [f"ENV PATH={ENV_PATH}/bin:{CONTAINER_PATH}", "ENV LANG=C.UTF-8", f"WORKDIR {workdir}", 'CMD ["bash"]']


def _run(session: Any, script: str, what: str, env: tuple[tuple[str, str], ...] = ()) -> str:
    """One build step in the container; ImageBuildError with the output's tail when it fails."""
    result = session.exec(("sh", "-c", script), env=env)
    if not result.ok:
        raise ImageBuildError(f"{what} failed: {(result.infrastructure_error or result.stdout + result.stderr)[-2000:]}")
    return result.stdout


def _base_python(session: Any, command: str) -> str:
    return _run(session, f"{command} -c \"import sys; print('%d.%d' % sys.version_info[:2])\"",
                "reading the base image's Python").strip()


def build_env_image(client: docker.DockerClient, recipe: Recipe, python: str, image: str = "") -> str:
    """The environment image of a recipe (built once) on the sandbox base image, or on the interpreter `image`
    the task's environment was built in; returns its tag."""
    interpreter = interpreter_of(image)
    base = image or BASE_IMAGE
    base_id = client.images.get(base).id
    tag = f"{ENV_REPOSITORY}:{content_id({'format': IMAGE_FORMAT, 'recipe': recipe.to_dict(), 'python': python, 'base': base_id})}"
    if image_present(client, tag):
        return tag
    job = Job(command=(), image=base, timeout_s=BUILD_TIMEOUT_S, memory_mb=4096, pids=1024,
              label="swe-env-image")
    with tempfile.TemporaryDirectory(prefix="swe-env-image-") as work:
        wheelhouse = Path(work) / "wheels"
        download_wheels(recipe, python, wheelhouse, own_pip=interpreter is not None)
        with DockerSandbox(client=client, reason="building a SWE environment image").session(job) as session:
            found = _base_python(session, interpreter.command if interpreter else SANDBOX_PYTHON)
            if found != python:
                raise ImageBuildError(f"the base image {base} has Python {found}; the recipe was validated on "
                                      f"Python {python}")
            session.put(wheelhouse, WHEELHOUSE)
            _run(session, f"{install_script(recipe, ENV_PATH, WHEELHOUSE, interpreter)} && rm -rf {WHEELHOUSE} && "
                          f"echo 'export PATH={ENV_PATH}/bin:$PATH' > {LOGIN_PATH}",
                 "installing the recipe's packages", python_env(recipe.to_dict()))
            repository, version = tag.rsplit(":", 1)
            session.commit(repository, version, image_changes(WORKSPACE))
    return tag


def build_instance_image(task: Task, client: docker.DockerClient | None = None) -> ImageBuild:
    """The instance image of an accepted SWE task (built from its recipe and its snapshot in the SWE cache,
    unless present)."""
    started = time.monotonic()
    client = client or docker.from_env()
    image = instance_image(task.payload, task.environment)
    if image_present(client, image):
        return ImageBuild(tag=image, built=False, source="cache", seconds=time.monotonic() - started)
    recipe = task.payload["environment_recipe"]
    snapshot = cache_root() / task.environment["snapshot"]
    if not snapshot.is_dir():
        raise ImageBuildError(f"{task.payload['instance_id']}: its snapshot is missing from the SWE cache "
                              f"({task.environment['snapshot']}); build the task on this machine first")
    image_of_env = task.environment.get("image", "")
    env_image = build_env_image(client, Recipe.from_dict(recipe), task.environment["python"], image_of_env)
    job = Job(command=(), image=env_image, timeout_s=BUILD_TIMEOUT_S, memory_mb=2048, pids=512,
              label="swe-instance-image")
    with DockerSandbox(client=client, reason="building a SWE instance image").session(job) as session:
        session.put(snapshot, REPO_PATH)
        _run(session, f"ln -s {REPO_PATH} {TESTBED}", "linking the repository")
        install = install_command(recipe, own_pip=bool(image_of_env))
        if install:
            _run(session, install, "installing the project", python_env(recipe))
        repository, version = image.rsplit(":", 1)
        session.commit(repository, version, image_changes(TESTBED))
    return ImageBuild(tag=image, built=True, source="recipe", seconds=time.monotonic() - started)
