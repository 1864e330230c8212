"""Landing: accepted tasks become shards, every task (accepted or rejected) enters the catalog.

A landing works on one Arrow table of decided tasks: decided batch files are read as Arrow and land without
being turned into Python objects, except the accepted tasks the screen looks at. Each shard is one slice of
that table written with one `write_table`; the catalog's task and check rows are derived from the same table
and inserted in bulk (Arrow → DuckDB).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from taskforge.schemas import Task, ValidationResult, arrow_schema, from_row, rejection_reasons, to_table
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
SIGNATURE = pa.field("asked_signature", pa.binary())
"""A column decided batch files carry after the Task columns: the MinHash signature of each accepted task's asked
text, made by the validate stage where tasks are decided in parallel (null where none was made), which the
landing screen then need not make itself (`taskforge.validators.near_duplicates.accepted_signatures`)."""
TASK_COLUMNS = arrow_schema(Task).names
DECIDED_SCHEMA = arrow_schema(Task).append(SIGNATURE)
"""The rows a landing reads from decided batch files: Task rows, and their signatures (`SIGNATURE`)."""
Screen = Callable[[pa.Table, np.ndarray], list[list[ValidationResult]]]
"""Checks validated tasks once more as they land (e.g. near-duplicate removal): sees the new accepted tasks (their
positions in a table of Task rows, with `SIGNATURE` when they were read from decided batch files, in id order) and
returns the check results it adds to each."""


def land(tasks: Iterable[Task], catalog: Catalog, shard_root: Location, cycle_id: str,
         writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land validated tasks once: tasks already in the catalog are skipped, not duplicated (see `land_table`)."""
    return land_table(to_table(list(tasks), Task), catalog, shard_root, cycle_id, writer, screen)


def land_table(table: pa.Table, catalog: Catalog, shard_root: Location, cycle_id: str,
               writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land a table of validated task rows (Task columns, and `SIGNATURE` where known) once: rows whose task is
    already in the catalog are skipped, and of rows sharing a task id the last one counts.

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
    full = gathered(table.select(TASK_COLUMNS), np.asarray(order, dtype=np.int64)[rows])
    for name in DECISION_COLUMNS:
        index = full.schema.get_field_index(name)
        full = full.set_column(index, full.schema.field(index), decided.column(name).take(picked))
    return full


def gathered(table: pa.Table, positions: np.ndarray) -> pa.Table:
    """Rows `positions` of a table, in that order, as one contiguous chunk (what a shard is written from).

    A table read from batch files holds several chunks, and `take` over chunks concatenates every column
    before taking from it: two fresh copies of the rows (most of a landing's page faults). Here each row is
    sliced from its record batch (no copy) and the slices are combined once.
    """
    batches = table.to_batches()
    if len(batches) <= 1:
        return table.take(pa.array(positions, type=pa.int64()))
    ends = np.cumsum([batch.num_rows for batch in batches])
    which = np.searchsorted(ends, positions, side="right")
    offsets = positions - (ends - [batch.num_rows for batch in batches])[which]
    return pa.Table.from_batches([batches[batch].slice(offset, 1) for batch, offset in
                                  zip(which.tolist(), offsets.tolist())], schema=table.schema).combine_chunks()


def screened(decided: pa.Table, table: pa.Table, order: list[int], screen: Screen) -> pa.Table:
    """The decided rows with the screen's decision on their accepted tasks, made in Arrow: the screen's results
    are appended to each task's check results, and its status and reasons decided again from all of them (as
    `decide` does; only a task with no earlier result or a failed one has its earlier results read back)."""
    rows = np.flatnonzero(pc.equal(decided.column("status"), "accepted").to_numpy(zero_copy_only=False))
    if not len(rows):
        return decided
    added = screen(table, np.asarray(order, dtype=np.int64)[rows])
    checks = decided.column("validation").combine_chunks()
    earlier = _unusual_results(checks, rows)
    status, reasons = decided.column("status").to_pylist(), decided.column("reasons").to_pylist()
    for row, results in zip(rows.tolist(), added):
        if row in earlier:
            reasons[row] = rejection_reasons([*earlier[row], *results])
        else:
            reasons[row] = rejection_reasons(results) if results else []
        status[row] = "rejected" if reasons[row] else "accepted"
    columns = {"status": pa.array(status, type=pa.string()), "reasons": pa.array(reasons, type=pa.list_(pa.string())),
               "validation": _appended(checks, rows, added)}
    for name, column in columns.items():
        index = decided.schema.get_field_index(name)
        decided = decided.set_column(index, decided.schema.field(index), column)
    return decided


def _unusual_results(checks: pa.ListArray, rows: np.ndarray) -> dict[int, list[ValidationResult]]:
    """The check results of the rows (of these) that have none or a failed one, by row."""
    counts = pc.list_value_length(checks).to_numpy()
    failed = ~pc.struct_field(checks.flatten(), "passed").to_numpy(zero_copy_only=False)
    unusual = set(rows[counts[rows] == 0].tolist())
    unusual |= set(rows.tolist()) & set(pc.list_parent_indices(checks).to_numpy()[failed].tolist())
    return {row: [from_row(result, ValidationResult) for result in checks[row].as_py()] for row in sorted(unusual)}


def _appended(checks: pa.ListArray, rows: np.ndarray, added: list[list[ValidationResult]]) -> pa.ListArray:
    """Each row's check results with those `added` to the `rows` after them."""
    new = [result for results in added for result in results]
    if not new:
        return checks
    old = checks.flatten()
    counts = pc.list_value_length(checks).to_numpy().astype(np.int64)
    extra = np.zeros(len(checks), dtype=np.int64)
    extra[rows] = [len(results) for results in added]
    offsets = np.concatenate([[0], np.cumsum(counts + extra)])
    source = np.empty(offsets[-1], dtype=np.int64)
    source[np.repeat(offsets[:-1] - (np.cumsum(counts) - counts), counts) + np.arange(len(old))] = np.arange(len(old))
    source[np.repeat(offsets[:-1] + counts - (np.cumsum(extra) - extra), extra) + np.arange(len(new))] = (
        len(old) + np.arange(len(new)))
    rows_of_new = to_table(new, ValidationResult)
    struct = pa.StructArray.from_arrays([rows_of_new.column(f.name).combine_chunks() for f in old.type],
                                        fields=list(old.type))
    values = pa.concat_arrays([old, struct]).take(pa.array(source))
    return pa.ListArray.from_arrays(pa.array(offsets, type=pa.int32()), values, type=checks.type)


def land_files(paths: Iterable[Location], catalog: Catalog, shard_root: Location, cycle_id: str,
               writer: ShardWriter | None = None, screen: Screen | None = None) -> LandingResult:
    """Land validated batch files in order, `max_rows` rows at a time (one landing per group of rows)."""
    writer = writer or ShardWriter(shard_root)
    total = LandingResult()
    for group in _groups(paths, writer.max_rows):
        total.add(land_table(group, catalog, shard_root, cycle_id, writer, screen))
    return total


def _groups(paths: Iterable[Location], rows: int) -> Iterator[pa.Table]:
    """The rows of the batch files, in file order, as tables of `rows` rows (the last may hold fewer) in the
    decided schema: at most one group's worth of rows is held at a time."""
    schema = DECIDED_SCHEMA
    pending: list[pa.RecordBatch] = []
    held = 0
    for path in sorted(paths, key=str):
        for batch in iter_record_batches(path, BATCH_ROWS):
            pending.append(_decided(batch))
            held += batch.num_rows
            while held >= rows:
                table = pa.Table.from_batches(pending, schema=schema)
                yield table.slice(0, rows)
                rest = table.slice(rows)
                pending, held = rest.to_batches(), rest.num_rows
    if held:
        yield pa.Table.from_batches(pending, schema=schema)


def _decided(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A record batch of a decided batch file in the decided schema: a file of Task rows alone (written before
    the validate stage signed tasks, or by hand) gets a null signature column."""
    if SIGNATURE.name in batch.schema.names:
        return batch
    return pa.RecordBatch.from_arrays([*batch.columns, pa.nulls(batch.num_rows, SIGNATURE.type)],
                                      schema=DECIDED_SCHEMA)
