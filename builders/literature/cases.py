"""What every literature kind generator returns, and the parts of it that all kinds share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taskforge.graders.literature.environment import METADATA
from taskforge.graders.literature.papers import Paper


@dataclass
class Case:
    """One generated task before it is wrapped in the envelope: the question and the facts it was phrased
    from, what the solver is shown (the question first), the payload, the hidden reference and the grader spec."""

    kind: str
    question: str
    user: str
    payload: dict[str, Any]
    reference: dict[str, Any]
    grader: dict[str, Any]
    facts: dict[str, Any]


def paper_entry(paper: Paper, role: str) -> dict[str, Any]:
    """A paper the task is built on, with its external ids (decontamination matches those)."""
    return {"paper_id": paper.paper_id, "doi": paper.doi, "arxiv_id": paper.arxiv_id, "title": paper.title,
            "role": role}


def key_passage(paper: Paper, passage: str | None, text: str | None) -> dict[str, Any]:
    """A passage that shows the answer; a paper whose evidence is its title points at its metadata."""
    if passage is None:
        return {"paper_id": paper.paper_id, "passage": METADATA, "text": paper.title}
    return {"paper_id": paper.paper_id, "passage": passage, "text": text}


def search_call(query: str, k: int) -> dict[str, Any]:
    """A `search` tool call of a reference path."""
    return {"tool": "search", "arguments": {"query": query, "k": k}}


def read_call(paper_id: str, section: str) -> dict[str, Any]:
    """A `read` tool call of a reference path (the section of a passage id like `results:2`)."""
    return {"tool": "read", "arguments": {"paper_id": paper_id, "section": section.split(":", 1)[0]}}
