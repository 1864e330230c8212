"""Derive per-environment images: wheels downloaded on the host, installed offline into /opt/venv of a container.

The container never has a network: `pip download` runs on the host (which
trusts its proxy's CA), the wheelhouse is copied in, and `pip install --no-index`
installs from it. The image is tagged with a hash of the recipe and of the base
image's id, so it is rebuilt when either changes and never otherwise.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import docker
from docker.errors import ImageNotFound

from taskforge.sandbox.api import Job
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.images.build import ImageBuild, ImageBuildError, image_present, run_step
from taskforge.sandbox.images.recipe import VENV, PythonEnvRecipe

WHEELHOUSE = "/tmp/wheels"
INSTALL_TIMEOUT_S = 1800.0


def download_wheels(requirements: tuple[str, ...], wheelhouse: Path, log_file: Path) -> None:
    """`pip download` the requirements and their dependencies as wheels (no source builds) into `wheelhouse`."""
    run_step("pip download", [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--dest", str(wheelhouse),
                              *requirements], log_file)


def install_commands() -> list[tuple[str, ...]]:
    """The commands run in the build container: make the venv, install every downloaded wheel offline, clean up."""
    return [
        ("python3", "-m", "venv", VENV),
        ("sh", "-c", f"{VENV}/bin/pip install --no-index --no-cache-dir --find-links {WHEELHOUSE} {WHEELHOUSE}/*.whl"),
        ("rm", "-rf", WHEELHOUSE),
    ]


def build_python_env_image(client: docker.DockerClient, recipe: PythonEnvRecipe, work_root: Path | None = None,
                           force: bool = False) -> ImageBuild:
    """Make sure the image for `recipe` exists, building it from host-downloaded wheels if needed."""
    started = time.monotonic()
    try:
        base_id = client.images.get(recipe.base).id
    except ImageNotFound:
        raise ImageBuildError(f"base image {recipe.base} is missing: run `python -m taskforge.sandbox.images base`") from None
    tag = recipe.tag(base_id)
    if not force and image_present(client, tag):
        return ImageBuild(tag=tag, built=False, source="cache", seconds=time.monotonic() - started)
    repository, version = tag.rsplit(":", 1)
    with tempfile.TemporaryDirectory(prefix="taskforge-wheels-", dir=work_root) as work:
        wheelhouse = Path(work) / "wheels"
        download_wheels(recipe.requirements, wheelhouse, Path(work) / "pip-download.log")
        job = Job(command=(), image=recipe.base, timeout_s=INSTALL_TIMEOUT_S, memory_mb=4096, pids=1024,
                  label=f"image-{recipe.name}")
        with DockerSandbox(client=client, reason="building an environment image").session(job) as session:
            session.put(wheelhouse, WHEELHOUSE)
            for command in install_commands():
                result = session.exec(command)
                if not result.ok:
                    raise ImageBuildError(f"image {recipe.name}: {' '.join(command)} failed: "
                                          f"{(result.infrastructure_error or result.stderr)[-2000:]}")
            session.commit(repository, version, recipe.changes())
    return ImageBuild(tag=tag, built=True, source="wheels", seconds=time.monotonic() - started)
