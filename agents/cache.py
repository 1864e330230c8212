"""The replay cache: each request's response on disk under the content address of the request.

The key is the hash of what decides the answer — the role and the request body
(model, messages, response format and schema, sampling parameters) — never the
endpoint, key or headers. Entries are written to a temporary file in the same
folder and renamed into place, so concurrent writers (threads or processes)
never leave a partial entry: a reader sees a whole response or none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taskforge.schemas import content_id
from taskforge.store.files import write_text_atomic


def request_key(role: str, body: dict[str, Any]) -> str:
    """The content address of one request."""
    return content_id({"role": role, "body": body}, prefix="llm-", length=32)


class ReplayCache:
    """Responses by request key, one JSON file each, under `root/<2 hex>/<key>.json`."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        """Where an entry lives (fanned out by two hex digits of its key)."""
        return self.root / key[4:6] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response of a request, or None when it was never answered."""
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))["response"]
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            return None

    def put(self, key: str, body: dict[str, Any], response: dict[str, Any]) -> None:
        """Store a response with the request it answers (atomic: temporary file, then rename)."""
        write_text_atomic(self._path(key), json.dumps({"request": body, "response": response}, sort_keys=True,
                                                      ensure_ascii=False))
