"""described_finding: a number asked by its metric and setting, of a paper described but not named; multiple choice.

The paper is described by constraints only the collection's tools resolve
(`graders/literature/descriptions.py`): a paper it cites or that cites it
(named by title: find it, then read its `cited_by` or `references`), else
terms it mentions that a few papers mention; then its year or venue where
needed. The first constraint leaves several candidates, exactly one collection
paper meets the description, and every constraint is needed (dropping one lets
another paper in). The number is one of the paper's own results
(`select_evidence.claim_of`, not a gain) asked by its metric word and setting
terms, and the paper states no other level for them (`stated_values`).
Distractors are near misses a reader of the wrong paper or the wrong row
picks: other values of the same metric in the paper, then in the papers meeting
part of the description, then nearby values; the last option is "Insufficient
information". Description and options follow from the paper and finding alone,
so a finding drawn twice is one task, landed once.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations
from typing import Any

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.debris import passage_debris
from taskforge.builders.literature.findings import METRIC, Finding, findings
from taskforge.builders.literature.kinds.select_evidence import claim_of
from taskforge.builders.literature.options import lettered, near_values
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.builders.literature.text import matchable_terms
from taskforge.graders.literature.concepts import content_text
from taskforge.graders.literature.descriptions import DECIMAL, changes, described, meets, stated_values
from taskforge.graders.literature.environment import CITED_BY, MAX_K, REFERENCES, SearchEnvironment
from taskforge.graders.literature.papers import Paper, PaperCollection
from taskforge.graders.literature.scorers import cell_value

KIND = "described_finding"
DISTRACTORS = 3
OWN_DISTRACTORS = 2
"""At most this many distractors come from the described paper itself; the others from its near misses."""
MAX_SETTING_TERMS = 2
TITLE_SEARCH_K = 5
MIN_CANDIDATES, MAX_TOPIC_PAPERS = 2, 12
"""The first hop leaves at least this many candidates; a topic term is mentioned by at most this many papers."""


@lru_cache(maxsize=256)
def _findings(collection: PaperCollection, paper_id: str) -> tuple[Finding, ...]:
    """The findings of a collection paper, read once per collection (each attempt draws from few papers)."""
    return tuple(findings(collection.by_id[paper_id]))


@lru_cache(maxsize=4)
def _askable(collection: PaperCollection) -> tuple[str, ...]:
    """The full-text papers with a finding to ask (few in a real collection: the draw is among them)."""
    return tuple(p.paper_id for p in collection.papers if p.sections and asked_findings(collection, p.paper_id))


@lru_cache(maxsize=256)
def asked_findings(collection: PaperCollection, paper_id: str) -> tuple[tuple[Finding, tuple[str, ...]], ...]:
    """The paper's own results (`select_evidence.claim_of`, not a gain) with a decimal number outside flattened
    tables, each with the fewest of its claim's setting terms (most likely first) for which the paper states no other
    level of its metric."""
    paper, asked = collection.by_id[paper_id], []
    for finding in _findings(collection, paper_id):
        claim = claim_of(finding)
        if (claim is None or claim["gain"] or not DECIMAL.fullmatch(finding.value)
                or passage_debris(finding.passage) is not None):
            continue
        for n in range(1, min(MAX_SETTING_TERMS, len(claim["settings"])) + 1):
            terms = tuple(claim["settings"][:n])
            if stated_values(paper, finding.metric, list(terms)) == {finding.value}:
                asked.append((finding, terms))
                break
    return tuple(asked)


def _first_hops(paper: Paper, collection: PaperCollection, asked: list[str], rng: random.Random
                ) -> list[dict[str, Any]]:
    """What the solver resolves first, each leaving several candidates: a paper it cites or that cites it, else terms
    a few papers mention."""
    relations = [{"type": "cites", "paper_id": r} for r in dict.fromkeys(paper.references)
                 if r in collection.by_id and r != paper.paper_id]
    relations += [{"type": "cited_by", "paper_id": c} for c in collection.cited_by.get(paper.paper_id, [])]
    relations = [c for c in relations if len(described(collection, [c])) >= MIN_CANDIDATES]
    if relations:
        return relations
    topics = [{"type": "mentions", "term": t} for t in _topics(collection, paper.paper_id) if t not in asked]
    rng.shuffle(topics)
    return topics


@lru_cache(maxsize=256)
def _topics(collection: PaperCollection, paper_id: str) -> tuple[str, ...]:
    """The named terms of a paper's content (not metric words) that a few other papers mention too."""
    terms = [t for t in matchable_terms(content_text(collection.by_id[paper_id])) if not METRIC.fullmatch(t)]
    return tuple(t for t in terms
                 if MIN_CANDIDATES <= len(described(collection, [{"type": "mentions", "term": t}])) <= MAX_TOPIC_PAPERS)


def _description(paper: Paper, hop: dict[str, Any], others: list[dict[str, Any]], collection: PaperCollection
                 ) -> list[dict[str, Any]] | None:
    """The fewest constraints (the hop, then year, venue and the other hops) that only the paper meets, each one
    needed."""
    extra = ([{"type": "published_in", "year": paper.year}] if paper.year is not None else []) + (
        [{"type": "venue", "venue": paper.venue}] if paper.venue else []) + [o for o in others if o != hop][:2]
    meeting = [{p.paper_id for p in described(collection, [c])} for c in [hop, *extra]]
    everyone = set(collection.by_id)
    for n in range(len(extra) + 1):
        for chosen in combinations(range(1, len(extra) + 1), n):
            sets = [meeting[0], *(meeting[i] for i in chosen)]
            if everyone.intersection(*sets) != {paper.paper_id}:
                continue
            if all(len(everyone.intersection(*sets[:i], *sets[i + 1:])) > 1 for i in range(len(sets))):
                return [hop, *(extra[i - 1] for i in chosen)]
    return None


def _metric_values(paper: Paper, metric: str, collection: PaperCollection) -> set[str]:
    """The decimal levels the paper's findings give for a metric word (any case; not a spread or a change)."""
    return {f.value for f in _findings(collection, paper.paper_id) if f.metric.casefold() == metric.casefold()
            and DECIMAL.fullmatch(f.value) and f.value not in changes(f.sentence)}


def _distractors(value: str, metric: str, paper: Paper, near_misses: list[Paper], collection: PaperCollection,
                 rng: random.Random) -> list[str]:
    """Other values of the metric in the paper, then in its near misses (closest to the answer first), then
    values near the answer; none equal to it."""
    def closest(values: set[str]) -> list[str]:
        return sorted((v for v in values if cell_value(v) != cell_value(value)),
                      key=lambda v: (abs(float(v) - float(value)), v))

    own = closest(_metric_values(paper, metric, collection))
    others = [v for v in closest(set().union(*(_metric_values(p, metric, collection) for p in near_misses)))
              if v not in own]
    chosen = list(dict.fromkeys([*own[:OWN_DISTRACTORS], *others, *own]))[:DISTRACTORS]
    return near_values(value, chosen, {value}, DISTRACTORS, rng)


def _path_to(paper: Paper, hop: dict[str, Any], collection: PaperCollection, env: SearchEnvironment
             ) -> list[dict[str, Any]] | None:
    """Tool calls that reach the paper from the first hop (None when the search does not surface what it needs)."""
    if hop["type"] == "mentions":
        hits = [h["paper_id"] for h in env.search(hop["term"], MAX_K)["results"]]
        return [search_call(hop["term"], MAX_K)] if paper.paper_id in hits else None
    anchor = collection.by_id[hop["paper_id"]]
    if anchor.paper_id not in [h["paper_id"] for h in env.search(anchor.title, TITLE_SEARCH_K)["results"]]:
        return None
    return [search_call(anchor.title, TITLE_SEARCH_K),
            read_call(anchor.paper_id, CITED_BY if hop["type"] == "cites" else REFERENCES)]


def _facts(constraints: list[dict[str, Any]], collection: PaperCollection, finding: Finding,
           terms: list[str]) -> dict[str, Any]:
    """What the question states: each constraint (papers by title) and the metric and setting asked."""
    stated = [{**c, "title": collection.by_id[c["paper_id"]].title} if "paper_id" in c else c for c in constraints]
    return {"constraints": stated, "metric": finding.metric, "setting": terms}


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One described_finding case from a random paper with a finding to ask, or None when it does not make one."""
    collection = env.collection
    askable = _askable(collection)
    if not askable:
        return None
    paper = collection.by_id[rng.choice(askable)]
    finding, setting = rng.choice(asked_findings(collection, paper.paper_id))
    terms = list(setting)
    keyed = random.Random(f"{KIND}:{paper.paper_id}:{finding.passage_id}:{finding.value}:{','.join(terms)}")
    hops = _first_hops(paper, collection, [finding.metric, *finding.setting], keyed)
    for hop in hops:
        constraints = _description(paper, hop, hops, collection)
        path = _path_to(paper, hop, collection, env) if constraints else None
        if constraints and path:
            return _case(paper, finding, terms, constraints, path, collection, writer, keyed)
    return None


def _case(paper: Paper, finding: Finding, terms: list[str], constraints: list[dict[str, Any]],
          path: list[dict[str, Any]], collection: PaperCollection, writer: QuestionWriter, keyed: random.Random
          ) -> Case:
    """The case asking the finding of the described paper (`keyed`: the randomness its finding fixes)."""
    value = finding.value
    near_misses = [p for p in collection.papers if p.sections and p.paper_id != paper.paper_id
                   and any(meets(p, c, collection) for c in constraints)]
    distractors = _distractors(value, finding.metric, paper, near_misses, collection, keyed)
    values = [value, *distractors]
    keyed.shuffle(values)
    options, answer, refusal = lettered(values, value)
    facts = _facts(constraints, collection, finding, terms)
    question = writer.phrase(KIND, facts)
    anchors = [collection.by_id[c["paper_id"]] for c in constraints if "paper_id" in c]
    own = _metric_values(paper, finding.metric, collection)
    return Case(
        kind=KIND, question=question, user=user_message(KIND, question, [f"{k}. {v}" for k, v in options.items()]),
        facts=facts,
        payload={"question": question, "options": options, "insufficient_option": refusal,
                 "constraints": constraints, "asked": {"metric": finding.metric, "setting": terms},
                 "question_writer": writer.name,
                 "difficulty": {"options": len(options), "constraints": len(constraints),
                                "near_miss_papers": len(near_misses),
                                "same_paper_distractors": sum(1 for v in distractors if v in own)}},
        reference={
            "answer": answer, "answer_text": value, "gold_ids": [paper.paper_id],
            "papers": [paper_entry(a, "anchor") for a in anchors] + [paper_entry(paper, "gold")],
            "key_sentence": finding.sentence,
            "key_passages": [key_passage(paper, finding.passage_id, finding.passage)],
            "tool_path": [*path, read_call(paper.paper_id, finding.passage_id)],
        },
        grader={"scorer": "literature.multiple_choice", "options": list(options), "insufficient": refusal},
    )
