"""How a long-context task is shown to the solver: documents, then the question, then the answer format.

Shared by the builder, which renders the prompt, and the checks, which render it again from the payload and
compare it with the prompt the task stores."""

from __future__ import annotations

from typing import Any

SYSTEM = "You answer questions about long document collections. Base every answer on the documents only."
QUESTION_SEPARATOR = "\n\n---\n\n"


def heading(title: str, doc_id: str) -> str:
    """A document's heading with the blank line after it."""
    return f"### {title} [{doc_id}]\n\n"


def render_documents(documents: list[dict[str, Any]]) -> str:
    """The documents as the solver reads them, each under a heading with its id."""
    return "\n\n".join(heading(doc["title"], doc["doc_id"]) + doc["text"] for doc in documents)


def user_message(documents: list[dict[str, Any]], question: str) -> str:
    """The whole user turn: the documents and the question."""
    return f"{render_documents(documents)}{QUESTION_SEPARATOR}{question}"


def prompt_text(documents: list[dict[str, Any]], question: str) -> str:
    """System message and user turn as one text: what the context length is measured on."""
    return SYSTEM + user_message(documents, question)


def rendered_messages(documents: list[dict[str, Any]], question: str) -> list[dict[str, str]]:
    """The chat messages a task with these documents and question shows the solver."""
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_message(documents, question)}]
