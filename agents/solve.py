"""The judge model as a solver: it answers a task exactly as the task's solver would be asked to.

Its answer is scored like any other solver's submission, so a task the judge
model solves counts as easy. It sees what the solver sees (the task's prompt),
never the hidden reference.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.schemas import Task

PURPOSE = "easiness_estimate"
INSTRUCTION = "Solve the task below. Put your final answer, in exactly the form the task asks for, in `answer`."


class TaskAnswer(BaseModel):
    """A solver's answer to a task."""

    answer: str = Field(min_length=1, description="the final answer in the form the task asks for, "
                                                  "e.g. a final line 'Answer: ...'")


def answer_task(agents: Agents, task: Task) -> Reply[TaskAnswer]:
    """Ask the judge model to solve `task` from its prompt alone (the system turn stays the system turn)."""
    system = "\n\n".join([INSTRUCTION, *(m.content for m in task.prompt if m.role == "system")])
    user = "\n\n".join(m.content for m in task.prompt if m.role != "system")
    return agents.ask("judge", system, user, TaskAnswer, purpose=PURPOSE, family=task.family, subject=task.task_id)
