"""Benchmark: the link-budget kernel over a vectorised grid of design points, and `sipml budget` wall time.

Run:  python bench/bench_budget.py
Prints points per second for a fixed grid of 2^20 (≈ 1.05 million) design points on one core, and the median
wall time of the CLI on the built-in design. Not a test: the figures are recorded, not asserted.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

import numpy as np  # noqa: E402

from photonics import budget, crosstalk, microring, modulator, receiver  # noqa: E402
from core.units import db_to_lin  # noqa: E402

POINTS = 1 << 20


def grid(points: int, seed: int = 1):
    """A fixed pseudo-random grid over the quantities a sweep varies."""
    rng = np.random.default_rng(seed)
    return {
        "line_dbm": rng.uniform(-3, 10, points),
        "wavelengths": rng.integers(1, 65, points).astype(float),
        "fixed_loss_db": rng.uniform(3, 15, points),
        "through_db": rng.uniform(0.005, 0.1, points),
        "spacing_hz": rng.uniform(50e9, 400e9, points),
        "filter_q": rng.uniform(3e3, 2e4, points),
        "er_db": rng.uniform(3, 12, points),
        "rate_bps": rng.choice([16e9, 25e9, 32e9, 50e9], points),
    }


def kernel(g):
    """Margin of the worst wavelength at every point: nearest ±1, ±2 aggressors (E6–E7), OOK/ER penalties (E8),
    Ge-photodiode sensitivity (E16), aggregate cap (E10) and the rings passed."""
    f0 = microring.frequency_hz(1310e-9)
    fwhm = f0 / g["filter_q"]
    er = db_to_lin(g["er_db"])
    leak = sum(crosstalk.aggressor_leakage(k * g["spacing_hz"], fwhm, g["rate_bps"]) for k in (1, 1, 2, 2))
    pen = crosstalk.penalty_db(leak, 7.034, er) + modulator.ook_penalty_db(er)
    sens_dbm = 10 * np.log10(receiver.ge_photodiode_sensitivity_w(g["rate_bps"], er) / 1e-3)
    return budget.link_margin_db(line_power_dbm=g["line_dbm"], aggregate_cap_dbm=20.0, wavelengths=g["wavelengths"],
                                 fixed_loss_db=g["fixed_loss_db"], per_ring_loss_db=g["through_db"],
                                 rings_passed_per_wavelength=2 * (g["wavelengths"] - 1), penalty_db=pen,
                                 sensitivity_dbm=sens_dbm, system_margin_db=0.0)


def bench_kernel(repeats: int = 5) -> float:
    g = grid(POINTS)
    kernel(g)  # warm up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        margins = kernel(g)
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(f"budget kernel: {POINTS:,} points, best of {repeats}: {best * 1e3:.1f} ms "
          f"→ {POINTS / best / 1e6:.2f} million points/s  (feasible share {np.mean(margins >= 0):.3f})")
    return POINTS / best


def bench_cli(repeats: int = 7) -> float:
    cmd = [sys.executable, "-m", "sipml", "budget"]
    subprocess.run(cmd, capture_output=True, check=True)  # warm the unit-registry cache and the OS file cache
    walls = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        walls.append(time.perf_counter() - t0)
    median = statistics.median(walls)
    print(f"sipml budget (built-in design): median wall {median * 1e3:.0f} ms over {repeats} runs "
          f"(min {min(walls) * 1e3:.0f} ms, max {max(walls) * 1e3:.0f} ms)")
    return median


if __name__ == "__main__":
    bench_kernel()
    bench_cli()
