"""Timeline reconstruction: put events stated across many documents into chronological order.

The world model holds every event's date; the answer is the order of those
dates. Each event is stated once, in one document, with its date in one of
several formats, among distractor events, near-miss statements of planned
dates for the same events, and filler.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from dataclasses import replace

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, capitalised, checks
from taskforge.builders.long_context.render import format_date, render_event
from taskforge.builders.long_context.world import Event, World, generate_world

CATEGORY = "timeline"
ANSWER_FORMAT = ("Reply with the letters in chronological order, earliest first, on a final line of the form "
                 "'Answer: X, Y, Z'.")
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "lexical_gap": (0, 1), "search_space": (8, 16, 32, 64),
         "answer_scope": (4, 5, 6, 8, 10), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "search_space": 16, "answer_scope": 5}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "answer_scope": 6, "search_space": 32}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""


def event_record(event: Event, kind: str = "event", date: dt.date | None = None, fact_id: str | None = None) -> dict:
    """The fact an event sentence states (an event's date, or a planned date that did not hold)."""
    when = (date or event.date).isoformat()
    return {"fact_id": fact_id or f"t-{event.event_id}", "kind": kind, "event": event.event_id, "date": when,
            "checks": checks(texts=tuple(value for _, value in event.slots), dates=(when,))}


def _labelled(asked: list[Event], rng: random.Random) -> list[tuple[str, Event]]:
    """Label the asked events so that the listing order is never already the chronological order."""
    order = list(asked)
    while True:
        rng.shuffle(order)
        if [e.date for e in order] != sorted(e.date for e in order):
            return list(zip(string.ascii_uppercase, order))


def _near_misses(labelled: list[tuple[str, Event]], wording: dict[str, str], strength: int,
                 rng: random.Random) -> list[Statement]:
    """Statements of dates once planned for asked events, worded like the question (so that they match it
    better than the evidence does): just before each asked event's evidence (1), also just after it (2), and
    one more anywhere (3). Planned dates fall anywhere in the span of the asked dates, so reading them
    scrambles the order."""
    first, last = min(e.date for _, e in labelled), max(e.date for _, e in labelled)
    sides = {0: (), 1: (-1,), 2: (-1, 1), 3: (-1, 1, 0)}[strength]
    statements = []
    for label, event in labelled:
        for side in sides:
            planned = first + dt.timedelta(days=rng.randint(0, (last - first).days))
            if planned == event.date:
                planned += dt.timedelta(days=1)
            sentence = (f"Early schedules expected that {wording[label]} "
                        f"{format_date(planned, rng.randrange(5))}, but that plan did not hold.")
            statements.append(Statement(event_record(event, "planned", planned, f"p{side + 1}-{event.event_id}"),
                                        sentence, role="distractor",
                                        beside=(f"t-{event.event_id}", side) if side else None))
    return statements


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """A timeline task over a world with `answer_scope` asked and `search_space` other events."""
    world = generate_world(seed, axes.answer_scope + axes.search_space)
    asked = rng.sample(list(world.events), axes.answer_scope)
    labelled = _labelled(asked, rng)
    statements = []
    for event in world.events:
        is_asked = event in asked
        template = event.renderings[0] if is_asked and axes.lexical_gap == 0 else rng.choice(
            event.renderings[1:] if is_asked else event.renderings)
        statements.append(Statement(event_record(event), render_event(event, rng, template),
                                    role="evidence" if is_asked else "distractor"))
    wording = {label: event.description if axes.lexical_gap == 0 else event.paraphrase for label, event in labelled}
    items = {label: capitalised(text) for label, text in wording.items()}
    statements += _near_misses(labelled, wording, axes.near_miss_strength, rng)
    rng.shuffle(statements)
    question = ("The documents above mention many events. Put the following events in the order in which they "
                "happened:\n" + "\n".join(f"{label}. {text}" for label, text in items.items()) + "\n\n" + ANSWER_FORMAT)
    realised = replace(axes, predicate_composition=1, state_transition_depth=0,
                       computational_depth=axes.answer_scope - 1, derivation_depth=2)
    return Composition(
        category=CATEGORY, statements=statements, question=question,
        query={"items": {label: event.event_id for label, event in labelled}}, answer_type="ordered_labels",
        scorer="long_context.ordered_labels", format_answer=", ".join, probes=list(items.values()), axes=realised,
        items=items, grader={"labels": list(items)},
    ), world
