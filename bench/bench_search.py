"""Benchmark: the vectorised strategy search. The full search of a GPT-3 175B run on 1024 GPUs per fabric
(every valid strategy: dp, tp, pp, microbatch, interleaving, sequence parallelism, recomputation, ZeRO, rank
order), and the evaluator's throughput in (model, fabric, strategy) points per second on one core, cold (the
strategy enumeration and the search memo cleared before each timed search; the best of REPEATS such searches, their
median beside it: the host's drift between runs is larger than the search's) and warm (a memo hit, for contrast),
with the ratio of the cold time to a fixed reference measured in the same run. The price catalog is read once, as a
process that evaluates (`workloads.evaluation.Evaluation`) reads it, so the figure is the search's, not the reading
of a TOML file.
Then ResNet-50's search per candidate (a CNN's candidates are its few data × model-parallel splits), in fresh
processes and cold in this one, and the first GPT-3 search of fresh processes, and where the median one's time went,
stage by stage.
Targets: ≥ 1e6 candidates/s cold, in a fresh process's first search too; the 175B search under 1 s per fabric;
ResNet-50 ≤ 0.1 ms per candidate.

Run:  python bench/bench_search.py
      python bench/bench_search.py --against ../other-checkout [--rounds 4]
The second form compares two source trees on this machine: it runs the cold searches in a fresh process of each
tree in turn, `--rounds` times, and prints each fabric's best time in either and their ratio (this tree's over the
other's). The host's speed drifts by more than most changes between runs minutes apart; alternating the two and
keeping minima is what makes their figures comparable.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio  # noqa: E402

from fabric.catalog import load_catalog  # noqa: E402
from fabric.evaluate import evaluate_fabric  # noqa: E402
from sipml.design_files import load_design  # noqa: E402
from workloads import speedup, strategy  # noqa: E402
from workloads.models import load_model  # noqa: E402
from workloads.speedup import evaluate_model  # noqa: E402


REPEATS = 5  # cold searches per fabric
FABRICS = ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "fattree-200")


def as_a_command() -> None:
    """This process's memory as a `sipml` command's (core.allocator.as_a_command); in a tree from before 0.24 (the
    other of `--against`) its freed memory kept, numpy's huge pages as NUMPY_MADVISE_HUGEPAGE says (`compare` gives
    both trees the same)."""
    try:
        from core.allocator import as_a_command as set_up
    except ImportError:
        from core.allocator import keep_freed_memory as set_up
    set_up()


def cold_searches(report) -> dict[str, tuple[float, int]]:
    """Each fabric's (best cold search in seconds, candidates), in a process whose allocator keeps freed memory as
    `sipml`'s does; `report(name, result, times, warm)` sees each fabric's figures."""
    as_a_command()  # as a `sipml` command starts (sipml.cli.main)
    model = load_model("gpt3-175b")
    catalog = load_catalog()
    best_s = {}
    for name in FABRICS:
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
        t0 = time.perf_counter()
        evaluate_model(model, design, name, 1536, estimate=est, catalog=catalog)
        report(name, result, times, time.perf_counter() - t0)
        best_s[name] = (min(times), result.candidates)
    return best_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="another checkout of the project to compare with, run in turn")
    parser.add_argument("--rounds", type=int, default=4, help="fresh processes of each tree (default 4)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one tree's minima, for --against
    parser.add_argument("--first", action="store_true", help=argparse.SUPPRESS)  # one fresh process's first search
    parser.add_argument("--first-cnn", help=argparse.SUPPRESS)  # … of ResNet-50 on this fabric
    args = parser.parse_args()
    if args.against:
        compare(os.path.abspath(args.against), args.rounds)
    elif args.json:
        print(json.dumps(cold_searches(lambda *_: None)))
    elif args.first:
        print(json.dumps(first_search()))
    elif args.first_cnn:
        print(json.dumps(first_cnn_search(args.first_cnn)))
    else:
        run()
        fresh_processes()


FRESH = 5  # fresh processes whose first search is timed


STAGES = ("transformer_strategies", "transformer_plan", "transformer_floor", "plan_breakdown", "cost_summary")


def first_search() -> tuple[float, int, dict]:
    """(seconds, candidates, seconds in each of STAGES) of the first search of a process started as `sipml` starts
    (its allocator set to keep freed memory): GPT-3 175B at batch 1,536 on SiP-Ring (1,024 A100s), its model,
    design, fabric and catalog read first (not timed), the search and what it reads on its first call (the GPUs, the
    enumeration) timed, and each stage of `workloads.speedup` where the search calls it — the enumeration, the
    fabric-free plan, the floor that orders the candidates, the priced rounds, the cluster's cost."""
    as_a_command()  # as a `sipml` command starts (sipml.cli.main)
    spent = dict.fromkeys(STAGES, 0.0)

    def timed(name, fn):
        def call(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t0
        return call

    for name in STAGES:
        setattr(speedup, name, timed(name, getattr(speedup, name)))
    model = load_model("gpt3-175b")
    catalog = load_catalog()
    design = load_design("sip-ring", ["fabric.gpu=gpu.a100_sxm4_80gb"])
    est = evaluate_fabric(design)
    t0 = time.perf_counter()
    result = evaluate_model(model, design, "sip-ring", 1536, estimate=est, catalog=catalog)
    return time.perf_counter() - t0, result.candidates, spent


def _fresh(*flags) -> list:
    """The JSON each of FRESH fresh processes of this bench prints with `flags`, sorted (bytecode compiled, as an
    installed package runs)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return sorted(json.loads(subprocess.run([sys.executable, os.path.abspath(__file__), *flags], env=env,
                                            capture_output=True, text=True, check=True).stdout.splitlines()[-1])
                  for _ in range(FRESH))


def fresh_processes() -> None:
    """The first search of FRESH fresh processes (a `sipml speedup`'s search, its start-up aside), against the
    cold search above, and where the median one's time went, stage by stage."""
    runs = _fresh("--first")
    seconds, count, parts = runs[len(runs) // 2]
    print(f"first search of a fresh process (sip-ring, median of {FRESH}): {seconds * 1e3:.1f} ms → "
          f"{count / seconds:.0f} points/s {ratio(seconds)}")
    rest = seconds - sum(parts.values())
    print("  its stages: " + ", ".join(f"{name} {t * 1e3:.1f} ms ({100 * t / seconds:.0f} %)"
                                       for name, t in [*parts.items(), ("the rest", rest)]))


def run() -> None:
    reference = announce()
    total = {"points": 0, "seconds": 0.0}

    def report(name, result, times, warm):
        wall, best = min(times), result.best
        total["points"] += result.candidates
        total["seconds"] += wall
        print(f"{name:11s} {result.candidates:6d} strategies ({result.feasible} fit) in {wall * 1e3:6.1f} ms "
              f"(median {statistics.median(times) * 1e3:.1f}; {wall / reference:.3f}× the reference) → "
              f"{result.candidates / wall:9.0f} points/s cold "
              f"(warm, a memo hit: {warm * 1e3:.1f} ms); best {best.iteration_s:7.2f} s/iteration "
              f"({result.tflops_per_gpu:.0f} TFLOP/s per GPU): "
              + " ".join(f"{k}={v}" for k, v in best.strategy.items()))

    cold_searches(report)
    print(f"all fabrics: {total['points']} points in {total['seconds']:.3f} s cold (each the best of {REPEATS}; "
          f"{total['seconds'] / reference:.3f}× the reference) → {total['points'] / total['seconds']:.0f} points/s "
          f"(one core)")
    cnn_searches(reference)


CNN_FABRICS = ("sip-ring", "dgx-a100")  # SiP-Ring runs a job three ways (its allocations), a DGX one


def cnn_searches(reference: float) -> None:
    """ResNet-50 on 1,024 GPUs at its default batch, per fabric: the first search of FRESH fresh processes (their
    median) and the best of REPEATS cold searches in this one, each with its time per candidate (its data ×
    model-parallel splits; target ≤ 0.1 ms each)."""
    for name in CNN_FABRICS:
        first, count = _fresh("--first-cnn", name)[FRESH // 2]
        times = []
        for _ in range(REPEATS):
            speedup._search.cache_clear()
            seconds, count = _cnn_search(name)
            times.append(seconds)
        wall = min(times)
        print(f"resnet-50 on {name}: {count} candidates; first search of a fresh process {first * 1e3:.1f} ms "
              f"(median of {FRESH}; {first / reference:.4f}× the reference) → {first / count * 1e3:.2f} ms per "
              f"candidate; cold in this process {wall * 1e3:.1f} ms (best of {REPEATS}) → "
              f"{wall / count * 1e3:.2f} ms per candidate")


def first_cnn_search(name: str) -> tuple[float, int]:
    """(seconds, candidates) of the first ResNet-50 search of a process started as `sipml` starts."""
    as_a_command()  # as a `sipml` command starts (sipml.cli.main)
    return _cnn_search(name)


def _cnn_search(name: str) -> tuple[float, int]:
    """(seconds, candidates) of ResNet-50's search on the built-in design `name`, its model, design, fabric and
    catalog read first (not timed)."""
    model, catalog, design = load_model("resnet-50"), load_catalog(), load_design(name)
    est = evaluate_fabric(design)
    batch, _ = speedup.default_batch(model, est.job_gpus)
    t0 = time.perf_counter()
    result = evaluate_model(model, design, name, batch, estimate=est, catalog=catalog)
    return time.perf_counter() - t0, result.candidates


def compare(other: str, rounds: int) -> None:
    """This tree against `other`, each in a fresh process in turn, `rounds` times: each fabric's minima."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    best: dict[str, dict[str, float]] = {here: {}, other: {}}
    candidates = {}
    for _ in range(rounds):
        for root in (other, here):
            env = {"NUMPY_MADVISE_HUGEPAGE": "0", **os.environ, "PYTHONPATH": root}  # both trees on small pages
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--json"], cwd=root, env=env,
                                 capture_output=True, text=True, check=True).stdout
            for name, (seconds, count) in json.loads(out.splitlines()[-1]).items():
                best[root][name] = min(best[root].get(name, seconds), seconds)
                candidates[name] = count
    print(f"best cold search over {rounds} fresh processes of each tree, run in turn (ms): {other} | this tree")
    for name in FABRICS:
        print(f"{name:11s} {best[other][name] * 1e3:7.1f} | {best[here][name] * 1e3:7.1f}  "
              f"({best[here][name] / best[other][name]:.3f}×)")
    theirs, ours = sum(best[other].values()), sum(best[here].values())
    print(f"all fabrics {theirs * 1e3:7.1f} | {ours * 1e3:7.1f}  ({ours / theirs:.3f}×) → "
          f"{sum(candidates.values()) / ours:.0f} points/s in this tree")


if __name__ == "__main__":
    main()
