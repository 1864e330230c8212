"""`taskforge validate`: run every check on tasks stored in Parquet files (candidates or shards)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from taskforge.schemas import InputError, Task
from taskforge.store.batches import iter_batch
from taskforge.validators.runner import default_checks, validate


def validate_files(paths: list[Path], data_dir: Path | None = None) -> dict[str, Any]:
    """Validate each task in the files (reading `data_dir`'s collection snapshots and evaluation sets);
    returns per-task status and reasons, and counts."""
    checks = default_checks(data_dir)
    rows: list[dict[str, Any]] = []
    problems: list[dict[str, str]] = []
    for path in paths:
        try:
            for task in iter_batch(path, Task):
                decided = validate(task, checks)
                rows.append({"source": path.name, "task_id": decided.task_id, "family": decided.family,
                             "status": decided.status, "reasons": "; ".join(decided.reasons) or "-"})
        except (InputError, ValueError) as exc:
            problems.append({"source": path.name, "reason": str(exc)})
    statuses = Counter(row["status"] for row in rows)
    return {"kind": "validate", "tasks": rows, "accepted": statuses["accepted"], "rejected": statuses["rejected"],
            "unreadable": problems}
