"""The difficulty axes of a long-context task, and how evolution makes a task harder along them.

Every task records all ten axes (payload `difficulty`). A category varies
some of them as knobs (each an ascending ladder of levels) and derives the
rest from the structure it builds; an axis a category has no use for is 0.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace
from itertools import combinations
from typing import Any

Knobs = dict[str, tuple[Any, ...]]
"""Per axis a category can vary: its levels, easiest first."""


@dataclass(frozen=True)
class Axes:
    """The ten difficulty axes.

    search_space: candidates the reader must sift (facts, entities or documents of the asked kind);
    answer_scope: elements in the answer; predicate_composition: conditions or hops the question
    combines; positional_nonlocality: how far apart the evidence lies (0 together … 1 spread over the
    whole context); near_miss_strength: how closely distractors imitate evidence (0 none … 3 same
    entities, wording and kind of value); distractor_dispersion: how widely distractors are spread
    (0 clustered … 1 everywhere); lexical_gap: how far the question's wording is from the evidence's
    (0 same words, 1 paraphrased); state_transition_depth: state updates to replay;
    computational_depth: arithmetic or comparison steps; derivation_depth: steps of the shortest
    derivation from the evidence to the answer.
    """

    search_space: int = 0
    answer_scope: int = 1
    predicate_composition: int = 1
    positional_nonlocality: float = 0.5
    near_miss_strength: int = 0
    distractor_dispersion: float = 0.5
    lexical_gap: int = 0
    state_transition_depth: int = 0
    computational_depth: int = 0
    derivation_depth: int = 1

    def as_dict(self) -> dict[str, Any]:
        """The axes as recorded in `payload.difficulty`."""
        return asdict(self)


PLACEMENT_KNOBS: Knobs = {
    "positional_nonlocality": (0.2, 0.5, 0.9),
    "distractor_dispersion": (0.2, 0.6, 1.0),
}
"""Knobs every world-model category has: where evidence and distractors are placed."""


def root_start(category: Any, tokens: int) -> dict[str, Any] | None:
    """A category module's `START` levels for a target of `tokens`, raised by its `START_AT_LENGTH` entries
    (target length → levels) whose length the target reaches."""
    start = getattr(category, "START", None)
    raised = [levels for length, levels in sorted(getattr(category, "START_AT_LENGTH", {}).items())
              if tokens >= length]
    return {**(start or {}), **{k: v for levels in raised for k, v in levels.items()}} if raised else start


def root_axes(knobs: Knobs, start: dict[str, Any] | None = None) -> Axes:
    """The setting a root task starts from: the `start` level of the knobs it names, the easiest level of
    the others."""
    return replace(Axes(), **{**{axis: levels[0] for axis, levels in knobs.items()}, **(start or {})})


def steppable(axes: Axes, knobs: Knobs) -> list[str]:
    """Knobs that are not yet at their hardest level."""
    return [axis for axis, levels in knobs.items() if getattr(axes, axis) in levels
            and levels.index(getattr(axes, axis)) < len(levels) - 1]


def harder_variants(axes: Axes, knobs: Knobs, rng: random.Random,
                    changed: int = 2) -> list[tuple[Axes, tuple[str, ...]]]:
    """Every way to step `changed` knobs one level harder: those that step a category's first knobs (the
    ones that defeat shortcuts best) come first, ties in a seeded random order."""
    order = list(knobs)
    options = list(combinations(steppable(axes, knobs), changed))
    rng.shuffle(options)
    options.sort(key=lambda chosen: min(order.index(axis) for axis in chosen))
    variants = []
    for chosen in options:
        stepped = {axis: knobs[axis][knobs[axis].index(getattr(axes, axis)) + 1] for axis in chosen}
        variants.append((replace(axes, **stepped), chosen))
    return variants
