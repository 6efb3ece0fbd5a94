"""How a `sipml` process gets its memory: how much freed memory the C allocator keeps, and on which pages.

A grid evaluation makes and drops many numpy temporaries of a few hundred kB to a few MB. glibc's malloc serves
blocks above its mmap threshold (128 kB until it adapts) with fresh mappings and returns the top of its heap to the
system once more than its trim threshold is free, so such a workload spends much of its time in the kernel zeroing
pages it has just given back (a 2^16-point link sweep: 0.94 → 0.72 CPU s; nested operations on 320 kB arrays 10×
faster with the memory kept). `keep_freed_memory` makes the process keep up to `KEEP_BYTES` of freed memory and
serve blocks below it from the heap. Other C libraries are left as they are.

numpy asks Linux to back each array of 4 MB or more with transparent huge pages (madvise MADV_HUGEPAGE, since numpy
1.16; NUMPY_MADVISE_HUGEPAGE switches it, numpy/numpy#15769). Where the kernel compacts memory synchronously for such
regions (/sys/kernel/mm/transparent_hugepage/defrag = madvise, the usual default) and no free huge page is at hand,
the first touch of such an array stalls (numpy/numpy#31590), and a virtual machine whose host takes back the guest's
free memory (free-page reporting: Firecracker, the project's 2-core machines) has none at hand: there 200 MB of
`np.ones` took 1.03 s, 612 faults of 2 MB, against 0.17 s on ordinary pages, and a 10^6-GPU SiP-Ring evaluation
(~500 MB) 2.8-3.3 s against 0.8-0.9 s (system time 2.3-2.7 s against 0.3 s; its user time the same).
`small_pages` runs a command with numpy's advice off; a user's NUMPY_MADVISE_HUGEPAGE is kept.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
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


HUGE_PAGES = "NUMPY_MADVISE_HUGEPAGE"  # numpy's switch, read when numpy is imported ("0": off)


def advise_huge_pages(on: bool) -> bool | None:
    """Turn numpy's huge-page advice on or off in this process (numpy imported); its setting before, None where
    this numpy has no switch for it."""
    try:
        from numpy._core import multiarray
    except ImportError:  # numpy 1.x
        from numpy.core import multiarray
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    return None if switch is None else bool(switch(on))


@contextlib.contextmanager
def small_pages():
    """numpy's arrays on ordinary pages while a command runs: numpy told before it is imported (the environment
    variable, which the processes the command starts inherit), or switched and switched back after; a user's own
    NUMPY_MADVISE_HUGEPAGE is kept, and a Python caller's environment is as it was once the command returns."""
    if HUGE_PAGES in os.environ:
        yield
        return
    if "numpy" not in sys.modules:
        os.environ[HUGE_PAGES] = "0"
        try:
            yield
        finally:
            os.environ.pop(HUGE_PAGES, None)
        return
    before = advise_huge_pages(False)
    try:
        yield
    finally:
        if before is not None:
            advise_huge_pages(before)


def as_a_command() -> None:
    """This process's memory as a `sipml` command's, from now on (a sweep's worker, a benchmark): freed memory kept,
    numpy's arrays on ordinary pages unless NUMPY_MADVISE_HUGEPAGE says otherwise."""
    keep_freed_memory()
    if HUGE_PAGES not in os.environ:
        advise_huge_pages(False)
