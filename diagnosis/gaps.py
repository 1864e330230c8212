"""Gaps: diagnoses aggregated per family × capability × failure mode, weighed into a build plan."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from schemas import CAPABILITIES, BuildPlan, Diagnosis, FailureMode, Gap, PlanItem, content_id

EXAMPLES_PER_GAP = 5


def aggregate(diagnoses: Iterable[Diagnosis], cycle_id: str, episodes: int) -> list[Gap]:
    """Capability gaps with counts, shares, rates, severity and priority; infrastructure failures are left out.

    priority = share × severity: how much of what went wrong this gap is,
    weighed by how much the failure mode costs (the taxonomy's severity).
    `episodes` (all episodes read, successes included) gives each gap's rate.
    """
    groups: dict[tuple[str, str, FailureMode], list[Diagnosis]] = defaultdict(list)
    for diagnosis in diagnoses:
        if diagnosis.failure_mode.is_infrastructure or diagnosis.capability is None:
            continue
        groups[(diagnosis.family, diagnosis.capability, diagnosis.failure_mode)].append(diagnosis)
    total = sum(len(v) for v in groups.values())
    gaps = []
    for (family, capability, mode), members in groups.items():
        share = len(members) / total
        severity = CAPABILITIES[mode].severity
        gaps.append(Gap(
            gap_id=content_id({"family": family, "capability": capability, "mode": mode.value}, prefix="gap-"),
            cycle_id=cycle_id, family=family, capability=capability, failure_mode=mode.value,
            count=len(members), share=round(share, 6), severity=severity,
            priority=round(share * severity, 6), rate=round(len(members) / max(episodes, 1), 6),
            example_episodes=sorted({d.episode_id for d in members})[:EXAMPLES_PER_GAP],
        ))
    return sorted(gaps, key=lambda g: (-g.priority, g.gap_id))


def plan(gaps: list[Gap], cycle_id: str, budget: int, available_families: Iterable[str]) -> BuildPlan:
    """Split a budget of tasks over (task family, capability) in proportion to gap priority.

    A gap's share goes to the task families that train its capability and can be
    built in this cycle; largest remainders settle the rounding so quotas sum to
    the budget. Gaps no available family can train get no quota.
    """
    available = set(available_families)
    weights: dict[tuple[str, str], float] = defaultdict(float)
    gap_ids: dict[tuple[str, str], set[str]] = defaultdict(set)
    for gap in gaps:
        targets = [f for f in CAPABILITIES[FailureMode(gap.failure_mode)].families if f in available]
        for family in targets:
            weights[(family, gap.capability)] += gap.priority / len(targets)
            gap_ids[(family, gap.capability)].add(gap.gap_id)
    total = sum(weights.values())
    if total <= 0 or budget <= 0:
        return BuildPlan(cycle_id=cycle_id, budget=budget, items=[])
    exact = {key: budget * weight / total for key, weight in weights.items()}
    quota = {key: int(value) for key, value in exact.items()}
    by_remainder = sorted(exact, key=lambda key: (-(exact[key] - quota[key]), key))
    for key in by_remainder[: budget - sum(quota.values())]:
        quota[key] += 1
    items = [
        PlanItem(family=family, capability=capability, quota=quota[(family, capability)],
                 gap_ids=sorted(gap_ids[(family, capability)]), priority=round(weights[(family, capability)], 6))
        for family, capability in sorted(weights, key=lambda k: (-weights[k], k))
        if quota[(family, capability)] > 0
    ]
    return BuildPlan(cycle_id=cycle_id, budget=budget, items=items)
