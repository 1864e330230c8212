"""select_evidence: a claim and the papers a search retrieved for it; pick the supporting papers and passages.

The claim is read off one finding (a reported number, the named term of its
setting nearest the number, and its metric: `findings.py`). A content passage that is not
extraction debris (`debris.py`) supports it when it states the number together with
both terms. The candidates are the search results for the claim: the
supporting ones are gold, the others are near misses that share words and
usually terms with the claim but not the result.
"""

from __future__ import annotations

import random

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.debris import passage_debris
from taskforge.builders.literature.findings import findings
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.graders.literature.concepts import content_sections
from taskforge.graders.literature.environment import SearchEnvironment
from taskforge.graders.literature.papers import Paper, full_text, mentions, passages, supports

KIND = "select_evidence"
RETRIEVED = 8
MIN_DISTRACTORS, MIN_NEAR_MISSES = 3, 2
PAPERS_TRIED = 12


def _facts(paper: Paper) -> list[dict]:
    """Candidate claims of a paper: its findings with a named setting, as the number, the setting's nearest term
    and the metric (`findings.py`)."""
    return [{"value": f.value, "terms": [f.setting[0], f.metric]} for f in findings(paper) if f.setting]


def _evidence(paper: Paper) -> dict[str, str]:
    """The passages of a paper that can be evidence: content, not headings, OCR-garbled text, LaTeX, reference
    lists or acknowledgments (`debris.py`)."""
    content = content_sections(paper)
    return {pid: text for pid, text in passages(paper).items()
            if pid.rsplit(":", 1)[0] in content and passage_debris(text) in (None, "a flattened table")}


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One select_evidence case from a randomly chosen reported result, or None when it does not make one."""
    collection = env.collection
    with_text = [p for p in collection.papers if p.sections]
    for paper in rng.sample(with_text, min(PAPERS_TRIED, len(with_text))):
        facts = _facts(paper)
        if not facts:
            continue
        support = rng.choice(facts)
        claim = writer.phrase(KIND, support)
        retrieved = [collection.by_id[hit["paper_id"]] for hit in env.search(claim, RETRIEVED)["results"]]
        gold_passages = [key_passage(p, pid, text) for p in retrieved for pid, text in _evidence(p).items()
                         if supports(text, support)]
        gold_ids = sorted({g["paper_id"] for g in gold_passages})
        distractors = [p for p in retrieved if p.paper_id not in gold_ids]
        near = [p for p in distractors if any(mentions(full_text(p), t) for t in support["terms"])]
        if paper.paper_id not in gold_ids or len(distractors) < MIN_DISTRACTORS or len(near) < MIN_NEAR_MISSES:
            continue
        candidates = sorted(retrieved, key=lambda p: p.paper_id)
        listing = ["Candidate papers retrieved for this claim:"] + [
            f"- {p.paper_id}: {p.title} ({p.year})" for p in candidates]
        return Case(
            kind=KIND, question=claim, user=user_message(KIND, claim, listing), facts=support,
            payload={"claim": claim, "question_writer": writer.name,
                     "candidates": [{"paper_id": p.paper_id, "title": p.title, "year": p.year} for p in candidates],
                     "difficulty": {"candidates": len(candidates), "supporting": len(gold_ids),
                                    "near_misses": len(near)}},
            reference={
                "answer": {"papers": gold_ids,
                           "passages": [{"paper_id": g["paper_id"], "passage": g["passage"]} for g in gold_passages]},
                "gold_ids": gold_ids, "support": support,
                "distractor_ids": [p.paper_id for p in distractors],
                "papers": [paper_entry(p, "gold" if p.paper_id in gold_ids else "distractor") for p in candidates],
                "key_passages": gold_passages,
                "tool_path": [search_call(claim, RETRIEVED)]
                             + [read_call(g["paper_id"], g["passage"]) for g in gold_passages],
            },
            grader={"scorer": "literature.evidence_selection"},
        )
    return None
