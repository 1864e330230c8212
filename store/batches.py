"""Intermediate batches between stages: records of one model in one file, written atomically.

A batch file is Arrow IPC (file format, lz4-compressed buffers) when its name ends with `ARROW_SUFFIX`, which the
task batches of the build and validate stages do: the landing memory-maps them and lands their rows with no more
decoding than lz4's. Any other name is lz4 Parquet (the diagnose stage's files, and files tests plant as shards).
Readers tell the two apart by the file's first bytes, so either is read wherever a batch file is.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
from pydantic import BaseModel

from taskforge.schemas import InputError, arrow_schema, from_row, to_table
from taskforge.schemas.locations import Location, is_url, name_of, open_file, readable
from taskforge.store.files import atomic_open

M = TypeVar("M", bound=BaseModel)


ROWS_PER_GROUP = 512
ARROW_SUFFIX = ".arrow"
"""The suffix of task batch files (`task_batch_name`), which are written as Arrow IPC."""
BATCH_SUFFIXES = (ARROW_SUFFIX, ".parquet")
ARROW_MAGIC = b"ARROW1"
BATCH_COMPRESSION = "lz4"
"""How batch files are compressed: each is read once, by the next stage, and lz4 decodes in about a third less time
than zstd. Uncompressed, an Arrow batch of long-context tasks is about three times as large (its read would cost
about 0.06 s less CPU a 2,000-task landing). Shards, which are kept, are zstd (`taskforge.store.shards`)."""


def task_batch_name(stem: str) -> str:
    """The file name of a batch of tasks (candidates or decided): Arrow IPC, which the landing memory-maps (reading
    it costs lz4 alone, about a quarter of decoding the same rows from lz4 Parquet)."""
    return stem + ARROW_SUFFIX


def without_batch_suffix(location: Location) -> str:
    """A batch file's location without its suffix (`.arrow` or `.parquet`)."""
    text = str(location)
    for suffix in BATCH_SUFFIXES:
        if text.endswith(suffix):
            return text.removesuffix(suffix)
    return text


@dataclass(frozen=True)
class ExtraColumn:
    """A column a batch file carries after its model's columns: its field, and its values for a list of records."""

    field: pa.Field
    values: Callable[[list[Any]], pa.Array]


def write_batch(path: Location, records: Iterable[BaseModel], model: type[BaseModel],
                crash_at: str | None = None, extra: Sequence[ExtraColumn] = ()) -> Location:
    """Write records to `path`, local or an fsspec URL (tmp name, then rename), and return the path: Arrow IPC
    when the name ends with `ARROW_SUFFIX`, lz4 Parquet otherwise; `extra` columns follow the model's.

    Records are consumed and written one group of `ROWS_PER_GROUP` rows at a time (a row group, or a record
    batch), so a generator of records is never held in memory whole.
    """
    rows = iter(records)
    schema = arrow_schema(model)
    for column in extra:
        schema = schema.append(column.field)
    with atomic_open(path, crash_at) as handle:
        if str(path).endswith(ARROW_SUFFIX):
            writer = ipc.new_file(handle, schema, options=ipc.IpcWriteOptions(compression=BATCH_COMPRESSION))
        else:
            writer = pq.ParquetWriter(handle, schema, compression=BATCH_COMPRESSION)
        with writer:
            while chunk := list(islice(rows, ROWS_PER_GROUP)):
                table = to_table(chunk, model)
                for column in extra:
                    table = table.append_column(column.field, column.values(chunk))
                writer.write_table(table)
    return path


def iter_record_batches(path: Location, rows_per_read: int = 256) -> Iterator[pa.RecordBatch]:
    """Stream the rows of a batch file (local or an fsspec URL) as Arrow record batches of at most
    `rows_per_read` rows. A local Arrow IPC file is memory-mapped (its buffers are decompressed from the mapped
    pages)."""
    with open_file(path, "rb") as handle:
        is_arrow = handle.read(len(ARROW_MAGIC)) == ARROW_MAGIC
    if is_arrow:
        yield from _arrow_batches(path, rows_per_read)
        return
    with readable(path) as source:
        try:
            parquet = pq.ParquetFile(source)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(name_of(path), f"unreadable Parquet batch ({exc})") from exc
        yield from parquet.iter_batches(batch_size=rows_per_read)


def _arrow_batches(path: Location, rows_per_read: int) -> Iterator[pa.RecordBatch]:
    """The record batches of an Arrow IPC batch file, cut to at most `rows_per_read` rows (slices: no copy)."""
    with (open_file(path, "rb") if is_url(path) else pa.memory_map(str(path))) as source:
        try:
            reader = ipc.open_file(source)
        except Exception as exc:  # pyarrow raises several types for corrupt files
            raise InputError(name_of(path), f"unreadable Arrow batch ({exc})") from exc
        for index in range(reader.num_record_batches):
            batch = reader.get_batch(index)
            for start in range(0, batch.num_rows, rows_per_read):
                yield batch.slice(start, rows_per_read)


def iter_batch(path: Location, model: type[M], rows_per_read: int = 256) -> Iterator[M]:
    """Stream the records of a batch file (local or an fsspec URL) without loading it whole."""
    for batch in iter_record_batches(path, rows_per_read):
        for row in batch.to_pylist():
            yield from_row(row, model)


def read_batch(path: Location, model: type[M]) -> list[M]:
    """All records of a batch file."""
    return list(iter_batch(path, model))
