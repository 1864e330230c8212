"""The judge of recursive task evolution: is an evolved candidate still a sound task, training the same thing?

Builders ask the judge about each evolved candidate (long-context children,
workflow descendants) and record its verdict in the candidate's provenance
(`judgement_record`); the `evolution_judge` check rejects a candidate whose
recorded verdict names a material defect (`recorded_defects`). Whether the
candidate is harder is measured, not judged (solvers and recorded axes), so
the judge is asked only what measurement cannot tell: is the candidate still
solvable from what it shows, and does it train the parent's capability.
Each family has its prompt and its material (`taskforge.agents.material`):
a long-context judge reads both tasks' evidence and near-miss distractors, a
workflow judge reads what evolution changed and the descendant's reference.
"""

from __future__ import annotations

from typing import Any, Collection

from pydantic import BaseModel, Field, model_validator

from taskforge.agents import material
from taskforge.agents.client import Agents, Reply
from taskforge.agents.separation import certify
from taskforge.agents.verdicts import ANALYSIS
from taskforge.schemas import Task, TaskforgeError

ANSWER = ("Write your analysis first, then the two checks; for each check that fails, say why in `reasons`, "
          "citing the material.")
LONG_CONTEXT_SYSTEM = (
    "You judge the evolution of a long-context question-answering task. The candidate keeps its parent's "
    "documents' world and its kind of question, with difficulty axes stepped up (more or closer near-miss "
    "distractors, evidence spread wider, more items, other wording). For each task you see the question, the "
    "hidden reference answer, the evidence passages it rests on, and the other facts its documents state — the "
    "near-miss distractors among them. Verify that the candidate is still solvable: its evidence establishes its "
    "reference answer, and no distractor is itself valid evidence for another answer (one that states the asked "
    "fact about the asked item, with nothing to tell it from the evidence, makes the task ambiguous). Verify that "
    f"it trains the parent's capability (the same kind of reasoning over documents). {ANSWER}"
)
WORKFLOW_SYSTEM = (
    "You judge the evolution of a professional workflow task. The candidate was derived from its parent by "
    "operators that change its data, parameters, deliverables, file layouts or grading; you see the parent's "
    "statement, what evolution changed (with a diff of every changed input), and the candidate in full: its "
    "statement, grading tolerances, reference workflow, reference deliverables and inputs. Verify that the "
    "candidate is still solvable: its instructions determine every value its reference computes from its inputs "
    "within the grader's tolerances, and its new data keeps the rules the instructions state (a new row that "
    "breaks one — a duplicated key, an impossible value — makes the reference arbitrary). Verify that it trains "
    f"the parent's capability. {ANSWER}"
)


class EvolutionJudgement(BaseModel):
    """The judge's verdict on an evolved candidate, given its parent."""

    analysis: str = ANALYSIS
    solvable: bool = Field(description="the candidate's reference follows from what its solver is shown, and "
                                       "nothing it shows makes another answer defensible")
    same_capability: bool = Field(description="the candidate trains the same capability as its parent")
    reasons: list[str] = Field(description="why, for each check that fails (an empty list when both hold)")

    @model_validator(mode="after")
    def _failures_explained(self) -> "EvolutionJudgement":
        """A failed check must come with its reason."""
        if not (self.solvable and self.same_capability) and not self.reasons:
            raise ValueError("a failed check needs its reason in `reasons`")
        return self


MATERIAL = {
    "long_context": (LONG_CONTEXT_SYSTEM, material.long_context_judge),
    "workflow": (WORKFLOW_SYSTEM, material.workflow_judge),
}
"""The families whose evolution is judged, each with its prompt and what the judge is shown."""


def judge_evolution(agents: Agents, parent: Task, candidate: Task, *,
                    built_by: Collection[str] = ()) -> Reply[EvolutionJudgement]:
    """Ask the judge whether `candidate`, evolved from `parent`, is sound. `built_by` lists the call ids that
    produced the candidate, and a judgement from one of them is refused (`RoleSeparationError`)."""
    if candidate.family not in MATERIAL:
        raise TaskforgeError(f"no judge prompt for {candidate.family} tasks (judged: {', '.join(MATERIAL)})")
    system, shown = MATERIAL[candidate.family]
    return certify(agents, "judge", system, shown(parent, candidate), EvolutionJudgement, purpose="evolution_judge",
                   family=candidate.family, subject=candidate.task_id, built_by=built_by)


def judgement_record(reply: Reply[EvolutionJudgement]) -> dict[str, Any]:
    """A valid judgement as it is kept in the candidate's provenance (`judgement`): verdict, call and model."""
    return {"call_id": reply.call.call_id, "model": reply.call.model, **reply.value.model_dump()}


def recorded_defects(record: dict[str, Any]) -> list[str]:
    """What makes a candidate unfit, from a judgement kept by `judgement_record`: unsolvable, or training
    another capability. (Read field by field, so records kept before the schema changed still read.)"""
    reasons = record.get("reasons") or []
    because = f" ({'; '.join(reasons)})" if reasons else ""
    defects = []
    if not record.get("solvable", True):
        defects.append(f"the judge finds the candidate's reference does not follow from what it shows{because}")
    if not record.get("same_capability", True):
        defects.append(f"the judge finds the candidate trains another capability than its parent{because}")
    return defects
