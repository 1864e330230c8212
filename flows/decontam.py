"""`taskforge decontam`: register evaluation sets in the data dir, and list them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schemas.locations import join
from store.files import write_text_atomic
from store.layout import DataDir
from validators.evalsets import load_registry, read_evalset, registry_dir


def add_evalset(path: Path, data: DataDir, name: str | None = None) -> dict[str, Any]:
    """Parse an evaluation set file and register it (replacing a set of the same name); every later
    validation in this data dir checks tasks against it."""
    evalset = read_evalset(path, name)
    write_text_atomic(join(registry_dir(data.root), f"{evalset.name}.json"), evalset.to_json())
    return {"kind": "decontam", "added": evalset.summary(), **list_evalsets(data)}


def list_evalsets(data: DataDir) -> dict[str, Any]:
    """The registered sets with their counts."""
    return {"kind": "decontam", "sets": [s.summary() for s in load_registry(data.root).sets]}
