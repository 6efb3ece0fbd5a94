"""Benchmark: a 10 000-point training sweep (gpt2-355m; 400 data rates × 25 GPU counts, so every point prices
differently) on a Dask cluster of 2 single-threaded worker processes against the same sweep run locally in one
process, in CPU seconds: the local command's (user + system of a fresh `sipml sweep --workers 1`), and the Dask
command's own plus the cluster's (its workers' CPU over the run, read on each worker; the scheduler runs in this
process and is counted by neither, so the ratio leaves out its heartbeat). Each side runs 3 times in turn, after a
first run of each that warms the workers' imports; the median of the pairs' ratios is printed, the rows compared
bit for bit. Needs `pip install 'sipml[dask]'`.

Run:  python bench/bench_dask.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio  # noqa: E402

GPUS = ",".join(str(64 * k) for k in range(1, 26))
SWEEP = [sys.executable, "-m", "sipml", "sweep", "--model", "gpt2-355m", "--quiet",
         "--vary", "link.data_rate=10 Gbit/s:50 Gbit/s:400", "--vary", f"fabric.gpus={GPUS}"]
ROUNDS = 3


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


def command_cpu(argv: list[str]) -> float:
    """CPU seconds of one child process (user + system)."""
    before = os.times()
    subprocess.run(argv, check=True, capture_output=True)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    from dask.distributed import Client, LocalCluster

    announce()
    with tempfile.TemporaryDirectory() as folder, \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        local = [*SWEEP, "--workers", "1", "-o", f"{folder}/local.csv"]
        remote = [*SWEEP, "--scheduler", cluster.scheduler_address, "-o", f"{folder}/dask.csv"]
        command_cpu(remote)  # the workers import what they run
        command_cpu(local)
        ratios, dask_s, local_s = [], [], []
        for _ in range(ROUNDS):
            before = client.run(_cpu)
            own = command_cpu(remote)
            after = client.run(_cpu)
            workers = sum(after[w] - before[w] for w in after)
            alone = command_cpu(local)
            dask_s.append(own + workers)
            local_s.append(alone)
            ratios.append((own + workers) / alone)
        with open(f"{folder}/local.csv", "rb") as a, open(f"{folder}/dask.csv", "rb") as b:
            same = a.read() == b.read()
    print(f"10 000-point gpt2-355m sweep: local, one process {statistics.median(local_s):.2f} s CPU "
          f"{ratio(statistics.median(local_s))}; Dask, 2 workers {statistics.median(dask_s):.2f} s CPU (command + "
          f"workers); Dask / local median {statistics.median(ratios):.2f} (pairs {', '.join(f'{r:.2f}' for r in ratios)})"
          f"; rows {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
