"""Evidence attribution: which documents together establish a claim that chains several facts, e.g.
"Kavel Harbour is the place where the organisation that funds Project Kavel is based."

Each link is stated in a different document; the answer is the set of those
documents, computed from where the world model's facts were placed.
"""

from __future__ import annotations

import random
from dataclasses import replace

from taskforge.builders.long_context.axes import PLACEMENT_KNOBS, Axes
from taskforge.builders.long_context.compose import Composition, capitalised
from taskforge.builders.long_context.relations import (RELATIONS, chain_description, chain_statements,
                                                      relation_table, walk)
from taskforge.builders.long_context.world import World, generate_world

CATEGORY = "evidence_attribution"
KNOBS = {"near_miss_strength": (0, 1, 2, 3), "lexical_gap": (0, 1), "answer_scope": (2, 3, 4, 5),
         "search_space": (8, 16, 32, 64), **PLACEMENT_KNOBS}
START = {"near_miss_strength": 1, "answer_scope": 3, "search_space": 16}
"""Where a root task starts on the ladders above (the easier levels stay for `start=easiest`)."""
START_AT_LENGTH = {16384: {"near_miss_strength": 2, "answer_scope": 4, "search_space": 32}, 32768: {"lexical_gap": 1}}
"""Longer targets start harder (`axes.root_start`): from 16K a root starts a rung up on near misses and on
the knobs that set how much there is to find; from 32K the question is worded apart from the evidence."""


def compose(seed: int, axes: Axes, rng: random.Random) -> tuple[Composition, World]:
    """A claim chaining `answer_scope` relations, each stated in its own document."""
    world = generate_world(seed, 0)
    table = relation_table(world, random.Random(seed))
    start, path, reached = walk(table, world, axes.answer_scope, rng)
    claim = f"{capitalised(reached[-1])} is {chain_description(start, path, axes.lexical_gap)}."
    question = (f"Consider the claim: “{claim}” Which documents together establish it? List the ids of the "
                "documents whose statements are needed, on a final line of the form 'Answer: doc-1, doc-2'.")
    probes = [RELATIONS[name].ask[min(axes.lexical_gap, 1)].format(x=start if i == 0 else "…")
              + (f": {reached[-1]}" if i == len(path) - 1 else "") for i, name in enumerate(path)]
    return Composition(
        category=CATEGORY,
        statements=chain_statements(table, world, start, path, axes, rng, group="claim"), question=question,
        query={"form": "chain", "start": start, "path": path, "end": reached[-1]}, answer_type="document_set",
        scorer="long_context.document_set", format_answer=", ".join, probes=probes,
        axes=replace(axes, predicate_composition=len(path), computational_depth=len(path) - 1,
                     derivation_depth=len(path)),
        n_docs=8,
    ), world
