"""Runs every check on a task and decides: accepted, or rejected with reasons."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from taskforge.schemas import Task, ValidationResult, rejection_reasons
from taskforge.schemas.locations import Location
from taskforge.validators.base import Check, CheckContext, guarded
from taskforge.validators.registry import question_checks

if TYPE_CHECKING:
    from taskforge.agents.client import Agents


def default_checks(data_dir: Location | None = None, agents: Agents | None = None) -> tuple[Check, ...]:
    """One check per question, in order (see `taskforge.validators.registry`). Strategies that read the data
    dir (collection snapshots, registered evaluation sets) read `data_dir`: without one, literature tasks fail
    reachability and no evaluation set is registered. LLM parts ask `agents`' roles: without them, they say
    they were skipped."""
    return question_checks(CheckContext(data_dir=data_dir, agents=agents))


DEFAULT_CHECKS: tuple[Check, ...] = default_checks()


def validate(task: Task, checks: Iterable[Check] = DEFAULT_CHECKS) -> Task:
    """The task with its check results and its status; a check that crashes rejects with the error, and an
    infrastructure failure is raised (see `guarded`). Each check sees the results of the checks before it
    as the task's `validation` (its stored results are not read)."""
    results: list[ValidationResult] = []
    for check in checks:
        seen = task.model_copy(update={"validation": list(results)})
        if check.applies_to(seen):
            results.append(guarded(check, seen))
    return decide(task, results)


def decide(task: Task, results: list[ValidationResult]) -> Task:
    """The task with these check results: accepted when every one passed, else rejected with their reasons."""
    reasons = rejection_reasons(results)
    return task.model_copy(update={
        "validation": results, "status": "rejected" if reasons else "accepted", "reasons": reasons,
    })

