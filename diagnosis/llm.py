"""LLM diagnosis: the diagnoser role reads an episode and names its failure modes, in the rules' Diagnosis schema.

By default it reads only the failed, model-caused episodes the rules leave
unexplained (`TASKFORGE_LLM_DIAGNOSIS=unexplained`); with `all` it reads every
failed, model-caused episode and adds the modes the rules did not find. When
the role is skipped or a call fails, the rule-based diagnoses stand alone; the
failed call is recorded with its reason.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.diagnosis.diagnose import diagnose
from taskforge.schemas import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, Episode, FailureMode, Step, content_id

STEP_CHARS = 1500
EPISODE_CHARS = 60_000
HEAD_STEPS = 4


class LLMFinding(BaseModel):
    """One failure mode the diagnoser sees in an episode."""

    failure_mode: FailureMode
    evidence_steps: list[int] = Field(min_length=1, description="indices of the steps that show the failure")
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = Field(description="one or two sentences citing the steps")


class LLMDiagnosisReply(BaseModel):
    """Every failure mode the diagnoser sees (empty when the trace shows no capability failure)."""

    findings: list[LLMFinding]


def _taxonomy() -> str:
    """The failure modes as the diagnoser is shown them, with the capability each one trains."""
    lines = []
    for mode in FailureMode:
        target = CAPABILITIES.get(mode)
        note = f"capability: {target.capability}" if target else "not the model's fault"
        lines.append(f"- {mode.value} ({note})")
    return "\n".join(lines)


SYSTEM = (
    "You diagnose why an AI agent failed a task, from the trace of its episode. Name each failure mode the trace "
    "shows, from this taxonomy only, with the indices of the steps that show it, a confidence in [0, 1] and a "
    "short explanation citing the steps. Name a mode only when a step shows it.\n\nTaxonomy:\n" + _taxonomy()
)


def _render_step(step: Step) -> str:
    """One step: index, role, segment, content, tool calls and error, each cut to `STEP_CHARS`."""
    parts = [f"[{step.index}] {step.role} (segment {step.segment})" + (" ERROR" if step.is_error else "")]
    if step.content:
        parts.append(step.content[:STEP_CHARS] + (" …[cut]" if len(step.content) > STEP_CHARS else ""))
    parts += [f"→ call {c.name}({c.arguments[:STEP_CHARS]})" for c in step.tool_calls]
    if step.error:
        parts.append(f"error: {step.error[:STEP_CHARS]}")
    return "\n".join(parts)


def render_episode(episode: Episode) -> str:
    """The episode as the diagnoser reads it: task, outcome, then its steps (the middle cut when too long)."""
    rendered = [_render_step(s) for s in episode.steps]
    kept, size = list(rendered), sum(map(len, rendered))
    if size > EPISODE_CHARS:
        head, tail, budget = rendered[:HEAD_STEPS], [], EPISODE_CHARS - sum(map(len, rendered[:HEAD_STEPS]))
        for text in reversed(rendered[HEAD_STEPS:]):
            if budget - len(text) < 0:
                break
            tail.insert(0, text)
            budget -= len(text)
        kept = [*head, f"…[{len(rendered) - len(head) - len(tail)} steps omitted]…", *tail]
    outcome = json.dumps(episode.outcome.model_dump(), sort_keys=True)
    return f"Task family: {episode.family}\nOutcome: {outcome}\n\nSteps:\n\n" + "\n\n".join(kept)


def diagnose_with_llm(agents: Agents, episode: Episode) -> Reply[list[Diagnosis]]:
    """The diagnoser's diagnoses of one episode, as `Diagnosis` records marked `diagnoser="llm"`."""
    indices = {s.index for s in episode.steps}

    def check(reply: LLMDiagnosisReply) -> None:
        """Every evidence step must be a step of the episode."""
        bad = sorted({i for f in reply.findings for i in f.evidence_steps} - indices)
        if bad:
            raise ValueError(f"evidence steps {bad} are not steps of this episode (steps are "
                             f"{min(indices, default=0)}..{max(indices, default=0)})")

    reply = agents.ask("diagnoser", SYSTEM, render_episode(episode), LLMDiagnosisReply, purpose="diagnosis",
                       family=episode.family, subject=episode.episode_id, check=check)
    if not reply.ok:
        return replace(reply, value=None)
    model, call_id = reply.call.model, reply.call.call_id
    return replace(reply, value=[_diagnosis(episode, f, model, call_id) for f in reply.value.findings])


def _diagnosis(episode: Episode, finding: LLMFinding, model: str, call_id: str) -> Diagnosis:
    """A finding as a Diagnosis record; its id differs from a rule's diagnosis of the same mode."""
    target = CAPABILITIES.get(finding.failure_mode)
    return Diagnosis(
        diagnosis_id=content_id({"episode": episode.episode_id, "mode": finding.failure_mode.value,
                                 "version": TAXONOMY_VERSION, "diagnoser": "llm"}, prefix="dx-"),
        episode_id=episode.episode_id, task_id=episode.task_id, family=episode.family,
        failure_mode=finding.failure_mode, capability=target.capability if target else None,
        evidence_steps=sorted(set(finding.evidence_steps)), signals={"model": model, "call_id": call_id},
        confidence=finding.confidence, diagnoser="llm", explanation=finding.explanation,
    )


def in_llm_scope(episode: Episode, by_rules: list[Diagnosis], agents: Agents) -> bool:
    """Whether the diagnoser reads this episode: a model failure the rules left unexplained (or any
    model failure when `TASKFORGE_LLM_DIAGNOSIS=all`), and only when the diagnoser role can run."""
    return (not episode.outcome.success and episode.outcome.failure_origin == "model"
            and (agents.config.diagnosis == "all" or not by_rules)
            and agents.skip_reason("diagnoser") is None)


def llm_diagnoses(episodes: list[Episode], by_rules: dict[str, list[Diagnosis]], agents: Agents) -> list[Diagnosis]:
    """The diagnoser's diagnoses of in-scope episodes, leaving out modes the rules already found
    (the rules' diagnosis has the measured signals); every call still counts."""
    if not episodes:
        return []
    with ThreadPoolExecutor(max_workers=min(agents.concurrency, len(episodes))) as pool:
        replies = list(pool.map(lambda e: diagnose_with_llm(agents, e), episodes))
    out: list[Diagnosis] = []
    for episode, reply in zip(episodes, replies):
        if reply.ok:
            modes = {d.failure_mode for d in by_rules.get(episode.episode_id, [])}
            out += [d for d in reply.value if d.failure_mode not in modes]
    return out


def diagnose_episodes(episodes: list[Episode], agents: Agents) -> list[Diagnosis]:
    """Rule-based diagnoses of every episode, plus the diagnoser's where it is configured and in scope."""
    by_rules = {e.episode_id: diagnose(e) for e in episodes}
    pending = [e for e in episodes if in_llm_scope(e, by_rules[e.episode_id], agents)]
    return [d for e in episodes for d in by_rules[e.episode_id]] + llm_diagnoses(pending, by_rules, agents)
