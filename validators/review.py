"""The reviewer's second opinion, a part of the `review` strategy of the families it reviews.

A task that every earlier check passed is shown to the reviewer role with the
material its family's prompt names (`taskforge.agents.review`); an `accept` passes, a `reject` rejects the task with the reviewer's
issues. The reviewer is not asked, and the result says `skipped` with why,
when an earlier check already rejected the task, when the run has no LLM
roles (`taskforge validate`), or when the role is not configured or its call
fails (the deterministic checks alone decide). The reviewer never sees how the
task was made, and a review from a call that built it is refused.
"""

from __future__ import annotations

from taskforge.agents.artifact import built_by
from taskforge.agents.client import Agents
from taskforge.agents.review import review_task
from taskforge.schemas import Task, ValidationResult
from taskforge.validators.base import skipped


class Reviewer:
    """Asks the reviewer role about a task nothing else rejected (the material it reads for each family is
    made by `taskforge.agents.review`)."""

    name = "reviewer"

    def __init__(self, agents: Agents | None):
        self.agents = agents

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        rejected_by = [result.check for result in task.validation if not result.passed]
        if rejected_by:
            return skipped(self.name, f"skipped: not reviewed, already rejected by {', '.join(rejected_by)}")
        if self.agents is None:
            return skipped(self.name, "skipped: no LLM roles in this run (no reviewer endpoint)")
        reply = review_task(self.agents, task, built_by=built_by(task))
        if reply.status == "skipped":
            return skipped(self.name, f"skipped: {reply.reason}")
        if not reply.ok:
            return skipped(self.name, f"skipped: the reviewer's call failed ({reply.reason})")
        review = reply.value
        passed = review.accepted
        reason = None if passed else review.rejection()
        return ValidationResult(check=self.name, passed=passed, reason=reason,
                                detail={"call_id": reply.call.call_id, **review.model_dump()})
