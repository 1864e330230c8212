"""Export of accepted SWE tasks as SWE-bench instances (JSON lines) for the SWE-bench harness and agents.

The fields are SWE-bench's, with FAIL_TO_PASS / PASS_TO_PASS as JSON strings
as in its published datasets; `install_config` carries the environment recipe
the way SWE-rebench publishes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from taskforge.schemas import Task
from taskforge.store.batches import iter_batch
from taskforge.store.files import write_text_atomic

INSTANCE_FIELDS = ("repo", "instance_id", "base_commit", "problem_statement", "hints_text", "created_at", "version",
                   "environment_setup_commit")


def to_instance(task: Task) -> dict[str, Any]:
    """One SWE-bench instance from an accepted SWE task."""
    instance = {name: task.payload[name] for name in INSTANCE_FIELDS}
    instance.update(
        patch=task.reference["patch"], test_patch=task.reference["test_patch"],
        FAIL_TO_PASS=json.dumps(task.payload["FAIL_TO_PASS"]), PASS_TO_PASS=json.dumps(task.payload["PASS_TO_PASS"]),
        install_config=task.payload["environment_recipe"], task_id=task.task_id,
    )
    return instance


def write_instances(tasks: Iterable[Task], path: Path) -> int:
    """Write the accepted SWE tasks among `tasks` to a JSON-lines file; returns how many were written."""
    lines = [json.dumps(to_instance(t), sort_keys=True) for t in tasks if t.family == "swe" and t.status == "accepted"]
    write_text_atomic(path, "".join(line + "\n" for line in lines))
    return len(lines)


def export_shards(shards: Iterable[Path | str], path: Path) -> int:
    """Write the SWE tasks of some shards as SWE-bench instances; returns how many were written."""
    return write_instances((task for shard in shards for task in iter_batch(shard, Task)), path)
