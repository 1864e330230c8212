"""Long-context filler that looks like the facts, and the harder construction of issue 16.

Filler must carry digits, dates, the facts' relation verbs and the ledger's
vocabulary at the facts' rates (so skimming for them finds filler as often as facts), be made of far
more distinct sentences than a few templates, never name the task's entities
in a relation, and be counted exactly. Rule induction shows both classes and
admits no vacuous policy; chains run to six hops; the default length mix
reaches 64K and 128K.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder, integration, rules
from taskforge.builders.long_context.axes import root_axes
from taskforge.builders.long_context.categories import CATEGORIES
from taskforge.builders.long_context.filler import (CUE_FRAMES, GENERAL_FRAMES, LEDGER_FRAMES, NUMBER_ADJUNCTS, TAILS,
                                                    VOCABULARY, CueProfile, FillerWriter, background_cast, cues_in,
                                                    has_digit, has_ledger_words)
from taskforge.builders.long_context.options import DEFAULT_LENGTHS, LongContextOptions
from taskforge.builders.long_context.render import Block, with_sentences
from taskforge.builders.long_context.world import generate_world
from taskforge.graders.long_context.answerability import answerability_problems
from taskforge.graders.long_context.derive import hypotheses, rule_space
from taskforge.graders.long_context.solvers import sentences_of
from taskforge.graders.long_context.pieces import quantities_of, remember
from taskforge.graders.long_context.values import date_mentions, dates_in, quantities_in
from taskforge.schemas import PlanItem, Task
from taskforge.schemas.tokens import count_tokens

RATE_TOLERANCE = 0.12
"""How far the filler's rate may sit from the facts' (a few hundred filler sentences per task)."""


def build(category: str, tokens: int = 8192, **options) -> Task:
    item = PlanItem(family="long_context", capability="x", quota=1, gap_ids=[], priority=1.0)
    context = BuildContext(cycle_id="filler-test", options={"target_tokens": tokens, "categories": category,
                                                            "evolve": False, **options})
    return next(LongContextBuilder().build(item, context))


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {category: build(category) for category in CATEGORIES}


def _split(task: Task) -> tuple[list[str], list[str]]:
    """The task's fact sentences and its filler sentences."""
    texts = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    facts = {texts[f["doc_id"]][f["start"]:f["end"]] for f in task.reference["facts"]}
    sentences = [s.text.strip() for s in sentences_of(task.payload["documents"])]
    return sorted(facts), [s for s in sentences if s not in facts]


def _rate(sentences: list[str], has) -> float:
    return sum(1 for s in sentences if has(s)) / len(sentences)


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_filler_carries_digits_dates_and_relation_verbs_at_the_facts_rates(tasks, category):
    facts, filler = _split(tasks[category])
    assert len(filler) > 100
    for name, has in (("digit", has_digit), ("date", lambda s: bool(date_mentions(s))),
                      ("relation verb", lambda s: bool(cues_in(s)))):
        fact_rate, filler_rate = _rate(facts, has), _rate(filler, has)
        assert abs(fact_rate - filler_rate) <= RATE_TOLERANCE, (name, fact_rate, filler_rate)
    measures = tasks[category].payload["measures"]
    assert measures["fact_digit_rate"] == pytest.approx(_rate(facts, has_digit), abs=0.05)


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_filler_carries_the_ledgers_vocabulary_at_the_facts_rate(tasks, category):
    """Credits, accounts, reserves, bookings, entries, voids: as often in the filler as in the facts, so a
    search for them returns filler too (the ledger's facts carry them nearly always, others' rarely)."""
    facts, filler = _split(tasks[category])
    fact_rate, filler_rate = _rate(facts, has_ledger_words), _rate(filler, has_ledger_words)
    assert abs(fact_rate - filler_rate) <= RATE_TOLERANCE, (fact_rate, filler_rate)
    assert tasks[category].payload["measures"]["fact_ledger_rate"] == pytest.approx(fact_rate, abs=0.05)
    if category == "ledger_balance":
        assert fact_rate > 0.8 and filler_rate > 0.7


@pytest.mark.parametrize("category", ["cross_doc_integration", "timeline", "state_tracking"])
def test_filler_uses_the_facts_own_relation_verbs(tasks, category):
    facts, filler = _split(tasks[category])
    fact_cues = set().union(*map(cues_in, facts))
    filler_cues = set().union(*map(cues_in, filler))
    assert fact_cues <= filler_cues | {"plan"}, fact_cues - filler_cues


def test_filler_is_far_more_varied_than_a_few_templates():
    facts, filler = _split(build("timeline", tokens=16384))
    shapes = {re.sub(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*|\d[\d,.\-]*", "#", s) for s in filler}
    assert len(set(filler)) >= 0.97 * len(filler), "hardly a sentence repeats"
    assert len(shapes) >= 300, f"{len(shapes)} sentence shapes once names and numbers are masked"


def test_frames_carry_their_cue_and_the_rest_carries_none():
    for cue, frames in CUE_FRAMES.items():
        for frame in frames:
            assert cue in cues_in(frame), (cue, frame)
    plain = [*GENERAL_FRAMES, *NUMBER_ADJUNCTS, *TAILS, *(w for words in VOCABULARY.values() for w in words)]
    assert [text for text in plain if cues_in(text)] == []
    assert [text for text in plain if has_ledger_words(text)] == []
    for cue, frames in LEDGER_FRAMES.items():
        assert all(has_ledger_words(frame) and cues_in(frame) == ({cue} if cue else set()) for frame in frames), cue


@pytest.mark.parametrize("cue", sorted(cue for cue in LEDGER_FRAMES if cue))
def test_ledger_sentences_carry_the_ledgers_words_and_the_cue_drawn(cue):
    """With or without a date and a number, a sentence drawn in the ledger's vocabulary with a cue carries both."""
    world = generate_world(5, 0)
    for digit, date in ((0.0, 0.0), (1.0, 1.0), (1.0, 0.0)):
        profile = CueProfile(digit=digit, date=date, relation=1.0, cues=((cue, 1.0),), ledger=1.0)
        sentences = FillerWriter(world, random.Random(5), profile).sentences(200)
        assert all(has_ledger_words(s) and cue in cues_in(s) for s in sentences), cue
        assert _rate(sentences, has_digit) == (1.0 if digit else 0.0)


def test_filler_dates_no_sentence_on_a_quiet_day():
    """Days a task's facts name as their only link (a ledger amendment's day) are kept out of the filler's
    dates; every other day stays in use."""
    world = generate_world(5, 0)
    profile = CueProfile(digit=1.0, date=1.0, relation=0.5, cues=(("lead", 1.0),), ledger=1.0)
    loud = FillerWriter(world, random.Random(5), profile).sentences(3000)
    busiest = Counter(day for sentence in loud for day in dates_in(sentence)).most_common(40)
    quiet = frozenset(day.toordinal() for day, _ in busiest)
    hushed = FillerWriter(world, random.Random(5), profile, quiet_days=quiet).sentences(3000)
    assert sum(count for _, count in busiest) >= 80
    assert [s for s in hushed if {day.toordinal() for day in dates_in(s)} & quiet] == []
    assert len({day for sentence in hushed for day in dates_in(sentence)}) >= 2000


def test_background_cast_shares_no_word_with_the_task():
    world = generate_world(7, 0)
    reserved = "Project Kavelmi is led by Imara Torsandre. Defect D-42 affects libvelka 1.2.0."
    cast = background_cast(world, reserved)
    background = [*cast.bperson, *cast.borg, *cast.bplace, *cast.bproject, *cast.bservice, *cast.blib]
    taken = {w for w in re.findall(r"[a-z0-9]+", (reserved + " ".join(world.people + world.organisations
                                                                       + world.places + world.projects)).lower())}
    generic = {"imara", "institute", "laboratory", "consortium", "foundry", "works", "observatory", "cooperative",
               "trust", "harbour", "ridge", "valley", "crossing", "point", "fields", "basin", "heights", "project",
               "programme", "initiative", "survey", "array"} | {n.lower() for n in ("Tomas", "Lucia", "Oren", "Selin",
               "Baptiste", "Anouk", "Kwame", "Mirela", "Hugo", "Yara", "Dmitri", "Ines", "Farid", "Greta", "Nikhil",
               "Astrid", "Mateo", "Leila", "Corin")}
    assert background and all(not (set(re.findall(r"[a-z0-9]+", name.lower())) & (taken - generic))
                              for name in background)


def test_filler_blocks_count_exactly_what_the_tokenizer_counts():
    world = generate_world(3, 0)
    profile = CueProfile(digit=0.8, date=0.5, relation=0.7, cues=(("lead", 0.5), ("grant", 0.5)))
    writer = FillerWriter(world, random.Random(3), profile)
    for count in (1, 2, 5):
        for _ in range(20):
            text, tokens, breaks, _ = writer.block(count)
            assert tokens == count_tokens(text + "\n\n")
            assert len(breaks) == count - 1 and all(text[b:b + 1] == " " and text[b - 1] == "." for b in breaks)


@pytest.mark.parametrize("category", sorted(CATEGORIES))
def test_prompt_is_counted_exactly(tasks, category):
    task = tasks[category]
    assert task.payload["context_tokens"] == count_tokens(task.prompt[0].content + task.prompt[1].content)


def test_facts_sit_inside_paragraphs_of_filler(tasks):
    task = tasks["timeline"]
    texts = {d["doc_id"]: d["text"] for d in task.payload["documents"]}
    for fact in task.reference["facts"]:
        paragraph_start = texts[fact["doc_id"]].rfind("\n\n", 0, fact["start"]) + 2
        paragraph_end = texts[fact["doc_id"]].find("\n\n", fact["end"])
        paragraph_end = len(texts[fact["doc_id"]]) if paragraph_end < 0 else paragraph_end
        assert paragraph_start < fact["start"] and fact["end"] < paragraph_end, "a fact never opens or closes one"


def test_rule_induction_shows_both_classes_and_admits_no_vacuous_policy():
    for seed in range(6):
        axes = replace(root_axes(rules.KNOBS, rules.START), predicate_composition=3)
        composition, _ = rules.compose(seed, axes, random.Random(seed))
        outcomes = [s.record["outcome"] for s in composition.statements]
        assert min(outcomes.count("held"), outcomes.count("cleared")) >= rules.MIN_CLASS_SHARE * len(outcomes)
        family = hypotheses(*rule_space(composition.query))
        assert all(len({name for name, _, _ in h}) == len(h) for h in family), "one condition per attribute"
        facts = [dict(s.record, doc_id="doc-1", outcome="cleared") for s in composition.statements]
        problems = answerability_problems(rules.CATEGORY, facts, [f["fact_id"] for f in facts], composition.query,
                                          {})
        assert any("no example is held" in p for p in problems)
    assert "each on a different attribute" in composition.question


def test_chains_run_to_six_hops_described_step_by_step():
    axes = replace(root_axes(integration.KNOBS, integration.START), derivation_depth=6)
    composition, _ = integration.compose(11, axes, random.Random(11))
    assert len(composition.query["path"]) == 6 and "(6)" in composition.question
    evidence = [s for s in composition.statements if s.role == "evidence"]
    assert len(evidence) == 6 and len({s.group for s in evidence}) == 1


def test_default_mix_reaches_64k_and_128k():
    options = LongContextOptions.parse({})
    assert {t.tokens for t in options.targets} == set(DEFAULT_LENGTHS) >= {65536, 131072}
    assert options.target(0).tokens == 65536 and options.target(2).tokens == 131072
    assert {t.tokens for t in LongContextOptions.parse({"target_tokens": 4096}).targets} == {4096}


def test_a_block_reads_value_by_value_what_it_reads_whole():
    """Every digit of filler is in the values its sentences were given (numbers, codes, versions, written dates),
    none joined to a neighbour, so the quantities of a block's values read one by one are the block's (a block
    that glued a number to its neighbour, as in 'file 12/40', gives none); with fact sentences put in at its
    breaks too."""
    world = generate_world(5, 0)
    profile = CueProfile(digit=0.9, date=0.6, relation=0.7, cues=(("depend", 0.3), ("grant", 0.3), ("fund", 0.4)),
                         ledger=0.4)
    writer, glued = FillerWriter(world, random.Random(5), profile), 0
    literals = [part for text in (*GENERAL_FRAMES, *NUMBER_ADJUNCTS, *TAILS,
                                  *(f for frames in (*CUE_FRAMES.values(), *LEDGER_FRAMES.values()) for f in frames))
                for part in re.split(r"\{\w+\}", text)]
    assert not [text for text in literals + [v for pool in writer.pools.values() for v in pool] if has_digit(text)]
    for count in (1, 3, 6) * 120:
        text, tokens, breaks, digit_parts = writer.block(count)
        assert len(digit_parts) in (0, count)
        glued += not digit_parts
        block = Block(text=text, tokens=tokens, breaks=breaks, digit_parts=digit_parts)
        if breaks:
            block = with_sentences(block, [(breaks[0], "f1", "On 3 May 2014, 12 crates were counted.", 9),
                                           (breaks[-1], "f2", "Version 2.4.1 of libkavel costs 1,250 credits.", 12),
                                           (breaks[-1], "f3", "It was 2,400 in 2019.", 8)])
        remember(block.text, (block.digit_parts or block.text,))
        assert quantities_of(block.text) == quantities_in(block.text)
    assert 0 < glued < 360
