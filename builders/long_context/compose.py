"""From a category's composition (facts to state, question, symbolic query) to a finished case.

A category decides what the world says and what is asked; this module places
the fact sentences inside paragraphs of filler in documents (evidence spread by positional
non-locality, distractors by dispersion), fits the length, locates every fact
sentence, derives the answer from the located facts with the category's
derivation, checks answerability, and writes the payload, reference and grader.
"""

from __future__ import annotations

import random
from bisect import bisect
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Callable

from taskforge.builders.long_context.axes import Axes
from taskforge.builders.long_context.filler import CueProfile, FillerWriter
from taskforge.builders.long_context.length import (LengthTarget, FillerMaker, fit_length, prompt_tokens,
                                                    refuse_if_over)
from taskforge.graders.long_context.prompting import SYSTEM, user_message
from taskforge.builders.long_context.render import Block, Doc, document_title, render_docs, with_sentences
from taskforge.builders.long_context.world import World
from taskforge.graders.long_context.answerability import answerability_problems
from taskforge.graders.long_context.derive import DERIVATIONS
from taskforge.graders.long_context.solvers import content_words
from taskforge.graders.long_context.values import verbatim_in
from taskforge.schemas.tokens import count_tokens

HEADING_TOKENS = 12
"""About what a document heading costs; fitting measures the real figure."""


class UnanswerableError(ValueError):
    """A composed task is not answerable as stated (ambiguous, or its evidence is not minimal)."""


@dataclass
class Statement:
    """A fact of the world model and the sentence stating it.

    `record` is the fact as the derivations read it (fact_id, kind, fields) plus
    `checks`, what the evidence check must find in its span. `role` is evidence,
    distractor or context; statements sharing a `group` go to distinct documents;
    `beside` (fact id, -1 or +1) puts a near miss just before or after that fact.
    """

    record: dict[str, Any]
    sentence: str
    role: str = "context"
    group: str | None = None
    beside: tuple[str, int] | None = None


@dataclass
class Composition:
    """What a category generator decides: the statements, the question and how the answer is written;
    `withheld`, world names the filler must not use even as settings (what the derivation resolves);
    `quiet_days`, days (ordinals) the filler must not date a sentence on (days a fact names as its only link)."""

    category: str
    statements: list[Statement]
    question: str
    query: dict[str, Any]
    answer_type: str
    scorer: str
    format_answer: Callable[[Any], str]
    probes: list[str]
    axes: Axes
    items: dict[str, str] = field(default_factory=dict)
    grader: dict[str, Any] = field(default_factory=dict)
    doc_values: bool = False
    n_docs: int | None = None
    withheld: tuple[str, ...] = ()
    quiet_days: frozenset[int] = frozenset()


@dataclass
class Case:
    """A finished task body: what defines it (payload), what stays hidden (reference), how it is scored."""

    category: str
    payload: dict[str, Any]
    reference: dict[str, Any]
    grader: dict[str, Any]
    system: str
    user: str


def checks(texts: tuple[str, ...] = (), dates: tuple[str, ...] = (), numbers: tuple[float, ...] = (),
           versions: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """What the evidence check must find in a fact's span: these texts verbatim, dates, numbers, versions."""
    return ([{"type": "text", "value": t} for t in texts] + [{"type": "date", "value": d} for d in dates]
            + [{"type": "number", "value": n} for n in numbers] + [{"type": "version", "value": v} for v in versions])


def capitalised(text: str) -> str:
    """The text with its first letter upper-cased."""
    return text[:1].upper() + text[1:]


def filler_blocks(writer: FillerWriter) -> FillerMaker:
    """Removable filler blocks of the writer's sentences, counted as they are written."""

    def make(count: int) -> Block:
        text, tokens, breaks, digit_parts = writer.block(count)
        return Block(text=text, removable=True, tokens=tokens, breaks=breaks, digit_parts=digit_parts)

    return make


def _fractions(statements: list[Statement], axes: Axes, rng: random.Random) -> list[float]:
    """Where each statement goes, as a fraction of the context: evidence within a window whose width grows
    with positional non-locality, distractors within a window whose width grows with dispersion."""
    evidence = [i for i, s in enumerate(statements) if s.role == "evidence"]
    width = 0.05 + 0.9 * axes.positional_nonlocality
    centre = rng.uniform(width / 2, 1 - width / 2)
    slots = [centre - width / 2 + width * (k + rng.uniform(0.2, 0.8)) / len(evidence) for k in range(len(evidence))]
    rng.shuffle(slots)
    spread = 0.1 + 0.9 * axes.distractor_dispersion
    low = min(max(centre - spread / 2, 0.0), 1 - spread)
    placed = {statements[i].record["fact_id"]: slot for i, slot in zip(evidence, slots)}
    fractions = []
    for statement in statements:
        if statement.record["fact_id"] in placed:
            fractions.append(placed[statement.record["fact_id"]])
        elif statement.beside and statement.beside[0] in placed:
            shifted = placed[statement.beside[0]] + statement.beside[1] * rng.uniform(0.005, 0.05)
            fractions.append(min(max(shifted, 0.0), 1.0))
        else:
            fractions.append(rng.uniform(low, low + spread) if statement.role == "distractor" else rng.random())
    return fractions


def _host(statements: list[Statement], fractions: list[float], fillers: list[Block],
          rng: random.Random) -> tuple[list[Block], dict[int, set[str]]]:
    """The filler blocks with each statement's sentence put between two sentences of the block where its
    fraction of the filler tokens falls (the next block with a free break when a block already holds a
    statement of its group); and the groups each block now holds."""
    ends = list(accumulate(block.tokens for block in fillers))
    chosen: dict[int, list[tuple[int, str, str, int]]] = {}
    groups: dict[int, set[str]] = {}
    for fraction, statement in sorted(zip(fractions, statements), key=lambda item: item[0]):
        at = min(bisect(ends, fraction * ends[-1]), len(fillers) - 1)
        for k in [*range(at, len(fillers)), *range(at - 1, -1, -1)]:
            if fillers[k].breaks and not (statement.group and statement.group in groups.get(k, set())):
                at = k
                break
        else:
            raise UnanswerableError(f"no paragraph can host statement {statement.record['fact_id']}")
        sentence = statement.sentence
        chosen.setdefault(at, []).append((rng.choice(fillers[at].breaks), statement.record["fact_id"], sentence,
                                          count_tokens(" " + sentence)))
        if statement.group:
            groups.setdefault(at, set()).add(statement.group)
    hosted = [with_sentences(block, chosen[k]) if k in chosen else block for k, block in enumerate(fillers)]
    return hosted, {id(hosted[k]): held for k, held in groups.items()}


def _split(blocks: list[Block], n_docs: int, groups: dict[int, set[str]], world: World,
           rng: random.Random) -> list[Doc]:
    """Cut the blocks into documents of random lengths; a document never holds two statements of one group
    (it is split between them)."""
    weights = [rng.uniform(0.5, 1.5) for _ in range(n_docs)]
    total = sum(b.tokens for b in blocks)
    cuts, running = [], 0.0
    for weight in weights[:-1]:
        running += weight / sum(weights) * total
        cuts.append(running)
    docs: list[list[Block]] = [[]]
    seen, in_doc = 0, set()
    for block in blocks:
        held = groups.get(id(block), set())
        if docs[-1] and ((cuts and seen >= cuts[0]) or held & in_doc):
            docs.append([])
            in_doc = set()
            while cuts and seen >= cuts[0]:
                cuts.pop(0)
        docs[-1].append(block)
        in_doc |= held
        seen += block.tokens
    return [Doc(doc_id=f"doc-{i + 1}", title=document_title(world, rng), blocks=b) for i, b in enumerate(docs) if b]


def assemble_world(comp: Composition, world: World, target: LengthTarget, rng: random.Random,
                   source: dict[str, Any]) -> Case:
    """Place a world-model composition into documents of the target length and finish the case. The filler
    is written to the profile of the composition's own fact sentences."""
    profile = CueProfile.of([s.sentence for s in comp.statements])
    writer = FillerWriter(world, rng, profile, " ".join([comp.question, *(s.sentence for s in comp.statements)]),
                          comp.withheld, comp.quiet_days)
    make_filler = filler_blocks(writer)
    n_docs = comp.n_docs or min(24, max(4, round(target.tokens / 5000)))
    core = (prompt_tokens([], comp.question) + HEADING_TOKENS * n_docs
            + sum(count_tokens(" " + s.sentence) for s in comp.statements))
    refuse_if_over(core, target)
    fillers, budget = [make_filler(rng.randint(3, 6))], target.context_tokens - core
    while budget - fillers[-1].tokens > target.band:
        budget -= fillers[-1].tokens
        fillers.append(make_filler(rng.randint(3, 6)))
    blocks, groups = _host(comp.statements, _fractions(comp.statements, comp.axes, rng), fillers, rng)
    docs = _split(blocks, n_docs, groups, world, rng)
    measured = fit_length(docs, comp.question, target, make_filler, rng)
    return finish(comp, docs, measured, target, source, profile.measures("fact"))


def _measures(documents: list[dict[str, Any]], evidence: list[dict[str, Any]], question: str) -> dict[str, Any]:
    """What the placement achieved: spread of the evidence over the context, documents it spans, and the
    share of the question's content words that also occur in the evidence."""
    offsets, total = {}, 0
    for doc in documents:
        offsets[doc["doc_id"]] = total
        total += len(doc["text"])
    positions = [offsets[e["doc_id"]] + e["start"] for e in evidence]
    texts = {d["doc_id"]: d["text"] for d in documents}
    evidence_words = set().union(*(content_words(texts[e["doc_id"]][e["start"]:e["end"]]) for e in evidence))
    asked = content_words(question)
    return {
        "evidence_spread": round((max(positions) - min(positions)) / max(total, 1), 4),
        "evidence_documents": len({e["doc_id"] for e in evidence}),
        "question_evidence_overlap": round(len(asked & evidence_words) / max(len(asked), 1), 4),
    }


def finish(comp: Composition, docs: list[Doc], measured: int, target: LengthTarget,
           source: dict[str, Any], measures: dict[str, float] | None = None) -> Case:
    """Locate the facts, derive the answer from them, check answerability, and write the case."""
    documents, located = render_docs(docs)
    facts, evidence = [], []
    for statement in comp.statements:
        where = located.get(statement.record["fact_id"])
        if where is None:
            continue
        span = {"doc_id": where[0], "start": where[1], "end": where[2]}
        facts.append({**statement.record, **span})
        if statement.role == "evidence":
            evidence.append({"fact_id": statement.record["fact_id"], **span})
    outcomes = DERIVATIONS[comp.category](facts, comp.query)
    if len(outcomes) != 1 or outcomes[0] is None:
        raise UnanswerableError(f"{comp.category}: the located facts admit {len(outcomes)} answers")
    answer = outcomes[0]
    if verbatim_in(comp.format_answer(answer), comp.question):
        raise UnanswerableError(f"{comp.category}: the answer happens to appear in the question")
    problems = answerability_problems(comp.category, facts, [e["fact_id"] for e in evidence], comp.query, answer)
    if problems:
        raise UnanswerableError(f"{comp.category}: {'; '.join(problems)}")
    grader = {"scorer": comp.scorer, **comp.grader}
    if comp.doc_values:
        grader["values"] = ["none", *(d["doc_id"] for d in documents)]
    payload = {
        "category": comp.category,
        "source": source,
        "documents": documents,
        "question": comp.question,
        "items": comp.items,
        "probes": comp.probes,
        "answer_type": comp.answer_type,
        "evidence": evidence,
        "context_tokens": measured,
        "target_tokens": target.tokens,
        "tolerance": target.tolerance,
        "answer_reserve": target.answer_reserve,
        "difficulty": comp.axes.as_dict(),
        "measures": {**_measures(documents, evidence, comp.question), **(measures or {})},
    }
    reference = {"answer": answer, "answer_text": comp.format_answer(answer), "facts": facts, "query": comp.query}
    return Case(category=comp.category, payload=payload, reference=reference, grader=grader, system=SYSTEM,
                user=user_message(documents, comp.question))
