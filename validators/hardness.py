"""Hardness check: a task enters the hard pool only when shortcut solvers do not solve it.

Re-runs the shallow solvers of `graders.long_context.solvers` on the task and
fails it when the best of them scores above the threshold (it was too easy:
in the builder it seeded harder children), or when the estimate the task
records is not what the solvers give now.
"""

from __future__ import annotations

from graders.long_context.solvers import HARD_POOL_THRESHOLD, estimate_success
from schemas import Task, ValidationResult


class HardnessCheck:
    """Fails tasks whose estimated success rate by shortcut solvers is above the hard-pool threshold."""

    name = "hardness"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context" and "evolution" in task.payload

    def run(self, task: Task) -> ValidationResult:
        found = estimate_success(task)
        recorded = task.payload["evolution"].get("estimate")
        problems = []
        if found["estimate"] > HARD_POOL_THRESHOLD:
            best = max(found["solver_scores"], key=found["solver_scores"].get)
            problems.append(f"too easy: the {best} shortcut scores {found['estimate']}, above "
                            f"{HARD_POOL_THRESHOLD} (it seeds harder children instead)")
        if recorded != found["estimate"]:
            problems.append(f"the task records an estimate of {recorded}, the solvers give {found['estimate']}")
        return ValidationResult(check=self.name, passed=not problems, score=found["estimate"],
                                reason="; ".join(problems) or None, detail=found)
