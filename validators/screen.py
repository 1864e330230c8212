"""The screen every accepted task passes on its way into a shard or a release, one task at a time.

It makes sure the task was checked against the registered evaluation sets (at
landing the decontamination check runs when a task has no result of it yet; a
release checks every task again, against the sets registered by then), then
removes near-duplicates of tasks already landed, of earlier tasks of the same
landing or release, and of registered earlier releases. A landing screens Arrow task rows (`land_rows`): it takes
the signatures of what they ask, of which input files (`taskforge.validators.near_duplicates`), from their decided
batch files (the validate stage signs accepted tasks) or signs them in one numpy pass, and decontaminates those
that need it together, before they are looked up one after the other; only the rows to decontaminate become Task
objects.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from taskforge.schemas import Task, ValidationResult, from_table
from taskforge.store.landing import SIGNATURE
from taskforge.validators.base import timed
from taskforge.validators.decontamination import DecontaminationCheck
from taskforge.validators.evalsets import load_registry
from taskforge.validators.near_duplicates import (NearDuplicateCheck, NearDuplicateIndex, asked_texts,
                                                  release_summaries, screened_signatures, workspace_text)
from taskforge.validators.runner import decide


class Screen:
    """Decontamination (again, or when missing) and near-duplicate removal for a stream of accepted tasks."""

    def __init__(self, data_dir: Path | None, index: NearDuplicateIndex, origin: str, recheck: bool = False):
        self.data_dir = data_dir
        self.decontamination = DecontaminationCheck(data_dir)
        self.near_duplicates = NearDuplicateCheck(index, origin)
        self.recheck = recheck

    @property
    def passed(self) -> dict[str, tuple[str, bytes]]:
        """Family and signature of every task the screen let through, by task id."""
        return self.near_duplicates.passed

    def needs_decontamination(self, task: Task) -> bool:
        """Whether the screen decontaminates this task (again, or because it has no result of that check)."""
        return self.recheck or not any(r.check == self.decontamination.name for r in task.validation)

    def check(self, task: Task) -> list[ValidationResult]:
        """The screen's results for a task; near-duplicates are only looked for once it is decontaminated."""
        results = []
        if self.needs_decontamination(task):
            results.append(timed(self.decontamination, task))
        if all(r.passed for r in results):
            results.append(timed(self.near_duplicates, task))
        return results

    def land(self, task: Task) -> Task:
        """The task as it lands: an accepted task screened and decided again; a rejected one unchanged."""
        if task.status != "accepted":
            return task
        return decide(task, [*task.validation, *self.check(task)])

    def land_rows(self, table: pa.Table, rows: np.ndarray) -> list[list[ValidationResult]]:
        """The results the screen adds to accepted tasks as they land, each what `check` gives the task: `rows`
        are the tasks' positions in `table` (Task rows, and `SIGNATURE` where known), in the order they land. Only
        the tasks to decontaminate become Task objects; asked texts without a signature are signed together."""
        picked = pa.array(rows, type=pa.int64())
        ids = table.column("task_id").take(picked).to_pylist()
        families = table.column("family").take(picked).to_pylist()
        parents = pc.struct_field(table.column("lineage").take(picked), "parent_task_id").to_pylist()
        needs = np.flatnonzero(np.ones(len(rows), dtype=bool) if self.recheck
                               else ~_has_check(table.column("validation").take(picked), self.decontamination.name))
        results: list[list[ValidationResult]] = [[] for _ in ids]
        decontaminated = self.decontaminate_all(
            from_table(table.take(pa.array(rows[needs], type=pa.int64())), Task) if len(needs) else [])
        for row, result in zip(needs, decontaminated):
            results[row].append(result)
        clean = [row for row, found in enumerate(results) if all(r.passed for r in found)]
        for row, signed in zip(clean, _signed(table, rows[clean])):
            started = time.perf_counter()
            result = self.near_duplicates.judge(ids[row], families[row], parents[row], signed)
            result.duration_s = round(time.perf_counter() - started, 6)
            results[row].append(result)
        return results

    def decontaminate_all(self, tasks: Sequence[Task]) -> list[ValidationResult]:
        """Decontaminate these tasks in one pass (each result is the one the check gives the task alone; its
        duration is the task's share of the pass)."""
        if not tasks:
            return []
        started = time.perf_counter()
        results = self.decontamination.run_all(tasks)
        share = round((time.perf_counter() - started) / len(tasks), 6)
        return [result.model_copy(update={"duration_s": share}) for result in results]

    def references(self) -> dict[str, list[dict[str, object]]]:
        """What tasks are screened against: the registered evaluation sets and earlier releases."""
        return {"evaluation_sets": [s.summary() for s in load_registry(self.data_dir).sets],
                "earlier_releases": release_summaries(self.data_dir) if self.data_dir else []}


def _signed(table: pa.Table, rows: np.ndarray) -> list[bytes]:
    """The signatures of these rows' tasks (what they ask, of which input files): those their decided batch file
    carries (`SIGNATURE`, made by the validate stage), the others made now, together."""
    made = (table.column(SIGNATURE.name).take(pa.array(rows, type=pa.int64())).to_pylist()
            if SIGNATURE.name in table.column_names else [None] * len(rows))
    missing = [n for n, signed in enumerate(made) if signed is None]
    if missing:
        asked = asked_texts(table.column("prompt"))
        payloads = table.column("payload").take(pa.array(rows[missing], type=pa.int64())).to_pylist()
        workspaces = [workspace_text(json.loads(payload)) if payload else "" for payload in payloads]
        for n, signed in zip(missing, screened_signatures([asked[rows[n]] for n in missing], workspaces)):
            made[n] = signed
    return made


def _has_check(validation: pa.Array | pa.ChunkedArray, name: str) -> np.ndarray:
    """Whether each row of a Task `validation` column holds a result of the named check."""
    validation = validation.combine_chunks() if isinstance(validation, pa.ChunkedArray) else validation
    named = pc.equal(pc.struct_field(validation.flatten(), "check"), name).to_numpy(zero_copy_only=False)
    return np.bincount(pc.list_parent_indices(validation).to_numpy()[named], minlength=len(validation)) > 0
