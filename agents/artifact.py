"""What a reviewer or judge is shown of a built task: the task itself and its sources, nothing of its making.

A task that LLM roles helped build or certify carries a provenance record in
its hidden reference (`reference["llm"]`: the call ids that built it, that
reviewed it, the judge's verdict). That record is for audits and for the
checks that read a verdict; it is never shown to a reviewer or judge.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from pydantic import BaseModel

from taskforge.schemas import Task

PROVENANCE_KEY = "llm"
"""The reference entry that records which LLM calls built, reviewed or judged a task."""


class SourceText(BaseModel):
    """One source a task was built from (a document, a paper, a file), as plain text."""

    source_id: str
    text: str


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


def _shown_grader(grader: dict[str, Any]) -> dict[str, Any]:
    """The grader spec, with a grader program's source stood in for by its name and pinned hash."""
    program = grader.get("program")
    if not isinstance(program, dict) or "source" not in program:
        return grader
    summary = f"<{len(program['source'])} characters, pinned by sha256 {program.get('sha256', '?')}>"
    return {**grader, "program": {**program, "source": summary}}


def render_task(task: Task, heading: str = "Task") -> str:
    """The task as the solver sees it, then what stays hidden (reference and grader), without provenance."""
    shown = "\n\n".join(f"[{m.role}]\n{m.content}" for m in task.prompt)
    reference = {k: v for k, v in task.reference.items() if k != PROVENANCE_KEY}
    hidden = json.dumps(reference, sort_keys=True, ensure_ascii=False, indent=1)
    grader = json.dumps(_shown_grader(task.grader), sort_keys=True, ensure_ascii=False, indent=1)
    return (f"## {heading} ({task.family} / {task.kind}, trains {task.capability})\n\n"
            f"### What the solver sees\n\n{shown}\n\n### Hidden reference\n\n{hidden}\n\n### Grader\n\n{grader}")


def render_sources(sources: Sequence[SourceText]) -> str:
    """The sources under one heading each (empty when the task shows its sources in its prompt)."""
    if not sources:
        return ""
    return "## Sources\n\n" + "\n\n".join(f"### [{s.source_id}]\n\n{s.text}" for s in sources)
