"""Bounded capture of a job's output: only the last `OUTPUT_TAIL_BYTES` are kept."""

from __future__ import annotations

import threading
from collections import deque
from typing import IO

from taskforge.sandbox.api import OUTPUT_TAIL_BYTES


class TailBuffer:
    """Keeps the last `limit` bytes written to it, however much is written."""

    def __init__(self, limit: int = OUTPUT_TAIL_BYTES):
        self.limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0

    def write(self, chunk: bytes) -> None:
        """Append a chunk, dropping the oldest bytes beyond the limit."""
        if not chunk:
            return
        self._chunks.append(chunk)
        self._size += len(chunk)
        while self._size - len(self._chunks[0]) >= self.limit:
            self._size -= len(self._chunks.popleft())
        if self._size > self.limit:
            excess = self._size - self.limit
            self._chunks[0] = self._chunks[0][excess:]
            self._size -= excess

    def text(self) -> str:
        """The kept tail, decoded (invalid UTF-8 replaced)."""
        return b"".join(self._chunks).decode("utf-8", errors="replace")


def tail_text(data: bytes, limit: int = OUTPUT_TAIL_BYTES) -> str:
    """The last `limit` bytes of `data`, decoded."""
    buffer = TailBuffer(limit)
    buffer.write(data)
    return buffer.text()


def drain_in_background(stream: IO[bytes], buffer: TailBuffer) -> threading.Thread:
    """Start a thread that copies `stream` into `buffer` until it closes."""

    def copy() -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            buffer.write(chunk)
        stream.close()

    thread = threading.Thread(target=copy, daemon=True)
    thread.start()
    return thread
