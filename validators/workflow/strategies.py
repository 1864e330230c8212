"""How the workflow family answers each question (see validators/README.md for the whole matrix)."""

from __future__ import annotations

from taskforge.validators.base import CheckContext
from taskforge.validators.evolution_judge import EvolutionJudgeCheck
from taskforge.validators.leakage import FindsLeaks
from taskforge.validators.questions import Strategy, answered_by
from taskforge.validators.review import Reviewer
from taskforge.validators.scored import ScorerNoOp, ScorerReference
from taskforge.validators.shortcut import ShortcutSolvers
from taskforge.validators.workflow.audit import PackageAudit
from taskforge.validators.workflow.descendant import DescendantCheck
from taskforge.validators.workflow.leakage import workflow_leaks
from taskforge.validators.workflow.noop import WorkflowNoOpCheck
from taskforge.validators.workflow.perturbation import WorkflowPerturbationCheck
from taskforge.validators.workflow.reference import WorkflowReferenceCheck
from taskforge.validators.workflow.shortcuts import workflow_shortcut_scores


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Question → strategy for workflow tasks (the task's grader program and workflows run in the sandbox)."""
    return {
        "noop": answered_by(ScorerNoOp(), WorkflowNoOpCheck()),
        "reference": answered_by(ScorerReference(), WorkflowReferenceCheck(), PackageAudit()),
        "leakage": answered_by(FindsLeaks("workflow_leaks", workflow_leaks)),
        "shortcut": answered_by(DescendantCheck(),
                                ShortcutSolvers("workflow_shortcuts", workflow_shortcut_scores(context.data_dir))),
        "determinism": answered_by(WorkflowPerturbationCheck()),
        "review": answered_by(EvolutionJudgeCheck(), Reviewer(context.agents)),
    }
