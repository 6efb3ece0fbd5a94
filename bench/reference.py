"""The fixed reference every benchmark times in its own run: the machine is shared and absolute times drift, so each
figure is also printed as a ratio to this workload measured alongside it."""

from __future__ import annotations

import time

REFERENCE = "a stable sort of 2^23 float64 (numpy)"


def reference_s() -> float:
    """Seconds of a fixed memory-bound numpy workload (sorting 2^23 float64), best of 3."""
    import numpy as np

    values = np.random.default_rng(0).random(1 << 23)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        np.sort(values, kind="stable")
        best = min(best, time.perf_counter() - t0)
    return best


_MEASURED: list[float] = []


def announce() -> float:
    """Time the reference, print it, and return its seconds (kept for `ratio`)."""
    seconds = reference_s()
    _MEASURED[:] = [seconds]
    print(f"reference: {REFERENCE} in {seconds * 1e3:.0f} ms (ratios below are to it)")
    return seconds


def ratio(seconds: float) -> str:
    """'(N× the reference)' for a time measured in this run (after `announce`)."""
    return f"({seconds / _MEASURED[0]:.3g}× the reference)"
