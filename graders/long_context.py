"""Scorers of long-context answers."""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from graders.base import NOOP_TEXTS

_ANSWER_LINE = re.compile(r"answer\s*:\s*(.*)", re.IGNORECASE)
_LABEL = re.compile(r"\b([A-Z])\b")


def final_answer(submission: str) -> str:
    """The text after the last 'Answer:' marker, or the last non-empty line."""
    matches = _ANSWER_LINE.findall(submission)
    if matches:
        return matches[-1].strip()
    lines = [line.strip() for line in submission.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def kendall_tau(predicted: list[str], reference: list[str]) -> float:
    """Kendall's tau between two orderings of the same items, in [-1, 1]."""
    if len(reference) < 2:
        return 1.0 if predicted == reference else -1.0
    position = {item: i for i, item in enumerate(predicted)}
    concordant = sum(
        1 if position[a] < position[b] else -1 for a, b in combinations(reference, 2)
    )
    return concordant / (len(reference) * (len(reference) - 1) / 2)


class OrderedLabels:
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

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str:
        return f"Answer: {reference['answer_text']}"

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]:
        return list(NOOP_TEXTS)
