"""Progress of long work, shown by whoever started the flow (the CLI draws bars; otherwise nothing).

The reporter lives in a context variable of the calling thread, so flows that run
in the CLI's process report to its bars, and flows run elsewhere report nowhere.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

Reporter = Callable[[str, int, int], None]
_reporter: ContextVar[Reporter | None] = ContextVar("taskforge_progress", default=None)


def report(stage: str, done: int, total: int) -> None:
    """Say that `done` of `total` units of `stage` are finished."""
    reporter = _reporter.get()
    if reporter is not None:
        reporter(stage, done, total)


@contextmanager
def reporting_to(reporter: Reporter) -> Iterator[None]:
    """Send progress of flows run inside this block to `reporter`."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)
