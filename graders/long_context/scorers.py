"""Scorers of long-context answers, one per answer format.

Each reads the text after the last 'Answer:' marker of a submission. Exact
answers score 1; partial answers get the partial credit their format allows;
an empty or refusing answer scores 0.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations
from typing import Any

from taskforge.graders.base import NOOP_TEXTS
from taskforge.graders.long_context.values import final_answer, normalise, parse_number

_LABEL = re.compile(r"\b([A-Z])\b")
_DOC_ID = re.compile(r"\bdoc-\d+\b", re.IGNORECASE)
_PAIR = re.compile(r"\b([A-Z])\s*[:=]\s*([\w.\-]+)")
_LIST_SEPARATORS = re.compile(r"\s*(?:[,;\n]|\band\b)\s*")


def kendall_tau(predicted: list[str], reference: list[str]) -> float:
    """Kendall's tau between two orderings of the same items, in [-1, 1]."""
    if len(reference) < 2:
        return 1.0 if predicted == reference else -1.0
    position = {item: i for i, item in enumerate(predicted)}
    concordant = sum(
        1 if position[a] < position[b] else -1 for a, b in combinations(reference, 2)
    )
    return concordant / (len(reference) * (len(reference) - 1) / 2)


def jaccard(predicted: set[str], expected: set[str]) -> float:
    """Overlap of two sets: |intersection| / |union| (listing everything does not pay)."""
    if not predicted and not expected:
        return 1.0
    return len(predicted & expected) / len(predicted | expected)


class _TextAnswer:
    """What every long-context scorer shares: its reference submission and its no-op submissions."""

    name = ""

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return f"Answer: {reference['answer_text']}"

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return list(NOOP_TEXTS)


class OrderedLabels(_TextAnswer):
    """An ordering of labelled items (e.g. events by date): exact order scores 1, a permutation
    scores max(0, Kendall's tau), anything else 0."""

    name = "long_context.ordered_labels"

    def parse(self, submission: str, grader: dict[str, Any]) -> list[str]:
        allowed = set(grader["labels"])
        return [label for label in _LABEL.findall(final_answer(submission)) if label in allowed]

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        predicted = self.parse(submission, grader)
        expected = list(reference["answer"])
        if sorted(predicted) != sorted(expected) or len(set(predicted)) != len(predicted):
            return 0.0
        return 1.0 if predicted == expected else max(0.0, round(kendall_tau(predicted, expected), 6))


class ExactValue(_TextAnswer):
    """One value — a name or a number: scores 1 when it equals the reference (names compared loosely,
    numbers numerically), else 0."""

    name = "long_context.exact_value"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        given, expected = final_answer(submission), reference["answer"]
        if isinstance(expected, (int, float)):
            return 1.0 if parse_number(given) == float(expected) else 0.0
        return 1.0 if given and normalise(given) == normalise(str(expected)) else 0.0


class DocumentSet(_TextAnswer):
    """A set of document ids (which documents support a claim): Jaccard overlap with the reference set."""

    name = "long_context.document_set"

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        predicted = {match.lower() for match in _DOC_ID.findall(final_answer(submission))}
        return round(jaccard(predicted, set(reference["answer"])), 6) if predicted else 0.0


class NameSet(_TextAnswer):
    """A set of names (e.g. affected components): Jaccard overlap of the loosely compared names."""

    def __init__(self, name: str):
        self.name = name

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        items = {normalise(part) for part in _LIST_SEPARATORS.split(final_answer(submission)) if part.strip()}
        items.discard("")
        if not items:
            return 0.0
        return round(jaccard(items, {normalise(name) for name in reference["answer"]}), 6)


class LabelMap(_TextAnswer):
    """A value per labelled item ('A: doc-4; B: none'): accuracy corrected for the best constant guess,
    so answering every item with the most common value earns nothing."""

    def __init__(self, name: str):
        self.name = name

    def parse(self, submission: str, grader: dict[str, Any]) -> dict[str, str]:
        allowed = {normalise(value) for value in grader["values"]}
        pairs = {}
        for label, value in _PAIR.findall(final_answer(submission)):
            if label in grader["labels"] and normalise(value) in allowed and label not in pairs:
                pairs[label] = normalise(value)
        return pairs

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        expected = {label: normalise(value) for label, value in reference["answer"].items()}
        given = self.parse(submission, grader)
        accuracy = sum(given.get(label) == value for label, value in expected.items()) / len(expected)
        if accuracy == 1.0:
            return 1.0
        baseline = max(Counter(expected.values()).values()) / len(expected)
        return round(max(0.0, (accuracy - baseline) / (1 - baseline)), 6) if baseline < 1 else 0.0


class Quantity(_TextAnswer):
    """A whole number (a stock level, a count, a total): 1 when the first number given equals it, else 0."""

    def __init__(self, name: str):
        self.name = name

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float:
        return 1.0 if parse_number(final_answer(submission)) == float(reference["answer"]) else 0.0


LONG_CONTEXT_SCORERS = (
    OrderedLabels(), ExactValue(), DocumentSet(), LabelMap("long_context.conflict_map"),
    LabelMap("long_context.class_map"), Quantity("long_context.state_value"), NameSet("long_context.affected_set"),
    Quantity("long_context.aggregate"),
)
"""Every long-context scorer; each category names one in its grader (see the builder's categories)."""
