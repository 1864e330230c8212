"""Leaks in literature tasks: what the solver is shown must not give away the gold papers or the answer."""

from __future__ import annotations

import re
from typing import Any

from taskforge.graders.paper_ids import arxiv_ids_in, dois_in
from taskforge.graders.literature.papers import mentions
from taskforge.schemas import Task


def _occurrences(text: str, paper_id: str) -> int:
    return len(re.findall(rf"(?<![\w-]){re.escape(paper_id)}(?![\w-])", text, re.IGNORECASE))


def _gold(reference: dict[str, Any]) -> list[dict[str, Any]]:
    gold_ids = set(reference.get("gold_ids", []))
    return [p for p in reference.get("papers", []) if p["paper_id"] in gold_ids]


def _common_leaks(task: Task, visible: str) -> list[str]:
    """Leaks every kind is checked for: gold DOIs/arXiv ids and key passages in the prompt."""
    leaks = []
    dois, arxivs = dois_in(visible), arxiv_ids_in(visible)
    for paper in _gold(task.reference):
        if paper.get("doi") in dois or paper.get("arxiv_id") in arxivs:
            leaks.append(f"the prompt gives the external id of gold paper {paper['paper_id']}")
    for passage in task.reference.get("key_passages", []):
        if passage["passage"] != "metadata" and passage["text"].casefold() in visible.casefold():
            leaks.append(f"the prompt quotes key passage {passage['paper_id']} {passage['passage']}")
    return leaks


def _find_papers_leaks(task: Task, visible: str) -> list[str]:
    leaks = []
    for paper in _gold(task.reference):
        if _occurrences(visible, paper["paper_id"]):
            leaks.append(f"the prompt names answer paper {paper['paper_id']}")
        if paper["title"].casefold() in visible.casefold():
            leaks.append(f"the question names answer paper {paper['paper_id']} by its title")
    return leaks


def _select_evidence_leaks(task: Task, visible: str) -> list[str]:
    counts = {c["paper_id"]: _occurrences(visible, c["paper_id"]) for c in task.payload.get("candidates", [])}
    baseline = min((n for pid, n in counts.items() if pid not in task.reference["gold_ids"]), default=1)
    return [f"gold paper {pid} is singled out in the prompt ({counts.get(pid, 0)} mentions, other candidates "
            f"{baseline})" for pid in task.reference["gold_ids"] if counts.get(pid, 0) != baseline]


def _fulltext_qa_leaks(task: Task, visible: str) -> list[str]:
    listing = {f"{letter}. {text}" for letter, text in task.payload.get("options", {}).items()}
    outside = "\n".join(line for line in visible.splitlines() if line.strip() not in listing)
    leaks = []
    if mentions(outside, task.reference["answer_text"]):
        leaks.append(f"the answer {task.reference['answer_text']!r} appears in the prompt outside the options")
    if task.reference.get("key_sentence", "").casefold() in visible.casefold():
        leaks.append("the prompt quotes the key sentence with its number")
    return leaks


def _table_synthesis_leaks(task: Task, visible: str) -> list[str]:
    return [f"the prompt gives the {column} of {row} ({value})"
            for row, cells in task.reference["answer"].items() for column, value in cells.items()
            if str(value) not in ("yes", "no") and mentions(visible, str(value))]


_BY_KIND = {"find_papers": _find_papers_leaks, "select_evidence": _select_evidence_leaks,
            "fulltext_qa": _fulltext_qa_leaks, "table_synthesis": _table_synthesis_leaks}


def literature_leaks(task: Task) -> list[str]:
    """Gold external ids or key passages in the prompt, plus what each kind must not show (for find_papers: the
    answer papers by id or title)."""
    visible = "\n".join(m.content for m in task.prompt)
    kind_leaks = _BY_KIND.get(task.kind)
    return _common_leaks(task, visible) + (kind_leaks(task, visible) if kind_leaks else [])
