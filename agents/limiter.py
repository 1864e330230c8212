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
    """At most `limit` holders at once among everyone using `folder`.

    Each slot file is opened once and kept open (closed by `close`); the
    slots this limiter holds are tracked, so two of its threads never share
    one file's lock.
    """

    def __init__(self, folder: Path, limit: int):
        self.folder = Path(folder)
        self.limit = limit
        self._fds: dict[int, int] = {}
        self._held: set[int] = set()
        self._lock = threading.Lock()
        self._gate: threading.BoundedSemaphore | None = None

    @contextmanager
    def slot(self) -> Iterator[int]:
        """Hold one slot for the duration of the block; yields its number."""
        if self._gate is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._gate = _gate(self.folder, self.limit)
        with self._gate:
            number = self._acquire()
            try:
                yield number
            finally:
                fcntl.flock(self._fds[number], fcntl.LOCK_UN)
                with self._lock:
                    self._held.discard(number)

    def close(self) -> None:
        """Close the slot files (only between uses: a held slot stays held until its block ends)."""
        with self._lock:
            for number in [n for n in self._fds if n not in self._held]:
                os.close(self._fds.pop(number))

    def _claim(self, number: int) -> int | None:
        """This limiter's file of slot `number`, reserved for the calling thread (None when another holds it)."""
        with self._lock:
            if number in self._held:
                return None
            self._held.add(number)
            if number not in self._fds:
                self._fds[number] = os.open(self.folder / f"slot-{number}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            return self._fds[number]

    def _acquire(self) -> int:
        """Take the first free slot, polling with jittered backoff while other processes hold them all."""
        wait = 0.005
        start = random.randrange(self.limit)
        while True:
            for offset in range(self.limit):
                number = (start + offset) % self.limit
                fd = self._claim(number)
                if fd is None:
                    continue
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return number
                except BlockingIOError:
                    with self._lock:
                        self._held.discard(number)
            time.sleep(wait * random.uniform(0.5, 1.5))
            wait = min(wait * 2, 0.2)
