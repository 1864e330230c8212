"""The reviewer: does a built task hold up against its sources? (A second opinion after the deterministic checks.)"""

from __future__ import annotations

from typing import Collection, Literal, Sequence

from pydantic import BaseModel, Field

from taskforge.agents.artifact import SourceText, render_sources, render_task
from taskforge.agents.client import Agents, Reply
from taskforge.agents.separation import ensure_independent
from taskforge.schemas import Task

SYSTEM = (
    "You review a training task that someone else built. Judge only what you are shown: the task as the solver "
    "sees it, its hidden reference and grader, and its sources. Check that the hidden reference follows from "
    "what the solver is shown and the sources, that the question has exactly one defensible answer, and that the "
    "prompt does not give the answer away. Reject the task if any of these fails, and say why in `issues`."
)


class TaskReview(BaseModel):
    """The reviewer's verdict on one built task."""

    verdict: Literal["accept", "reject"]
    answer_supported: bool = Field(description="the hidden reference follows from what the solver sees and the sources")
    unambiguous: bool = Field(description="exactly one answer is defensible")
    answer_hidden: bool = Field(description="the prompt does not state the answer")
    issues: list[str] = Field(default_factory=list, description="each problem found, one sentence each")


def review_task(agents: Agents, task: Task, sources: Sequence[SourceText] = (), *,
                built_by: Collection[str] = ()) -> Reply[TaskReview]:
    """Ask the reviewer about a built task; `sources` are what it was built from (omit them when the
    prompt already shows them, as long-context documents are). `built_by` lists the call ids of the LLM
    calls that built the task: a review from one of them is refused (`RoleSeparationError`)."""
    body = "\n\n".join(part for part in (render_task(task), render_sources(sources)) if part)
    reply = agents.ask("reviewer", SYSTEM, body, TaskReview, purpose="review", family=task.family,
                       subject=task.task_id)
    if reply.call is not None:
        ensure_independent(reply.call, built_by)
    return reply
