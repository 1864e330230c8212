"""The builder's options (`BuildContext.options`), read and checked in one place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taskforge.builders.long_context.evolution import EvolutionSettings
from taskforge.builders.long_context.length import LengthTarget
from taskforge.schemas import InputError

MIN_TOKENS, MAX_TOKENS = 1024, 131072


@dataclass(frozen=True)
class LongContextOptions:
    """Target length and tolerance, categories to build, a folder of documents, and evolution settings.

    Options: `target_tokens` (default 16384), `tolerance` (0.02), `answer_reserve` (256),
    `categories` (list or comma-separated names; default: by capability), `source` (a folder of
    .md/.txt files; default: seeded world models), `evolve` (True), `max_generations` (3),
    `children` (2), `max_candidates` (8, per root task). The hard-pool threshold is fixed at 0.75
    (`taskforge.graders.long_context.solvers.HARD_POOL_THRESHOLD`), the same for the builder and the `shortcut` check.
    """

    target: LengthTarget
    categories: tuple[str, ...] = ()
    source: str | None = None
    evolution: EvolutionSettings = EvolutionSettings()

    @classmethod
    def parse(cls, options: dict[str, Any]) -> LongContextOptions:
        """Options from a build context, checked."""
        tokens = int(options.get("target_tokens", 16384))
        if not MIN_TOKENS <= tokens <= MAX_TOKENS:
            raise InputError("target_tokens", f"{tokens} is outside {MIN_TOKENS}..{MAX_TOKENS}")
        categories = options.get("categories") or ()
        if isinstance(categories, str):
            categories = [c.strip() for c in categories.split(",") if c.strip()]
        defaults = EvolutionSettings()
        return cls(
            target=LengthTarget(tokens=tokens, tolerance=float(options.get("tolerance", 0.02)),
                                answer_reserve=int(options.get("answer_reserve", 256))),
            categories=tuple(categories),
            source=options.get("source"),
            evolution=EvolutionSettings(
                enabled=bool(options.get("evolve", True)),
                max_generations=int(options.get("max_generations", defaults.max_generations)),
                children=int(options.get("children", defaults.children)),
                max_candidates=int(options.get("max_candidates", defaults.max_candidates)),
            ),
        )
