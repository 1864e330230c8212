"""Fitting a context to a target length in the trainer's tokens by adding or removing filler blocks.

Each block is counted once (filler blocks from cached sentence counts) and the
whole prompt is encoded once per round; block counts add up to within a
fraction of a percent of the prompt, so the first measurement usually lands
within the band and the prompt is encoded about once, at 128K too
(`bench/long_context.py` reports the encoded/context ratio).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from taskforge.graders.long_context.prompting import prompt_text
from taskforge.builders.long_context.render import Block, Doc, render_docs
from taskforge.schemas.tokens import count_tokens


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

    @property
    def band(self) -> float:
        """How close fitting aims to get: half the tolerance (at least 24 tokens)."""
        return max(24.0, self.tolerance * self.context_tokens / 2)

    def accepts(self, measured: int) -> bool:
        return abs(measured - self.context_tokens) <= self.tolerance * self.context_tokens


class LengthNotMetError(ValueError):
    """The context cannot be brought within tolerance (the core content is already too long)."""


FillerMaker = Callable[[int], Block]
"""Makes one removable filler block of about the given number of sentences, its tokens counted."""


def counted(block: Block) -> Block:
    """The block with its token count filled in (encoded once)."""
    if not block.tokens:
        block.tokens = count_tokens(block.text)
    return block


def measure(docs: list[Doc], question: str) -> int:
    """Tokens of the whole prompt (system message and user turn) as the trainer counts them."""
    return count_tokens(prompt_text(render_docs(docs)[0], question))


def refuse_if_over(measured: int, target: LengthTarget) -> None:
    """Raise when content that may not be removed already exceeds the target."""
    if measured > target.context_tokens * (1 + target.tolerance):
        raise LengthNotMetError(f"core content alone takes {measured} tokens, over the target of "
                                f"{target.context_tokens}")


def add_filler(docs: list[Doc], missing: float, make_filler: FillerMaker, rng: random.Random) -> None:
    """Insert filler blocks at random places (of synthetic documents where there are any) until about
    `missing` tokens were added."""
    hosts = [doc for doc in docs if doc.synthetic] or docs
    while missing > 12:
        block = counted(make_filler(5 if missing > 200 else 1))
        doc = rng.choice(hosts)
        doc.blocks.insert(rng.randrange(len(doc.blocks) + 1), block)
        missing -= block.tokens + 1


def remove_filler(docs: list[Doc], excess: float, rng: random.Random) -> bool:
    """Drop removable blocks (never fact blocks) worth about `excess` tokens; False when none is left."""
    candidates = [block for doc in docs for block in doc.blocks if block.removable]
    if not candidates:
        return False
    rng.shuffle(candidates)
    dropped: set[int] = set()
    for block in candidates:
        if excess <= 12:
            break
        if counted(block).tokens <= excess + 12:
            dropped.add(id(block))
            excess -= block.tokens + 1
    if not dropped:
        dropped.add(id(min(candidates, key=lambda b: b.tokens)))
    for doc in docs:
        doc.blocks = [block for block in doc.blocks if id(block) not in dropped]
    docs[:] = [doc for doc in docs if doc.blocks]
    return True


def fit_length(docs: list[Doc], question: str, target: LengthTarget, make_filler: FillerMaker,
               rng: random.Random, max_rounds: int = 6) -> int:
    """Add or remove filler until the prompt is within the target's band; returns its measured length."""
    measured = measure(docs, question)
    for _ in range(max_rounds):
        gap = target.context_tokens - measured
        if abs(gap) <= target.band:
            return measured
        if gap > 0:
            add_filler(docs, gap, make_filler, rng)
        elif not remove_filler(docs, -gap, rng):
            break
        measured = measure(docs, question)
    if not target.accepts(measured):
        raise LengthNotMetError(f"context of {measured} tokens after fitting, target {target.context_tokens} "
                                f"± {target.tolerance:.0%}")
    return measured
