"""The reviewer's second opinion on tasks the deterministic checks accepted (where an endpoint is configured).

A task of a reviewed family that passed every check is shown to the reviewer
role; its verdict is added as the `review` check and a rejection rejects the
task. When the role is skipped or its call fails, no `review` result is added
(the task was not reviewed, and the run summary says why); the deterministic
checks alone decide.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from agents.client import Agents
from agents.review import TaskReview, review_task
from schemas import Task, ValidationResult

REVIEWED_FAMILIES = frozenset({"long_context"})
"""Families whose tasks show their sources in the prompt, so the task alone is what the reviewer needs."""


def review_accepted(tasks: Iterable[Task], agents: Agents) -> Iterator[Task]:
    """Each task, with the reviewer's verdict added to accepted tasks of reviewed families."""
    for task in tasks:
        if task.status != "accepted" or task.family not in REVIEWED_FAMILIES:
            yield task
            continue
        reply = review_task(agents, task)
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
