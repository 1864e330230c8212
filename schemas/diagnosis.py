"""The failure taxonomy and the diagnosis of one failed episode."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import Field

from taskforge.schemas.base import JsonDict, Record

TAXONOMY_VERSION = "1.1.0"
"""1.1.0: each capability group names the task families whose episodes it can diagnose (`applies_to`)."""


class FailureMode(str, Enum):
    """Why an episode failed; `group` separates capability failures from infrastructure."""

    INSUFFICIENT_EXPLORATION = "literature.insufficient_exploration"
    PREMATURE_DISCARD = "literature.premature_discard"
    POOR_EVIDENCE_SELECTION = "literature.poor_evidence_selection"
    EXPLORE_SELECT_STUCK = "literature.stuck_exploring_vs_selecting"
    METHOD_OUTSIDE_ASSUMPTIONS = "coding.method_outside_assumptions"
    IGNORED_WARNING_SIGN = "coding.ignored_warning_sign"
    IMPLEMENTATION_ERROR = "coding.implementation_error"
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


GROUP_FAMILIES: dict[str, tuple[str, ...]] = {
    "literature": ("literature", "long_context"),
    "coding": ("swe", "mle", "workflow"),
}
"""The task families each capability group diagnoses; groups not listed (research, infrastructure) apply to all."""


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
    signals: JsonDict = Field(default_factory=dict)
    confidence: float
    diagnoser: Literal["rules", "llm"] = "rules"
    diagnoser_version: str = TAXONOMY_VERSION
    explanation: str = ""
