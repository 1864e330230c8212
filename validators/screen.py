"""The screen every accepted task passes on its way into a shard or a release, one task at a time.

It makes sure the task was checked against the registered evaluation sets (at
landing the decontamination check runs when a task has no result of it yet; a
release checks every task again, against the sets registered by then), then
removes near-duplicates of tasks already landed, of earlier tasks of the same
landing or release, and of registered earlier releases. A landing signs its accepted
tasks in one numpy pass, and decontaminates those that need it together, before they are looked up one after
the other.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.base import timed
from taskforge.validators.decontamination import DecontaminationCheck
from taskforge.validators.evalsets import load_registry
from taskforge.validators.near_duplicates import NearDuplicateCheck, NearDuplicateIndex, release_summaries
from taskforge.validators.runner import decide


class Screen:
    """Decontamination (again, or when missing) and near-duplicate removal for a stream of accepted tasks."""

    def __init__(self, data_dir: Path | None, index: NearDuplicateIndex, origin: str, recheck: bool = False):
        self.data_dir = data_dir
        self.decontamination = DecontaminationCheck(data_dir)
        self.near_duplicates = NearDuplicateCheck(index, origin)
        self.recheck = recheck
        self.decontaminated: dict[str, ValidationResult] = {}

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
            results.append(self.decontaminated.pop(task.task_id, None) or timed(self.decontamination, task))
        if all(r.passed for r in results):
            results.append(timed(self.near_duplicates, task))
        return results

    def land(self, task: Task) -> Task:
        """The task as it lands: an accepted task screened and decided again; a rejected one unchanged."""
        if task.status != "accepted":
            return task
        return decide(task, [*task.validation, *self.check(task)])

    def land_all(self, tasks: Sequence[Task]) -> list[Task]:
        """Tasks as they land, in order, the accepted ones signed together and decontaminated together first."""
        accepted = [task for task in tasks if task.status == "accepted"]
        self.near_duplicates.presign(accepted)
        self.decontaminate_all([task for task in accepted if self.needs_decontamination(task)])
        landed = [self.land(task) for task in tasks]
        self.near_duplicates.presigned.clear()
        self.decontaminated.clear()
        return landed

    def decontaminate_all(self, tasks: Sequence[Task]) -> None:
        """Decontaminate these tasks in one pass ahead of checking them one after the other (each result is the
        one the check gives the task alone; its duration is the task's share of the pass)."""
        if not tasks:
            return
        started = time.perf_counter()
        results = self.decontamination.run_all(tasks)
        share = round((time.perf_counter() - started) / len(tasks), 6)
        self.decontaminated.update((task.task_id, result.model_copy(update={"duration_s": share}))
                                   for task, result in zip(tasks, results))

    def references(self) -> dict[str, list[dict[str, object]]]:
        """What tasks are screened against: the registered evaluation sets and earlier releases."""
        return {"evaluation_sets": [s.summary() for s in load_registry(self.data_dir).sets],
                "earlier_releases": release_summaries(self.data_dir) if self.data_dir else []}
