"""The reviewer's second opinion on tasks the deterministic checks accepted (where an endpoint is configured).

A task of a reviewed family that passed every check is shown to the reviewer
role with its sources; its verdict is added as the `review` check and a
rejection rejects the task. When the role is skipped or its call fails, no
`review` result is added (the task was not reviewed, and the run summary says
why); the deterministic checks alone decide. The reviewer never sees how the
task was made, and a review from a call that built it is refused.

Literature questions and MLE descriptions written by the builder agent are
reviewed where they are written (a rejected one is replaced by the templated
text), so those families are not reviewed again here.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from taskforge.agents.artifact import SourceText, built_by
from taskforge.agents.client import Agents
from taskforge.agents.review import TaskReview, review_task
from taskforge.schemas import Task, ValidationResult

INPUT_CHARS = 20_000
"""How much of each workflow input file the reviewer reads."""


def _shown_in_prompt(task: Task) -> list[SourceText]:
    """No separate sources: the task's prompt shows them (long-context documents)."""
    return []


def _workflow_inputs(task: Task) -> list[SourceText]:
    """A workflow package's input files, which the solver reads from its workspace."""
    return [SourceText(source_id=path, text=text[:INPUT_CHARS])
            for path, text in sorted(task.payload.get("inputs", {}).items())]


REVIEWED_FAMILIES: dict[str, Callable[[Task], list[SourceText]]] = {
    "long_context": _shown_in_prompt,
    "workflow": _workflow_inputs,
}
"""Families reviewed here, each with what the reviewer reads besides the task."""


def review_accepted(tasks: Iterable[Task], agents: Agents) -> Iterator[Task]:
    """Each task, with the reviewer's verdict added to accepted tasks of reviewed families."""
    for task in tasks:
        if task.status != "accepted" or task.family not in REVIEWED_FAMILIES:
            yield task
            continue
        reply = review_task(agents, task, REVIEWED_FAMILIES[task.family](task), built_by=built_by(task))
        yield with_review(task, reply.value, reply.call.call_id) if reply.ok else task


def with_review(task: Task, review: TaskReview, call_id: str) -> Task:
    """The task with the `review` check result; a `reject` verdict rejects it with the reviewer's issues."""
    passed = review.verdict == "accept"
    reason = None if passed else ("; ".join(review.issues) or "the reviewer rejected the task")
    result = ValidationResult(check="review", passed=passed, reason=reason,
                              detail={"call_id": call_id, **review.model_dump()})
    update = {"validation": [*task.validation, result]}
    if not passed:
        update |= {"status": "rejected", "reasons": [*task.reasons, f"review: {reason}"]}
    return task.model_copy(update=update)
