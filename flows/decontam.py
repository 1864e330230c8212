"""`taskforge decontam`: register evaluation sets (and earlier releases) in the data dir, and list them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from taskforge.schemas.locations import join
from taskforge.store.files import atomic_open, write_text_atomic
from taskforge.store.layout import DataDir
from taskforge.validators.evalsets import load_registry, read_evalset, registry_dir
from taskforge.validators.near_duplicates import release_signatures, release_signatures_path, release_summaries


def add_evalset(path: Path, data: DataDir, name: str | None = None, version: str = "",
                licence: str = "") -> dict[str, Any]:
    """Register an evaluation set file (replacing a set of the same name, a default one included) with its
    version and licence, or an earlier release folder whose tasks later tasks must not nearly duplicate; every
    later validation, landing and release in this data dir checks tasks against it."""
    if Path(path).is_dir():
        name = name or Path(path).name
        table = release_signatures(Path(path))
        with atomic_open(release_signatures_path(data.root, name)) as handle:
            pq.write_table(table, handle)
        return {"kind": "decontam", "added": {"name": name, "source": Path(path).name, "release_tasks": table.num_rows},
                **list_evalsets(data)}
    evalset = read_evalset(path, name)
    evalset.version, evalset.licence = version, licence
    write_text_atomic(join(registry_dir(data.root), f"{evalset.name}.json"), evalset.to_json())
    return {"kind": "decontam", "added": evalset.summary(), **list_evalsets(data)}


def list_evalsets(data: DataDir) -> dict[str, Any]:
    """The registered sets with their counts, and the registered earlier releases."""
    return {"kind": "decontam", "sets": [s.summary() for s in load_registry(data.root).sets],
            "releases": release_summaries(data.root)}
