"""LLM diagnosis: the diagnoser role reads an episode and names its failure modes, in the rules' Diagnosis schema.

The prompt gives the taxonomy's definitions (only the modes the episode can have), the task as posed, the
expected answer when the trace recorded it, and each step as head and tail; it asks for the decisive step
first. Replies are filtered: modes of another family, infrastructure modes on a model failure and a mode named
twice are dropped and recorded; a transcript too long for the window is shortened in the middle and the
diagnosis records it (`signals.input`).

By default it reads only the failed, model-caused episodes the rules leave
unexplained (`TASKFORGE_LLM_DIAGNOSIS=unexplained`); with `all` it reads every
failed, model-caused episode and adds the modes the rules did not find. When
the role is skipped or a call fails, the rule-based diagnoses stand alone; the
failed call is recorded with its reason.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from pydantic import BaseModel, Field

from taskforge.agents.client import Agents, Reply
from taskforge.diagnosis.diagnose import diagnose
from taskforge.diagnosis.signals import actor_of, expected_answer, task_text
from taskforge.schemas import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, Episode, FailureMode, Step, content_id

STEP_HEAD = 700
STEP_TAIL = 900
"""Each step is shown as its head and its tail: a pytest log keeps its `FAILED … / 1 failed` summary, a long
document its question."""
EPISODE_CHARS = 60_000
HEAD_STEPS = 4
TASK_CHARS = 4_000


class LLMFinding(BaseModel):
    """One failure mode the diagnoser sees in an episode, its decisive step named first."""

    decisive_step: int = Field(description="the earliest step after which the failure was likely (not the last "
                                           "step unless it caused the failure)")
    failure_mode: FailureMode
    agent: str | None = Field(default=None, description="in a multi-agent transcript, the agent that took the "
                                                        "decisive step")
    evidence_steps: list[int] = Field(min_length=1, description="indices of the steps that show the failure")
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = Field(description="one or two sentences citing the steps")


class LLMDiagnosisReply(BaseModel):
    """The diagnoser's reasoning, then every failure mode it sees (empty when the trace shows none)."""

    analysis: str = Field(default="", description="your reasoning over the steps, written before the findings")
    findings: list[LLMFinding]


def taxonomy(episode: Episode) -> str:
    """The failure modes this episode can have, each with its definition and the capability it trains.

    Modes of other task families are left out; so are the infrastructure's when the trace says the model failed.
    """
    lines = []
    for mode in FailureMode:
        if not _applies(mode, episode):
            continue
        target = CAPABILITIES.get(mode)
        note = f"trains {target.capability}" if target else "not the model's fault"
        lines.append(f"- {mode.value}: {mode.definition} ({note})")
    return "\n".join(lines)


def _applies(mode: FailureMode, episode: Episode) -> bool:
    """Whether an episode can fail by this mode: its family's, and not the infrastructure's on a model failure."""
    return mode.applies_to(episode.family) and not (mode.is_infrastructure
                                                    and episode.outcome.failure_origin == "model")


INSTRUCTIONS = (
    "You diagnose why an AI agent (or a team of agents) failed a task, from the trace of its episode. First find "
    "the decisive step: the earliest step after which the failure was likely, which is often well before the last "
    "step. Then name each failure mode the trace shows, from the taxonomy below only and each at most once, with "
    "its decisive step, the agent that took it (multi-agent transcripts), the steps that show it, a confidence in "
    "[0, 1] and a short explanation citing the steps. When the expected answer is given, compare the final answer "
    "with it. Harness notices (install messages, 'output too long', format reminders) are never evidence. Name a "
    "mode only when a step shows it."
)


def system_prompt(episode: Episode) -> str:
    """The diagnoser's instructions with the taxonomy that applies to this episode."""
    return f"{INSTRUCTIONS}\n\nTaxonomy:\n{taxonomy(episode)}"


def head_and_tail(text: str, head: int = STEP_HEAD, tail: int = STEP_TAIL) -> str:
    """A text cut to its head and its tail, the cut marked with how much was left out."""
    if len(text) <= head + tail:
        return text
    return f"{text[:head]}\n…[{len(text) - head - tail} characters cut]…\n{text[-tail:]}"


def _render_step(step: Step) -> str:
    """One step: index, role, agent, segment, content, tool calls and error, each as head and tail."""
    actor = f" ({step.actor})" if step.actor else ""
    parts = [f"[{step.index}] {step.role}{actor} (segment {step.segment})" + (" ERROR" if step.is_error else "")]
    if step.content:
        parts.append(head_and_tail(step.content))
    parts += [f"→ call {c.name}({head_and_tail(c.arguments)})" for c in step.tool_calls]
    if step.error:
        parts.append(f"error: {head_and_tail(step.error)}")
    return "\n".join(parts)


@dataclass(frozen=True)
class RenderedEpisode:
    """The episode as the diagnoser reads it, and what had to be left out for the window."""

    text: str
    steps_shown: int
    steps_omitted: int

    @property
    def cut(self) -> dict[str, int | bool]:
        """What the diagnosis records about its input: never a silent cut."""
        return {"steps_shown": self.steps_shown, "steps_omitted": self.steps_omitted,
                "too_long_for_window": self.steps_omitted > 0}


def render_episode(episode: Episode) -> RenderedEpisode:
    """The episode as the diagnoser reads it: family, outcome, the task (question kept), the expected answer when
    known, then its steps; when too long, the middle steps are left out and the text says how many."""
    rendered = [_render_step(s) for s in episode.steps]
    kept, size = list(rendered), sum(map(len, rendered))
    omitted = 0
    if size > EPISODE_CHARS:
        head, tail, budget = rendered[:HEAD_STEPS], [], EPISODE_CHARS - sum(map(len, rendered[:HEAD_STEPS]))
        for text in reversed(rendered[HEAD_STEPS:]):
            if budget - len(text) < 0:
                break
            tail.insert(0, text)
            budget -= len(text)
        omitted = len(rendered) - len(head) - len(tail)
        kept = [*head, f"…[{omitted} steps omitted: the episode is too long for the window]…", *tail]
    outcome = json.dumps(episode.outcome.model_dump(), sort_keys=True)
    lines = [f"Task family: {episode.family}", f"Outcome: {outcome}"]
    task = task_text(episode)
    if task:
        lines.append(f"Task as posed:\n{head_and_tail(task, TASK_CHARS // 2, TASK_CHARS // 2)}")
    expected = expected_answer(episode)
    if expected is not None:
        lines.append(f"Expected answer: {expected}")
    if omitted:
        lines.append(f"Note: {omitted} of {len(rendered)} steps are left out for length.")
    text = "\n".join(lines) + "\n\nSteps:\n\n" + "\n\n".join(kept)
    return RenderedEpisode(text=text, steps_shown=len(rendered) - omitted, steps_omitted=omitted)


def kept_findings(episode: Episode, findings: list[LLMFinding]) -> tuple[list[LLMFinding], list[dict[str, str]]]:
    """The findings that fit the episode, and those dropped with why: a mode of another family, an
    infrastructure mode on a model failure, or a mode named twice (the more confident one stays)."""
    kept: dict[FailureMode, LLMFinding] = {}
    dropped: list[dict[str, str]] = []
    for finding in sorted(findings, key=lambda f: -f.confidence):
        mode = finding.failure_mode
        if not mode.applies_to(episode.family):
            dropped.append({"mode": mode.value, "why": f"not a mode of {episode.family} episodes"})
        elif mode.is_infrastructure and episode.outcome.failure_origin == "model":
            dropped.append({"mode": mode.value, "why": "an infrastructure mode on a model failure"})
        elif mode in kept:
            dropped.append({"mode": mode.value, "why": "named twice"})
        else:
            kept[mode] = finding
    return list(kept.values()), dropped


def diagnose_with_llm(agents: Agents, episode: Episode) -> Reply[list[Diagnosis]]:
    """The diagnoser's diagnoses of one episode, as `Diagnosis` records marked `diagnoser="llm"`."""
    indices = {s.index for s in episode.steps}

    def check(reply: LLMDiagnosisReply) -> None:
        """Every evidence and decisive step must be a step of the episode."""
        named = {i for f in reply.findings for i in (*f.evidence_steps, f.decisive_step)}
        bad = sorted(named - indices)
        if bad:
            raise ValueError(f"evidence steps {bad} are not steps of this episode (steps are "
                             f"{min(indices, default=0)}..{max(indices, default=0)})")

    rendered = render_episode(episode)
    reply = agents.ask("diagnoser", system_prompt(episode), rendered.text, LLMDiagnosisReply, purpose="diagnosis",
                       family=episode.family, subject=episode.episode_id, check=check)
    if not reply.ok:
        return replace(reply, value=None)
    kept, dropped = kept_findings(episode, reply.value.findings)
    signals = {"model": reply.call.model, "call_id": reply.call.call_id, "input": rendered.cut,
               **({"dropped_findings": dropped} if dropped else {})}
    return replace(reply, value=[_diagnosis(episode, f, signals) for f in kept])


def _diagnosis(episode: Episode, finding: LLMFinding, signals: dict) -> Diagnosis:
    """A finding as a Diagnosis record; its id differs from a rule's diagnosis of the same mode. The agent is the
    diagnoser's when it names one of the transcript's agents, else the actor of the decisive step."""
    target = CAPABILITIES.get(finding.failure_mode)
    actors = {s.actor for s in episode.steps if s.actor}
    agent = finding.agent if finding.agent in actors else actor_of(episode, finding.decisive_step)
    return Diagnosis(
        diagnosis_id=content_id({"episode": episode.episode_id, "mode": finding.failure_mode.value,
                                 "version": TAXONOMY_VERSION, "diagnoser": "llm"}, prefix="dx-"),
        episode_id=episode.episode_id, task_id=episode.task_id, family=episode.family,
        failure_mode=finding.failure_mode, capability=target.capability if target else None,
        evidence_steps=sorted(set(finding.evidence_steps)), decisive_step=finding.decisive_step, agent=agent,
        signals=signals, confidence=finding.confidence, diagnoser="llm", explanation=finding.explanation,
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
