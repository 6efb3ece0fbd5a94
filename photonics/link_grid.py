"""The ring-wdm link over a whole grid of design points in one pass: for every point, what `photonics.link.evaluate`
finds for the figures a sweep reports (margin, capacity and the limit that binds it, the largest wavelength count,
the violated constraints, optical energy per bit, least laser power per line), with the same formulas
(`photonics.microring`, `crosstalk`, `budget`, `receiver`, …) applied to numpy arrays.

A grid is a base design and, per varied numeric field, an array shaped to broadcast: one array dimension per sweep
axis. Every intermediate carries only the dimensions of the fields it depends on, so a quantity of one axis is
computed once per value of that axis, and the full grid is touched only by the few figures that depend on every
axis. The wavelength-count search (E10 with the rings passed and the crosstalk of every count, E6–E7, E19–E20)
builds its per-count tables once per distinct spectral point (spacing, linewidths, FSR, symbol rate) and finds each
point's largest closing count in them.

Choices (kinds, models, strategies) are those of the base design: a sweep over a choice runs one grid per value.
Points the kernel leaves to `evaluate` are flagged in `GridResult.fallback`: a receiver beyond the quantum limit or a
wavelength outside the fiber's band (both are input errors there), and temperature limits out of order.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from core.units import db_to_lin, dbm_to_w, w_to_dbm
from photonics import (budget, crosstalk, fec, fiber, filtering, laser, microring, modulation, modulator, noise,
                       packaging, receiver, variation)
from photonics.design import LinkDesign
from photonics.grid import wrapped_detuning_hz
from photonics.fieldspecs import named_losses
from photonics.resolve import MMF_BAND_M, SILICON_MIN_WAVELENGTH_M, SMF_BAND_M
from photonics.ring_wdm import MAX_SEARCH_WAVELENGTHS

# the order `photonics.ring_wdm.violations` and `photonics.link._shared_violations` report constraints in
VIOLATION_ORDER = ("power_budget", "eye_safety", "fsr_channels", "laser_lines", "package_escape",
                   "modulator_bandwidth", "filter_bandwidth", "filter_q", "modulator_q", "filter_q", "modulator_q",
                   "tuning_range", "ring_yield", "package_edge")
TABLE_ELEMENTS = 1 << 23  # count-table elements (points × counts) in one piece of a grid: bounds the memory


@dataclass(frozen=True)
class GridResult:
    """One array per figure, all of the grid's shape (C order: the last axis varies fastest)."""

    margin_db: np.ndarray
    capacity_bps: np.ndarray
    binding_limit: np.ndarray  # str
    max_wavelengths_per_fiber: np.ndarray  # int
    power_budget_count: np.ndarray  # int
    total_energy_j_per_bit: np.ndarray  # optical: laser, modulators, receivers, heaters (NaN at zero capacity)
    min_laser_power_per_line_dbm: np.ndarray
    violations: np.ndarray  # str: names joined by ';' in evaluate's order
    fallback: np.ndarray  # bool: points to evaluate one by one

    @property
    def feasible(self) -> np.ndarray:
        return self.violations == ""


class _Fields:
    """A section whose varied keys read from arrays and the others from the base design."""

    def __init__(self, section, varied: dict):
        self._section, self._varied = section, varied

    def __getattr__(self, key):
        varied = self.__dict__["_varied"]
        return varied[key] if key in varied else getattr(self.__dict__["_section"], key)


def product_grid(axes: dict[tuple[str, str], object]) -> dict[str, dict[str, np.ndarray]]:
    """The `varied` argument of `evaluate_grid` for the full product of {(section, key): values}: axis k's values
    along array dimension k, in the order given."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for dim, ((section, key), values) in enumerate(axes.items()):
        shape = [1] * len(axes)
        shape[dim] = len(values)
        out.setdefault(section, {})[key] = np.asarray(values).reshape(shape)
    return out


def supported(d: LinkDesign) -> bool:
    """Whether the grid kernel evaluates this kind of link (ring-wdm; point-to-point links go point by point)."""
    return d.link.kind == "ring-wdm"


def _elementwise(fn, *args):
    """A scalar-only function over the broadcast of its arguments (as small as the axes they depend on)."""
    shaped = np.broadcast_arrays(*(np.asarray(a) for a in args))
    if shaped[0].ndim == 0:
        return np.asarray(float(fn(*(a.item() for a in shaped))))
    return np.vectorize(fn, otypes=[float])(*shaped)


class _TooLarge(Exception):
    """The piece's count tables would pass TABLE_ELEMENTS: evaluate it in halves."""


def evaluate_grid(d: LinkDesign, varied: dict[str, dict[str, np.ndarray]]) -> GridResult:
    """The figures of every point of the grid: `d` a resolved ring-wdm design (spectral fields in Hz), `varied`
    {section: {key: array}} with arrays that broadcast to the grid's shape and SI values in Hz (no wavelength
    spans). Points flagged in `fallback` are not meaningful here and must be evaluated by `evaluate`. A grid whose
    count tables would not fit TABLE_ELEMENTS is evaluated in halves along its longest axis (a point's figures do
    not depend on the rest of its grid, so the halves give the same numbers)."""
    shape = np.broadcast_shapes(*(np.shape(a) for keys in varied.values() for a in keys.values()))
    try:
        return _evaluate(d, varied, shape)
    except _TooLarge:
        axis = int(np.argmax(shape))
        half = shape[axis] // 2
        parts = []
        for part in (slice(0, half), slice(half, shape[axis])):
            index = tuple(part if k == axis else slice(None) for k in range(len(shape)))
            parts.append(evaluate_grid(d, {section: {key: (a[index] if np.shape(a)[axis] > 1 else a)
                                                     for key, a in keys.items()} for section, keys in varied.items()}))
        return GridResult(*(np.concatenate([getattr(p, f.name) for p in parts], axis=axis)
                            for f in dataclasses.fields(GridResult)))


def _evaluate(d: LinkDesign, varied: dict, shape: tuple) -> GridResult:
    sec = {name: _Fields(getattr(d, name), varied.get(name, {})) for name in
           ("link", "fiber", "ring", "modulator", "laser", "loss", "receiver", "tuning", "package")}
    lk, fb, r, mod, lz, ls, rx, tn, pk = sec.values()
    f = np.asarray

    # --- signal (photonics.signal) and receiver (link.receiver_figures) -------------------------------------------
    levels = modulation.LEVELS[d.link.modulation]
    symbol_rate = f(lk.data_rate) / modulation.bits_per_symbol(levels)
    if d.link.fec == "none":
        target_ber, overhead = f(lk.ber, dtype=float), 0.0
    elif d.link.fec == "given":
        target_ber, overhead = f(lk.fec_threshold, dtype=float), f(lk.fec_overhead, dtype=float)
    else:
        code = fec.CODES[d.link.fec]
        target_ber, overhead = f(code.threshold_ber), fec.overhead(code.n, code.k)
    eye_q = _elementwise(lambda ber: modulation.eye_q_for_ber(levels, ber), target_ber)
    eye_scale = float(levels - 1)
    er = db_to_lin(mod.extinction_ratio)
    if d.receiver.model == "ge-photodiode":
        sens_w, ref_er = receiver.ge_photodiode_sensitivity_w(lk.data_rate, er, rx.responsivity, rx.dark_current,
                                                               eye_q), er
    elif d.receiver.model == "thermal-noise":
        sens_w = _elementwise(lambda rate, ber, e, resp, noise_: receiver.thermal_noise_sensitivity_w(
            rate, ber, e, resp, noise_, levels=levels), symbol_rate, target_ber, er, rx.responsivity, rx.noise_density)
        ref_er = er
    elif d.receiver.sensitivity_type == "oma":
        sens_w, ref_er = modulation.average_from_oma_w(rx.sensitivity, er), er
    else:
        sens_w, ref_er = f(rx.sensitivity, dtype=float), db_to_lin(rx.reference_extinction_ratio)
    f0 = microring.frequency_hz(lk.wavelength)
    quantum_w = _elementwise(receiver.quantum_limit_w, lk.data_rate, f0, target_ber)
    sens_dbm = 10.0 * np.log10(sens_w / 1e-3)
    fallback = np.asarray(sens_w < quantum_w)
    wavelength = f(lk.wavelength, dtype=float)
    band = SMF_BAND_M if d.fiber.type == "smf" else MMF_BAND_M
    fallback = fallback | (wavelength < SILICON_MIN_WAVELENGTH_M) | (wavelength < band[0]) | (wavelength > band[1])
    fallback = fallback | (f(tn.t_min) >= f(tn.t_max))

    # --- penalties both kinds share (link.shared_penalties) --------------------------------------------------------
    er_db = modulator.relative_extinction_penalty_db(er, ref_er)
    rin_db = noise.rin_penalty_db(lz.rin, receiver.NOISE_BANDWIDTH_FRACTION * symbol_rate, eye_q, eye_scale) + 0.0
    if d.fiber.dispersion_model == "none":
        disp_db = 0.0
    else:
        dispersion = fiber.dispersion_s_per_m2(lk.wavelength, fb.zero_dispersion_wavelength, fb.dispersion_slope)
        spread = fiber.spread_product(symbol_rate, ls.fiber_length, dispersion,
                                      fiber.transform_limited_rms_width_m(lk.wavelength, symbol_rate))
        disp_db = fiber.DISPERSION_PENALTIES[d.fiber.dispersion_model](spread)

    # --- ring figures (ring_wdm.ring_figures) ------------------------------------------------------------------------
    if d.ring.loss_model == "bend-fit":
        ring_loss = microring.bending_loss_db_per_m(r.radius, f(r.bend_fit_coefficient) / 100.0, r.bend_fit_exponent,
                                                    f(r.bend_fit_straight_loss) / 100.0)
    else:
        ring_loss = f(r.propagation_loss, dtype=float)
    fsr = microring.fsr_frequency_hz(r.group_index, microring.circumference_m(r.radius))
    fwhm = microring.fwhm_hz(f0, r.filter_q)
    mod_fwhm = microring.fwhm_hz(f0, mod.q)
    qi = microring.intrinsic_q(r.group_index, lk.wavelength, ring_loss)
    t0 = microring.through_on_resonance_symmetric(r.filter_q, qi)
    t0_mod = (microring.through_on_resonance_symmetric(mod.q, qi) if d.modulator.kind == "add-drop"
              else microring.through_on_resonance_all_pass(mod.q, qi))
    drop_db = microring.drop_loss_db(r.filter_q, qi)
    mod_max_rate = microring.max_rate_for_q(f0, mod.q)
    filter_max_rate = microring.max_rate_for_q(f0, r.filter_q)
    fsr_n = np.floor(fsr / f(lk.channel_spacing) * (1 + 1e-12)).astype(int)
    isi_db = filtering.FILTER_ISI_MODELS[d.ring.filter_isi](fwhm / symbol_rate)
    constant_db = 0.0 + er_db + isi_db + rin_db + disp_db  # the order of ring_wdm.link_budget's `constant`

    # --- laser, fixed ledger (ring_wdm.ledger with no ring passed) ----------------------------------------------
    flat = f(lz.flatness, dtype=float) if d.laser.kind == "comb" else 0.0
    comb = d.laser.kind == "comb"
    laser_line_dbm = w_to_dbm(lz.power_per_line)
    split_db = laser.split_loss_db(lz.fibers_per_source)
    mean_in_bus = laser_line_dbm - lz.coupling_loss - split_db
    cap_dbm = w_to_dbm(lz.aggregate_power_limit)
    before_tx = [f(ls.tx_waveguide_length) * ls.waveguide_loss, f(ls.bends, dtype=float) * ls.bend_loss,
                 f(ls.crossings, dtype=float) * ls.crossing_loss, f(ls.splitters, dtype=float) * ls.splitter_loss]
    if d.modulator.kind == "add-drop":
        before_tx.append(1.0 * microring.drop_loss_db(mod.q, qi))
    before_tx += [1.0 * f(mod.insertion_loss), modulator.ook_penalty_db(er)]
    path = [1.0 * f(ls.coupler), f(ls.connectors, dtype=float) * ls.connector_loss]
    if np.any(f(ls.splices) != 0):
        path.append(f(ls.splices, dtype=float) * ls.splice_loss)
    path.append(f(ls.fiber_length) * ls.fiber_loss)
    path += [value for _, value in named_losses(d.loss.extra_losses)]
    path += [f(ls.switch_ports, dtype=float) * (f(ls.switch_loss) + f(ls.switch_connectors) * ls.connector_loss),
             1.0 * f(ls.mux_demux_loss), 1.0 * f(ls.coupler)]
    after_rx = [f(ls.rx_waveguide_length) * ls.waveguide_loss, 1.0 * drop_db]

    def ledger_total(through_tx, through_rx):
        total = 0.0
        for value in (*before_tx, through_tx, *path, through_rx, *after_rx):
            total = total + value
        return total

    fixed_db = ledger_total(0.0, 0.0)

    # --- the wavelength-count search (ring_wdm.link_budget) ------------------------------------------------------
    n_req = f(lk.wavelengths_per_fiber)
    lines = f(lz.lines)
    ceiling = budget.max_wavelengths_closed_form(cap_dbm - flat, sens_dbm, constant_db, fixed_db, lk.system_margin)
    start = np.maximum(np.minimum(fsr_n + 2, ceiling + 1), 2)
    table_n = int(max(np.max(start), np.max(n_req), np.max(lines)))
    spectral = np.broadcast_arrays(*(f(v, dtype=float) for v in (lk.channel_spacing, mod_fwhm, t0_mod, fwhm, t0,
                                                                  r.through_excess_loss, fsr, symbol_rate)))
    budget_inputs = (mean_in_bus - flat, cap_dbm - flat, lines, fixed_db, constant_db, sens_dbm, lk.system_margin,
                     eye_q, er, flat)
    while True:
        points = math.prod(np.broadcast_shapes(spectral[0].shape, *(np.shape(v) for v in budget_inputs)))
        if max(points, 2 * spectral[0].size) * table_n > TABLE_ELEMENTS and math.prod(shape) > 1:
            raise _TooLarge
        tables = _count_tables(d, spectral, table_n, lines)
        count, at_end = _budget_counts(d, tables, budget_inputs, table_n)
        if not at_end or table_n >= MAX_SEARCH_WAVELENGTHS:
            break
        table_n = min(2 * table_n, MAX_SEARCH_WAVELENGTHS)
    through_tx_t, through_rx_t, leak_t = tables
    i = n_req - 1
    through_rx = _at_count(through_rx_t, i)
    through_tx = _at_count(through_tx_t, i)
    present = n_req if d.modulator.kind == "add-drop" else (np.maximum(lines, n_req) if comb else n_req)
    leak = _at_count(leak_t, present - 1) * db_to_lin(flat)
    xt_db = crosstalk.penalty_db(leak, eye_q, er, eye_scale)
    lit_req = np.maximum(lines, n_req) if comb else n_req
    margin = budget.link_margin_db(line_power_dbm=mean_in_bus - flat, aggregate_cap_dbm=cap_dbm - flat,
                                   wavelengths=n_req, lines_in_bus=lit_req, fixed_loss_db=fixed_db,
                                   rings_loss_db=through_tx + through_rx, penalty_db=constant_db + xt_db,
                                   sensitivity_dbm=sens_dbm, system_margin_db=lk.system_margin)
    launch_dbm = budget.launch_power_dbm(mean_in_bus, cap_dbm, lit_req) - flat
    total_db = ledger_total(through_tx, through_rx)
    penalty_db = 0.0 + er_db + xt_db + isi_db + rin_db + disp_db  # BudgetFigures.penalty_db: the penalties in order
    min_line = budget.min_line_power_dbm(sens_dbm, total_db + (lz.coupling_loss + split_db + flat), penalty_db,
                                         lk.system_margin)
    fiber_launch = _fiber_launch_dbm(d, sec, before_tx, path, launch_dbm + flat, lit_req, through_tx, mod_fwhm,
                                     t0_mod, fsr)

    # --- capacity (ring_wdm.capacity_limits) -------------------------------------------------------------------------
    escape = packaging.escape_fibers_per_direction(pk.chiplets, pk.chiplet_fiber_edge, pk.fiber_pitch).astype(int)
    payload = f(lk.data_rate) * (1.0 / (1.0 + overhead))
    mod_ok = symbol_rate <= mod_max_rate
    filter_ok = symbol_rate <= filter_max_rate
    fibers = f(lk.fibers_per_direction)
    rate_run = np.where(mod_ok & filter_ok, payload, 0.0)
    n_phys = np.minimum(np.minimum(fsr_n, lines), count)
    capacity = np.minimum(n_phys, n_req) * rate_run * np.minimum(fibers, escape)
    wavelengths_used = np.where(capacity > 0, np.minimum(n_phys, n_req), 0)
    fibers_used = np.minimum(fibers, escape)
    binding = _binding(fsr_n, lines, count, n_req, ~mod_ok, ~filter_ok, escape < fibers)

    # --- tuning and ring yield (ring_wdm.tuning) ---------------------------------------------------------------------
    if d.ring.tuning_model == "given":
        per_kelvin = f(r.tuning_efficiency, dtype=float)
    else:
        per_kelvin = microring.thermo_optic_shift_hz_per_k(f0, r.dn_dt, r.group_index)
    eta = microring.heater_efficiency_hz_per_w(per_kelvin, tn.heating_efficiency)
    rings_used = 2 * fibers_used * wavelengths_used
    heater_reach = f(tn.max_heater_power) * eta
    io_yield = None
    if d.tuning.strategy == "nearest-channel":
        shift = microring.nearest_channel_shift_hz(fsr, n_req, lk.channel_spacing)
        operating = shift
    else:
        if d.tuning.strategy == "full-thermal":
            operating = microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min,
                                                        tn.t_max, tn.temperature)
            shift = microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min, tn.t_max,
                                                    tn.t_min)
            temperature_hz = (f(tn.t_max) - tn.t_min) * per_kelvin
        else:
            operating = shift = microring.athermal_shift_hz(tn.sigma_local, tn.sigma_system)
            temperature_hz = 0.0
        sigma = np.hypot(tn.sigma_local, tn.sigma_system)
        available = np.maximum(heater_reach - temperature_hz, 0.0)
        p_lock = _elementwise(lambda a, s: variation.lock_probability(a, 0.5 * a, s), available, sigma)
        io_yield = p_lock ** (2 * fibers_used * n_req)
    tuning_w = microring.heater_power_w(rings_used, operating, eta)

    # --- optical power and energy per bit (ring_wdm.optical_power_w, records.LinkEnergy) ---------------------------
    sources = np.ceil(fibers_used / f(lz.fibers_per_source))
    emitted_line_w = dbm_to_w(np.minimum(laser_line_dbm, cap_dbm - 10.0 * np.log10(lit_req) + lz.coupling_loss
                                         + split_db))
    lit = laser.lit_lines(d.laser.kind, lines, wavelengths_used)
    parts = (laser.electrical_power_w(sources * lit * emitted_line_w, lz.wall_plug_efficiency),
             f(mod.energy) * capacity, f(rx.energy) * capacity, tuning_w)
    with np.errstate(divide="ignore", invalid="ignore"):
        energy = 0.0
        for part in parts:
            energy = energy + np.where(capacity > 0, part / np.where(capacity > 0, capacity, 1.0), np.nan)

    # --- violations, in evaluate's order ------------------------------------------------------------------------------
    flags = (margin < 0, fiber_launch > w_to_dbm(lz.eye_safety_limit), n_req > fsr_n, n_req > lines,
             fibers > escape, symbol_rate > mod_max_rate, symbol_rate > filter_max_rate, f(r.filter_q) >= qi,
             (f(mod.q) >= qi) & (d.modulator.kind == "add-drop"), f(r.filter_q) > r.max_q, f(mod.q) > r.max_q,
             shift > heater_reach, io_yield < tn.target_yield if io_yield is not None else False,
             f(pk.chiplets) * pk.chiplet_fiber_edge > packaging.package_perimeter_m(pk.width, pk.height))
    full = (lambda a: np.broadcast_to(a, shape))
    return GridResult(margin_db=full(margin), capacity_bps=full(capacity), binding_limit=full(binding),
                      max_wavelengths_per_fiber=full(n_phys), power_budget_count=full(count),
                      total_energy_j_per_bit=full(energy), min_laser_power_per_line_dbm=full(min_line),
                      violations=full(_joined(flags, VIOLATION_ORDER)), fallback=full(fallback))


def _at_count(table, index):
    """table[..., index] for an index array that broadcasts with the table's leading axes."""
    return _along_counts(table, np.asarray(index)[..., None])[..., 0]


def _along_counts(table, index):
    """The table's last axis gathered at `index`, whose leading axes broadcast with the table's and whose last axis
    lists the counts wanted."""
    index = np.asarray(index)
    lead = np.broadcast_shapes(table.shape[:-1], index.shape[:-1])
    return np.take_along_axis(np.broadcast_to(table, lead + table.shape[-1:]),
                              np.broadcast_to(index, lead + index.shape[-1:]), axis=-1)


def _count_tables(d: LinkDesign, spectral, n_max: int, lines):
    """Per-count tables (transmit rings, receive rings, crosstalk ΣX) of the worst wavelength, one row per distinct
    spectral point: transmit and receive up to `n_max`, crosstalk up to the lines present (a comb's lines pass the
    all-pass modulators whether used or not)."""
    spacing, mod_fwhm, t0_mod, fwhm, t0, excess, fsr, rate = spectral
    tx = microring.bus_through_loss_by_count(n_max, spacing, mod_fwhm, t0_mod, excess, fsr)
    rx = microring.bus_through_loss_by_count(n_max, spacing, fwhm, t0, excess, fsr)
    leak_n = n_max if d.modulator.kind == "add-drop" else max(n_max, int(np.max(lines)))
    leak = crosstalk.worst_channel_leakage_by_count(leak_n, spacing, fwhm, rate, fsr)
    return tx, rx, leak


def _budget_counts(d: LinkDesign, tables, inputs, n_max: int):
    """Largest count 1..n_max whose margin closes at every point (`budget.largest_feasible_count` along the count
    axis), and whether any point still closes at n_max (the search goes on)."""
    line_dbm, cap_dbm, lines, fixed_db, constant_db, sens_dbm, system_margin, eye_q, er, flat = inputs
    tx, rx, leak = tables
    comb = d.laser.kind == "comb"
    counts = np.arange(1, n_max + 1)
    lead = np.broadcast_shapes(*(np.shape(v) for v in (line_dbm, cap_dbm, lines, fixed_db, constant_db, sens_dbm,
                                                       system_margin, eye_q, er, flat)), tx.shape[:-1])
    expand = (lambda v: np.asarray(v, dtype=float)[..., None])
    present = counts if d.modulator.kind == "add-drop" else (np.maximum(np.asarray(lines)[..., None], counts) if comb
                                                             else counts)
    in_bus = np.maximum(np.asarray(lines)[..., None], counts) if comb else counts
    leak_by_count = _along_counts(leak, present - 1) * db_to_lin(expand(flat))
    xt_db = crosstalk.penalty_db(leak_by_count, expand(eye_q), expand(er), float(modulation.LEVELS[
        d.link.modulation] - 1))
    margins = budget.link_margin_db(line_power_dbm=expand(line_dbm), aggregate_cap_dbm=expand(cap_dbm),
                                    wavelengths=counts, lines_in_bus=in_bus, fixed_loss_db=expand(fixed_db),
                                    rings_loss_db=tx[..., :n_max] + rx[..., :n_max],
                                    penalty_db=expand(constant_db) + xt_db, sensitivity_dbm=expand(sens_dbm),
                                    system_margin_db=expand(system_margin))
    margins = np.broadcast_to(margins, lead + (n_max,))
    ok = margins >= 0.0
    count = np.where(ok.any(axis=-1), n_max - np.argmax(ok[..., ::-1], axis=-1), 0)
    return count, bool(ok[..., -1].any())


def _fiber_launch_dbm(d: LinkDesign, sec, before_tx, path, mean_line_dbm, lit, data_through_db, mod_fwhm, t0_mod,
                      fsr):
    """Total power into one fiber (ring_wdm._fiber_launch_dbm): the N data lines, and with all-pass modulators the
    unused comb lines, each passing the N modulators at its own detuning."""
    n = np.asarray(sec["link"].wavelengths_per_fiber)
    tx_db = 0.0
    for value in (*before_tx, data_through_db, path[0]):  # up to and including the output coupler
        tx_db = tx_db + value
    total_w = n * dbm_to_w(mean_line_dbm - tx_db)
    if d.modulator.kind != "all-pass" or not np.any(np.asarray(lit) > n):
        return w_to_dbm(total_w)
    base_db = tx_db - sec["modulator"].insertion_loss - modulator.ook_penalty_db(db_to_lin(
        sec["modulator"].extinction_ratio)) - data_through_db
    spacing, excess = sec["link"].channel_spacing, sec["ring"].through_excess_loss

    def unused_lines_w(n_, lit_, spacing_, fsr_, fwhm_, t0_, excess_, line_dbm):
        n_, lit_ = int(n_), int(lit_)
        if lit_ <= n_:
            return 0.0
        offsets = np.arange(n_, lit_)[:, None] - np.arange(n_)[None, :]
        passing = microring.through_loss_db(wrapped_detuning_hz(offsets * spacing_, fsr_), fwhm_, t0_,
                                            excess_).sum(axis=1)
        return float(np.sum(dbm_to_w(line_dbm - passing)))

    unused = _elementwise(unused_lines_w, n, lit, spacing, fsr, mod_fwhm, t0_mod, excess, mean_line_dbm - base_db)
    return w_to_dbm(total_w + unused)


def _binding(fsr_n, lines, budget_n, n_req, modulator_limited, filter_limited, escape_limited):
    """ring_wdm._binding over arrays: the tightest wavelength limit (first on ties) if below the requested count,
    then the ring linewidths and the package, joined with '+'; 'requested' when none binds."""
    counts = np.stack(np.broadcast_arrays(fsr_n, lines, budget_n))
    tightest = np.argmin(counts, axis=0)
    below = np.min(counts, axis=0) < n_req
    names = ("fsr_channels", "laser_lines", "power_budget")
    flags = [below & (tightest == k) for k in range(3)] + [modulator_limited, filter_limited, escape_limited]
    text = _joined(flags, (*names, "modulator_bandwidth", "filter_bandwidth", "package_escape"), "+")
    return np.where(text == "", "requested", text)


def _joined(flags, names, sep=";"):
    """Per point, the names whose flag holds, joined in order: each distinct combination is joined once."""
    shape = np.broadcast_shapes(*(np.shape(flag) for flag in flags))
    code = np.zeros(shape, dtype=np.int64)
    for bit, flag in enumerate(flags):
        code |= np.asarray(flag, dtype=np.int64) << bit
    texts = np.empty(1 << len(flags), dtype=object)
    for c in np.flatnonzero(np.bincount(code.ravel(), minlength=texts.size)):
        texts[c] = sep.join(name for bit, name in enumerate(names) if c >> bit & 1)
    return texts[code]
