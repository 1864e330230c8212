"""Size-bounded Parquet shards of accepted tasks, with deterministic names and atomic writes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from taskforge.schemas import Task, arrow_schema, to_row
from taskforge.schemas.locations import Location, join, normalize, size
from taskforge.store.batches import iter_batch
from taskforge.store.files import atomic_open, sha256_file

if TYPE_CHECKING:
    from taskforge.store.catalog import Catalog


@dataclass(frozen=True)
class ShardFile:
    """A written shard: its path relative to the shard root, rows, bytes and checksum."""

    path: str
    family: str
    rows: int
    bytes: int
    sha256: str


def shard_view(task: Task) -> Task:
    """The task as a shard stores it: everything but run timings, which belong to the catalog.

    Shard bytes then depend only on the tasks, so a resumed or redistributed run
    writes the same files as an uninterrupted one.
    """
    return task.model_copy(update={"validation": [v.model_copy(update={"duration_s": 0.0}) for v in task.validation]})


class ShardWriter:
    """Writes tasks of one family as Parquet shards under `root/<family>/` (a local path or an fsspec URL).

    A shard holds at most `max_rows` rows and roughly `max_bytes` of row data. Its
    name is a hash of the task ids it holds, so writing the same tasks again
    produces the same file under the same name.
    """

    def __init__(self, root: Location, max_rows: int = 2000, max_bytes: int = 64 << 20):
        self.root = normalize(root)
        self.max_rows = max_rows
        self.max_bytes = max_bytes

    def write(self, family: str, tasks: Sequence[Task]) -> list[tuple[ShardFile, list[str]]]:
        """Write the tasks (sorted by id) and return each shard with the task ids it holds."""
        rows = [to_row(shard_view(task)) for task in sorted(tasks, key=lambda t: t.task_id)]
        return [(self._write_one(family, chunk), [r["task_id"] for r in chunk]) for chunk in self._chunks(rows)]

    def _chunks(self, rows: list[dict]) -> list[list[dict]]:
        chunks: list[list[dict]] = []
        current: list[dict] = []
        size = 0
        for row in rows:
            row_size = len(json.dumps(row, default=str))
            if current and (len(current) >= self.max_rows or size + row_size > self.max_bytes):
                chunks.append(current)
                current, size = [], 0
            current.append(row)
            size += row_size
        if current:
            chunks.append(current)
        return chunks

    def _write_one(self, family: str, rows: list[dict]) -> ShardFile:
        ids = "\n".join(row["task_id"] for row in rows)
        name = f"part-{hashlib.sha256(ids.encode()).hexdigest()[:16]}.parquet"
        final = join(self.root, family, name)
        table = pa.Table.from_pylist(rows, schema=arrow_schema(Task))
        with atomic_open(final, crash_at="shard_write") as handle:
            pq.write_table(table, handle, compression="zstd", write_statistics=True)
        return ShardFile(
            path=f"{family}/{name}", family=family, rows=len(rows),
            bytes=size(final), sha256=sha256_file(final),
        )


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
