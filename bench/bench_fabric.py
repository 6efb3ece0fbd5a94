"""Benchmark: SiP-Ring, SiP-OCS and DGX-A100 clusters of 1 024 / 131 072 / 1 048 576 GPUs evaluated end to end for
SiP-ML's training traffic pattern (a data-parallel ring plus all-to-all in groups of 8): link budget, fabric,
reach, the per-flow bandwidth allocation, and the job-wide collective times. Each case runs cold in a fresh process
(no cache can answer it) so its time and peak memory are its own; each also times a fixed numpy reference in the
same process (a stable sort of 2^23 floats) and prints the ratio, since the machine is shared and absolute times
drift. The process sets its memory as a `sipml` command's does (core.allocator: freed memory kept, numpy's arrays on
ordinary pages). Its CPU seconds are printed as user and system time apart: the system time is the kernel handing
the process fresh memory — on ordinary pages ~0.6 ms per MB on the project's 2-core machines; with numpy's huge-page
advice (NUMPY_MADVISE_HUGEPAGE=1) ~5 ms per MB there, a virtual machine whose host takes back the guest's free memory
in 2 MB blocks, which each huge page then takes from the host page by page (core.allocator). Target at 10⁶ GPUs:
under 3 s of CPU (the issue-44 target) and 1 GB each.

Run:  python bench/bench_fabric.py [GPUS ...]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import reference_s  # noqa: E402

from core.allocator import as_a_command  # noqa: E402

CASES = {"sip-ring": [], "sip-ocs": ["sip_ocs.radix={gpus}"], "dgx-a100": []}


def one(name: str, gpus: int) -> None:
    import resource

    as_a_command()  # as a `sipml` command starts (sipml.cli.main)

    from fabric.evaluate import evaluate_fabric, job_collectives
    from fabric.traffic import pair_bandwidth, pattern_flows
    from sipml.design_files import load_design

    design = load_design(name, [f"fabric.gpus={gpus}", *(s.format(gpus=gpus) for s in CASES[name])])
    before = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    est = evaluate_fabric(design)
    flows = pattern_flows("training", gpus, 8)
    served = pair_bandwidth(est, flows)
    times = job_collectives(est, 1e8)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_SELF)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    peak_mb = after.ru_maxrss / 1024
    ref = reference_s()
    print(f"{name:9s} {gpus:8d} GPUs  {flows.count:8d} flows  {wall:6.2f} s ({wall / ref:6.1f} × reference "
          f"{ref * 1e3:.0f} ms; CPU user {user:5.2f} s, system {system:5.2f} s)  peak {peak_mb:6.0f} MB  "
          f"min pair {served.bandwidth_bps.min() / 1e9:6.1f} Gbps  "
          f"all-reduce {times['all_reduce'].seconds * 1e3:7.3f} ms  ({served.method})", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in CASES:
        one(sys.argv[1], int(sys.argv[2]))
        sys.exit(0)
    sizes = [int(a) for a in sys.argv[1:]] or [1024, 131072, 1 << 20]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # one core
    for gpus in sizes:
        for name in CASES:
            subprocess.run([sys.executable, __file__, name, str(gpus)], check=True, env=env)
