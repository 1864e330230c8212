"""How a long-context task is shown to the solver: documents, then the question, then the answer format."""

from __future__ import annotations

from typing import Any

from builders.long_context.render import Document

SYSTEM = "You answer questions about long document collections. Base every answer on the documents only."


def render_documents(documents: list[Document] | list[dict[str, Any]]) -> str:
    """The documents as the solver reads them, each under a heading with its id."""
    parts = []
    for doc in documents:
        doc_id, title, text = (doc.doc_id, doc.title, doc.text) if isinstance(doc, Document) else (
            doc["doc_id"], doc["title"], doc["text"])
        parts.append(f"### {title} [{doc_id}]\n\n{text}")
    return "\n\n".join(parts)


def user_message(documents: list[Document] | list[dict[str, Any]], question: str) -> str:
    """The whole user turn: the documents and the question."""
    return f"{render_documents(documents)}\n\n---\n\n{question}"
