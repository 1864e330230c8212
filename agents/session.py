"""The roles of the stage running in this thread, for code (builders) that is handed no `Agents` explicitly.

A Prefect task opens an `Agents` for its stage and runs its work inside
`using(agents)`; a builder then calls `current_agents()`. Outside any stage
every role is reported as skipped, so a builder's deterministic path runs.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from taskforge.agents.client import Agents

NO_SESSION = "no agents session open (the LLM roles run inside a taskforge stage)"
_current: ContextVar[Agents | None] = ContextVar("taskforge_agents", default=None)


@contextmanager
def using(agents: Agents) -> Iterator[Agents]:
    """Make `agents` the current roles of this thread for the duration of the block."""
    token = _current.set(agents)
    try:
        yield agents
    finally:
        _current.reset(token)


def current_agents() -> Agents:
    """The roles of the running stage, or roles that all report `skipped` when no stage opened any."""
    agents = _current.get()
    if agents is not None:
        return agents
    return Agents.offline(NO_SESSION)
