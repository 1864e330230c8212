"""Rendered-prompt check, part of the long-context `reference` strategy: the prompt the solver sees is the prompt
the payload renders (system message, documents, question), and it shows every evidence span.

The prompt is rendered again from the payload's documents and question with
the builder's own renderer (`taskforge.graders.long_context.prompting`) and must
equal the stored prompt message by message; a difference is located (the
system prompt, the document it falls in, or the question). Every evidence span
of the payload must appear in the stored user message: a task whose evidence
was withheld from the solver cannot be answered.
"""

from __future__ import annotations

from taskforge.graders.long_context.prompting import QUESTION_SEPARATOR, render_documents, rendered_messages
from taskforge.schemas import Task, ValidationResult
from taskforge.schemas.long_context import LongContextPayload


def _first_difference(left: str, right: str) -> int:
    """The first character offset at which two texts differ."""
    return next((i for i, (a, b) in enumerate(zip(left, right)) if a != b), min(len(left), len(right)))


def _where_in_documents(payload: LongContextPayload, offset: int) -> str:
    """The document of the rendered documents part a character offset falls in."""
    position = 0
    for document in payload.documents:
        position += len(render_documents([document.model_dump()])) + 2
        if offset < position:
            return document.doc_id
    return "the end of the documents"


def prompt_differences(task: Task) -> list[str]:
    """Where the stored prompt differs from the one the payload renders."""
    payload = LongContextPayload.of(task)
    expected = rendered_messages([d.model_dump() for d in payload.documents], payload.question)
    stored = [{"role": m.role, "content": m.content} for m in task.prompt]
    if [m["role"] for m in stored] != [m["role"] for m in expected]:
        return [f"the stored prompt has the messages {[m['role'] for m in stored]}, the payload renders "
                f"{[m['role'] for m in expected]}"]
    problems = []
    for want, got in zip(expected, stored):
        if want["content"] == got["content"]:
            continue
        if want["role"] == "system":
            problems.append("the stored system prompt is not the one the payload renders")
            continue
        want_docs, _, want_question = want["content"].rpartition(QUESTION_SEPARATOR)
        got_docs, _, got_question = got["content"].rpartition(QUESTION_SEPARATOR)
        if want_docs != got_docs:
            where = _where_in_documents(payload, _first_difference(want_docs, got_docs))
            problems.append(f"the documents the solver sees differ from the payload's in {where}")
        if want_question != got_question:
            problems.append("the question the solver sees differs from the payload's")
    return problems


def withheld_evidence(task: Task) -> list[str]:
    """Evidence spans of the payload that the solver's messages do not show."""
    payload = LongContextPayload.of(task)
    shown = "\n".join(m.content for m in task.prompt if m.role == "user")
    texts = {d.doc_id: d.text for d in payload.documents}
    return [f"evidence {span.fact_id} ({span.doc_id}) is not in the prompt the solver sees" for span in payload.evidence
            if span.doc_id in texts and texts[span.doc_id][span.start:span.end] not in shown]


class RenderedPromptCheck:
    """Fails a long-context task whose stored prompt is not what its payload renders, or hides evidence."""

    name = "rendered_prompt"

    def applies_to(self, task: Task) -> bool:
        return task.family == "long_context"

    def run(self, task: Task) -> ValidationResult:
        problems = prompt_differences(task) + withheld_evidence(task)
        return ValidationResult(check=self.name, passed=not problems, reason="; ".join(problems) or None,
                                detail={"problems": problems})
