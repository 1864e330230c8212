"""The contract every scorer keeps: score a submission, and name its reference and no-op submissions."""

from __future__ import annotations

import json
from typing import Any, Protocol


class Scorer(Protocol):
    """Scores a solver's submission for one kind of task, deterministically, in [0, 1]."""

    name: str

    def score(self, submission: str, reference: dict[str, Any], grader: dict[str, Any]) -> float: ...

    def reference_submission(self, reference: dict[str, Any], grader: dict[str, Any]) -> str: ...

    def noop_submissions(self, grader: dict[str, Any]) -> list[str]: ...


NOOP_TEXTS = ("", "insufficient information")
"""What doing nothing looks like for a text answer: no answer, or a refusal to answer."""


def decoded(value: Any) -> dict[str, Any]:
    """A JSON-string field of an RL row (or an already decoded mapping) as a dict."""
    if isinstance(value, str):
        return json.loads(value) if value else {}
    return dict(value or {})
