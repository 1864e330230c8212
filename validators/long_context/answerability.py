"""Answerability check: under the task's world model the answer is unique, every evidence span is needed,
and no single span holds the answer (see `taskforge.graders.long_context.answerability`)."""

from __future__ import annotations

from taskforge.graders.long_context.answerability import answerability_problems
from taskforge.schemas import Task, ValidationResult


class AnswerabilityCheck:
    """Re-derives the answer from the facts the task records and fails it when it is ambiguous, when an
    evidence span is not needed, or when one span alone gives the answer."""

    name = "answerability"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context" and {"facts", "query"} <= set(task.reference)

    def run(self, task: Task) -> ValidationResult:
        problems = answerability_problems(
            task.payload["category"], task.reference["facts"], [e["fact_id"] for e in task.payload["evidence"]],
            task.reference["query"], task.reference["answer"])
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
