"""The comparable state of a data dir: catalog tables without run bookkeeping, and shard files by checksum."""

from __future__ import annotations

from pathlib import Path

from store.catalog import Catalog
from store.files import sha256_file

VOLATILE = {"cycles": "started_at, finished_at, attempts", "validations": "duration_s"}
TABLES = ("cycles", "episodes", "diagnoses", "gaps", "plan", "tasks", "validations", "shards", "quarantine")


def data_dir_state(data_dir: Path) -> dict:
    """Every catalog table (volatile columns excluded, rows sorted) and every shard file's sha256."""
    with Catalog(data_dir / "catalog.duckdb", read_only=True) as catalog:
        tables = {
            table: catalog.query(f"SELECT * {'EXCLUDE (' + VOLATILE[table] + ')' if table in VOLATILE else ''} "
                                 f"FROM {table} ORDER BY ALL")
            for table in TABLES
        }
    files = {p.relative_to(data_dir).as_posix(): sha256_file(p) for p in sorted((data_dir / "shards").rglob("*"))
             if p.is_file()}
    return {"tables": tables, "files": files}
