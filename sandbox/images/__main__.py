"""`python -m taskforge.sandbox.images base|env|python …`: build the sandbox images on this machine (skipped when
cached)."""

from __future__ import annotations

import argparse
import logging
import sys

import docker
from docker.errors import DockerException

from taskforge.sandbox.api import BASE_IMAGE
from taskforge.sandbox.images.base import DEFAULT_MIRROR, build_base_image
from taskforge.sandbox.images.build import ImageBuild
from taskforge.sandbox.images.env import build_python_env_image
from taskforge.sandbox.images.pythons import INTERPRETERS, build_interpreter_image
from taskforge.sandbox.images.recipe import PYTHON_ENVS, PythonEnvRecipe
from taskforge.schemas.errors import InfrastructureError


def parser() -> argparse.ArgumentParser:
    """The command line: `base` for the Debian base image, `env` for a derived Python environment, `python` for
    the image of an older or newer CPython that old commits of a repository need."""
    cli = argparse.ArgumentParser(prog="python -m taskforge.sandbox.images", description=__doc__)
    commands = cli.add_subparsers(dest="command", required=True)
    base = commands.add_parser("base", help=f"build {BASE_IMAGE} (pull where a registry answers, else debootstrap)")
    base.add_argument("--mirror", default=DEFAULT_MIRROR, help="Debian mirror for debootstrap")
    base.add_argument("--force", action="store_true", help="rebuild even when the recipe's image is present")
    env = commands.add_parser("env", help="derive a Python environment image from wheels downloaded on this host")
    env.add_argument("name", help=f"a known environment ({', '.join(PYTHON_ENVS)}) or a new name with requirements")
    env.add_argument("requirements", nargs="*", help="pip requirements (pinned versions keep the cache honest)")
    env.add_argument("--base", default=BASE_IMAGE, help="image to derive from")
    env.add_argument("--force", action="store_true", help="rebuild even when the recipe's image is present")
    python = commands.add_parser("python", help="bootstrap the image of one CPython from its distribution's archive")
    python.add_argument("version", choices=sorted(INTERPRETERS, key=lambda v: tuple(map(int, v.split(".")))))
    return cli


def env_recipe(name: str, requirements: list[str], base: str) -> PythonEnvRecipe:
    """The recipe named on the command line: given requirements, or a known environment."""
    if requirements:
        return PythonEnvRecipe(name=name, requirements=tuple(requirements), base=base)
    if name not in PYTHON_ENVS:
        known = ", ".join(sorted(PYTHON_ENVS))
        raise InfrastructureError(f"unknown environment {name!r}: give its requirements, or one of {known}")
    return PythonEnvRecipe(name=name, requirements=PYTHON_ENVS[name].requirements, base=base)


def describe(outcome: ImageBuild) -> str:
    """One line saying which image is ready and whether it was built now."""
    if outcome.built:
        return f"{outcome.tag}: built ({outcome.source}) in {outcome.seconds:.0f} s"
    return f"{outcome.tag}: present, build skipped"


def main(argv: list[str] | None = None) -> int:
    """Build the requested image; print its tag, or one line with the cause and exit 1."""
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        client = docker.from_env()
        if args.command == "base":
            outcome = build_base_image(client, mirror=args.mirror, force=args.force)
        elif args.command == "python":
            outcome = build_interpreter_image(client, INTERPRETERS[args.version])
        else:
            outcome = build_python_env_image(client, env_recipe(args.name, args.requirements, args.base),
                                             force=args.force)
    except (InfrastructureError, DockerException) as error:
        print(f"taskforge.sandbox.images: error: {error}", file=sys.stderr)
        return 1
    print(describe(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
