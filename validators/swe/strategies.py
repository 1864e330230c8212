"""How the SWE family answers each question (see validators/README.md for the whole matrix)."""

from __future__ import annotations

from taskforge.validators.base import CheckContext
from taskforge.validators.landed import landed_tasks
from taskforge.validators.leakage import FindsLeaks
from taskforge.validators.questions import Strategy, absent, answered_by
from taskforge.validators.shortcut import ShortcutSolvers
from taskforge.validators.swe.execution import SweNoOpCheck, SweReferenceCheck
from taskforge.validators.swe.history import SweHistoryOverlap
from taskforge.validators.swe.leakage import swe_leaks
from taskforge.validators.swe.shortcuts import swe_shortcut_scores
from taskforge.validators.swe.statement import StatementHidesFix, StatementStatesInterface


def strategies(context: CheckContext) -> dict[str, Strategy]:
    """Question → strategy for SWE tasks (no-op and reference share one sandbox session per task)."""
    return {
        "noop": answered_by(SweNoOpCheck()),
        "reference": answered_by(SweReferenceCheck(), StatementStatesInterface()),
        "leakage": answered_by(FindsLeaks("swe_leaks", swe_leaks), StatementHidesFix(),
                               SweHistoryOverlap(lambda: landed_tasks(context.data_dir, "swe"))),
        "shortcut": answered_by(ShortcutSolvers("swe_shortcuts", swe_shortcut_scores)),
        "determinism": absent("grading is SWE-bench's pure function of test statuses, and the reference check "
                              "runs the solution's tests repeatedly, so flaky tests fail there"),
        "review": absent("no reviewer strategy yet (the statement the builder agent writes is checked for "
                         "quotes of the fix where it is written)"),
    }
