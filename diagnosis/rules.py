"""Rule-based diagnosis: deterministic signals computed from an episode's steps.

Each rule is a small function from an episode to a `Finding` (or None). The
diagnoser runs every rule on a failed, model-caused episode and turns each
finding into a Diagnosis; successful episodes get none, infrastructure failures
get an infrastructure diagnosis that never becomes a gap.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

from schemas import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, Episode, FailureMode, content_id

MIN_REPEATS = 3


@dataclass(frozen=True)
class Finding:
    """What a rule saw: the failure mode, the steps that show it, the signal values, a confidence."""

    mode: FailureMode
    steps: list[int]
    signals: dict = field(default_factory=dict)
    confidence: float = 0.5
    explanation: str = ""


Rule = Callable[[Episode], "Finding | None"]


def _call_key(name: str, arguments: str) -> str:
    try:
        return f"{name}:{json.dumps(json.loads(arguments), sort_keys=True)}"
    except json.JSONDecodeError:
        return f"{name}:{arguments.strip()}"


def repeated_tool_calls(episode: Episode) -> Finding | None:
    """The same tool called with the same arguments again and again without new information."""
    calls: dict[str, list[int]] = defaultdict(list)
    for step in episode.steps:
        for call in step.tool_calls:
            calls[_call_key(call.name, call.arguments)].append(step.index)
    if not calls:
        return None
    key, steps = max(calls.items(), key=lambda item: (len(item[1]), -item[1][0]))
    if len(steps) < MIN_REPEATS:
        return None
    observations = _observations_after(episode, steps)
    distinct = len(set(observations))
    if distinct > 1 and distinct == len(observations):
        return None
    tool = key.split(":", 1)[0]
    confidence = min(0.95, 0.5 + 0.1 * (len(steps) - MIN_REPEATS + 1) + (0.15 if distinct <= 1 else 0.0))
    return Finding(
        mode=FailureMode.REPEATS_UNPRODUCTIVE_APPROACH,
        steps=steps[1:],
        signals={"tool": tool, "repeats": len(steps), "distinct_observations": distinct},
        confidence=round(confidence, 3),
        explanation=f"called {tool} {len(steps)} times with identical arguments; "
                    f"{distinct} distinct result(s) came back",
    )


def _observations_after(episode: Episode, call_steps: list[int]) -> list[str]:
    """The content of the first tool message after each calling step."""
    out = []
    for index in call_steps:
        for step in episode.steps[index + 1:]:
            if step.role == "tool":
                out.append(step.content.strip())
                break
    return out


RULES: tuple[Rule, ...] = (repeated_tool_calls,)


def infrastructure_finding(episode: Episode) -> Finding:
    """An episode whose failure was the environment's: recorded, never a capability gap."""
    detail = (episode.outcome.detail or "").lower()
    mode = FailureMode.INFRA_TIMEOUT if "timeout" in detail or "timed out" in detail else FailureMode.INFRA_ENVIRONMENT_ERROR
    return Finding(mode=mode, steps=[episode.steps[-1].index] if episode.steps else [],
                   signals={"outcome_detail": episode.outcome.detail}, confidence=0.9,
                   explanation="the trace marks this failure as the infrastructure's")


def diagnose(episode: Episode, rules: tuple[Rule, ...] = RULES) -> list[Diagnosis]:
    """Diagnoses for one episode: none when it succeeded, one per rule that fired otherwise."""
    if episode.outcome.success:
        return []
    if episode.outcome.failure_origin == "infrastructure":
        findings = [infrastructure_finding(episode)]
    else:
        findings = [f for f in (rule(episode) for rule in rules) if f is not None]
    return [_diagnosis(episode, finding) for finding in sorted(findings, key=lambda f: -f.confidence)]


def _diagnosis(episode: Episode, finding: Finding) -> Diagnosis:
    target = CAPABILITIES.get(finding.mode)
    return Diagnosis(
        diagnosis_id=content_id({"episode": episode.episode_id, "mode": finding.mode.value,
                                 "version": TAXONOMY_VERSION}, prefix="dx-"),
        episode_id=episode.episode_id,
        task_id=episode.task_id,
        family=episode.family,
        failure_mode=finding.mode,
        capability=target.capability if target else None,
        evidence_steps=finding.steps,
        signals=finding.signals,
        confidence=finding.confidence,
        explanation=finding.explanation,
    )
