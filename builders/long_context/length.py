"""Fitting a context to a target length in the trainer's tokens by adding or removing filler."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from builders.long_context.render import Document
from schemas.tokens import count_tokens


@dataclass(frozen=True)
class LengthTarget:
    """A target context length (tokens of the trainer's tokenizer) and the tolerance it must meet."""

    tokens: int
    tolerance: float = 0.02
    answer_reserve: int = 256

    @property
    def context_tokens(self) -> int:
        """The length the prompt aims at: the target less the room kept for the answer."""
        return self.tokens - self.answer_reserve

    def accepts(self, measured: int) -> bool:
        return abs(measured - self.context_tokens) <= self.tolerance * self.context_tokens


class LengthNotMetError(ValueError):
    """The filler could not bring the context within tolerance (the core content is already too long)."""


def fit_length(documents: list[Document], render: Callable[[list[Document]], str], target: LengthTarget,
               make_filler: Callable[[], str], rng: random.Random, max_rounds: int = 8) -> int:
    """Insert or remove filler paragraphs until `render(documents)` is within the target; returns its length.

    Filler goes at random positions of random documents; paragraphs that state
    events are never removed. Paragraph lengths are summed as an estimate, and
    the whole prompt is measured exactly at the end of each round.
    """
    measured = count_tokens(render(documents))
    if measured > target.context_tokens * (1 + target.tolerance):
        raise LengthNotMetError(f"core content alone takes {measured} tokens, over the target of {target.context_tokens}")
    fillers: list[tuple[Document, str]] = []
    for _ in range(max_rounds):
        if target.accepts(measured):
            return measured
        missing = target.context_tokens - measured
        if missing > 0:
            while missing > 0:
                paragraph = make_filler()
                document = rng.choice(documents)
                document.paragraphs.insert(rng.randrange(len(document.paragraphs) + 1), paragraph)
                fillers.append((document, paragraph))
                missing -= count_tokens(paragraph) + 1
        else:
            while missing < 0 and fillers:
                document, paragraph = fillers.pop(rng.randrange(len(fillers)))
                document.paragraphs.remove(paragraph)
                missing += count_tokens(paragraph) + 1
        measured = count_tokens(render(documents))
    if not target.accepts(measured):
        raise LengthNotMetError(f"context of {measured} tokens after {max_rounds} rounds, target {target.context_tokens}")
    return measured
