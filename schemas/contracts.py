"""Every family's contract in one table, and the check that a task keeps it.

A builder's tasks are checked as they are emitted (`taskforge.builders.base.emitted`),
and checks and graders read tasks through the same models (`Model.of(task)`).
Adding a field a family's tasks carry means adding it to `schemas/<family>.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskforge.schemas.family import ContractError, FamilyGrader, FamilyPayload, FamilyReference
from taskforge.schemas.literature import LiteratureGrader, LiteraturePayload, LiteratureReference
from taskforge.schemas.long_context import LongContextGrader, LongContextPayload, LongContextReference
from taskforge.schemas.mle import MleGrader, MlePayload, MleReference
from taskforge.schemas.swe import SweGrader, SwePayload, SweReference
from taskforge.schemas.task import Task
from taskforge.schemas.workflow import WorkflowGrader, WorkflowPackage, WorkflowReference


@dataclass(frozen=True)
class Contract:
    """The models of a family's payload, reference and grader."""

    payload: type[FamilyPayload]
    reference: type[FamilyReference]
    grader: type[FamilyGrader]


CONTRACTS: dict[str, Contract] = {
    "literature": Contract(LiteraturePayload, LiteratureReference, LiteratureGrader),
    "long_context": Contract(LongContextPayload, LongContextReference, LongContextGrader),
    "mle": Contract(MlePayload, MleReference, MleGrader),
    "swe": Contract(SwePayload, SweReference, SweGrader),
    "workflow": Contract(WorkflowPackage, WorkflowReference, WorkflowGrader),
}


def contract_problems(task: Task) -> list[str]:
    """Why the task breaks its family's contract, one line per part (empty when it keeps it)."""
    contract = CONTRACTS[task.family]
    problems = []
    for model in (contract.payload, contract.reference, contract.grader):
        try:
            model.of(task)
        except ContractError as exc:
            problems.append(str(exc))
    return problems


def conforming(task: Task) -> Task:
    """The task, unchanged, once it keeps its family's contract; ContractError naming the task otherwise."""
    problems = contract_problems(task)
    if problems:
        raise ContractError(f"task {task.task_id}: {'; '.join(problems)}")
    return task
