"""What a diagnoser reports about one episode, before it becomes a stored Diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from taskforge.schemas import FailureMode


@dataclass(frozen=True)
class Finding:
    """A failure mode, the steps that show it, the signal values behind the call, and a confidence in [0, 1].

    `decisive` is the earliest step after which the failure was likely; when a rule leaves it unset, the
    first evidence step is taken.
    """

    mode: FailureMode
    steps: list[int]
    signals: dict[str, Any] = field(default_factory=dict)
    confidence: float = 0.5
    explanation: str = ""
    decisive: int | None = None

    @property
    def decisive_step(self) -> int | None:
        """The decisive step: the rule's, else the first evidence step."""
        return self.decisive if self.decisive is not None else min(self.steps, default=None)
