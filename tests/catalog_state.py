"""The comparable state of a data dir: catalog tables without run bookkeeping, and shard files by checksum."""

from __future__ import annotations

from pathlib import Path

from taskforge.schemas.locations import Location, files_under, join
from taskforge.store.catalog import Catalog
from taskforge.store.files import sha256_file

VOLATILE = {"cycles": "started_at, finished_at, attempts", "validations": "duration_s"}
TABLES = ("cycles", "episodes", "diagnoses", "gaps", "plan", "tasks", "validations", "shards", "quarantine")


def data_dir_state(data_dir: Location, catalog: Path | None = None) -> dict:
    """Every catalog table (volatile columns excluded, rows sorted) and every shard file's sha256.

    `data_dir` may be a local path or an fsspec URL; its catalog is `catalog` (default: inside it).
    """
    with Catalog(catalog or Path(data_dir) / "catalog.duckdb", read_only=True) as opened:
        tables = {
            table: opened.query(f"SELECT * {'EXCLUDE (' + VOLATILE[table] + ')' if table in VOLATILE else ''} "
                                f"FROM {table} ORDER BY ALL")
            for table in TABLES
        }
    prefix = len(str(data_dir).rstrip("/")) + 1
    files = {str(p)[prefix:]: sha256_file(p) for p in files_under(join(data_dir, "shards"))}
    return {"tables": tables, "files": files}
