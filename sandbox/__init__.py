"""Where untrusted code runs: Docker containers, or a network namespace where there is no engine.

`run(job)` and `session(job)` use the backend chosen once per process by
`get_sandbox()` (docker where an engine answers, else process; `$TASKFORGE_SANDBOX`
forces one); every result records the backend and the reason it was chosen.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from taskforge.sandbox.api import BASE_IMAGE, Job, Result, Sandbox, Session
from taskforge.sandbox.choose import default_sandbox, get_sandbox


def run(job: Job, collect_to: Path | None = None) -> Result:
    """Run one job in the default sandbox and clean up after it."""
    return default_sandbox().run(job, collect_to=collect_to)


def session(job: Job) -> AbstractContextManager[Session]:
    """A sandbox kept alive for several commands (one container start), in the default backend."""
    return default_sandbox().session(job)


__all__ = ["BASE_IMAGE", "Job", "Result", "Sandbox", "Session", "default_sandbox", "get_sandbox", "run", "session"]
