"""Leaks of long-context tasks: the answer in the question, or an ordering answer anywhere outside its evidence."""

from __future__ import annotations

import re

from taskforge.graders.long_context.values import verbatim_in
from taskforge.schemas import Task
from taskforge.schemas.long_context import LongContextPayload, LongContextReference


def _mask_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with the given character spans blanked out (lengths kept)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _sequence_pattern(labels: list[str]) -> re.Pattern[str]:
    """Matches the labels in this order with any short separators ('B, A', 'B A', 'B→A')."""
    return re.compile(r"\b" + r"\W{1,4}".join(map(re.escape, labels)) + r"\b")


def _shown_question(task: Task) -> str:
    """What the solver sees after the documents: the tail of the last user message."""
    users = [m.content for m in task.prompt if m.role == "user"]
    return users[-1].rsplit("\n---\n", 1)[-1] if users else ""


def long_context_leaks(task: Task) -> list[str]:
    """The answer verbatim in the question (as recorded and as shown), an ordering answer verbatim anywhere
    in the prompt outside its evidence, or the question listing items already in the answer's order."""
    leaks = []
    payload, reference = LongContextPayload.of(task), LongContextReference.of(task)
    answer, answer_text = reference.answer, reference.answer_text
    for where, question in (("question", payload.question), ("question shown", _shown_question(task))):
        if answer_text and verbatim_in(answer_text, question):
            leaks.append(f"the answer {answer_text!r} appears verbatim in the {where}")
    if payload.answer_type == "ordered_labels" and isinstance(answer, list) and len(answer) > 1:
        visible = "\n".join(m.content for m in task.prompt)
        for doc in payload.documents:
            spans = [(e.start, e.end) for e in payload.evidence if e.doc_id == doc.doc_id]
            visible = visible.replace(doc.text, _mask_spans(doc.text, spans))
        if _sequence_pattern(answer).search(visible):
            leaks.append(f"the answer sequence {answer_text!r} appears verbatim in the prompt")
        if list(payload.items) == answer:
            leaks.append("the question lists the items already in the answer's order")
    return leaks
