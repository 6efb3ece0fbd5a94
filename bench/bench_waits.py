"""Benchmark: the commands users wait for, each a fresh `sipml` process (cold: nothing cached), in CPU seconds over
a plain `sipml budget` measured in the same run (its start-up), and `sipml budget`'s wall and CPU times as ratios to
`python -c "import numpy"`.

Run:  python bench/bench_waits.py [--repeats N]
Prints, for each case, the median CPU seconds (user + system of the child) and its excess over a `sipml budget`
run just before it (the median of those pairs: the machine's drift between runs cancels in each).
Not a test: the figures are recorded, not asserted. One worker everywhere (`--workers 1`), so CPU seconds are the
work, whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio  # noqa: E402

SIPML = [sys.executable, "-m", "sipml"]
CASES = (
    ("2^16-point link-only sweep, every point its own spectrum, to Parquet",
     ["sweep", "--link-only", "--vary", "link.channel_spacing=50 GHz:400 GHz:256",
      "--vary", "ring.filter_q=3000:30000:256", "-o", "{tmp}/grid.parquet"]),
    ("speedup sip-ring -m gpt3-175b", ["speedup", "sip-ring", "-m", "gpt3-175b"]),
    ("1 000-point sweep --model gpt2-355m (data rate × GPU count)",
     ["sweep", "--model", "gpt2-355m", "--vary", "link.data_rate=10 Gbit/s:50 Gbit/s:40",
      "--vary", "fabric.gpus=" + ",".join(str(64 * k) for k in range(1, 26)), "-o", "{tmp}/model.csv"]),
    ("10 000-point link + fabric + cost sweep",
     ["sweep", "--vary", "link.wavelengths_per_fiber=1:40:40", "--vary", "ring.radius=5 um:10 um:25",
      "--vary", "laser.power_per_line=2 mW:20 mW:10", "-o", "{tmp}/fabric.csv"]),
)


# The children write and read compiled bytecode, as an installed package does (an environment that turns it off
# would have every child compile the modules it imports afresh); each case runs once unmeasured first, so the cold
# runs are cold in what the calculator computes, not in Python's import cache.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_s(argv: list[str], tmp: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run([a.format(tmp=tmp) for a in argv], check=True, capture_output=True, env=CHILD_ENV)
    wall = time.perf_counter() - start
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), wall


def paired(argv, reference, tmp, repeats) -> dict:
    """Medians over `repeats` runs of `argv`, each right after a run of `reference`: its CPU and wall seconds, and
    its CPU seconds over, its CPU and wall seconds in ratio to, the run before it (the machine's drift between runs
    cancels in each pair)."""
    cpu_s(argv, tmp), cpu_s(reference, tmp)  # each compiles what it imports (see CHILD_ENV)
    pairs = []
    for _ in range(repeats):
        ref = cpu_s(reference, tmp)
        pairs.append((cpu_s(argv, tmp), ref))
    med = (lambda f: statistics.median(f(run, ref) for run, ref in pairs))
    return {"cpu": med(lambda r, _: r[0]), "wall": med(lambda r, _: r[1]), "ref_wall": med(lambda _, q: q[1]),
            "over": med(lambda r, q: r[0] - q[0]), "cpu_ratio": med(lambda r, q: r[0] / q[0]),
            "wall_ratio": med(lambda r, q: r[1] / q[1])}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    announce()
    budget = [*SIPML, "budget"]
    with tempfile.TemporaryDirectory() as tmp:
        start = paired(budget, [sys.executable, "-c", "import numpy"], tmp, 2 * repeats + 1)
        print(f"python -c 'import numpy': {start['ref_wall']:.3f} s wall; sipml budget: {start['wall']:.3f} s wall "
              f"({start['cpu']:.3f} s CPU) = {start['wall_ratio']:.2f}× import numpy in wall time, "
              f"{start['cpu_ratio']:.2f}× in CPU time (numpy's import leaves OpenBLAS threads spinning; a command "
              "runs one)")
        for label, argv in CASES:
            argv = [*SIPML, *argv] + (["--workers", "1", "--quiet"] if argv[0] == "sweep" else [])
            case = paired(argv, budget, tmp, repeats)
            print(f"{label}: {case['cpu']:.2f} s CPU ({case['wall']:.2f} s wall) = sipml budget + "
                  f"{case['over']:.2f} s ({case['cpu_ratio']:.2f}× sipml budget) {ratio(case['cpu'])}")


if __name__ == "__main__":
    main()
