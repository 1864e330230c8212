"""An input that could not be used, kept with the reason so nothing is dropped silently."""

from __future__ import annotations

from pydantic import Field

from schemas.base import JsonDict, Record


class Quarantined(Record):
    """A trace file, resource or shard that failed, with the stage and a one-line reason."""

    item_id: str
    stage: str
    source: str
    error_type: str
    reason: str
    infrastructure: bool = False
    detail: JsonDict = Field(default_factory=dict)
