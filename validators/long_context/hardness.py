"""Hardness check: a task enters the hard pool only when shortcut solvers do not solve it.

Re-runs the shallow solvers of `taskforge.graders.long_context.solvers` on the task and
fails it when its estimate is above the threshold (it was too easy: in the
builder it seeded harder children), or when what it records is not what the
solvers give now.
"""

from __future__ import annotations

from taskforge.graders.long_context.solvers import HARD_POOL_THRESHOLD, estimate_success
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.long_context import LongContextPayload


class HardnessCheck:
    """Fails tasks whose estimated success rate is above the hard-pool threshold, and tasks whose recorded
    estimate does not hold up: each shallow solver is re-run and must give the score recorded for it, and
    the estimate must be the best recorded score (scores of solvers not re-run here, such as a judge model,
    are taken as recorded)."""

    name = "hardness"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context" and LongContextPayload.of(task).evolution is not None

    def run(self, task: Task) -> ValidationResult:
        evolution = LongContextPayload.of(task).evolution
        recorded = dict(evolution.solver_scores)
        found = estimate_success(task)["solver_scores"]
        problems = [f"the {name} shortcut scores {score}, the task records {recorded.get(name)}"
                    for name, score in found.items() if recorded.get(name) != score]
        scores = {**recorded, **found}
        estimate = max(scores.values())
        if evolution.estimate != estimate:
            problems.append(f"the task records an estimate of {evolution.estimate}, its solvers give {estimate}")
        if estimate > HARD_POOL_THRESHOLD:
            best = max(scores, key=scores.get)
            problems.append(f"too easy: the {best} shortcut scores {estimate}, above {HARD_POOL_THRESHOLD} "
                            "(it seeds harder children instead)")
        return ValidationResult(check=self.name, passed=not problems, score=estimate,
                                reason="; ".join(problems) or None, detail={"solver_scores": scores})
