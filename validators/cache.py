"""The cache of re-derived runs: what a check computed by running a task's own programs (a reference workflow's
outputs, an MLE leaderboard's baseline submissions), stored under the content hash of everything the run read.

A rerun of validation on the same task content reads the run back instead of
paying for it twice; a task whose program or inputs changed has another hash
and is run again. Entries live under `$TASKFORGE_VALIDATION_CACHE`, else the
user cache (`~/.cache/taskforge/validation/<kind>/<hash>.json`), and within one
process in memory too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

from taskforge.schemas import content_id
from taskforge.store.files import write_text_atomic

CACHE_ENV = "TASKFORGE_VALIDATION_CACHE"
MEMORY_ENTRIES = 64

_memory: dict[str, Any] = {}


def cache_root() -> Path:
    """Where re-derived runs are kept (`$TASKFORGE_VALIDATION_CACHE`, else the user cache)."""
    configured = os.environ.get(CACHE_ENV)
    user_cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return Path(configured) if configured else user_cache / "taskforge" / "validation"


def run_key(sources: Any) -> str:
    """The content hash of everything a run reads."""
    return content_id(sources, length=32)


def cached_run(kind: str, sources: Any, run: Callable[[], dict[str, Any]],
               keep: Callable[[dict[str, Any]], bool] = lambda _: True) -> tuple[dict[str, Any], bool]:
    """The JSON result of a run over `sources`, from the cache when the same sources were run before, else run
    (and kept when `keep` says the result is a property of the sources, not of a busy machine); with whether it
    came from the cache."""
    key = f"{kind}/{run_key(sources)}"
    if key in _memory:
        return _memory[key], True
    path = cache_root() / f"{key}.json"
    if path.is_file():
        result, cached = json.loads(path.read_text(encoding="utf-8")), True
    else:
        result, cached = run(), False
        if keep(result):
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, json.dumps(result))
    if keep(result):
        if len(_memory) >= MEMORY_ENTRIES:
            _memory.pop(next(iter(_memory)))
        _memory[key] = result
    return result, cached
