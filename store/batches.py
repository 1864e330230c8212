"""Intermediate batches between stages: records of one model in one Parquet file, written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator, TypeVar

import pyarrow.parquet as pq
from pydantic import BaseModel

from schemas import InputError, from_row, to_table
from store.files import atomic_path

M = TypeVar("M", bound=BaseModel)


def write_batch(path: Path, records: Iterable[BaseModel], model: type[BaseModel], crash_at: str | None = None) -> Path:
    """Write records to `path` (tmp name, then rename) and return the path."""
    table = to_table(records, model)
    with atomic_path(Path(path), crash_at) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return Path(path)


def iter_batch(path: Path, model: type[M], rows_per_read: int = 256) -> Iterator[M]:
    """Stream the records of a batch file without loading it whole."""
    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise InputError(Path(path).name, f"unreadable Parquet batch ({exc})") from exc
    for batch in parquet.iter_batches(batch_size=rows_per_read):
        for row in batch.to_pylist():
            yield from_row(row, model)


def read_batch(path: Path, model: type[M]) -> list[M]:
    """All records of a batch file."""
    return list(iter_batch(path, model))
