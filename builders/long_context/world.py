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
RESERVE_PURPOSES = ("travel", "equipment", "hardship", "maintenance", "bursary", "outreach", "library", "hospitality")
"""What an organisation's reserve (an account of a ledger) is for."""
DAY_OFFSETS = {0: "on the day of", 1: "the day after", -1: "the day before", 2: "two days after",
               -2: "two days before", 3: "three days after", -3: "three days before", 7: "a week after",
               -7: "a week before"}
"""Days given from an event, by their offset from its day."""
_PROJECT_KINDS = ("Project", "Programme", "Initiative", "Survey", "Array")
_FIRST_NAMES = ("Imara", "Tomas", "Lucia", "Oren", "Selin", "Baptiste", "Anouk", "Kwame", "Mirela", "Hugo",
                "Yara", "Dmitri", "Ines", "Farid", "Greta", "Nikhil", "Astrid", "Mateo", "Leila", "Corin")

EVENT_TEMPLATES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("{org} signed a supply agreement with {org2}", "a supply deal was concluded between {org} and {org2}",
     ("{org} and {org2} signed their supply agreement {date}.",
      "A supply agreement between {org} and {org2} was signed {date}.",
      "{date_cap}, {org} put its signature to a supply agreement with {org2}.")),
    ("{person} was appointed to lead {project}", "{person} took charge of {project}",
     ("{person} was appointed to lead {project} {date}.",
      "{date_cap}, the board named {person} as the head of {project}.",
      "{project} came under the leadership of {person} {date}.")),
    ("{project} passed its design review", "the design of {project} won approval",
     ("{project} passed its design review {date}.",
      "The design review of {project} concluded successfully {date}.",
      "{date_cap}, reviewers signed off on the design of {project}.")),
    ("{org} opened a field station at {place}", "{place} gained a research outpost run by {org}",
     ("{org} opened a field station at {place} {date}.",
      "{date_cap}, a new field station run by {org} opened its doors at {place}.",
      "The field station of {org} at {place} began operating {date}.")),
    ("{person} published the first status report of {project}",
     "the earliest progress account of {project} appeared, authored by {person}",
     ("{person} published the first status report of {project} {date}.",
      "The first {project} status report, written by {person}, came out {date}.",
      "{date_cap}, {person} released the opening status report on {project}.")),
    ("the {project} prototype failed its pressure test", "the {project} prototype broke under load testing",
     ("The {project} prototype failed its pressure test {date}.",
      "{date_cap}, the prototype built for {project} did not survive its pressure test.",
      "A pressure test of the {project} prototype ended in failure {date}.")),
    ("{org} moved its archive to {place}", "the records of {org} were transferred to {place}",
     ("{org} moved its archive to {place} {date}.",
      "{date_cap}, the archive of {org} was relocated to {place}.",
      "The archive held by {org} found a new home at {place} {date}.")),
    ("{person} resigned from {org}", "{person} left {org}",
     ("{person} resigned from {org} {date}.",
      "{date_cap}, {person} handed in a resignation to {org}.",
      "{org} accepted the resignation of {person} {date}.")),
    ("{org2} acquired a minority stake in {org}", "{org2} bought into {org} as a minority shareholder",
     ("{org2} acquired a minority stake in {org} {date}.",
      "{date_cap}, a minority stake in {org} passed to {org2}.",
      "A minority share of {org} was bought by {org2} {date}.")),
    ("{project} received its first external grant", "outside money reached {project} for the first time",
     ("{project} received its first external grant {date}.",
      "{date_cap}, the first outside grant for {project} was awarded.",
      "The first external funding for {project} arrived {date}.")),
)


def invented_name(rng: random.Random, syllables: int) -> str:
    """A capitalised name made of random syllables."""
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables)).capitalize()


def account_code(rng: random.Random) -> str:
    """An invented account or ledger-line code ('KA-4821')."""
    return f"{rng.choice('BDFHKLMPRTV')}{rng.choice('AEKNRSTX')}-{rng.randrange(1000, 9999)}"


def person_name(rng: random.Random) -> str:
    """An invented person's name: a first name and a three-syllable surname."""
    return f"{rng.choice(_FIRST_NAMES)} {invented_name(rng, 3)}"


@dataclass(frozen=True)
class Event:
    """A dated fact of the world, with a canonical description, a paraphrase that shares few of its
    words, and prose renderings (the first closest to the description)."""

    event_id: str
    description: str
    paraphrase: str
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


def unique_names(rng: random.Random, make, count: int) -> tuple[str, ...]:
    """`count` distinct names drawn with `make(rng)`."""
    seen: dict[str, None] = {}
    while len(seen) < count:
        seen.setdefault(make(rng), None)
    return tuple(seen)


def generate_world(seed: int, n_events: int, start_year: int = 2011, span_days: int = 3650) -> World:
    """A world with `n_events` events on distinct dates and distinct descriptions."""
    rng = random.Random(seed)
    orgs = unique_names(rng, lambda r: f"{invented_name(r, 2)} {r.choice(_ORG_KINDS)}", 8)
    people = unique_names(rng, person_name, 10)
    places = unique_names(rng, lambda r: f"{invented_name(r, 2)} {r.choice(_PLACE_KINDS)}", 6)
    projects = unique_names(rng, lambda r: f"{r.choice(_PROJECT_KINDS)} {invented_name(r, 2)}", 6)
    start = dt.date(start_year, 1, 1)
    days = rng.sample(range(span_days), n_events)
    events: list[Event] = []
    descriptions: set[str] = set()
    while len(events) < n_events:
        template, paraphrase, renderings = rng.choice(EVENT_TEMPLATES)
        org, org2 = rng.sample(orgs, 2)
        slots = {"org": org, "org2": org2, "person": rng.choice(people),
                 "place": rng.choice(places), "project": rng.choice(projects)}
        description = template.format(**slots)
        if description in descriptions:
            continue
        descriptions.add(description)
        used = tuple(sorted((k, v) for k, v in slots.items() if "{" + k + "}" in template))
        events.append(Event(
            event_id=f"e{len(events):03d}", description=description, paraphrase=paraphrase.format(**slots),
            renderings=tuple(r.format(**slots, date="{date}", date_cap="{date_cap}") for r in renderings),
            date=start + dt.timedelta(days=days[len(events)]), slots=used,
        ))
    return World(seed=seed, organisations=orgs, people=people, places=places, projects=projects, events=tuple(events))
