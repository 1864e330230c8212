"""Leakage check: the solver must not be able to read the answer off what it is shown.

One function per family finds leaks in a task; the check fails on any leak.
"""

from __future__ import annotations

import re
from typing import Callable

from taskforge.graders.long_context.values import verbatim_in
from taskforge.schemas import Task, ValidationResult
from taskforge.validators.literature_leaks import literature_leaks
from taskforge.validators.mle_leakage import mle_leaks
from taskforge.validators.swe_leakage import swe_leaks
from taskforge.validators.workflow_leakage import workflow_leaks

LeakFinder = Callable[[Task], list[str]]


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
    payload, reference = task.payload, task.reference
    answer = reference.get("answer")
    answer_text = reference.get("answer_text", "")
    for where, question in (("question", payload.get("question", "")), ("question shown", _shown_question(task))):
        if answer_text and verbatim_in(answer_text, question):
            leaks.append(f"the answer {answer_text!r} appears verbatim in the {where}")
    if payload.get("answer_type") == "ordered_labels" and isinstance(answer, list) and len(answer) > 1:
        visible = "\n".join(m.content for m in task.prompt)
        for doc in payload.get("documents", []):
            spans = [(e["start"], e["end"]) for e in payload.get("evidence", []) if e["doc_id"] == doc["doc_id"]]
            visible = visible.replace(doc["text"], _mask_spans(doc["text"], spans))
        if _sequence_pattern(answer).search(visible):
            leaks.append(f"the answer sequence {answer_text!r} appears verbatim in the prompt")
        if list(payload.get("items", {})) == answer:
            leaks.append("the question lists the items already in the answer's order")
    return leaks


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
