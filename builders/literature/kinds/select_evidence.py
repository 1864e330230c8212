"""select_evidence: a claim and the full-text papers a search retrieved for it; pick the supporting papers and the
passages that show it.

The claim is read off one result (`findings.py`): a reported number with its metric ("an nDCG of 53.9") and the
method, dataset or group it was measured for ("for MeSH"). Only results count: a number in a methods section, a
configured parameter ("set to 0.5 mL/h"), a quantity with a unit of measure ("0.22 μM"), or a number in brackets
after another ("86.4 (82.0)") makes no claim. Nor does a result whose setting cannot be read: "accuracy = 95" of
what would be supported by any paper reporting that figure for anything. The setting is a named term of the
number's clause: before it, outside brackets, with no comparison between them (in "improving over SGC" the
baseline is not the setting), nearest first; or after it in a phrase the number's own words lead to ("95% on
MIMIC-III"); or, when the sentence names none, the one term the passage names before it. A term listed with
another ("LocalRetro and MHNreact") is no setting of one number. A setting a candidate's title names is passed
over for the next (the title would single the paper out); a claim with none left is not made. A passage supports
the claim when it states the number with its metric and setting; every supporting passage must be a clean content
passage (`debris.py`).

The candidates are the retrieved papers that have full text, so none can be ruled out from its title; the
task needs near-miss passages: passages of the candidates that state another figure of the same metric or
setting (the gold paper's other results, a related paper's), which only reading tells apart.
"""

from __future__ import annotations

import random
import re

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.debris import passage_debris, term_debris
from taskforge.builders.literature.findings import CLAUSE_BREAK, METRIC, NUMBER, Finding, findings
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
_CONFIGURED = re.compile(r"\b(?:(?:is|are|was|were) set to|(?:we|they)\s+set\s+(?:[\w-]+\s+){0,4}to|"
                         r"parameters? (?:is|are|was|were)|settings? (?:is|are|was|were))\b", re.IGNORECASE)
_MEASURE_AFTER = re.compile(r"\s?(?:[μµ]\w*|[munk]?[MgLlV]\b|mL|wt|kV|cm|mm|nm|kg|mg|°|W/|h\b|min\b|s\b)")
_RANGE_TO = re.compile(r"\s+to\s+\d+(?:\.\d+)?")
"""A unit of measure right after a number, or after the range it starts ("from 0.226 to 0.689 W/mK"): the
number is an amount (a dose, a voltage), not a result."""
_COMPARISON = re.compile(r"\b(?:over|than|compared|versus|vs\.?|against|baseline|outperform\w*|unlike)\b",
                         re.IGNORECASE)
_BRACKETED = re.compile(r"\([^()]*\)")
_GAIN_BEFORE = re.compile(r"(?:\bby|\+|∆=?\s*\+?|\b(?:improvement|increase|gain|drop|decrease|reduction) of)\s*$",
                          re.IGNORECASE)
_GAIN_AFTER = re.compile(r"(?:\s*(?:%|,|and|\d+(?:\.\d+)?))*\s*(?:[\w-]+\s+)?(?:points?|pp|gains?|boosts?|"
                         r"improvements?|increases?)\b")
"""A number that is a difference: after 'by', '+', '∆' or 'improvement of', or counted in points or as a gain ('4.2 F1
points', '13% and 10% relative gains')."""
_RELATIVE = re.compile(r"\brelative\b", re.IGNORECASE)
_RELATIVE_BEFORE = re.compile(r"\brelative\s*$", re.IGNORECASE)
"""A difference stated as a share of the figure it improves on ('10% relative gains', 'a relative improvement of'):
claimed as such, since a relative gain of 10 % is not 10 points."""


_LISTED = re.compile(r"[A-Z][\w-]*,?\s+(?:and|or|&)\s+$|^,?\s+(?:and|or|&)\s+[A-Z]|^/|/$")
"""A named term joined to another by 'and', 'or', '&' or '/' (text before or after the term)."""
_AFTER_END = re.compile(r"[,;:()]|\.\s|\b(?:and|but|while|whereas|which|where|respectively)\b|" + _COMPARISON.pattern,
                        re.IGNORECASE)
_LED_TO = re.compile(r"\s*%?(?:\s+[\w@-]+){0,3}?\s+(?:on|for|in|at|across|within)\s+", re.IGNORECASE)
"""The end of the phrase after a number, and the words that lead from the number to what it was measured on
("% accuracy on", "F1 score for")."""
_JOINED_NUMBERS = re.compile(r"(?:\d+(?:\.\d+)?\s?%?\s*(?:,|and)\s*)+$")
"""Numbers joined to the one that follows them ("13% and " before "10%")."""


def _nameable(term: str, metric: str) -> bool:
    """Whether a named term can be a setting: not debris and not the metric itself."""
    return term_debris(term) is None and term != metric and not METRIC.fullmatch(term)


def _alone(text: str, at: int, term: str) -> bool:
    """Whether the term at `at` of `text` is not listed with another ("LocalRetro and MHNreact")."""
    return not (_LISTED.search(text[:at]) or _LISTED.search(text[at + len(term):]))


def _settings_before(sentence: str, start: int, metric: str) -> list[str]:
    """The named terms of the number's clause before it, nearest first, outside brackets and with no comparison
    word just before them (in "improving over SGC" the baseline is no setting); a farther one only when no other
    number but one joined to this ("13% and 10%") lies between (in "LocalRetro shows 96.6%, followed by MHNreact
    with 93.3%" LocalRetro is no setting of 93.3)."""
    before = _BRACKETED.sub(lambda m: " " * len(m[0]), sentence[:start])
    clause = max((m.end() for m in CLAUSE_BREAK.finditer(before)), default=0)
    found = []
    for term in reversed(entity_terms(before[clause:])):
        at = before.rfind(term)
        between = _JOINED_NUMBERS.sub("", before[at + len(term):])
        if (_nameable(term, metric) and _alone(before, at, term) and not _COMPARISON.search(before[max(0, at - 24):])
                and not (found and NUMBER.search(between))):
            found.append(term)
    return found


def _settings_after(sentence: str, end: int, metric: str) -> list[str]:
    """The first named term of the phrase the number leads to ("95% accuracy on MIMIC-III"), up to the next
    number, punctuation, clause or comparison."""
    tail = sentence[end:]
    stop = min((m.start() for m in (_AFTER_END.search(tail), NUMBER.search(tail)) if m), default=len(tail))
    led = _LED_TO.match(tail[:stop])
    if led is None:
        return []
    phrase = tail[:stop]
    return [term for term in entity_terms(phrase[led.end():])
            if _nameable(term, metric) and _alone(phrase, phrase.find(term, led.end()), term)][:1]


def _setting_in_context(finding: Finding) -> list[str]:
    """The one named term the passage names before the sentence, when the sentence names none."""
    if entity_terms(finding.sentence):
        return []
    earlier = finding.passage[:max(0, finding.passage.find(finding.sentence))]
    terms = [t for t in entity_terms(earlier) if _nameable(t, finding.metric)]
    return terms if len(terms) == 1 and not _COMPARISON.search(earlier) else []


def settings(finding: Finding, start: int, end: int) -> list[str]:
    """What the number was measured for, most likely first: named terms of its clause before it, the term its
    phrase leads to after it, or the passage's one term."""
    found = _settings_before(finding.sentence, start, finding.metric)
    found += [t for t in _settings_after(finding.sentence, end, finding.metric) if t not in found]
    return found or _setting_in_context(finding)


def claim_of(finding: Finding) -> dict | None:
    """The claim a finding makes (`value`, `metric`, the `settings` it may name, most likely first, `gain` and
    whether the gain is `relative`), or
    None when the number is not a result of the paper (in a section of methods or background, a configured
    parameter, an amount with a unit, or a bracketed alternative of another number) or its setting cannot be
    read."""
    if _NOT_RESULTS.search(finding.passage_id.rsplit(":", 1)[0]) or _CONFIGURED.search(finding.sentence):
        return None
    match = next((m for m in NUMBER.finditer(finding.sentence) if m[0] == finding.value), None)
    if match is None:
        return None
    start, end = match.span()
    bracketed = any(m.start() < start < m.end() for m in _BRACKETED.finditer(finding.sentence))
    to = _RANGE_TO.match(finding.sentence, end)
    if bracketed or _MEASURE_AFTER.match(finding.sentence, to.end() if to else end):
        return None
    named = settings(finding, start, end)
    if not named:
        return None
    before, after = _GAIN_BEFORE.search(finding.sentence[:start]), _GAIN_AFTER.match(finding.sentence, end)
    relative = bool(before and _RELATIVE_BEFORE.search(finding.sentence[:before.start()])
                    or after and _RELATIVE.search(after[0]))
    return {"value": finding.value, "metric": finding.metric, "settings": named, "gain": bool(before or after),
            "relative": relative}


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
        figure = {"value": claim["value"], "metric": claim["metric"], "gain": claim["gain"],
                  "relative": claim["relative"]}
        retrieved = [collection.by_id[hit["paper_id"]]
                     for hit in env.search(writer.phrase(KIND, {**figure, "terms": [claim["metric"]]}),
                                           RETRIEVED)["results"]]
        candidates = sorted({p.paper_id: p for p in [paper, *retrieved] if p.sections}.values(),
                            key=lambda p: p.paper_id)
        setting = next((s for s in claim["settings"] if not any(mentions(p.title, s) for p in candidates)), None)
        if setting is None:
            continue
        claim = {**figure, "setting": setting}
        support = {"value": claim["value"], "terms": [setting, claim["metric"]]}
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
