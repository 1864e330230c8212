"""Release export: a Hugging Face dataset folder built only from the catalog and its shards.

The same catalog and shards always give byte-identical files: rows are sorted by
task id, file names and the card are derived from content, nothing records the time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from schemas import SCHEMA_VERSION, Task, TaskforgeError, arrow_schema
from store.catalog import Catalog
from store.files import atomic_path, sha256_file, write_text_atomic

ROWS_PER_FILE = 5000


@dataclass(frozen=True)
class ReleaseResult:
    """The folder written, rows per family, and the checksum of every file."""

    out_dir: Path
    rows: dict[str, int]
    checksums: dict[str, str]


def _family_table(shard_root: Path, shard_paths: list[str]) -> pa.Table:
    tables = [pq.read_table(shard_root / path, schema=arrow_schema(Task)) for path in shard_paths]
    table = pa.concat_tables(tables)
    return table.sort_by([("task_id", "ascending")])


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


def export_release(catalog: Catalog, shard_root: Path, version: str, out_dir: Path) -> ReleaseResult:
    """Write `out_dir/data/<family>/train-XXXXX-of-XXXXX.parquet`, `README.md` and `checksums.json`."""
    shards = catalog.all_shards()
    if not shards:
        raise TaskforgeError("nothing to release: the catalog lists no shards (run `taskforge cycle` first)")
    by_family: dict[str, list[str]] = {}
    for shard in shards:
        by_family.setdefault(shard.family, []).append(shard.path)
    rows: dict[str, int] = {}
    sources: dict[str, list[str]] = {}
    written: list[Path] = []
    for family, paths in sorted(by_family.items()):
        table = _family_table(shard_root, sorted(paths))
        rows[family] = table.num_rows
        sources[family] = catalog.builders_of(family)
        parts = max(1, -(-table.num_rows // ROWS_PER_FILE))
        for index in range(parts):
            final = out_dir / "data" / family / f"train-{index:05d}-of-{parts:05d}.parquet"
            with atomic_path(final) as tmp:
                pq.write_table(table.slice(index * ROWS_PER_FILE, ROWS_PER_FILE), tmp, compression="zstd")
            written.append(final)
    write_text_atomic(out_dir / "README.md", _card(version, rows, sources))
    written.append(out_dir / "README.md")
    checksums = {path.relative_to(out_dir).as_posix(): sha256_file(path) for path in sorted(written)}
    write_text_atomic(out_dir / "checksums.json", json.dumps(checksums, indent=2, sort_keys=True) + "\n")
    return ReleaseResult(out_dir=out_dir, rows=rows, checksums=checksums)
