"""Decontamination check: a task that overlaps a registered evaluation set is removed, naming the item.

The sets are the shipped defaults and those registered in the data dir (`evalsets/`, see
`taskforge.validators.evalsets`); every text of the task (prompt, payload, reference, grader,
environment, lineage) is searched for the items' normalised ids (DOI, arXiv id, pull request,
competition id), their canary strings, their 13-grams and paraphrases of their texts. With no set
registered at all the check fails: it never passes for want of anything to compare with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.evalsets import load_registry

SHOWN_IN_REASON = 5


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
        registry = load_registry(self.data_dir)
        if not registry.sets:
            return ValidationResult(check=self.name, passed=False, detail={"sets": [], "matches": []},
                                    reason="no evaluation set is registered, so contamination cannot be ruled out")
        matches = registry.matches(task_fields(task))
        reasons = [m.describe() for m in matches[:SHOWN_IN_REASON]]
        if len(matches) > SHOWN_IN_REASON:
            reasons.append(f"and {len(matches) - SHOWN_IN_REASON} more matches")
        return ValidationResult(
            check=self.name, passed=not matches, reason="; ".join(reasons) or None,
            detail={"sets": [s.name for s in registry.sets],
                    "matches": [{"set": m.set_name, "item": m.item_id, "kind": m.kind, "value": m.value,
                                 "where": m.where} for m in matches]},
        )
