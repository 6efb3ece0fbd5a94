"""Benchmark: the vectorised layer-time function (workloads.compute.layer_times) over 10⁶ (b, t, SP,
recompute) candidates of the 175B GPT on an A100, on one core. Prints candidates/s for

- the realistic case: candidates drawn from the values a strategy search enumerates (microbatch 1–64, t a
  power of two dividing the heads, SP on/off, three recomputation modes), so many repeat and are evaluated
  once each;
- the worst case: every candidate distinct (microbatch 1…10⁶), so every one is evaluated.

Run:  python bench/bench_compute.py
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio  # noqa: E402

import numpy as np  # noqa: E402

from workloads.compute import layer_times  # noqa: E402
from workloads.gpus import get_gpu  # noqa: E402
from workloads.models import load_model  # noqa: E402
from workloads.stacks import get_stack  # noqa: E402

CANDIDATES = 1_000_000


def timed(label: str, **strategy) -> None:
    model, gpu = load_model("gpt3-175b"), get_gpu("a100_sxm4_80gb")
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        result = layer_times(model, gpu, settings=get_stack("megatron-2021").compute_for(gpu), **strategy)
        best = min(best, time.perf_counter() - t0)
    distinct = np.unique(np.stack([np.broadcast_to(np.asarray(v, dtype=float), (CANDIDATES,))
                                   for v in strategy.values()]), axis=1).shape[1]
    print(f"{label:44s} {CANDIDATES:,} candidates ({distinct:,} distinct) in {best:6.3f} s: "
          f"{CANDIDATES / best:12,.0f} candidates/s {ratio(best)} "
          f"(mean layer time {result.total_s.mean() * 1e3:.2f} ms)")


def main() -> None:
    announce()
    rng = np.random.default_rng(0)
    searched = dict(microbatch=rng.integers(1, 65, CANDIDATES), tp=2 ** rng.integers(0, 6, CANDIDATES),
                    sequence_parallel=rng.integers(0, 2, CANDIDATES).astype(bool),
                    recompute=rng.integers(0, 3, CANDIDATES))
    timed("search-like (b ≤ 64, t ∈ {1…32}, SP, recompute)", **searched)
    distinct = dict(microbatch=np.arange(1, CANDIDATES + 1), tp=np.full(CANDIDATES, 8))
    timed("all distinct (b = 1…10⁶, t = 8)", **distinct)


if __name__ == "__main__":
    main()
