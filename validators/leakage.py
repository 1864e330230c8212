"""Leakage strategy shared in shape by every family: the family's leak finder lists every way the solver
could read the answer off what it is shown, and any leak rejects the task."""

from __future__ import annotations

from typing import Callable

from taskforge.schemas import Task, ValidationResult

LeakFinder = Callable[[Task], list[str]]


class FindsLeaks:
    """A family's leak finder as a strategy part: fails a task when the finder reports anything."""

    def __init__(self, name: str, finder: LeakFinder):
        self.name = name
        self.finder = finder

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        leaks = self.finder(task)
        return ValidationResult(check=self.name, passed=not leaks, reason="; ".join(leaks) or None,
                                detail={"leaks": leaks})
