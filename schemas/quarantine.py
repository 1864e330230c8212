"""An input that could not be used, kept with the reason so nothing is dropped silently."""

from __future__ import annotations

import re

from pydantic import Field

from taskforge.schemas.base import JsonDict, Record, content_id
from taskforge.schemas.errors import InfrastructureError


_HOST_DIRS = re.compile(r"(?<![\w.:/~-])/(?:[^\s/:'\"(),]+/)+(?=[^\s/])")
_URL_CREDENTIALS = re.compile(r"(\w+://)[^/\s@]+@")


def without_credentials(text: str) -> str:
    """Text with the user part (`user:token@`) of every URL removed."""
    return _URL_CREDENTIALS.sub(r"\1", text)


def without_host_paths(text: str) -> str:
    """Text with every absolute path cut to its last component and URL credentials removed, so that a reason
    recorded in the catalog names the file without the host's folders or anyone's token."""
    return _HOST_DIRS.sub("", without_credentials(text))


class Quarantined(Record):
    """A trace file, resource or shard that failed, with the stage and a one-line reason."""

    item_id: str
    stage: str
    source: str
    error_type: str
    reason: str
    infrastructure: bool = False
    detail: JsonDict = Field(default_factory=dict)

    @classmethod
    def from_error(cls, error: Exception, stage: str, source: str) -> "Quarantined":
        """A record of `error` at `stage` for `source`; the same source and problem always give the same id."""
        reason = without_host_paths(str(error)) or type(error).__name__
        return cls(
            item_id=content_id({"stage": stage, "source": source, "reason": reason}, prefix="q-"),
            stage=stage, source=source, error_type=type(error).__name__, reason=reason,
            infrastructure=isinstance(error, InfrastructureError),
        )
