"""The judge of recursive task evolution: is an evolved candidate a better task than its parent?"""

from __future__ import annotations

from typing import Collection, Literal

from pydantic import BaseModel, Field

from agents.artifact import render_task
from agents.client import Agents, Reply
from agents.separation import ensure_independent
from schemas import Task

SYSTEM = (
    "You judge task evolution. A parent training task was transformed into a candidate meant to be harder while "
    "training the same capability. Compare the two as a solver would meet them, with their hidden references. "
    "Prefer the candidate only if it is harder, still solvable from what it shows, and trains the same capability."
)


class EvolutionJudgement(BaseModel):
    """The judge's comparison of an evolved candidate with its parent."""

    preferred: Literal["candidate", "parent"]
    harder: bool = Field(description="the candidate needs more or deeper reasoning than the parent")
    solvable: bool = Field(description="the candidate's reference follows from what its solver sees")
    same_capability: bool = Field(description="both tasks train the same capability")
    reasons: list[str] = Field(default_factory=list, description="why, one sentence each")


def judge_evolution(agents: Agents, parent: Task, candidate: Task, *,
                    built_by: Collection[str] = ()) -> Reply[EvolutionJudgement]:
    """Ask the judge whether `candidate` should replace `parent`; `built_by` lists the call ids that
    produced the candidate, and a judgement from one of them is refused (`RoleSeparationError`)."""
    body = f"{render_task(parent, 'Parent task')}\n\n{render_task(candidate, 'Candidate task')}"
    reply = agents.ask("judge", SYSTEM, body, EvolutionJudgement, purpose="evolution_judge",
                       family=candidate.family, subject=candidate.task_id)
    if reply.call is not None:
        ensure_independent(reply.call, built_by)
    return reply
