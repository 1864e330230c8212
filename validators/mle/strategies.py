"""How the MLE family answers each question (see validators/README.md for the whole matrix)."""

from __future__ import annotations

from taskforge.validators.base import CheckContext
from taskforge.validators.leakage import FindsLeaks
from taskforge.validators.mle.determinism import BaselineRerunCheck, GraderDeterminismCheck
from taskforge.validators.mle.leakage import mle_leaks
from taskforge.validators.mle.neighbours import neighbour_leaks
from taskforge.validators.mle.noop import MleNoOpCheck
from taskforge.validators.mle.reference import MleReferenceCheck
from taskforge.validators.mle.shortcuts import mle_shortcut_scores
from taskforge.validators.questions import Strategy, absent, answered_by
from taskforge.validators.scored import ScorerNoOp, ScorerReference
from taskforge.validators.shortcut import ShortcutSolvers


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Question → strategy for MLE competitions (the reference, no-op, leakage and shortcut parts grade against the
    thresholds the leaderboard's baselines give when run again in the sandbox)."""
    return {
        "noop": answered_by(ScorerNoOp(), MleNoOpCheck()),
        "reference": answered_by(ScorerReference(), MleReferenceCheck()),
        "leakage": answered_by(FindsLeaks("mle_leaks", mle_leaks), FindsLeaks("mle_neighbour_labels", neighbour_leaks)),
        "shortcut": answered_by(ShortcutSolvers("mle_shortcuts", mle_shortcut_scores)),
        "determinism": answered_by(GraderDeterminismCheck(), BaselineRerunCheck()),
        "review": absent("the descriptions the builder agent writes are reviewed where they are written (a "
                         "rejected one is replaced by the templated text)"),
    }
