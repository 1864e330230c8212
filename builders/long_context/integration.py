"""Cross-document factual integration: follow a chain of relations whose links are stated in different
places, e.g. "Name the place where the organisation that funds Project Kavel is based."

The answer is the entity the chain reaches in the world model's relation table.
"""

from __future__ import annotations

import random
from dataclasses import replace

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition
from taskforge.builders.long_context.relations import (chain_description, chain_statements, noun_phrase,
                                                      relation_table, walk)
from taskforge.builders.long_context.world import World, generate_world

CATEGORY = "cross_doc_integration"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "lexical_gap": (0, 1), "derivation_depth": (2, 3, 4, 5, 6),
         "search_space": (8, 16, 32, 64), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "derivation_depth": 3, "search_space": 16}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "derivation_depth": 4, "search_space": 32}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """A chain of `derivation_depth` relations from a project, among `search_space` other relation facts."""
    world = generate_world(seed, 0)
    table = relation_table(world, random.Random(seed))
    start, path, _ = walk(table, world, axes.derivation_depth, rng)
    phrase = noun_phrase(start, path, axes.lexical_gap)
    question = (f"Name {chain_description(start, path, axes.lexical_gap)}. The documents state each link of this "
                "chain separately. Reply with the name on a final line of the form 'Answer: NAME'.")
    return Composition(
        category=CATEGORY, statements=chain_statements(table, world, start, path, axes, rng, group="chain"),
        question=question,
        query={"form": "chain", "start": start, "path": path}, answer_type="entity",
        scorer="long_context.exact_value", format_answer=str, probes=[phrase],
        axes=replace(axes, answer_scope=1, predicate_composition=len(path), computational_depth=len(path) - 1),
    ), world
