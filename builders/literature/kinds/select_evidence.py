"""select_evidence: a claim and the full-text papers a search retrieved for it; pick the supporting papers and the
passages that show it.

The claim is read off one result (`findings.py`): a reported number with its metric ("an nDCG of 53.9") and,
where the sentence names it before the number, the method, dataset or group it was measured for ("for MeSH").
Only results count: a number in a methods section, a configured parameter ("set to 0.5 mL/h"), a quantity
with a unit of measure ("0.22 μM"), or a number in brackets after another ("86.4 (82.0)") makes no claim. The
setting is the nearest named term before the number outside brackets with no comparison between them (in
"improving over SGC" the baseline is not the setting), and is left out when a candidate's title names it (the
title would single the paper out). A passage supports the claim when it states the number with every term
of it; every supporting passage must be a clean content passage (`debris.py`).

The candidates are the retrieved papers that have full text, so none can be ruled out from its title; the
task needs near-miss passages: passages of the candidates that state another figure of the same metric or
setting (the gold paper's other results, a related paper's), which only reading tells apart.
"""

from __future__ import annotations

import random
import re

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.debris import passage_debris, term_debris
from taskforge.builders.literature.findings import METRIC, NUMBER, Finding, findings
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.builders.literature.text import entity_terms
from taskforge.graders.literature.concepts import content_sections
from taskforge.graders.literature.environment import SearchEnvironment
from taskforge.graders.literature.papers import Paper, mentions, passages, supports

KIND = "select_evidence"
RETRIEVED = 8
MIN_DISTRACTORS, MIN_NEAR_PASSAGES = 1, 2
PAPERS_TRIED = 12
_NOT_RESULTS = re.compile(r"method|material|setup|implementation|procedure|parameter|introduction|related|"
                          r"background|data_collection", re.IGNORECASE)
"""Sections whose numbers are set-ups, other people's results or motivation, not the paper's findings."""
_CONFIGURED = re.compile(r"\b(?:(?:is|are|was|were) set to|parameters? (?:is|are|was|were)|settings? (?:is|are|was|"
                         r"were))\b", re.IGNORECASE)
_MEASURE_AFTER = re.compile(r"\s?(?:[μµ]\w*|[munk]?[MgLlV]\b|mL|wt|kV|cm|mm|nm|kg|mg|°|W/|h\b|min\b|s\b)")
"""A unit of measure right after a number: the number is an amount (a dose, a voltage), not a result."""
_COMPARISON = re.compile(r"\b(?:over|than|compared|versus|vs\.?|against|baseline|outperform\w*|unlike)\b",
                         re.IGNORECASE)
_BRACKETED = re.compile(r"\([^()]*\)")
_GAIN_BEFORE = re.compile(r"(?:\bby|\+|∆=?\s*\+?|\b(?:improvement|increase|gain|drop|decrease|reduction) of)\s*$",
                          re.IGNORECASE)
_GAIN_AFTER = re.compile(r"(?:\s*(?:%|,|and|\d+(?:\.\d+)?))*\s*(?:[\w-]+\s+)?(?:points?|pp|gains?|boosts?|"
                         r"improvements?|increases?)\b")
"""A number that is a difference: after 'by', '+', '∆' or 'improvement of', or counted in points or as a gain ('4.2 F1
points', '13% and 10% relative gains')."""


def _setting(sentence: str, start: int, metric: str) -> str | None:
    """The named term the number was measured for: the nearest one before it, outside brackets, with no
    comparison word just before it (in "improving over SGC" the baseline is no setting); None when there is none."""
    before = _BRACKETED.sub(lambda m: " " * len(m[0]), sentence[:start])
    for term in reversed(entity_terms(before)):
        at = before.rfind(term)
        if (term_debris(term) is None and term != metric and not METRIC.fullmatch(term)
                and not _COMPARISON.search(before[max(0, at - 24):])):
            return term
    return None


def claim_of(finding: Finding) -> dict | None:
    """The claim a finding makes (`value`, `metric`, `setting` or None, `gain`), or None when the number is not
    a result of the paper: in a section of methods or background, a configured parameter, an amount with a
    unit, or a bracketed alternative of another number."""
    if _NOT_RESULTS.search(finding.passage_id.rsplit(":", 1)[0]) or _CONFIGURED.search(finding.sentence):
        return None
    match = next((m for m in NUMBER.finditer(finding.sentence) if m[0] == finding.value), None)
    if match is None:
        return None
    start, end = match.span()
    bracketed = any(m.start() < start < m.end() for m in _BRACKETED.finditer(finding.sentence))
    if bracketed or _MEASURE_AFTER.match(finding.sentence, end):
        return None
    gain = bool(_GAIN_BEFORE.search(finding.sentence[:start]) or _GAIN_AFTER.match(finding.sentence, end))
    return {"value": finding.value, "metric": finding.metric,
            "setting": _setting(finding.sentence, start, finding.metric), "gain": gain}


def evidence_passages(paper: Paper) -> dict[str, str]:
    """The passages of a paper that can be evidence: content, not headings, OCR-garbled text, LaTeX, tables,
    reference lists or acknowledgments (`debris.py`)."""
    content = content_sections(paper)
    return {pid: text for pid, text in passages(paper).items()
            if pid.rsplit(":", 1)[0] in content and passage_debris(text) is None}


def near_misses(evidence: dict[str, dict[str, str]], support: dict) -> list[tuple[str, str]]:
    """(paper id, passage id) of the clean passages (`evidence`: paper id → passage id → text) that state a figure
    with the claim's metric or setting but do not support the claim."""
    return [(paper_id, pid) for paper_id, texts in evidence.items() for pid, text in texts.items()
            if not supports(text, support) and NUMBER.search(text) and any(mentions(text, t) for t in support["terms"])]


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One select_evidence case from a randomly chosen result, or None when it does not make one."""
    collection = env.collection
    with_text = [p for p in collection.papers if p.sections]
    clean: dict[str, dict[str, str]] = {}
    for paper in rng.sample(with_text, min(PAPERS_TRIED, len(with_text))):
        claims = [c for f in findings(paper) if (c := claim_of(f))]
        if not claims:
            continue
        claim = rng.choice(claims)
        probe = {**claim, "setting": None}
        retrieved = [collection.by_id[hit["paper_id"]]
                     for hit in env.search(writer.phrase(KIND, {**probe, "terms": [claim["metric"]]}),
                                           RETRIEVED)["results"]]
        candidates = sorted({p.paper_id: p for p in [paper, *retrieved] if p.sections}.values(),
                            key=lambda p: p.paper_id)
        if claim["setting"] and any(mentions(p.title, claim["setting"]) for p in candidates):
            claim = probe
        support = {"value": claim["value"], "terms": [t for t in (claim["setting"], claim["metric"]) if t]}
        question = writer.phrase(KIND, {**claim, "terms": support["terms"]})
        gold_passages = [key_passage(p, pid, text) for p in candidates for pid, text in passages(p).items()
                         if supports(text, support)]
        for candidate in candidates:
            if candidate.paper_id not in clean:
                clean[candidate.paper_id] = evidence_passages(candidate)
        evidence = {p.paper_id: clean[p.paper_id] for p in candidates}
        gold_ids = sorted({g["paper_id"] for g in gold_passages})
        distractors = [p for p in candidates if p.paper_id not in gold_ids]
        near = near_misses(evidence, support)
        if (paper.paper_id not in gold_ids or len(distractors) < MIN_DISTRACTORS or len(near) < MIN_NEAR_PASSAGES
                or any(g["passage"] not in evidence[g["paper_id"]] for g in gold_passages)):
            continue
        listing = ["Candidate papers retrieved for this claim:"] + [
            f"- {p.paper_id}: {p.title} ({p.year})" for p in candidates]
        return Case(
            kind=KIND, question=question, user=user_message(KIND, question, listing), facts=support,
            payload={"claim": question, "question_writer": writer.name,
                     "candidates": [{"paper_id": p.paper_id, "title": p.title, "year": p.year} for p in candidates],
                     "difficulty": {"candidates": len(candidates), "supporting": len(gold_ids),
                                    "near_miss_passages": len(near),
                                    "near_miss_papers": len({pid for pid, _ in near} - set(gold_ids))}},
            reference={
                "answer": {"papers": gold_ids,
                           "passages": [{"paper_id": g["paper_id"], "passage": g["passage"]} for g in gold_passages]},
                "gold_ids": gold_ids, "support": support,
                "distractor_ids": [p.paper_id for p in distractors],
                "papers": [paper_entry(p, "gold" if p.paper_id in gold_ids else "distractor") for p in candidates],
                "key_passages": gold_passages,
                "tool_path": [search_call(question, RETRIEVED)]
                             + [read_call(g["paper_id"], g["passage"]) for g in gold_passages],
            },
            grader={"scorer": "literature.evidence_selection"},
        )
    return None
