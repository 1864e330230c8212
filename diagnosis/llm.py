"""LLM diagnosis: the diagnoser role reads an episode and names its failure modes, in the rules' Diagnosis schema.

The prompt gives the taxonomy's definitions (only the modes the episode can have); the user message is a
`Fit` of parts (`agents.context`): a header kept whole (family, outcome, the harness's failing tests, the
expected answer when known), one part per step, and the task as posed with the final answer, kept whole. When
the whole transcript does not fit the diagnoser's window, each step is cut to its head and tail (a pytest log
keeps its `FAILED … / 1 failed` summary) and the call records the view it sent (`LLMCall.view`, and
`signals.input` on each diagnosis); when even that does not fit, nothing is sent and the call is recorded
`too_long`. The reply gives its analysis first and, in each finding, the decisive step first; its parts are
cross-checked (`LLMDiagnosisReply`) and a reply that fails is sent back for repair. Modes of another family and
infrastructure modes on a model failure are dropped and recorded (`signals.dropped_findings`).

By default it reads only the failed, model-caused episodes the rules leave
unexplained (`TASKFORGE_LLM_DIAGNOSIS=unexplained`); with `all` it reads every
failed, model-caused episode and adds the modes the rules did not find. When
the role is skipped or a call fails, the rule-based diagnoses stand alone; the
failed call is recorded with its reason.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from pydantic import BaseModel, Field, model_validator

from taskforge.agents import verdicts
from taskforge.agents.client import Agents, Reply
from taskforge.agents.context import Fit, Part, cut_middle, fit_parts
from taskforge.diagnosis.diagnose import diagnose
from taskforge.diagnosis.signals import actor_of, expected_answer, final_answer, task_text
from taskforge.schemas import CAPABILITIES, TAXONOMY_VERSION, Diagnosis, Episode, FailureMode, Step, content_id

TASK_CHARS = 4_000
"""The task as posed, kept whole in the prompt, is cut to this many characters around its middle: a long
document keeps its question (documents come first, the question last)."""
ANSWER_CHARS = 2_000
SHOWN_TESTS = 10
VIEW = "head and tail of each step; the header, the task as posed and the final answer kept"


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
    """The diagnoser's reasoning, then every failure mode it sees (empty when the trace shows none); the parts
    must agree or the reply is sent back for repair."""

    analysis: str = verdicts.ANALYSIS
    findings: list[LLMFinding] = Field(description="every failure mode the trace shows, each at most once")

    @model_validator(mode="after")
    def _parts_agree(self) -> "LLMDiagnosisReply":
        """Reasoning before findings, each mode once, and no decisive step after all the evidence of it (every
        problem is named at once, so one repair can fix them all)."""
        problems = []
        if self.findings and not self.analysis.strip():
            problems.append("write the analysis (your reasoning over the steps) before naming findings")
        named = [f.failure_mode.value for f in self.findings]
        twice = sorted({mode for mode in named if named.count(mode) > 1})
        if twice:
            problems.append(f"name each failure mode at most once ({', '.join(twice)} named more than once): merge "
                            "their evidence into one finding")
        late = [f.failure_mode.value for f in self.findings if f.decisive_step > max(f.evidence_steps)]
        if late:
            problems.append(f"the decisive step of {', '.join(late)} comes after every step given as its evidence: "
                            "the decisive step is the earliest step after which the failure was likely, so the "
                            "evidence must reach it")
        if problems:
            raise ValueError("; ".join(problems))
        return self


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
    "with it; when the evaluation harness's failing tests are given, find where the trace shows why they fail. "
    "Harness notices (install messages, 'output too long', format reminders) are never evidence. Name a mode only "
    "when a step shows it."
)


def system_prompt(episode: Episode) -> str:
    """The diagnoser's instructions with the taxonomy that applies to this episode."""
    return f"{INSTRUCTIONS}\n\nTaxonomy:\n{taxonomy(episode)}"


def render_step(step: Step) -> str:
    """One step in full: index, role, agent, segment, content, tool calls and error."""
    actor = f" ({step.actor})" if step.actor else ""
    parts = [f"[{step.index}] {step.role}{actor} (segment {step.segment})" + (" ERROR" if step.is_error else "")]
    if step.content:
        parts.append(step.content)
    parts += [f"→ call {c.name}({c.arguments})" for c in step.tool_calls]
    if step.error:
        parts.append(f"error: {step.error}")
    return "\n".join(parts)


def header(episode: Episode) -> str:
    """What the diagnoser must always see first: the family, how the episode ended, the tests the harness found
    failing (when the verdict came with them) and the expected answer (when known)."""
    outcome = episode.outcome
    lines = [f"Task family: {episode.family}",
             f"Outcome: success={outcome.success}, failure origin={outcome.failure_origin}, score={outcome.score}"
             + (f", {outcome.detail}" if outcome.detail else "")]
    tests = outcome.tests
    if tests is not None:
        if tests.patch_applied is False:
            lines.append("The evaluation harness could not apply the submitted patch.")
        for label, failing, passing in (("tests the issue asks to pass (FAIL_TO_PASS)", tests.fail_to_pass_failed,
                                         tests.fail_to_pass_passed),
                                        ("tests that passed before the patch (PASS_TO_PASS)", tests.pass_to_pass_failed,
                                         tests.pass_to_pass_passed)):
            if failing:
                shown = ", ".join(failing[:SHOWN_TESTS]) + (f" and {len(failing) - SHOWN_TESTS} more"
                                                             if len(failing) > SHOWN_TESTS else "")
                lines.append(f"Failing after the patch, {len(failing)} of {len(failing) + len(passing)} {label}: "
                             f"{shown}")
    expected = expected_answer(episode)
    if expected is not None:
        lines.append(f"Expected answer: {expected}")
    return "\n".join(lines)


def question_and_final_answer(episode: Episode) -> str:
    """The task as posed (cut around its middle: a long document keeps its question) and the final answer."""
    lines = []
    task = task_text(episode)
    if task:
        lines.append(f"Task as posed:\n{cut_middle(task, TASK_CHARS)}")
    answer = final_answer(episode)
    lines.append(f"Final answer (step {answer.step}):\n{cut_middle(answer.text, ANSWER_CHARS)}" if answer
                 else "Final answer: none given")
    return "\n".join(lines)


def episode_parts(episode: Episode) -> list[Part]:
    """The episode as the diagnoser reads it: the header kept, one part per step, the task and answer kept."""
    return [Part(header(episode) + "\n\nSteps:", keep=True), *(Part(render_step(s)) for s in episode.steps),
            Part(question_and_final_answer(episode), keep=True)]


def render_episode(episode: Episode) -> Fit:
    """The diagnoser's input: the whole transcript, or its view (each step as head and tail) when too long."""
    parts = episode_parts(episode)
    return Fit(full="\n\n".join(p.text for p in parts), view=VIEW, cut=lambda tokens: fit_parts(parts, tokens))


def kept_findings(episode: Episode, findings: list[LLMFinding]) -> tuple[list[LLMFinding], list[dict[str, str]]]:
    """The findings that fit the episode, and those dropped with why: a mode of another family, or an
    infrastructure mode on a model failure (a mode named twice never gets here: the reply is repaired)."""
    kept: list[LLMFinding] = []
    dropped: list[dict[str, str]] = []
    for finding in findings:
        mode = finding.failure_mode
        if not mode.applies_to(episode.family):
            dropped.append({"mode": mode.value, "why": f"not a mode of {episode.family} episodes"})
        elif mode.is_infrastructure and episode.outcome.failure_origin == "model":
            dropped.append({"mode": mode.value, "why": "an infrastructure mode on a model failure"})
        else:
            kept.append(finding)
    return kept, dropped


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

    reply = agents.ask("diagnoser", system_prompt(episode), render_episode(episode), LLMDiagnosisReply,
                       purpose="diagnosis", family=episode.family, subject=episode.episode_id, check=check)
    if not reply.ok:
        return replace(reply, value=None)
    kept, dropped = kept_findings(episode, reply.value.findings)
    signals = {"model": reply.call.model, "call_id": reply.call.call_id,
               "input": {"view": reply.view, "too_long_for_window": reply.view is not None},
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
