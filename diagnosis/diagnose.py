"""Diagnosis of one episode: which diagnosers run, and the rules every diagnoser's findings obey.

A diagnoser is a named callable from an episode to findings. The rule-based one
(`rules`) is the deterministic default; another (e.g. an LLM diagnoser behind the
agents layer) is added beside it by passing it in `diagnosers`, and its findings
become Diagnosis rows of the same schema, marked with its name.

Whatever the diagnoser: a successful or ungraded episode gets no diagnosis; a
failure that was the infrastructure's gets one infrastructure diagnosis (never a
capability gap); a model failure gets one diagnosis per failure mode found (the
most confident finding of each mode), most confident first.
"""

from __future__ import annotations

from typing import Callable, Iterable, Literal

from taskforge.diagnosis.finding import Finding
from taskforge.diagnosis.rules import infrastructure_finding, rules_for
from taskforge.diagnosis.signals import actor_of
from taskforge.schemas import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, Episode, content_id

DiagnoserName = Literal["rules", "llm"]
Diagnoser = tuple[DiagnoserName, Callable[[Episode], Iterable[Finding]]]


def rule_findings(episode: Episode) -> list[Finding]:
    """Every capability rule's finding on an episode, for the failure modes its task family can have."""
    found = (rule(episode) for rule in rules_for(episode.family))
    return [finding for finding in found if finding is not None and finding.mode.applies_to(episode.family)]


DIAGNOSERS: tuple[Diagnoser, ...] = (("rules", rule_findings),)
"""The diagnosers run by default: the deterministic rules."""


def diagnose(episode: Episode, diagnosers: tuple[Diagnoser, ...] = DIAGNOSERS) -> list[Diagnosis]:
    """Diagnoses of one episode (none for a success or an ungraded episode)."""
    if episode.outcome.success or not episode.outcome.graded and episode.outcome.failure_origin != "infrastructure":
        return []
    infrastructure = infrastructure_finding(episode)
    if infrastructure is not None:
        return [to_diagnosis(episode, infrastructure, "rules")]
    best: dict[tuple[str, str], tuple[Finding, DiagnoserName]] = {}
    for name, diagnoser in diagnosers:
        for finding in diagnoser(episode):
            key = (name, finding.mode.value)
            if key not in best or finding.confidence > best[key][0].confidence:
                best[key] = (finding, name)
    ranked = sorted(best.values(), key=lambda pair: (-pair[0].confidence, pair[0].mode.value))
    return [to_diagnosis(episode, finding, name) for finding, name in ranked]


def attribution(diagnoses: list[Diagnosis]) -> tuple[str | None, int | None]:
    """The agent and step an episode's failure is attributed to: the earliest decisive step of its capability
    diagnoses (the first point after which the failure was likely), with the agent that took it."""
    decisive = [d for d in diagnoses if d.decisive_step is not None and not d.failure_mode.is_infrastructure]
    if not decisive:
        return None, None
    first = min(decisive, key=lambda d: (d.decisive_step, -d.confidence))
    return first.agent, first.decisive_step


def to_diagnosis(episode: Episode, finding: Finding, diagnoser: DiagnoserName) -> Diagnosis:
    """A stored Diagnosis from a finding; its id is stable for the episode, mode, diagnoser and taxonomy version."""
    target = CAPABILITIES.get(finding.mode)
    return Diagnosis(
        diagnosis_id=content_id({"episode": episode.episode_id, "mode": finding.mode.value, "diagnoser": diagnoser,
                                 "version": TAXONOMY_VERSION}, prefix="dx-"),
        episode_id=episode.episode_id, task_id=episode.task_id, family=episode.family,
        failure_mode=finding.mode, capability=target.capability if target else None,
        evidence_steps=finding.steps, decisive_step=finding.decisive_step,
        agent=actor_of(episode, finding.decisive_step) if finding.decisive_step is not None else None,
        signals=finding.signals, confidence=finding.confidence,
        diagnoser=diagnoser, explanation=finding.explanation,
    )
