"""The native trace format: Episode records as Parquet (taskforge schema) or JSON lines."""

from __future__ import annotations

from typing import Iterator

import pyarrow.parquet as pq
from pydantic import ValidationError

from taskforge.diagnosis.readers.base import SourceFile, iter_jsonl
from taskforge.schemas import Episode, InputError, from_row

FORMAT = "native"
PARQUET_MAGIC = b"PAR1"
_REQUIRED = {"episode_id", "task_id", "steps", "segments", "outcome"}
_LEADING = {"episode_id", "task_id", "steps"}
"""Fields an Episode record starts with: seen in a file's head even when its steps run past it."""


def sniff(source: SourceFile) -> bool:
    head = source.head()
    if head.startswith(PARQUET_MAGIC):
        return True
    record = source.parsed_head
    return isinstance(record, dict) and _LEADING <= record.keys()


def read(source: SourceFile) -> Iterator[Episode | InputError]:
    if source.head().startswith(PARQUET_MAGIC):
        yield from _read_parquet(source)
    else:
        yield from iter_jsonl(source, lambda record, _line: _parse(record, source))


def _provenance(source: SourceFile, record: dict) -> dict:
    """The file an episode was read from replaces whatever path the record carried."""
    return {"source_file": source.name, "source_format": record.get("source_format") or FORMAT}


def _parse(record: dict, source: SourceFile) -> Episode:
    try:
        return Episode.model_validate({**record, **_provenance(source, record)})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(source.name, f"not an Episode record: {'.'.join(map(str, first['loc']))}: {first['msg']}") from exc


def _read_parquet(source: SourceFile) -> Iterator[Episode | InputError]:
    try:
        parquet = pq.ParquetFile(source.path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        yield InputError(source.name, f"unreadable Parquet ({exc})")
        return
    names = set(parquet.schema_arrow.names)
    if not _REQUIRED <= names:
        yield InputError(source.name, f"Parquet without the Episode columns {sorted(_REQUIRED - names)}")
        return
    for batch in parquet.iter_batches(batch_size=512):
        for offset, row in enumerate(batch.to_pylist()):
            try:
                yield from_row({**row, **_provenance(source, row)}, Episode)
            except (ValidationError, ValueError) as exc:
                yield InputError(f"{source.name}#{row.get('episode_id', offset)}", f"not an Episode record: {exc}")
