"""Benchmark: `sipml sweep` on both its paths: point by point (every point loaded through the design rules and
evaluated in full: link budget with ledger, penalties and limits; fabric; cost; with a model, the strategy search and
speedup) and the whole grid at once (`sipml.sweep_grid_columns`: the link kernel, the fabric's floor over arrays and, with a
model, the batched strategy search: the rows the per-point path writes).

Run:  python bench/bench_sweep.py
Prints points per second for fixed grids on one process, each path (cold: nothing the searches keep), and the grid
path's gain (the CLI spreads the per-point path's chunks, and a model sweep's grid, over every core, or a Dask
cluster), then the wall time of a 10 000-point end-to-end sweep with training through the CLI. Not a test: the
figures are recorded, not asserted.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import announce, ratio

from sipml.design_files import ALL_SECTIONS
from sipml.sweep_grid_columns import link_table
from sipml.sweep_point_rows import Trained, evaluate_chunk
from sipml.sweep_run import grid_points, parse_axis

CASES = (
    ("link + fabric + cost, sip-ring", "sip-ring", ("link.wavelengths_per_fiber=1:40:40", "ring.radius=5 um:10 um:10"),
     None),
    ("link + fabric + cost, sip-ocs", "sip-ocs", ("link.data_rate=10 Gbit/s:40 Gbit/s:20", "loss.coupler=0.5 dB:3 dB:20"),
     None),
    ("… + gpt2-355m training, sip-ring", "sip-ring", ("link.data_rate=20 Gbit/s:30 Gbit/s:20",), "gpt2-355m"),
)


def main() -> None:
    announce()
    for label, design, vary, model in CASES:
        trained = None if model is None else Trained(model)
        axes = tuple(parse_axis(v, ALL_SECTIONS) for v in vary)
        points = tuple(grid_points(list(axes)))
        evaluate_chunk(design, (), axes, points[:1], trained)  # warm: imports, catalog, baseline
        start = time.perf_counter()
        rows = evaluate_chunk(design, (), axes, points, trained)
        seconds = time.perf_counter() - start
        errors = sum(1 for r in rows if r["error"])
        print(f"{label:34s} {len(points):5d} points in {seconds:6.2f} s → {len(points) / seconds:7.0f} points/s "
              f"per process {ratio(seconds)} ({errors} refused by the rules)")
        _forget()  # cold: the per-point run above searched these points' fabrics already
        start = time.perf_counter()
        table = link_table(design, (), axes, fabric=True, trained=trained)
        grid_s = time.perf_counter() - start
        print(f"{'  the whole grid at once':34s} {table.length:5d} points in {grid_s:6.3f} s → "
              f"{table.length / grid_s:7.0f} points/s {ratio(grid_s)}, {seconds / grid_s:.0f}× the per-point path")


def _forget() -> None:
    """Drop what the searches keep (their results and the fabric-free plans) and what the design reader keeps."""
    from sipml import design_files as design
    from workloads import speedup, strategy, training

    design._FOUND.clear()
    speedup._search.cache_clear()
    strategy._transformer_strategies.cache_clear()
    training._transformer_plan.cache_clear()


END_TO_END = ("sip-ring", "--model", "gpt2-355m", "--vary", "link.wavelengths_per_fiber=1:8:8",
              "--vary", "laser.power_per_line=1 mW:10 mW:25:log", "--vary", "loss.fiber_length=1 m:20 m:50")


def end_to_end() -> None:
    """A 10 000-point sweep physics → fabric → speedup through the CLI (every core), wall time."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sipml", "sweep", *END_TO_END, "--quiet", "-o", f"{folder}/e.csv"],
                       check=True, capture_output=True)
        seconds = time.perf_counter() - start
    print(f"sipml sweep {' '.join(END_TO_END)}: 10 000 points in {seconds:.1f} s wall {ratio(seconds)}")


if __name__ == "__main__":
    main()
    end_to_end()
