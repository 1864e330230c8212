"""Multiple-choice options of the literature kinds that ask for a number: values near the answer, and the lettered
listing that ends with the refusal option."""

from __future__ import annotations

import random
import string

INSUFFICIENT = "Insufficient information"


def near_values(value: str, chosen: list[str], excluded: set[str], count: int, rng: random.Random) -> list[str]:
    """`chosen` topped up to `count` with positive values near `value` (as many decimal places), none excluded."""
    chosen = list(chosen)
    places = len(value.split(".")[1])
    step = 1
    while len(chosen) < count:
        for sign in (1, -1):
            near = f"{float(value) + sign * step * rng.uniform(0.6, 3.0):.{places}f}"
            if near not in excluded and near not in chosen and float(near) > 0 and len(chosen) < count:
                chosen.append(near)
        step += 1
    return chosen


def lettered(values: list[str], answer: str) -> tuple[dict[str, str], str, str]:
    """The options (the values in order, then the refusal option), the answer's letter and the refusal's letter."""
    letters = string.ascii_uppercase[:len(values) + 1]
    return dict(zip(letters, [*values, INSUFFICIENT])), letters[values.index(answer)], letters[-1]
