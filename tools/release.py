"""A task envelope looked up by id in a release folder (`envelope/<family>/*.parquet`), for trainers that hold
only a task's RL row: its tools are rebuilt from the envelope (payload, environment) and graded with its reference
and grader, as the validators did."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pyarrow.parquet as pq

from taskforge.schemas import FAMILIES, Task
from taskforge.schemas.arrow import from_table
from taskforge.tools.base import ToolEnvironmentError


def family_of_id(task_id: str) -> str:
    """The family a task id names (ids are `<family>-<hash>`)."""
    family = task_id.rsplit("-", 1)[0]
    if family not in FAMILIES:
        raise ToolEnvironmentError(f"task id {task_id!r} names no task family")
    return family


@lru_cache(maxsize=256)
def task_in_release(release: str, task_id: str) -> Task:
    """The envelope of `task_id` in the release folder `release` (read once per process)."""
    folder = Path(release) / "envelope" / family_of_id(task_id)
    for path in sorted(folder.glob("*.parquet")):
        table = pq.read_table(path, filters=[("task_id", "=", task_id)])
        if table.num_rows:
            return from_table(table, Task)[0]
    raise ToolEnvironmentError(f"task {task_id} is not in the release at {Path(release).name} "
                               f"(no envelope/{folder.name}/ shard holds it)")
