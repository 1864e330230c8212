"""Fitting a context to a target length in the trainer's tokens by adding or removing filler blocks.

The prompt is counted piece by piece, never encoded whole: the system message
with the first heading, each later heading, each block with the blank line
after it, and the question with its separator. Every piece ends where the
tokenizer's pre-tokenizer splits anyway (after a blank line, before a word,
heading mark or quote), so the pieces' counts add up to the prompt's count
exactly (`tests/test_long_context.py` checks it against a whole encode), each
block is encoded once when it is made, and fitting costs no further encoding
(`bench/long_context.py` reports the encoded/context ratio).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from taskforge.graders.long_context.prompting import QUESTION_SEPARATOR, SYSTEM, heading
from taskforge.builders.long_context.render import BLOCK_SEPARATOR, Block, Doc
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
    """The block with its token count filled in: the block and the blank line after it, encoded once."""
    if not block.tokens:
        block.tokens = count_tokens(block.text + BLOCK_SEPARATOR)
    return block


def prompt_tokens(docs: list[Doc], question: str) -> int:
    """Tokens of the whole prompt (system message and user turn) as the trainer counts them, added up from its
    pieces: blocks' cached counts, the headings and the question."""
    headings = [heading(doc.title, doc.doc_id) for doc in docs]
    fixed = [SYSTEM + headings[0], *headings[1:]] if headings else [SYSTEM]
    tail = QUESTION_SEPARATOR.removeprefix(BLOCK_SEPARATOR) + question
    return (sum(map(count_tokens, fixed)) + count_tokens(tail)
            + sum(counted(block).tokens for doc in docs for block in doc.blocks))


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
        missing -= block.tokens


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
        if block.tokens <= excess + 12:
            dropped.add(id(block))
            excess -= block.tokens
    if not dropped:
        dropped.add(id(min(candidates, key=lambda b: b.tokens)))
    for doc in docs:
        doc.blocks = [block for block in doc.blocks if id(block) not in dropped]
    return True


def _numbered_tokens(docs: list[Doc], question: str) -> int:
    """Number the documents that have blocks in order and count the prompt they make."""
    shown = [doc for doc in docs if doc.blocks]
    for i, doc in enumerate(shown):
        doc.doc_id = f"doc-{i + 1}"
    return prompt_tokens(shown, question)


def fit_length(docs: list[Doc], question: str, target: LengthTarget, make_filler: FillerMaker,
               rng: random.Random, max_rounds: int = 6) -> int:
    """Add or remove filler until the prompt is within the target's band; returns its measured length. Empty
    documents are dropped and the rest numbered `doc-1`, `doc-2` … in order (ids are part of the count)."""
    measured = _numbered_tokens(docs, question)
    for _ in range(max_rounds):
        gap = target.context_tokens - measured
        if abs(gap) <= target.band:
            break
        if gap > 0:
            add_filler(docs, gap, make_filler, rng)
        elif not remove_filler(docs, -gap, rng):
            break
        measured = _numbered_tokens(docs, question)
    if not target.accepts(measured):
        raise LengthNotMetError(f"context of {measured} tokens after fitting, target {target.context_tokens} "
                                f"± {target.tolerance:.0%}")
    docs[:] = [doc for doc in docs if doc.blocks]
    return measured
