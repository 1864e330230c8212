"""find_papers: papers defined by constraints over citations, metadata and content; the gold set is computed.

A question asks for the papers that cite an anchor paper (named by title),
mention a named term (a dataset, a method; never a funder or math debris) and,
sometimes, were published after a year. A mention is matched as a concept in
the paper's content (`graders/literature/concepts.py`: case, inflection,
hyphens and the expansions the papers define, all listed in the prompt; never
reference lists or acknowledgments). Every constraint must exclude at least one paper that meets the
others, so the answer needs each of them checked, and the gold set is at most a quarter of the citing papers.

`find_papers_2hop` asks the same question two citation hops out (issue 16: one a
few tool calls do not answer): the papers cited alongside the anchor, in the references
of a paper citing it, neither the anchor nor a paper citing it
(`graders/literature/citations.py`). Its reference path reads the anchor's
`cited_by`, then every citing paper's `references`; the gold set is at most a
quarter of the papers cited alongside, and some paper outside them meets the
other constraints.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.builders.literature.text import entity_terms, first_passage_mentioning, matchable_terms
from taskforge.graders import scorer_for
from taskforge.graders.literature.citations import co_cited
from taskforge.graders.literature.concepts import concept_forms, content_text, mentions_concept
from taskforge.graders.literature.environment import CITED_BY, REFERENCES, SearchEnvironment
from taskforge.graders.literature.papers import Paper, PaperCollection
from taskforge.graders.literature.shortcuts import SHORTCUT_THRESHOLD, shortcut_answers

KIND = "find_papers"
MIN_CITING, MAX_CITING = 4, 40
MIN_GOLD, MAX_GOLD = 2, 8
MAX_GOLD_SHARE = 0.25
"""At most this share of the anchor's citing papers is gold: listing every citing paper (the `cite_all` shortcut,
F1 = 2g/(g+c)) then scores at most 0.4, the literature shortcut threshold."""
ANCHOR_SEARCH_K = 5
KIND_TWO_HOP = "find_papers_2hop"
MIN_CO_CITED, MAX_CO_CITED = int(MIN_GOLD / MAX_GOLD_SHARE), 80
"""A two-hop anchor has this many papers cited alongside it: enough for the smallest gold set to be a quarter."""


def _gold_for(citing: list[Paper], texts: dict[str, str], forms: list[str], rng: random.Random,
              without_term: str = "cite_without_term") -> tuple[list[Paper], int | None, dict[str, int]] | None:
    """The answer set for one concept among the related papers (with a year cut when one splits it well), or None
    when it is degenerate; `without_term` names the count of related papers not mentioning it."""
    mentioning = [p for p in citing if mentions_concept(texts[p.paper_id], forms)]
    if not mentioning or len(mentioning) == len(citing):
        return None
    near = {without_term: len(citing) - len(mentioning)}
    years = sorted({p.year for p in mentioning if p.year})
    cuts = [y for y in years[:-1] if MIN_GOLD <= sum(1 for p in mentioning if p.year and p.year > y) <= MAX_GOLD]
    most = int(MAX_GOLD_SHARE * len(citing))
    if cuts and rng.random() < 0.6:
        after = rng.choice(cuts)
        gold = [p for p in mentioning if p.year and p.year > after]
        return (gold, after, {**near, "too_early": len(mentioning) - len(gold)}) if len(gold) <= most else None
    if MIN_GOLD <= len(mentioning) <= min(MAX_GOLD, most):
        return mentioning, None, near
    return None


def _findable(env: SearchEnvironment, anchor: Paper) -> bool:
    """Whether searching the anchor's title finds it among the first hits."""
    return anchor.paper_id in [hit["paper_id"] for hit in env.search(anchor.title, ANCHOR_SEARCH_K)["results"]]


def _terms(related: list[Paper], texts: dict[str, str], anchor: Paper, rng: random.Random) -> list[str]:
    """The named terms of the related papers' content (not the anchor title's), in a random order."""
    terms = sorted({t for p in related for t in matchable_terms(texts[p.paper_id])} - set(entity_terms(anchor.title)))
    rng.shuffle(terms)
    return terms


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One find_papers case around a randomly chosen anchor paper, or None when it does not make one."""
    collection = env.collection
    anchors = sorted(pid for pid, citing in collection.cited_by.items() if MIN_CITING <= len(citing) <= MAX_CITING)
    if not anchors:
        return None
    anchor = collection.by_id[rng.choice(anchors)]
    if not _findable(env, anchor):
        return None
    citing = [collection.by_id[c] for c in collection.cited_by[anchor.paper_id]]
    texts = {p.paper_id: content_text(p) for p in citing}
    for term in _terms(citing, texts, anchor, rng):
        forms = concept_forms(term, list(texts.values()))
        chosen = _gold_for(citing, texts, forms, rng)
        if chosen is None:
            continue
        gold, after, near_misses = chosen
        return _case(KIND, anchor, gold, {"type": "cites", "paper_id": anchor.paper_id}, term, forms, after,
                     {"citing_papers": len(citing), "answer_size": len(gold), **near_misses},
                     [read_call(anchor.paper_id, CITED_BY)], writer)
    return None


@lru_cache(maxsize=4)
def _two_hop_anchors(collection: PaperCollection) -> tuple[str, ...]:
    """The papers cited by 2 to MAX_CITING others with MIN_CO_CITED to MAX_CO_CITED papers cited alongside them."""
    return tuple(sorted(pid for pid, citing in collection.cited_by.items()
                        if 2 <= len([c for c in citing if c != pid]) <= MAX_CITING
                        and MIN_CO_CITED <= len(co_cited(collection, pid)) <= MAX_CO_CITED))


def _relation_needed(collection: PaperCollection, related: set[str], forms: list[str], after: int | None) -> bool:
    """Whether a paper not cited alongside the anchor meets the other constraints (the relation excludes it)."""
    return any(p.paper_id not in related and (after is None or (p.year is not None and p.year > after))
               and mentions_concept(content_text(p), forms) for p in collection.papers)


def generate_two_hop(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One find_papers_2hop case: papers cited alongside a randomly chosen anchor, or None when it makes none."""
    collection = env.collection
    anchors = _two_hop_anchors(collection)
    if not anchors:
        return None
    anchor = collection.by_id[rng.choice(anchors)]
    if not _findable(env, anchor):
        return None
    related = [collection.by_id[p] for p in co_cited(collection, anchor.paper_id)]
    citing = [c for c in collection.cited_by[anchor.paper_id] if c != anchor.paper_id]
    texts = {p.paper_id: content_text(p) for p in related}
    for term in _terms(related, texts, anchor, rng):
        forms = concept_forms(term, list(texts.values()))
        chosen = _gold_for(related, texts, forms, rng, "co_cited_without_term")
        if chosen is None or not _relation_needed(collection, set(texts), forms, chosen[1]):
            continue
        gold, after, near_misses = chosen
        case = _case(KIND_TWO_HOP, anchor, gold, {"type": "co_cited_with", "paper_id": anchor.paper_id}, term, forms,
                     after, {"citing_papers": len(citing), "co_cited_papers": len(related), "answer_size": len(gold),
                             **near_misses},
                     [read_call(anchor.paper_id, CITED_BY), *(read_call(c, REFERENCES) for c in citing)], writer)
        if not _shortcut_solves(case, env):
            return case
    return None


def _shortcut_solves(case: Case, env: SearchEnvironment) -> bool:
    """Whether a shortcut answer (every paper cited alongside, the question's top hits, titles naming its words)
    scores above the threshold, as the `shortcut` check would find."""
    scorer = scorer_for(case.grader)
    return any(scorer.score(answer, case.reference, case.grader) > SHORTCUT_THRESHOLD
               for answer in shortcut_answers(case.kind, case.payload, env).values())


def _case(kind: str, anchor: Paper, gold: list[Paper], relation: dict[str, Any], term: str, forms: list[str],
          after: int | None, difficulty: dict[str, int], reads: list[dict[str, Any]], writer: QuestionWriter) -> Case:
    """The case asking for the papers related to the anchor that mention the term (after the year): its path
    searches the anchor's title, makes the `reads` that list the related papers, then reads each gold passage."""
    facts = {"anchor_title": anchor.title, "term": term, "forms": forms, "after": after}
    question = writer.phrase(kind, facts)
    answer = sorted(p.paper_id for p in gold)
    passages = [key_passage(p, *(first_passage_mentioning(p, forms) or (None, None))) for p in gold]
    constraints = [relation, {"type": "mentions", "term": term, "forms": forms}]
    if after:
        constraints.append({"type": "published_after", "year": after})
    return Case(
        kind=kind, question=question, user=user_message(kind, question), facts=facts,
        payload={"question": question, "constraints": constraints, "question_writer": writer.name,
                 "difficulty": difficulty},
        reference={
            "answer": answer, "answer_text": ", ".join(answer), "gold_ids": answer,
            "papers": [paper_entry(anchor, "anchor")] + [paper_entry(p, "gold") for p in gold],
            "key_passages": passages,
            "tool_path": [search_call(anchor.title, ANCHOR_SEARCH_K), *reads]
                         + [read_call(p["paper_id"], p["passage"]) for p in passages],
        },
        grader={"scorer": "literature.paper_set_f1"},
    )
