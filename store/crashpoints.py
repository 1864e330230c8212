"""Named crash points for fault-injection runs: the process kills itself (SIGKILL) at a chosen point.

`TASKFORGE_CRASH_AT=name` (or `name:n` for the n-th time the point is reached)
makes `crash_point(name)` send SIGKILL to the current process — a real, abrupt
crash with no cleanup, used by tests to show that a killed cycle resumes to the
same catalog and shards. Unset (the normal case), a crash point does nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter

ENV = "TASKFORGE_CRASH_AT"
POINTS = ("build", "validate", "shard_write", "land", "catalog_commit", "manifest_write")
_seen: Counter[str] = Counter()
_lock = threading.Lock()


def crash_point(name: str) -> None:
    """Kill this process here if the environment asks for a crash at `name` (this time)."""
    spec = os.environ.get(ENV)
    if not spec:
        return
    target, _, nth = spec.partition(":")
    if target != name:
        return
    with _lock:
        _seen[name] += 1
        hit = _seen[name] == int(nth or 1)
    if hit:
        os.kill(os.getpid(), signal.SIGKILL)
