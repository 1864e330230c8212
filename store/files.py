"""Atomic file writes: content goes to a temporary name in the same folder, then is renamed."""

from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from store.crashpoints import crash_point


TEMP_SUFFIX = ".tmp"


@contextmanager
def atomic_path(final: Path, crash_at: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `final`; on success it is fsynced and renamed onto `final`.

    `crash_at` names a crash point reached after the content is written and
    before the rename (the moment a crash would leave a partial file).
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=TEMP_SUFFIX, dir=final.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        if crash_at:
            crash_point(crash_at)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(final: Path, text: str, crash_at: str | None = None) -> None:
    """Write a text file so that readers see the old or the new content, never a part."""
    with atomic_path(final, crash_at) as tmp:
        tmp.write_text(text, encoding="utf-8")


def sweep_temporaries(root: Path) -> int:
    """Delete temporary files a crashed writer left under `root`; returns how many.

    Only the single writer of a data dir may call this (the flow, at start).
    """
    removed = 0
    for path in Path(root).rglob(f".*{TEMP_SUFFIX}"):
        path.unlink(missing_ok=True)
        removed += 1
    return removed


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
