"""Landing: accepted tasks become shards, every task (accepted or rejected) enters the catalog.

A landing works on one Arrow table of decided tasks: decided batch files are read as Arrow and land without
being turned into Python objects, except the accepted tasks the screen looks at. Each shard is one slice of
that table written with one `write_table`; the catalog's task and check rows are derived from the same table
and inserted in bulk (Arrow → DuckDB).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import pyarrow as pa

from taskforge.schemas import Task, arrow_schema, from_table, to_row, to_table
from taskforge.schemas.locations import Location
from taskforge.store.batches import iter_record_batches
from taskforge.store.catalog import Catalog
from taskforge.store.crashpoints import crash_point
from taskforge.store.manifest import write_manifest
from taskforge.store.shards import ShardFile, ShardWriter, shard_rows


@dataclass
class LandingResult:
    """What one landing added: new tasks per status and the shards written."""

    accepted: int = 0
    rejected: int = 0
    already_known: int = 0
    shards: list[ShardFile] = field(default_factory=list)

    def add(self, other: "LandingResult") -> None:
        """Count another landing's tasks and shards in this one."""
        self.accepted += other.accepted
        self.rejected += other.rejected
        self.already_known += other.already_known
        self.shards.extend(other.shards)


CATALOG_COLUMNS = ["task_id", "family", "kind", "capability", "status", "reasons", "lineage", "validation"]
"""What the catalog keeps of a task row (the rest lives in its shard)."""
DECISION_COLUMNS = ("status", "reasons", "validation")
"""What the screen may change in a task row."""
BATCH_ROWS = 1024
"""Rows read from a batch file at a time."""
Screen = Callable[[Sequence[Task]], list[Task]]
"""Decides validated tasks once more as they land (e.g. near-duplicate removal); sees the new accepted tasks, in
id order, and returns them decided."""


def land(tasks: Iterable[Task], catalog: Catalog, shard_root: Location, cycle_id: str,
         writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land validated tasks once: tasks already in the catalog are skipped, not duplicated (see `land_table`)."""
    return land_table(to_table(list(tasks), Task), catalog, shard_root, cycle_id, writer, screen)


def land_table(table: pa.Table, catalog: Catalog, shard_root: Location, cycle_id: str,
               writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land a table of validated task rows once: rows whose task is already in the catalog are skipped, and of
    rows sharing a task id the last one counts.

    Shards are written first (atomically, under content-derived names), then the
    catalog rows in one transaction, then the manifest from the catalog. A crash
    at any point leaves either nothing or a shard that the rerun rewrites byte
    for byte before committing. `screen`, when given, sees the new accepted tasks
    (in task id order) before they are written and may reject them; what it decides
    is what lands and is recorded.
    """
    writer = writer or ShardWriter(shard_root)
    last = {task_id: row for row, task_id in enumerate(table.column("task_id").to_pylist())}
    known = catalog.known_task_ids(last)
    order = [last[task_id] for task_id in sorted(last) if task_id not in known]
    decided = table.select(CATALOG_COLUMNS).take(pa.array(order, type=pa.int64()))
    if screen is not None:
        decided = screened(decided, table, order, screen)
    result = LandingResult(already_known=len(known))
    by_family: dict[str, list[int]] = {}
    for row, (status, family) in enumerate(zip(decided.column("status").to_pylist(),
                                               decided.column("family").to_pylist())):
        if status == "accepted":
            by_family.setdefault(family, []).append(row)
    shard_of: dict[str, str] = {}
    for family, rows in sorted(by_family.items()):
        for shard, task_ids in writer.write_table(family, shard_rows(_rows(table, decided, order, rows))):
            result.shards.append(shard)
            shard_of.update(dict.fromkeys(task_ids, shard.path))
    crash_point("land")
    with catalog.transaction():
        catalog.record_task_table(decided, shard_of)
        catalog.record_shards(cycle_id, result.shards)
    write_manifest(shard_root, catalog.all_shards())
    result.accepted = sum(len(rows) for rows in by_family.values())
    result.rejected = decided.num_rows - result.accepted
    return result


def _rows(table: pa.Table, decided: pa.Table, order: list[int], rows: list[int]) -> pa.Table:
    """Full task rows `rows` of the decided ones (positions in `decided`, whose row `i` is `table`'s row
    `order[i]`), with the decision columns as decided."""
    picked = pa.array(rows, type=pa.int64())
    full = table.take(pa.array([order[row] for row in rows], type=pa.int64()))
    for name in DECISION_COLUMNS:
        index = full.schema.get_field_index(name)
        full = full.set_column(index, full.schema.field(index), decided.column(name).take(picked))
    return full


def screened(decided: pa.Table, table: pa.Table, order: list[int], screen: Screen) -> pa.Table:
    """The decided rows with the screen's decision on their accepted tasks: only those become Task objects (from
    `table`'s full rows), and only their status, reasons and the check results the screen added are written
    back (the screen keeps a task's earlier results and appends its own)."""
    status = decided.column("status").to_pylist()
    rows = [row for row, value in enumerate(status) if value == "accepted"]
    if not rows:
        return decided
    reasons = decided.column("reasons").to_pylist()
    checks = decided.column("validation").to_pylist()
    tasks = from_table(table.take(pa.array([order[row] for row in rows], type=pa.int64())), Task)
    for row, task in zip(rows, screen(tasks)):
        added = task.validation[len(checks[row]):]
        status[row], reasons[row] = task.status, list(task.reasons)
        checks[row] = checks[row] + [to_row(v) for v in added]
    for name, values in (("status", status), ("reasons", reasons), ("validation", checks)):
        field = decided.schema.field(name)
        decided = decided.set_column(decided.schema.get_field_index(name), field, pa.array(values, type=field.type))
    return decided


def land_files(paths: Iterable[Location], catalog: Catalog, shard_root: Location, cycle_id: str,
               writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land validated batch files in order, `max_rows` rows at a time (one landing per group of rows)."""
    writer = writer or ShardWriter(shard_root)
    total = LandingResult()
    for group in _groups(paths, writer.max_rows):
        total.add(land_table(group, catalog, shard_root, cycle_id, writer, screen))
    return total


def _groups(paths: Iterable[Location], rows: int) -> Iterator[pa.Table]:
    """The rows of the batch files, in file order, as tables of `rows` rows (the last may hold fewer): at most
    one group's worth of rows is held at a time."""
    schema = arrow_schema(Task)
    pending: list[pa.RecordBatch] = []
    held = 0
    for path in sorted(paths, key=str):
        for batch in iter_record_batches(path, BATCH_ROWS):
            pending.append(batch)
            held += batch.num_rows
            while held >= rows:
                table = pa.Table.from_batches(pending, schema=schema)
                yield table.slice(0, rows)
                rest = table.slice(rows)
                pending, held = rest.to_batches(), rest.num_rows
    if held:
        yield pa.Table.from_batches(pending, schema=schema)
