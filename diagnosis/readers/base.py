"""What every trace reader provides, and the helpers they share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from schemas import Episode, InputError, Segment, Step

HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class SourceFile:
    """A trace file and the name it is recorded under (relative to the input root, never absolute)."""

    path: Path
    name: str

    def head(self) -> bytes:
        with open(self.path, "rb") as handle:
            return handle.read(HEAD_BYTES)


class Reader(Protocol):
    """A module that recognises one trace format by content and reads it into episodes."""

    FORMAT: str

    def sniff(self, source: SourceFile) -> bool: ...

    def read(self, source: SourceFile) -> Iterator[Episode | InputError]: ...


def first_json_line(head: bytes) -> Any:
    """The first non-empty line of a head of bytes parsed as JSON, or None."""
    for line in head.splitlines():
        if line.strip():
            try:
                return json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                return None
    return None


def iter_jsonl(source: SourceFile, parse: Callable[[dict, int], Episode]) -> Iterator[Episode | InputError]:
    """Parse each JSON line; a broken line yields an InputError naming file and line, the rest goes on."""
    with open(source.path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            where = f"{source.name}:{number}"
            try:
                record = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                yield InputError(where, f"not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc}); truncated or corrupt line")
                continue
            if not isinstance(record, dict):
                yield InputError(where, f"expected a JSON object per line, found {type(record).__name__}")
                continue
            try:
                yield parse(record, number)
            except InputError as exc:
                yield InputError(where, exc.problem)
            except (KeyError, TypeError, ValueError) as exc:
                yield InputError(where, f"record does not match the format: {exc}")


def single_segment(steps: list[Step]) -> list[Segment]:
    """One segment spanning all steps (an uncompacted history)."""
    return [Segment(index=0, start_step=0, end_step=max(len(steps) - 1, 0))]


def text_of(content: Any) -> str:
    """Flatten message content (a string or a list of typed parts) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                parts.append(str(part.get("text") or part.get("content") or part.get("reasoning") or ""))
        return "\n".join(p for p in parts if p)
    return str(content)
