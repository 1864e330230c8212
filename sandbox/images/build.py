"""What every image build shares: the cache check, the outcome record, host commands with a readable failure."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import docker
from docker.errors import ImageNotFound

from taskforge.schemas.errors import InfrastructureError

FAILURE_TAIL_CHARS = 2000


class ImageBuildError(InfrastructureError):
    """An image could not be built (debootstrap, pip download, install in the container…): the sandbox is unusable."""


@dataclass(frozen=True)
class ImageBuild:
    """The outcome of asking for an image: its tag, whether it was built now (False: cached), how, and how long."""

    tag: str
    built: bool
    source: str
    seconds: float


def image_present(client: docker.DockerClient, tag: str) -> bool:
    """Whether the engine already holds an image with this tag."""
    try:
        client.images.get(tag)
    except ImageNotFound:
        return False
    return True


def run_step(what: str, argv: list[str], log_file: Path) -> None:
    """Run a host command of an image build, its output in `log_file`; ImageBuildError with the tail on failure."""
    with log_file.open("wb") as log:
        completed = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   check=False)
    if completed.returncode != 0:
        tail = log_file.read_text(errors="replace")[-FAILURE_TAIL_CHARS:]
        raise ImageBuildError(f"{what} failed (exit {completed.returncode}): {tail}")
