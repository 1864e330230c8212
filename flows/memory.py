"""Allocator settings that keep a long run's resident memory flat, applied in every process that imports `flows`.

Measured with `bench/scale.py` (thread pool, long-context tasks): with glibc's
default of up to 8 malloc arenas per core and Arrow's mimalloc pool, memory a
batch freed stayed reserved by the thread that had used it, so a cycle's peak
RSS grew with the number of batches (2.0 GiB at 240 tasks against 0.9 GiB at
24) although the live Python objects stayed under 50 MB; Prefect's thread pool
runs each batch on a fresh thread. Two arenas and Arrow's system allocator hand
freed memory back for reuse (1.3 GiB at 240 tasks against 0.8 GiB at 24). Either
is left alone when its environment variable (`MALLOC_ARENA_MAX`,
`ARROW_DEFAULT_MEMORY_POOL`) is set.
"""

from __future__ import annotations

import ctypes
import os
import platform

M_ARENA_MAX = -8
ARENAS = 2


def keep_peak_memory_flat() -> None:
    """Cap glibc's malloc arenas and route Arrow's allocations through the system allocator."""
    if "MALLOC_ARENA_MAX" not in os.environ and platform.libc_ver()[0] == "glibc":
        ctypes.CDLL(None).mallopt(M_ARENA_MAX, ARENAS)
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow

        pyarrow.set_memory_pool(pyarrow.system_memory_pool())
