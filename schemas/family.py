"""What every family contract shares: a task's payload, reference and grader read as typed models.

Each family declares its three models in `schemas/<family>.py` (subclasses of
`FamilyPayload`, `FamilyReference`, `FamilyGrader`); `Model.of(task)` reads the
task's part through the model and raises `ContractError`, naming the family,
the part and the field, when the part breaks the contract. A model only reads:
the task's stored JSON is never rewritten by it, so content ids do not change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import Field, ValidationError

from taskforge.schemas.base import Record
from taskforge.schemas.errors import TaskforgeError

if TYPE_CHECKING:
    from taskforge.schemas.task import Task

P = TypeVar("P", bound="TaskPart")


class ContractError(TaskforgeError):
    """A task's payload, reference or grader does not hold what its family's contract says."""


class TaskPart(Record):
    """One typed part of a task (its `part` names which)."""

    part: ClassVar[str]

    @classmethod
    def model_for(cls, kind: str) -> type[TaskPart]:
        """The model that reads a task of this kind (families whose parts differ by kind override this)."""
        return cls

    @classmethod
    def parse(cls: type[P], value: dict[str, Any], family: str, kind: str = "") -> P:
        """`value` read through the model for `kind`; ContractError when it breaks the contract."""
        model = cls.model_for(kind)
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(step) for step in first["loc"]) or "(top level)"
            more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
            what = f"{family} task ({kind})" if kind else f"{family} task"
            raise ContractError(f"the {cls.part} of this {what} breaks its contract ({model.__name__}): "
                                f"{where}: {first['msg']}{more}") from None

    @classmethod
    def of(cls: type[P], task: Task) -> P:
        """The task's part read through the model."""
        return cls.parse(getattr(task, cls.part), task.family, task.kind)


class FamilyPayload(TaskPart):
    """A family's payload: what defines the task."""

    part = "payload"


class FamilyReference(TaskPart):
    """A family's hidden reference; `llm` is the provenance record of the LLM calls that built, reviewed or
    judged the task (see `taskforge.agents.artifact`)."""

    part = "reference"
    llm: dict[str, Any] = Field(default_factory=dict)


class FamilyGrader(TaskPart):
    """A family's grader spec: how a submission is scored."""

    part = "grader"
