"""Evidence check: every recorded evidence span lies inside its document and states the fact it stands for.

A span names the world-model fact it supports; the fact lists what its
sentence must contain (texts verbatim, a date, a number, a version), and the
check reads those back from the span's text with the shared value readers.
"""

from __future__ import annotations

import datetime as dt

from taskforge.graders.long_context.values import dates_in, numbers_in, verbatim_in, versions_in
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.long_context import FactCheck, LongContextPayload, LongContextReference


def _supports(text: str, check: FactCheck) -> bool:
    """Whether a span's text contains what one check of its fact asks for."""
    kind, value = check.type, check.value
    if kind == "date":
        return dt.date.fromisoformat(value) in dates_in(text)
    if kind == "number":
        return float(value) in numbers_in(text)
    if kind == "version":
        return str(value).lower() in versions_in(text)
    return verbatim_in(str(value), text)


def span_problems(task: Task) -> list[str]:
    """Every evidence span that is out of bounds, names no known fact, or does not state its fact."""
    payload, reference = LongContextPayload.of(task), LongContextReference.of(task)
    documents = {d.doc_id: d.text for d in payload.documents}
    facts = {f.fact_id: f for f in reference.facts or []}
    problems = []
    for span in payload.evidence:
        text = documents.get(span.doc_id)
        where = f"evidence {span.fact_id} in {span.doc_id}"
        if text is None:
            problems.append(f"{where}: no such document")
            continue
        if not 0 <= span.start < span.end <= len(text):
            problems.append(f"{where}: offsets {span.start}..{span.end} outside the document")
            continue
        fact = facts.get(span.fact_id)
        if fact is None:
            problems.append(f"{where}: names no fact of the world model")
            continue
        stated = text[span.start:span.end]
        missing = [f"{c.type} {c.value}" for c in fact.checks if not _supports(stated, c)]
        if missing:
            problems.append(f"{where}: the span does not state {', '.join(missing)}")
    if not payload.evidence:
        problems.append("no evidence recorded")
    return problems


class EvidenceCheck:
    """Fails a task whose evidence spans are out of bounds, missing, or do not state what the answer needs."""

    name = "evidence"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context"

    def run(self, task: Task) -> ValidationResult:
        problems = span_problems(task)
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
