"""Gaps: diagnoses aggregated per family × capability × failure mode, weighed into a build plan."""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from typing import Iterable

from taskforge.schemas import CAPABILITIES, BuildPlan, Diagnosis, FailureMode, Gap, PlanItem, content_id

EXAMPLES_PER_GAP = 5


def aggregate(diagnoses: Iterable[Diagnosis], cycle_id: str, episodes: int) -> list[Gap]:
    """Capability gaps with counts, shares, rates, severity and priority; infrastructure failures are left out.

    priority = share × severity: how much of what went wrong this gap is,
    weighed by how much the failure mode costs (the taxonomy's severity).
    `episodes` (all episodes read, successes included) gives each gap's rate.
    Diagnoses are consumed as a stream: per gap only a count and a few example ids are kept.
    """
    counts: Counter[tuple[str, str, FailureMode]] = Counter()
    examples: dict[tuple[str, str, FailureMode], list[str]] = defaultdict(list)
    for diagnosis in diagnoses:
        if diagnosis.failure_mode.is_infrastructure or diagnosis.capability is None:
            continue
        key = (diagnosis.family, diagnosis.capability, diagnosis.failure_mode)
        counts[key] += 1
        _keep_smallest(examples[key], diagnosis.episode_id)
    total = sum(counts.values())
    gaps = []
    for (family, capability, mode), count in counts.items():
        share = count / total
        severity = CAPABILITIES[mode].severity
        gaps.append(Gap(
            gap_id=content_id({"family": family, "capability": capability, "mode": mode.value}, prefix="gap-"),
            cycle_id=cycle_id, family=family, capability=capability, failure_mode=mode.value,
            count=count, share=round(share, 6), severity=severity,
            priority=round(share * severity, 6), rate=round(count / max(episodes, 1), 6),
            example_episodes=examples[(family, capability, mode)],
        ))
    return sorted(gaps, key=lambda g: (-g.priority, g.gap_id))


def _keep_smallest(examples: list[str], episode_id: str) -> None:
    """Keep `examples` the sorted, distinct, first `EXAMPLES_PER_GAP` episode ids seen so far."""
    if episode_id in examples or (len(examples) == EXAMPLES_PER_GAP and episode_id > examples[-1]):
        return
    bisect.insort(examples, episode_id)
    del examples[EXAMPLES_PER_GAP:]


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
