"""Which strategy answers which question for which family: the one table the checks are built from.

Each family's `validators/<family>/strategies.py` maps every question to its
strategy (or says why it has none); `shared` holds strategies every family uses
unless its own table overrides them. Adding a question: add it to
`taskforge.validators.questions.QUESTIONS` and give every family (or `shared`)
a strategy or a reason for it. Adding a family's strategy: edit that family's
table. `question_checks` refuses a table that leaves a question unanswered.
"""

from __future__ import annotations

from typing import Callable

from taskforge.schemas import FAMILIES, TaskforgeError
from taskforge.validators.base import CheckContext
from taskforge.validators.decontamination import DecontaminationCheck
from taskforge.validators.difficulty import strategies as difficulty
from taskforge.validators.literature.strategies import strategies as literature
from taskforge.validators.long_context.strategies import strategies as long_context
from taskforge.validators.mle.strategies import strategies as mle
from taskforge.validators.questions import QUESTIONS, QuestionCheck, Strategy, answered_by
from taskforge.validators.swe.strategies import strategies as swe
from taskforge.validators.workflow.strategies import strategies as workflow

StrategyTable = Callable[[CheckContext], dict[str, Strategy]]

FAMILY_STRATEGIES: dict[str, StrategyTable] = {
    "literature": literature, "long_context": long_context, "mle": mle, "swe": swe, "workflow": workflow,
}
"""Family → its question → strategy table."""


def shared(context: CheckContext) -> dict[str, Strategy]:
    """Strategies every family uses unless its own table names another."""
    return {"decontamination": answered_by(DecontaminationCheck(context.data_dir))}


class StrategyTableError(TaskforgeError):
    """A family's strategy table leaves a question unanswered or answers one that does not exist."""


def strategy_tables(context: CheckContext) -> dict[str, dict[str, Strategy]]:
    """Family → question → strategy, complete for every family and question."""
    without = sorted(set(FAMILIES) - set(FAMILY_STRATEGIES))
    if without:
        raise StrategyTableError(f"no strategy table for {without}: add validators/<family>/strategies.py")
    gates = difficulty(context)
    tables = {family: {**shared(context), "difficulty": gates[family], **FAMILY_STRATEGIES[family](context)}
              for family in FAMILIES}
    for family, table in tables.items():
        missing, unknown = set(QUESTIONS) - set(table), set(table) - set(QUESTIONS)
        if missing or unknown:
            raise StrategyTableError(f"the {family} strategy table misses {sorted(missing)} and answers unknown "
                                     f"questions {sorted(unknown)}: give each question a strategy or absent(why)")
    return tables


def question_checks(context: CheckContext) -> tuple[QuestionCheck, ...]:
    """One check per question, in `QUESTIONS` order, each dispatching to the task's family strategy."""
    tables = strategy_tables(context)
    return tuple(QuestionCheck(question, {family: table[question] for family, table in tables.items()})
                 for question in QUESTIONS)
