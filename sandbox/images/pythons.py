"""Interpreter images: one CPython per image, bootstrapped from a distribution's signed archive (no registry).

A repository's old commits need the Python of their day (`async` as a name before 3.7, `asyncio.coroutine`
before 3.11). Each `Interpreter` is a distribution release that carries one CPython as its `python3`,
debootstrapped and `docker import`ed like the base image, tagged by its recipe's hash, so it is built once
and kept across cycles. Debian releases come from `deb.debian.org`; Ubuntu's, older or newer than the base
image's Debian, from `archive.ubuntu.com`, checked against Ubuntu's archive keys (`keys/README.md`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import docker

from taskforge.sandbox.images.base import DEFAULT_MIRROR, DEFAULT_RECIPE, build_with_debootstrap
from taskforge.sandbox.images.build import ImageBuild, image_present
from taskforge.sandbox.images.recipe import BaseRecipe

UBUNTU_MIRROR = "http://archive.ubuntu.com/ubuntu"
UBUNTU_KEYRING = Path(__file__).resolve().parent / "keys" / "ubuntu-archive.gpg"
UBUNTU_SCRIPT = "/usr/share/debootstrap/scripts/gutsy"
"""Every Ubuntu suite's debootstrap script (a debootstrap older than the suite does not know its name)."""
UBUNTU_OPTIONS = ("--components=main,universe", f"--keyring={UBUNTU_KEYRING}")


@dataclass(frozen=True)
class Interpreter:
    """A CPython `version` as `command` in the image `recipe` bootstraps from `mirror`."""

    version: str
    recipe: BaseRecipe
    command: str = "python3"
    mirror: str = DEFAULT_MIRROR
    options: tuple[str, ...] = ()
    script: str | None = None

    def tag(self) -> str:
        """The image's tag (the recipe's content hash)."""
        return self.recipe.tag()


def _ubuntu(version: str, suite: str, packages: tuple[str, ...], command: str = "python3") -> Interpreter:
    return Interpreter(version, BaseRecipe(suite=suite, packages=packages), command, UBUNTU_MIRROR, UBUNTU_OPTIONS,
                       UBUNTU_SCRIPT)


INTERPRETERS: dict[str, Interpreter] = {
    "3.6": _ubuntu("3.6", "bionic", ("python3", "python3-venv", "python3-distutils", "git", "ca-certificates")),
    "3.8": _ubuntu("3.8", "focal", ("python3", "python3-venv", "python3-distutils", "git", "ca-certificates")),
    "3.9": Interpreter("3.9", BaseRecipe(suite="bullseye")),
    "3.10": _ubuntu("3.10", "jammy", ("python3", "python3-venv", "git", "ca-certificates")),
    "3.11": Interpreter("3.11", DEFAULT_RECIPE),
    "3.12": _ubuntu("3.12", "noble", ("python3.12", "python3.12-venv", "git", "ca-certificates"), "python3.12"),
    "3.13": Interpreter("3.13", BaseRecipe(suite="trixie")),
}
"""The CPythons an image can be bootstrapped for, by `major.minor` (3.11: the sandbox base image's recipe)."""


def interpreter_of(tag: str) -> Interpreter | None:
    """The interpreter whose image has this tag (None: "" or another image, such as the sandbox's own)."""
    return next((interpreter for interpreter in INTERPRETERS.values() if tag and interpreter.tag() == tag), None)


def build_interpreter_image(client: docker.DockerClient, interpreter: Interpreter,
                            work_root: Path | None = None) -> ImageBuild:
    """Make sure the interpreter's image exists (debootstrapped once; its tag is its recipe's hash)."""
    started = time.monotonic()
    tag = interpreter.tag()
    if image_present(client, tag):
        return ImageBuild(tag=tag, built=False, source="cache", seconds=time.monotonic() - started)
    build_with_debootstrap(client, interpreter.recipe, interpreter.mirror, work_root, interpreter.options,
                           interpreter.script)
    return ImageBuild(tag=tag, built=True, source="debootstrap", seconds=time.monotonic() - started)
