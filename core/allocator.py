"""How a `sipml` process gets its memory: how much freed memory the C allocator keeps, and on which pages.

A grid evaluation makes and drops many numpy temporaries of a few hundred kB to a few MB. glibc's malloc serves
blocks above its mmap threshold (128 kB until it adapts) with fresh mappings and returns the top of its heap to the
system once more than its trim threshold is free, so such a workload spends much of its time in the kernel zeroing
pages it has just given back (a 2^16-point link sweep: 0.94 → 0.72 CPU s; nested operations on 320 kB arrays 10×
faster with the memory kept). `keep_freed_memory` makes the process keep up to `KEEP_BYTES` of freed memory and
serve blocks below it from the heap. Other C libraries are left as they are.

numpy asks Linux to back each array of 4 MB or more with transparent huge pages (madvise MADV_HUGEPAGE, since numpy
1.16; NUMPY_MADVISE_HUGEPAGE switches it, numpy/numpy#15769). On a virtual machine whose host takes back the guest's
free memory (free-page reporting: Firecracker, the project's 2-core machines) the blocks the guest reports are 2 MB
(page_reporting_order 9), exactly what a huge page takes: each huge-page fault lands on memory the host must hand
back page by page, while ordinary pages come from what the guest still holds. There 200 MB of `np.ones` took
1.0-1.3 s with numpy's advice (0.03 s when repeated at once) against 0.12-0.17 s without it, every time, and a
10^6-GPU SiP-Ring evaluation (~500 MB) 2.8-3.4 s wall against 0.8-0.9 s (system time 2.3-3.2 s against 0.3-0.5 s;
the user time the same; /proc/vmstat: no compaction stall, no huge-page fallback). On other machines the advice can
cost as much where no huge page is free and the kernel compacts memory to find one (defrag = madvise, the usual
default; numpy/numpy#31590). `small_pages` runs a command with numpy's advice off; a user's NUMPY_MADVISE_HUGEPAGE
is kept.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading

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
    except ImportError:  # numpy 1.26.0-1.26.3
        from numpy.core import multiarray
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    return None if switch is None else bool(switch(on))


_switched = threading.Lock()
_commands = 0  # commands running in this process (threads): the first switches numpy's advice off, the last back
_before = None  # what the last puts back: "variable" (NUMPY_MADVISE_HUGEPAGE set for numpy's import), numpy's
# setting before (True/False), or None (nothing switched: the user's variable, or a numpy without the switch)


@contextlib.contextmanager
def small_pages():
    """numpy's arrays on ordinary pages while commands run: numpy told before it is imported (the environment
    variable, which the processes a command starts inherit), or switched, and put back when the last command in the
    process returns; a user's own NUMPY_MADVISE_HUGEPAGE is kept, and a Python caller's environment is as it was.
    A numpy first imported by the command keeps its advice off after it, as it keeps OpenBLAS at one thread
    (`sipml.cli`)."""
    global _commands, _before
    with _switched:
        if _commands == 0:
            _before = _switch_off()
        _commands += 1
    try:
        yield
    finally:
        with _switched:
            _commands -= 1
            if _commands == 0:
                if _before == "variable":
                    os.environ.pop(HUGE_PAGES, None)
                elif _before is not None:
                    advise_huge_pages(_before)


def _switch_off():
    """numpy's advice off for a command, unless the user set NUMPY_MADVISE_HUGEPAGE: what `small_pages` puts back."""
    if HUGE_PAGES in os.environ:
        return None
    if "numpy" not in sys.modules:
        os.environ[HUGE_PAGES] = "0"
        return "variable"
    return advise_huge_pages(False)


def as_a_command(setting: str | None = None) -> None:
    """This process's memory as a `sipml` command's, from now on (a sweep's worker, a benchmark): freed memory kept,
    numpy's arrays on ordinary pages unless NUMPY_MADVISE_HUGEPAGE asks for huge pages — this process's, or
    `setting`, the command's where it runs elsewhere (a Dask worker's)."""
    keep_freed_memory()
    asked = os.environ.get(HUGE_PAGES) if setting is None else setting
    if asked is None or _zero(asked):
        advise_huge_pages(False)


def _zero(text: str) -> bool:
    """Whether numpy reads `text` as 0 (it reads NUMPY_MADVISE_HUGEPAGE with int())."""
    try:
        return int(text) == 0
    except ValueError:
        return False
