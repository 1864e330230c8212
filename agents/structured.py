"""Structured replies: the schema a role must answer in, how it is asked for, and how a reply is read.

The schema is sent with its fields in their declared order (never sorted), so
a constrained decoder writes them in that order: reasoning (`analysis`) before
the checks, the checks before the verdict. A reply is always validated against
the pydantic model, whatever the server promised, and read the way real
models write: a reasoning block or prose before the JSON, the JSON in a
Markdown fence, a number where the schema wants a string (`2024` for
`"2024"`; the number is kept exactly as written). A reply that still fails
gets a repair message naming the problem.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, Callable, Iterator, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
Check = Callable[[Any], None]
"""An extra rule on a parsed reply beyond its schema; raises ValueError naming what is wrong."""

_FENCED = re.compile(r"```[A-Za-z]*[ \t]*\n(.*?)```", re.S)
_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.S)
MAX_ERROR_CHARS = 2000
MAX_OBJECT_STARTS = 64
"""How many `{` positions of a prose reply are tried as the start of its JSON object."""


@cache
def schema_text(model: type[BaseModel]) -> str:
    """The JSON schema of a reply model as compact JSON, fields in declared order (computed once per model)."""
    return json.dumps(model.model_json_schema(), separators=(",", ":"), ensure_ascii=False)


def schema_instruction(model: type[BaseModel]) -> str:
    """The system message that states the reply format (sent in every mode, so any server can comply)."""
    return ("Reply with exactly one JSON object and nothing else, its fields in the order the schema lists them. "
            f"It must validate against this JSON schema:\n{schema_text(model)}")


def response_format(model: type[BaseModel], mode: str) -> dict[str, Any] | None:
    """The `response_format` request field for a mode: a JSON schema, plain JSON, or none."""
    if mode == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": model.__name__, "schema": json.loads(schema_text(model)), "strict": False}}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


class _Number(float):
    """A JSON number with the text it was written as (so `3.10` becomes the string `"3.10"`, not `"3.1"`)."""

    text: str

    def __new__(cls, text: str) -> "_Number":
        number = super().__new__(cls, text)
        number.text = text
        return number


def _objects(content: str) -> Iterator[Any]:
    """The JSON values a reply may hold, most likely first: the whole reply, then its fenced blocks (last first),
    then objects found in its prose (last first)."""
    text = _THINK.sub("", content).strip()
    yield text
    for block in reversed(_FENCED.findall(text)):
        yield block.strip()
    decoder, found, start = json.JSONDecoder(), [], text.find("{")
    for _ in range(MAX_OBJECT_STARTS):
        if start < 0:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        found.append(text[start:end])
        start = text.find("{", end)
    yield from reversed(found)


def _numbers_as_strings(data: Any, error: ValidationError) -> bool:
    """Turn the numbers the schema wanted as strings into the text they were written as; whether any changed."""
    changed = False
    for problem in error.errors():
        if problem["type"] != "string_type":
            continue
        parent = data
        for step in problem["loc"][:-1]:
            parent = parent[step]
        number = parent[problem["loc"][-1]]
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            parent[problem["loc"][-1]] = number.text if isinstance(number, _Number) else str(number)
            changed = True
    return changed


def _validated(text: str, model: type[M]) -> M:
    """`text` as a model, reading numbers as strings where the schema wants strings; raises ValueError when
    `text` is not JSON at all, ValidationError when it is JSON that does not fit."""
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        first = exc
    try:
        data = json.loads(text, parse_float=_Number)
    except ValueError:
        raise ValueError("not JSON") from None
    if not isinstance(data, dict) or not _numbers_as_strings(data, first):
        raise first
    return model.model_validate(data)


def parse_reply(content: str | None, model: type[M], check: Check | None = None) -> M:
    """The reply as a validated model; raises ValueError with a message fit to send back to the model."""
    if not content or not content.strip():
        raise ValueError("the reply was empty; a JSON object was expected")
    mismatch: ValidationError | None = None
    for text in _objects(content):
        try:
            value = _validated(text, model)
        except ValidationError as exc:
            mismatch = mismatch or exc
            continue
        except ValueError:
            continue
        if check is not None:
            check(value)
        return value
    if mismatch is None:
        raise ValueError("the reply holds no JSON object")
    raise ValueError(f"the reply does not match the schema: {str(mismatch)[:MAX_ERROR_CHARS]}")


def repair_message(problem: str) -> dict[str, str]:
    """The user turn that sends a validation problem back for another attempt."""
    return {"role": "user",
            "content": f"Your reply was not accepted: {problem}\nReply again with only the corrected JSON object."}
