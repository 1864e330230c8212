"""What a reviewer or judge is shown of a built task: the task itself and its sources, nothing of its making."""

from __future__ import annotations

import json
from typing import Sequence

from pydantic import BaseModel

from schemas import Task


class SourceText(BaseModel):
    """One source a task was built from (a document, a paper, a file), as plain text."""

    source_id: str
    text: str


def render_task(task: Task, heading: str = "Task") -> str:
    """The task as the solver sees it, then what stays hidden (reference and grader)."""
    shown = "\n\n".join(f"[{m.role}]\n{m.content}" for m in task.prompt)
    hidden = json.dumps(task.reference, sort_keys=True, ensure_ascii=False, indent=1)
    grader = json.dumps(task.grader, sort_keys=True, ensure_ascii=False, indent=1)
    return (f"## {heading} ({task.family} / {task.kind}, trains {task.capability})\n\n"
            f"### What the solver sees\n\n{shown}\n\n### Hidden reference\n\n{hidden}\n\n### Grader\n\n{grader}")


def render_sources(sources: Sequence[SourceText]) -> str:
    """The sources under one heading each (empty when the task shows its sources in its prompt)."""
    if not sources:
        return ""
    return "## Sources\n\n" + "\n\n".join(f"### [{s.source_id}]\n\n{s.text}" for s in sources)
