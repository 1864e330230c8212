"""Leaks of long-context tasks, read off every message the solver sees (the stored prompt, system message
included), never off the payload it was rendered from.

Looked for in each part of the prompt:
- the system prompt and the question: the answer verbatim, or the statement of an
  evidence span (a fact only the evidence states, given away outside the documents);
- the documents: the answer written as an answer ("Answer: X", "the answer is X");
  an answer in a form documents never write (an ordering of labels, a set of
  document ids, a value per item, several names) verbatim outside the evidence
  spans; and the question listing its items already in the answer's order.
"""

from __future__ import annotations

import re

from taskforge.graders.long_context.prompting import QUESTION_SEPARATOR
from taskforge.graders.long_context.values import verbatim_in
from taskforge.schemas import Task
from taskforge.schemas.long_context import LongContextPayload, LongContextReference

COMPOSITE_ANSWERS = frozenset({"ordered_labels", "document_set", "document_per_item", "class_per_item"})
"""Answer types whose written form ('B, A, C'; 'doc-2, doc-5'; 'A: held; B: cleared') documents never contain."""
MIN_STATEMENT_CHARS = 20


def seen_parts(task: Task) -> dict[str, str]:
    """What the solver is shown, by where: the system prompt, the documents and the question."""
    system = "\n".join(m.content for m in task.prompt if m.role == "system")
    users = [m.content for m in task.prompt if m.role == "user"]
    documents, _, question = "\n".join(users).rpartition(QUESTION_SEPARATOR)
    return {"system prompt": system, "documents": documents, "question": question}


def _as_answer(answer_text: str) -> re.Pattern[str]:
    """The answer written as an answer: after 'answer', 'answer is', 'answer:' (any case)."""
    words = r"\s+".join(map(re.escape, answer_text.split()))
    return re.compile(rf"\banswer\b(?:\s+(?:is|was|would be))?\s*[:=-]?\s*{words}(?!\w)", re.IGNORECASE)


def composite(answer_type: str, answer: object) -> bool:
    """Whether an answer's written form is one documents never contain (a composite, or several names)."""
    return answer_type in COMPOSITE_ANSWERS or (isinstance(answer, list) and len(answer) > 1)


def _without(text: str, spans: list[str]) -> str:
    """The text with every occurrence of the spans blanked out (lengths kept)."""
    for span in sorted(spans, key=len, reverse=True):
        text = text.replace(span, " " * len(span))
    return text


def _sequence_pattern(labels: list[str]) -> re.Pattern[str]:
    """Matches the labels in this order with any short separators ('B, A', 'B A', 'B→A')."""
    return re.compile(r"\b" + r"\W{1,4}".join(map(re.escape, labels)) + r"\b")


def long_context_leaks(task: Task) -> list[str]:
    """Every way found to read the answer, or a fact only the evidence states, off the messages the solver sees."""
    payload, reference = LongContextPayload.of(task), LongContextReference.of(task)
    answer, answer_text = reference.answer, reference.answer_text
    parts = seen_parts(task)
    texts = {d.doc_id: d.text for d in payload.documents}
    statements = {span.fact_id: texts[span.doc_id][span.start:span.end].strip() for span in payload.evidence
                  if span.doc_id in texts}
    leaks = []
    for where in ("system prompt", "question"):
        if answer_text and verbatim_in(answer_text, parts[where]):
            leaks.append(f"the answer {answer_text!r} appears verbatim in the {where}")
        leaks += [f"the {where} states the evidence of {fact_id}" for fact_id, statement in statements.items()
                  if len(statement) >= MIN_STATEMENT_CHARS and statement in parts[where]]
    if answer_text and payload.question and verbatim_in(answer_text, payload.question):
        leaks.append(f"the answer {answer_text!r} appears verbatim in the payload's question")
    outside = _without(parts["documents"], list(statements.values()))
    if answer_text and _as_answer(answer_text).search(outside):
        leaks.append(f"the documents write the answer {answer_text!r} as an answer")
    elif answer_text and composite(payload.answer_type, answer) and verbatim_in(answer_text, outside):
        leaks.append(f"the answer {answer_text!r} appears verbatim in the documents outside the evidence")
    if payload.answer_type == "ordered_labels" and isinstance(answer, list) and len(answer) > 1:
        if _sequence_pattern(answer).search(outside + "\n" + parts["system prompt"] + "\n" + parts["question"]):
            leaks.append(f"the answer sequence {answer_text!r} appears verbatim in the prompt")
        if list(payload.items) == answer:
            leaks.append("the question lists the items already in the answer's order")
    return leaks
