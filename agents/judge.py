"""The judge of recursive task evolution: is an evolved candidate a better task than its parent?

Builders ask the judge about each evolved candidate (long-context children,
workflow descendants) and record its verdict in the candidate's provenance
(`judgement_record`); the `evolution_judge` check rejects a candidate whose
recorded verdict names a material defect (`material_defects`).
"""

from __future__ import annotations

from typing import Any, Collection, Literal, Sequence

from pydantic import BaseModel, Field

from taskforge.agents.artifact import SourceText, render_sources, render_task
from taskforge.agents.client import Agents, Reply
from taskforge.agents.separation import ensure_independent
from taskforge.schemas import Task

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


def judge_evolution(agents: Agents, parent: Task, candidate: Task, *, sources: Sequence[SourceText] = (),
                    built_by: Collection[str] = ()) -> Reply[EvolutionJudgement]:
    """Ask the judge whether `candidate` should replace `parent`; `sources` are material both tasks show
    their solver outside the prompt (e.g. input files, named `parent:…` and `candidate:…`). `built_by` lists
    the call ids that produced the candidate, and a judgement from one of them is refused
    (`RoleSeparationError`)."""
    parts = (render_task(parent, "Parent task"), render_task(candidate, "Candidate task"), render_sources(sources))
    reply = agents.ask("judge", SYSTEM, "\n\n".join(p for p in parts if p), EvolutionJudgement,
                       purpose="evolution_judge", family=candidate.family, subject=candidate.task_id)
    if reply.call is not None:
        ensure_independent(reply.call, built_by)
    return reply


def material_defects(judgement: EvolutionJudgement) -> list[str]:
    """What makes a candidate unfit whatever its difficulty: unsolvable, or training another capability.
    (Being no harder is not one: difficulty is measured by solvers and recorded axes.)"""
    because = f" ({'; '.join(judgement.reasons)})" if judgement.reasons else ""
    defects = []
    if not judgement.solvable:
        defects.append(f"the judge finds the candidate's reference does not follow from what it shows{because}")
    if not judgement.same_capability:
        defects.append(f"the judge finds the candidate trains another capability than its parent{because}")
    return defects


def judgement_record(reply: Reply[EvolutionJudgement]) -> dict[str, Any]:
    """A valid judgement as it is kept in the candidate's provenance (`judgement`): verdict, call and model."""
    return {"call_id": reply.call.call_id, "model": reply.call.model, **reply.value.model_dump()}


def recorded_defects(record: dict[str, Any]) -> list[str]:
    """The material defects of a judgement kept by `judgement_record`."""
    return material_defects(EvolutionJudgement.model_validate({k: record[k] for k in EvolutionJudgement.model_fields
                                                               if k in record}))
