"""Structured replies: the schema a role must answer in, how it is asked for, and how a reply is checked.

A reply is always validated against the pydantic model, whatever the server
promised; a reply that fails gets a repair message naming the problem.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any, Callable, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
Check = Callable[[Any], None]
"""An extra rule on a parsed reply beyond its schema; raises ValueError naming what is wrong."""

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?```\s*$", re.S)
_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.S)
MAX_ERROR_CHARS = 2000


@cache
def schema_text(model: type[BaseModel]) -> str:
    """The JSON schema of a reply model as compact, canonical JSON (computed once per model)."""
    return json.dumps(model.model_json_schema(), sort_keys=True, separators=(",", ":"))


def schema_instruction(model: type[BaseModel]) -> str:
    """The system message that states the reply format (sent in every mode, so any server can comply)."""
    schema = schema_text(model)
    return ("Reply with exactly one JSON object and nothing else. It must validate against this JSON schema:\n"
            f"{schema}")


def response_format(model: type[BaseModel], mode: str) -> dict[str, Any] | None:
    """The `response_format` request field for a mode: a JSON schema, plain JSON, or none."""
    if mode == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": model.__name__, "schema": json.loads(schema_text(model)), "strict": False}}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def _json_text(content: str) -> str:
    """The JSON part of a reply: without a leading reasoning block or a markdown code fence."""
    text = _THINK.sub("", content)
    fenced = _FENCE.match(text)
    return fenced.group(1) if fenced else text


def parse_reply(content: str | None, model: type[M], check: Check | None = None) -> M:
    """The reply as a validated model; raises ValueError with a message fit to send back to the model."""
    if not content or not content.strip():
        raise ValueError("the reply was empty; a JSON object was expected")
    try:
        value = model.model_validate_json(_json_text(content))
    except ValidationError as exc:
        raise ValueError(f"the reply does not match the schema: {str(exc)[:MAX_ERROR_CHARS]}") from None
    if check is not None:
        check(value)
    return value


def repair_message(problem: str) -> dict[str, str]:
    """The user turn that sends a validation problem back for another attempt."""
    return {"role": "user",
            "content": f"Your reply was not accepted: {problem}\nReply again with only the corrected JSON object."}
