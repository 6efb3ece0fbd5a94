"""Benchmark: the vectorised strategy search. The full search of a GPT-3 175B run on 1024 GPUs per fabric
(every valid strategy: dp, tp, pp, microbatch, interleaving, sequence parallelism, recomputation, ZeRO, rank
order), and the evaluator's throughput in (model, fabric, strategy) points per second on one core, cold (the
strategy enumeration and the search memo cleared before each timed search; the best of REPEATS such searches, their
median beside it: the host's drift between runs is larger than the search's) and warm (a memo hit, for contrast),
with the ratio of the cold time to a fixed reference measured in the same run. The price catalog is read once, as a
process that evaluates (`workloads.evaluation.Evaluation`) reads it, so the figure is the search's, not the reading
of a TOML file.
Targets: ≥ 1e6 candidates/s cold; the 175B search under 1 s per fabric.

Run:  python bench/bench_search.py
"""

from __future__ import annotations

import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce  # noqa: E402

from fabric.catalog import load_catalog  # noqa: E402
from fabric.evaluate import evaluate_fabric  # noqa: E402
from sipml.design import load_design  # noqa: E402
from workloads import speedup, strategy  # noqa: E402
from workloads.models import load_model  # noqa: E402
from workloads.speedup import evaluate_model  # noqa: E402


REPEATS = 5  # cold searches per fabric


def main() -> None:
    reference = announce()
    model = load_model("gpt3-175b")
    catalog = load_catalog()
    total_points, total_s = 0, 0.0
    for name in ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "fattree-200"):
        design = load_design(name, ["fabric.gpu=gpu.a100_sxm4_80gb"] if "h100" not in name else [])
        est = evaluate_fabric(design)
        evaluate_model(model, design, name, 1536, estimate=est, catalog=catalog)  # loads the zoo
        times = []
        for _ in range(REPEATS):
            speedup._search.cache_clear()
            strategy._transformer_strategies.cache_clear()
            t0 = time.perf_counter()
            result = evaluate_model(model, design, name, 1536, estimate=est, catalog=catalog)  # cold: searched afresh
            times.append(time.perf_counter() - t0)
        wall = min(times)
        t0 = time.perf_counter()
        evaluate_model(model, design, name, 1536, estimate=est, catalog=catalog)
        warm = time.perf_counter() - t0
        total_points += result.candidates
        total_s += wall
        best = result.best
        print(f"{name:11s} {result.candidates:6d} strategies ({result.feasible} fit) in {wall * 1e3:6.1f} ms "
              f"(median {statistics.median(times) * 1e3:.1f}; {wall / reference:.3f}× the reference) → "
              f"{result.candidates / wall:9.0f} points/s cold "
              f"(warm, a memo hit: {warm * 1e3:.1f} ms); best {best.iteration_s:7.2f} s/iteration "
              f"({result.tflops_per_gpu:.0f} TFLOP/s per GPU): "
              + " ".join(f"{k}={v}" for k, v in best.strategy.items()))
    print(f"all fabrics: {total_points} points in {total_s:.3f} s cold (each the best of {REPEATS}; "
          f"{total_s / reference:.3f}× the reference) → {total_points / total_s:.0f} points/s (one core)")


if __name__ == "__main__":
    main()
