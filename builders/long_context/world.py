"""A seeded symbolic world: fictional organisations, people, places, projects and dated events.

Answers are computed from this model, never read back from rendered text. All
names are invented from syllables so that no task overlaps a public text.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

_SYLLABLES = ("ka", "vel", "tor", "mi", "san", "dre", "lo", "qua", "ren", "bar", "this", "ul", "ne", "fa",
              "gor", "pel", "zi", "hal", "vor", "ma", "tes", "ry", "on", "dal", "ke", "bri", "sto", "lan")
_ORG_KINDS = ("Institute", "Laboratory", "Consortium", "Foundry", "Works", "Observatory", "Cooperative", "Trust")
_PLACE_KINDS = ("Harbour", "Ridge", "Valley", "Crossing", "Point", "Fields", "Basin", "Heights")
_PROJECT_KINDS = ("Project", "Programme", "Initiative", "Survey", "Array")
_FIRST_NAMES = ("Imara", "Tomas", "Lucia", "Oren", "Selin", "Baptiste", "Anouk", "Kwame", "Mirela", "Hugo",
                "Yara", "Dmitri", "Ines", "Farid", "Greta", "Nikhil", "Astrid", "Mateo", "Leila", "Corin")

EVENT_TEMPLATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("{org} signed a supply agreement with {org2}",
     ("{org} and {org2} signed their supply agreement {date}.",
      "A supply agreement between {org} and {org2} was signed {date}.",
      "{date_cap}, {org} put its signature to a supply agreement with {org2}.")),
    ("{person} was appointed to lead {project}",
     ("{person} was appointed to lead {project} {date}.",
      "{date_cap}, the board named {person} as the head of {project}.",
      "{project} came under the leadership of {person} {date}.")),
    ("{project} passed its design review",
     ("{project} passed its design review {date}.",
      "The design review of {project} concluded successfully {date}.",
      "{date_cap}, reviewers signed off on the design of {project}.")),
    ("{org} opened a field station at {place}",
     ("{org} opened a field station at {place} {date}.",
      "{date_cap}, a new field station run by {org} opened its doors at {place}.",
      "The field station of {org} at {place} began operating {date}.")),
    ("{person} published the first status report of {project}",
     ("{person} published the first status report of {project} {date}.",
      "The first {project} status report, written by {person}, came out {date}.",
      "{date_cap}, {person} released the opening status report on {project}.")),
    ("the {project} prototype failed its pressure test",
     ("The {project} prototype failed its pressure test {date}.",
      "{date_cap}, the prototype built for {project} did not survive its pressure test.",
      "A pressure test of the {project} prototype ended in failure {date}.")),
    ("{org} moved its archive to {place}",
     ("{org} moved its archive to {place} {date}.",
      "{date_cap}, the archive of {org} was relocated to {place}.",
      "The archive held by {org} found a new home at {place} {date}.")),
    ("{person} resigned from {org}",
     ("{person} resigned from {org} {date}.",
      "{date_cap}, {person} handed in a resignation to {org}.",
      "{org} accepted the resignation of {person} {date}.")),
    ("{org2} acquired a minority stake in {org}",
     ("{org2} acquired a minority stake in {org} {date}.",
      "{date_cap}, a minority stake in {org} passed to {org2}.",
      "A minority share of {org} was bought by {org2} {date}.")),
    ("{project} received its first external grant",
     ("{project} received its first external grant {date}.",
      "{date_cap}, the first outside grant for {project} was awarded.",
      "The first external funding for {project} arrived {date}.")),
)


def _name(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables)).capitalize()


@dataclass(frozen=True)
class Event:
    """A dated fact of the world, with a canonical description and prose renderings."""

    event_id: str
    description: str
    renderings: tuple[str, ...]
    date: dt.date
    slots: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class World:
    """The entities and events generated from one seed."""

    seed: int
    organisations: tuple[str, ...]
    people: tuple[str, ...]
    places: tuple[str, ...]
    projects: tuple[str, ...]
    events: tuple[Event, ...]


def _unique(rng: random.Random, make, count: int) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    while len(seen) < count:
        seen.setdefault(make(rng), None)
    return tuple(seen)


def generate_world(seed: int, n_events: int, start_year: int = 2011, span_days: int = 3650) -> World:
    """A world with `n_events` events on distinct dates and distinct descriptions."""
    rng = random.Random(seed)
    orgs = _unique(rng, lambda r: f"{_name(r, 2)} {r.choice(_ORG_KINDS)}", 8)
    people = _unique(rng, lambda r: f"{r.choice(_FIRST_NAMES)} {_name(r, 3)}", 10)
    places = _unique(rng, lambda r: f"{_name(r, 2)} {r.choice(_PLACE_KINDS)}", 6)
    projects = _unique(rng, lambda r: f"{r.choice(_PROJECT_KINDS)} {_name(r, 2)}", 6)
    start = dt.date(start_year, 1, 1)
    days = rng.sample(range(span_days), n_events)
    events: list[Event] = []
    descriptions: set[str] = set()
    while len(events) < n_events:
        template, renderings = rng.choice(EVENT_TEMPLATES)
        org, org2 = rng.sample(orgs, 2)
        slots = {"org": org, "org2": org2, "person": rng.choice(people),
                 "place": rng.choice(places), "project": rng.choice(projects)}
        description = template.format(**slots)
        if description in descriptions:
            continue
        descriptions.add(description)
        used = tuple(sorted((k, v) for k, v in slots.items() if "{" + k + "}" in template))
        events.append(Event(
            event_id=f"e{len(events):03d}", description=description,
            renderings=tuple(r.format(**slots, date="{date}", date_cap="{date_cap}") for r in renderings),
            date=start + dt.timedelta(days=days[len(events)]), slots=used,
        ))
    return World(seed=seed, organisations=orgs, people=people, places=places, projects=projects, events=tuple(events))
