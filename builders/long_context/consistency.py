"""Multi-source consistency checking: several documents report the same figures; for each asked item,
name the document whose figure disagrees with the others, or 'none'.

The world model holds every organisation's true figures per year; a
conflicting item gets one report with a wrong value. Near misses are figures
of the same organisation for another year, and stated targets that are not
reports.
"""

from __future__ import annotations

import random
import string
from dataclasses import replace

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, capitalised, checks
from taskforge.builders.long_context.render import format_number
from taskforge.builders.long_context.world import World, generate_world

CATEGORY = "consistency"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "lexical_gap": (0, 1), "answer_scope": (3, 4, 6, 8),
         "search_space": (6, 12, 24, 48), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "answer_scope": 4, "search_space": 12}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "answer_scope": 6, "search_space": 24}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""
ATTRIBUTES = {
    "headcount": (
        "the headcount of {entity} in {year}",
        (("{entity} reported a headcount of {n} for {year}.",
          "The headcount of {entity} in {year} was {n}."),
         ("In {year}, {n} people were on the payroll of {entity}.",
          "The staff of {entity} numbered {n} in {year}.")),
        "{entity} aimed to reach a headcount of {n} by the end of {year}."),
    "budget": (
        "the annual budget of {entity} in {year}",
        (("{entity} had an annual budget of {n} credits in {year}.",
          "The annual budget of {entity} for {year} was {n} credits."),
         ("{entity} spent {n} credits over the {year} financial year.",
          "Over {year}, the outgoings of {entity} came to {n} credits.")),
        "{entity} proposed an annual budget of {n} credits for {year}, which was never adopted."),
    "sites": (
        "the number of field sites of {entity} in {year}",
        (("{entity} operated {n} field sites in {year}.",
          "In {year}, the number of field sites of {entity} was {n}."),
         ("In {year}, {entity} ran a network of {n} outposts in the field.",
          "{entity} kept {n} stations staffed in the field during {year}.")),
        "{entity} planned to open {n} field sites in {year}, but the plan was shelved."),
}
"""Per reported figure: how the question names it, report wordings (close to the question, paraphrased),
and a stated target that is not a report."""
_RANGES = {"headcount": (120, 1800), "budget": (2500, 90000), "sites": (3, 60)}


def _value(attribute: str, rng: random.Random) -> int:
    """A true figure of the attribute's usual size."""
    low, high = _RANGES[attribute]
    return rng.randint(low, high)


def _wrong(value: int, rng: random.Random) -> int:
    """A figure that disagrees: off by 5 to 30 percent (at least 1)."""
    delta = max(1, round(value * rng.uniform(0.05, 0.3)))
    return value + delta if rng.random() < 0.5 or value - delta < 1 else value - delta


class _Writer:
    """Numbers the reports and writes their sentences."""

    def __init__(self, axes: Axes, rng: random.Random):
        self.axes, self.rng, self.count = axes, rng, 0

    def report(self, entity: str, attribute: str, year: int, value: int, role: str, group: str | None,
               kind: str = "report") -> Statement:
        """One report (or, with kind 'target', a stated target) of a figure."""
        self.count += 1
        wording = ATTRIBUTES[attribute]
        number = format_number(value, self.rng.randrange(2) if self.axes.lexical_gap else 0)
        template = wording[2] if kind == "target" else self.rng.choice(wording[1][min(self.axes.lexical_gap, 1)])
        record = {"fact_id": f"c{self.count}", "kind": kind, "entity": entity, "attribute": attribute, "year": year,
                  "value": value, "checks": checks(texts=(entity, str(year)), numbers=(value,))}
        sentence = capitalised(template.format(entity=entity, year=year, n=number))
        return Statement(record, sentence, role=role, group=group)


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """`answer_scope` asked items (about half conflicting), `search_space` reports about other items."""
    world = generate_world(seed, 0)
    keys = [(e, a, y) for e in world.organisations for a in ATTRIBUTES for y in range(2014, 2023)]
    truth = {key: _value(key[1], random.Random(f"{seed}:{key}")) for key in keys}
    asked = rng.sample(keys, axes.answer_scope)
    conflicting = set(rng.sample(range(axes.answer_scope), max(1, axes.answer_scope // 2)))
    write = _Writer(axes, rng)
    statements, items = [], {}
    for i, key in enumerate(asked):
        label = string.ascii_uppercase[i]
        items[label] = ATTRIBUTES[key[1]][0].format(entity=key[0], year=key[2])
        value = truth[key]
        if i in conflicting:
            statements += [write.report(*key, value, "evidence", label) for _ in range(2)]
            statements.append(write.report(*key, _wrong(value, rng), "evidence", label))
        else:
            statements += [write.report(*key, value, "evidence", label) for _ in range(2)]
            if rng.random() < 0.5:
                statements.append(write.report(*key, value, "context", label))
    others = [k for k in keys if k not in asked]
    rng.shuffle(others)
    if axes.near_miss_strength >= 1:
        others.sort(key=lambda k: not any(k[0] == a[0] and k[1] == a[1] for a in asked))
    for key in others[: axes.search_space]:
        statements.append(write.report(*key, truth[key], "distractor", None))
    if axes.near_miss_strength >= 2:
        for key in asked[: (len(asked) if axes.near_miss_strength >= 3 else 1 + len(asked) // 2)]:
            statements.append(write.report(*key, _wrong(truth[key], rng), "distractor", None, kind="target"))
    question = ("Several documents report the same figures. For each item below, name the document whose figure "
                "disagrees with the figures the other documents give for that item, or 'none' if they all agree. "
                "Plans, targets and proposals are not reports.\n"
                + "\n".join(f"{label}. {capitalised(text)}" for label, text in items.items())
                + "\n\nReply on a final line of the form 'Answer: A: doc-3; B: none; …'.")
    reports = sum(1 for s in statements if s.role == "evidence")
    return Composition(
        category=CATEGORY, statements=statements, question=question,
        query={"items": {string.ascii_uppercase[i]: {"entity": k[0], "attribute": k[1], "year": k[2]}
                         for i, k in enumerate(asked)}},
        answer_type="document_per_item", scorer="long_context.conflict_map",
        format_answer=lambda answer: "; ".join(f"{label}: {value}" for label, value in sorted(answer.items())),
        probes=[capitalised(text) for text in items.values()], axes=replace(
            axes, predicate_composition=3, computational_depth=reports - len(asked), derivation_depth=2),
        items=items, grader={"labels": list(items)}, doc_values=True,
    ), world
