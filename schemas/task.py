"""The task envelope: one row per task, the same columns for every family."""

from __future__ import annotations

from typing import Literal, Sequence

from pydantic import Field

from taskforge.schemas.base import JsonDict, Record, content_id
from taskforge.schemas.version import SCHEMA_VERSION

TaskFamily = Literal["literature", "swe", "mle", "long_context", "workflow"]
FAMILIES: tuple[str, ...] = ("literature", "swe", "mle", "long_context", "workflow")
TaskStatus = Literal["candidate", "accepted", "rejected"]


class Message(Record):
    """A chat message the solver sees."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str


class Lineage(Record):
    """Where a task came from: the cycle, the gaps it answers, the resource and the builder."""

    cycle_id: str
    gap_ids: list[str] = Field(default_factory=list)
    resource_id: str
    resource_revision: str
    builder: str
    builder_version: str
    parent_task_id: str | None = None
    seed: int | None = None


class ValidationResult(Record):
    """The outcome of one check on one task."""

    check: str
    passed: bool
    score: float | None = None
    reason: str | None = None
    detail: JsonDict = Field(default_factory=dict)
    infrastructure_error: bool = False
    duration_s: float = 0.0


def rejection_reasons(results: Sequence[ValidationResult]) -> list[str]:
    """Why a task with these check results is rejected: each failed check's reason (none: it is accepted; a task
    no check applies to is rejected)."""
    return [f"{r.check}: {r.reason}" for r in results if not r.passed] if results else ["no check applies to this task"]


NOT_APPLICABLE = "not_applicable"
"""Detail key of a passing result whose check did not judge the task: its family has no strategy for the
question, or the strategy has nothing to judge in it. The value says why."""
SKIPPED = "skipped"
"""Detail key of a passing result whose strategy applies but could not run here (no endpoint, already
rejected). The value says why."""


class Task(Record):
    """A training task of any family, with what the solver sees and what stays hidden."""

    task_id: str
    family: TaskFamily
    kind: str
    capability: str
    prompt: list[Message]
    payload: JsonDict
    reference: JsonDict
    grader: JsonDict
    environment: JsonDict = Field(default_factory=dict)
    lineage: Lineage
    validation: list[ValidationResult] = Field(default_factory=list)
    status: TaskStatus = "candidate"
    reasons: list[str] = Field(default_factory=list)
    schema_version: str = SCHEMA_VERSION


def task_id_for(family: str, kind: str, payload: dict) -> str:
    """The content id of a task: the same family payload always gives the same id."""
    return content_id({"family": family, "kind": kind, "payload": payload}, prefix=f"{family}-", length=20)
