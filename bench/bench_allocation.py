"""Benchmark: SiP-Ring wavelength allocation and SiP-OCS circuit assignment for 1024 GPUs with a training pattern.

Run:  python bench/bench_allocation.py
Pattern: ring neighbours (GPU i → i+1, 100 Gbit/s, the data-parallel ring all-reduce) plus all-to-all inside
consecutive groups of 8 GPUs (50 Gbit/s per pair, the model-parallel exchange). Fabrics as in SiP-ML's scripts
[sim]: 25 Gbit/s per wavelength, N_λ = 20 … 320 per GPU; SiP-Ring 2 directions × 5 fibers (N_λ/10 wavelengths per
fiber); SiP-OCS 20 switches, circuits of N_λ·25/20 Gbit/s. Prints the best-of-5 wall time per call on one core
(and the first, cold call, which includes scipy's import for the OCS), the min ratio reached, and the exact
methods' size limits with one timing at their limits. Not a test: the figures are recorded, not asserted.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio  # noqa: E402
import numpy as np  # noqa: E402

from fabric import allocation as al  # noqa: E402
from fabric.flows import group_alltoall_flows, ring_neighbour_flows  # noqa: E402

GPUS = 1024
RATE_BPS = 25e9  # per wavelength [sim]
WAVELENGTH_COUNTS = (20, 40, 80, 160, 320)  # per GPU [sim]
N_OCS = 20  # [sim]


def training_demand_bps(gpus: int, group: int = 8):
    """The pattern as flows (the allocators take flows or a dense matrix)."""
    return ring_neighbour_flows(gpus, 100e9) + group_alltoall_flows(gpus, group, 50e9)


def timed(call, repeats: int = 5):
    """(first-call seconds, best-of-`repeats` seconds, last result)."""
    start = time.perf_counter()
    result = call()
    first = time.perf_counter() - start
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return first, best, result


def bench_ring(demand) -> None:
    print(f"SiP-Ring, {GPUS} GPUs, ring_allocation_fast (2 directions × 5 fibers):")
    for n_lambda in WAVELENGTH_COUNTS:
        first, best, r = timed(lambda: al.ring_allocation_fast(demand, directions=2, fibers=5,
                                                               wavelengths_per_fiber=n_lambda // 10,
                                                               wavelength_rate_bps=RATE_BPS))
        print(f"  N_λ = {n_lambda:3d} ({n_lambda // 10:2d} λ/fiber): best {best * 1e3:6.1f} ms {ratio(best)}, "
              f"first {first * 1e3:6.1f} ms"
              f"   min ratio {r.min_ratio:.3f}, upper bound {r.upper_bound:.3f}, exact {r.exact}")


def bench_ocs(demand) -> None:
    print(f"SiP-OCS, {GPUS} GPUs, ocs_assignment ({N_OCS} OCSes):")
    for n_lambda in WAVELENGTH_COUNTS:
        circuit_bps = n_lambda * RATE_BPS / N_OCS
        first, best, r = timed(lambda: al.ocs_assignment(demand, n_ocs=N_OCS, circuit_bps=circuit_bps))
        print(f"  N_λ = {n_lambda:3d} ({circuit_bps / 1e9:5.0f} Gbit/s circuits): best {best * 1e3:6.1f} ms "
              f"{ratio(best)}, "
              f"first {first * 1e3:6.1f} ms   min ratio {r.min_ratio:.3f}, exact {r.exact}")


def bench_exact_limits() -> None:
    print("Exact methods (size limits; DomainError above them):")
    print(f"  ring_allocation_milp: ≤ {al.RING_MILP_MAX_GPUS} GPUs and ≤ {al.RING_MILP_MAX_FLOWS} pairs with demand; "
          f"ring_allocation_lp_bound: ≤ {al.RING_LP_MAX_GPUS} GPUs; ocs_assignment_milp: ≤ {al.OCS_MILP_MAX_GPUS} GPUs "
          f"and n_ocs·N·(N−1) ≤ {al.OCS_MILP_MAX_BINARIES}; time limit {al.MILP_TIME_LIMIT_S:g} s each")
    rng = np.random.default_rng(1)
    n = al.RING_MILP_MAX_GPUS
    dense = rng.random((n, n)) * 1e10
    np.fill_diagonal(dense, 0.0)
    for label, demand, per_fiber in (("training pattern, 8 λ/fiber", training_demand_bps(n), 8),
                                     ("random all-to-all, 32 λ/fiber", dense, 32)):
        kw = dict(directions=2, fibers=5, wavelengths_per_fiber=per_fiber, wavelength_rate_bps=RATE_BPS)
        first, _, exact = timed(lambda: al.ring_allocation_milp(demand, **kw), repeats=0)
        fast = al.ring_allocation_fast(demand, **kw)
        print(f"  ring MILP, {n} GPUs, {label}: {first:.2f} s; min ratio {exact.min_ratio:.3f} "
              f"(fast {fast.min_ratio:.3f}, fast's bound {fast.upper_bound:.3f})")
    n = al.OCS_MILP_MAX_GPUS
    demand = rng.random((n, n)) * 1e10
    np.fill_diagonal(demand, 0.0)
    n_ocs = al.OCS_MILP_MAX_BINARIES // (n * (n - 1))
    first, _, exact = timed(lambda: al.ocs_assignment_milp(demand, n_ocs=n_ocs, circuit_bps=100e9), repeats=0)
    fast = al.ocs_assignment(demand, n_ocs=n_ocs, circuit_bps=100e9)
    print(f"  OCS MILP, {n} GPUs × {n_ocs} OCSes, random demand: {first:.2f} s; min ratio {exact.min_ratio:.3f} "
          f"(fast {fast.min_ratio:.3f})")


if __name__ == "__main__":
    announce()
    pattern = training_demand_bps(GPUS)
    bench_ring(pattern)
    bench_ocs(pattern)
    bench_exact_limits()
