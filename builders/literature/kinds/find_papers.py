"""find_papers: papers defined by constraints over citations, metadata and content; the gold set is computed.

A question asks for the papers that cite an anchor paper (named by title),
mention a named term (a dataset, a method; never a funder or math debris) and,
sometimes, were published after a year. A mention is matched as a concept in
the paper's content (`graders/literature/concepts.py`: case, inflection,
hyphens and the expansions the papers define, all listed in the prompt; never
reference lists or acknowledgments). Every constraint must exclude at least one paper that meets the
others, so the answer needs each of them checked, and the gold set is at most a quarter of the citing papers.
"""

from __future__ import annotations

import random

from taskforge.builders.literature.cases import Case, key_passage, paper_entry, read_call, search_call
from taskforge.builders.literature.prompting import user_message
from taskforge.builders.literature.questions import QuestionWriter
from taskforge.builders.literature.text import entity_terms, first_passage_mentioning, matchable_terms
from taskforge.graders.literature.concepts import concept_forms, content_text, mentions_concept
from taskforge.graders.literature.environment import CITED_BY, SearchEnvironment
from taskforge.graders.literature.papers import Paper

KIND = "find_papers"
MIN_CITING, MAX_CITING = 4, 40
MIN_GOLD, MAX_GOLD = 2, 8
MAX_GOLD_SHARE = 0.25
"""At most this share of the anchor's citing papers is gold: listing every citing paper (the `cite_all` shortcut,
F1 = 2g/(g+c)) then scores at most 0.4, the literature shortcut threshold."""
ANCHOR_SEARCH_K = 5


def _gold_for(citing: list[Paper], texts: dict[str, str], forms: list[str], rng: random.Random
              ) -> tuple[list[Paper], int | None, dict[str, int]] | None:
    """The answer set for one concept (with a year cut when one splits it well), or None when it is degenerate."""
    mentioning = [p for p in citing if mentions_concept(texts[p.paper_id], forms)]
    if not mentioning or len(mentioning) == len(citing):
        return None
    near = {"cite_without_term": len(citing) - len(mentioning)}
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


def generate(env: SearchEnvironment, rng: random.Random, writer: QuestionWriter) -> Case | None:
    """One find_papers case around a randomly chosen anchor paper, or None when it does not make one."""
    collection = env.collection
    anchors = sorted(pid for pid, citing in collection.cited_by.items() if MIN_CITING <= len(citing) <= MAX_CITING)
    if not anchors:
        return None
    anchor = collection.by_id[rng.choice(anchors)]
    found = [hit["paper_id"] for hit in env.search(anchor.title, ANCHOR_SEARCH_K)["results"]]
    if anchor.paper_id not in found:
        return None
    citing = [collection.by_id[c] for c in collection.cited_by[anchor.paper_id]]
    texts = {p.paper_id: content_text(p) for p in citing}
    terms = sorted({t for p in citing for t in matchable_terms(texts[p.paper_id])} - set(entity_terms(anchor.title)))
    rng.shuffle(terms)
    for term in terms:
        forms = concept_forms(term, list(texts.values()))
        chosen = _gold_for(citing, texts, forms, rng)
        if chosen is None:
            continue
        gold, after, near_misses = chosen
        facts = {"anchor_title": anchor.title, "term": term, "forms": forms, "after": after}
        question = writer.phrase(KIND, facts)
        answer = sorted(p.paper_id for p in gold)
        passages = [key_passage(p, *(first_passage_mentioning(p, forms) or (None, None))) for p in gold]
        constraints = [{"type": "cites", "paper_id": anchor.paper_id}, {"type": "mentions", "term": term, "forms": forms}]
        if after:
            constraints.append({"type": "published_after", "year": after})
        return Case(
            kind=KIND, question=question, user=user_message(KIND, question), facts=facts,
            payload={"question": question, "constraints": constraints, "question_writer": writer.name,
                     "difficulty": {"citing_papers": len(citing), "answer_size": len(gold), **near_misses}},
            reference={
                "answer": answer, "answer_text": ", ".join(answer), "gold_ids": answer,
                "papers": [paper_entry(anchor, "anchor")] + [paper_entry(p, "gold") for p in gold],
                "key_passages": passages,
                "tool_path": [search_call(anchor.title, ANCHOR_SEARCH_K), read_call(anchor.paper_id, CITED_BY)]
                             + [read_call(p["paper_id"], p["passage"]) for p in passages],
            },
            grader={"scorer": "literature.paper_set_f1"},
        )
    return None
