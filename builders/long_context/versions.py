"""Version-impact analysis: which services does a library defect reach through the dependency graph,
given the exceptions the documents state?

The world model is a layered dependency graph (services → libraries → the
defective library) with pinned versions, a defect's version range, and
exceptions: a service or library that is not exposed, a version that carries a
backported fix. The answer is computed by `derive_versions`; the evidence is a
minimal set of statements that determines it.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, Statement, UnanswerableError, capitalised, checks
from taskforge.builders.long_context.world import World, generate_world, invented_name, unique_names
from taskforge.graders.long_context.answerability import minimal_support
from taskforge.graders.long_context.derive import derive_versions

CATEGORY = "version_impact"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "predicate_composition": (1, 2, 3), "derivation_depth": (2, 3, 4, 5),
         "lexical_gap": (0, 1), "search_space": (4, 6, 10, 14), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "predicate_composition": 2, "derivation_depth": 3, "search_space": 6}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "derivation_depth": 4, "search_space": 10}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""
USES_SERVICE = (("The {user} service depends on {library} {version}.",
                 "The {user} service is built against {library} {version}."),
                ("{library} {version} ships inside the {user} service.",
                 "Release {version} of {library} is bundled with the {user} service."))
USES_LIBRARY = (("{user} links against {library} {version}.", "{user} requires {library} {version} at run time."),
                ("{library} {version} is pulled in by {user}.", "Builds of {user} embed {library} {version}."))
DEFECT = ("Defect {defect} affects {library} from version {first} up to and including {last}.",
          "Versions {first} through {last} of {library} are affected by defect {defect}.")
EXEMPT = "{node} never calls the affected code of {library}, so it is not exposed to {defect}."
PATCHED = "{library} {version} as built here carries a backported fix for {defect}."
PLANNED = "The {user} team plans to move to {library} {version} next quarter."


def _version(minor: int, patch: int) -> str:
    """A version of the defective library's 1.x line."""
    return f"1.{minor}.{patch}"


class _Graph:
    """The dependency graph under construction and its statements."""

    def __init__(self, axes: Axes, rng: random.Random):
        self.axes, self.rng = axes, rng
        self.statements: list[Statement] = []

    def add(self, kind: str, sentence: str, texts: tuple[str, ...], versions: tuple[str, ...] = (),
            **fields: Any) -> str:
        """Add a statement of the graph; returns its fact id."""
        fact_id = f"v{len(self.statements)}"
        record = {"fact_id": fact_id, "kind": kind, **fields, "checks": checks(texts=texts, versions=versions)}
        self.statements.append(Statement(record, capitalised(sentence)))
        return fact_id

    def uses(self, user: str, library: str, version: str, service: bool) -> None:
        """A service or library using a library at a pinned version."""
        wording = (USES_SERVICE if service else USES_LIBRARY)[min(self.axes.lexical_gap, 1)]
        self.add("uses", self.rng.choice(wording).format(user=user, library=library, version=version),
                 (user, library), (version,), user=user, library=library, version=version)


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """`search_space` services over `derivation_depth - 1` layers of libraries, `predicate_composition`
    exceptions, and near misses (versions just outside the range, planned upgrades, other defects)."""
    world = generate_world(seed, 0)
    names = random.Random(seed)
    services = list(unique_names(names, lambda r: invented_name(r, 2), axes.search_space))
    libraries = list(unique_names(names, lambda r: "lib" + invented_name(r, 2).lower(), 10))
    target, layers = libraries[0], [libraries[1 + 3 * j: 4 + 3 * j] for j in range(axes.derivation_depth - 2)]
    low_minor = rng.randint(2, 5)
    first, last = _version(low_minor, 0), _version(low_minor + rng.randint(1, 2), rng.randint(1, 4))
    defect = f"D-{rng.randint(10, 99)}"
    last_minor, last_patch = map(int, last.split(".")[1:])
    inside = [_version(m, p) for m in range(low_minor, last_minor + 1) for p in range(5)
              if (m, p) <= (last_minor, last_patch)]
    if axes.near_miss_strength:
        outside = [_version(low_minor - 1, 9), _version(last_minor, last_patch + 1)]
    else:
        outside = [_version(low_minor - 1, rng.randint(0, 8)), _version(last_minor + 2, rng.randint(0, 9))]
    graph = _Graph(axes, rng)
    graph.add("defect", rng.choice(DEFECT).format(defect=defect, library=target, first=first, last=last),
              (defect, target), (first, last), defect=defect, library=target, first=first, last=last)
    pick = lambda: rng.choice(inside) if rng.random() < 0.6 else rng.choice(outside)  # noqa: E731
    for j, layer in enumerate(layers):
        below = layers[j + 1] if j + 1 < len(layers) else [target]
        for library in layer:
            dependency = rng.choice(below)
            graph.uses(library, dependency, pick() if dependency == target else "2.0.0", service=False)
    top = layers[0] if layers else [target]
    for service in services:
        dependency = rng.choice(top)
        graph.uses(service, dependency, pick() if dependency == target else _version(rng.randint(0, 9), 0),
                   service=True)
    for _ in range(axes.predicate_composition):
        choice = rng.random()
        pinned = [s.record for s in graph.statements if s.record["kind"] == "uses" and s.record["library"] == target
                  and s.record["version"] in inside]
        if choice < 0.4 and pinned:
            version = rng.choice(pinned)["version"]
            graph.add("patched", PATCHED.format(library=target, version=version, defect=defect), (target, defect),
                      (version,), library=target, version=version, defect=defect)
        else:
            node = rng.choice(services + [lib for layer in layers for lib in layer])
            graph.add("exempt", EXEMPT.format(node=f"The {node} service" if node in services else node,
                                              library=target, defect=defect), (node, defect), node=node, defect=defect)
    if axes.near_miss_strength >= 2:
        for service in rng.sample(services, min(2, len(services))):
            version = rng.choice(inside)
            graph.add("planned", PLANNED.format(user=service, library=target, version=version), (service, target),
                      (version,), user=service, library=target, version=version)
    if axes.near_miss_strength >= 3:
        other = f"D-{int(defect[2:]) + rng.randint(1, 9)}"
        for service in rng.sample(services, min(2, len(services))):
            graph.add("exempt", EXEMPT.format(node=f"The {service} service", library=target, defect=other),
                      (service, other), node=service, defect=other)
    query = {"defect": defect, "components": sorted(services)}
    facts = [s.record for s in graph.statements]
    outcomes = derive_versions(facts, query)
    if len(outcomes) != 1 or outcomes[0] is None or not 0 < len(outcomes[0]) < len(services):
        raise UnanswerableError("version_impact: the defect must reach some services and not others")
    support = set(minimal_support(CATEGORY, facts, query, outcomes[0]))
    for statement in graph.statements:
        statement.role = "evidence" if statement.record["fact_id"] in support else "distractor"
    question = (f"Defect {defect} was found in {target}. Which of the services named in the documents are affected "
                f"by it? A service is affected when it uses a version of {target} inside "
                "the defect's range, directly or through the libraries it depends on, unless the documents say "
                "that the service, or a library on the way, is not exposed, or that the version used carries a fix. "
                "Reply with the affected services, separated by commas, on a final line of the form "
                "'Answer: NAME, NAME'.")
    exceptions = sum(1 for f in facts if f["kind"] in ("exempt", "patched") and f["fact_id"] in support)
    return Composition(
        category=CATEGORY, statements=graph.statements, question=question, query=query,
        answer_type="name_set", scorer="long_context.affected_set", format_answer=", ".join,
        probes=[target],
        axes=replace(axes, answer_scope=len(outcomes[0]), predicate_composition=1 + exceptions,
                     computational_depth=sum(1 for f in facts if f["kind"] == "uses" and f["library"] == target)),
    ), world
