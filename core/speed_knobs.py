"""How the calculator cuts its work into pieces: the sizes of its blocks, rounds and parts.

None of these changes a number the calculator reports, only how fast it gets there and how much memory it holds:
a link's wavelength-count tables give the entry for n channels whatever the table's length, a strategy search's
rounds stop only where nothing left can be among the fastest, and a pricing's distinct columns are the columns
priced alone (tests/test_speed_knobs.py turns every knob both ways and compares bit for bit). That holds within
these bounds: every size at least 1; `first_search_wavelengths` at most the count search's end
(photonics.ring_wdm.MAX_SEARCH_WAVELENGTHS, 4096: beyond it the first tables would pass the end); growths of 1.05
or more (each round of the count search is a call deeper than the last). Each value was measured on the project's
2-core machines, shared and drifting (2025–26): on another machine other values may be faster, never different in
what they find. Read them as `speed_knobs.KNOBS.<name>` (the module's attribute), so that a record replaced there
(`KNOBS._replace(...)`) reaches every layer. A named tuple: the record is read by `sipml budget` at start-up, where a
dataclass costs four times as long to declare.
"""

from __future__ import annotations

from typing import NamedTuple


class SpeedKnobs(NamedTuple):
    # --- the link budget's wavelength-count search (photonics.ring_wdm) -------------------------------------------
    # the first tables' counts [assumed: most budgets close at fewer; the few points that close at more go on alone,
    # so a first round this short costs them little]
    first_search_wavelengths: int = 16
    # the second round's tables over the first's [measured: a table of m counts costs ~m² (the worst victim), and of
    # the points of a spacing × filter-Q grid that close at 16, 95 % close below 24]
    first_search_growth: float = 1.5
    # each later round's over the last's [measured: the points still going on may close far beyond, up to the
    # search's end, whose table is fixed; the rounds before it cost 1/(g² − 1) of it, 1/3 at g = 2 and 1 at g = √2,
    # which was 1.5–2× slower on a grid searching to the end]
    search_growth: float = 2.0
    # design points per block of the count tables: their temporaries stay in the CPU's cache [measured on the
    # 2^20-point spacing × filter-Q grid, 2026-12: 2 048 to 16 384 alike within the machine's drift (1.1–1.5 s),
    # 512 1.9 s, 32 768 1.6 s]
    points_per_block: int = 2048
    # count-table elements (points × counts) in one piece of a grid: bounds the memory (64 MiB of float64)
    table_elements: int = 1 << 23

    # --- pricing collectives (fabric.kind.MixPricing) -------------------------------------------------------------
    # figures in a pricing below which its distinct columns are not sought (the search for them costs more)
    distinct_from: int = 8192
    # points of a pricing below which its distinct columns are not sought [measured on GPT-3 175B, 1 024 GPUs:
    # SiP-Ring's three allocations searched together take 61 ms with the sort, 42 without; sweeps of 4 points gain
    # or lose nothing, of 8 points the sort saves 20–33 %, of 256 points 30 %]
    distinct_points: int = 4

    # --- timing GEMMs (workloads.gemm) ------------------------------------------------------------------------------
    # GEMMs in one call from which each distinct shape is timed once [assumed: below it the sort costs about what it
    # saves; a plan's calls have one GEMM per distinct strategy row, thousands]
    gemm_distinct_from: int = 256

    # --- the strategy search (workloads.speedup) ------------------------------------------------------------------
    # strategies priced in the first round of a bounded search (each round doubles it)
    first_priced: int = 512
    # … of a search of at most `few_points` points (one design's ways to run a job): its floor
    # (`workloads.training.transformer_floor`) leaves 6–150 strategies to price at one point, a few hundred over
    # SiP-Ring's ways [measured on GPT-3 175B, Mixtral 8x7B and Megatron 7.5B on five fabrics: 128–512 alike,
    # 1 024 5–8 % slower, 2 048 10–16 %]
    first_priced_few: int = 256
    few_points: int = 3
    # points of a batched view searched together, so that its arrays stay small [measured on a 10 000-point
    # gpt2-355m sweep with 3 550 feasible points: all at once 52 s, 64 at a time 33 s, 256 at a time 29 s]
    points_per_search: int = 256

    # --- sweeps (sipml.sweep_run) -------------------------------------------------------------------------------
    # points per task of a per-point sweep: the grid's cut into tasks never depends on where they run
    points_per_task: int = 64
    # sub-grids a sweep sends to a Dask cluster [assumed: enough to keep a few workers busy, few enough that each
    # task's fixed cost (imports warm, the grid's link and fabric floors) stays small against its points]
    dask_tasks: int = 16


KNOBS = SpeedKnobs()
