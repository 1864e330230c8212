"""Hardness check, the long-context `shortcut` strategy: no shortcut solver may score above the family's threshold.

Re-runs the solvers of `taskforge.graders.long_context.solvers` (keyword lookup,
nearest, first and last mention, the most frequent answer) on the task, scored by the
task's scorer, and fails it when any scores above the long-context threshold
(in the builder such a task seeds harder children instead), or when what its
evolution record states is not what the solvers give now. Scores the record
holds of solvers not re-run here (a judge model) count too: they can only
reject.
"""

from __future__ import annotations

from taskforge.graders.long_context.solvers import estimate_success
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.long_context import LongContextPayload
from taskforge.validators.shortcut import THRESHOLDS, too_easy


class HardnessCheck:
    """Fails a long-context task a shortcut solver scores above the threshold, or whose recorded estimate does
    not hold up (a re-run solver must give the score recorded for it; the estimate must be the best recorded
    score)."""

    name = "hardness"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context"

    def run(self, task: Task) -> ValidationResult:
        evolution = LongContextPayload.of(task).evolution
        recorded = dict(evolution.solver_scores) if evolution else {}
        found = estimate_success(task)["solver_scores"]
        problems = [f"the {name} shortcut scores {score}, the task records {recorded[name]}"
                    for name, score in found.items() if name in recorded and recorded[name] != score]
        if evolution and recorded and evolution.estimate != max(recorded.values()):
            problems.append(f"the task records an estimate of {evolution.estimate}, its recorded solver scores give "
                            f"{max(recorded.values())}")
        scores = {**recorded, **found}
        problems = too_easy(task.family, scores) + problems
        return ValidationResult(check=self.name, passed=not problems, score=max(scores.values()),
                                reason="; ".join(problems) or None,
                                detail={"scores": scores, "threshold": THRESHOLDS[task.family]})
