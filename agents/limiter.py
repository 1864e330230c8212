"""A concurrency limit on LLM requests shared by every thread and process that uses one data dir.

The limit is a set of `limit` slot files; a request holds an exclusive
`flock` on one of them while it is in flight. Locks belong to open file
descriptions, so they exclude each other across threads of one process and
across processes (Prefect thread, Dask or Ray workers on one machine, or several
`taskforge` runs) alike, and the kernel releases them when a holder dies.
Threads of one process first queue on an in-process semaphore, so only
cross-process contention is polled.
"""

from __future__ import annotations

import fcntl
import os
import random
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_local_gates: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_gates_lock = threading.Lock()


def _gate(folder: Path, limit: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore for one slot folder and limit."""
    with _gates_lock:
        return _local_gates.setdefault((str(folder.resolve()), limit), threading.BoundedSemaphore(limit))


class SlotLimiter:
    """At most `limit` holders at once among everyone using `folder`."""

    def __init__(self, folder: Path, limit: int):
        self.folder = Path(folder)
        self.limit = limit

    @contextmanager
    def slot(self) -> Iterator[int]:
        """Hold one slot for the duration of the block; yields its number."""
        gate = _gate(self.folder, self.limit)
        with gate:
            fd, number = self._acquire()
            try:
                yield number
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)

    def _acquire(self) -> tuple[int, int]:
        """Take the first free slot file, polling with jittered backoff while other processes hold them all."""
        self.folder.mkdir(parents=True, exist_ok=True)
        wait = 0.005
        start = random.randrange(self.limit)
        while True:
            for offset in range(self.limit):
                number = (start + offset) % self.limit
                fd = os.open(self.folder / f"slot-{number}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd, number
                except BlockingIOError:
                    os.close(fd)
            time.sleep(wait * random.uniform(0.5, 1.5))
            wait = min(wait * 2, 0.2)
