"""Each faster path gives exactly the numbers of the plain one it replaces, on random inputs: the count tables and
the closed-count search in blocks of design points against one point at a time, the strategy enumeration against
filtering the whole itertools.product, Parquet columns built from buffers against pyarrow's own conversion, a
sweep's shared link estimates and its whole-grid link, fabric, cost and training columns against each point
evaluated alone, and the strategy searches (bounded, batched over points) against pricing every strategy."""

import dataclasses
import io
import itertools
import math

import numpy as np
import pytest

from core import speed_knobs
from photonics import ring_wdm


def _turn(monkeypatch, **knobs):
    """The speed knobs (core.speed_knobs) with `knobs` turned, for the test."""
    monkeypatch.setattr(speed_knobs, "KNOBS", speed_knobs.KNOBS._replace(**knobs))


def spectra(rng, points):
    """Random spectral points: spacing, modulator FWHM and t0, filter FWHM and t0, excess loss, FSR, symbol rate."""
    return (rng.uniform(20e9, 400e9, points), rng.uniform(5e9, 80e9, points), rng.uniform(0, 0.3, points),
            rng.uniform(5e9, 80e9, points), rng.uniform(0, 0.3, points), rng.uniform(0, 0.05, points),
            rng.uniform(0.5e12, 5e12, points), rng.uniform(10e9, 60e9, points))


def test_blocked_count_tables_equal_each_point_alone():
    rng = np.random.default_rng(7)
    points = speed_knobs.KNOBS.points_per_block * 2 + 37  # three blocks, the last one short
    spectral = spectra(rng, points)
    blocked = ring_wdm._tables(24, 30, *spectral)
    for i in rng.choice(points, 60, replace=False):
        alone = ring_wdm._tables(24, 30, *(float(a[i]) for a in spectral))
        for table, one in zip(blocked, alone):
            assert np.array_equal(table[i], one)


@pytest.mark.parametrize("block", [2048, 50], ids=["blocks of whole rows", "points flattened"])  # rows of 60
def test_each_count_table_spans_its_own_inputs_and_equals_each_point_alone(monkeypatch, block):
    # a product grid: the spacing along the first axis, the drop filter along the second; the transmit rings' table
    # does not depend on the drop filter, so it has one row per spacing
    _turn(monkeypatch, points_per_block=block)
    rng = np.random.default_rng(11)
    spacing, mod_fwhm, mod_t0, fwhm, t0, excess, fsr, rate = spectra(rng, 3000)
    grid = (spacing[:70, None], mod_fwhm[0], mod_t0[0], fwhm[None, :60], t0[None, :60], excess[0], fsr[0], rate[0])
    tx, rx, leak = ring_wdm._tables(20, 26, *grid)
    assert tx.shape == (70, 1, 20) and rx.shape == (70, 60, 20) and leak.shape == (70, 60, 26)
    for i, j in zip(rng.integers(0, 70, 40), rng.integers(0, 60, 40)):
        point = [float(np.broadcast_to(a, (70, 60))[i, j]) for a in grid]
        for table, one in zip((tx[i, 0], rx[i, j], leak[i, j]), ring_wdm._tables(20, 26, *point)):
            assert np.array_equal(table, one)


def test_blocked_closed_counts_equal_one_pass(monkeypatch):
    from photonics.link import link_arrays
    from photonics.resolve import resolve
    from sipml.design_files import load_design

    design = resolve(load_design("sip-ring").link)
    rng = np.random.default_rng(3)
    points = speed_knobs.KNOBS.points_per_block + 500
    varied = {"link": {"channel_spacing": rng.uniform(50e9, 400e9, points)},
              "laser": {"power_per_line": 10 ** (rng.uniform(-3, 13, points) / 10) * 1e-3}}  # −3 … 13 dBm
    blocked = link_arrays(design, varied, points)
    _turn(monkeypatch, points_per_block=10 ** 9)  # one pass over every point
    whole = link_arrays(design, varied, points)
    assert np.array_equal(blocked.budget.count, whole.budget.count)
    assert np.array_equal(blocked.budget.margin, whole.budget.margin)
    assert len(np.unique(blocked.budget.count)) > 5  # the points close at many different counts (0: none)


@pytest.mark.parametrize("block", [100, 7], ids=["blocks of whole rows", "points flattened"])  # rows of 30
def test_blocked_closed_counts_over_a_product_grid_equal_one_pass(monkeypatch, block):
    from photonics.link import link_arrays
    from photonics.resolve import resolve
    from sipml.design_files import load_design

    design = resolve(load_design("sip-ring").link)
    varied = {"link": {"channel_spacing": np.linspace(50e9, 400e9, 40)[:, None]},
              "laser": {"power_per_line": 10 ** (np.linspace(-3, 13, 30)[None, :] / 10) * 1e-3}}  # −3 … 13 dBm
    _turn(monkeypatch, points_per_block=block)
    blocked = link_arrays(design, varied, 1200)
    _turn(monkeypatch, points_per_block=10 ** 9)
    whole = link_arrays(design, varied, 1200)
    assert blocked.budget.count.shape == (40, 30) and np.array_equal(blocked.budget.count, whole.budget.count)
    assert np.array_equal(blocked.budget.margin, whole.budget.margin)
    assert len(np.unique(blocked.budget.count)) > 5


@pytest.mark.parametrize("grid", [False, True], ids=["points", "product grid"])
@pytest.mark.parametrize("modulator, laser", [("add-drop", "comb"), ("all-pass", "comb"), ("add-drop", "dfb")])
def test_the_count_search_finds_what_tables_to_its_end_find(monkeypatch, modulator, laser, grid):
    """Tables of every count to the search's end in one round (the largest count that closes, whatever the margins
    do between) against the search's short first round with the points that close at its end going on alone,
    there and from 2 counts (eight rounds), a few points at a time: the same counts and figures, at points that
    close anywhere from 0 to over 64 wavelengths (four rounds or more of the search)."""
    from photonics.link_grid import evaluate_grid
    from photonics.resolve import resolve
    from sipml.design_files import load_design

    link = load_design("sip-ring").link
    design = resolve(dataclasses.replace(link, modulator=dataclasses.replace(link.modulator, kind=modulator),
                                         laser=dataclasses.replace(link.laser, kind=laser)))
    rng = np.random.default_rng(5)
    points = 300
    if grid:  # a product grid: the later rounds read the tables of fewer values than points at the points
        varied = {"link": {"channel_spacing": np.linspace(20e9, 400e9, 12)[:, None, None, None],
                           "data_rate": np.array([5e9, 12e9, 50e9])[None, :, None, None]},
                  "ring": {"filter_q": np.linspace(2e3, 4e4, 9)[None, None, :, None], "radius": 3e-6},
                  "laser": {"power_per_line": 10 ** (np.linspace(-3, 8, 4) / 10)[None, None, None, :] * 1e-3,
                            "aggregate_power_limit": 2.0}}
    else:  # every point its own spectrum: the later rounds tabulate point by point
        varied = {"link": {"channel_spacing": rng.uniform(20e9, 400e9, points),
                           "data_rate": rng.uniform(5e9, 50e9, points)},
                  "ring": {"filter_q": rng.uniform(2e3, 4e4, points), "radius": rng.uniform(3e-6, 2e-5, points)},
                  "laser": {"power_per_line": 10 ** (rng.uniform(-3, 16, points) / 10) * 1e-3,  # −3 … 16 dBm
                            "aggregate_power_limit": rng.uniform(0.05, 2.0, points)}}
    monkeypatch.setattr(ring_wdm, "MAX_SEARCH_WAVELENGTHS", 256)  # the end: no point closes there
    searched = evaluate_grid(design, varied)
    _turn(monkeypatch, first_search_wavelengths=256)
    whole = evaluate_grid(design, varied)
    _turn(monkeypatch, first_search_wavelengths=2, table_elements=1 << 12)  # the grid in pieces, a few points at a time
    rounds = evaluate_grid(design, varied)
    for figure in ("power_budget_count", "margin_db", "min_laser_power_per_line_dbm", "capacity_bps", "violations"):
        nan = figure == "min_laser_power_per_line_dbm"  # NaN where the aggregate cap binds (issue 41)
        assert np.array_equal(getattr(searched, figure), getattr(whole, figure), equal_nan=nan), figure
        assert np.array_equal(getattr(rounds, figure), getattr(whole, figure), equal_nan=nan), figure
    counts = whole.power_budget_count
    assert counts.min() == 0 and 64 < counts.max() < 256 and len(np.unique(counts)) > 20


class _WholeProduct:
    """The strategy enumeration's product built whole by itertools.product before any rule is applied (the
    reference for `workloads.strategy._Product`, which drops the rows the rules refuse before each key comes in)."""

    def __init__(self, options, derive):
        self.options, self.derive, self.cols = options, derive, None

    def extend(self, *keys):
        if self.cols is None:
            rows = np.array(list(itertools.product(*self.options.values())), dtype=np.int64)
            self.cols = {key: rows[:, k] for k, key in enumerate(self.options)}
            for key in self.options:
                if key in self.derive:
                    self.cols.update(self.derive[key](self.cols))

    def keep(self, rows):
        if not rows.any():
            return False
        self.cols = {name: col[rows] for name, col in self.cols.items()}
        return True

    def rows(self):
        return self.cols


@pytest.mark.parametrize("case", [("gpt3-175b", 1024, 1536, "megatron-core", ()),
                                  ("gpt2-355m", 704, 1024, "megatron-core", ()),  # no strategy: the same reason
                                  ("mixtral-8x7b", 256, 1024, "megatron-core", (("zero", 1),)),
                                  ("llama3-405b", 2048, 2048, "megatron-core", (("recompute", 2),)),
                                  ("megatron-7.5b", 96, 512, "megatron-2021", (("dp", 8),)),
                                  ("bert-large", 64, 1024, "pytorch-fsdp", ()),
                                  ("gpt2-355m", 64, 1024, "megatron-core", (("recompute", 2), ("recompute_layers", 5)))])
def test_the_strategy_enumeration_equals_filtering_the_whole_product(monkeypatch, case):
    """Strategies come out in itertools.product's order (the last key fastest), each rule dropping rows as soon as
    its keys are in: the same strategies, in the same order, and the same reason when none is left, as building
    the whole product first and applying the rules to it."""
    from workloads import strategy
    from workloads.models import load_model
    from workloads.stacks import get_stack

    name, gpus, batch, stack, fixed = case
    args = (load_model(name), gpus, batch, fixed, get_stack(stack))
    got = strategy._transformer_strategies.__wrapped__(*args)
    monkeypatch.setattr(strategy, "_Product", _WholeProduct)
    want = strategy._transformer_strategies.__wrapped__(*args)
    if isinstance(want, str):
        assert got == want
        return
    for f in dataclasses.fields(want):
        assert np.array_equal(getattr(got, f.name), getattr(want, f.name)), f.name
        assert getattr(got, f.name).dtype == getattr(want, f.name).dtype
    assert len(want) > 10


def test_parquet_columns_from_buffers_equal_pyarrows_conversion():
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from sipml.rows import Table, to_parquet

    rng = np.random.default_rng(11)
    rows = []
    for i in range(500):
        row = {"x [W]": float(rng.normal()), "n": int(rng.integers(-5, 5)), "ok": bool(rng.integers(2)),
               "why": str(rng.choice(["", "power_budget", "fsr_channels;µ"])), "error": ""}
        if i % 7 == 0:
            row["x [W]"] = math.nan
        if i % 11 == 0:
            row["sometimes"] = float(i) if i % 22 else math.nan
        if i % 5 == 0:
            row["note"] = str(rng.choice(["", "a", "ünïcode", "a;b"]))
        if i % 13 == 0:
            row["label"] = None
        rows.append(row)
    table = Table.from_rows(rows)
    got = pq.read_table(io.BytesIO(to_parquet(table)))
    want = pa.table({name: pa.array([None if isinstance(v, float) and math.isnan(v) else v
                                     for v in table.column(name)]) for name in table.names})
    assert got.equals(want)


def test_a_sweep_s_shared_link_equals_each_point_alone():
    """Points that differ off the link (GPU count) take one link estimate; each row equals its point evaluated
    alone."""
    from sipml.design_files import ALL_SECTIONS, load_design
    from sipml.sweep_point_rows import evaluate_chunk
    from sipml.sweep_run import grid_points, parse_axis
    from workloads.evaluation import Evaluation

    axes = tuple(parse_axis(v, ALL_SECTIONS) for v in ("fabric.gpus=64,256,1024", "link.data_rate=20 Gbit/s,25 Gbit/s"))
    rows = evaluate_chunk(None, (), axes, tuple(grid_points(list(axes))), None)
    for row in rows:
        alone = Evaluation(load_design(None, [f"fabric.gpus={row['fabric.gpus']}",
                                              f"link.data_rate={row['link.data_rate [bit/s]']} bit/s"]))
        assert row["margin_db [dB]"] == alone.link.margin_db
        assert row["network_cost_usd_per_gpu [USD]"] == alone.cost.network_cost_per_gpu_usd.typical
        assert row["optical_reach [hops]"] == alone.fabric.reach_hops


def _same(x, y) -> bool:
    return type(x) is type(y) and (x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)))


def _same_record(a, b) -> bool:
    """Two records of a search's fastest over points (`workloads.speedup._as_arrays`: arrays, and reasons) equal,
    NaN for NaN."""
    (x, why_x), (y, why_y) = a, b
    same = (lambda u, v: np.array_equal(u, v, equal_nan=True))
    return (why_x.tolist() == why_y.tolist() and x.top[0].breakdown.keys() == y.top[0].breakdown.keys()
            and all(same(x.top[0].breakdown[k], y.top[0].breakdown[k]) for k in x.top[0].breakdown)
            and all(same(getattr(x, f), getattr(y, f)) for f in ("candidates", "feasible", "hardware_flops",
                                                                 "model_flops"))
            and same(x.top[0].iteration_s, y.top[0].iteration_s) and same(x.top[0].memory_bytes, y.top[0].memory_bytes))


@pytest.mark.parametrize("seed", range(14))
def test_the_fabric_floor_over_a_grid_equals_each_point_alone(seed):
    """A sweep's link, fabric and cost columns over a whole grid at once (SiP-Ring's and SiP-OCS's floors over arrays
    of their link, one grid per value of a name or fabric axis) equal, bit for bit and type for type, the rows of the
    per-point path, on random designs: amplified or not, add-drop or all-pass, points the fabric refuses (fibers
    that do not split over the directions or the switches) included."""
    from sipml.design_files import ALL_SECTIONS
    from sipml.rows import Table
    from sipml.sweep_grid_columns import link_table
    from sipml.sweep_point_rows import evaluate_chunk
    from sipml.sweep_run import grid_points, parse_axis

    rng = np.random.default_rng(seed)
    pool = ["link.wavelengths_per_fiber=1:40:5", "ring.radius=5 um:12 um:3", "laser.power_per_line=1 mW:30 mW:4",
            "link.channel_spacing=50 GHz:400 GHz:4", "ring.filter_q=3000:30000:3", "link.fibers_per_direction=1:12:4",
            "loss.fiber_length=1 m:300 m:3", "modulator.extinction_ratio=3 dB:9 dB:3", "link.data_rate=10 Gbit/s:50 "
            "Gbit/s:3", "loss.coupler=0.5 dB:3 dB:3", "fabric.gpus=16,64,1024", "sip_ring.locality=2,8,32",
            "sip_ring.directions=1,2"]
    design = "sip-ocs" if seed % 3 == 2 else None  # None: the default SiP-Ring
    if design is None:
        pool = [*pool, "fabric.kind=sip-ring,sip-ocs"]
        settings = ["sip_ring.amplifier_every=0", "sip_ring.amplifier_every=2", 'modulator.kind="all-pass"',
                    "sip_ring.locality=4", "fabric.gpus=64",
                    'sip_ring.amplifier_gain="12 dB"']
    else:
        pool = [p for p in pool if not p.startswith("sip_ring.")] + ['sip_ocs.topology="single","clos"']
        settings = ['sip_ocs.topology="partitioned"', "fabric.job_gpus=64", 'sip_ocs.shots="multi"', "fabric.gpus=256"]
    vary = tuple(parse_axis(v, ALL_SECTIONS) for v in rng.choice(pool, 2 + seed % 2, replace=False))
    overrides = tuple(rng.choice(settings, 2, replace=False))
    fast = link_table(design, overrides, vary, fabric=True)
    slow = Table.from_rows(evaluate_chunk(design, overrides, vary, tuple(grid_points(list(vary))), None))
    assert fast.names == slow.names
    assert "fabric_violations" in fast.names and fast.length == slow.length > 1
    for name in fast.names:
        for i, (x, y) in enumerate(zip(fast.column(name), slow.column(name))):
            assert _same(x, y), (overrides, [a.column for a in vary], name, i, x, y)


def test_a_fabric_without_a_floor_over_a_grid_goes_point_by_point():
    from sipml.design_files import ALL_SECTIONS
    from sipml.sweep_grid_columns import link_table
    from sipml.sweep_run import parse_axis, run_sweep

    axes = (parse_axis("link.wavelengths_per_fiber=2,4", ALL_SECTIONS),)
    assert link_table("dgx-h100", (), axes, fabric=True) is None  # no optical link: every point alone
    _, table = run_sweep("dgx-h100", (), ["fabric.gpus=64,128"])
    assert table.length == 2 and "cluster_cost_usd [USD]" in table.names


@pytest.mark.parametrize("case", [("gpt2-355m", "sip-ring", 256, 1024), ("gpt3-175b", "sip-ocs", 1024, 1536),
                                  ("megatron-7.5b", "dgx-a100", 256, 512), ("mixtral-8x7b", "fattree-200", 512, 1024),
                                  ("bert-large", "sip-ring", 64, 1024), ("llama3-405b", "dgx-h100", 2048, 2048),
                                  ("gpt2-355m", "sip-ring", 256, 1024, 1e4, 40)])
def test_the_bounded_search_equals_pricing_every_strategy(case, monkeypatch):
    """The branch-and-bound strategy search (rounds in the order of each strategy's floor on the fabric, small
    first rounds here so that there are many), on every way the fabric can run the job at
    once, finds the fastest way (the first of equals) and keeps for it exactly the candidates, times and phases of
    pricing every strategy on each way alone and sorting them. The last case's ring has 10⁴ times the capacity
    and keeps the 40 fastest, its first round 8: communication is nearly free, so the fastest way's next fastest
    have bounds above its fastest (the other ways stop there, it does not)."""
    from fabric.estimate import pricing_view
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import transformer_breakdown

    name, design, gpus, batch, *more = case
    model = load_model(name)
    d = load_design(design, [f"fabric.gpus={gpus}"] + ([] if "h100" in design else ["fabric.gpu=gpu.a100_sxm4_80gb"]))
    gpu = speedup.gpu_of(d)
    stack = speedup.stack_for(model)
    precision = speedup.precision_of(gpu, stack)
    est = speedup.evaluate_fabric(d)
    top = 5 if not more else more[1]
    if more:
        details = dataclasses.replace(est.details, segment_capacity_bps=est.details.segment_capacity_bps * more[0])
        est = dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * more[0], details=details)
    views = tuple(pricing_view(option) for option in get_kind(est.kind).alternatives(est))
    _turn(monkeypatch, first_priced_few=8 if more else 64)
    speedup._search.cache_clear()
    job = speedup.SearchJob(model, gpu, batch, (), stack, precision)
    way, found = speedup._search(job, views, top, None)  # the ways at once
    every = []  # each way's strategies, breakdown and fastest, priced whole
    for view in views:
        st = transformer_strategies(model, view.job_gpus, batch, {}, stack)
        br = transformer_breakdown(model, gpu, view, batch, st, compute=stack.compute_for(gpu),
                                   training=stack.training, precision=precision)
        t = br.iteration_s
        ok = br.fits & np.isfinite(t)
        every.append((st, br, t, np.flatnonzero(ok)[np.argsort(t[ok], kind="stable")][:top]))
    assert way == min(range(len(views)), key=lambda k: every[k][2][every[k][3][0]])
    st, br, t, order = every[way]
    assert [c.strategy for c in found.top] == [st.row(int(i)) for i in order]
    assert [c.iteration_s for c in found.top] == [float(t[i]) for i in order]
    assert [c.breakdown for c in found.top] == [br.phases(int(i)) for i in order]
    assert found.model_flops == float(br.model_flops[order[0]])
    assert found.hardware_flops == float(br.hardware_flops[order[0]])
    assert found.candidates == len(st) and found.feasible == int(br.fits.sum())


def _long_context(name: str):
    """A zoo model with 32 768-token sequences: strategies with context parallelism."""
    from workloads.models import load_model

    return dataclasses.replace(load_model(name), seq_len=32768)


def _planned(name: str, design: str, gpus: int) -> tuple:
    """(fabric estimate, its kind, the model's stack, the plan of every strategy) of the model `name` (a `-long`
    suffix: `_long_context`) on the built-in `design` at `gpus` GPUs and the model's default batch."""
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup, training
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies

    model = _long_context("llama3-405b") if name.endswith("-long") else load_model(name)
    d = load_design(design, [f"fabric.gpus={gpus}"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    batch = speedup.default_batch(model, gpus)[0]
    est = speedup.evaluate_fabric(d)
    st = transformer_strategies(model, est.job_gpus, batch, {}, stack)
    plan = training.transformer_plan(model, gpu, batch, st, compute=stack.compute_for(gpu), training=stack.training,
                                     precision=speedup.precision_of(gpu, stack))
    return est, get_kind(est.kind), stack, plan


@pytest.mark.parametrize("name, design, gpus", [("mixtral-8x7b", "sip-ring", 256), ("mixtral-8x7b", "sip-ocs", 256),
                                                ("gpt2-355m", "fattree-200", 64), ("mixtral-8x7b", "dgx-h100", 256),
                                                ("llama3-405b-long", "dgx-h100", 1024),
                                                ("llama3-405b-long", "sip-ring", 1024), ("bert-large", "ideal", 64)])
def test_a_search_s_floor_is_below_every_strategy_s_iteration_at_every_point(name, design, gpus):
    """The floor a search prices in the order of (`workloads.training.transformer_floor`: the model-parallel
    collectives alone on the fabric, the data-parallel ones free) is at or below every strategy's iteration on
    every way the fabric runs the job and at every point of a batch whose capacities are far apart (a dead one
    among them), and above the iteration with free communication for most strategies. Where the collectives are
    priced alone in the iteration too (packet-switched fabrics), it is the iteration with the data-parallel
    collectives free, bit for bit: the distinct keys it prices once per miss none of what they depend on."""
    from fabric.estimate import over_points
    from workloads import training

    est, kind, stack, plan = _planned(name, design, gpus)
    assert not name.endswith("-long") or np.any(plan.strategies.cp > 1)
    views = list(kind.alternatives(est))
    capacity = {"sip-ring": "segment_capacity_bps", "sip-ocs": "port_bps"}.get(design)
    if capacity:
        scale = np.array([0.0, 0.02, 0.4, 1.0, 30.0])
        details = dataclasses.replace(est.details, **{capacity: getattr(est.details, capacity) * scale})
        views.append(over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                                     details=details), (5,)))
    free = training.transformer_bound(plan, stack.training).iteration_s
    for view in views:
        floor = training.transformer_floor(plan, stack.training, view).iteration_s
        with np.errstate(invalid="ignore"):
            iteration = training.plan_breakdown(plan, stack.training, view).iteration_s
        iteration = np.where(np.isfinite(iteration), iteration, np.inf)  # as a search reads it
        assert floor.shape == free.shape and np.all(floor >= free)
        assert np.all(floor <= iteration) and np.mean(floor > free) > 0.5
        if not kind.static:
            times = training._collective_times(plan, view)
            times.update((key, 0.0) for key in training.COLLECTIVE_TIMES if key not in training.MODEL_PARALLEL)
            assert np.array_equal(floor, training._iteration(plan, stack.training, times).iteration_s)


# the capacity each kind's pricer reads (a field of the estimate's details, or of the estimate)
CAPACITY = {"electrical": "nic_bps", "ideal": None, "ocs-torus": "link_bps", "sip-ring": "segment_capacity_bps",
            "sip-ocs": "port_bps"}


def _points_apart(view, scale):
    """`view` as a batch of len(scale) points whose capacity (`CAPACITY`) is the view's times each scale."""
    from fabric.estimate import over_points

    field = CAPACITY[view.kind]
    if field is None:
        view = dataclasses.replace(view, per_gpu_bandwidth_bps=view.per_gpu_bandwidth_bps * scale)
    else:
        view = dataclasses.replace(view, details=dataclasses.replace(view.details, **{
            field: getattr(view.details, field) * scale}))
    return over_points(view, scale.shape)


@pytest.mark.parametrize("name, design, gpus", [
    ("gpt2-355m", "fattree-200", 64), ("mixtral-8x7b", "dgx-h100", 256), ("llama3-405b-long", "dgx-h100", 1024),
    ("bert-large", "ideal", 64), ("megatron-7.5b", "ocs-torus-v4", 256), ("mixtral-8x7b", "sip-ring", 256),
    ("gpt2-355m", "sip-ocs", 64)])
def test_a_round_reads_the_floor_s_model_parallel_seconds_only_where_it_would_price_them_alone(name, design, gpus):
    """Where a fabric shares only among the collectives running, a search's rounds read the model-parallel
    collectives' seconds its floor priced alone (`workloads.training.StrategyFloor.at`) rather than price them
    again: at any rows of the plan, on each way the fabric runs the job, on the ways joined as a search joins them,
    and on each way as a batch of points whose capacities are far apart, at all of its points and at some, the
    numbers are the ones priced afresh, bit for bit (a point's array may keep the points' axis where pricing afresh
    drops it).
    Where a fabric is configured once per job (a share is the mix's, not the collective's own), or one of a joined
    view's points is, the floor hands none."""
    from fabric.estimate import take_points
    from workloads import speedup, training

    est, kind, stack, plan = _planned(name, design, gpus)
    ways = [speedup.pricing_view(o) for o in kind.alternatives(est)]
    retuned = [w for w in ways if not (kind.static if w.static is None else w.static)]  # re-tuned to what runs
    views = [*ways, speedup._one_batch(tuple(ways)), *(_points_apart(w, np.array([0.02, 1.0, 30.0])) for w in ways)]
    views += [speedup._one_batch(tuple(retuned))] if 1 < len(retuned) < len(ways) else []
    rows = np.random.default_rng(7).choice(len(plan.index), size=min(300, len(plan.index)), replace=False)
    rows.sort()
    handed = 0
    for view in views:
        floor = training.transformer_floor(plan, stack.training, view)
        static = kind.static if view.static is None else view.static
        assert (floor.alone is None) == bool(np.any(static))
        if floor.alone is None:
            continue
        handed += 1
        tensor = floor.alone["tensor"].values()
        assert tensor and all(np.shape(a)[-1] == len(plan.index) for a in tensor)
        count = speedup.points(view)
        for at in [None] + ([np.array([count - 1, 0])] if count else []):
            part = view if at is None else take_points(view, at)
            with np.errstate(invalid="ignore"):
                read = training.plan_breakdown(plan, stack.training, part, rows, floor.at(at, rows))
                priced = training.plan_breakdown(plan, stack.training, part, rows)
            for f in dataclasses.fields(priced):
                mine, fresh = np.broadcast_arrays(getattr(read, f.name), getattr(priced, f.name))
                assert np.array_equal(mine, fresh, equal_nan=True), f.name
    # every view of a packet-switched fabric; none of SiP-OCS's (circuits set once per job); SiP-Ring's periodic and
    # phased allocations alone, as batches and joined (re-tuned to what runs), not its static one nor the ways joined
    # with it
    assert handed == {"sip-ocs": 0, "sip-ring": 5}.get(design, len(views))


def test_a_plan_s_floor_parts_are_found_once_and_floor_every_fabric_as_found_afresh():
    """What a floor reads of a plan whatever the fabric (`TransformerPlan.floor_parts`) is found once per plan: the
    floor of a second fabric on a plan floored on a first equals, bit for bit, its floor on a plan never floored
    (its iteration and the seconds it hands to the rounds)."""
    from sipml.design_files import load_design
    from workloads import speedup, training

    est, kind, stack, plan = _planned("mixtral-8x7b", "sip-ring", 256)
    other = speedup.evaluate_fabric(load_design("dgx-h100", ["fabric.gpus=256"]))
    first = training.transformer_floor(plan, stack.training, est)
    parts = plan.floor_parts()
    reused = training.transformer_floor(plan, stack.training, other)
    assert plan.floor_parts() is parts and reused.alone is not None
    fresh = dataclasses.replace(plan, _floor_parts={})  # the same plan, never floored
    for floor, view in ((reused, other), (first, est)):
        again = training.transformer_floor(fresh, stack.training, view)
        assert np.array_equal(floor.iteration_s, again.iteration_s)
        assert (floor.alone is None) == (again.alone is None)
        for key, value in (floor.alone or {}).items():
            pairs = value.items() if key == "tensor" else [(key, value)]
            for op, seconds in pairs:
                theirs = again.alone[key][op] if key == "tensor" else again.alone[key]
                assert np.array_equal(seconds, theirs), (key, op)


def test_the_amplified_reach_by_bisection_equals_the_scan_of_every_amplifier_count():
    """`amplified_reach_hops` bisects over the amplifier count (Q falls with each amplifier); over a grid of launch
    powers and noise figures it finds, at every point, the largest count whose Q still meets the BER's, as pricing
    1 … N amplifiers one by one does."""
    from dataclasses import replace

    from fabric import sip_ring
    from photonics import amplifier, microring, receiver
    from photonics.link_grid import fabric_inputs
    from photonics.link import link_arrays
    from photonics.resolve import resolve
    from core.units import db_to_lin, dbm_to_w
    from sipml.design_files import load_design

    design = load_design("sip-ring", ["fabric.gpus=256"])
    rng = np.random.default_rng(5)
    powers = (10 ** (rng.uniform(0, 13, 40) / 10) * 1e-3)[:, None]  # 0 … 13 dBm per line
    for nf in (4.0, 7.0, 12.0):
        d = replace(design, topology=replace(design.topology, amplifier_noise_figure=nf))
        a = link_arrays(resolve(d.link), {"laser": {"power_per_line": powers}}, powers.size)
        inputs = fabric_inputs(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            reach, amplified = sip_ring.amplified_reach_hops(d, a.sections, inputs, 1)
        s, ring = a.sections, d.topology
        n = np.arange(1, d.fabric.gpus + 1)
        rx_dbm = inputs.launch_dbm - inputs.ledger_db
        osnr = amplifier.chain_osnr_db(inputs.launch_dbm - inputs.transmit_loss_db - inputs.pass_loss_db
                                       - ring.clamp_loss, nf, n, microring.frequency_hz(s["link"].wavelength),
                                       inputs.filter_fwhm_hz)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = amplifier.q_amplified(
                dbm_to_w(rx_dbm - inputs.penalty_after_er_db - inputs.system_margin_db),
                db_to_lin(s["modulator"].extinction_ratio), s["receiver"].responsivity,
                amplifier.thermal_sigma_a(inputs.sensitivity_w, inputs.reference_extinction_ratio,
                                          s["receiver"].responsivity, inputs.eye_q),
                amplifier.ase_psd_w_per_hz(dbm_to_w(rx_dbm), osnr, inputs.filter_fwhm_hz), inputs.filter_fwhm_hz,
                receiver.NOISE_BANDWIDTH_FRACTION * inputs.symbol_rate_baud)
        ok = q >= inputs.eye_q
        scanned = np.where(ok.any(axis=-1), n.size - np.argmax(ok[..., ::-1], axis=-1), 0)
        assert np.array_equal(np.ravel(amplified.amplifiers_passable), np.ravel(scanned))
        assert len(np.unique(scanned)) > 3  # the grid spans reaches from none to many amplifiers


def test_a_sweep_without_a_model_takes_the_whole_grid_at_once(monkeypatch):
    """`run_sweep` on SiP-Ring without --model writes its rows from the grid path: the per-point path is not run
    for points the grid evaluates."""
    from sipml import sweep_grid_columns as sweep_grid, sweep_point_rows as sweep_points, sweep_run as sweeps

    def refuse(*args, **kwargs):
        raise AssertionError("the per-point path ran")

    monkeypatch.setattr(sweeps, "evaluate_chunk", refuse)
    monkeypatch.setattr(sweep_grid, "evaluate_chunk", refuse, raising=False)
    monkeypatch.setattr(sweep_points, "evaluate_chunk", refuse)
    _, table = sweeps.run_sweep(None, (), ["link.wavelengths_per_fiber=2:16:8", "fabric.gpus=64,256"])
    assert table.length == 16 and "cluster_cost_usd [USD]" in table.names


@pytest.mark.parametrize("case", [
    (None, (), ("link.data_rate=10 Gbit/s:50 Gbit/s:5", "fabric.gpus=64,704,128"), "gpt2-355m", None),
    (None, ("sip_ring.allocation=static",), ("link.wavelengths_per_fiber=8:64:4", "loss.fiber_length=1 m:400 m:3",
                                             "fabric.gpus=96,128"), "megatron-1.7b", 256),
    (None, ("sip_ring.allocation=phased",), ("laser.power_per_line=2 mW:12 mW:4", "fabric.gpus=64,256"),
     "gpt2-355m", 512),
    ("sip-ocs", ('sip_ocs.topology="clos"',), ("link.data_rate=10 Gbit/s:50 Gbit/s:4", "fabric.gpus=128,512"),
     "megatron-1.7b", 512),
    ("sip-ocs", ('sip_ocs.shots="multi"',), ("loss.fiber_length=1 m:3000 m:4", "laser.power_per_line=1 mW:5 mW:2"),
     "gpt2-355m", None),
    (None, (), ("sip_ring.step_latency=1 us:10 us:3", "link.fibers_per_direction=1,2,4,6"), "gpt2-355m", None)])
def test_a_model_sweep_over_a_grid_equals_each_point_alone(case):
    """With --model, the whole-grid path (each combination's feasible points searched as one batch) writes the rows
    the per-point path writes, bit for bit and type for type: infeasible points, GPU counts without a strategy
    (their rows an error, no training columns), both fabrics and their allocations and shots, a ring whose degree
    varies over the grid while its reach does not."""
    from sipml.design_files import ALL_SECTIONS
    from sipml.rows import Table
    from sipml.sweep_grid_columns import link_table
    from sipml.sweep_point_rows import Trained, evaluate_chunk
    from sipml.sweep_run import grid_points, parse_axis

    design, overrides, axes, model, batch = case
    vary = tuple(parse_axis(v, ALL_SECTIONS) for v in axes)
    trained = Trained(model, batch)
    fast = link_table(design, overrides, vary, fabric=True, trained=trained)
    slow = Table.from_rows(evaluate_chunk(design, overrides, vary, tuple(grid_points(list(vary))), trained))
    assert fast.names == slow.names and "speedup" in fast.names and fast.length == slow.length > 1
    for name in fast.names:
        for i, (x, y) in enumerate(zip(fast.column(name), slow.column(name))):
            assert _same(x, y), (name, i, x, y)
    trained = [v for v in fast.column("training_feasible") if v is not None]
    assert any(trained) and len(set(fast.column("iteration_s [s]"))) > 2


@pytest.mark.parametrize("design", ["sip-ring", "sip-ocs"])
def test_the_batched_search_equals_pricing_every_strategy_at_each_point(design):
    """The bounded search over a batch of design points (capacity, reach and circuit figures arrays over them,
    `fabric.estimate.over_points`) keeps, at every point, exactly the candidates, times and phases of pricing every
    strategy there and sorting them; a point no wavelength serves finds none, for the reason a point alone gives."""
    from fabric.estimate import over_points, point_view
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import transformer_breakdown

    model, batch = load_model("gpt2-355m"), 1024
    d = load_design(design, ["fabric.gpus=256"])
    gpu = speedup.gpu_of(d)
    stack = speedup.stack_for(model)
    precision = speedup.precision_of(gpu, stack)
    est = speedup.evaluate_fabric(d)
    rng = np.random.default_rng(3)
    scale = np.append(rng.uniform(0.02, 3.0, 11), 0.0)  # the last point: no capacity
    if design == "sip-ring":
        reach = np.append(rng.integers(1, 256, 11), 0)
        details = dataclasses.replace(est.details, segment_capacity_bps=est.details.segment_capacity_bps * scale)
        grid = dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale, reach_hops=reach,
                                   details=details)
    else:
        details = dataclasses.replace(est.details, port_bps=est.details.port_bps * scale,
                                      circuit_delay_s=est.details.circuit_delay_s * rng.uniform(0.5, 20, 12))
        grid = dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale, details=details)
    for option in get_kind(est.kind).alternatives(over_points(grid, (12,))):
        with np.errstate(divide="ignore", invalid="ignore"):  # the point without capacity: inf × 0 in its phases
            batched = speedup._bounded_search(speedup.SearchJob(model, gpu, batch, (), stack, precision), option, 5)
            fastest = speedup._fastest(speedup.SearchJob(model, gpu, batch, (), stack, precision), option)
        assert _same_record(fastest, speedup._as_arrays(batched))  # the fastest, picked from the rounds' arrays
        for i, found in enumerate(batched):
            view = point_view(option, i)
            speedup._search.cache_clear()
            with np.errstate(divide="ignore", invalid="ignore"):
                job = speedup.SearchJob(model, gpu, batch, (), stack, precision)
                assert speedup._search(job, (view,), 5, None) == (0, found)
            st = transformer_strategies(model, view.job_gpus, batch, {}, stack)
            with np.errstate(divide="ignore", invalid="ignore"):
                br = transformer_breakdown(model, gpu, view, batch, st, compute=stack.compute_for(gpu),
                                           training=stack.training, precision=precision)
            t = br.iteration_s
            ok = br.fits & np.isfinite(t)
            if not ok.any():
                assert isinstance(found, str) and i == 11
                continue
            order = np.flatnonzero(ok)[np.argsort(t[ok], kind="stable")][:5]
            assert [c.strategy for c in found.top] == [st.row(int(k)) for k in order]
            assert [c.iteration_s for c in found.top] == [float(t[k]) for k in order]
            assert [c.breakdown for c in found.top] == [br.phases(int(k)) for k in order]
            assert found.model_flops == float(br.model_flops[order[0]])


@pytest.mark.parametrize("design", ["sip-ring", "sip-ocs", "fattree-200", "ideal"])
def test_pricing_each_distinct_column_once_equals_pricing_every_column(monkeypatch, design):
    """A strategy search's collectives priced once per distinct column of their inputs and spread back
    (`fabric.kind.MixPricing`) give every candidate, at every point of a batch, the seconds, schedule, share and
    bandwidth of pricing every column, and so the same breakdown, bit for bit."""
    from fabric import kind
    from fabric.estimate import over_points
    from fabric.evaluate import mix_pricing
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import transformer_breakdown, transformer_plan

    model, batch = load_model("gpt2-355m"), 1024
    d = load_design(design, ["fabric.gpus=256"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    precision = speedup.precision_of(gpu, stack)
    est = speedup.evaluate_fabric(d)
    views = [est]
    if design in ("sip-ring", "sip-ocs"):  # a batch of points, their capacities apart
        scale = np.random.default_rng(5).uniform(0.05, 3.0, 6)
        capacity = "segment_capacity_bps" if design == "sip-ring" else "port_bps"
        details = dataclasses.replace(est.details, **{capacity: getattr(est.details, capacity) * scale})
        views.append(over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                                     details=details), (6,)))
    else:  # a batch of alike points, as few as are sought
        views.append(over_points(est, (speed_knobs.KNOBS.distinct_points,)))
    st = transformer_strategies(model, est.job_gpus, batch, {}, stack)
    kw = dict(compute=stack.compute_for(gpu), training=stack.training, precision=precision)
    plan = transformer_plan(model, gpu, batch, st, **kw)
    priced = []
    spy = kind.FabricKind.time
    monkeypatch.setattr(kind.FabricKind, "time", lambda self, e, c, n, *a: priced.append(np.size(n)) or spy(self, e, c,
                                                                                                         n, *a))
    for view in (v for base in views for v in get_kind(est.kind).alternatives(base)):
        runs = {}
        for threshold in (0, math.inf):  # every pricing of repeated columns once per distinct one; none
            _turn(monkeypatch, distinct_from=threshold)
            priced.clear()
            pricing = mix_pricing(view, plan.mix, plan.mix_arrays(view.job_gpus))
            times = [pricing.price([c])[0] for c in plan.mix] + [pricing.price_first(list(plan.mix[i:]))
                                                                  for i in range(len(plan.mix))]
            runs[threshold] = (times, transformer_breakdown(model, gpu, view, batch, st, **kw), min(priced))
        (once, once_br, fewest), (every, every_br, _) = runs[0], runs[math.inf]
        # a batch's distinct columns were priced alone; a few points' columns are priced as they are
        assert fewest < len(st) if np.size(view.per_gpu_bandwidth_bps) >= speed_knobs.KNOBS.distinct_points \
            else fewest == len(st)
        for a, b in zip(once, every):
            for f in dataclasses.fields(a):
                x, y = getattr(a, f.name), getattr(b, f.name)
                assert np.shape(x) == np.shape(y) and np.array_equal(np.asarray(x), np.asarray(y)), f.name
        assert all(np.array_equal(getattr(once_br, f.name), getattr(every_br, f.name))
                   for f in dataclasses.fields(once_br))


@pytest.mark.parametrize("design", ["sip-ring", "sip-ocs", "dgx-h100", "fattree-200", "ideal"])
def test_the_seconds_a_search_reads_alone_are_the_priced_times_seconds(design):
    """A strategy search reads only the seconds of its collectives (`fabric.kind.MixPricing.seconds`, a kind's
    `seconds_of`, which names no schedule): they are `price`'s seconds bit for bit, for every collective of a job's
    mix alone and running with the rest, on each way the fabric runs the job, and on a batch of points some of
    which reach no neighbour or hold no circuit."""
    from fabric.estimate import over_points
    from fabric.evaluate import mix_pricing
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import transformer_plan

    model, batch = load_model("mixtral-8x7b"), 1024
    d = load_design(design, ["fabric.gpus=256"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    est = speedup.evaluate_fabric(d)
    kind = get_kind(est.kind)
    assert kind.seconds_of is not None or design == "ideal"
    st = transformer_strategies(model, est.job_gpus, batch, {}, stack)
    plan = transformer_plan(model, gpu, batch, st, compute=stack.compute_for(gpu), training=stack.training,
                            precision=speedup.precision_of(gpu, stack))
    assert {c.op for c in plan.mix} >= {"all_reduce", "reduce_scatter", "all_gather", "all_to_all", "p2p"}
    views = list(kind.alternatives(est))
    capacity = {"sip-ring": "segment_capacity_bps", "sip-ocs": "port_bps"}.get(design)
    if capacity:  # a batch of points, one of them dead
        scale = np.array([0.0, 0.3, 1.0, 2.5, 0.7])
        details = dataclasses.replace(est.details, **{capacity: getattr(est.details, capacity) * scale})
        views.append(over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                                     details=details), (5,)))
    for view in views:
        pricing = mix_pricing(view, plan.mix, plan.mix_arrays(view.job_gpus))
        for running in [[c] for c in plan.mix] + [list(plan.mix), list(plan.mix[::-1])]:
            for first_only in (False, True) if len(running) > 1 else (False,):
                seconds = pricing.seconds(running, first_only)
                times = pricing.price(running, first_only)
                assert len(seconds) == len(times)
                for x, t in zip(seconds, times):
                    assert np.shape(x) == np.shape(t.seconds) and np.array_equal(x, t.seconds, equal_nan=True)


@pytest.mark.parametrize("batched", [False, True])
def test_the_ways_a_ring_runs_a_job_searched_as_one_batch_equal_each_searched_alone(batched):
    """SiP-Ring's wavelength allocations (static, periodic, phased) joined into one batch of points
    (`fabric.estimate.joined_points`: all of them for single points, those configured alike for batched views)
    price every collective as each allocation alone does, and their joined search finds at every point what each
    one's own search finds."""
    from fabric.estimate import joined_points, over_points, pricing_view
    from fabric.evaluate import mix_pricing
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import transformer_plan

    model, batch = load_model("gpt2-355m"), 1024
    d = load_design("sip-ring", ["fabric.gpus=256"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    precision = speedup.precision_of(gpu, stack)
    est = speedup.evaluate_fabric(d)
    if batched:
        scale = np.random.default_rng(9).uniform(0.05, 3.0, 5)
        details = dataclasses.replace(est.details, segment_capacity_bps=est.details.segment_capacity_bps * scale)
        est = over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                              details=details), (5,))
    options = get_kind(est.kind).alternatives(est)
    assert [o.static for o in options] == [True, False, False]
    st = transformer_strategies(model, est.job_gpus, batch, {}, stack)
    plan = transformer_plan(model, gpu, batch, st, compute=stack.compute_for(gpu), training=stack.training,
                            precision=precision)
    joined = joined_points([o if batched else pricing_view(o) for o in options])
    together = mix_pricing(joined, plan.mix, plan.mix_arrays(est.job_gpus))
    count = 5 if batched else 1
    for k, option in enumerate(options):
        alone = mix_pricing(option, plan.mix, plan.mix_arrays(est.job_gpus))
        for i in range(len(plan.mix)):
            a, b = together.price_first(list(plan.mix[i:])), alone.price_first(list(plan.mix[i:]))
            rows = slice(k * count, (k + 1) * count)
            assert np.array_equal(np.broadcast_to(a.seconds, (3 * count, len(st)))[rows],
                                  np.broadcast_to(b.seconds, (count, len(st))))
            assert np.array_equal(np.broadcast_to(a.schedule, (3 * count, len(st)))[rows],
                                  np.broadcast_to(b.schedule, (count, len(st))))
    speedup._search.cache_clear()
    if not batched:
        job = speedup.SearchJob(model, gpu, batch, (), stack, precision)
        way, found = speedup._search(job, tuple(pricing_view(o) for o in options), 5, None)
        alone = [speedup._bounded_search(job, pricing_view(option), 5)[0] for option in options]
        assert way == min(range(3), key=lambda k: alone[k].top[0].iteration_s) and found == alone[way]
        return
    # the fastest way at each point: the least time over the allocations' own searches (the first of equals)
    record, reasons = speedup._fastest_at_points(speedup.SearchJob(model, gpu, batch, (), stack, precision), est)
    job = speedup.SearchJob(model, gpu, batch, (), stack, precision)
    alone = [speedup._bounded_search(job, option, 1) for option in options]
    for i in range(5):
        best = min(range(3), key=lambda k: alone[k][i].top[0].iteration_s)
        assert record.top[0].iteration_s[i] == alone[best][i].top[0].iteration_s and reasons[i] == ""
        assert {k: v[i] for k, v in record.top[0].breakdown.items()} == alone[best][i].top[0].breakdown


@pytest.mark.parametrize("model_name", ["resnet-50", "vgg-16", "dlrm-dcnv2"])
def test_a_split_kinds_ways_searched_at_once_equal_each_way_priced_alone(model_name, monkeypatch):
    """A CNN's or a DLRM's search on SiP-Ring's three allocations (`WorkloadKind.ways`: one
    breakdown on the ways joined, its fabric-free step done once) finds at each way what that way's own breakdown
    finds, figure for figure, and keeps the fastest way (the first of equals)."""
    from fabric.estimate import pricing_view
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import kinds, speedup
    from workloads.models import load_model

    breakdown = speedup.breakdown
    model = load_model(model_name)
    d = load_design("sip-ring", ["fabric.gpus=256"])
    est = speedup.evaluate_fabric(d)
    batch, _ = speedup.default_batch(model, est.job_gpus)
    views = tuple(pricing_view(o) for o in get_kind(est.kind).alternatives(est))
    assert len(views) == 3 and kinds.of(model).ways and not kinds.of(model).batched
    job = speedup.search_job(model, d, batch, None, None, None)
    speedup._search.cache_clear()
    seen = []  # the views the kind's breakdown is called on: one, holding the three ways
    monkeypatch.setattr(speedup, "breakdown", lambda *a, **k: seen.append(a[2]) or breakdown(*a, **k))
    way, found = speedup._search(job, views, 5, None)
    monkeypatch.undo()
    assert [speedup.points(v) for v in seen] == [3]
    fixed = {"precision": job.precision}
    alone = []
    for view in views:
        st, br = speedup.breakdown(model, job.gpu, view, batch, fixed, stack=job.stack)
        alone.append(speedup._found(st, br, br.fits, np.arange(len(st)), speedup._Memory.of(br), 5, model, job.gpu))
    seconds = [a.top[0].iteration_s for a in alone]
    assert way == seconds.index(min(seconds)) and found == alone[way]
    assert len({a.top[0].iteration_s for a in alone}) > 1  # the ways differ: the pick is a real one


@pytest.mark.parametrize("design", ["sip-ring", "sip-ocs", "fattree-200", "dgx-h100"])
def test_a_collective_and_its_last_bucket_priced_in_one_call_equal_each_priced_alone(design):
    """The data-parallel collectives and their last gradient buckets, stacked two by two into one pricing call
    (`workloads.training._collective_times`), take the seconds each gets priced on its own with the
    tensor-parallel collectives running, on one point and on a batch of points, every way the fabric runs the
    job."""
    from fabric.estimate import over_points
    from fabric.evaluate import mix_pricing
    from fabric.kind import Collective
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup, training
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies

    model, batch = load_model("gpt2-355m"), 1024
    d = load_design(design, ["fabric.gpus=256"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    est = speedup.evaluate_fabric(d)
    st = transformer_strategies(model, est.job_gpus, batch, {}, stack)
    plan = training.transformer_plan(model, gpu, batch, st, compute=stack.compute_for(gpu), training=stack.training,
                                     precision=speedup.precision_of(gpu, stack))
    scale = np.random.default_rng(2).uniform(0.1, 2.0, 4)  # a batch of points, the fabric's capacity apart
    capacity = {"sip-ring": "segment_capacity_bps", "sip-ocs": "port_bps"}.get(design, "nic_bps")
    details = dataclasses.replace(est.details, **{capacity: getattr(est.details, capacity) * scale})
    batched = over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                              details=details), (4,))
    tp_cs, (ar_c, rs_c, ag_c) = list(plan.mix[:len(plan.tp_calls)]), plan.mix[-3:]
    for view in (*get_kind(est.kind).alternatives(speedup.pricing_view(est)), batched):
        times = training._collective_times(plan, view)
        pricing = mix_pricing(view, plan.mix, plan.mix_arrays(view.job_gpus))
        for c, gather in ((ar_c, 1.0), (rs_c, 1.0), (ag_c, plan.gather_to_grad)):
            bucket = Collective(c.op, plan.bucket_bytes * gather, c.size, c.stride, name=c.name)
            for key, alone in ((c.op, c), (f"{c.op}_bucket", bucket)):
                want = pricing.price_first([alone, *tp_cs]).seconds
                assert np.shape(times[key]) == np.shape(want) and np.array_equal(times[key], want), key
                assert view is not batched or np.ndim(want) == 2  # the batch's points price apart


def test_points_that_price_alike_are_searched_once_for_what_each_finds_alone(monkeypatch):
    """A batch whose points repeat (the same capacity and reach: a sweep's laser power moving only the margin) is
    searched at its distinct points (`fabric.estimate.distinct_points`), and each point gets what the search of
    the whole batch gives it; so does a batch searched a few points at a time."""
    from fabric.estimate import distinct_points, over_points, point_view, take_points
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model

    model, batch = load_model("gpt2-355m"), 1024
    d = load_design("sip-ring", ["fabric.gpus=256"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    precision = speedup.precision_of(gpu, stack)
    est = speedup.evaluate_fabric(d)
    scale = np.array([1.0, 0.5, 1.0, 2.0, 0.5, 1.0])
    margin = np.arange(6.0)  # informational: not a pricing figure
    details = dataclasses.replace(est.details, segment_capacity_bps=est.details.segment_capacity_bps * scale,
                                  neighbour_margin_db=margin)
    view = over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                           details=details), (6,))
    first, inverse = distinct_points(view)
    assert first.tolist() == [0, 1, 3] and inverse.tolist() == [0, 1, 0, 2, 1, 0]
    few = take_points(view, first)
    for i in range(6):
        assert speedup.pricing_view(point_view(few, int(inverse[i]))) == speedup.pricing_view(point_view(view, i))
    every = speedup._bounded_search(speedup.SearchJob(model, gpu, batch, (), stack, precision), view, 5)
    once = speedup._bounded_search(speedup.SearchJob(model, gpu, batch, (), stack, precision), few, 5)
    assert [once[k] for k in inverse] == every
    whole = speedup._fastest(speedup.SearchJob(model, gpu, batch, (), stack, precision), view)
    _turn(monkeypatch, points_per_search=4)
    parts = speedup._fastest_in_parts(speedup.SearchJob(model, gpu, batch, (), stack, precision), view)
    assert _same_record(parts, whole)


def test_the_kept_no_effect_problems_equal_finding_each_afresh():
    """`sipml.design_files._no_effect_problem`, kept per (sections and keys, the fields their conditions read, kind),
    says for every design what finding it afresh says: keys that apply, keys of a section another kind owns, a
    key whose condition fails, one design after another with the same keys and different values."""
    from sipml import design_files as d

    cases = [{"link": {"data_rate": "25 Gbit/s"}}, {"sip_ring": {"directions": 2}}, {"sip_ocs": {"switches": 4}},
             {"modulator": {"kind": "all-pass"}}, {"modulator": {"kind": "add-drop"}},
             {"electrical": {"rails": 8}}, {"link": {"kind": "point-to-point"}}]
    seen = []
    for name in ("sip-ring", "sip-ocs", "fattree-200", "sip-ring"):  # the last: each found again, kept
        design = d.load_design(name, [])
        for data in cases:
            for full in (data, {**data, "fabric": {"kind": design.fabric.kind}}):
                kept, afresh = d._no_effect_problem(full, design), d._find_no_effect_problem(full, design)
                assert kept == afresh, (full, name)
                seen.append(afresh is None)
    assert any(seen) and not all(seen)  # both answers among the cases


def test_timing_each_distinct_gemm_once_equals_timing_every_one(monkeypatch):
    """`workloads.gemm.gemm_time_s` times each distinct (batch, M, N, K, bytes moved) once and spreads it back, as
    a strategy set's GEMMs repeat: the same seconds, bit for bit, as timing every one, shapes and moved bytes
    broadcast included; and a whole plan is the same."""
    from workloads import gemm, speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import _transformer_plan
    from sipml.design_files import load_design

    rng = np.random.default_rng(11)
    m = rng.choice([1, 7, 128, 1000, 4096], (40, 30)).astype(float)
    n, k = rng.choice([64, 129, 2048], 30).astype(float), rng.choice([16, 300, 8192], (40, 1)).astype(float)
    kw = dict(ceiling_flops_per_s=7e14, sm_count=132, hbm_bandwidth_bytes_per_s=3.35e12)
    _turn(monkeypatch, gemm_distinct_from=math.inf)
    every = [gemm.gemm_time_s(2.0, m, n, k, **kw), gemm.gemm_time_s(m, n, k, 3.0, moved_bytes=m * 10.0, **kw)]
    model, batch = load_model("gpt2-355m"), 1024
    d = load_design("sip-ring", ["fabric.gpus=256"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    st = transformer_strategies(model, 256, batch, {}, stack)
    args = (model, gpu, batch, st, stack.compute_for(gpu), stack.training, "bf16", False)
    plan_every = _transformer_plan.__wrapped__(*args)
    _turn(monkeypatch, gemm_distinct_from=0)
    timed, spy = [], gemm._gemm_time_s
    monkeypatch.setattr(gemm, "_gemm_time_s", lambda *a: timed.append(np.size(a[1])) or spy(*a))
    once = [gemm.gemm_time_s(2.0, m, n, k, **kw), gemm.gemm_time_s(m, n, k, 3.0, moved_bytes=m * 10.0, **kw)]
    assert max(timed) <= 45  # at most 5 × 3 × 3 distinct shapes of the 1 200 timed
    for a, b in zip(once, every):
        assert a.shape == b.shape == (40, 30) and np.array_equal(a, b)
    plan_once = _transformer_plan.__wrapped__(*args)
    for f in dataclasses.fields(plan_once):
        x, y = getattr(plan_once, f.name), getattr(plan_every, f.name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), f.name


@pytest.mark.parametrize("name, gpus", [("gpt3-175b", 1024), ("mixtral-8x7b", 256)])
def test_a_plan_s_memory_found_once_per_distinct_activations_is_each_strategy_s_alone(name, gpus):
    """`workloads.training` finds a layer's activations once per distinct (microbatch, tp, sp, cp, recompute) of
    a strategy set (and GEMM times once per distinct shape) and spreads them back: each strategy's figures in the
    whole plan are those of a plan of that strategy alone (nothing to share there), bit for bit."""
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import _transformer_plan
    from sipml.design_files import load_design

    model = load_model(name)
    batch = speedup.default_batch(model, gpus)[0]
    gpu = speedup.gpu_of(load_design("sip-ring", [f"fabric.gpus={gpus}"]))
    stack = speedup.stack_for(model)
    st = transformer_strategies(model, gpus, batch, {}, stack)
    settings = (stack.compute_for(gpu), stack.training, "bf16", False)
    whole = _transformer_plan.__wrapped__(model, gpu, batch, st, *settings)
    rng = np.random.default_rng(4)
    picked = rng.choice(len(st), 40, replace=False)
    assert len({(st.microbatch[i], st.tp[i], st.sp[i], st.cp[i], st.recompute[i]) for i in picked}) > 10
    arrays = [f.name for f in dataclasses.fields(whole)
              if isinstance(getattr(whole, f.name), np.ndarray) and f.name != "index"]  # positions differ
    assert "memory_bytes" in arrays and len(arrays) > 10
    for i in picked:
        alone = _transformer_plan.__wrapped__(model, gpu, batch, st.take(np.array([i])), *settings)
        for name in arrays:
            assert getattr(alone, name)[0] == getattr(whole, name)[i], name
        for c, one in zip(whole.mix, alone.mix):
            assert np.broadcast_to(c.message_bytes, len(st))[i] == np.broadcast_to(one.message_bytes, 1)[0], c.name


@pytest.mark.parametrize("name, gpus, batch", [("gpt3-175b", 1024, 1536), ("mixtral-8x7b", 256, 1024),
                                               ("gpt3-175b", 8, 64)])
def test_a_plan_of_the_strategies_that_fit_is_the_whole_plan_at_their_positions(name, gpus, batch):
    """`workloads.training.transformer_plan(fitting=True)` plans only the strategies that fit in memory: they are
    the whole plan's that fit, in its order, each with the whole plan's figures bit for bit (the collectives'
    bytes, groups and calls too), and it keeps the least memory any strategy needs (none fits on 8 GPUs)."""
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import transformer_plan
    from sipml.design_files import load_design

    model = load_model(name)
    gpu = speedup.gpu_of(load_design("sip-ring", [f"fabric.gpus={gpus}"]))
    stack = speedup.stack_for(model)
    st = transformer_strategies(model, gpus, batch, {}, stack)
    kw = dict(compute=stack.compute_for(gpu), training=stack.training, precision="bf16")
    whole, fitting = (transformer_plan(model, gpu, batch, st, fitting=f, **kw) for f in (False, True))
    fits = whole.memory_bytes <= whole.memory_limit_bytes
    assert np.array_equal(fitting.index, np.flatnonzero(fits)) and np.array_equal(whole.index, np.arange(len(st)))
    assert fitting.least_memory_bytes == whole.least_memory_bytes == float(np.min(whole.memory_bytes))
    assert (0 < len(fitting.index) < len(st)) == (gpus > 8) and (not len(fitting.index)) == (gpus == 8)
    for f in dataclasses.fields(whole):
        x, y = getattr(whole, f.name), getattr(fitting, f.name)
        if isinstance(x, np.ndarray) and f.name != "index":
            assert np.array_equal(np.broadcast_to(x, len(st))[fits], np.broadcast_to(y, len(fitting.index))), f.name
    for a, b in zip(whole.mix, fitting.mix, strict=True):
        for key in ("message_bytes", "size", "stride", "calls"):
            assert np.array_equal(np.broadcast_to(getattr(a, key), len(st))[fits],
                                  np.broadcast_to(getattr(b, key), len(fitting.index))), (a.name, key)
    for f in dataclasses.fields(fitting.strategies):
        assert np.array_equal(getattr(st, f.name)[fits], getattr(fitting.strategies, f.name))


@pytest.mark.parametrize("name, gpus, fitting", [("gpt3-175b", 1024, True), ("mixtral-8x7b", 256, False)])
def test_a_plan_found_once_per_run_of_rank_orders_is_the_plan_of_the_strategies_apart(name, gpus, fitting):
    """`workloads.training` finds memory and compute once per run of neighbouring strategies that differ in their
    rank order alone (`Strategies.order_runs`): a run is exactly such neighbours, and the plan of the strategies
    shuffled (no run longer than one) has every strategy's figures of the plan in their order, bit for bit."""
    from workloads import speedup
    from workloads.models import load_model
    from workloads.strategy import transformer_strategies
    from workloads.training import _transformer_plan
    from sipml.design_files import load_design

    model = load_model(name)
    batch = speedup.default_batch(model, gpus)[0]
    gpu = speedup.gpu_of(load_design("sip-ring", [f"fabric.gpus={gpus}"]))
    stack = speedup.stack_for(model)
    st = transformer_strategies(model, gpus, batch, {}, stack)
    first, run = st.order_runs()
    columns = [f.name for f in dataclasses.fields(st) if f.name != "order"]
    rows = np.stack([getattr(st, c) for c in columns]).astype(np.int64)
    assert np.array_equal(rows, rows[:, first][:, run])  # a run's strategies alike but for the order
    assert np.all(np.any(rows[:, first[1:]] != rows[:, first[:-1]], axis=0))  # neighbouring runs differ
    assert len(first) < 0.9 * len(st) and np.all(np.bincount(run) <= 2)  # many pairs (MoE: ep > 1 has one order)
    shuffled = np.random.default_rng(5).permutation(len(st))
    assert len(st.take(shuffled).order_runs()[0]) > 0.99 * len(st)
    settings = (stack.compute_for(gpu), stack.training, "bf16", fitting)
    ordered = _transformer_plan.__wrapped__(model, gpu, batch, st, *settings)
    apart = _transformer_plan.__wrapped__(model, gpu, batch, st.take(shuffled), *settings)
    where = np.argsort(shuffled)[ordered.index]  # each planned strategy's place in the shuffled set
    position = np.full(len(st), -1)
    position[apart.index] = np.arange(len(apart.index))
    assert np.all(position[where] >= 0) and len(apart.index) == len(ordered.index)
    arrays = [f.name for f in dataclasses.fields(ordered)
              if isinstance(getattr(ordered, f.name), np.ndarray) and f.name != "index"]
    assert "memory_bytes" in arrays and "compute_mb" in arrays and len(arrays) > 10
    for key in arrays:
        assert np.array_equal(getattr(ordered, key), getattr(apart, key)[position[where]]), key
    assert ordered.least_memory_bytes == apart.least_memory_bytes


def test_a_section_built_once_per_values_is_the_one_built_afresh():
    """`sipml.design_files` builds a section once per section type and values of the same types: the kept one equals
    one built afresh, values equal but of another type (or another sign of zero) build their own, and a refused
    value is refused each time with the text of its own source."""
    from core.errors import InputError
    from sipml import design_files as d

    for values in ({"data_rate": "25 Gbit/s"}, {"wavelengths_per_fiber": 8}, {"wavelengths_per_fiber": 8.0}):
        kept = d._built_section("link", values, "a")
        assert kept is d._built_section("link", dict(values), "b")
        assert kept == d.build_section(d.ALL_SECTIONS["link"], values, "c")
    zero = d._built_section("link", {"fec_overhead": 0.0}, "a")
    minus = d._built_section("link", {"fec_overhead": -0.0}, "a")
    assert math.copysign(1.0, minus.fec_overhead) == -1.0 and math.copysign(1.0, zero.fec_overhead) == 1.0
    for source in ("first", "second"):
        with pytest.raises(InputError, match=source):
            d._built_section("link", {"data_rate": "25 W"}, source)


@pytest.mark.parametrize("design", ["sip-ring", "sip-ocs", "dgx-h100"])
def test_a_design_built_on_a_base_equals_one_built_afresh(design):
    """`design_from_mapping` with a base (the sections a point does not change taken from it, their names not
    checked again) gives the design, or the error text, that building every section afresh gives: mappings with a
    value changed, an unknown key or section, a moved key, a bad value, a section that is not a table."""
    from core.errors import SipmlError
    from sipml import design_files as d

    data = d.read_toml(d.resolve(design))
    base = d.section_values(data, d.design_from_mapping(data, design))

    def outcome(mapping, kept):
        try:
            return d.design_from_mapping(mapping, "point", kept)
        except SipmlError as exc:
            return f"{type(exc).__name__}: {exc}"

    changes = [("link", "data_rate", "50 Gbit/s"), ("link", "nosuch", 1), ("ring", "filter_q", 8000.0),
               ("ring", "radius", "2 W"), ("tuning", "retune_time", "1 us"), ("nosuch", "x", 1), ("fabric", "gpus", 64),
               ("fabric", "kind", "ideal"), ("laser", "lines", -3), ("link", "data_rate", "50 Gbit/s")]
    errors = 0
    for one, two in itertools.combinations([*changes, None], 2):
        mapping = {name: dict(values) for name, values in data.items()}
        for change in (one, two):
            if change is not None:
                mapping.setdefault(change[0], {})[change[1]] = change[2]
        on_base = outcome(mapping, base)
        assert on_base == outcome(mapping, None), (one, two)
        errors += isinstance(on_base, str)
    assert 0 < errors < 55
    assert outcome({**data, "link": 3}, base) == outcome({**data, "link": 3}, None)


def test_a_later_way_searched_under_the_ceiling_of_the_first_finds_what_it_beats_them_with():
    """A model sweep searches SiP-Ring's re-tuned allocations first and the static one at each point only for
    what is as fast (`workloads.speedup._fastest_at_points`): with slow retunes the static allocation wins at some
    points and not at others, and every point gets the time, phases and allocation of searching each alone (the
    first of equal ways)."""
    from fabric.estimate import over_points
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model

    model, batch = load_model("gpt2-355m"), 1024
    d = load_design("sip-ring", ["fabric.gpus=256", "sip_ring.retune_time=1 ms", "sip_ring.decision_interval=5 ms"])
    gpu, stack = speedup.gpu_of(d), speedup.stack_for(model)
    precision = speedup.precision_of(gpu, stack)
    est = speedup.evaluate_fabric(d)
    scale = np.geomspace(0.02, 5.0, 8)
    details = dataclasses.replace(est.details, segment_capacity_bps=est.details.segment_capacity_bps * scale)
    est = over_points(dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * scale,
                                          details=details), (8,))
    options = get_kind(est.kind).alternatives(est)
    record, reasons = speedup._fastest_at_points(speedup.SearchJob(model, gpu, batch, (), stack, precision), est)
    job = speedup.SearchJob(model, gpu, batch, (), stack, precision)
    alone = [speedup._bounded_search(job, option, 1) for option in options]
    ways = []
    for i in range(8):
        best = min(range(3), key=lambda k: alone[k][i].top[0].iteration_s)
        ways.append(best)
        assert record.top[0].iteration_s[i] == alone[best][i].top[0].iteration_s and reasons[i] == ""
        assert {k: v[i] for k, v in record.top[0].breakdown.items()} == alone[best][i].top[0].breakdown
    assert 0 in ways and set(ways) != {0}  # the static allocation wins somewhere, not everywhere


def test_rows_replaced_in_a_table_keep_its_columns_native_where_their_values_fit():
    """`sipml.rows.Table.replace_rows` (a grid's points the per-point path computes) keeps a number column as
    numbers where every replacing value is of its type, falls back to objects where one is not, and reads back
    exactly the rows a table built from the rows gives (missing values, new and vanished columns included)."""
    from sipml.rows import Table

    base = [{"x": float(i), "ok": i % 2 == 0, "n": i, "s": f"r{i}", "gone": 1.0} for i in range(6)]
    table = Table.from_rows(base)
    table.data = {k: np.asarray([r[k] for r in base], dtype=object if k == "s" else None) for k in table.names}
    replaced = [{"x": 2.5, "ok": True, "n": 7, "s": "new", "extra": "e"}, {"x": float("nan"), "ok": False, "n": 3.0},
                {"s": "only"}]
    table.replace_rows([1, 3, 4], replaced)
    rows = [dict(r) for r in base]
    rows[1], rows[3], rows[4] = replaced
    want = Table.from_rows(rows)
    assert table.names == want.names and table == want
    assert all(type(table[i][k]) is type(want[i][k]) for i in range(6) for k in want[i])
    assert table.data["x"].dtype == float and table.data["ok"].dtype == bool  # their values fit
    assert table.data["n"].dtype == object  # 3.0 is not a count: the rows' values as they are
