"""A seeded table of functional relations between the world's entities, and how they are written.

Every project is led by one person, funded by one organisation and tested at
one place; every person is employed by one organisation and born in one
place; every organisation is based at one place and directed by one person.
Chains through this table are what integration and attribution tasks ask
about. Each relation has question wordings and statement wordings at two
lexical distances, and a near-miss wording that names a wrong object in a
statement that does not hold.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from taskforge.builders.long_context.axes import Axes
from taskforge.builders.long_context.compose import Statement, capitalised, checks
from taskforge.builders.long_context.world import World


@dataclass(frozen=True)
class Relation:
    """One functional relation: subject and object types, question and statement wordings, near miss."""

    subject: str
    object: str
    ask: tuple[str, str]
    state: tuple[tuple[str, ...], tuple[str, ...]]
    negated: str


RELATIONS: dict[str, Relation] = {
    "led_by": Relation("project", "person", ("the person who leads {x}", "the head of {x}"),
                       (("{y} leads {x}.", "{x} is led by {y}."),
                        ("{y} is in charge of {x}.", "{x} runs under the direction of {y}.")),
                       "{y} was asked to lead {x} but turned the offer down."),
    "funded_by": Relation("project", "organisation", ("the organisation that funds {x}", "the sponsor of {x}"),
                          (("{x} is funded by {y}.", "{y} funds {x}."),
                           ("The money for {x} comes from {y}.", "{y} pays for the work on {x}.")),
                          "{y} was approached to fund {x} but declined."),
    "tested_at": Relation("project", "place", ("the place where {x} was tested", "the trial site of {x}"),
                          (("{x} was tested at {y}.", "Testing of {x} took place at {y}."),
                           ("Engineers put {x} through its trials at {y}.", "{y} hosted the field trials of {x}.")),
                          "{x} was due to be tested at {y}, but that plan was dropped."),
    "employed_by": Relation("person", "organisation", ("the organisation that employs {x}", "the employer of {x}"),
                            (("{y} employs {x}.", "{x} is employed by {y}."),
                             ("{x} works for {y}.", "{x} holds a post at {y}.")),
                            "{x} applied for a post at {y} but was not hired."),
    "born_in": Relation("person", "place", ("the place where {x} was born", "the birthplace of {x}"),
                        (("{x} was born in {y}.", "{x} was born at {y}."),
                         ("{y} is the home town of {x}.", "{x} spent a childhood in {y}, the family home.")),
                        "{x} is often wrongly said to come from {y}."),
    "based_at": Relation("organisation", "place", ("the place where {x} is based", "the home of {x}"),
                         (("{x} is based at {y}.", "{x} is based in {y}."),
                          ("The offices of {x} are at {y}.", "{x} has its headquarters at {y}.")),
                         "{x} considered moving to {y} but stayed where it was."),
    "directed_by": Relation("organisation", "person", ("the director of {x}", "the person at the top of {x}"),
                            (("{y} is the director of {x}.", "{x} is directed by {y}."),
                             ("Day-to-day decisions at {x} rest with {y}.", "{y} sits at the head of {x}.")),
                            "{y} was nominated as director of {x} but withdrew."),
}

Table = dict[tuple[str, str], str]
"""(subject, relation) → object."""


def entities(world: World, kind: str) -> tuple[str, ...]:
    """The world's entities of one type."""
    return {"project": world.projects, "person": world.people, "organisation": world.organisations,
            "place": world.places}[kind]


def relation_table(world: World, rng: random.Random) -> Table:
    """Every relation of every entity, drawn from the seed."""
    return {(subject, name): rng.choice(entities(world, relation.object))
            for name, relation in RELATIONS.items() for subject in entities(world, relation.subject)}


def walk(table: Table, world: World, hops: int, rng: random.Random) -> tuple[str, list[str], list[str]]:
    """A chain of `hops` relations from a project through distinct entities: start, path, entities reached."""
    while True:
        start = rng.choice(world.projects)
        path, reached, kind = [], [start], "project"
        for _ in range(hops):
            options = [name for name, r in RELATIONS.items() if r.subject == kind
                       and table[(reached[-1], name)] not in reached]
            if not options:
                break
            name = rng.choice(options)
            path.append(name)
            reached.append(table[(reached[-1], name)])
            kind = RELATIONS[name].object
        if len(path) == hops:
            return start, path, reached[1:]


def noun_phrase(start: str, path: list[str], gap: int) -> str:
    """The nested description of the chain's end: 'the place where the organisation that funds X is based'."""
    phrase = start
    for name in path:
        phrase = RELATIONS[name].ask[min(gap, 1)].format(x=phrase)
    return phrase


NESTED_HOPS = 3
"""Chains up to this many hops are described by one nested phrase; longer ones step by step."""


def chain_description(start: str, path: list[str], gap: int) -> str:
    """The chain's end described from its start: a nested phrase ('the place where the organisation that funds
    X is based') for short chains, numbered steps for longer ones."""
    if len(path) <= NESTED_HOPS:
        return noun_phrase(start, path, gap)
    steps, kind = [], "it"
    for n, name in enumerate(path, start=1):
        relation = RELATIONS[name]
        steps.append(f"({n}) {relation.ask[min(gap, 1)].format(x=kind)}")
        kind = f"that {relation.object}"
    return f"the {RELATIONS[path[-1]].object} reached from {start} by following, in order, {'; '.join(steps)}"


def relation_statement(fact_id: str, subject: str, name: str, obj: str, gap: int, rng: random.Random,
                       role: str, kind: str = "relation", group: str | None = None,
                       beside: tuple[str, int] | None = None) -> Statement:
    """A sentence stating (or, for a near miss, not stating) that subject —name→ object."""
    relation = RELATIONS[name]
    template = relation.negated if kind == "negated" else rng.choice(relation.state[min(gap, 1)])
    record = {"fact_id": fact_id, "kind": kind, "subject": subject, "relation": name, "object": obj,
              "checks": checks(texts=(subject, obj))}
    return Statement(record, capitalised(template.format(x=subject, y=obj)), role=role, group=group, beside=beside)


def chain_statements(table: Table, world: World, start: str, path: list[str], axes: Axes, rng: random.Random,
                     group: str | None = None) -> list[Statement]:
    """The chain's facts (evidence) and `search_space` distractors: other facts of the table — about other
    entities (near-miss strength 0), of the chain's relations (1), about the chain's own entities (2) — and,
    at strength 3, a declined or dropped statement naming a wrong object just before each chain fact."""
    chain, subject = [], start
    for name in path:
        chain.append((subject, name, table[(subject, name)]))
        subject = table[(subject, name)]
    statements = [relation_statement(f"r{i}", s, n, o, axes.lexical_gap, rng, "evidence", group=group)
                  for i, (s, n, o) in enumerate(chain)]
    on_chain = {s for s, _, _ in chain} | {o for _, _, o in chain}
    others = [(s, n, o) for (s, n), o in table.items() if (s, n, o) not in chain]
    rng.shuffle(others)
    level = axes.near_miss_strength
    others.sort(key=lambda f: (f[0] in on_chain,) if level == 0 else (f[1] not in path, f[0] in on_chain)
                if level == 1 else (f[0] not in on_chain, f[1] not in path))
    for k, (s, n, o) in enumerate(others[: axes.search_space]):
        statements.append(relation_statement(f"d{k}", s, n, o, rng.randrange(2), rng, "distractor"))
    if axes.near_miss_strength >= 3:
        for i, (s, n, o) in enumerate(chain):
            wrong = rng.choice([e for e in entities(world, RELATIONS[n].object) if e != o])
            statements.append(relation_statement(f"n{i}", s, n, wrong, axes.lexical_gap, rng, "distractor",
                                                 kind="negated", beside=(f"r{i}", -1)))
    return statements
