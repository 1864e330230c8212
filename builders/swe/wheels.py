"""A wheelhouse complete for another Python than the host's.

`pip download --python-version X` picks wheels that run on X but evaluates environment markers with the host's
Python: a requirement such as `importlib-metadata; python_version < "3.8"` is left out of a wheelhouse for 3.6
downloaded on 3.11, and the offline install fails. The markers of the requested requirements and of every
downloaded wheel's `Requires-Dist` are evaluated here for the target Python, and what is still missing is
downloaded, until nothing is (metadata is read from the wheels: nothing is built or run).
"""

from __future__ import annotations

import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Iterable

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

MAX_ROUNDS = 8


def target_environment(python: str) -> dict[str, str]:
    """The marker environment of CPython `python` (`major.minor`) on this platform."""
    return {**default_environment(), "python_version": python, "python_full_version": f"{python}.0",
            "implementation_version": f"{python}.0"}


def _requirement(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def wheel_requirements(wheel: Path) -> list[str]:
    """The `Requires-Dist` lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        metadata = Parser().parsestr(archive.read(name).decode("utf-8", errors="replace"))
    return metadata.get_all("Requires-Dist") or []


def missing_requirements(requested: Iterable[str], wheelhouse: Path, python: str) -> list[str]:
    """The requirements (without their markers) that apply on `python`, from `requested` and the wheels'
    dependencies, whose distribution has no wheel in `wheelhouse`."""
    environment = {**target_environment(python), "extra": ""}
    present = {canonicalize_name(parse_wheel_filename(wheel.name)[0]) for wheel in wheelhouse.glob("*.whl")}
    lines = [*requested, *(line for wheel in sorted(wheelhouse.glob("*.whl")) for line in wheel_requirements(wheel))]
    missing: dict[str, str] = {}
    for requirement in filter(None, map(_requirement, lines)):
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        if canonicalize_name(requirement.name) not in present:
            requirement.marker = None
            missing.setdefault(canonicalize_name(requirement.name), str(requirement))
    return list(missing.values())
