"""Where data lives: a local path, or an fsspec URL (`s3://bucket/prefix`, `gs://…`) that every worker reaches.

A location is a `Path` or a string. A string with a scheme other than `file://`
is a URL and goes through fsspec; anything else is a local path and keeps the
plain `os` calls (and their speed). `join` keeps that distinction, so a local
data dir still hands out `Path`s. The filesystem of a URL is configured the way
fsspec and its backends configure themselves (for S3: the usual `AWS_*`
variables, e.g. `AWS_ENDPOINT_URL` for a non-AWS endpoint); no credential is
ever part of a location.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator, Union

from fsspec import AbstractFileSystem
from fsspec.core import url_to_fs

Location = Union[str, "os.PathLike[str]"]


def is_url(location: Location) -> bool:
    """Whether a location names a remote (non-local) fsspec filesystem."""
    text = os.fspath(location)
    return "://" in text and not text.startswith(("file://", "local://"))


def normalize(location: Location) -> Path | str:
    """A local location as an absolute `Path`, a URL as given (without a trailing slash)."""
    if is_url(location):
        return os.fspath(location).rstrip("/")
    text = os.fspath(location)
    return Path(text.split("://", 1)[1] if "://" in text else text).resolve()


def join(location: Location, *parts: str) -> Path | str:
    """`location/part/…`: a `Path` for a local location, a URL string for a remote one."""
    if is_url(location):
        return "/".join([os.fspath(location).rstrip("/"), *(p.strip("/") for p in parts)])
    return Path(location).joinpath(*parts)


def name_of(location: Location) -> str:
    """The last component of a location (a file's name)."""
    return os.fspath(location).rstrip("/").rsplit("/", 1)[-1]


def filesystem(location: Location) -> tuple[AbstractFileSystem, str]:
    """The fsspec filesystem of a URL and the path inside it (fsspec caches the filesystem instances)."""
    return url_to_fs(os.fspath(location))


def exists(location: Location) -> bool:
    """Whether a file or folder is there."""
    if not is_url(location):
        return os.path.exists(location)
    fs, path = filesystem(location)
    return fs.exists(path)


def makedirs(location: Location) -> None:
    """Create a folder and its parents (nothing to do on object stores, where folders are prefixes)."""
    if not is_url(location):
        os.makedirs(location, exist_ok=True)
        return
    fs, path = filesystem(location)
    fs.makedirs(path, exist_ok=True)


def open_file(location: Location, mode: str = "rb") -> IO:
    """An open file (binary unless `mode` says text) at a location."""
    if not is_url(location):
        return open(location, mode, encoding="utf-8" if "b" not in mode else None)
    fs, path = filesystem(location)
    return fs.open(path, mode, encoding="utf-8" if "b" not in mode else None)


@contextmanager
def readable(location: Location) -> Iterator[str | IO[bytes]]:
    """What pyarrow should read a location from: the path itself when local (fastest), an open file otherwise."""
    if not is_url(location):
        yield os.fspath(location)
        return
    with open_file(location, "rb") as handle:
        yield handle


def read_text(location: Location) -> str:
    """A whole text file (UTF-8)."""
    with open_file(location, "r") as handle:
        return handle.read()


def size(location: Location) -> int:
    """A file's size in bytes."""
    if not is_url(location):
        return os.stat(location).st_size
    fs, path = filesystem(location)
    return int(fs.size(path))


def change_key(location: Location) -> str:
    """A key that changes whenever the file changes (modification time and size, or the store's own key)."""
    if not is_url(location):
        stat = os.stat(location)
        return f"{stat.st_mtime_ns}:{stat.st_size}"
    fs, path = filesystem(location)
    return fs.ukey(path)


def files_under(folder: Location, suffix: str = "") -> list[Path | str]:
    """Every file below a folder (recursively) whose name ends with `suffix`, sorted; none when it is missing."""
    if not is_url(folder):
        root = Path(folder)
        return sorted(p for p in root.rglob(f"*{suffix}") if p.is_file()) if root.is_dir() else []
    fs, path = filesystem(folder)
    protocol = os.fspath(folder).split("://", 1)[0]
    return sorted(f"{protocol}://{found}" for found in fs.find(path) if found.endswith(suffix))


def replace(source: Location, target: Location) -> None:
    """Move a file onto `target` (an atomic rename locally; copy then delete on object stores, where the
    target object only ever appears whole)."""
    if not is_url(target):
        os.replace(source, target)
        return
    fs, path = filesystem(target)
    fs.mv(filesystem(source)[1], path)


def remove(location: Location) -> None:
    """Delete a file if it is there."""
    if not is_url(location):
        Path(location).unlink(missing_ok=True)
        return
    fs, path = filesystem(location)
    if fs.exists(path):
        fs.rm(path)
