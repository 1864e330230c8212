"""Build the sandbox base image locally: pull a Debian image where a registry answers, else debootstrap + import.

Either way the result is tagged `taskforge/sandbox-base:<recipe hash>` and
`taskforge/sandbox-base:latest`; when the hash tag is already present nothing is built.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import docker
from docker.errors import DockerException

from taskforge.sandbox.api import Job
from taskforge.sandbox.container import DockerSandbox
from taskforge.sandbox.images.build import ImageBuild, ImageBuildError, image_present, run_step
from taskforge.sandbox.images.recipe import BASE_ALIAS, BASE_REPOSITORY, BaseRecipe

log = logging.getLogger(__name__)

DEFAULT_MIRROR = "http://deb.debian.org/debian"
PULL_REPOSITORY = "debian"
INSTALL_TIMEOUT_S = 1800.0
DEFAULT_RECIPE = BaseRecipe()


def registry_answers(client: docker.DockerClient, reference: str) -> bool:
    """Whether the engine can reach a registry that knows `reference` (asks for its manifest, downloads nothing)."""
    try:
        client.api.inspect_distribution(reference)
    except DockerException as error:
        log.info("no registry answers for %s (%s): building from Debian packages", reference, error.__class__.__name__)
        return False
    return True


def trim_rootfs(rootfs: Path, folders: tuple[str, ...]) -> None:
    """Empty the folders a container does not need (package caches, docs), keeping the folders themselves."""
    for folder in folders:
        for entry in (rootfs / folder).glob("*"):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def build_with_debootstrap(client: docker.DockerClient, recipe: BaseRecipe, mirror: str,
                           work_root: Path | None, options: tuple[str, ...] = (), script: str | None = None) -> None:
    """debootstrap the recipe's system into a temporary folder, trim it and `docker import` it under the hash tag.

    `options` and `script` go to debootstrap as they are: another archive's keyring and components, and the
    suite script for a suite this debootstrap does not know (Ubuntu's are all `gutsy`'s)."""
    repository, tag = recipe.tag().rsplit(":", 1)
    with tempfile.TemporaryDirectory(prefix="taskforge-image-", dir=work_root) as work:
        rootfs = Path(work) / "rootfs"
        run_step("debootstrap", ["debootstrap", f"--variant={recipe.variant}", f"--include={','.join(recipe.packages)}",
                                 *options, recipe.suite, str(rootfs), mirror, *([script] if script else [])],
                 Path(work) / "debootstrap.log")
        trim_rootfs(rootfs, recipe.trimmed)
        (rootfs / "workspace").mkdir(exist_ok=True)
        archive = Path(work) / "rootfs.tar"
        run_step("packing the root filesystem", ["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(archive), "."],
                 Path(work) / "tar.log")
        client.api.import_image_from_file(str(archive), repository=repository, tag=tag, changes=list(recipe.changes))


def build_from_pull(client: docker.DockerClient, recipe: BaseRecipe, reference: str) -> None:
    """Pull a Debian image, install the recipe's packages in a container (network on), commit it under the hash tag."""
    client.images.pull(reference)
    repository, tag = recipe.tag().rsplit(":", 1)
    trim = " ".join(f"/{folder}/*" for folder in recipe.trimmed)
    script = (f"apt-get update && apt-get install -y --no-install-recommends {' '.join(recipe.packages)} "
              f"&& rm -rf {trim} && mkdir -p /workspace")
    job = Job(command=(), image=reference, network=True, timeout_s=INSTALL_TIMEOUT_S, memory_mb=2048, pids=1024,
              label="base-image")
    with DockerSandbox(client=client, reason="building the base image").session(job) as session:
        result = session.exec(("sh", "-c", script))
        if not result.ok:
            raise ImageBuildError(f"installing packages into {reference} failed: {result.stderr[-2000:]}")
        session.commit(repository, tag, list(recipe.changes))


def build_base_image(client: docker.DockerClient, recipe: BaseRecipe = DEFAULT_RECIPE, mirror: str = DEFAULT_MIRROR,
                     work_root: Path | None = None, force: bool = False) -> ImageBuild:
    """Make sure the base image for `recipe` exists (building it if needed) and tag it `latest`."""
    started = time.monotonic()
    tag = recipe.tag()
    source = "cache"
    if force or not image_present(client, tag):
        reference = f"{PULL_REPOSITORY}:{recipe.suite}-slim"
        source = "debootstrap"
        if registry_answers(client, reference):
            try:
                build_from_pull(client, recipe, reference)
                source = "pull"
            except (DockerException, ImageBuildError) as error:
                log.warning("building from %s failed (%s): falling back to debootstrap", reference, error)
        if source == "debootstrap":
            log.info("building %s with debootstrap (%s)", tag, asdict(recipe))
            build_with_debootstrap(client, recipe, mirror, work_root)
    client.images.get(tag).tag(BASE_REPOSITORY, BASE_ALIAS)
    return ImageBuild(tag=tag, built=source != "cache", source=source, seconds=time.monotonic() - started)
