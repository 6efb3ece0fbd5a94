"""Benchmark: a 1024-GPU SiP-Ring and SiP-OCS (the built-in designs) evaluated end to end for a training traffic
pattern (a data-parallel ring plus all-to-all in groups of 8): link budget, fabric, reach, and the per-pair
bandwidth allocation. Target: under 100 ms each. Also states the exact allocation methods' size limits.

Run:  python bench/bench_fabric.py
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

from fabric import allocation  # noqa: E402
from fabric.evaluate import evaluate_fabric  # noqa: E402
from fabric.traffic import pair_bandwidth, training_demand_bps  # noqa: E402
from sipml.design import load_design  # noqa: E402


def run(name: str, repeats: int = 5) -> None:
    design = load_design(name)
    demand = training_demand_bps(design.fabric.gpus, 8)

    def once():
        est = evaluate_fabric(design)
        return est, pair_bandwidth(design, est, demand)

    t0 = time.perf_counter()
    once()
    cold = time.perf_counter() - t0
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        est, res = once()
        best = min(best, time.perf_counter() - t0)
    print(f"{name:9s} {design.fabric.gpus} GPUs, training pattern: best {best * 1e3:6.1f} ms (cold {cold * 1e3:6.1f} ms, "
          f"includes scipy import on first use); min pair {res.bandwidth_bps[demand > 0].min() / 1e9:.1f} Gbps, "
          f"{res.unserved} pairs unserved, {res.method}")


if __name__ == "__main__":
    run("sip-ring")
    run("sip-ocs")
    print(f"exact ring allocation (MILP search): ≤ {allocation.RING_MILP_MAX_GPUS} GPUs and "
          f"≤ {allocation.RING_MILP_MAX_FLOWS} pairs; ring LP bound: ≤ {allocation.RING_LP_MAX_GPUS} GPUs; "
          f"exact OCS MILP: ≤ {allocation.OCS_MILP_MAX_GPUS} GPUs and ≤ {allocation.OCS_MILP_MAX_BINARIES} binaries "
          f"(n_ocs·N·(N−1)); time limit {allocation.MILP_TIME_LIMIT_S:g} s each. The fast methods have no size limit "
          "(the OCS one is exact at any size).")
