"""What a check is: one contract, applied to the tasks it concerns, returning one result."""

from __future__ import annotations

import time
from typing import Protocol

from taskforge.schemas import Task, ValidationResult


class Check(Protocol):
    """A validator with one contract (no-op, reference, leakage …)."""

    name: str

    def applies_to(self, task: Task) -> bool: ...

    def run(self, task: Task) -> ValidationResult: ...


def timed(check: Check, task: Task) -> ValidationResult:
    """Run a check and record how long it took."""
    started = time.perf_counter()
    result = check.run(task)
    return result.model_copy(update={"duration_s": round(time.perf_counter() - started, 6)})
