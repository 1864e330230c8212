"""Answerability check: under the task's world model the answer is unique, every evidence span is needed,
and no single span holds the answer (see `taskforge.graders.long_context.answerability`)."""

from __future__ import annotations

from taskforge.graders.long_context.answerability import answerability_problems
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.long_context import LongContextPayload, LongContextReference


class AnswerabilityCheck:
    """Re-derives the answer from the facts the task records and fails it when it is ambiguous, when an
    evidence span is not needed, or when one span alone gives the answer."""

    name = "answerability"

    def applies_to(self, task: Task) -> bool:
        reference = LongContextReference.of(task)
        return reference.facts is not None and reference.query is not None

    def run(self, task: Task) -> ValidationResult:
        payload, reference = LongContextPayload.of(task), LongContextReference.of(task)
        facts = [fact.model_dump(exclude_unset=True) for fact in reference.facts]
        problems = answerability_problems(payload.category, facts, [span.fact_id for span in payload.evidence],
                                          reference.query, reference.answer)
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
