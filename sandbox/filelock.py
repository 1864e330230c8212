"""Exclusive locks on cache entries (SWE clones and environments, host Python environments), so parallel
workers make each entry once."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def locked(entry: Path) -> Iterator[None]:
    """Hold an exclusive lock for a cache entry (a `<entry>.lock` file beside it) while the block runs."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    with open(entry.with_name(entry.name + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
