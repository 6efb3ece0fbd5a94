"""How much freed memory the C allocator keeps for the next request.

A grid evaluation makes and drops many numpy temporaries of a few hundred kB to a few MB. glibc's malloc serves
blocks above its mmap threshold (128 kB until it adapts) with fresh mappings and returns the top of its heap to the
system once more than its trim threshold is free, so such a workload spends much of its time in the kernel zeroing
pages it has just given back (a 2^16-point link sweep: 0.94 → 0.72 CPU s; nested operations on 320 kB arrays 10×
faster with the memory kept). `keep_freed_memory` makes the process keep up to `KEEP_BYTES` of freed memory and
serve blocks below it from the heap. Other C libraries are left as they are.
"""

from __future__ import annotations

import ctypes
import sys

KEEP_BYTES = 64 << 20  # what a process may hold unused: a few of the grid kernel's largest temporaries
# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
kept = False  # whether this process was asked to keep freed memory and glibc agreed (what a test asks a worker)


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep up to KEEP_BYTES of freed memory; True when it agreed (False elsewhere)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    global kept
    kept = all(mallopt(param, KEEP_BYTES) == 1 for param in (_M_TOP_PAD, _M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD))
    return kept
