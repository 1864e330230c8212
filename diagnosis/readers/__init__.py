"""Trace readers, one module per format, chosen by the content of each file."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from taskforge.diagnosis.readers import (appworld, chatdev, group_chat, hyperagent, inspect_log, magentic_one, metagpt,
                                        mini_swe_agent, native, openai_messages, openhands, openinference, openmanus,
                                        swe_agent)
from taskforge.diagnosis.readers.base import Reader, SourceFile
from taskforge.schemas import Episode, InputError, Quarantined, UnknownFormatError

READERS: tuple[Reader, ...] = (native, inspect_log, swe_agent, mini_swe_agent, openhands, openinference, appworld,
                               chatdev, magentic_one, openmanus, metagpt, hyperagent, group_chat, openai_messages)
"""Readers in detection order: the first whose `sniff` accepts a file reads it (the most specific first)."""


def discover(paths: Iterable[str | Path]) -> list[SourceFile]:
    """Trace files under the given files or folders, named relative to the folder given."""
    found: list[SourceFile] = []
    for given in map(Path, paths):
        if given.is_dir():
            for path in sorted(p for p in given.rglob("*") if p.is_file() and not p.name.startswith(".")):
                found.append(SourceFile(path=path, name=f"{given.name}/{path.relative_to(given).as_posix()}"))
        elif given.exists():
            found.append(SourceFile(path=given, name=given.name))
        else:
            raise InputError(given.name, "no such file or folder")
    return found


def detect(source: SourceFile) -> Reader:
    """The reader for a file, by content; raises UnknownFormatError naming the file."""
    try:
        if not source.head().strip():
            raise InputError(source.name, "empty file: no trace to read")
    except OSError as exc:
        raise InputError(source.name, f"cannot read ({exc.strerror})") from exc
    for reader in READERS:
        try:
            if reader.sniff(source):
                return reader
        except OSError as exc:
            raise InputError(source.name, f"cannot read ({exc.strerror})") from exc
    raise UnknownFormatError(source.name, f"unknown trace format (tried {', '.join(r.FORMAT for r in READERS)})")


def read_traces(sources: Iterable[SourceFile]) -> Iterator[Episode | Quarantined]:
    """Every episode in the files; unreadable files and records come out as quarantine records. Each file's
    content is let go once it has been read (`SourceFile.forget`)."""
    for source in sources:
        try:
            yield from _read_source(source)
        finally:
            source.forget()


def _read_source(source: SourceFile) -> Iterator[Episode | Quarantined]:
    """Every episode in one file, or the quarantine records of what could not be read."""
    try:
        reader = detect(source)
    except InputError as exc:
        yield Quarantined.from_error(exc, "read", source.name)
        return
    try:
        for item in reader.read(source):
            yield Quarantined.from_error(item, "read", item.source) if isinstance(item, InputError) else item
    except InputError as exc:
        yield Quarantined.from_error(exc, "read", source.name)
    except OSError as exc:
        problem = f"cannot read ({_without_path(exc, source)})"
        yield Quarantined.from_error(InputError(source.name, problem), "read", source.name)
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"does not match the {reader.FORMAT} format ({type(exc).__name__}: {_without_path(exc, source)})"
        yield Quarantined.from_error(InputError(source.name, problem), "read", source.name)


def _without_path(error: Exception, source: SourceFile) -> str:
    """An error message with the file's host path replaced by its recorded name."""
    return str(error).replace(str(source.path), source.name)
