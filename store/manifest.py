"""The shard manifest: every shard file with its row count and sha256, rewritten atomically."""

from __future__ import annotations

import json
from typing import Iterable

from taskforge.schemas import SCHEMA_VERSION
from taskforge.schemas.locations import Location, exists, join, read_text
from taskforge.store.files import sha256_file, write_text_atomic
from taskforge.store.shards import ShardFile

MANIFEST_NAME = "manifest.json"


def write_manifest(root: Location, shards: Iterable[ShardFile]) -> Location:
    """Write `root/manifest.json` (local or an fsspec URL) listing the given shards, sorted by path."""
    files = sorted(shards, key=lambda s: s.path)
    body = {
        "schema_version": SCHEMA_VERSION,
        "total_rows": sum(s.rows for s in files),
        "files": [vars(s) for s in files],
    }
    path = join(root, MANIFEST_NAME)
    write_text_atomic(path, json.dumps(body, indent=2, sort_keys=True) + "\n", crash_at="manifest_write")
    return path


def verify_manifest(root: Location) -> list[str]:
    """Problems found when checking every listed shard against its recorded size and sha256."""
    body = json.loads(read_text(join(root, MANIFEST_NAME)))
    problems = []
    for entry in body["files"]:
        shard = join(root, entry["path"])
        if not exists(shard):
            problems.append(f"{entry['path']}: listed in the manifest but missing")
        elif sha256_file(shard) != entry["sha256"]:
            problems.append(f"{entry['path']}: sha256 differs from the manifest")
    return problems
