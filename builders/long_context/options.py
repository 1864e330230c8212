"""The builder's options (`BuildContext.options`), read and checked in one place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taskforge.builders.long_context.evolution import EvolutionSettings
from taskforge.builders.long_context.length import LengthTarget
from taskforge.schemas import InputError

MIN_TOKENS, MAX_TOKENS = 1024, 131072
DEFAULT_LENGTHS = (65536, 16384, 131072, 32768)
"""The default mix of target lengths, taken by root task in turn (half of the roots at 64K–128K)."""


@dataclass(frozen=True)
class LongContextOptions:
    """Target lengths and tolerance, categories to build, a folder of documents, and evolution settings.

    Options: `target_tokens` (one length for every task; default: the mix `DEFAULT_LENGTHS`, one per root
    task in turn), `tolerance` (0.02), `answer_reserve` (256),
    `categories` (list or comma-separated names; default: by capability), `start` (`default`: roots start
    at each category's `START` levels; `easiest`: at the bottom of every ladder), `source` (a folder of
    .md/.txt files; default: seeded world models), `evolve` (True), `max_generations` (3),
    `children` (2), `max_candidates` (8, per root task). The hard-pool threshold is fixed at 0.75
    (`taskforge.graders.long_context.solvers.HARD_POOL_THRESHOLD`), the same for the builder and the `shortcut` check.
    """

    targets: tuple[LengthTarget, ...]
    categories: tuple[str, ...] = ()
    start: str = "default"
    source: str | None = None
    evolution: EvolutionSettings = EvolutionSettings()

    @classmethod
    def parse(cls, options: dict[str, Any]) -> LongContextOptions:
        """Options from a build context, checked."""
        given = options.get("target_tokens")
        lengths = (int(given),) if given is not None else DEFAULT_LENGTHS
        outside = [tokens for tokens in lengths if not MIN_TOKENS <= tokens <= MAX_TOKENS]
        if outside:
            raise InputError("target_tokens", f"{outside[0]} is outside {MIN_TOKENS}..{MAX_TOKENS}")
        categories = options.get("categories") or ()
        if isinstance(categories, str):
            categories = [c.strip() for c in categories.split(",") if c.strip()]
        start = options.get("start") or "default"
        if start not in ("default", "easiest"):
            raise InputError("start", f"{start!r} is neither 'default' nor 'easiest'")
        defaults = EvolutionSettings()
        return cls(
            targets=tuple(LengthTarget(tokens=tokens, tolerance=float(options.get("tolerance", 0.02)),
                                       answer_reserve=int(options.get("answer_reserve", 256))) for tokens in lengths),
            categories=tuple(categories),
            start=start,
            source=options.get("source"),
            evolution=EvolutionSettings(
                enabled=bool(options.get("evolve", True)),
                max_generations=int(options.get("max_generations", defaults.max_generations)),
                children=int(options.get("children", defaults.children)),
                max_candidates=int(options.get("max_candidates", defaults.max_candidates)),
            ),
        )

    def target(self, index: int) -> LengthTarget:
        """The target length of the root task with this index."""
        return self.targets[index % len(self.targets)]
