"""Decontamination check: a task that overlaps a registered evaluation set is removed, naming the item.

The sets are the shipped defaults and those registered in the data dir (`evalsets/`, see
`taskforge.validators.evalsets`); every text of the task (prompt, payload, reference, grader,
environment, lineage) is searched for the items' normalised ids (DOI, arXiv id, pull request,
competition id), their canary strings, their 13-grams and paraphrases of their texts. With no set
registered at all the check fails: it never passes for want of anything to compare with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Sequence

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.evalsets import Match, load_registry

SHOWN_IN_REASON = 5
TEXT_PER_PASS = 1 << 20
"""Characters of task text matched in one pass: numpy's cost per call is paid once a pass, and the arrays stay
small enough to sit in memory the CPU reaches fast."""


def _fields(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """(path, text) for every string inside a JSON value."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _fields(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _fields(item, f"{where}[{index}]")


def task_fields(task: Task) -> Iterator[tuple[str, str]]:
    """Every text of a task with where it sits (validation results excluded)."""
    for index, message in enumerate(task.prompt):
        yield f"prompt[{index}]", message.content
    for name in ("payload", "reference", "grader", "environment"):
        yield from _fields(getattr(task, name), name)
    yield from _fields(task.lineage.model_dump(), "lineage")


class DecontaminationCheck:
    """Fails a task matching any registered evaluation item; the detail lists every match."""

    name = "decontamination"

    def __init__(self, data_dir: Path | None = None):
        self.data_dir = data_dir

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        return self.run_all([task])[0]

    def run_all(self, tasks: Sequence[Task]) -> list[ValidationResult]:
        """The result of each task, each what `run` gives it alone: tasks are matched together, about
        `TEXT_PER_PASS` characters of text a pass."""
        registry = load_registry(self.data_dir)
        if not registry.sets:
            return [ValidationResult(check=self.name, passed=False, detail={"sets": [], "matches": []},
                                     reason="no evaluation set is registered, so contamination cannot be ruled out")
                    for _ in tasks]
        found: list[list[Match]] = []
        group: list[list[tuple[str, str]]] = []
        size = 0
        for task in tasks:
            fields = list(task_fields(task))
            group.append(fields)
            size += sum(len(text) for _, text in fields)
            if size >= TEXT_PER_PASS:
                found += registry.matches_many(group)
                group, size = [], 0
        found += registry.matches_many(group)
        sets = [s.name for s in registry.sets]
        return [self._result(sets, matches) for matches in found]

    def _result(self, sets: list[str], matches: list[Match]) -> ValidationResult:
        reasons = [m.describe() for m in matches[:SHOWN_IN_REASON]]
        if len(matches) > SHOWN_IN_REASON:
            reasons.append(f"and {len(matches) - SHOWN_IN_REASON} more matches")
        return ValidationResult(
            check=self.name, passed=not matches, reason="; ".join(reasons) or None,
            detail={"sets": sets,
                    "matches": [{"set": m.set_name, "item": m.item_id, "kind": m.kind, "value": m.value,
                                 "where": m.where} for m in matches]},
        )
