"""Release export: a Hugging Face dataset folder built only from the catalog and its shards.

The same catalog and shards always give byte-identical files: rows are sorted by
task id, file names and the card are derived from content, nothing records the time.
Rows stream from the shards (each sorted by task id) through a merge, so memory
holds one output file's rows, not a family.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import dataclass
from itertools import islice
from operator import itemgetter
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from schemas import SCHEMA_VERSION, Task, TaskforgeError, arrow_schema
from schemas.locations import Location, join, normalize, readable
from store.catalog import Catalog
from store.files import atomic_open, sha256_file, write_text_atomic
from store.shards import ShardFile

ROWS_PER_FILE = 5000
ROWS_PER_READ = 256


@dataclass(frozen=True)
class ReleaseResult:
    """The folder written, rows per family, and the checksum of every file."""

    out_dir: Location
    rows: dict[str, int]
    checksums: dict[str, str]


def _shard_rows(shard_root: Location, path: str) -> Iterator[dict[str, Any]]:
    """The rows of one shard in their stored order (the shard writer sorts them by task id)."""
    with readable(join(shard_root, path)) as source:
        for batch in pq.ParquetFile(source).iter_batches(batch_size=ROWS_PER_READ):
            yield from batch.to_pylist()


def _family_rows(shard_root: Location, shard_paths: list[str]) -> Iterator[dict[str, Any]]:
    """Every row of a family's shards in task-id order, merged from the sorted shards one read batch at a time."""
    previous = ""
    for row in heapq.merge(*(_shard_rows(shard_root, path) for path in shard_paths), key=itemgetter("task_id")):
        if row["task_id"] < previous:
            raise TaskforgeError(f"a shard of family {row['family']} is not sorted by task id near {row['task_id']}")
        previous = row["task_id"]
        yield row


def _card(version: str, rows: dict[str, int], sources: dict[str, list[str]]) -> str:
    configs = "\n".join(
        f"- config_name: {family}\n  data_files:\n  - split: train\n    path: data/{family}/*.parquet"
        for family in sorted(rows)
    )
    table = "\n".join(f"| {family} | {rows[family]} | {', '.join(sources[family])} |" for family in sorted(rows))
    return (
        f"---\nconfigs:\n{configs}\nlicense: other\npretty_name: taskforge {version}\n---\n\n"
        f"# taskforge release {version}\n\n"
        "Verified training tasks built by taskforge from diagnosed failures of an agentic model. "
        "Every task passed its family's no-op, reference and leakage checks before landing.\n\n"
        f"Schema version {SCHEMA_VERSION}. One config per task family; load one with "
        "`datasets.load_dataset(<this folder>, \"<family>\")`.\n\n"
        "| family | tasks | builders |\n|---|---|---|\n" + table + "\n"
    )


def export_release(catalog: Catalog, shard_root: Location, version: str, out_dir: Location) -> ReleaseResult:
    """Write `out_dir/data/<family>/train-XXXXX-of-XXXXX.parquet`, `README.md` and `checksums.json`
    (both locations local or fsspec URLs)."""
    out_dir = normalize(out_dir)
    shards = catalog.all_shards()
    if not shards:
        raise TaskforgeError("nothing to release: the catalog lists no shards (run `taskforge cycle` first)")
    by_family: dict[str, list[ShardFile]] = {}
    for shard in shards:
        by_family.setdefault(shard.family, []).append(shard)
    rows: dict[str, int] = {}
    sources: dict[str, list[str]] = {}
    written: list[str] = []
    for family, family_shards in sorted(by_family.items()):
        family_rows = _family_rows(shard_root, sorted(shard.path for shard in family_shards))
        rows[family] = sum(shard.rows for shard in family_shards)
        sources[family] = catalog.builders_of(family)
        parts = max(1, -(-rows[family] // ROWS_PER_FILE))
        for index in range(parts):
            name = f"data/{family}/train-{index:05d}-of-{parts:05d}.parquet"
            table = pa.Table.from_pylist(list(islice(family_rows, ROWS_PER_FILE)), schema=arrow_schema(Task))
            with atomic_open(join(out_dir, name)) as handle:
                pq.write_table(table, handle, compression="zstd")
            written.append(name)
    write_text_atomic(join(out_dir, "README.md"), _card(version, rows, sources))
    written.append("README.md")
    checksums = {name: sha256_file(join(out_dir, name)) for name in sorted(written)}
    write_text_atomic(join(out_dir, "checksums.json"), json.dumps(checksums, indent=2, sort_keys=True) + "\n")
    return ReleaseResult(out_dir=out_dir, rows=rows, checksums=checksums)
