"""Leaks in literature tasks: what the solver is shown must not give away the gold papers or the answer."""

from __future__ import annotations

import re

from taskforge.graders.paper_ids import arxiv_ids_in, dois_in
from taskforge.graders.literature.papers import mentions
from taskforge.schemas import Task
from taskforge.schemas.literature import (DescribedFindingPayload, DescribedFindingReference, FindPapersReference,
                                          FulltextQaPayload, FulltextQaReference, LiteratureReference, PaperEntry,
                                          SelectEvidencePayload, SelectEvidenceReference, TableSynthesisReference)


def _occurrences(text: str, paper_id: str) -> int:
    return len(re.findall(rf"(?<![\w-]){re.escape(paper_id)}(?![\w-])", text, re.IGNORECASE))


def _gold(reference: LiteratureReference) -> list[PaperEntry]:
    gold_ids = set(reference.gold_ids)
    return [p for p in reference.papers if p.paper_id in gold_ids]


def _common_leaks(task: Task, visible: str) -> list[str]:
    """Leaks every kind is checked for: gold DOIs/arXiv ids and key passages in the prompt."""
    leaks = []
    dois, arxivs = dois_in(visible), arxiv_ids_in(visible)
    reference = LiteratureReference.of(task)
    for paper in _gold(reference):
        if paper.doi in dois or paper.arxiv_id in arxivs:
            leaks.append(f"the prompt gives the external id of gold paper {paper.paper_id}")
    for passage in reference.key_passages:
        if passage.passage != "metadata" and passage.text.casefold() in visible.casefold():
            leaks.append(f"the prompt quotes key passage {passage.paper_id} {passage.passage}")
    return leaks


def _named_gold(reference: LiteratureReference, visible: str) -> list[str]:
    """Gold papers the prompt names by id or title."""
    leaks = []
    for paper in _gold(reference):
        if _occurrences(visible, paper.paper_id):
            leaks.append(f"the prompt names answer paper {paper.paper_id}")
        if paper.title.casefold() in visible.casefold():
            leaks.append(f"the question names answer paper {paper.paper_id} by its title")
    return leaks


def _find_papers_leaks(task: Task, visible: str) -> list[str]:
    return _named_gold(FindPapersReference.of(task), visible)


def _select_evidence_leaks(task: Task, visible: str) -> list[str]:
    gold_ids = SelectEvidenceReference.of(task).gold_ids
    counts = {c.paper_id: _occurrences(visible, c.paper_id) for c in SelectEvidencePayload.of(task).candidates}
    baseline = min((n for pid, n in counts.items() if pid not in gold_ids), default=1)
    return [f"gold paper {pid} is singled out in the prompt ({counts.get(pid, 0)} mentions, other candidates "
            f"{baseline})" for pid in gold_ids if counts.get(pid, 0) != baseline]


def _answer_leaks(visible: str, options: dict[str, str], reference: FulltextQaReference) -> list[str]:
    """A multiple-choice answer shown outside the options, or its sentence quoted."""
    listing = {f"{letter}. {text}" for letter, text in options.items()}
    outside = "\n".join(line for line in visible.splitlines() if line.strip() not in listing)
    leaks = []
    if mentions(outside, reference.answer_text):
        leaks.append(f"the answer {reference.answer_text!r} appears in the prompt outside the options")
    if reference.key_sentence.casefold() in visible.casefold():
        leaks.append("the prompt quotes the key sentence with its number")
    return leaks


def _fulltext_qa_leaks(task: Task, visible: str) -> list[str]:
    return _answer_leaks(visible, FulltextQaPayload.of(task).options, FulltextQaReference.of(task))


def _described_finding_leaks(task: Task, visible: str) -> list[str]:
    """The paper is described, never named; the answer and its sentence are not shown."""
    reference = DescribedFindingReference.of(task)
    return _named_gold(reference, visible) + _answer_leaks(visible, DescribedFindingPayload.of(task).options, reference)


def _table_synthesis_leaks(task: Task, visible: str) -> list[str]:
    return [f"the prompt gives the {column} of {row} ({value})"
            for row, cells in TableSynthesisReference.of(task).answer.items() for column, value in cells.items()
            if str(value) not in ("yes", "no") and mentions(visible, str(value))]


_BY_KIND = {"find_papers": _find_papers_leaks, "select_evidence": _select_evidence_leaks,
            "fulltext_qa": _fulltext_qa_leaks, "table_synthesis": _table_synthesis_leaks,
            "described_finding": _described_finding_leaks, "find_papers_2hop": _find_papers_leaks}


def literature_leaks(task: Task) -> list[str]:
    """Gold external ids or key passages in the prompt, plus what each kind must not show (for find_papers: the
    answer papers by id or title)."""
    visible = "\n".join(m.content for m in task.prompt)
    kind_leaks = _BY_KIND.get(task.kind)
    return _common_leaks(task, visible) + (kind_leaks(task, visible) if kind_leaks else [])
