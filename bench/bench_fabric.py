"""Benchmark: SiP-Ring, SiP-OCS and DGX-A100 clusters of 1 024 / 16 384 / 131 072 GPUs evaluated end to end for
SiP-ML's training traffic pattern (a data-parallel ring plus all-to-all in groups of 8): link budget, fabric,
reach, the per-flow bandwidth allocation, and the job-wide collective times. Each case runs in a fresh process
so its peak memory is its own. Target at 131 072 GPUs: under 2 s and under 1 GB each.

Run:  python bench/bench_fabric.py [GPUS ...]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

CASES = {"sip-ring": [], "sip-ocs": ["sip_ocs.radix={gpus}"], "dgx-a100": []}


def one(name: str, gpus: int) -> None:
    import resource

    from fabric.evaluate import evaluate_fabric, job_collectives
    from fabric.traffic import pair_bandwidth, pattern_flows
    from sipml.design import load_design

    design = load_design(name, [f"fabric.gpus={gpus}", *(s.format(gpus=gpus) for s in CASES[name])])
    t0 = time.perf_counter()
    est = evaluate_fabric(design)
    flows = pattern_flows("training", gpus, 8)
    served = pair_bandwidth(est, flows)
    times = job_collectives(est, 1e8)
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name:9s} {gpus:7d} GPUs  {flows.count:8d} flows  {wall:6.2f} s  peak {peak_mb:6.0f} MB  "
          f"min pair {served.bandwidth_bps.min() / 1e9:6.1f} Gbps  all-reduce {times['all_reduce'].seconds * 1e3:7.3f} ms"
          f"  ({served.method})")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in CASES:
        one(sys.argv[1], int(sys.argv[2]))
        sys.exit(0)
    sizes = [int(a) for a in sys.argv[1:]] or [1024, 16384, 131072]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # one core
    for gpus in sizes:
        for name in CASES:
            subprocess.run([sys.executable, __file__, name, str(gpus)], check=True, env=env)
