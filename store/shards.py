"""Size-bounded Parquet shards of accepted tasks, one Arrow table each, with deterministic names and atomic writes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from taskforge.schemas import Task, to_table
from taskforge.schemas.locations import Location, is_url, join, normalize
from taskforge.store.batches import iter_batch
from taskforge.store.files import atomic_open, atomic_path, sha256_file

if TYPE_CHECKING:
    from taskforge.store.catalog import Catalog


SHARD_OPTIONS = {"compression": "zstd", "write_statistics": True}
"""How a shard is written (`pq.write_table`): its bytes depend on these, so they never change for the same rows."""


@dataclass(frozen=True)
class ShardFile:
    """A written shard: its path relative to the shard root, rows, bytes and checksum."""

    path: str
    family: str
    rows: int
    bytes: int
    sha256: str


def shard_rows(table: pa.Table) -> pa.Table:
    """Task rows as a shard stores them: everything but run timings, which belong to the catalog (every check's
    duration is zeroed by rebuilding the validation column's structs around a column of zeros).

    Shard bytes then depend only on the tasks, so a resumed or redistributed run
    writes the same files as an uninterrupted one.
    """
    column = table.column("validation").combine_chunks()
    checks = column.flatten()
    names = [field.name for field in checks.type]
    fields = [pa.array(np.zeros(len(checks)), type=checks.type.field(name).type) if name == "duration_s"
              else checks.field(name) for name in names]
    offsets = pa.array(column.offsets.to_numpy() - column.offsets[0].as_py(), type=pa.int32())
    rebuilt = pa.ListArray.from_arrays(offsets, pa.StructArray.from_arrays(fields, fields=list(checks.type)))
    return table.set_column(table.schema.get_field_index("validation"), table.schema.field("validation"), rebuilt)


def row_sizes(table: pa.Table) -> np.ndarray:
    """Bytes of text each task row holds (its JSON columns and the messages of its prompt): what bounds a shard
    (read chunk by chunk: combining the prompt column would copy it)."""
    sizes = np.zeros(table.num_rows, dtype=np.int64)
    for name in ("payload", "reference", "grader", "environment"):
        sizes += pc.fill_null(pc.binary_length(table.column(name)), 0).to_numpy()
    first = 0
    for prompt in table.column("prompt").chunks:
        contents = pc.binary_length(pc.struct_field(prompt.flatten(), "content")).to_numpy()
        np.add.at(sizes, first + pc.list_parent_indices(prompt).to_numpy(), contents)
        first += len(prompt)
    return sizes


class ShardWriter:
    """Writes tasks of one family as Parquet shards under `root/<family>/` (a local path or an fsspec URL).

    A shard holds at most `max_rows` rows and roughly `max_bytes` of row text (`row_sizes`), written from one
    Arrow table with one `write_table`. Its name is a hash of the task ids it holds, so writing the same tasks
    again produces the same file under the same name.
    """

    def __init__(self, root: Location, max_rows: int = 2000, max_bytes: int = 64 << 20):
        self.root = normalize(root)
        self.max_rows = max_rows
        self.max_bytes = max_bytes

    def write(self, family: str, tasks: Sequence[Task]) -> list[tuple[ShardFile, list[str]]]:
        """Write the tasks (sorted by id) and return each shard with the task ids it holds."""
        return self.write_table(family, shard_rows(to_table(sorted(tasks, key=lambda t: t.task_id), Task)))

    def write_table(self, family: str, table: pa.Table) -> list[tuple[ShardFile, list[str]]]:
        """Write task rows already in shard form (`shard_rows`) and sorted by id, one table slice per shard."""
        written = []
        for start, end in self._chunks(row_sizes(table)):
            chunk = table.slice(start, end - start)
            ids = chunk.column("task_id").to_pylist()
            written.append((self._write_one(family, chunk, ids), ids))
        return written

    def _chunks(self, sizes: np.ndarray) -> list[tuple[int, int]]:
        """Row ranges of at most `max_rows` rows and, past the first row, at most `max_bytes` of row text."""
        chunks: list[tuple[int, int]] = []
        start, size = 0, 0
        for position, row_size in enumerate(sizes.tolist()):
            if position > start and (position - start >= self.max_rows or size + row_size > self.max_bytes):
                chunks.append((start, position))
                start, size = position, 0
            size += row_size
        if start < len(sizes):
            chunks.append((start, len(sizes)))
        return chunks

    def _write_one(self, family: str, table: pa.Table, ids: list[str]) -> ShardFile:
        """Write one shard: locally with Arrow's own file writer, hashed reading the file back (from the page
        cache; a Python file object in between costs more than the hashing), remotely streamed and hashed on
        the way (`HashingSink`)."""
        digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()
        name = f"part-{digest[:16]}.parquet"
        final = join(self.root, family, name)
        if is_url(final):
            with atomic_open(final, crash_at="shard_write") as handle:
                sink = HashingSink(handle)
                pq.write_table(table, sink, **SHARD_OPTIONS)
            size, sha256 = sink.size, sink.sha256.hexdigest()
        else:
            with atomic_path(Path(final), crash_at="shard_write") as tmp:
                pq.write_table(table, tmp, **SHARD_OPTIONS)
                size, sha256 = tmp.stat().st_size, sha256_file(tmp)
        return ShardFile(path=f"{family}/{name}", family=family, rows=table.num_rows, bytes=size, sha256=sha256)


class HashingSink:
    """A binary file that hashes (sha256) and counts the bytes written through it: a shard is streamed to its
    remote file and hashed on the way, never held whole in memory."""

    def __init__(self, handle: IO[bytes]):
        self.handle = handle
        self.sha256 = hashlib.sha256()
        self.size = 0
        self.closed = False

    def write(self, data: bytes) -> int:
        """Hash and write a block of bytes."""
        self.sha256.update(data)
        self.size += len(data)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()

    def close(self) -> None:
        """Stop writing (the handle itself is closed by whoever opened it)."""
        self.closed = True


class LandedTasks:
    """Accepted tasks found by id through the catalog and read from their shards (the last shard read is kept)."""

    def __init__(self, catalog: "Catalog", shard_root: Location):
        self.catalog = catalog
        self.shard_root = normalize(shard_root)
        self._shard: tuple[str, dict[str, Task]] | None = None

    def get(self, task_id: str) -> Task | None:
        """The accepted task with this id, or None when the catalog has none."""
        rows = self.catalog.query("SELECT shard FROM tasks WHERE task_id = ? AND status = 'accepted' "
                                  "AND shard IS NOT NULL", [task_id])
        if not rows:
            return None
        shard = rows[0]["shard"]
        if self._shard is None or self._shard[0] != shard:
            self._shard = (shard, {t.task_id: t for t in iter_batch(join(self.shard_root, shard), Task)})
        return self._shard[1].get(task_id)

    def with_environment(self, kinds: Iterable[str]) -> Iterator[Task]:
        """Every accepted task whose environment is of one of these kinds, in task id order."""
        wanted = set(kinds)
        for row in self.catalog.query("SELECT DISTINCT shard FROM tasks WHERE status = 'accepted' "
                                      "AND shard IS NOT NULL ORDER BY shard"):
            for task in sorted(iter_batch(join(self.shard_root, row["shard"]), Task), key=lambda t: t.task_id):
                if task.environment.get("kind") in wanted:
                    yield task
