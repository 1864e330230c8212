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

from typing import Iterable, Iterator

from taskforge.agents.artifact import built_by
from taskforge.agents.client import Agents
from taskforge.agents.review import review_task
from taskforge.agents.verdicts import Review
from taskforge.schemas import Task, ValidationResult

REVIEWED_FAMILIES = ("long_context", "workflow")
"""Families reviewed here (the reviewer's prompt and material for each are in `taskforge.agents.review`)."""


def review_accepted(tasks: Iterable[Task], agents: Agents) -> Iterator[Task]:
    """Each task, with the reviewer's verdict added to accepted tasks of reviewed families."""
    for task in tasks:
        if task.status != "accepted" or task.family not in REVIEWED_FAMILIES:
            yield task
            continue
        reply = review_task(agents, task, built_by=built_by(task))
        yield with_review(task, reply.value, reply.call.call_id) if reply.ok else task


def with_review(task: Task, review: Review, call_id: str) -> Task:
    """The task with the `review` check result; a `reject` verdict rejects it with the reviewer's blocking
    issues (a reject always has one: the verdict's parts are cross-checked)."""
    passed = review.accepted
    reason = None if passed else review.rejection()
    result = ValidationResult(check="review", passed=passed, reason=reason,
                              detail={"call_id": call_id, **review.model_dump()})
    update = {"validation": [*task.validation, result]}
    if not passed:
        update |= {"status": "rejected", "reasons": [*task.reasons, f"review: {reason}"]}
    return task.model_copy(update=update)
