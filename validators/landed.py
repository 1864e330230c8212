"""Tasks landed under a data dir, found by id: where a check finds a task's ancestor (a workflow descendant's
ancestor, whose answer is one of its shortcuts)."""

from __future__ import annotations

from functools import lru_cache

from taskforge.schemas import Task, from_row
from taskforge.schemas.locations import Location, change_key, files_under, join
from taskforge.store.batches import iter_record_batches

SHARDS = "shards"


@lru_cache(maxsize=8)
def _shard_index(shard: str, key: str) -> dict[str, dict]:
    """The rows of one shard file by task id (read again when the file changes)."""
    return {row["task_id"]: row for batch in iter_record_batches(shard) for row in batch.to_pylist()}


def landed_task(data_dir: Location | None, family: str, task_id: str) -> Task | None:
    """The task with this id among the family's shards under the data dir (None when none holds it)."""
    if data_dir is None:
        return None
    for shard in files_under(join(data_dir, SHARDS, family), ".parquet"):
        row = _shard_index(str(shard), change_key(shard)).get(task_id)
        if row is not None:
            return from_row(row, Task)
    return None


def landed_tasks(data_dir: Location | None, family: str) -> list[Task]:
    """Every task among the family's shards under the data dir (none without a data dir)."""
    if data_dir is None:
        return []
    return [from_row(row, Task) for shard in files_under(join(data_dir, SHARDS, family), ".parquet")
            for row in _shard_index(str(shard), change_key(shard)).values()]
