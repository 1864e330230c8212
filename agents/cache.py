"""The replay cache: each request's response on disk under the content address of the request.

The key is the hash of what decides the answer — the role and the request body
(model, messages, response format and schema, sampling parameters) — never the
endpoint, key or headers. Entries are written to a temporary file in the same
folder and renamed into place, so concurrent writers (threads or processes)
never leave a partial entry: a reader sees a whole response or none.

Creating a file, or even looking one up, costs more than a local request on a
busy machine, so entries are written by a writer thread while the caller goes
on, and a miss is answered from a listing of the entry's folder (read again
every `RELIST_S` seconds). Every user of one folder in a process shares one
cache (`ReplayCache.shared`): an entry is readable by all of them the moment
it is put, and on disk once `flush` returns (the role client flushes when its
stage ends, and every cache is flushed at exit).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any

from taskforge.schemas import content_id
from taskforge.store.files import atomic_open

log = logging.getLogger("taskforge.agents")
RELIST_S = 10.0
"""How long a folder's listing answers misses before it is read again (entries other processes write in the
meantime are found after at most this long; this process's own are found at once)."""
_shared: dict[Path, "ReplayCache"] = {}
_shared_lock = threading.Lock()


def request_key(role: str, body: dict[str, Any]) -> str:
    """The content address of one request."""
    return content_id({"role": role, "body": body}, prefix="llm-", length=32)


class ReplayCache:
    """Responses by request key, one JSON file each, under `root/<2 hex>/<key>.json`."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._listed: dict[Path, tuple[float, set[str]]] = {}
        self._root: tuple[float, set[str]] = (float("-inf"), set())
        self._pending: dict[str, dict[str, Any]] = {}
        self._queue: queue.Queue[tuple[str, bytes, dict[str, Any]]] = queue.Queue()
        self._lock = threading.Lock()
        self._writer: threading.Thread | None = None

    @classmethod
    def shared(cls, root: Path) -> "ReplayCache":
        """The process's cache of the folder `root` (made on first use)."""
        key = Path(root).resolve()
        with _shared_lock:
            if key not in _shared:
                _shared[key] = cls(key)
            return _shared[key]

    def _path(self, key: str) -> Path:
        """Where an entry lives (fanned out by two hex digits of its key)."""
        return self.root / key[4:6] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response of a request, or None when it was never answered."""
        pending = self._pending.get(key)
        if pending is not None:
            return pending
        if key not in self._present(self._path(key).parent):
            return None
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))["response"]
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None

    def _present(self, folder: Path) -> set[str]:
        """The keys with an entry in `folder`: listed when first asked, then every `RELIST_S` seconds, with the
        entries this process writes added as they are written (a miss is answered without touching the disk;
        a folder the cache root did not hold at its last listing is not read at all)."""
        listed = self._listed.get(folder)
        if listed is None or time.monotonic() - listed[0] > RELIST_S:
            with self._lock:
                names = set()
                if folder.name in self._root_listing():
                    try:
                        names = {name[:-5] for name in os.listdir(folder) if name.endswith(".json")}
                    except FileNotFoundError:
                        pass
                listed = (time.monotonic(), names)
                self._listed[folder] = listed
        return listed[1]

    def _root_listing(self) -> set[str]:
        """The folders under the cache root, listed again every `RELIST_S` seconds (the caller holds the lock)."""
        if time.monotonic() - self._root[0] > RELIST_S:
            try:
                self._root = (time.monotonic(), set(os.listdir(self.root)))
            except FileNotFoundError:
                self._root = (time.monotonic(), set())
        return self._root[1]

    def put(self, key: str, body: dict[str, Any], response: dict[str, Any]) -> None:
        """Store a response with the request it answers (readable at once; serialised here, written to disk by
        the writer thread, which then holds the interpreter lock only briefly between its system calls)."""
        with self._lock:
            self._pending[key] = response
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_all, name="replay-cache-writer", daemon=True)
                self._writer.start()
        self._queue.put((key, json.dumps({"request": body, "response": response}, sort_keys=True,
                                         ensure_ascii=False).encode("utf-8"), response))

    def flush(self) -> None:
        """Return once every entry put so far is on disk."""
        self._queue.join()

    def _write_all(self) -> None:
        """The writer thread: write entries in the order they were put."""
        while True:
            item = self._queue.get()
            try:
                key, data, response = item
                try:
                    self._write(key, data)
                except OSError as exc:
                    log.warning("replay cache entry %s not written (%s); it will be asked again", key,
                                type(exc).__name__)
                with self._lock:
                    if self._pending.get(key) is response:
                        del self._pending[key]
            finally:
                self._queue.task_done()

    def _write(self, key: str, data: bytes) -> None:
        """One entry's JSON, written through the project's atomic writer (temporary file, then rename), not
        fsynced: an entry a machine crash cuts is read as a miss and asked again (see `get`)."""
        final = self._path(key)
        with atomic_open(final, durable=False) as handle:
            handle.write(data)
        with self._lock:
            self._listed.setdefault(final.parent, (time.monotonic(), set()))[1].add(key)


@atexit.register
def _flush_all() -> None:
    """Write every cache's pending entries before the process ends."""
    with _shared_lock:
        caches = list(_shared.values())
    for cache in caches:
        cache.flush()
