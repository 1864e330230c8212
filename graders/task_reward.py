"""A task envelope's reward as its RL row gets it: the task fields of `extra_info`, and the score of a reply.

`extra_info` carries the task's payload without the fields the prompt already
shows (every long text of such a field is in the prompt: a long-context task's
documents and question, a SWE task's problem statement), so a row does not hold
its prompt twice; the reward and the tool environments read the rest.
"""

from __future__ import annotations

from typing import Any, Iterator

from taskforge.graders.reward import compute_score, data_source_for
from taskforge.schemas import Task, canonical_json

SHOWN_MIN_CHARS = 64
"""Texts shorter than this (ids, names, kinds) never make a field count as shown by the prompt."""


def _texts(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def shown_in(value: Any, prompt: str) -> bool:
    """Whether a payload field is shown by the prompt: it has long texts, and every one of them is in it."""
    long_texts = [text for text in _texts(value) if len(text) >= SHOWN_MIN_CHARS]
    return bool(long_texts) and all(text in prompt for text in long_texts)


def unprompted_payload(task: Task) -> dict[str, Any]:
    """The task's payload without the fields its prompt shows."""
    prompt = "\n".join(message.content for message in task.prompt)
    return {key: value for key, value in task.payload.items() if not shown_in(value, prompt)}


def task_info(task: Task) -> dict[str, Any]:
    """The task fields every RL row's `extra_info` carries (payload, grader, environment as JSON strings)."""
    return {"task_id": task.task_id, "family": task.family, "kind": task.kind, "capability": task.capability,
            "parent_task_id": task.lineage.parent_task_id, "payload": canonical_json(unprompted_payload(task)),
            "grader": canonical_json(task.grader), "environment": canonical_json(task.environment)}


def score_task(task: Task, solution: str) -> float:
    """A reply's reward for a task envelope, exactly as `compute_score` scores it on the task's RL row."""
    return compute_score(data_source_for(task.family), solution, canonical_json(task.reference), task_info(task))
