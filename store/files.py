"""Atomic file writes: content goes to a temporary name in the same folder, then is renamed.

Locations may be local paths or fsspec URLs (`taskforge.schemas.locations`): locally the
temporary file is fsynced and renamed; on an object store it is uploaded whole,
then moved onto the final key, so the final object only ever appears complete.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from taskforge.schemas.locations import Location, files_under, is_url, join, name_of, open_file, remove, replace
from taskforge.store.crashpoints import crash_point


TEMP_SUFFIX = ".tmp"


@contextmanager
def atomic_path(final: Path, crash_at: str | None = None, durable: bool = True) -> Iterator[Path]:
    """Yield a temporary local path beside `final`; on success it is fsynced and renamed onto `final`.

    `crash_at` names a crash point reached after the content is written and
    before the rename (the moment a crash would leave a partial file).
    `durable=False` skips the fsync (milliseconds per file on a busy disk): for
    files whose loss in a machine crash costs only a redo, whose readers take an
    empty or cut file for a missing one. Other processes still see the whole file
    or none.
    """
    with _temporary_beside(final, crash_at, durable) as (fd, tmp):
        os.close(fd)
        yield tmp


@contextmanager
def _temporary_beside(final: Path, crash_at: str | None, durable: bool) -> Iterator[tuple[int, Path]]:
    """A new temporary file beside `final`, open (its descriptor) and named, handled as `atomic_path` says."""
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=TEMP_SUFFIX, dir=final.parent)
    tmp = Path(tmp_name)
    try:
        yield fd, tmp
        if durable:
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
        if crash_at:
            crash_point(crash_at)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def atomic_open(final: Location, crash_at: str | None = None, durable: bool = True) -> Iterator[IO[bytes]]:
    """A binary file to write `final` through, local or remote; it takes `final`'s place only when complete.

    `crash_at` is reached after the content is written and before the rename, and `durable` means what it
    means for `atomic_path`. A local file is written through the temporary file's own descriptor: opening it
    again to write (truncating) makes ext4 start writing it back at close, twice the time of a small file.
    """
    if not is_url(final):
        with _temporary_beside(Path(final), crash_at, durable) as (fd, _), os.fdopen(fd, "wb") as handle:
            yield handle
        return
    folder, name = os.fspath(final).rstrip("/").rsplit("/", 1)
    tmp = join(folder, f".{name}.{uuid.uuid4().hex}{TEMP_SUFFIX}")
    moved = False
    try:
        with open_file(tmp, "wb") as handle:
            yield handle
        if crash_at:
            crash_point(crash_at)
        replace(tmp, final)
        moved = True
    finally:
        if not moved:
            remove(tmp)


def write_text_atomic(final: Location, text: str, crash_at: str | None = None) -> None:
    """Write a text file so that readers see the old or the new content, never a part."""
    with atomic_open(final, crash_at) as handle:
        handle.write(text.encode("utf-8"))


def sweep_temporaries(root: Location) -> int:
    """Delete temporary files a crashed writer left under `root`; returns how many.

    Only the single writer of a data dir may call this (the flow, at start).
    """
    removed = 0
    for path in files_under(root, TEMP_SUFFIX):
        if name_of(path).startswith("."):
            remove(path)
            removed += 1
    return removed


def sha256_file(path: Location) -> str:
    """The hex sha256 of a file's bytes."""
    with open_file(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
