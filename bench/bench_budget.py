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

from photonics import budget, crosstalk, fiber, filtering, microring, modulator, noise, receiver  # noqa: E402
from core.units import db_to_lin  # noqa: E402

POINTS = 1 << 20
INTRINSIC_Q = 1.19e5  # the default ring's intrinsic Q (7 dB/cm at 1310 nm, E3)


def grid(points: int, seed: int = 1):
    """A fixed pseudo-random grid over the quantities a sweep varies."""
    rng = np.random.default_rng(seed)
    return {
        "line_dbm": rng.uniform(-3, 10, points),
        "wavelengths": rng.integers(1, 65, points).astype(float),
        "fixed_loss_db": rng.uniform(3, 15, points),
        "spacing_hz": rng.uniform(50e9, 400e9, points),
        "filter_q": rng.uniform(3e3, 2e4, points),
        "er_db": rng.uniform(3, 12, points),
        "rate_bps": rng.choice([16e9, 25e9, 32e9, 50e9], points),
        "rin_db_per_hz": rng.uniform(-155, -130, points),
        "fiber_m": rng.uniform(1, 20e3, points),
        "wavelength_m": rng.choice([1310e-9, 1550e-9], points),
    }


def bus_through_db(spacing_hz, fwhm_hz, t0, wavelengths):
    """Through loss of the middle channel's passed rings on one bus (E19–E20): the two nearest rings on each side at
    their own detuning (E5), the rest by E20's far-tail form, Σ_{k=3..m} 1/k² ≈ π²/6 − 1/(m + ½) − 5/4 for m rings
    on a side."""
    side = 0.5 * (wavelengths - 1)
    near = sum(np.where(side >= k, 2.0 * microring.through_loss_db(k * spacing_hz, fwhm_hz, t0), 0.0) for k in (1, 2))
    tail_sum = np.maximum(np.pi**2 / 6 - 1.0 / (side + 0.5) - 1.25, 0.0)
    return near + 2.0 * microring.through_tail_loss_db(spacing_hz, fwhm_hz, t0) * tail_sum


def kernel(g):
    """Margin of the worst wavelength at every point: nearest ±1, ±2 aggressors (E6–E7), the victim's own filtering
    (E18a), the laser's RIN (E30), chromatic dispersion of a chirp-free signal (E28, E29a), OOK/ER penalties (E8),
    Ge-photodiode sensitivity (E16), aggregate cap (E10) and the rings passed on both buses at their detunings."""
    f0 = microring.frequency_hz(g["wavelength_m"])
    rate, fwhm = g["rate_bps"], f0 / g["filter_q"]
    t0 = (g["filter_q"] / INTRINSIC_Q) ** 2
    er = db_to_lin(g["er_db"])
    leak = sum(crosstalk.aggressor_leakage(k * g["spacing_hz"], fwhm, rate) for k in (1, 1, 2, 2))
    pen = crosstalk.penalty_db(leak, 7.034, er) + modulator.ook_penalty_db(er)
    pen += filtering.energy_penalty_db(fwhm / rate)
    pen += noise.rin_penalty_db(g["rin_db_per_hz"], receiver.NOISE_BANDWIDTH_FRACTION * rate, 7.034)
    dispersion = fiber.dispersion_s_per_m2(g["wavelength_m"], 1312e-9, 92.0)
    width = fiber.transform_limited_rms_width_m(g["wavelength_m"], rate)
    pen += fiber.penalty_agrawal_db(fiber.spread_product(rate, g["fiber_m"], dispersion, width))
    sens_dbm = 10 * np.log10(receiver.ge_photodiode_sensitivity_w(rate, er) / 1e-3)
    rings_db = 2.0 * bus_through_db(g["spacing_hz"], fwhm, t0, g["wavelengths"])
    return budget.link_margin_db(line_power_dbm=g["line_dbm"], aggregate_cap_dbm=20.0, wavelengths=g["wavelengths"],
                                 fixed_loss_db=g["fixed_loss_db"] + 0.35e-3 * g["fiber_m"], rings_loss_db=rings_db,
                                 penalty_db=pen, sensitivity_dbm=sens_dbm, system_margin_db=0.0)


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
