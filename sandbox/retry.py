"""Bounded retries of infrastructure failures; a job's own failure is returned at once, never retried."""

from __future__ import annotations

import logging
import time
from typing import Callable

from sandbox.api import Result

log = logging.getLogger(__name__)


def with_retries(call: Callable[[], Result], attempts: int = 3, backoff_s: float = 2.0,
                 sleep: Callable[[float], None] = time.sleep) -> Result:
    """Call until the result has no `infrastructure_error` or `attempts` are spent (backoff doubles each time).

    The returned result records how many attempts it took in `extra["attempts"]`.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    attempt, result = 1, call()
    while result.infrastructure_error is not None and attempt < attempts:
        delay = backoff_s * 2 ** (attempt - 1)
        log.warning("sandbox infrastructure failure (attempt %d of %d, retrying in %.0f s): %s",
                    attempt, attempts, delay, result.infrastructure_error)
        sleep(delay)
        attempt, result = attempt + 1, call()
    result.extra["attempts"] = attempt
    return result
