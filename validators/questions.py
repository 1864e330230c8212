"""The questions every task is asked, one check each, answered by the strategy of the task's family.

A `Strategy` is how one family answers one question: the parts that run (each
a `Check`, run in order, each seeing the results of the parts before it), or,
when the family has none, why not. A `QuestionCheck` dispatches a task to its
family's strategy, so a result named `noop` means the same for every family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from taskforge.schemas import Task, ValidationResult
from taskforge.validators.base import Check, guarded, not_applicable

QUESTIONS: dict[str, str] = {
    "noop": "does doing nothing (empty answer, sample submission, untouched workspace, empty patch) score zero?",
    "reference": "does the known solution score full marks, every time, and is it the one right answer?",
    "leakage": "can the solver read the answer off what it is shown?",
    "shortcut": "does a cheap strategy score above the family's threshold?",
    "determinism": "does the grader give the same score every time, and below 1 to every wrong answer?",
    "decontamination": "does the task overlap a registered evaluation set?",
    "difficulty": "does a solver with the family's tools solve it sometimes, but not too often (its pass rate)?",
    "review": "does a second opinion (the LLM judge or reviewer) find the task sound?",
}
"""Every question, in the order the checks run (`difficulty` and `review` last: they attempt and review only tasks
nothing else rejected)."""


@dataclass(frozen=True)
class Strategy:
    """How a family answers a question: `parts` (none applying to a task: `otherwise` says why), or
    `absent`, why the family has no strategy for it."""

    parts: tuple[Check, ...] = ()
    otherwise: str = "no part of the strategy applies to this task"
    absent: str | None = None


def answered_by(*parts: Check, otherwise: str = Strategy.otherwise) -> Strategy:
    """A strategy made of these parts, run in order."""
    return Strategy(parts=parts, otherwise=otherwise)


def absent(why: str) -> Strategy:
    """No strategy for the question in this family, and why."""
    return Strategy(absent=why)


def combined(question: str, results: list[ValidationResult]) -> ValidationResult:
    """The question's result from its parts' results: passed when every part passed. The detail names the
    parts that ran (`strategy`); one part's detail is kept as it is, several go under `parts` (without
    their timings: a rerun records the same detail)."""
    names = [result.check for result in results]
    if len(results) == 1:
        (only,) = results
        return only.model_copy(update={"check": question, "detail": {**only.detail, "strategy": names}})
    failed = [result for result in results if not result.passed]
    return ValidationResult(
        check=question, passed=not failed, score=results[0].score,
        reason="; ".join(f"{result.check}: {result.reason}" for result in failed) or None,
        detail={"strategy": names,
                "parts": {r.check: r.model_dump(include={"passed", "score", "reason", "detail"}) for r in results}},
        infrastructure_error=any(result.infrastructure_error for result in results))


def parts_of(result: ValidationResult) -> dict[str, ValidationResult]:
    """The results of the parts a question's result combines, by part name (empty when no part ran)."""
    names = result.detail.get("strategy", [])
    if len(names) == 1:
        detail = {key: value for key, value in result.detail.items() if key != "strategy"}
        return {names[0]: result.model_copy(update={"check": names[0], "detail": detail})}
    return {name: ValidationResult(check=name, **result.detail["parts"][name]) for name in names}


class QuestionCheck:
    """One question, asked of every task: its family's strategy answers, or the result says why none does."""

    def __init__(self, question: str, strategies: Mapping[str, Strategy]):
        self.name = question
        self.strategies = dict(strategies)

    def applies_to(self, task: Task) -> bool:
        return True

    def run(self, task: Task) -> ValidationResult:
        strategy = self.strategies[task.family]
        if strategy.absent is not None:
            return not_applicable(self.name, f"not applicable to {task.family}: {strategy.absent}")
        parts = [part for part in strategy.parts if part.applies_to(task)]
        if not parts:
            return not_applicable(self.name, f"not applicable to this {task.family} task: {strategy.otherwise}")
        results: list[ValidationResult] = []
        for part in parts:
            results.append(guarded(part, task.model_copy(update={"validation": [*task.validation, *results]})))
        return combined(self.name, results)
