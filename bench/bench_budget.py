"""Benchmark: the link-budget kernel over a vectorised grid of design points, and `sipml budget` wall time.

Run:  python bench/bench_budget.py
Prints points per second of the grid kernel on fixed grids of ≈ 1.05 million design points on one core, the wall
time of a 2^20-point `sipml sweep --link-only` to CSV, and the median wall time of `sipml budget` on the built-in
design. Not a test: the figures are recorded, not asserted.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio  # noqa: E402

from core.allocator import as_a_command  # noqa: E402

import numpy as np  # noqa: E402

from photonics.link_design import LinkDesign  # noqa: E402
from photonics.link_grid import evaluate_grid, product_grid  # noqa: E402
from photonics.resolve import resolve  # noqa: E402

GRIDS = {
    # the grid a sweep builds from its --vary axes: one array dimension per axis
    "power 32 × spacing 16 × count 64 × fiber 32": {
        ("laser", "power_per_line"): np.geomspace(0.5e-3, 20e-3, 32), ("link", "channel_spacing"): np.linspace(
            50e9, 400e9, 16), ("link", "wavelengths_per_fiber"): np.arange(1, 65), ("loss", "fiber_length"): np.linspace(
            1.0, 2e4, 32)},
    # the worst case for sharing: every point a spectral point of its own (count tables per point)
    "spacing 1024 × filter Q 1024": {
        ("link", "channel_spacing"): np.linspace(50e9, 400e9, 1024), ("ring", "filter_q"): np.linspace(3e3, 2e4, 1024)},
}


def bench_kernel(repeats: int = 5) -> None:
    """The full budget at every point (`photonics.link_grid.evaluate_grid`, the kernel `sipml sweep --link-only`
    runs): ledger, penalties, the wavelength-count search, every capacity limit, violations, energy."""
    as_a_command()  # as `sipml sweep --link-only` runs it (sipml.cli.main)
    base = resolve(LinkDesign())
    for label, axes in GRIDS.items():
        grid = product_grid(axes)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            result = evaluate_grid(base, grid)
            times.append(time.perf_counter() - t0)
        points = result.margin_db.size
        print(f"grid kernel, {label}: {points:,} points, first {times[0] * 1e3:.0f} ms {ratio(times[0])}, "
              f"best of {repeats} "
              f"{min(times) * 1e3:.0f} ms → {points / min(times) / 1e6:.2f} million points/s "
              f"(feasible share {np.mean(result.feasible):.3f})")


def bench_sweep_csv() -> None:
    """`sipml sweep --link-only` of 2^20 points written to CSV, wall time of the whole command."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        out = f"{folder}/sweep.csv"
        cmd = [sys.executable, "-m", "sipml", "sweep", "--link-only", "--quiet", "-o", out,
               "--vary", "laser.power_per_line=0.5 mW:20 mW:32:log", "--vary", "link.channel_spacing=50 GHz:400 GHz:16",
               "--vary", "link.wavelengths_per_fiber=1:64:64", "--vary", "loss.fiber_length=1 m:20000 m:32"]
        walls = []
        for _ in range(3):
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True)
            walls.append(time.perf_counter() - t0)
        size = os.path.getsize(out) / 1e6
    print(f"sipml sweep --link-only, 1,048,576 points to CSV ({size:.0f} MB): median wall "
          f"{statistics.median(walls):.2f} s over 3 runs (min {min(walls):.2f} s)")


def bench_cli(repeats: int = 7) -> float:
    """`sipml budget`'s wall time against `python -c "import numpy"`'s (the start-up floor of any numpy program),
    the two run in turn in fresh processes, bytecode compiled as an installed package runs."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands = {"sipml budget": [sys.executable, "-m", "sipml", "budget"],
                "import numpy": [sys.executable, "-c", "import numpy"]}
    for cmd in commands.values():  # warm the unit-registry cache, the bytecode and the OS file cache
        subprocess.run(cmd, capture_output=True, check=True, env=env)
    walls = {name: [] for name in commands}
    for _ in range(repeats):
        for name, cmd in commands.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True, env=env)
            walls[name].append(time.perf_counter() - t0)
    median, numpy_median = (statistics.median(walls[name]) for name in commands)
    budget = walls["sipml budget"]
    print(f"sipml budget (built-in design): median wall {median * 1e3:.0f} ms over {repeats} runs "
          f"(min {min(budget) * 1e3:.0f} ms, max {max(budget) * 1e3:.0f} ms) {ratio(median)}; "
          f"{median / numpy_median:.2f}× `import numpy` ({numpy_median * 1e3:.0f} ms, run in turn; target ≤ 2×)")
    return median


if __name__ == "__main__":
    announce()
    bench_kernel()
    bench_sweep_csv()
    bench_cli()
