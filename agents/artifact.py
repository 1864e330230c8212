"""The provenance of a built task: which LLM calls built, reviewed or judged it.

A task that LLM roles helped build or certify carries a provenance record in
its hidden reference (`reference["llm"]`: the call ids that built it, that
reviewed it, the judge's verdict). That record is for audits and for the
checks that read a verdict; it is never shown to a reviewer or judge (their
material is made in `taskforge.agents.material`, from the task alone).
"""

from __future__ import annotations

from typing import Any

from taskforge.schemas import Task

PROVENANCE_KEY = "llm"
"""The reference entry that records which LLM calls built, reviewed or judged a task."""


def provenance(task: Task) -> dict[str, Any]:
    """The task's LLM provenance record (empty when no role built, reviewed or judged it)."""
    return dict(task.reference.get(PROVENANCE_KEY, {}))


def with_provenance(task: Task, **entries: Any) -> Task:
    """The task with `entries` added to its provenance record (the task id does not change: it is hidden)."""
    return task.model_copy(update={"reference": {**task.reference,
                                                 PROVENANCE_KEY: {**provenance(task), **entries}}})


def built_by(task: Task) -> list[str]:
    """The ids of the LLM calls that built a task (a certification from one of them is refused)."""
    return list(provenance(task).get("built_by", []))
