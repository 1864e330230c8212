"""Python's cyclic garbage collector paused while a batch holds many live objects.

A batch task keeps every diagnosis and row it has made until it writes them, so
the collector's full passes keep walking objects that cannot be garbage: on the
diagnosis batch this was about 40 % of its CPU time (`bench/diagnose.py`, the
batch-task stage). Reference counting still frees what a batch drops; cycles
made meanwhile are collected once the collector runs again.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block; nested and concurrent blocks (threads of a task runner) share
    one pause, and the collector's earlier state comes back when the last of them ends."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
