"""Tasks from a folder of real documents: timeline, days between two events, and which documents give a
date in a month — all from dated statements the generator extracted and can verify.

A statement is referred to by quoting it with its date elided (lexical gap 0)
or by its position: "the 2nd sentence giving a full date in the section … of …"
(lexical gap 1). The context keeps the documents in order; paragraphs that
hold no evidence (and are not in a section referred to by position) may be
dropped to meet the target, and a folder shorter than the target is padded
with a synthetic document of filler without full dates, recorded in the payload.
"""

from __future__ import annotations

import math
import random
import string
from dataclasses import replace
from typing import Any

from taskforge.builders.base import derive_seed
from taskforge.builders.long_context.axes import Axes, Knobs
from taskforge.builders.long_context.compose import (Case, Composition, Statement, UnanswerableError, checks,
                                                    filler_blocks, finish)
from taskforge.builders.long_context.filler import PLAIN, FillerWriter
from taskforge.builders.long_context.length import LengthTarget, counted, fit_length
from taskforge.builders.long_context.render import Block, Doc
from taskforge.builders.long_context.sources import Corpus, DatedStatement, DateMention
from taskforge.builders.long_context.timeline import ANSWER_FORMAT
from taskforge.builders.long_context.world import generate_world
from taskforge.graders.long_context.values import MONTHS, normalise
from taskforge.schemas import InputError

_ORDINALS = ("1st", "2nd", "3rd")


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th …"""
    return _ORDINALS[n - 1] if n <= 3 else f"{n}th"


def display_title(corpus: Corpus, doc_index: int) -> str:
    """A document's title as shown in the context: its first heading and its file name (unique)."""
    doc = corpus.docs[doc_index]
    return doc.name if doc.title == doc.name.rsplit("/", 1)[-1].rsplit(".", 1)[0] else f"{doc.title} ({doc.name})"


def refer(statement: DatedStatement, corpus: Corpus, gap: int) -> str:
    """How the question names a statement: quoted with its date elided, or by position in its section."""
    if gap == 0 or not statement.section_usable or not statement.section:
        return f"“{statement.description}”"
    return (f"the {_ordinal(statement.ordinal)} sentence giving a full date in the section “{statement.section}” "
            f"of “{display_title(corpus, statement.doc_index)}”")


def _record(dated: DatedStatement | DateMention) -> dict[str, Any]:
    """The fact a dated statement or date mention states: a date, in its document."""
    when = dated.date.isoformat()
    texts = (dated.snippet,) if isinstance(dated, DatedStatement) and dated.snippet else ()
    return {"fact_id": dated.fact_id, "kind": "event", "event": dated.fact_id, "date": when,
            "checks": checks(texts=texts, dates=(when,))}


def _statements(corpus: Corpus, evidence: set[str]) -> list[Statement]:
    """Every date the corpus states, as world-model facts (the sentences are already in the documents)."""
    return [Statement(_record(d), "", role="evidence" if d.fact_id in evidence else "distractor")
            for d in [*corpus.statements, *corpus.mentions]]


def _candidates(corpus: Corpus, gap: int, needed: int) -> list[DatedStatement]:
    """Statements that can be asked about: worded uniquely, and (for references by position) in a usable
    section when enough are."""
    counts: dict[str, int] = {}
    for s in corpus.statements:
        counts[normalise(s.description)] = counts.get(normalise(s.description), 0) + 1
    pool = [s for s in corpus.statements if counts[normalise(s.description)] == 1]
    by_position = [s for s in pool if s.section_usable and s.section]
    return by_position if gap and len(by_position) >= needed else pool


def _too_few(corpus: Corpus, what: str, found: int, needed: int) -> InputError:
    """The error for a folder that cannot support a category."""
    return InputError(corpus.folder_name, f"{what}: {found} usable dated statements, {needed} needed "
                                          "(sentences giving one full date, worded uniquely)")


def _window(pool: list[DatedStatement], nonlocality: float, needed: int, rng: random.Random) -> list[DatedStatement]:
    """A stretch of the statements in reading order whose width grows with positional non-locality."""
    width = min(len(pool), max(needed, math.ceil(len(pool) * (0.1 + 0.9 * nonlocality))))
    start = rng.randrange(len(pool) - width + 1)
    return pool[start:start + width]


def assemble_documents(comp: Composition, corpus: Corpus, evidence: list[DatedStatement | DateMention],
                       target: LengthTarget, rng: random.Random) -> Case:
    """The corpus documents trimmed or padded to the target, with evidence and sections referred to by
    position kept whole, then finished like any case."""
    keep_ids = {s.fact_id for s in evidence}
    keep_sections = {(s.doc_index, s.section) for s in evidence
                     if comp.axes.lexical_gap and isinstance(s, DatedStatement) and s.section_usable}
    docs = []
    for i, source in enumerate(corpus.docs):
        blocks = []
        for block, section in zip(source.blocks, source.block_sections):
            counted(block)
            protected = any(a[0] in keep_ids for a in block.anchors) or (i, section) in keep_sections
            blocks.append(Block(block.text, block.anchors, removable=not protected, tokens=block.tokens))
        docs.append(Doc(doc_id="", title=display_title(corpus, i), blocks=blocks))
    total = sum(b.tokens for d in docs for b in d.blocks) + len(comp.question) // 4
    droppable = [d for d in docs if all(b.removable for b in d.blocks)]
    rng.shuffle(droppable)
    for doc in droppable:
        size = sum(b.tokens for b in doc.blocks)
        if total - size >= target.context_tokens + target.band:
            docs.remove(doc)
            total -= size
    world = generate_world(derive_seed(corpus.revision), 0)
    if total < target.context_tokens + target.band:
        docs.insert(rng.randrange(len(docs) + 1), Doc(doc_id="", title="Unrelated notes", synthetic=True))
    measured = fit_length(docs, comp.question, target, filler_blocks(FillerWriter(world, rng, PLAIN.without_dates())), rng)
    synthetic = sum(b.tokens for d in docs if d.synthetic for b in d.blocks)
    return finish(comp, docs, measured, target, {**corpus.source_info(), "synthetic_filler_tokens": synthetic})


class DocumentTimeline:
    """Order dated statements of the documents; near misses are statements with close dates."""

    CATEGORY = "timeline"
    KNOBS: Knobs = {"lexical_gap": (0, 1), "near_miss_strength": (0, 1, 2), "answer_scope": (4, 5, 6, 8),
                    "positional_nonlocality": (0.2, 0.5, 0.9)}
    MIN_GAP_DAYS = (180, 30, 1)

    def _pick(self, corpus: Corpus, axes: Axes, rng: random.Random) -> list[DatedStatement]:
        """Asked statements with distinct dates, at least the near-miss level's gap apart (closer as it grows)."""
        pool = _candidates(corpus, axes.lexical_gap, axes.answer_scope)
        if len(pool) < axes.answer_scope:
            raise _too_few(corpus, "timeline", len(pool), axes.answer_scope)
        for stretch in (_window(pool, axes.positional_nonlocality, axes.answer_scope, rng), pool):
            for min_gap in self.MIN_GAP_DAYS[axes.near_miss_strength:]:
                ordered = sorted(stretch, key=lambda s: s.date)
                seed = rng.choice(ordered)
                ordered.sort(key=lambda s: abs((s.date - seed.date).days) if min_gap < 30 else rng.random())
                chosen: list[DatedStatement] = []
                for s in ordered:
                    if all(abs((s.date - c.date).days) >= min_gap for c in chosen):
                        chosen.append(s)
                    if len(chosen) == axes.answer_scope:
                        return chosen
        raise UnanswerableError("timeline: not enough statements with distinct dates")

    def compose(self, corpus: Corpus, axes: Axes, rng: random.Random, target: LengthTarget) -> Case:
        """A finished case of this category from the corpus."""
        asked = self._pick(corpus, axes, rng)
        order = list(asked)
        while [s.date for s in order] == sorted(s.date for s in order):
            rng.shuffle(order)
        items = {label: refer(s, corpus, axes.lexical_gap) for label, s in zip(string.ascii_uppercase, order)}
        question = ("Put the following statements of the documents in the chronological order of the dates they "
                    "give:\n" + "\n".join(f"{label}. {text}" for label, text in items.items()) + "\n\n" + ANSWER_FORMAT)
        comp = Composition(
            category=self.CATEGORY, statements=_statements(corpus, {s.fact_id for s in asked}), question=question,
            query={"items": {label: s.fact_id for label, s in zip(items, order)}}, answer_type="ordered_labels",
            scorer="long_context.ordered_labels", format_answer=", ".join, probes=list(items.values()),
            axes=replace(axes, search_space=len(corpus.statements), distractor_dispersion=0.0,
                         computational_depth=axes.answer_scope - 1, derivation_depth=2),
            items=items, grader={"labels": list(items)},
        )
        return assemble_documents(comp, corpus, asked, target, rng)


class DocumentDaysBetween:
    """Days between two dated statements of different documents (cross-document integration); near misses
    are other dated statements in the same sections."""

    CATEGORY = "cross_doc_integration"
    KNOBS: Knobs = {"lexical_gap": (0, 1), "near_miss_strength": (0, 1, 2), "positional_nonlocality": (0.2, 0.5, 0.9)}

    def compose(self, corpus: Corpus, axes: Axes, rng: random.Random, target: LengthTarget) -> Case:
        """A finished case of this category from the corpus."""
        pool = _candidates(corpus, axes.lexical_gap, 2)
        crowd = {}
        for s in corpus.statements:
            crowd[(s.doc_index, s.section)] = crowd.get((s.doc_index, s.section), 0) + 1
        crowded = [s for s in pool if crowd[(s.doc_index, s.section)] > axes.near_miss_strength]
        pool = crowded if len({s.doc_index for s in crowded}) >= 2 else pool
        if len({s.doc_index for s in pool}) < 2:
            raise _too_few(corpus, "days between statements of two documents", len(pool), 2)
        stretch = _window(pool, axes.positional_nonlocality, 2, rng)
        if len({s.doc_index for s in stretch}) < 2:
            stretch = pool
        first = rng.choice(stretch)
        second = rng.choice([s for s in stretch if s.doc_index != first.doc_index and s.date != first.date]
                            or [s for s in pool if s.doc_index != first.doc_index and s.date != first.date])
        probes = [refer(first, corpus, axes.lexical_gap), refer(second, corpus, axes.lexical_gap)]
        question = (f"How many days passed between the date given in {probes[0]} and the date given in {probes[1]}? "
                    "Count calendar days from the earlier date to the later one. Reply with a whole number on a "
                    "final line of the form 'Answer: N'.")
        comp = Composition(
            category=self.CATEGORY, statements=_statements(corpus, {first.fact_id, second.fact_id}),
            question=question, query={"form": "days_between", "first": first.fact_id, "second": second.fact_id},
            answer_type="days", scorer="long_context.exact_value", format_answer=str, probes=probes,
            axes=replace(axes, search_space=len(corpus.statements), predicate_composition=2,
                         distractor_dispersion=0.0, computational_depth=1, derivation_depth=2),
        )
        return assemble_documents(comp, corpus, [first, second], target, rng)


class DocumentMonthAttribution:
    """Which documents give a full date in a given month (evidence attribution); near misses are dates in
    the neighbouring months."""

    CATEGORY = "evidence_attribution"
    KNOBS: Knobs = {"answer_scope": (2, 3, 4), "near_miss_strength": (0, 1, 2)}
    NEIGHBOURS = (0, 1, 3)

    def compose(self, corpus: Corpus, axes: Axes, rng: random.Random, target: LengthTarget) -> Case:
        """A finished case of this category from the corpus."""
        by_month: dict[str, dict[int, list[DatedStatement | DateMention]]] = {}
        for dated in [*corpus.statements, *corpus.mentions]:
            by_month.setdefault(f"{dated.date:%Y-%m}", {}).setdefault(dated.doc_index, []).append(dated)

        def neighbours(month: str) -> int:
            year, number = map(int, month.split("-"))
            around = (f"{year}-{number - 1:02d}" if number > 1 else f"{year - 1}-12",
                      f"{year}-{number + 1:02d}" if number < 12 else f"{year + 1}-01")
            return sum(len(stated) for m in around for stated in by_month.get(m, {}).values())

        eligible = [m for m, docs in by_month.items() if m not in corpus.ambiguous_months and len(docs) >= 2]
        if not eligible:
            raise _too_few(corpus, "months dated in two or more documents", 0, 2)
        eligible.sort(key=lambda m: (abs(len(by_month[m]) - axes.answer_scope),
                                     neighbours(m) < self.NEIGHBOURS[axes.near_miss_strength], rng.random()))
        month = eligible[0]
        evidence = [stated[0] for _, stated in sorted(by_month[month].items())]
        year, number = month.split("-")
        month_name = f"{MONTHS[int(number) - 1].capitalize()} {year}"
        question = (f"Which documents give a full date (day, month and year) that falls in {month_name}? List "
                    "their ids on a final line of the form 'Answer: doc-1, doc-2'.")
        comp = Composition(
            category=self.CATEGORY, statements=_statements(corpus, {s.fact_id for s in evidence}), question=question,
            query={"form": "month", "month": month}, answer_type="document_set", scorer="long_context.document_set",
            format_answer=", ".join, probes=[month_name],
            axes=replace(axes, answer_scope=len(evidence), search_space=len(corpus.docs), predicate_composition=1,
                         positional_nonlocality=0.0, distractor_dispersion=0.0, computational_depth=len(evidence),
                         derivation_depth=2),
        )
        return assemble_documents(comp, corpus, evidence, target, rng)


DOCUMENT_CATEGORIES: dict[str, Any] = {c.CATEGORY: c for c in (DocumentTimeline(), DocumentDaysBetween(),
                                                                 DocumentMonthAttribution())}
"""Categories built from a folder of documents: `KNOBS` and `compose(corpus, axes, rng, target)`."""
