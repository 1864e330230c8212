"""Runs every applicable check on a task and decides: accepted, or rejected with reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from taskforge.schemas import InfrastructureError, Task, TaskforgeError, ValidationResult
from taskforge.validators.long_context.answerability import AnswerabilityCheck
from taskforge.validators.base import Check, timed
from taskforge.validators.decontamination import DecontaminationCheck
from taskforge.validators.long_context.determinism import DeterminismCheck
from taskforge.validators.literature.distractors import DistractorCheck
from taskforge.validators.long_context.evidence import EvidenceCheck
from taskforge.validators.evolution_judge import EvolutionJudgeCheck
from taskforge.validators.long_context.hardness import HardnessCheck
from taskforge.validators.leakage import LeakageCheck
from taskforge.validators.mle.determinism import GraderDeterminismCheck
from taskforge.validators.mle.noop import MleNoOpCheck
from taskforge.validators.mle.reference import MleReferenceCheck
from taskforge.validators.noop import NoOpCheck
from taskforge.validators.literature.reachability import ReachabilityCheck
from taskforge.validators.reference import ReferenceCheck
from taskforge.validators.swe.execution import SweNoOpCheck, SweReferenceCheck
from taskforge.validators.workflow.judge import WorkflowJudgeCheck
from taskforge.validators.workflow.noop import WorkflowNoOpCheck
from taskforge.validators.workflow.perturbation import WorkflowPerturbationCheck
from taskforge.validators.workflow.reference import WorkflowReferenceCheck
from taskforge.validators.workflow.review import WorkflowReviewCheck


def default_checks(data_dir: Path | None = None) -> tuple[Check, ...]:
    """Every check, in order; those that read the data dir (collection snapshots, registered evaluation sets)
    read `data_dir`. Without one, literature tasks fail reachability and no evaluation set is registered."""
    return (NoOpCheck(), ReferenceCheck(), LeakageCheck(), EvidenceCheck(), DeterminismCheck(), AnswerabilityCheck(),
            HardnessCheck(), ReachabilityCheck(data_dir), DistractorCheck(data_dir), DecontaminationCheck(data_dir),
            WorkflowReviewCheck(), WorkflowJudgeCheck(), WorkflowNoOpCheck(), WorkflowReferenceCheck(),
            WorkflowPerturbationCheck(), MleNoOpCheck(), MleReferenceCheck(), GraderDeterminismCheck(),
            SweNoOpCheck(), SweReferenceCheck(), EvolutionJudgeCheck())


DEFAULT_CHECKS: tuple[Check, ...] = default_checks()


def validate(task: Task, checks: Iterable[Check] = DEFAULT_CHECKS) -> Task:
    """The task with its check results and its status; a check that crashes rejects with the error.

    An infrastructure failure (a sandbox engine gone …) is not the task's fault: it is raised, for the
    batch to be retried, never turned into a rejection.
    """
    results: list[ValidationResult] = []
    for check in checks:
        if not check.applies_to(task):
            continue
        try:
            results.append(timed(check, task))
        except InfrastructureError:
            raise
        except (TaskforgeError, KeyError, TypeError, ValueError) as exc:
            results.append(ValidationResult(check=check.name, passed=False,
                                            reason=f"check failed to run: {type(exc).__name__}: {exc}"))
    return decide(task, results)


def decide(task: Task, results: list[ValidationResult]) -> Task:
    """The task with these check results: accepted when every one passed, else rejected with their reasons."""
    reasons = [f"{r.check}: {r.reason}" for r in results if not r.passed]
    if not results:
        reasons = ["no check applies to this task"]
    return task.model_copy(update={
        "validation": results, "status": "rejected" if reasons else "accepted", "reasons": reasons,
    })


def validate_all(tasks: Iterable[Task], checks: Iterable[Check] = DEFAULT_CHECKS) -> Iterator[Task]:
    """Validate a stream of tasks."""
    checks = tuple(checks)
    for task in tasks:
        yield validate(task, checks)
