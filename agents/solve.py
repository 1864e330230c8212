"""The judge model as a solver: it answers a task exactly as the task's solver would be asked to.

Its answer is scored like any other solver's submission, so a task the judge
model solves counts as easy. It sees what the solver sees (the task's prompt),
never the hidden reference, and reasons before it answers. A task longer than
the judge's window is sent as the view its builder makes (`cut`), and the call
records that view; one that fits in no view is recorded as too long.
"""

from __future__ import annotations

from typing import Callable

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import Fit
from taskforge.schemas import Task

PURPOSE = "easiness_estimate"
INSTRUCTION = ("Solve the task below. Work it out in `reasoning` first, step by step, using only what the task "
               "shows; then put your final answer, in exactly the form the task asks for, in `answer`.")


class TaskAnswer(BaseModel):
    """A solver's reasoning and answer to a task."""

    reasoning: str = Field(description="your working, written before the answer")
    answer: str = Field(min_length=1, description="the final answer in the form the task asks for, "
                                                  "e.g. a final line 'Answer: ...'")


def answer_task(agents: Agents, task: Task, *, view: str = "", cut: Callable[[int], str] | None = None
                ) -> Reply[TaskAnswer]:
    """Ask the judge model to solve `task` from its prompt alone (the system turn stays the system turn).
    `cut(tokens)` renders the user turn in about `tokens` tokens, keeping what `view` says, for a task longer
    than the judge's window."""
    system = "\n\n".join([INSTRUCTION, *(m.content for m in task.prompt if m.role == "system")])
    user = "\n\n".join(m.content for m in task.prompt if m.role != "system")
    shown = Fit(full=user, view=view, cut=cut) if cut is not None else user
    return agents.ask("judge", system, shown, TaskAnswer, purpose=PURPOSE, family=task.family, subject=task.task_id)
