"""Rule induction: past decisions in the documents follow a hidden policy; apply it to new records.

The policy is a conjunction of at most `predicate_composition` conditions, each
on a different attribute, from a family the question declares. Examples are
rendered as shipment records, about as many held as cleared (so no vacuous
policy, holding for no record or every record, fits them); the
answer is what every policy consistent with the examples predicts for the new
records (examples are added until that is unique). Near misses are examples
that differ from a new record in the one attribute that flips the decision.
"""

from __future__ import annotations

import random
import string
from dataclasses import replace
from typing import Any

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, UnanswerableError, checks
from taskforge.builders.long_context.world import World, generate_world, invented_name
from taskforge.graders.long_context.answerability import minimal_support
from taskforge.graders.long_context.derive import derive_rules, hypotheses, positive_mask, rule_holds, rule_space

CATEGORY = "rule_induction"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "lexical_gap": (0, 1), "predicate_composition": (1, 2, 3),
         "answer_scope": (3, 4, 6, 8), "search_space": (12, 16, 24, 32), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "predicate_composition": 2, "answer_scope": 4, "search_space": 16}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "predicate_composition": 3, "search_space": 24}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""
VOCABULARY = {"region": ("north", "south", "east", "west"), "kind": ("standard", "fragile", "perishable"),
              "priority": ("routine", "urgent")}
SYNONYMS = {"north": "northern", "south": "southern", "east": "eastern", "west": "western", "standard": "ordinary",
            "fragile": "breakable", "perishable": "short-lived", "routine": "regular", "urgent": "express"}
THRESHOLDS = (200, 400, 600, 800)
CLASSES = ("held", "cleared")
_OUTCOME = {"held": "was held for inspection", "cleared": "was cleared without inspection"}
MAX_TEACHING = 4000
MIN_CLASS_SHARE = 0.3
"""Each class is at least this share of the examples (examples of one class would fit a vacuous policy)."""

Record = tuple[tuple[tuple[str, str], ...], int]


def _random_record(rng: random.Random) -> Record:
    """A shipment with random attributes and weight."""
    return tuple(sorted((name, rng.choice(values)) for name, values in VOCABULARY.items())), rng.randrange(20, 1000, 10)


def _record_of_class(rule: tuple, held: bool, rng: random.Random) -> Record:
    """A random shipment the rule holds (held) or does not hold for."""
    while True:
        record = _random_record(rng)
        if rule_holds(rule, *record) == held:
            return record


def _near_miss(record: Record, rule: tuple, rng: random.Random) -> Record | None:
    """The record with the one attribute changed that flips the rule's decision, if one does."""
    attributes, weight = dict(record[0]), record[1]
    for name, op, target in rng.sample(list(rule), len(rule)):
        if op == "is":
            changed = dict(attributes, **{name: rng.choice([v for v in VOCABULARY[name] if v != attributes[name]])})
            candidate = (tuple(sorted(changed.items())), weight)
        else:
            candidate = (record[0], target - 10 if weight >= target else target + 10)
        if rule_holds(rule, candidate[0], candidate[1]) != rule_holds(rule, record[0], record[1]):
            return candidate
    return None


def _describe(record: Record, gap: int) -> str:
    """How a shipment is written, with synonyms for its values at lexical gap 1."""
    values = {name: SYNONYMS[value] if gap else value for name, value in record[0]}
    return (f"a {record[1]} kg {values['kind']} consignment for the {values['region']} region, sent as "
            f"{values['priority']} freight")


class _Teacher:
    """Grows the set of examples until every consistent policy agrees on the new records."""

    def __init__(self, query: dict[str, Any], rule: tuple):
        self.space, self.rule = rule_space(query), rule
        self.everything = (1 << len(hypotheses(*self.space))) - 1
        self.consistent = self.everything
        self.examples: list[Record] = []

    def add(self, record: Record) -> None:
        """Add an example, labelled by the hidden rule, and narrow the consistent policies."""
        mask = positive_mask(self.space, *record)
        self.consistent &= mask if rule_holds(self.rule, *record) else self.everything & ~mask
        self.examples.append(record)

    def splits(self, record: Record) -> bool:
        """Whether the consistent policies disagree about a record."""
        inside = self.consistent & positive_mask(self.space, *record)
        return 0 < inside != self.consistent

    def decided(self, records: list[Record]) -> bool:
        """Whether the consistent policies agree about every record."""
        return not any(self.splits(record) for record in records)


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """A hidden policy of `predicate_composition` conditions, `search_space` examples and more until the
    `answer_scope` new records are decided."""
    world = generate_world(seed, 0)
    query: dict[str, Any] = {"vocabulary": {k: list(v) for k, v in VOCABULARY.items()}, "thresholds": list(THRESHOLDS),
                             "max_conditions": axes.predicate_composition, "classes": list(CLASSES)}
    literals = [(name, "is", v) for name, values in VOCABULARY.items() for v in values]
    literals += [("weight", op, t) for t in THRESHOLDS for op in (">=", "<")]
    while True:
        rule = tuple(sorted(rng.sample(literals, axes.predicate_composition)))
        if len({name for name, _, _ in rule}) == len(rule):
            break
    asked: list[Record] = []
    while len(asked) < axes.answer_scope:
        record = _random_record(rng)
        if rule_holds(rule, *record) == (len(asked) % 2 == 0):
            asked.append(record)
    rng.shuffle(asked)
    teacher = _Teacher(query, rule)
    imitated = {0: 0, 1: (len(asked) + 1) // 2}.get(axes.near_miss_strength, len(asked))
    near = [miss for record in asked[:imitated] if (miss := _near_miss(record, rule, rng)) is not None]
    for record in near * (2 if axes.near_miss_strength >= 3 else 1):
        teacher.add(record)
    while len(teacher.examples) < axes.search_space:
        held = sum(rule_holds(rule, *record) for record in teacher.examples)
        teacher.add(_record_of_class(rule, held < len(teacher.examples) - held, rng))
    for _ in range(MAX_TEACHING):
        if teacher.decided(asked):
            break
        record = _random_record(rng)
        if teacher.splits(record):
            teacher.add(record)
    prefix = invented_name(random.Random(seed), 1).upper()[:2]
    labels = list(string.ascii_uppercase[: len(asked)])
    query["items"] = {label: {"attributes": dict(record[0]), "weight": record[1]}
                      for label, record in zip(labels, asked)}
    held = sum(rule_holds(rule, *record) for record in teacher.examples)
    if min(held, len(teacher.examples) - held) < MIN_CLASS_SHARE * len(teacher.examples):
        raise UnanswerableError(f"rule_induction: {held} of {len(teacher.examples)} examples held, too few of a class")
    facts, statements = [], []
    for n, (attributes, weight) in enumerate(teacher.examples):
        code = f"{prefix}-{100 + n * 7}"
        outcome = CLASSES[0] if rule_holds(rule, attributes, weight) else CLASSES[1]
        record = {"fact_id": f"x{n}", "kind": "example", "record": code, "attributes": dict(attributes),
                  "weight": weight, "outcome": outcome, "checks": checks(texts=(code, outcome), numbers=(weight,))}
        facts.append(record)
        sentence = f"Shipment {code}, {_describe((attributes, weight), axes.lexical_gap)}, {_OUTCOME[outcome]}."
        statements.append(Statement(record, sentence))
    answer = derive_rules(facts, query)
    support = set(minimal_support(CATEGORY, facts, query, answer[0])) if len(answer) == 1 else set()
    for statement in statements:
        statement.role = "evidence" if statement.record["fact_id"] in support else "context"
    items = {label: _describe(record, 0) for label, record in zip(labels, asked)}
    k = axes.predicate_composition
    question = (
        "Customs decisions in the documents follow one fixed policy: a shipment is held for inspection exactly when "
        f"it meets every one of at most {k} condition{'s' if k > 1 else ''}, each on a different attribute and of "
        "the form 'region is …', 'kind is …', 'priority is …', 'weight is at least N kg' or 'weight is below N kg' "
        "with N one of "
        f"{', '.join(map(str, THRESHOLDS))}; every other shipment is cleared. Regions are north, south, east and "
        "west; kinds are standard, fragile and perishable; priorities are routine and urgent (the documents "
        "sometimes use other words for these values). Under this policy, would each of these new shipments be "
        "held or cleared?\n" + "\n".join(f"{label}. {text}" for label, text in items.items())
        + "\n\nReply on a final line of the form 'Answer: A: <held or cleared>; B: …'.")
    return Composition(
        category=CATEGORY, statements=statements, question=question, query=query, answer_type="class_per_item",
        scorer="long_context.class_map",
        format_answer=lambda answer: "; ".join(f"{label}: {value}" for label, value in sorted(answer.items())),
        probes=list(items.values()),
        axes=replace(axes, search_space=len(facts), computational_depth=len(support), derivation_depth=k + 1),
        items=items, grader={"labels": labels, "values": list(CLASSES)},
    ), world
