"""Benchmark: the vectorised strategy search. The full search of a GPT-3 175B run on 1024 GPUs per fabric
(every valid strategy: dp, tp, pp, microbatch, interleaving, sequence parallelism, recomputation, ZeRO, rank
order), and the evaluator's throughput in (model, fabric, strategy) points per second on one core.
Targets: ≥ 1e5 points/s; the 175B search under 1 s per fabric.

Run:  python bench/bench_search.py
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

from fabric.evaluate import evaluate_fabric  # noqa: E402
from sipml.design import load_design  # noqa: E402
from workloads.models import load_model  # noqa: E402
from workloads.speedup import evaluate_model  # noqa: E402


def main() -> None:
    model = load_model("gpt3-175b")
    total_points, total_s = 0, 0.0
    for name in ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "fattree-200"):
        design = load_design(name, ["fabric.gpu=gpu.a100_sxm4_80gb"] if "h100" not in name else [])
        est = evaluate_fabric(design)
        evaluate_model(model, design, name, 1536, estimate=est)  # warm caches (catalog, zoo)
        t0 = time.perf_counter()
        result = evaluate_model(model, design, name, 1536, estimate=est)
        wall = time.perf_counter() - t0
        total_points += result.candidates
        total_s += wall
        best = result.best
        print(f"{name:11s} {result.candidates:6d} strategies ({result.feasible} fit) in {wall * 1e3:6.1f} ms "
              f"→ {result.candidates / wall:9.0f} points/s; best {best.iteration_s:7.2f} s/iteration "
              f"({result.tflops_per_gpu:.0f} TFLOP/s per GPU): "
              + " ".join(f"{k}={v}" for k, v in best.strategy.items()))
    print(f"all fabrics: {total_points} points in {total_s:.3f} s → {total_points / total_s:.0f} points/s (one core)")


if __name__ == "__main__":
    main()
