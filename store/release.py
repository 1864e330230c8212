"""Release export: a Hugging Face dataset folder built only from the catalog, its shards and the data dir.

```
<out>/data/<family>/<split>-XXXXX-of-XXXXX.parquet      RL view rows (config `<family>`): what a trainer loads
<out>/envelope/<family>/<split>-XXXXX-of-XXXXX.parquet  task envelopes (config `<family>_envelope`)
<out>/splits.json                                     per family: each source group, its tasks, links and split
<out>/collections/<version>.parquet                   the files task environments are rebuilt from
<out>/decontamination.json                            every task left out (at landing or by this release), and why
<out>/README.md                                       the dataset card
<out>/inspect_tasks.py                                Inspect AI tasks, one per family (`store/inspect_export.py`)
<out>/checksums.json                                  sha256 of every file above
```

Before a task is released it passes the release screen (decontamination against
the evaluation sets registered now, near-duplicates of registered earlier releases
and of tasks released before it). The same catalog, shards and data dir always
give byte-identical files: rows are sorted by task id, file names and the card are
derived from content, nothing records the time.

Splits (`store/splits.py`): `train`, and `test` when `test_fraction` > 0. Every
task sharing a source (one repository, one dataset, one paper collection …),
and every pair the release's `links` join, goes to one split, so no test task's
answer is visible in a train task's workspace.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from taskforge.graders.literature.environment import ENVIRONMENT_KIND as LITERATURE_ENVIRONMENT, environment_files
from taskforge.schemas import Task, TaskforgeError, ValidationResult, to_table
from taskforge.schemas.locations import Location, exists, join, normalize, open_file, read_text, remove
from taskforge.store.batches import iter_batch
from taskforge.store.card import release_card
from taskforge.store.catalog import Catalog
from taskforge.store.files import atomic_open, sha256_file, write_text_atomic
from taskforge.store.inspect_export import TASKS_FILE, inspect_tasks_file
from taskforge.store.layout import DataDir
from taskforge.store.report import funnel
from taskforge.store.rl_view import rl_row, rl_schema, tool_names
from taskforge.store.splits import TEST, TRAIN, SplitPlan, assign_splits

ROWS_PER_FILE = 5000
MAX_FILE_BYTES = 256 << 20
ROW_GROUP_BYTES = 32 << 20
REMOVAL_CHECKS = ("decontamination", "near_duplicate")
ENVIRONMENT_FILES: dict[str, Callable[[dict[str, Any]], list[str]]] = {LITERATURE_ENVIRONMENT: environment_files}
"""Environment kind → the data-dir files (relative paths) a task of that kind needs shipped with it."""


SourceLinks = Callable[[list[Task]], list[dict[str, Any]]]
"""Pairs of released tasks whose sources leak into each other (`{"holder", "shown", …}` by task id): they share a
split (the flow passes `validators/swe/history.py`'s re-derived links)."""


class ReleaseScreen(Protocol):
    """What a release asks of every task before releasing it, and what it checked against."""

    def check(self, task: Task) -> list[ValidationResult]: ...

    def references(self) -> dict[str, list[dict[str, Any]]]: ...


@dataclass(frozen=True)
class ReleaseResult:
    """The folder written, released rows per family, the tasks left out, and the checksum of every file."""

    out_dir: Location
    rows: dict[str, int]
    removed: list[dict[str, Any]]
    checksums: dict[str, str]
    splits: dict[str, dict[str, int]]


def _family_tasks(shard_root: Location, shard_paths: Iterable[str]) -> list[Task]:
    """Every task in a family's shards, sorted by task id."""
    tasks = [task for path in shard_paths for task in iter_batch(join(shard_root, path), Task)]
    return sorted(tasks, key=lambda t: t.task_id)


def _ranges(sizes: list[int]) -> list[tuple[int, int]]:
    """Row ranges of the files of a family: at most ROWS_PER_FILE rows and about MAX_FILE_BYTES each."""
    ranges, start, total = [], 0, 0
    for position, size in enumerate(sizes):
        if position > start and (position - start >= ROWS_PER_FILE or total + size > MAX_FILE_BYTES):
            ranges.append((start, position))
            start, total = position, 0
        total += size
    ranges.append((start, len(sizes)))
    return ranges


def _write(table: pa.Table, final: Location, row_bytes: int) -> Location:
    """Write one Parquet file of a release in row groups of about ROW_GROUP_BYTES."""
    per_group = max(1, min(table.num_rows, ROW_GROUP_BYTES // max(1, row_bytes)))
    with atomic_open(final) as handle:
        pq.write_table(table, handle, compression="zstd", row_group_size=per_group)
    return final


def _removal(task: Task, result: ValidationResult, stage: str) -> dict[str, Any]:
    """A removal record: the task, where it was left out, the check, why, and what it matched."""
    return {"task_id": task.task_id, "family": task.family, "stage": stage, "check": result.check,
            "reason": result.reason or "", "matches": result.detail.get("matches", [])}


def _landing_removals(catalog: Catalog) -> list[dict[str, Any]]:
    """Tasks rejected at landing by decontamination or as near-duplicates, with what they matched."""
    rows = catalog.query(
        """SELECT t.task_id, t.family, v."check", v.reason, v.detail FROM tasks t JOIN validations v USING (task_id)
           WHERE NOT v.passed AND v."check" IN (SELECT unnest(?)) ORDER BY t.family, t.task_id, v."check" ASC""",
        [list(REMOVAL_CHECKS)])
    return [{"task_id": r["task_id"], "family": r["family"], "stage": "landing", "check": r["check"],
             "reason": r["reason"] or "", "matches": json.loads(r["detail"] or "{}").get("matches", [])}
            for r in rows]


def _licence(task: Task) -> str:
    """The licence a task's resource carries: recorded by its builder, generated by taskforge, or not recorded."""
    source = task.payload.get("source") if isinstance(task.payload.get("source"), dict) else {}
    if source.get("license"):
        return str(source["license"])
    if source.get("kind") == "world_model":
        return "generated by taskforge (seeded world model)"
    return "not recorded"


def _sources(tasks: list[Task]) -> list[dict[str, Any]]:
    """Per builder and licence: how many tasks, from how many resources, with a few resource ids."""
    groups: dict[tuple[str, str], list[Task]] = defaultdict(list)
    for task in tasks:
        groups[(f"{task.lineage.builder} {task.lineage.builder_version}", _licence(task))].append(task)
    return [{"builder": builder, "licence": licence, "tasks": len(group),
             "resources": sorted({t.lineage.resource_id for t in group})} for (builder, licence), group
            in sorted(groups.items())]


def _remove_stale(out_dir: Location, keep: set[str]) -> None:
    """Delete files an earlier export into the same folder listed that this export does not write."""
    listing = join(out_dir, "checksums.json")
    if exists(listing):
        for name in json.loads(read_text(listing)):
            if name not in keep:
                remove(join(out_dir, name))


def _screened(tasks: list[Task], screen: ReleaseScreen | None) -> tuple[list[Task], list[dict[str, Any]]]:
    """The tasks the release screen keeps, and a removal record for each result that failed."""
    kept, removed = [], []
    for task in tasks:
        failed = [r for r in screen.check(task) if not r.passed] if screen else []
        removed.extend(_removal(task, result, "release") for result in failed)
        if not failed:
            kept.append(task)
    return kept, removed


def _write_family(out_dir: Location, family: str, tasks: list[Task], tools: list[str], first_index: int,
                  split: str) -> list[Location]:
    """A family's RL view and envelope files of one split, cut alike, row i of one being row i of the other; the
    RL rows' `extra_info.index` counts on from `first_index` (the rows written before them)."""
    rl_rows = [rl_row(task, first_index + number, tools, split) for number, task in enumerate(tasks)]
    sizes = [len(json.dumps(row, ensure_ascii=False)) for row in rl_rows]
    parts = _ranges(sizes)
    written = []
    for number, (start, end) in enumerate(parts):
        name = f"{split}-{number:05d}-of-{len(parts):05d}.parquet"
        row_bytes = sum(sizes[start:end]) // (end - start)
        written.append(_write(pa.Table.from_pylist(rl_rows[start:end], schema=rl_schema(tools)),
                              join(out_dir, "data", family, name), row_bytes))
        written.append(_write(to_table(tasks[start:end], Task), join(out_dir, "envelope", family, name), row_bytes))
    return written


def _environment_files(tasks: Iterable[Task]) -> set[str]:
    """The data-dir files the tasks' environments are rebuilt from."""
    needed: set[str] = set()
    for task in tasks:
        files_of = ENVIRONMENT_FILES.get(task.environment.get("kind"))
        needed.update(files_of(task.environment) if files_of else [])
    return needed


def _ship(data: DataDir, relative: str, out_dir: Location) -> Location:
    """Copy one environment file from the data dir into the release."""
    source = join(data.root, relative)
    if not exists(source):
        raise TaskforgeError(f"{relative}: missing from the data dir, and released tasks' environments need it")
    target = join(out_dir, relative)
    with open_file(source, "rb") as original, atomic_open(target) as handle:
        shutil.copyfileobj(original, handle)
    return target


def _splits_report(version: str, test_fraction: float, plan: SplitPlan) -> str:
    """`splits.json`: per family, rows per split and every source group with its tasks, links and split."""
    return json.dumps({"version": version, "test_fraction": test_fraction, "families": plan.families},
                      indent=1, sort_keys=True) + "\n"


def export_release(catalog: Catalog, data: DataDir, version: str, out_dir: Location,
                   screen: ReleaseScreen | None = None, test_fraction: float = 0.0,
                   links: SourceLinks | None = None) -> ReleaseResult:
    """Write the release folder (see the module docstring; a local path or an fsspec URL) and return what it holds;
    `test_fraction` of each family's rows (whole source groups) go to the test split."""
    out_dir = normalize(out_dir)
    shards = catalog.all_shards()
    if not shards:
        raise TaskforgeError("nothing to release: the catalog lists no shards (run `taskforge cycle` first)")
    by_family: dict[str, list[str]] = defaultdict(list)
    for shard in shards:
        by_family[shard.family].append(shard.path)
    tools = tool_names(by_family)
    rows: dict[str, int] = {}
    removed: list[dict[str, Any]] = []
    written: list[Location] = []
    needed: set[str] = set()
    summaries: dict[str, dict[str, Any]] = {}
    kept_by_family: dict[str, list[Task]] = {}
    for family, paths in sorted(by_family.items()):
        kept, left_out = _screened(_family_tasks(data.shards, sorted(paths)), screen)
        removed += left_out
        rows[family] = len(kept)
        summaries[family] = {"kinds": dict(sorted(Counter(t.kind for t in kept).items())), "sources": _sources(kept)}
        needed |= _environment_files(kept)
        kept_by_family[family] = kept
    released = [task for kept in kept_by_family.values() for task in kept]
    plan = assign_splits(released, test_fraction, links(released) if links and released else [])
    index = 0
    for family, kept in kept_by_family.items():
        for split in (TRAIN, TEST):
            part = [task for task in kept if plan.split_of[task.task_id] == split]
            if part:
                written += _write_family(out_dir, family, part, tools, index, split)
                index += len(part)
    write_text_atomic(join(out_dir, "splits.json"), _splits_report(version, test_fraction, plan))
    written.append(join(out_dir, "splits.json"))
    written += [_ship(data, relative, out_dir) for relative in sorted(needed)]
    removals = _landing_removals(catalog) + removed
    references = screen.references() if screen else {}
    report = {"version": version, **references, "removed": removals}
    write_text_atomic(join(out_dir, "decontamination.json"), json.dumps(report, indent=1, sort_keys=True) + "\n")
    card = release_card(version, {f: n for f, n in rows.items() if n}, summaries, funnel(catalog, None), removals,
                        references, sorted(needed),
                        splits={f: [s for s in (TRAIN, TEST) if n.get(s)] for f, n in plan.rows().items()})
    write_text_atomic(join(out_dir, "README.md"), card)
    write_text_atomic(join(out_dir, TASKS_FILE), inspect_tasks_file(sorted(f for f, n in rows.items() if n)))
    written += [join(out_dir, "decontamination.json"), join(out_dir, "README.md"), join(out_dir, TASKS_FILE)]
    names = {str(path)[len(str(out_dir)) + 1:] for path in written}
    _remove_stale(out_dir, names)
    checksums = {name: sha256_file(join(out_dir, name)) for name in sorted(names)}
    write_text_atomic(join(out_dir, "checksums.json"), json.dumps(checksums, indent=2, sort_keys=True) + "\n")
    return ReleaseResult(out_dir=out_dir, rows=rows, removed=removals, checksums=checksums, splits=plan.rows())
