"""The failure taxonomy and the diagnosis of one failed episode."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import Field

from taskforge.schemas.base import JsonDict, Record

TAXONOMY_VERSION = "1.2.0"
"""1.1.0: each capability group names the task families whose episodes it can diagnose (`applies_to`).
1.2.0: every mode has a definition; dismissed failing tests, wrong answers without tools and the agent's
format errors are modes of their own; a diagnosis names its decisive step and the responsible agent."""


class FailureMode(str, Enum):
    """Why an episode failed; `group` separates capability failures from infrastructure."""

    INSUFFICIENT_EXPLORATION = "literature.insufficient_exploration"
    PREMATURE_DISCARD = "literature.premature_discard"
    POOR_EVIDENCE_SELECTION = "literature.poor_evidence_selection"
    EXPLORE_SELECT_STUCK = "literature.stuck_exploring_vs_selecting"
    METHOD_OUTSIDE_ASSUMPTIONS = "coding.method_outside_assumptions"
    IGNORED_WARNING_SIGN = "coding.ignored_warning_sign"
    IMPLEMENTATION_ERROR = "coding.implementation_error"
    DISMISSED_FAILING_TEST = "coding.dismissed_failing_test"
    INCORRECT_ANSWER = "knowledge.incorrect_answer"
    FORMAT_ERROR = "interaction.format_error"
    LOST_OBJECTIVE = "research.lost_objective"
    REPEATS_UNPRODUCTIVE_APPROACH = "research.repeats_unproductive_approach"
    IGNORED_INTERMEDIATE_FINDING = "research.ignored_intermediate_finding"
    PREMATURE_TERMINATION = "research.premature_termination"
    NO_VERIFICATION = "research.no_verification"
    INFRA_TOOL_ERROR = "infrastructure.tool_error"
    INFRA_ENVIRONMENT_ERROR = "infrastructure.environment_error"
    INFRA_TIMEOUT = "infrastructure.timeout"

    @property
    def group(self) -> str:
        return self.value.split(".", 1)[0]

    @property
    def is_infrastructure(self) -> bool:
        return self.group == "infrastructure"

    def applies_to(self, family: str) -> bool:
        """Whether episodes of a task family can fail this way (an episode of unknown family can fail any way)."""
        families = GROUP_FAMILIES.get(self.group)
        return family == "unknown" or families is None or family in families

    @property
    def definition(self) -> str:
        """What the mode means, as a diagnoser (rules or a model) must read it."""
        return DEFINITIONS[self]


GROUP_FAMILIES: dict[str, tuple[str, ...]] = {
    "literature": ("literature", "long_context"),
    "coding": ("swe", "mle", "workflow"),
    "knowledge": ("literature", "long_context", "workflow", "mle"),
}
"""The task families each capability group diagnoses; groups not listed (research, infrastructure) apply to all."""

DEFINITIONS: dict[FailureMode, str] = {
    FailureMode.INSUFFICIENT_EXPLORATION:
        "answered after one or two searches that surfaced only a handful of sources, so the evidence needed was "
        "never seen",
    FailureMode.PREMATURE_DISCARD:
        "retrieved a source, dismissed it as irrelevant and never cited it, though it held the evidence needed",
    FailureMode.POOR_EVIDENCE_SELECTION:
        "had enough sources, but the answer cites sources it never read or none of those it did read",
    FailureMode.EXPLORE_SELECT_STUCK:
        "alternated between searching and reading again and again and never committed to an answer",
    FailureMode.METHOD_OUTSIDE_ASSUMPTIONS:
        "an output showed an assumption violated (non-normal, non-stationary, dependent, imbalanced data), then the "
        "agent applied a method that relies on it",
    FailureMode.IGNORED_WARNING_SIGN:
        "a run printed a sign the result is wrong (NaN, non-convergence, a numerical warning from the agent's own "
        "code) and no later step took it up; harness notices and install messages are never such signs",
    FailureMode.IMPLEMENTATION_ERROR:
        "the agent's code or patch is wrong: its last run still failed (traceback, failing test) when it answered or "
        "submitted, or it ran cleanly and gave a wrong result",
    FailureMode.DISMISSED_FAILING_TEST:
        "a test failed after the agent's change and the agent declared it unrelated (pre-existing, flaky, "
        "environment) without showing that, then finished",
    FailureMode.INCORRECT_ANSWER:
        "the final answer is wrong and no tool result led to it: a knowledge or reasoning failure in the answer "
        "itself (compare the expected answer when it is known)",
    FailureMode.FORMAT_ERROR:
        "the agent's reply broke the harness's action format (no action, several actions in one turn, a malformed "
        "tool call) and the harness refused it",
    FailureMode.LOST_OBJECTIVE:
        "the first steps work on the task; from some step on every step is about something else",
    FailureMode.REPEATS_UNPRODUCTIVE_APPROACH:
        "the same action (same tool, nearly the same arguments) repeated three or more times with no new result; "
        "re-running a test or script after an edit is verification, not repetition",
    FailureMode.IGNORED_INTERMEDIATE_FINDING:
        "an observation stated the result the task asked for (a named quantity and its value) and the final answer "
        "contradicts or omits it",
    FailureMode.PREMATURE_TERMINATION:
        "the agent stopped by its own choice before the task was done: it gave up, or stopped right after an error "
        "it did not answer; a run cut off by a step, cost or context limit is not this mode",
    FailureMode.NO_VERIFICATION:
        "the agent changed code or files and finished without the check that would have shown its change wrong: "
        "no test, script or check after its last change, or never the existing tests its change broke",
    FailureMode.INFRA_TOOL_ERROR:
        "a tool or the sandbox failed for reasons outside the agent's action (connection refused, service "
        "unavailable); not the model's fault",
    FailureMode.INFRA_ENVIRONMENT_ERROR:
        "the environment or harness broke (container died, API error, evaluation error); not the model's fault",
    FailureMode.INFRA_TIMEOUT:
        "the harness's wall-clock limit ended the run or a command; not the model's fault",
}
"""Every failure mode's definition: what the rules test and what the diagnoser prompt shows."""


class CapabilityTarget(Record):
    """What a failure mode asks to train: a capability and the task families that train it."""

    capability: str
    families: list[str]
    severity: float


CAPABILITIES: dict[FailureMode, CapabilityTarget] = {
    FailureMode.INSUFFICIENT_EXPLORATION: CapabilityTarget(capability="search_breadth", families=["literature"], severity=0.7),
    FailureMode.PREMATURE_DISCARD: CapabilityTarget(capability="relevance_judgement", families=["literature"], severity=0.7),
    FailureMode.POOR_EVIDENCE_SELECTION: CapabilityTarget(capability="evidence_selection", families=["literature", "long_context"], severity=0.8),
    FailureMode.EXPLORE_SELECT_STUCK: CapabilityTarget(capability="explore_exploit_balance", families=["literature"], severity=0.6),
    FailureMode.METHOD_OUTSIDE_ASSUMPTIONS: CapabilityTarget(capability="method_assumptions", families=["mle", "workflow"], severity=0.9),
    FailureMode.IGNORED_WARNING_SIGN: CapabilityTarget(capability="output_sanity_checking", families=["mle", "workflow"], severity=0.8),
    FailureMode.IMPLEMENTATION_ERROR: CapabilityTarget(capability="implementation", families=["swe", "mle"], severity=0.7),
    FailureMode.DISMISSED_FAILING_TEST: CapabilityTarget(capability="test_failure_triage", families=["swe"], severity=0.8),
    FailureMode.INCORRECT_ANSWER: CapabilityTarget(capability="knowledge_and_reasoning",
                                                   families=["literature", "long_context"], severity=0.6),
    FailureMode.FORMAT_ERROR: CapabilityTarget(capability="action_format", families=["swe", "workflow"], severity=0.5),
    FailureMode.LOST_OBJECTIVE: CapabilityTarget(capability="objective_tracking", families=["long_context", "workflow"], severity=0.8),
    FailureMode.REPEATS_UNPRODUCTIVE_APPROACH: CapabilityTarget(capability="history_tracking", families=["long_context", "workflow"], severity=0.7),
    FailureMode.IGNORED_INTERMEDIATE_FINDING: CapabilityTarget(capability="finding_integration", families=["long_context", "workflow"], severity=0.8),
    FailureMode.PREMATURE_TERMINATION: CapabilityTarget(capability="persistence", families=["workflow", "swe"], severity=0.6),
    FailureMode.NO_VERIFICATION: CapabilityTarget(capability="verification", families=["workflow", "swe"], severity=0.6),
}
"""Capability failure modes → what to train. Infrastructure modes have no entry: they are never gaps."""


class Diagnosis(Record):
    """Why one episode failed, with the steps that show it and the signals behind the call."""

    diagnosis_id: str
    episode_id: str
    task_id: str
    family: str
    failure_mode: FailureMode
    capability: str | None
    evidence_steps: list[int]
    decisive_step: int | None = None
    """The earliest step after which the failure was likely (not the last step, unless it is the cause)."""
    agent: str | None = None
    """The agent that took the decisive step, in a multi-agent transcript."""
    signals: JsonDict = Field(default_factory=dict)
    confidence: float
    diagnoser: Literal["rules", "llm"] = "rules"
    diagnoser_version: str = TAXONOMY_VERSION
    explanation: str = ""
