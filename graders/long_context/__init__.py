"""Long-context grading knowledge shared by builders and validators: scorers, value parsing, the
derivation of answers from world-model facts, answerability analysis and shallow shortcut solvers."""

from taskforge.graders.long_context.scorers import LONG_CONTEXT_SCORERS, OrderedLabels

__all__ = ["LONG_CONTEXT_SCORERS", "OrderedLabels"]
