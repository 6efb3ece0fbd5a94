"""The ring-wdm link, stage by stage: micro-ring modulators on CW comb or DFB lines, N wavelengths per fiber, drop
filters at the receiver. Each stage returns a record of `photonics.records`; `photonics.link.evaluate` composes them.

The worst wavelength is the weakest comb line in the worst position of the grid: on the transmit bus it passes the
other N−1 modulator rings, on the receive bus the other N−1 drop filters, each at its own detuning k·spacing folded
by the FSR (E19–E20); it meets crosstalk from every channel in the fiber (E6–E7) and is filtered by its own drop
ring (E18). On-off keying turns the CW line into the data's average power (E8), so the received power and the
sensitivity are both average powers.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from core.units import db_to_lin, dbm_to_w, format_si, w_to_dbm
from photonics import budget, crosstalk, filtering, laser, microring, modulator, packaging, variation
from photonics.design import LinkDesign
from photonics.grid import grid_offsets, worst_victim_sum_by_count, wrapped_detuning_hz
from photonics.loss import LedgerLine, distributed, fiber_path, line, total_db
from photonics.signal import baud_text
from photonics.records import (BudgetFigures, CapacityFigures, KindStages, PackageFigures, ReceiverFigures, RingFigures,
                               RingYield, SignalFigures, TuningFigures, Violation)

MAX_SEARCH_WAVELENGTHS = 4096  # the wavelength-count search stops here (a warning says when it is reached)
BEND_FIT_MIN_RADIUS_M = 5e-6  # the UBC bending-loss fit covers R ≥ 5 µm; below it extrapolates (15,000 dB/cm at 3 µm)
PARKED_DETUNING_SPACINGS = 0.5  # an idle ring of an intermediate GPU waits half a spacing from every channel [assumed]


def stages(d: LinkDesign, signal: SignalFigures, rx: ReceiverFigures, shared: list[LedgerLine]) -> KindStages:
    """The ring-wdm stages in order: ring figures, budget, capacity, tuning, packaging, optical power."""
    ring = ring_figures(d, signal)
    power = link_budget(d, ring, signal, rx, shared)
    cap = capacity_limits(d, ring, signal, power)
    tune = tuning(d, ring, cap)
    pack = package_figures(d, cap)
    return KindStages(ring=ring, budget=power, capacity=cap, tuning=tune, package=pack,
                      optical_power_w=optical_power_w(d, power, cap, tune), modal_reach_m=math.inf,
                      violations=tuple(violations(d, ring, signal, cap, tune, pack)),
                      warnings=tuple(warnings(d, ring, power, tune)))


# --- ring figures -----------------------------------------------------------------------------------------------
def ring_loss_db_per_m(d: LinkDesign) -> float:
    """Intrinsic loss of the ring waveguide: the given value, or the bending-loss fit at the ring radius."""
    r = d.ring
    if r.loss_model == "bend-fit":
        return bend_fit_loss_db_per_m(d)
    return r.propagation_loss


def bend_fit_loss_db_per_m(d: LinkDesign) -> float:
    """The UBC bending-loss fit at the design's radius (PhoenixSim)."""
    r = d.ring
    return float(microring.bending_loss_db_per_m(r.radius, r.bend_fit_coefficient / 100.0, r.bend_fit_exponent,
                                                 r.bend_fit_straight_loss / 100.0))


def ring_figures(d: LinkDesign, signal: SignalFigures) -> RingFigures:
    r, lk = d.ring, d.link
    f0 = float(microring.frequency_hz(lk.wavelength))
    length = float(microring.circumference_m(r.radius))
    fsr = float(microring.fsr_frequency_hz(r.group_index, length))
    fwhm = float(microring.fwhm_hz(f0, r.filter_q))
    qi = float(microring.intrinsic_q(r.group_index, lk.wavelength, ring_loss_db_per_m(d)))
    t0 = float(microring.through_on_resonance_symmetric(r.filter_q, qi))
    t0_mod = float(microring.through_on_resonance_symmetric(d.modulator.q, qi) if d.modulator.kind == "add-drop"
                   else microring.through_on_resonance_all_pass(d.modulator.q, qi))
    return RingFigures(
        fsr_hz=fsr,
        fsr_m=float(microring.fsr_wavelength_m(lk.wavelength, r.group_index, length)),
        filter_fwhm_hz=fwhm,
        modulator_fwhm_hz=float(microring.fwhm_hz(f0, d.modulator.q)),
        finesse=float(microring.finesse(fsr, fwhm)),
        intrinsic_q=qi,
        drop_loss_db=float(microring.drop_loss_db(r.filter_q, qi)),
        filter_on_resonance=t0,
        modulator_on_resonance=t0_mod,
        through_loss_db=float(microring.through_loss_db(lk.channel_spacing, fwhm, t0, r.through_excess_loss)),
        modulator_drop_loss_db=float(microring.drop_loss_db(d.modulator.q, qi)),
        modulator_max_rate_bps=float(microring.max_rate_for_q(f0, d.modulator.q)),
        filter_max_rate_bps=float(microring.max_rate_for_q(f0, r.filter_q)),
        filter_to_symbol_rate=fwhm / signal.symbol_rate_baud,
    )


def fsr_channels(d: LinkDesign, ring: RingFigures) -> int:
    """Channels one FSR holds at the grid spacing, ⌊FSR / spacing⌋."""
    return int(math.floor(ring.fsr_hz / d.link.channel_spacing * (1 + 1e-12)))


def filter_isi_penalty(d: LinkDesign, ring: RingFigures) -> LedgerLine:
    """The drop filter's ISI on its own channel, by the design's model (E18)."""
    delta = ring.filter_to_symbol_rate
    value = float(filtering.FILTER_ISI_MODELS[d.ring.filter_isi](delta))
    return LedgerLine("filter ISI", value, f"Δ = FWHM/symbol rate = {delta:.2f}, {d.ring.filter_isi} model (E18)")


# --- ledger --------------------------------------------------------------------------------------------------------
def _flatness_db(d: LinkDesign) -> float:
    """Weakest line below the mean: the comb's envelope; a DFB array has none."""
    return d.laser.flatness if d.laser.kind == "comb" else 0.0


def _laser_lines_in_bus(d: LinkDesign, counts):
    """Laser lines the transmit bus carries: a comb brings all its lines, a DFB array only the ones used."""
    return np.maximum(d.laser.lines, counts) if d.laser.kind == "comb" else np.asarray(counts)


def modulation_loss(d: LinkDesign, levels: int) -> LedgerLine:
    """Modulating a CW line: its average power over its peak (E8; PAM levels average to the same mid level)."""
    mod = d.modulator
    value = float(modulator.ook_penalty_db(db_to_lin(mod.extinction_ratio)))
    if levels == 2:
        return LedgerLine("on-off keying", value, f"average of '1' and '0' at ER {mod.extinction_ratio:g} dB (E8)")
    return LedgerLine(f"PAM{levels} levels", value, f"average of {levels} levels, outer ER {mod.extinction_ratio:g} dB "
                                                    "(E8, E24)")


def ledger(d: LinkDesign, ring: RingFigures, n: int, levels: int, through_tx_db: float,
           through_rx_db: float) -> tuple[LedgerLine, ...]:
    """Losses of the worst of `n` wavelengths from the transmit bus to the detector, in path order."""
    ls, mod = d.loss, d.modulator
    items = [
        distributed("transmit waveguide", ls.tx_waveguide_length, ls.waveguide_loss),
        line("bends", ls.bends, ls.bend_loss, "each"),
        line("crossings", ls.crossings, ls.crossing_loss, "each"),
        line("Y-junctions", ls.splitters, ls.splitter_loss, "each"),
    ]
    if mod.kind == "add-drop":
        items.append(line("modulator drop port", 1, ring.modulator_drop_loss_db, "add-drop modulator (E4)"))
    spacing = format_si(d.link.channel_spacing, "Hz")
    items += [
        line("modulator insertion", 1, mod.insertion_loss, "'1' level"),
        modulation_loss(d, levels),
        LedgerLine("rings passed, transmit", through_tx_db, f"{n - 1} modulator rings at k × {spacing}, FSR-folded "
                                                            "(E19–E20)"),
        line("output coupler", 1, ls.coupler, "per facet"),
        *fiber_path(d),
        line("input coupler", 1, ls.coupler, "per facet"),
        LedgerLine("rings passed, receive", through_rx_db, f"{n - 1} drop filters at k × {spacing}, FSR-folded "
                                                           "(E19–E20)"),
        distributed("receive waveguide", ls.rx_waveguide_length, ls.waveguide_loss),
        line("drop filter", 1, ring.drop_loss_db, "on resonance (E4)"),
    ]
    return tuple(items)


def transmit_loss_db(ledger_lines) -> float:
    """Loss from the transmit bus into the fiber: the ledger up to and including the output coupler."""
    names = [item.name for item in ledger_lines]
    return total_db(ledger_lines[: names.index("output coupler") + 1])


# --- budget --------------------------------------------------------------------------------------------------------
def _bus_tables(d: LinkDesign, ring: RingFigures, n_max: int):
    """(transmit, receive) through loss of the worst wavelength for N = 1..n_max: the other modulators on the transmit
    bus, the other drop filters on the receive bus, each at its own detuning (E19–E20)."""
    lk, excess = d.link, d.ring.through_excess_loss
    tx = _table(microring.bus_through_loss_by_count, n_max, float(lk.channel_spacing), ring.modulator_fwhm_hz,
                ring.modulator_on_resonance, excess, ring.fsr_hz)
    rx = _table(microring.bus_through_loss_by_count, n_max, float(lk.channel_spacing), ring.filter_fwhm_hz,
                ring.filter_on_resonance, excess, ring.fsr_hz)
    return tx, rx


@functools.lru_cache(maxsize=512)
def _table(kind, *args) -> np.ndarray:
    """A per-count table (`microring.bus_through_loss_by_count`, `crosstalk.worst_channel_leakage_by_count`) for
    scalar arguments, kept read-only: design points that differ off the grid's spectrum (power, losses) share it."""
    table = kind(*args)
    table.flags.writeable = False
    return table


def _crosstalk_by_count(d: LinkDesign, ring: RingFigures, signal: SignalFigures, counts, er: float):
    """(ΣX, penalty dB) of the weakest line for each count: every channel in the fiber is an aggressor (all-pass
    modulators let unused comb lines through), at the mean line power, 10^(flatness/10) above the victim."""
    present = counts if d.modulator.kind == "add-drop" else _laser_lines_in_bus(d, counts)
    table = _table(crosstalk.worst_channel_leakage_by_count, int(present.max()), float(d.link.channel_spacing),
                   ring.filter_fwhm_hz, signal.symbol_rate_baud, ring.fsr_hz)
    leak = table[present - 1] * db_to_lin(_flatness_db(d))
    return leak, crosstalk.penalty_db(leak, signal.eye_q, db_to_lin(d.modulator.extinction_ratio), signal.eye_scale)


def link_budget(d: LinkDesign, ring: RingFigures, signal: SignalFigures, rx: ReceiverFigures,
                shared_penalties: list[LedgerLine]) -> BudgetFigures:
    """Margin of the worst wavelength for every count up to where it fails (the power-budget count), and the full
    ledger and penalties at the design's own count. `shared_penalties` (extinction ratio, RIN, dispersion) do not
    depend on the count; crosstalk and the through loss do, the filter ISI is added here."""
    lk, lz = d.link, d.laser
    flat = _flatness_db(d)
    er = float(db_to_lin(d.modulator.extinction_ratio))
    laser_line_dbm = float(w_to_dbm(lz.power_per_line))
    split_db = float(laser.split_loss_db(lz.fibers_per_source))
    mean_in_bus_dbm = laser_line_dbm - lz.coupling_loss - split_db
    cap_dbm = float(w_to_dbm(lz.aggregate_power_limit))
    isi = filter_isi_penalty(d, ring)
    constant = [shared_penalties[0], isi, *shared_penalties[1:]]
    constant_db = total_db(constant)
    fixed_db = total_db(ledger(d, ring, 1, signal.levels, 0.0, 0.0))  # the ledger with no ring passed

    def margins_up_to(n_max: int):
        counts = np.arange(1, n_max + 1)
        through_tx, through_rx = _bus_tables(d, ring, n_max)
        leak, xt_db = _crosstalk_by_count(d, ring, signal, counts, er)
        m = budget.link_margin_db(
            line_power_dbm=mean_in_bus_dbm - flat, aggregate_cap_dbm=cap_dbm - flat, wavelengths=counts,
            lines_in_bus=_laser_lines_in_bus(d, counts), fixed_loss_db=fixed_db, rings_loss_db=through_tx + through_rx,
            penalty_db=constant_db + xt_db, sensitivity_dbm=rx.sensitivity_dbm, system_margin_db=lk.system_margin)
        return through_tx, through_rx, leak, xt_db, m

    n_req = lk.wavelengths_per_fiber
    # no count beyond E10's closed form closes even without rings and crosstalk: start the search below it
    ceiling = int(budget.max_wavelengths_closed_form(cap_dbm - flat, rx.sensitivity_dbm, constant_db, fixed_db,
                                                     lk.system_margin))
    n_max = max(n_req, min(fsr_channels(d, ring) + 2, ceiling + 1), lz.lines, 2)
    tables = margins_up_to(n_max)
    while tables[-1][-1] >= 0.0 and n_max < MAX_SEARCH_WAVELENGTHS:  # margin still positive: search further
        n_max = min(2 * n_max, MAX_SEARCH_WAVELENGTHS)
        tables = margins_up_to(n_max)
    through_tx, through_rx, leak, xt_db, margins = tables

    i = n_req - 1
    lit_req = int(_laser_lines_in_bus(d, n_req))
    launch_dbm = float(budget.launch_power_dbm(mean_in_bus_dbm, cap_dbm, lit_req)) - flat
    items = ledger(d, ring, n_req, signal.levels, float(through_tx[i]), float(through_rx[i]))
    penalties = (constant[0],
                 LedgerLine("crosstalk", float(xt_db[i]), f"ΣX {leak[i]:.4f} at the weakest line, {n_req} channels "
                            "(E6–E7)"),
                 *constant[1:])
    return BudgetFigures(
        ledger=items, penalties=penalties, laser_line_dbm=laser_line_dbm, launch_dbm=launch_dbm,
        aggregate_cap_binds=bool(mean_in_bus_dbm > cap_dbm - 10.0 * math.log10(lit_req)),
        received_dbm=launch_dbm - total_db(items), margin_db=float(margins[i]),
        power_budget_count=budget.largest_feasible_count(margins),
        fiber_launch_dbm=_fiber_launch_dbm(d, ring, items, launch_dbm + flat, lit_req, float(through_tx[i])),
        crosstalk_leakage=float(leak[i]), source_to_launch_db=lz.coupling_loss + split_db + flat)


def _fiber_launch_dbm(d: LinkDesign, ring: RingFigures, items, mean_line_dbm: float, lit: int,
                      data_through_db: float) -> float:
    """Total power entering one fiber (eye safety): the N data lines, and with all-pass modulators the unused CW comb
    lines too, each passing the N modulators at its own detuning but no modulator of its own."""
    n = d.link.wavelengths_per_fiber
    tx_db = transmit_loss_db(items)
    total_w = n * float(dbm_to_w(mean_line_dbm - tx_db))
    if d.modulator.kind == "all-pass" and lit > n:
        base_db = tx_db - d.modulator.insertion_loss - modulation_loss(d, 2).value_db - data_through_db
        offsets = np.arange(n, lit)[:, None] - np.arange(n)[None, :]
        passing = microring.through_loss_db(wrapped_detuning_hz(offsets * d.link.channel_spacing, ring.fsr_hz),
                                            ring.modulator_fwhm_hz, ring.modulator_on_resonance,
                                            d.ring.through_excess_loss).sum(axis=1)
        total_w += float(np.sum(dbm_to_w(mean_line_dbm - base_db - passing)))
    return float(w_to_dbm(total_w))


# --- capacity ------------------------------------------------------------------------------------------------------
def capacity_limits(d: LinkDesign, ring: RingFigures, signal: SignalFigures, power: BudgetFigures) -> CapacityFigures:
    """Every limit on the wavelength count, the symbol rate (modulator and filter linewidths, E13/E18d) and the
    fibers; the capacity they allow (payload after the FEC overhead) and the one that binds."""
    lk, lz, pk = d.link, d.laser, d.package
    escape = int(packaging.escape_fibers_per_direction(pk.chiplets, pk.chiplet_fiber_edge, pk.fiber_pitch))
    payload = lk.data_rate * signal.fec.payload_fraction
    # a ring whose linewidth cannot pass the symbol rate carries nothing at that rate: no slower rate is assumed
    mod_ok = signal.symbol_rate_baud <= ring.modulator_max_rate_bps
    filter_ok = signal.symbol_rate_baud <= ring.filter_max_rate_bps
    rate_run = payload if mod_ok and filter_ok else 0.0
    fibers, n_req, fsr_n, budget_n = lk.fibers_per_direction, lk.wavelengths_per_fiber, fsr_channels(d, ring), \
        power.power_budget_count
    counts = {"fsr_channels": fsr_n, "laser_lines": lz.lines, "power_budget": budget_n, "requested": n_req}
    n_phys = min(fsr_n, lz.lines, budget_n)

    def limits_for(n_rate: int, n_fibers: int, n_escape: int) -> dict[str, float]:
        return {"fsr_channels": fsr_n * payload * n_fibers, "laser_lines": lz.lines * payload * n_fibers,
                "power_budget": budget_n * payload * n_fibers,
                "modulator_bandwidth": n_rate * (payload if mod_ok else 0.0) * n_fibers,
                "filter_bandwidth": n_rate * (payload if filter_ok else 0.0) * n_fibers,
                "package_escape": n_rate * payload * n_escape}

    limits = {**limits_for(n_req, fibers, escape), "requested": n_req * payload * fibers}
    capacity = min(n_phys, n_req) * rate_run * min(fibers, escape)
    max_limits = limits_for(n_phys, escape, escape)
    return CapacityFigures(
        wavelength_limits=counts, limits_bps=limits, capacity_bps=capacity,
        binding_limit=_binding(limits, counts, not mod_ok, not filter_ok, escape < fibers),
        max_capacity_bps=n_phys * rate_run * escape, max_binding_limit=min(max_limits, key=lambda k: max_limits[k]),
        max_wavelengths_per_fiber=n_phys, wavelengths_used=min(n_phys, n_req) if capacity > 0 else 0,
        fibers_used=min(fibers, escape))


def _binding(limits: dict[str, float], counts: dict[str, int], modulator_limited: bool, filter_limited: bool,
             escape_limited: bool) -> str:
    """The limit(s) that set the capacity = min(wavelength counts) × rate × min(fibers): the tightest wavelength
    limit if it is below the requested count, the rings if the symbol rate is beyond them, the package if the fibers
    are; joined with '+' when several bind, 'requested' when none does."""
    names = []
    wavelength = min(("fsr_channels", "laser_lines", "power_budget"), key=lambda k: limits[k])
    if counts[wavelength] < counts["requested"]:
        names.append(wavelength)
    if modulator_limited:
        names.append("modulator_bandwidth")
    if filter_limited:
        names.append("filter_bandwidth")
    if escape_limited:
        names.append("package_escape")
    return "+".join(names) or "requested"


# --- tuning and ring yield -----------------------------------------------------------------------------------------
def tuning_hz_per_k(d: LinkDesign) -> float:
    """Resonance shift per kelvin: the given tuning efficiency, or f·(dn/dT)/n_g from the thermo-optic coefficient
    (E12)."""
    if d.ring.tuning_model == "given":
        return float(d.ring.tuning_efficiency)
    return float(microring.thermo_optic_shift_hz_per_k(microring.frequency_hz(d.link.wavelength), d.ring.dn_dt,
                                                        d.ring.group_index))


def tuning(d: LinkDesign, ring: RingFigures, cap: CapacityFigures) -> TuningFigures:
    """Heater power for the rings the capacity uses (a modulator and a filter per wavelength per fiber), each heated
    through the worst-case shift of the designed grid under the strategy (E11, E11b), and for full-thermal and athermal
    tuning the rings' lock yield under fabrication variation (E33–E34)."""
    tn = d.tuning
    per_kelvin = tuning_hz_per_k(d)
    eta = microring.heater_efficiency_hz_per_w(per_kelvin, tn.heating_efficiency)
    rings_used = 2 * cap.fibers_used * cap.wavelengths_used
    heater_reach = tn.max_heater_power * eta
    if tn.strategy == "nearest-channel":
        shift = float(microring.nearest_channel_shift_hz(ring.fsr_hz, d.link.wavelengths_per_fiber,
                                                         d.link.channel_spacing))
        return TuningFigures(float(microring.heater_power_w(rings_used, shift, eta)), shift, heater_reach)
    if tn.strategy == "full-thermal":
        operating = float(microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min,
                                                          tn.t_max, tn.temperature))
        shift = float(microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min,
                                                      tn.t_max, tn.t_min))
        temperature_hz = (tn.t_max - tn.t_min) * per_kelvin
    else:
        operating = shift = float(microring.athermal_shift_hz(tn.sigma_local, tn.sigma_system))
        temperature_hz = 0.0
    ring_yield = _ring_yield(d, cap, rings_used, heater_reach, temperature_hz, per_kelvin, eta)
    return TuningFigures(float(microring.heater_power_w(rings_used, operating, eta)), shift, heater_reach, ring_yield)


def _ring_yield(d: LinkDesign, cap: CapacityFigures, rings_used: int, heater_reach_hz: float, temperature_hz: float,
                per_kelvin: float, eta: float) -> RingYield:
    """Lock yield of the GPU's rings with the heater range left after the temperature allocation, biased at its
    centre (E33), and the range and power a target yield needs (E34). The yield counts every ring of the design."""
    tn = d.tuning
    sigma = variation.combined_sigma(tn.sigma_local, tn.sigma_system)
    rings = 2 * cap.fibers_used * d.link.wavelengths_per_fiber
    available = max(heater_reach_hz - temperature_hz, 0.0)
    p = variation.lock_probability(available, 0.5 * available, sigma)
    needed = float(variation.range_for_yield(sigma, tn.target_yield, rings))
    at_operating = needed + (tn.t_max - tn.temperature) * per_kelvin if temperature_hz else needed
    return RingYield(sigma_hz=sigma, rings=rings, range_hz=available, lock_probability=p,
                     io_yield=variation.all_lock_probability(p, rings), target_yield=tn.target_yield,
                     range_at_target_hz=needed, power_at_target_w=float(microring.heater_power_w(rings_used,
                                                                                                 at_operating, eta)))


# --- power, packaging ----------------------------------------------------------------------------------------------
def optical_power_w(d: LinkDesign, power: BudgetFigures, cap: CapacityFigures, tune: TuningFigures) -> dict:
    """Laser wall-plug power for the lines lit (a comb all its lines, a DFB array the wavelengths used), modulator and
    receiver energy at the capacity, heater power (W)."""
    lz = d.laser
    sources = math.ceil(cap.fibers_used / lz.fibers_per_source)
    lit_req = int(_laser_lines_in_bus(d, d.link.wavelengths_per_fiber))
    cap_dbm = float(w_to_dbm(lz.aggregate_power_limit))
    emitted_line_w = float(dbm_to_w(min(power.laser_line_dbm, cap_dbm - 10.0 * np.log10(lit_req) + lz.coupling_loss
                                        + float(laser.split_loss_db(lz.fibers_per_source)))))
    lit = laser.lit_lines(lz.kind, lz.lines, cap.wavelengths_used)
    return {"laser": float(laser.electrical_power_w(sources * lit * emitted_line_w, lz.wall_plug_efficiency)),
            "modulator": d.modulator.energy * cap.capacity_bps, "receiver": d.receiver.energy * cap.capacity_bps,
            "tuning": tune.power_w}


def package_figures(d: LinkDesign, cap: CapacityFigures) -> PackageFigures:
    pk = d.package
    escape = int(packaging.escape_fibers_per_direction(pk.chiplets, pk.chiplet_fiber_edge, pk.fiber_pitch))
    edge_used = pk.chiplets * pk.chiplet_fiber_edge
    return PackageFigures(escape, float(packaging.shoreline_density_bps_per_m(cap.capacity_bps, edge_used)))


# --- passing an intermediate GPU (SiP-Ring) ------------------------------------------------------------------------
def pass_through_rings_db(d: LinkDesign, ring: RingFigures) -> float:
    """Through loss of the worst wavelength passing one intermediate GPU's rings of its fiber: the N−1 modulators and
    N−1 drop filters of the other channels at their own detunings (E19–E20), and the GPU's own modulator and filter
    for this channel, parked half a spacing away."""
    lk, excess = d.link, d.ring.through_excess_loss
    n = lk.wavelengths_per_fiber
    detuning = wrapped_detuning_hz(grid_offsets(n) * lk.channel_spacing, ring.fsr_hz)
    parked = wrapped_detuning_hz(PARKED_DETUNING_SPACINGS * lk.channel_spacing, ring.fsr_hz)
    rings = [(ring.modulator_fwhm_hz, ring.modulator_on_resonance), (ring.filter_fwhm_hz, ring.filter_on_resonance)]
    per_offset = sum(microring.through_loss_db(detuning, fwhm, t0, excess) for fwhm, t0 in rings)
    own = sum(float(microring.through_loss_db(parked, fwhm, t0, excess)) for fwhm, t0 in rings)
    return float(worst_victim_sum_by_count(per_offset, n)[n - 1]) + own


# --- violations and warnings ---------------------------------------------------------------------------------------
def violations(d: LinkDesign, ring: RingFigures, signal: SignalFigures, cap: CapacityFigures, tune: TuningFigures,
               pack: PackageFigures) -> list[Violation]:
    lk, lz, r, pk, tn = d.link, d.laser, d.ring, d.package, d.tuning
    out = []
    n = lk.wavelengths_per_fiber
    if n > cap.wavelength_limits["fsr_channels"]:
        out.append(Violation("fsr_channels", f"{n} wavelengths per fiber > {cap.wavelength_limits['fsr_channels']} "
                             f"channels per FSR (FSR {ring.fsr_hz / 1e9:.0f} GHz / spacing "
                             f"{lk.channel_spacing / 1e9:g} GHz)"))
    if n > lz.lines:
        out.append(Violation("laser_lines", f"{n} wavelengths per fiber > {lz.lines} lines per laser source"))
    if lk.fibers_per_direction > pack.escape_fibers_per_direction:
        out.append(Violation("package_escape", f"{lk.fibers_per_direction} fibers per direction > "
                             f"{pack.escape_fibers_per_direction} the package escapes ({pk.chiplets} chiplets × "
                             f"{pk.chiplet_fiber_edge * 1e3:g} mm at {pk.fiber_pitch * 1e6:g} µm pitch, Tx + Rx)"))
    baud = baud_text(signal.symbol_rate_baud)
    for name, limit, q, what in (("modulator_bandwidth", ring.modulator_max_rate_bps, d.modulator.q, "modulator"),
                                 ("filter_bandwidth", ring.filter_max_rate_bps, r.filter_q, "filter")):
        if signal.symbol_rate_baud > limit:
            out.append(Violation(name, f"symbol rate {baud} > {what} linewidth f0/Q = "
                                 f"{baud_text(limit)} for {what} Q {q:g} (E13)"))
    if r.filter_q >= ring.intrinsic_q:
        out.append(Violation("filter_q", f"filter loaded Q {r.filter_q:g} ≥ intrinsic Q {ring.intrinsic_q:.0f}: "
                             "the ring cannot drop (E4)"))
    if d.modulator.kind == "add-drop" and d.modulator.q >= ring.intrinsic_q:
        out.append(Violation("modulator_q", f"modulator loaded Q {d.modulator.q:g} ≥ intrinsic Q "
                             f"{ring.intrinsic_q:.0f}: an add-drop modulator cannot drop (E4)"))
    for name, q in (("filter_q", r.filter_q), ("modulator_q", d.modulator.q)):
        if q > r.max_q:
            out.append(Violation(name, f"{name.replace('_', ' ')} {q:g} > largest ring Q {r.max_q:g}"))
    if tune.shift_needed_hz > tune.heater_reach_hz:
        out.append(Violation("tuning_range", f"{tn.strategy} tuning needs {tune.shift_needed_hz / 1e9:.0f} GHz per "
                             f"ring > {tune.heater_reach_hz / 1e9:.0f} GHz a {tn.max_heater_power * 1e3:g} mW heater "
                             "reaches"))
    y = tune.ring_yield
    if y is not None and y.io_yield < y.target_yield:
        out.append(Violation("ring_yield", f"{y.rings} rings all lock with probability {y.io_yield:.3g} < target "
                             f"{y.target_yield:g}: each locks with {y.lock_probability:.6f} in the "
                             f"{y.range_hz / 1e9:.0f} GHz left to the heater for σ = {y.sigma_hz / 1e9:.0f} GHz; the "
                             f"target needs {y.range_at_target_hz / 1e9:.0f} GHz (E33–E34)"))
    perimeter = float(packaging.package_perimeter_m(pk.width, pk.height))
    if pk.chiplets * pk.chiplet_fiber_edge > perimeter:
        out.append(Violation("package_edge", f"{pk.chiplets} chiplets × {pk.chiplet_fiber_edge * 1e3:g} mm > package "
                             f"perimeter {perimeter * 1e3:g} mm"))
    return out


def warnings(d: LinkDesign, ring: RingFigures, power: BudgetFigures, tune: TuningFigures) -> list[str]:
    """Models used outside their range, and search bounds reached."""
    lk, r, tn = d.link, d.ring, d.tuning
    out = []
    grid_hz = lk.wavelengths_per_fiber * lk.channel_spacing
    if tn.strategy == "nearest-channel" and ring.fsr_hz > 1.5 * grid_hz:
        matched_radius = float(microring.C / (r.group_index * grid_hz * 2 * math.pi))
        out.append(f"[tuning] the grid spans {grid_hz / 1e12:.2f} THz of a {ring.fsr_hz / 1e12:.2f} THz FSR: "
                   f"nearest-channel tuning may cross a {tune.shift_needed_hz / 1e12:.2f} THz gap; a ring of radius "
                   f"{matched_radius * 1e6:.1f} µm matches the grid")
    if power.power_budget_count >= MAX_SEARCH_WAVELENGTHS:
        out.append(f"[link] the power budget closes at least {MAX_SEARCH_WAVELENGTHS} wavelengths per fiber; "
                   "the search stops there")
    if r.radius < BEND_FIT_MIN_RADIUS_M:
        what = ("the bending-loss fit is extrapolated" if r.loss_model == "bend-fit" else
                "the given propagation loss is not checked against bending loss")
        out.append(f"[ring] radius {r.radius * 1e6:g} µm is below the 5 µm the bending-loss data cover: {what}")
    elif r.loss_model == "given" and r.propagation_loss < bend_fit_loss_db_per_m(d):
        fit = bend_fit_loss_db_per_m(d)
        out.append(f"[ring] the given propagation loss {r.propagation_loss / 100:g} dB/cm is below the bending-loss "
                   f"fit at {r.radius * 1e6:g} µm ({fit / 100:.3g} dB/cm): its intrinsic Q {ring.intrinsic_q:.3g} is "
                   "beyond what the bend-loss data allow")
    if ring.filter_to_symbol_rate < filtering.MIN_VALID_RATIO:
        out.append(f"[ring] the drop filter's FWHM is {ring.filter_to_symbol_rate:.3f} × the symbol rate, below the "
                   f"tenth the filter-ISI models (E18) hold for")
    return out
