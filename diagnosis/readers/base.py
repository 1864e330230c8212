"""What every trace reader provides, and the helpers they share."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from json.encoder import encode_basestring_ascii
from typing import Any, Callable, Iterator, NamedTuple, Protocol

import orjson

from taskforge.schemas import Episode, InputError

HEAD_BYTES = 64 * 1024
TAIL_BYTES = 1024
_DECODER = json.JSONDecoder()


class Cut:
    """Stands for a JSON value that runs past the head of a file (its key was seen, its value not read)."""

    def __repr__(self) -> str:
        """Shown as CUT in debugging output."""
        return "CUT"


CUT = Cut()
NOT_ONE_DOCUMENT = object()
"""Stands for a file that is not one JSON document read whole from its head."""


@dataclass(frozen=True)
class SourceFile:
    """A trace file and the name it is recorded under (relative to the input root, never absolute)."""

    path: Path
    name: str

    def head(self) -> bytes:
        """The first bytes of the file, enough to recognise its format (read once: every reader's sniff asks)."""
        return self._head

    @cached_property
    def _head(self) -> bytes:
        with open(self.path, "rb") as handle:
            return handle.read(HEAD_BYTES)

    def content(self) -> bytes:
        """The whole file: the head already read when it held all of it, else read now."""
        head = self.head()
        if len(head) < HEAD_BYTES:
            return head
        return self.path.read_bytes()

    @cached_property
    def parsed_head(self) -> dict[str, Any] | list[Any] | None:
        """The first JSON value of the head (see `json_head`), parsed once for every reader's sniff: the whole
        document when the head held all of it."""
        whole = self.whole_document
        if isinstance(whole, (dict, list)):
            return whole
        return json_head(self.head())

    @cached_property
    def whole_document(self) -> Any:
        """The file parsed as one JSON document when the head held all of it (`NOT_ONE_DOCUMENT` when it did not,
        or the bytes are not one JSON document, e.g. JSON lines): a small file is parsed once, for the sniff and
        the read alike."""
        head = self.head()
        if len(head) >= HEAD_BYTES:
            return NOT_ONE_DOCUMENT
        try:
            return orjson.loads(head)
        except orjson.JSONDecodeError:
            return NOT_ONE_DOCUMENT

    def forget(self) -> None:
        """Drop what was read and parsed from the file (its head, its parsed document): a list of sources read one
        after the other then holds no file's content once it has been read. Asked again, they are read again."""
        for name in ("_head", "parsed_head", "whole_document"):
            self.__dict__.pop(name, None)

    def tail(self) -> bytes:
        """The last bytes of the file (formats that write their marker at the end): from the head when it held the
        whole file."""
        head = self.head()
        if len(head) < HEAD_BYTES:
            return head[-TAIL_BYTES:]
        with open(self.path, "rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(handle.tell() - TAIL_BYTES, 0))
            return handle.read()


class Reader(Protocol):
    """A module that recognises one trace format by content and reads it into episodes."""

    FORMAT: str

    def sniff(self, source: SourceFile) -> bool: ...

    def read(self, source: SourceFile) -> Iterator[Episode | InputError]: ...


def json_head(head: bytes) -> dict[str, Any] | list[Any] | None:
    """The first JSON value in a head of bytes, parsed as far as the head goes.

    An object keeps the members that fit (a member whose value is cut off maps to
    CUT), a list keeps the items that fit; anything else (or no JSON) gives None.
    Works for a JSON document and for the first line of a JSON-lines file alike.
    """
    text = head.decode("utf-8", errors="ignore")
    start = _skip_space(text, 0)
    if text[start:start + 1] == "{":
        return _members(text, start + 1)
    if text[start:start + 1] == "[":
        return _items(text, start + 1)
    return None


def _skip_space(text: str, at: int) -> int:
    """The index of the first non-blank character at or after `at`."""
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _members(text: str, at: int) -> dict[str, Any]:
    """The members of a JSON object from `at` (just past its `{`) as far as the text goes."""
    members: dict[str, Any] = {}
    while True:
        at = _skip_space(text, at)
        if text[at:at + 1] != '"':
            return members
        try:
            key, at = _DECODER.raw_decode(text, at)
        except json.JSONDecodeError:
            return members
        at = _skip_space(text, at)
        if text[at:at + 1] != ":":
            return members
        try:
            members[key], at = _DECODER.raw_decode(text, _skip_space(text, at + 1))
        except json.JSONDecodeError:
            members[key] = CUT
            return members
        at = _skip_space(text, at)
        if text[at:at + 1] != ",":
            return members
        at += 1


def _items(text: str, at: int) -> list[Any]:
    """The items of a JSON array from `at` (just past its `[`) as far as the text goes."""
    items: list[Any] = []
    while True:
        at = _skip_space(text, at)
        try:
            item, at = _DECODER.raw_decode(text, at)
        except json.JSONDecodeError:
            return items
        items.append(item)
        at = _skip_space(text, at)
        if text[at:at + 1] != ",":
            return items
        at += 1


class JsonDocument(NamedTuple):
    """A parsed JSON file and the digest of its bytes (a stable id for one-episode-per-file formats)."""

    data: Any
    digest: str


def load_json(source: SourceFile) -> JsonDocument:
    """A whole JSON document; a broken one raises an InputError naming the file and the problem."""
    raw = source.content()
    try:
        data = source.whole_document if source.whole_document is not NOT_ONE_DOCUMENT else orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(source.name, f"not valid JSON ({_reason(exc)}); truncated or corrupt file") from exc
    return JsonDocument(data, hashlib.sha256(raw).hexdigest()[:12])


def iter_jsonl(source: SourceFile, parse: Callable[[dict, int], Episode]) -> Iterator[Episode | InputError]:
    """Parse each JSON line; a broken line yields an InputError naming file and line, the rest goes on."""
    for number, raw in enumerate(_lines(source), start=1):
        if not raw.strip():
            continue
        where = f"{source.name}:{number}"
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            yield InputError(where, f"not valid JSON ({_reason(exc)}); truncated or corrupt line")
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


def _lines(source: SourceFile) -> Iterator[bytes]:
    """A file's lines: from memory when the head held all of it, else streamed from disk."""
    head = source.head()
    if len(head) < HEAD_BYTES:
        yield from head.splitlines()
        return
    with open(source.path, "rb") as handle:
        yield from handle


def _reason(error: orjson.JSONDecodeError) -> str:
    """The parser's complaint without the position details orjson appends."""
    return str(error).split(": line ", 1)[0]


RawToolCall = dict[str, str]
"""A tool call's fields (`id`, `name`, `arguments`), validated as a `ToolCall` with its episode in one call."""


def command_call(tool: str, command: str, call_id: str) -> RawToolCall:
    """A tool call for a shell-style command; text-based agents get their command as `{"command": ...}` (the text
    `json.dumps` writes for that object, without building it)."""
    return {"id": call_id, "name": tool, "arguments": f'{{"command": {encode_basestring_ascii(command)}}}'}


def openai_tool_calls(calls: list[dict[str, Any]] | None) -> list[RawToolCall]:
    """Tool calls in the OpenAI chat format (`{"id", "function": {"name", "arguments"}}`)."""
    if not calls:
        return []
    return [{"id": str(call.get("id", "")), "name": (function := call["function"])["name"],
             "arguments": json_arguments(function.get("arguments", "{}"))} for call in calls]


def json_arguments(arguments: Any) -> str:
    """Tool-call arguments as the JSON string the model emitted (objects are serialised with sorted keys)."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)


def segments_from_starts(starts: list[int], n_steps: int,
                         summaries: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """Segments' fields from the first step of each context window (0 first); a compacted history has several
    (validated as `Segment`s with their episode)."""
    bounds = sorted(set([0, *starts]))
    ends = [b - 1 for b in bounds[1:]] + [max(n_steps - 1, 0)]
    return [{"index": i, "start_step": start, "end_step": end, "summary": (summaries or {}).get(start)}
            for i, (start, end) in enumerate(zip(bounds, ends))]


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
