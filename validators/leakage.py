"""Leakage check: the solver must not be able to read the answer off what it is shown.

One function per family finds leaks in a task; the check fails on any leak.
"""

from __future__ import annotations

from typing import Callable

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.literature.leakage import literature_leaks
from taskforge.validators.long_context.leakage import long_context_leaks
from taskforge.validators.mle.leakage import mle_leaks
from taskforge.validators.swe.leakage import swe_leaks
from taskforge.validators.workflow.leakage import workflow_leaks

LeakFinder = Callable[[Task], list[str]]

LEAK_FINDERS: dict[str, LeakFinder] = {"long_context": long_context_leaks, "literature": literature_leaks,
                                       "workflow": workflow_leaks, "mle": mle_leaks, "swe": swe_leaks}


class LeakageCheck:
    """Fails a task when its family's leak finder reports anything."""

    name = "leakage"

    def applies_to(self, task: Task) -> bool:
        return task.family in LEAK_FINDERS

    def run(self, task: Task) -> ValidationResult:
        leaks = LEAK_FINDERS[task.family](task)
        return ValidationResult(check=self.name, passed=not leaks, reason="; ".join(leaks) or None,
                                detail={"leaks": leaks})
