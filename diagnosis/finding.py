"""What a diagnoser reports about one episode, before it becomes a stored Diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from taskforge.schemas import FailureMode


@dataclass(frozen=True)
class Finding:
    """A failure mode, the steps that show it, the signal values behind the call, and a confidence in [0, 1]."""

    mode: FailureMode
    steps: list[int]
    signals: dict[str, Any] = field(default_factory=dict)
    confidence: float = 0.5
    explanation: str = ""
