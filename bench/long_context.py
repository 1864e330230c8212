"""Long-context build speed at 32K and 128K tokens, beside the tokenizer's bare encode speed on the same text.

For each length, builds tasks of every world-model category in turn (without
evolution: one task each; with evolution: every candidate down to the hard
one) and reports tasks per second and context tokens per second; then encodes
the very same prompts with the bare tokenizer (`taskforge.schemas.tokens`) and
reports its tokens per second. Times are CPU seconds of this process (the
builder is single-threaded; on a shared machine wall time mostly measures the
neighbours), the best of `--rounds` rounds for both sides, each round building
and then encoding. `encoded/ctx` is how many tokens the builder encoded per
context token it delivered (filler is counted from remembered pieces, so well
under 1). Run: `.venv/bin/python bench/long_context.py [--tasks N] [--rounds R]`.
"""

from __future__ import annotations

import argparse
import time

from figures import emit

from taskforge.builders.base import BuildContext
from taskforge.builders.long_context import LongContextBuilder
from taskforge.builders.long_context.categories import CATEGORIES
from taskforge.schemas import PlanItem, Task
from taskforge.schemas.tokens import count_tokens, tokenizer


class _CountingEncoder:
    """Wraps the tokenizer's encode to add up how many tokens were encoded."""

    def __init__(self, encode):
        self.encode, self.tokens = encode, 0

    def __call__(self, text: str, *args, **kwargs) -> list[int]:
        ids = self.encode(text, *args, **kwargs)
        self.tokens += len(ids)
        return ids


def _build(tokens: int, count: int, evolve: bool) -> tuple[list[Task], float, int]:
    """`count` roots (categories in turn) at one length: every emitted task, the CPU seconds it took, and the
    tokens encoded while building."""
    builder, built = LongContextBuilder(), []
    counter = _CountingEncoder(tokenizer().encode)
    tokenizer().encode = counter
    started = time.process_time()
    for index in range(count):
        category = sorted(CATEGORIES)[index % len(CATEGORIES)]
        item = PlanItem(family="long_context", capability="bench", quota=1, gap_ids=[], priority=1.0)
        context = BuildContext(cycle_id="bench", first_index=index,
                               options={"target_tokens": tokens, "categories": category, "evolve": evolve})
        built += builder.build(item, context)
    seconds = time.process_time() - started
    tokenizer().encode = counter.encode
    return built, seconds, counter.tokens


def _bare_encode(tasks: list[Task]) -> tuple[int, float]:
    """Tokens and CPU seconds for encoding the same prompts once each with the bare tokenizer."""
    texts = [t.prompt[0].content + t.prompt[1].content for t in tasks]
    started = time.process_time()
    total = sum(count_tokens(text) for text in texts)
    return total, time.process_time() - started


def main() -> None:
    """Print the figures for 32K and 128K."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=8, help="root tasks per length (default 8: one per category)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per setting; the best of each side counts")
    args = parser.parse_args()
    tokenizer()
    _build(8192, len(CATEGORIES), False)
    header = (f"{'length':>7} {'mode':<7} {'tasks':>5} {'tasks/s':>8} {'ctx tok/s':>11} "
              f"{'bare encode tok/s':>18} {'ours/bare':>9} {'encoded/ctx':>11}")
    print(header)
    print("-" * len(header))
    for tokens in (32768, 131072):
        for evolve in (False, True):
            ours_seconds = bare_seconds = float("inf")
            for _ in range(args.rounds):
                tasks, seconds, encoded = _build(tokens, args.tasks, evolve)
                bare_tokens, bare = _bare_encode(tasks)
                ours_seconds, bare_seconds = min(ours_seconds, seconds), min(bare_seconds, bare)
            context = sum(t.payload["context_tokens"] for t in tasks)
            ours, bare = context / ours_seconds, bare_tokens / bare_seconds
            mode = "evolve" if evolve else "single"
            print(f"{tokens // 1024:>6}K {mode:<7} {len(tasks):>5} {len(tasks) / ours_seconds:>8.2f} {ours:>11,.0f} "
                  f"{bare:>18,.0f} {ours / bare:>9.3f} {encoded / context:>11.2f}")
            emit(f"long-context generation, {tokens // 1024}K {mode} (bench/long_context.py)", ours, bare, "ctx tok/s",
                 ">= 0.5x", "bare encode of the same prompts (CPU time, best of rounds)")


if __name__ == "__main__":
    main()
