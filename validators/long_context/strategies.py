"""How the long-context family answers each question (see validators/README.md for the whole matrix)."""

from __future__ import annotations

from taskforge.validators.base import CheckContext
from taskforge.validators.evolution_judge import EvolutionJudgeCheck
from taskforge.validators.leakage import FindsLeaks
from taskforge.validators.long_context.answerability import AnswerabilityCheck
from taskforge.validators.long_context.determinism import DeterminismCheck
from taskforge.validators.long_context.evidence import EvidenceCheck
from taskforge.validators.long_context.hardness import HardnessCheck
from taskforge.validators.long_context.leakage import long_context_leaks
from taskforge.validators.long_context.prompt import RenderedPromptCheck
from taskforge.validators.questions import Strategy, answered_by
from taskforge.validators.review import Reviewer
from taskforge.validators.scored import ScorerNoOp, ScorerReference


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Question → strategy for long-context tasks."""
    return {
        "noop": answered_by(ScorerNoOp()),
        "reference": answered_by(ScorerReference(), RenderedPromptCheck(), EvidenceCheck(), AnswerabilityCheck()),
        "leakage": answered_by(FindsLeaks("long_context_leaks", long_context_leaks)),
        "shortcut": answered_by(HardnessCheck()),
        "determinism": answered_by(DeterminismCheck()),
        "review": answered_by(EvolutionJudgeCheck(), Reviewer(context.agents)),
    }
