"""Capability gaps aggregated from diagnoses, and the build plan derived from them."""

from __future__ import annotations

from pydantic import Field

from taskforge.schemas.base import Record


class Gap(Record):
    """Failures of one kind in one family, counted and weighted into a training priority.

    `share` is the gap's part of all capability diagnoses of the cycle (what to
    train first); `rate` its diagnoses per episode read (comparable across cycles
    of different sizes: the measure of improvement or regression).
    """

    gap_id: str
    cycle_id: str
    family: str
    capability: str
    failure_mode: str
    count: int
    share: float
    severity: float
    priority: float
    example_episodes: list[str] = Field(default_factory=list)
    rate: float = 0.0


class PlanItem(Record):
    """How many tasks of one family to build for one capability, and the gaps they answer."""

    family: str
    capability: str
    quota: int
    gap_ids: list[str]
    priority: float


class BuildPlan(Record):
    """The quota of tasks per family × capability for one cycle."""

    cycle_id: str
    budget: int
    items: list[PlanItem]

    def for_family(self, family: str) -> list[PlanItem]:
        return [item for item in self.items if item.family == family]
