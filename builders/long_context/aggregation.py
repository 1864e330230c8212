"""Set aggregation: count or total the grants that meet several conditions, across documents that
mention some grants more than once; or the difference of two such totals.

The world model is a register of grants (id, funder, project, amount, year,
purpose); the answer counts each grant once. Near misses are grants that fail
exactly one condition, and repeated mentions of a counted grant.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, UnanswerableError, checks
from taskforge.builders.long_context.render import format_number
from taskforge.builders.long_context.world import World, generate_world
from taskforge.graders.long_context.derive import derive_aggregation, grant_matches

CATEGORY = "set_aggregation"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "computational_depth": (1, 2, 3), "predicate_composition": (1, 2, 3),
         "lexical_gap": (0, 1), "search_space": (12, 24, 48, 96), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "computational_depth": 2, "predicate_composition": 2, "search_space": 24}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "predicate_composition": 3, "search_space": 48}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""
PURPOSES = {"equipment": "instruments and hardware", "travel": "journeys to partner sites",
            "training": "courses for staff", "fieldwork": "work in the field"}
WORDING = ("Under grant {grant}, {funder} awarded {amount} credits to {project} for {purpose} in {year}.",
           "{project} received {amount} credits for {purpose} from {funder} in {year} (grant {grant}).",
           "In {year}, {funder} approved grant {grant}: {amount} credits for {purpose} on {project}.")
REPEAT = "As noted elsewhere, grant {grant} of {funder} brought {amount} credits to {project} in {year}."


def _filters(funder: str, purpose: str, years: tuple[int, int], composition: int) -> dict[str, Any]:
    """The conditions of one side of the question, `composition` of them."""
    filters: dict[str, Any] = {"funder": funder}
    if composition >= 2:
        filters["purpose"] = purpose
    if composition >= 3:
        filters["year_from"], filters["year_to"] = years
    return filters


def _phrase(filters: dict[str, Any]) -> str:
    """The conditions in words."""
    text = f"grants awarded by {filters['funder']}"
    if "purpose" in filters:
        text += f" for {filters['purpose']}"
    if "year_from" in filters:
        text += f" from {filters['year_from']} to {filters['year_to']} (inclusive)"
    return text


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """A register of `search_space` grants, a question combining `predicate_composition` conditions and an
    aggregate of `computational_depth` (1 count, 2 total, 3 difference of two totals)."""
    world = generate_world(seed, 0)
    funders = rng.sample(world.organisations, 2)
    purpose = rng.choice(list(PURPOSES))
    start = rng.randint(2012, 2017)
    years = (start, start + rng.randint(2, 4))
    asked = [_filters(funder, purpose, years, axes.predicate_composition) for funder in funders]
    aggregate = {1: "count", 2: "sum", 3: "difference"}[axes.computational_depth]
    grants = []
    for n in range(axes.search_space):
        in_scope = n < axes.search_space // 3
        grant = {"grant": f"G-{1000 + 37 * n + rng.randint(0, 30)}", "project": rng.choice(world.projects),
                 "funder": rng.choice(funders) if in_scope else rng.choice(world.organisations),
                 "amount": rng.randrange(2250, 60000, 250), "year": rng.randint(2010, 2022),
                 "purpose": purpose if in_scope else rng.choice(list(PURPOSES))}
        if in_scope and "year_from" in asked[0]:
            grant["year"] = rng.randint(*years)
        grants.append(grant)
    if axes.near_miss_strength:
        for grant in grants[axes.search_space // 3:]:
            if rng.random() < axes.near_miss_strength / 3:
                grant.update(funder=rng.choice(funders), purpose=purpose, year=rng.randint(*years))
                key = rng.choice([k for k in ("funder", "purpose", "year") if k in asked[0] or k == "funder"])
                grant[key] = {"funder": rng.choice([o for o in world.organisations if o not in funders]),
                              "purpose": rng.choice([p for p in PURPOSES if p != purpose]),
                              "year": years[1] + rng.randint(1, 3)}[key]
    statements, facts = [], []
    for n, grant in enumerate(grants):
        record = {"fact_id": f"g{n}", "kind": "grant", **grant,
                  "checks": checks(texts=(grant["grant"], grant["funder"], str(grant["year"])),
                                   numbers=(grant["amount"],))}
        facts.append(record)
        purpose_text = PURPOSES[grant["purpose"]] if axes.lexical_gap else grant["purpose"]
        sentence = rng.choice(WORDING).format(**{**grant, "purpose": purpose_text,
                                                 "amount": format_number(grant["amount"], rng.randrange(2))})
        statements.append(Statement(record, sentence))
    query = {"filters": asked[0], "aggregate": aggregate, **({"versus": asked[1]} if aggregate == "difference" else {})}
    outcomes = derive_aggregation(facts, query)
    compared = asked if aggregate == "difference" else asked[:1]
    counted_ids = {f["fact_id"] for f in facts if any(grant_matches(f, filters) for filters in compared)}
    if len(outcomes) != 1 or len(counted_ids) < 2 or (aggregate == "difference" and outcomes[0] <= 0):
        raise UnanswerableError("set_aggregation: too few matching grants, or a difference that is not positive")
    for statement in statements:
        statement.role = "evidence" if statement.record["fact_id"] in counted_ids else "distractor"
        if axes.near_miss_strength >= 3 and statement.role == "evidence" and rng.random() < 0.5:
            grant = statement.record
            repeat = {"fact_id": f"{grant['fact_id']}r", **{k: grant[k] for k in grant if k != "fact_id"}}
            statements.append(Statement(repeat, REPEAT.format(**{**grant, "amount": format_number(grant["amount"], 0)}),
                                        role="context"))
    if aggregate == "count":
        question = f"How many {_phrase(asked[0])} do the documents record?"
    elif aggregate == "sum":
        question = f"What is the total amount, in credits, of the {_phrase(asked[0])}?"
    else:
        question = (f"By how many credits does the total of the {_phrase(asked[0])} exceed the total of the "
                    f"{_phrase(asked[1])}?")
    question += (" Count every grant once, even where several documents mention it. Reply with a whole number on "
                 "a final line of the form 'Answer: N'.")
    return Composition(
        category=CATEGORY, statements=statements, question=question, query=query, answer_type="quantity",
        scorer="long_context.aggregate", format_answer=str,
        probes=[_phrase(filters) for filters in compared],
        axes=replace(axes, answer_scope=len(counted_ids), derivation_depth=len(asked[0]) + 1),
    ), world
