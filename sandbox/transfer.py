"""Moving files in and out of a sandbox as tar archives, never trusting what comes out."""

from __future__ import annotations

import os
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import IO, Iterable

from taskforge.sandbox.api import WORKSPACE, Session


def pack(source: Path, arcname: str, owner: int, temp_root: Path | None = None) -> IO[bytes]:
    """A temporary (unnamed) tar file holding `source`, a file or folder, under `arcname`, owned by uid `owner`.

    Symlinks stay links; they are resolved on the receiving side, inside the sandbox.
    """

    def owned(member: tarfile.TarInfo) -> tarfile.TarInfo:
        member.uid = member.gid = owner
        member.uname = member.gname = ""
        return member

    spool = tempfile.TemporaryFile(dir=temp_root)
    with tarfile.open(fileobj=spool, mode="w") as tar:
        tar.add(source, arcname=arcname, filter=owned)
    spool.seek(0)
    return spool


def spool_chunks(chunks: Iterable[bytes], temp_root: Path | None = None) -> IO[bytes]:
    """A temporary (unnamed) file holding a stream of byte chunks, rewound for reading."""
    spool = tempfile.TemporaryFile(dir=temp_root)
    for chunk in chunks:
        spool.write(chunk)
    spool.seek(0)
    return spool


def _plain_member(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """Keep regular files and folders that land inside `dest`; drop links, devices and escapes."""
    if not (member.isreg() or member.isdir()):
        return None
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def extract_into_sandbox(archive: IO[bytes], dest: Path) -> None:
    """Unpack a trusted archive into a sandbox folder without following links the job may have planted there."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=archive, mode="r") as tar:
        tar.extractall(dest, filter="tar")


def extract_plain(archive: IO[bytes], dest: Path) -> int:
    """Unpack an archive from a sandbox into `dest`: regular files and folders only, nothing outside `dest`.

    Returns how many members were unpacked (0: the archive held only links or devices).
    """
    kept: list[str] = []

    def plain(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        member = _plain_member(member, path)
        if member is not None:
            kept.append(member.name)
        return member

    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=archive, mode="r") as tar:
        tar.extractall(dest, filter=plain)
    return len(kept)


def relative_inside(path: str, root: str) -> PurePosixPath:
    """`path` (absolute under `root`, or relative to it) as a clean relative path; ValueError if it leaves `root`."""
    pure = PurePosixPath(path)
    if pure.is_absolute():
        try:
            pure = pure.relative_to(root)
        except ValueError:
            raise ValueError(f"{path} is outside {root}") from None
    normal = PurePosixPath(os.path.normpath(str(pure)))
    if normal.parts[:1] == ("..",) or normal.is_absolute():
        raise ValueError(f"{path} leaves {root}")
    return normal


def resolve_inside(root: Path, relative: PurePosixPath) -> Path:
    """The host path of `relative` under `root`, refusing any symlink that points outside `root`."""
    real_root = os.path.realpath(root)
    target = os.path.realpath(root / relative)
    if target != real_root and not target.startswith(real_root + os.sep):
        raise ValueError(f"{relative} resolves outside the workspace")
    return Path(target)


def collect_outputs(session: Session, paths: Iterable[str], dest: Path) -> list[str]:
    """Copy each workspace path out of a session into `dest` at the same relative place; return those not found."""
    missing = []
    for path in paths:
        try:
            relative = relative_inside(path, WORKSPACE)
            session.get(str(relative), dest / relative.parent)
        except (FileNotFoundError, ValueError):
            missing.append(path)
    return missing
