"""Shared building blocks of the record models: the JSON-column marker and content hashing."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict


class JsonColumn:
    """Marks a field stored as a JSON string in Arrow (uneven or deeply nested data)."""


JsonDict = Annotated[dict[str, Any], JsonColumn()]
"""A free-form mapping kept as a JSON string column so every shard keeps one schema."""


class Record(BaseModel):
    """Base of every stored record: strict about unknown fields, hashable to a content id."""

    model_config = ConfigDict(extra="forbid", frozen=False)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
"""The encoder `canonical_json` uses, made once (`json.dumps` with these options builds a new one per call)."""


def canonical_json(value: Any) -> str:
    """Serialise a value the same way every time (sorted keys, no spaces)."""
    return _CANONICAL.encode(value)


def content_id(value: Any, prefix: str = "", length: int = 16) -> str:
    """A short, stable id derived from the canonical JSON of a value."""
    digest = hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:length]
    return f"{prefix}{digest}"
