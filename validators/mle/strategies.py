"""How the MLE family answers each question (see validators/README.md for the whole matrix)."""

from __future__ import annotations

from taskforge.validators.base import CheckContext
from taskforge.validators.leakage import FindsLeaks
from taskforge.validators.mle.determinism import GraderDeterminismCheck
from taskforge.validators.mle.leakage import mle_leaks
from taskforge.validators.mle.noop import MleNoOpCheck
from taskforge.validators.mle.reference import MleReferenceCheck
from taskforge.validators.questions import Strategy, absent, answered_by
from taskforge.validators.scored import ScorerNoOp, ScorerReference


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Question → strategy for MLE competitions."""
    return {
        "noop": answered_by(ScorerNoOp(), MleNoOpCheck()),
        "reference": answered_by(ScorerReference(), MleReferenceCheck()),
        "leakage": answered_by(FindsLeaks("mle_leaks", mle_leaks)),
        "shortcut": absent("no shortcut baselines yet (constant, majority class, best single feature)"),
        "determinism": answered_by(GraderDeterminismCheck()),
        "review": absent("the descriptions the builder agent writes are reviewed where they are written (a "
                         "rejected one is replaced by the templated text)"),
    }
