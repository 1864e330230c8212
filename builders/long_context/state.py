"""Long-range state tracking: replay stock counts and changes scattered over the documents to find the
stock of one item at one site at the end of a given day.

The world model holds, per (item, site), a dated series: an opening count,
changes, an audit that corrects the running level (stock goes missing), then
`state_transition_depth` further changes before the asked date. Near misses
are changes after that date, the same item at other sites, and shipments
that were cancelled.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, capitalised, checks
from taskforge.builders.long_context.render import format_date
from taskforge.builders.long_context.world import World, generate_world, invented_name, unique_names

CATEGORY = "state_tracking"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "state_transition_depth": (1, 2, 4, 8, 12), "lexical_gap": (0, 1),
         "search_space": (2, 4, 8, 16), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "state_transition_depth": 2, "search_space": 4}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "state_transition_depth": 4, "search_space": 8}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""
_MATERIALS = ("resin", "alloy", "reagent", "cable", "filter", "sealant")
WORDING = {
    "count": ((("An inventory check at {site} {date} found {n} crates of {item} in stock.",
                "{date_cap}, the stock of {item} held at {site} stood at {n} crates.")),
              (("Auditors at {site} counted {n} crates of {item} on the shelves {date}.",
                "{date_cap}, a tally of the {site} store came to {n} crates of {item}."))),
    "in": ((("{date_cap}, a delivery added {n} crates of {item} to the stock at {site}.",
             "{site} took {n} crates of {item} into stock {date}.")),
           (("{date_cap}, a lorry brought {n} crates of {item} to {site}.",
             "{site} received {n} more crates of {item} {date}."))),
    "out": ((("{date_cap}, {n} crates of {item} were taken out of the stock at {site}.",
              "{site} released {n} crates of {item} from stock {date}.")),
            (("{date_cap}, {n} crates of {item} were shipped out of {site}.",
              "Field teams collected {n} crates of {item} from {site} {date}."))),
    "cancelled": (("A shipment of {n} crates of {item} from {site}, planned for {date_plain}, was cancelled "
                   "before it left."),),
}


def _sentence(kind: str, gap: int, rng: random.Random, **slots) -> str:
    """One stock statement in a wording of the lexical-gap level."""
    options = WORDING[kind] if kind == "cancelled" else WORDING[kind][min(gap, 1)]
    date = slots.pop("date")
    text = rng.choice(options).format(date=date, date_cap=capitalised(date), date_plain=date.removeprefix("on "),
                                      **slots)
    return capitalised(text)


class _Series:
    """Writes the dated statements of one (item, site) series."""

    def __init__(self, prefix: str, item: str, site: str, axes: Axes, rng: random.Random):
        self.prefix, self.item, self.site, self.axes, self.rng = prefix, item, site, axes, rng
        self.statements: list[Statement] = []

    def state(self, kind: str, date: dt.date, amount: int, role: str, beside: str | None = None) -> None:
        """Add a count, delivery ('in'), shipment ('out') or cancelled shipment to the series."""
        fact_kind = {"in": "change", "out": "change"}.get(kind, kind)
        record = {"fact_id": f"{self.prefix}-{len(self.statements)}", "kind": fact_kind, "item": self.item,
                  "site": self.site, "date": date.isoformat(),
                  "checks": checks(texts=(self.item, self.site), dates=(date.isoformat(),), numbers=(amount,))}
        if kind == "count":
            record["value"] = amount
        elif fact_kind == "change":
            record["delta"] = amount if kind == "in" else -amount
        sentence = _sentence(kind, self.axes.lexical_gap, self.rng, date=format_date(date, self.rng.randrange(5)),
                             n=amount, item=self.item, site=self.site)
        self.statements.append(Statement(record, sentence, role=role, beside=(beside, -1) if beside else None))


def _series(prefix: str, item: str, site: str, depth: int, until: dt.date, axes: Axes, rng: random.Random,
            asked: bool, near: int) -> _Series:
    """Opening count, two changes, a correcting audit, `depth` changes up to `until`, and near misses."""
    series = _Series(prefix, item, site, axes, rng)
    days = sorted(rng.sample(range(1, 330), 3 + depth))
    dates = [until - dt.timedelta(days=330 - d) for d in days]
    evidence = "evidence" if asked else "distractor"
    background = "context" if asked else "distractor"
    level = rng.randint(40, 90)
    series.state("count", dates[0] - dt.timedelta(days=20), level, background)
    for date in dates[:2]:
        amount = rng.randint(5, 25)
        kind = "in" if rng.random() < 0.5 or level - amount < 5 else "out"
        level += amount if kind == "in" else -amount
        series.state(kind, date, amount, background)
    level = max(5, level - rng.randint(2, 9))
    series.state("count", dates[2], level, evidence)
    for date in dates[3:]:
        amount = rng.randint(3, 30)
        kind = "in" if rng.random() < 0.5 or level - amount < 5 else "out"
        level += amount if kind == "in" else -amount
        series.state(kind, date, amount, evidence)
    last_evidence = series.statements[-1].record["fact_id"]
    if near >= 1:
        series.state(rng.choice(("in", "out")), until + dt.timedelta(days=rng.randint(1, 40)), rng.randint(3, 20),
                     "distractor")
    if near >= 3:
        series.state("cancelled", dates[-1] - dt.timedelta(days=rng.randint(1, 9)), rng.randint(3, 20),
                     "distractor", beside=last_evidence)
    return series


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """The asked series with `state_transition_depth` changes after its audit, and `search_space` other series."""
    world = generate_world(seed, 0)
    names = random.Random(seed)
    items = unique_names(names, lambda r: f"{invented_name(r, 2)} {r.choice(_MATERIALS)}", 6)
    until = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(2500))
    item, site = rng.choice(items), rng.choice(world.places)
    asked = _series("s0", item, site, axes.state_transition_depth, until, axes, rng, True, axes.near_miss_strength)
    pairs = [(i, s) for i in items for s in world.places if (i, s) != (item, site)]
    rng.shuffle(pairs)
    if axes.near_miss_strength >= 2:
        pairs.sort(key=lambda pair: pair[0] != item)
    statements = list(asked.statements)
    for n, (other_item, other_site) in enumerate(pairs[: axes.search_space], start=1):
        shifted = until + dt.timedelta(days=rng.randint(-60, 60))
        other = _series(f"s{n}", other_item, other_site, rng.randint(1, 4), shifted, axes, rng, False, 0)
        statements += other.statements
    date_text = format_date(until, 0).removeprefix("on ")
    question = (f"How many crates of {item} were in stock at {site} at the end of {date_text}? Counts and audits "
                "set the stock; deliveries and shipments change it. Reply with a whole number on a final line of "
                "the form 'Answer: N'.")
    return Composition(
        category=CATEGORY, statements=statements, question=question,
        query={"item": item, "site": site, "until": until.isoformat()}, answer_type="quantity",
        scorer="long_context.state_value", format_answer=str, probes=[f"crates of {item} at {site}"],
        axes=replace(axes, answer_scope=1, predicate_composition=3,
                     computational_depth=axes.state_transition_depth,
                     derivation_depth=axes.state_transition_depth + 1),
    ), world
