"""What the readers of plain-text agent logs share: the log's text, its records between marker lines, and the
episode and outcome of a log that states no verdict."""

from __future__ import annotations

import hashlib
import re
import textwrap
from typing import Any

from taskforge.diagnosis.readers.base import SourceFile, segments_from_starts
from taskforge.schemas import Episode, Outcome


def head_text(source: SourceFile) -> str:
    """The head of the file as text (for a sniff)."""
    return source.head().decode("utf-8", errors="ignore")


def log_text(source: SourceFile) -> str:
    """The whole file as text."""
    return source.content().decode("utf-8", errors="replace")


def records(text: str, marker: re.Pattern[str]) -> list[tuple[re.Match[str], str]]:
    """Each match of `marker` and the text after it up to the next match (the text before the first is left out)."""
    found = list(marker.finditer(text))
    ends = [m.start() for m in found[1:]] + [len(text)]
    return [(match, text[match.end():end]) for match, end in zip(found, ends)]


def body(text: str) -> str:
    """A record's text without its common indentation and surrounding blank lines."""
    return textwrap.dedent(text.strip("\n")).strip()


def ungraded(detail: str = "the log states no verdict") -> Outcome:
    """The outcome of a log that records no verdict."""
    return Outcome(success=False, graded=False, detail=detail)


def log_episode(source: SourceFile, fmt: str, task_id: str, steps: list[dict[str, Any]], outcome: Outcome,
                metadata: dict[str, str], family: str = "unknown", restarts: list[int] | None = None) -> Episode:
    """One episode of a log file: its id is the task id and a digest of the file's bytes; each restart of the run
    (a step index) starts a segment."""
    digest = hashlib.sha256(source.content()).hexdigest()[:12]
    starts = sorted({start for start in restarts or [] if 0 < start < len(steps)})
    for index, step in enumerate(steps):
        step["index"] = index
        step["segment"] = sum(start <= index for start in starts)
    return Episode(episode_id=f"{task_id}@{digest}", task_id=task_id, family=family, source_format=fmt,
                   source_file=source.name, steps=steps, segments=segments_from_starts(starts, len(steps)),
                   outcome=outcome, metadata={k: v for k, v in metadata.items() if v})
