"""Landing: accepted tasks become shards, every task (accepted or rejected) enters the catalog."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable

from taskforge.schemas import Task
from taskforge.schemas.locations import Location
from taskforge.store.batches import iter_batch
from taskforge.store.catalog import Catalog
from taskforge.store.crashpoints import crash_point
from taskforge.store.manifest import write_manifest
from taskforge.store.shards import ShardFile, ShardWriter


@dataclass
class LandingResult:
    """What one landing added: new tasks per status and the shards written."""

    accepted: int = 0
    rejected: int = 0
    already_known: int = 0
    shards: list[ShardFile] = field(default_factory=list)


Screen = Callable[[Task], Task]
"""Decides a validated task once more as it lands (e.g. near-duplicate removal); sees new tasks in id order."""


def land(tasks: Iterable[Task], catalog: Catalog, shard_root: Location, cycle_id: str,
         writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land validated tasks once: tasks already in the catalog are skipped, not duplicated.

    Shards are written first (atomically, under content-derived names), then the
    catalog rows in one transaction, then the manifest from the catalog. A crash
    at any point leaves either nothing or a shard that the rerun rewrites byte
    for byte before committing. `screen`, when given, sees each new task (in
    task id order) before it is written and may reject it; what it decides is
    what lands and is recorded.
    """
    writer = writer or ShardWriter(shard_root)
    unique = {t.task_id: t for t in tasks}
    known = catalog.known_task_ids(unique)
    fresh = [t for tid, t in sorted(unique.items()) if tid not in known]
    if screen is not None:
        fresh = [screen(task) for task in fresh]
    result = LandingResult(already_known=len(known))
    by_family: dict[str, list[Task]] = defaultdict(list)
    for task in fresh:
        if task.status == "accepted":
            by_family[task.family].append(task)
    shard_of: dict[str, str] = {}
    for family, family_tasks in sorted(by_family.items()):
        for shard, task_ids in writer.write(family, family_tasks):
            result.shards.append(shard)
            shard_of.update(dict.fromkeys(task_ids, shard.path))
    crash_point("land")
    with catalog.transaction():
        catalog.record_tasks(fresh, shard_of)
        catalog.record_shards(cycle_id, result.shards)
    write_manifest(shard_root, catalog.all_shards())
    result.accepted = sum(1 for t in fresh if t.status == "accepted")
    result.rejected = sum(1 for t in fresh if t.status == "rejected")
    return result


def land_files(paths: Iterable[Location], catalog: Catalog, shard_root: Location, cycle_id: str,
               writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land validated batch files in order, at most one shard's worth of tasks in memory at a time."""
    writer = writer or ShardWriter(shard_root)
    total = LandingResult()
    pending: list[Task] = []

    def flush() -> None:
        step = land(pending, catalog, shard_root, cycle_id, writer, screen)
        total.accepted += step.accepted
        total.rejected += step.rejected
        total.already_known += step.already_known
        total.shards.extend(step.shards)
        pending.clear()

    for path in sorted(paths, key=str):
        for task in iter_batch(path, Task):
            pending.append(task)
            if len(pending) >= writer.max_rows:
                flush()
    if pending:
        flush()
    return total
