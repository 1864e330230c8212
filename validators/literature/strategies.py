"""How the literature family answers each question (see validators/README.md for the whole matrix)."""

from __future__ import annotations

from taskforge.validators.base import CheckContext
from taskforge.validators.leakage import FindsLeaks
from taskforge.validators.literature.distractors import DistractorCheck
from taskforge.validators.literature.leakage import literature_leaks
from taskforge.validators.literature.reachability import ReachabilityCheck
from taskforge.validators.literature.rederive import RederivedAnswer
from taskforge.validators.literature.shortcuts import has_shortcuts, literature_shortcut_scores
from taskforge.validators.questions import Strategy, absent, answered_by
from taskforge.validators.scored import ScorerNoOp, ScorerReference
from taskforge.validators.shortcut import ShortcutSolvers


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Question → strategy for literature tasks (the re-derived answer, reachability, distractors and the
    shortcuts read the collection snapshots under the data dir)."""
    return {
        "noop": answered_by(ScorerNoOp()),
        "reference": answered_by(ScorerReference(), RederivedAnswer(context.data_dir),
                                 ReachabilityCheck(context.data_dir), DistractorCheck(context.data_dir)),
        "leakage": answered_by(FindsLeaks("literature_leaks", literature_leaks)),
        "shortcut": answered_by(ShortcutSolvers("literature_shortcuts", literature_shortcut_scores(context.data_dir),
                                               applies=has_shortcuts),
                                otherwise="the kind has no shortcut solvers"),
        "determinism": absent("no determinism strategy yet (its scorers are pure functions of "
                              "the submission and the reference)"),
        "review": absent("the questions the builder agent writes are reviewed where they are written (a rejected "
                         "one is replaced by the templated text)"),
    }
