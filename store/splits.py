"""Release splits: every task sharing a source lands in one split, so no test task leaks through a train task.

A task's **source group** is what it shares its source with: for SWE the
repository (`SwePayload.source_group`, `repo:<owner/name>`: a later commit's
workspace holds an earlier task's fix and hidden tests), for every other family
its resource (`lineage.resource_id`: one MLE dataset, one paper collection, one
document set, one workflow seed with all its evolved descendants). Groups are
joined further by the links a release is given (pairs of task ids whose
sources leak into each other, re-derived by `validators/swe/history.py`), so
two repositories under different names that share history are one group too.

Per family, the joined groups are ordered by the sha256 of their smallest
source key (a source keeps its split from one release to the next) and each
whole group goes to `test` when it still fits in the test share (`test_fraction`
of the family's rows, rounded up) and leaves `train` non-empty: a family drawn
from a single group, or whose groups are all larger than the share, has no
test split, and `splits.json` says why.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from taskforge.schemas import Task
from taskforge.schemas.swe import SwePayload

TRAIN, TEST = "train", "test"


def source_group(task: Task) -> str:
    """The source a task shares with others (see the module docstring)."""
    return SwePayload.of(task).source_group if task.family == "swe" else task.lineage.resource_id


class _Components:
    """Union-find over task ids."""

    def __init__(self, ids: Iterable[str]):
        self.parent = {task_id: task_id for task_id in ids}

    def find(self, task_id: str) -> str:
        while self.parent[task_id] != task_id:
            self.parent[task_id] = self.parent[self.parent[task_id]]
            task_id = self.parent[task_id]
        return task_id

    def join(self, first: str, second: str) -> None:
        self.parent[self.find(first)] = self.find(second)


@dataclass
class SplitPlan:
    """The split of every task by id, and per family the groups with their sources, tasks, links and split."""

    split_of: dict[str, str] = field(default_factory=dict)
    families: dict[str, dict[str, Any]] = field(default_factory=dict)

    def rows(self) -> dict[str, dict[str, int]]:
        """Rows per family and split."""
        return {family: {TRAIN: plan[TRAIN], TEST: plan[TEST]} for family, plan in self.families.items()}


def _family_plan(tasks: Sequence[Task], links: Sequence[dict[str, Any]], test_fraction: float
                 ) -> tuple[dict[str, str], dict[str, Any]]:
    """One family's split of each task and its part of `splits.json`."""
    components = _Components(task.task_id for task in tasks)
    first_of_group: dict[str, str] = {}
    for task in tasks:
        key = source_group(task)
        components.join(task.task_id, first_of_group.setdefault(key, task.task_id))
    known = set(components.parent)
    family_links = [link for link in links if link["holder"] in known and link["shown"] in known]
    for link in family_links:
        components.join(link["holder"], link["shown"])
    members: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        members[components.find(task.task_id)].append(task)
    groups = sorted(members.values(), key=lambda group: hashlib.sha256(
        min(source_group(t) for t in group).encode()).hexdigest())
    target, in_test, split_of, described = math.ceil(test_fraction * len(tasks)), 0, {}, []
    for group in groups:
        ids = sorted(task.task_id for task in group)
        split = TEST if in_test + len(group) <= target and len(tasks) - in_test - len(group) > 0 else TRAIN
        in_test += len(group) if split == TEST else 0
        split_of.update({task_id: split for task_id in ids})
        described.append({"sources": sorted({source_group(t) for t in group}), "split": split, "tasks": len(ids),
                          "task_ids": ids,
                          "links": sorted(([link["holder"], link["shown"]] for link in family_links
                                           if link["holder"] in ids), key=tuple)})
    plan: dict[str, Any] = {TRAIN: len(tasks) - in_test, TEST: in_test, "groups": described}
    if test_fraction > 0 and in_test == 0:
        plan["note"] = (f"no test split: all {len(tasks)} task(s) share one source group" if len(groups) == 1 else
                        f"no test split: the smallest source group has {min(len(g) for g in groups)} task(s), more "
                        f"than the test share of {target}")
    return split_of, plan


def assign_splits(tasks: Sequence[Task], test_fraction: float = 0.0, links: Sequence[dict[str, Any]] = ()
                  ) -> SplitPlan:
    """The split of every task (`links`: `{"holder", "shown"}` pairs of task ids that must share a split)."""
    if not 0.0 <= test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in [0, 1), not {test_fraction}")
    by_family: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        by_family[task.family].append(task)
    plan = SplitPlan()
    for family, members in sorted(by_family.items()):
        split_of, plan.families[family] = _family_plan(members, links, test_fraction)
        plan.split_of.update(split_of)
    return plan
