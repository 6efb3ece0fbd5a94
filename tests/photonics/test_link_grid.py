"""The grid kernel equals `photonics.link.evaluate` point by point, bit for bit (the same stages of
`photonics.ring_wdm` on arrays), over grids of every kind of axis and every choice the kernel reads, over random
designs that move every sweepable link field at once, and a point's figures do not depend on the rest of the
grid."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest

from photonics.link_design import LinkDesign
from photonics.link import evaluate
from photonics.link_grid import evaluate_grid, product_grid
from photonics.resolve import resolve


def with_(d: LinkDesign, **changes) -> LinkDesign:
    for path, value in changes.items():
        section, key = path.split("__")
        d = replace(d, **{section: replace(getattr(d, section), **{key: value})})
    return d


def point(base: LinkDesign, axes: dict, index: tuple) -> LinkDesign:
    return with_(base, **{f"{s}__{k}": values[i] for ((s, k), values), i in zip(axes.items(), index)})


def same(a, b) -> bool:
    if isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


BASES = {
    "default (add-drop, comb, nearest-channel)": {},
    "all-pass modulators": {"modulator__kind": "all-pass"},
    "DFB array": {"laser__kind": "dfb"},
    "full-thermal tuning": {"tuning__strategy": "full-thermal"},
    "athermal, PAM4, thermal-noise receiver": {"tuning__strategy": "athermal-untrimmed",
                                               "receiver__model": "thermal-noise", "link__modulation": "pam4"},
    "KP4 FEC, Bellcore dispersion, bend-fit loss": {"link__fec": "kp4", "fiber__dispersion_model": "bellcore",
                                                    "ring__loss_model": "bend-fit"},
    "given receiver, lab-fit ISI, given tuning, all-pass": {"receiver__model": "given", "ring__filter_isi": "lab-fit",
                                                            "ring__tuning_model": "given",
                                                            "modulator__kind": "all-pass"},
}
AXES = {
    "power, filter Q, count": {("laser", "power_per_line"): [0.5e-3, 3e-3, 20e-3], ("ring", "filter_q"): [3e3, 8e3, 2e4],
                               ("link", "wavelengths_per_fiber"): [4, 24, 60]},
    "rate, ER, fiber": {("link", "data_rate"): [10e9, 25e9, 56e9], ("modulator", "extinction_ratio"): [3.0, 6.0, 12.0],
                        ("loss", "fiber_length"): [1.0, 2e3, 2e4]},
    "radius, fibers, lines": {("ring", "radius"): [3e-6, 5e-6, 10e-6], ("link", "fibers_per_direction"): [1, 8, 64],
                              ("laser", "lines"): [8, 32, 128]},
    "heater, package, flatness": {("tuning", "max_heater_power"): [1e-3, 25e-3],
                                  ("tuning", "heating_efficiency"): [1e3, 1e6], ("package", "chiplets"): [1, 4],
                                  ("laser", "flatness"): [0.0, 3.0]},
    "ledger, margin, RIN": {("loss", "coupler"): [0.5, 3.0], ("loss", "splices"): [0, 4], ("loss", "switch_ports"): [0, 3],
                            ("link", "system_margin"): [0.0, 3.0], ("laser", "rin"): [-150.0, -130.0]},
    "spacing, count": {("link", "channel_spacing"): [50e9, 100e9, 200e9, 400e9],
                       ("link", "wavelengths_per_fiber"): [1, 8, 16, 32, 64]},
}


def figures(est) -> dict:
    """What the grid reports for one point, read from `evaluate`'s records."""
    return {"margin_db": est.margin_db, "capacity_bps": est.capacity_bps, "binding_limit": est.binding_limit,
            "max_wavelengths_per_fiber": est.max_wavelengths_per_fiber,
            "power_budget_count": est.capacity.wavelength_limits["power_budget"],
            "total_energy_j_per_bit": est.total_energy_j_per_bit,
            "min_laser_power_per_line_dbm": est.min_laser_power_per_line_dbm,
            "violations": ";".join(v.name for v in est.violations), "feasible": est.feasible}


# figures the grid adds up from a ledger it assembles in another order than a single point's: equal to a few units
# in the last place (the ledger lines themselves are compared exactly, through the margin)
SUMMED = {"min_laser_power_per_line_dbm": 4}


def differences(grid, index, est) -> dict:
    want = figures(est)
    got = {name: getattr(grid, name)[index] for name in want}
    got = {name: got[name].item() if hasattr(got[name], "item") else got[name] for name in want}
    return {name: (got[name], want[name]) for name in want
            if not same(got[name], want[name])
            and not (name in SUMMED and isinstance(want[name], float) and math.isfinite(want[name])
                     and abs(got[name] - want[name]) <= SUMMED[name] * math.ulp(want[name]))}


@pytest.mark.parametrize("axes_name", AXES)
@pytest.mark.parametrize("base_name", BASES)
def test_grid_equals_evaluate_point_by_point(base_name, axes_name):
    base, axes = resolve(with_(LinkDesign(), **BASES[base_name])), AXES[axes_name]
    grid = evaluate_grid(base, product_grid(axes))
    assert not grid.fallback.any()
    for index in itertools.product(*(range(len(v)) for v in axes.values())):
        wrong = differences(grid, index, evaluate(point(base, axes, index)))
        assert not wrong, f"{index}: {wrong}"


def sweepable_fields(d: LinkDesign) -> list[tuple[str, str, object]]:
    """(section, key, spec) of every sweepable numeric field of a link design."""
    from core.fields import specs
    from photonics.common_stages import SECTIONS

    return [(name, key, spec) for name in SECTIONS for key, spec in specs(type(getattr(d, name))).items()
            if spec.sweepable and spec.numeric]


def draw(rng, default, spec, spread: float):
    """A value around the default: × 10^U(−spread, spread), ± 40·spread % of a negative one; a zero one stays zero
    but with probability `spread` (then up to 3 items, or up to 1 or a hundredth of the range); inside the declared
    range."""
    lo = -math.inf if spec.lo is None else spec.lo
    hi = math.inf if spec.hi is None else spec.hi
    if default > 0:
        value = default * 10 ** rng.uniform(-spread, spread)
    elif default < 0:
        value = default * (1.0 + rng.uniform(-0.4, 0.4) * spread)
    elif rng.uniform() < spread:
        value = rng.integers(0, 4) if spec.integer else rng.uniform(0.0, min(1.0, (hi - max(lo, 0.0)) / 100.0))
    else:
        value = default
    if spec.integer:
        value = int(round(value))
    value = min(max(value, lo), hi)
    if (spec.lo_open and value == lo) or (spec.hi_open and value == hi):
        value = default
    return value


def random_points(base: LinkDesign, count: int, seed: int):
    """`count` valid designs (well formed, evaluated without an input error) around `base`, every sweepable field
    drawn at once (a third of the points close by, a third a little further, a third up to ×√10 away; the
    wavelength within ×10^±0.05 of its own, 1.17–1.47 µm around 1.31 µm: a wider draw mostly lands where silicon
    absorbs or the fiber is no longer single-mode, refused, and drawn again)."""
    from core.errors import SipmlError

    rng = np.random.default_rng(seed)
    fields = sweepable_fields(base)
    points = []
    while len(points) < count:
        spread = (0.01, 0.1, 0.5)[len(points) % 3]
        values = {(name, key): draw(rng, getattr(getattr(base, name), key), spec,
                                    min(spread, 0.05) if key == "wavelength" else spread)
                  for name, key, spec in fields}
        try:
            d = base
            for name in {name for name, _ in values}:
                d = replace(d, **{name: replace(getattr(d, name), **{key: v for (n, key), v in values.items()
                                                                      if n == name})})
            d = resolve(d)
            est = evaluate(d)
        except SipmlError:
            continue
        points.append((values, est))
    return fields, points


@pytest.mark.parametrize("base_name", BASES)
def test_random_designs_across_every_sweepable_field_equal_evaluate_bit_for_bit(base_name):
    """80 random designs per base (560 in all), every sweepable link field moved at once: the grid over them (one
    axis of 80 points) gives exactly the figures `evaluate` gives for each."""
    base = resolve(with_(LinkDesign(), **BASES[base_name]))
    fields, points = random_points(base, 80, seed=sorted(BASES).index(base_name))
    varied: dict = {}
    for name, key, _ in fields:
        varied.setdefault(name, {})[key] = np.asarray([values[(name, key)] for values, _ in points])
    grid = evaluate_grid(base, varied)
    assert not grid.fallback.any()
    assert len({est.binding_limit for _, est in points}) > 1
    if not BASES[base_name]:  # around the default design some points close and some do not
        assert {est.feasible for _, est in points} == {True, False}
    for index, (_, est) in enumerate(points):
        wrong = differences(grid, (index,), est)
        assert not wrong, f"point {index}: {wrong}"


def test_the_grids_cover_feasible_and_infeasible_points_and_several_binding_limits():
    seen_limits, feasible = set(), set()
    for axes in AXES.values():
        grid = evaluate_grid(resolve(LinkDesign()), product_grid(axes))
        seen_limits |= set(grid.binding_limit.ravel())
        feasible |= set(grid.feasible.ravel().tolist())
    assert feasible == {True, False}
    assert {"power_budget", "fsr_channels", "requested"} <= seen_limits


def test_a_point_does_not_depend_on_the_rest_of_the_grid():
    """Dask chunks and local runs cut a grid differently: a sub-grid gives the same bits."""
    axes = {("laser", "power_per_line"): [0.2e-3, 3e-3, 100e-3], ("link", "channel_spacing"): [50e9, 200e9],
            ("link", "wavelengths_per_fiber"): [2, 40]}
    base = resolve(LinkDesign())
    whole = evaluate_grid(base, product_grid(axes))
    alone = evaluate_grid(base, product_grid({k: v[:1] for k, v in axes.items()}))
    assert alone.margin_db[0, 0, 0] == whole.margin_db[0, 0, 0]
    assert alone.power_budget_count[0, 0, 0] == whole.power_budget_count[0, 0, 0]
    assert alone.min_laser_power_per_line_dbm[0, 0, 0] == whole.min_laser_power_per_line_dbm[0, 0, 0]


def test_points_evaluate_refuses_are_left_to_it():
    """A wavelength outside the fiber's band, temperatures out of order and a sensitivity beyond the quantum limit
    are input errors of `evaluate`: the kernel flags exactly those points."""
    axes = {("link", "wavelength"): [1250e-9, 1310e-9, 1700e-9], ("tuning", "t_min"): [280.0, 390.0]}
    grid = evaluate_grid(resolve(LinkDesign()), product_grid(axes))
    assert grid.fallback.tolist() == [[True, True], [False, True], [True, True]]
    axes = {("receiver", "sensitivity"): [1e-9, 1e-5]}
    grid = evaluate_grid(resolve(with_(LinkDesign(), receiver__model="given")), product_grid(axes))
    assert grid.fallback.tolist() == [True, False]


def test_a_grid_too_large_for_one_piece_gives_the_same_numbers(monkeypatch):
    from core import speed_knobs

    axes = {("link", "channel_spacing"): list(np.linspace(50e9, 400e9, 9)), ("ring", "filter_q"): [3e3, 6e3, 1.2e4],
            ("laser", "power_per_line"): [1e-3, 8e-3]}
    base = resolve(LinkDesign())
    whole = evaluate_grid(base, product_grid(axes))
    monkeypatch.setattr(speed_knobs, "KNOBS", speed_knobs.KNOBS._replace(table_elements=200))
    pieces = evaluate_grid(base, product_grid(axes))
    for name in ("margin_db", "power_budget_count", "capacity_bps", "violations", "min_laser_power_per_line_dbm"):
        nan = name == "min_laser_power_per_line_dbm"  # NaN where the aggregate cap binds (issue 41)
        assert np.array_equal(getattr(pieces, name), getattr(whole, name), equal_nan=nan), name


def test_a_budget_closing_past_the_search_s_end_reports_the_end_with_its_warning():
    """A tiny ring (a 48 THz FSR) at 10 GHz spacing, 10 Mbit/s and watts of laser power closes more than
    MAX_SEARCH_WAVELENGTHS wavelengths: the search stops there, on a point and on a grid alike, and says so."""
    from photonics import ring_wdm
    from sipml.design_files import load_design

    sets = ["ring.radius=1 um", "ring.group_index=1", "link.channel_spacing=10 GHz", "link.data_rate=10 Mbit/s",
            "ring.filter_q=2e5", "ring.max_q=2e5", "modulator.q=2e5", "ring.propagation_loss=1 dB/m",
            "laser.power_per_line=1 W", "laser.aggregate_power_limit=10 W", "laser.eye_safety_limit=10 W"]
    d = resolve(load_design("sip-ring", sets).link)
    est = evaluate(d)
    assert est.budget.power_budget_count == ring_wdm.MAX_SEARCH_WAVELENGTHS
    assert any(f"at least {ring_wdm.MAX_SEARCH_WAVELENGTHS} wavelengths" in w for w in est.warnings)
    grid = evaluate_grid(d, {"laser": {"power_per_line": np.array([1.0, 1e-5])}})
    assert grid.power_budget_count[0] == ring_wdm.MAX_SEARCH_WAVELENGTHS and grid.power_budget_count[1] < 16


def test_a_ledger_past_a_float_s_range_keeps_its_margin_in_db():
    """A 4 000 dB ledger (400 dB/m over 10 m) needs more than a float holds in mW: the search closes no count and
    the margin is the ledger's, finite, on a point and on a grid alike, with no overflow warning."""
    import warnings

    d = with_(LinkDesign(), loss__fiber_loss=400.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = evaluate(d)
        grid = evaluate_grid(resolve(d), product_grid({("loss", "fiber_length"): [10.0, 20.0]}))
    assert est.capacity.wavelength_limits["power_budget"] == 0 and -4000 < est.margin_db < -3900
    assert grid.margin_db[0] == est.margin_db and grid.power_budget_count.tolist() == [0, 0]


def test_rings_past_a_float_s_range_keep_their_loss_and_the_margin_in_db():
    """82 channels passing rings of 40 dB excess loss each: each bus loses ~3 300 dB, its transmission below a
    float's smallest number. The receive bus's ledger line is its loss summed ring by ring in dB
    (`microring.bus_through_loss_by_count`), and the margin is the ledger's, finite, on a point and on a grid alike."""
    from photonics import microring

    d = with_(LinkDesign(), ring__through_excess_loss=40.0, laser__lines=128, link__wavelengths_per_fiber=82)
    est = evaluate(d)
    ring = est.ring
    by_hand = microring.bus_through_loss_by_count(82, d.link.channel_spacing, ring.filter_fwhm_hz,
                                                  ring.filter_on_resonance, 40.0, ring.fsr_hz)[81]
    receive = {line.key: line.value_db for line in est.ledger}["rings_receive"]
    assert receive == pytest.approx(by_hand, rel=1e-12) and by_hand > 3200
    assert -7000 < est.margin_db < -6000
    grid = evaluate_grid(resolve(d), product_grid({("link", "wavelengths_per_fiber"): [70, 82, 100]}))
    assert grid.margin_db[1] == est.margin_db and np.all(np.isfinite(grid.margin_db))
    assert grid.margin_db[0] > grid.margin_db[1] > grid.margin_db[2]


def test_the_design_s_own_count_follows_its_margin_at_zero():
    """System margins a few ulps either side of where the default design's margin crosses 0 dB: its count closes
    (8, the design's own) exactly where its margin is ≥ 0."""
    margins = 0.6014213777082473 + np.arange(-40, 40) * 1.1e-16
    grid = evaluate_grid(resolve(LinkDesign()), product_grid({("link", "system_margin"): margins}))
    assert 0 < np.count_nonzero(grid.margin_db >= 0) < len(margins)
    assert np.array_equal(grid.margin_db >= 0, grid.power_budget_count >= 8)
