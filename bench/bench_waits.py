"""Benchmark: the commands users wait for, each a fresh `sipml` process (cold: nothing cached), in CPU seconds over
a plain `sipml budget` measured in the same run (its start-up), and `sipml budget`'s wall time as a ratio to
`python -c "import numpy"`.

Run:  python bench/bench_waits.py [--repeats N]
Prints, for each case, the median CPU seconds (user + system of the child) and the excess over `sipml budget`.
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


def median(argv, tmp, repeats) -> tuple[float, float]:
    cpu_s(argv, tmp)  # compiles what it imports (see CHILD_ENV)
    runs = [cpu_s(argv, tmp) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    announce()
    with tempfile.TemporaryDirectory() as tmp:
        numpy_cpu, numpy_wall = median([sys.executable, "-c", "import numpy"], tmp, 2 * repeats + 1)
        budget_cpu, budget_wall = median([*SIPML, "budget"], tmp, 2 * repeats + 1)
        print(f"python -c 'import numpy': {numpy_wall:.3f} s wall; sipml budget: {budget_wall:.3f} s wall "
              f"({budget_cpu:.3f} s CPU) = {budget_wall / numpy_wall:.2f}× import numpy")
        for label, argv in CASES:
            argv = [*SIPML, *argv] + (["--workers", "1", "--quiet"] if argv[0] == "sweep" else [])
            cpu, wall = median(argv, tmp, repeats)
            print(f"{label}: {cpu:.2f} s CPU ({wall:.2f} s wall) = sipml budget + {cpu - budget_cpu:.2f} s "
                  f"({cpu / budget_cpu:.2f}× sipml budget) {ratio(cpu)}")


if __name__ == "__main__":
    main()
