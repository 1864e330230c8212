"""Evolution judge, a part of the `review` strategy: an evolved task the LLM judge found materially defective
against its parent is rejected.

The builder asks the judge about each evolved candidate (long-context children,
workflow descendants) where an endpoint is configured, and keeps the verdict in
the task's provenance. This part applies to tasks that carry a verdict and
rejects those it names a material defect in (unsolvable from what the task
shows, or training another capability than the parent). Tasks the judge was
not asked about are left to the deterministic checks.
"""

from __future__ import annotations

from taskforge.agents.artifact import provenance
from taskforge.agents.judge import recorded_defects
from taskforge.schemas import Task, ValidationResult


class EvolutionJudgeCheck:
    """Rejects evolved tasks whose recorded judge verdict names a material defect."""

    name = "evolution_judge"

    def applies_to(self, task: Task) -> bool:
        return "judgement" in provenance(task)

    def run(self, task: Task) -> ValidationResult:
        judgement = provenance(task)["judgement"]
        defects = recorded_defects(judgement)
        return ValidationResult(check=self.name, passed=not defects, reason="; ".join(defects) or None,
                                detail={"call_id": judgement["call_id"], "defects": defects})
