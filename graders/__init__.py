"""Deterministic scorers of submissions, shared by builders, validators and the trainer's reward.

A task's `grader` names its scorer (`grader["scorer"]`); `scorer_for` finds it.
"""

from __future__ import annotations

from typing import Any

from taskforge.graders.base import Scorer
from taskforge.graders.literature.scorers import SCORERS as LITERATURE_SCORERS
from taskforge.graders.long_context import LONG_CONTEXT_SCORERS
from taskforge.graders.mle.grading import CompetitionScorer
from taskforge.graders.workflow.deliverables import WorkflowDeliverables
from taskforge.errors import TaskforgeError

SCORERS: dict[str, Scorer] = {scorer.name: scorer for scorer in (*LONG_CONTEXT_SCORERS, *LITERATURE_SCORERS,
                                                                WorkflowDeliverables(), CompetitionScorer())}


class UnknownScorerError(TaskforgeError):
    """A task names a scorer this installation does not have."""


def scorer_for(grader: dict[str, Any]) -> Scorer:
    """The scorer a grader spec names."""
    name = grader.get("scorer")
    try:
        return SCORERS[name]
    except KeyError:
        raise UnknownScorerError(f"unknown scorer {name!r}; known: {', '.join(sorted(SCORERS))}") from None
