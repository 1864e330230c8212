"""Intermediate batches between stages: records of one model in one Parquet file, written atomically."""

from __future__ import annotations

from itertools import islice
from typing import Iterable, Iterator, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from taskforge.schemas import InputError, arrow_schema, from_row, to_table
from taskforge.schemas.locations import Location, name_of, readable
from taskforge.store.files import atomic_open

M = TypeVar("M", bound=BaseModel)


ROWS_PER_GROUP = 512
BATCH_COMPRESSION = "lz4"
"""How batch files are compressed: each is read once, by the next stage, and lz4 decodes in about a third less time
than zstd (the landing reads every decided batch), for files about 1.6 times as large. Shards, which are kept, are
zstd (`taskforge.store.shards`)."""


def write_batch(path: Location, records: Iterable[BaseModel], model: type[BaseModel],
                crash_at: str | None = None) -> Location:
    """Write records to `path`, local or an fsspec URL (tmp name, then rename), and return the path.

    Records are consumed and written one row group at a time, so a generator of
    records is never held in memory whole.
    """
    rows = iter(records)
    with atomic_open(path, crash_at) as handle:
        with pq.ParquetWriter(handle, arrow_schema(model), compression=BATCH_COMPRESSION) as writer:
            while chunk := list(islice(rows, ROWS_PER_GROUP)):
                writer.write_table(to_table(chunk, model))
    return path


def iter_record_batches(path: Location, rows_per_read: int = 256) -> Iterator[pa.RecordBatch]:
    """Stream the rows of a batch file (local or an fsspec URL) as Arrow record batches."""
    with readable(path) as source:
        try:
            parquet = pq.ParquetFile(source)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(name_of(path), f"unreadable Parquet batch ({exc})") from exc
        yield from parquet.iter_batches(batch_size=rows_per_read)


def iter_batch(path: Location, model: type[M], rows_per_read: int = 256) -> Iterator[M]:
    """Stream the records of a batch file (local or an fsspec URL) without loading it whole."""
    for batch in iter_record_batches(path, rows_per_read):
        for row in batch.to_pylist():
            yield from_row(row, model)


def read_batch(path: Location, model: type[M]) -> list[M]:
    """All records of a batch file."""
    return list(iter_batch(path, model))
