"""One GPU's optical I/O evaluated end to end: ledger, penalties, margin, limits, capacity, energy.

`evaluate(design)` composes the kernels of this package; every number it returns is traceable to a
formula (E1–E17 of the project's photonics reference) and a sourced field of `photonics.design`.
Capacity is per GPU and per direction; energy per bit counts transmit and receive (as vendors quote).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from photonics import budget, crosstalk, laser, microring, modulator, packaging, receiver
from photonics.design import LinkDesign, LinkSection
from core.errors import InputError
from core.fields import specs
from photonics.loss import LedgerLine, distributed, line, total_db
from core.units import db_to_lin, dbm_to_w, w_to_dbm

# Every capacity limit, in report order, with what it means.
LIMIT_TEXT = {
    "fsr_channels": "channels per ring FSR at the chosen spacing",
    "laser_lines": "laser lines per source",
    "power_budget": "wavelengths the power budget closes",
    "modulator_bandwidth": "ring-modulator bandwidth f0/Q (0 when the data rate exceeds it)",
    "package_escape": "fibers the package edge can escape",
    "requested": "the design's own wavelengths and fibers",
}
MAX_SEARCH_WAVELENGTHS = 4096  # the wavelength-count search stops here (a warning says when it is reached)
BEND_FIT_MIN_RADIUS_M = 5e-6  # below this the UBC fit extrapolates unphysically (15,000 dB/cm at 3 µm)


@dataclass(frozen=True, slots=True)
class Violation:
    """A constraint the design breaks, with the numbers that show it."""

    name: str
    message: str


@dataclass(frozen=True, slots=True)
class RingFigures:
    fsr_hz: float
    fsr_m: float
    filter_fwhm_hz: float
    finesse: float
    intrinsic_q: float
    drop_loss_db: float
    through_loss_db: float  # per passed ring, at the nearest channel's detuning
    modulator_drop_loss_db: float  # drop port of an add-drop modulator ring (E4)
    modulator_max_rate_bps: float
    filter_max_rate_bps: float


@dataclass(frozen=True, slots=True)
class LinkEstimate:
    """Everything `evaluate` finds for a design point. Powers in W or dBm, rates in bit/s, energies in J/bit."""

    design: LinkDesign
    ring: RingFigures
    ledger: tuple[LedgerLine, ...]  # losses after the waveguide launch, worst wavelength
    penalties: tuple[LedgerLine, ...]
    laser_line_dbm: float  # mean laser output per line
    launch_dbm: float  # weakest line entering the transmit bus
    aggregate_cap_binds: bool
    received_dbm: float
    sensitivity_dbm: float
    quantum_limit_dbm: float
    margin_db: float
    wavelength_limits: dict[str, int]
    limits_bps: dict[str, float]
    capacity_bps: float
    binding_limit: str
    max_capacity_bps: float  # with the design's own wavelength and fiber counts lifted
    max_binding_limit: str
    max_wavelengths_per_fiber: int
    min_laser_power_per_line_dbm: float
    max_fiber_length_m: float  # NaN when the budget fails even with no fiber
    max_switch_passes: int | None  # None when the budget fails even with no switch
    energy_j_per_bit: dict[str, float]
    power_w: dict[str, float]
    escape_fibers_per_direction: int
    shoreline_bps_per_m: float
    fiber_launch_dbm: float  # total optical power entering one fiber
    crosstalk_leakage: float  # ΣX at the worst victim, relative to the victim's power (E6)
    violations: tuple[Violation, ...] = ()
    warnings: tuple[str, ...] = field(default=())

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def total_energy_j_per_bit(self) -> float:
        return float(sum(self.energy_j_per_bit.values()))


def ring_loss_db_per_m(d: LinkDesign) -> float:
    """Intrinsic loss of the ring waveguide: the given value, or the bending-loss fit at the ring radius."""
    r = d.ring
    if r.loss_model == "bend-fit":
        return float(microring.bending_loss_db_per_m(r.radius, r.bend_fit_coefficient / 100.0, r.bend_fit_exponent,
                                                     r.bend_fit_straight_loss / 100.0))
    return r.propagation_loss


def ring_figures(d: LinkDesign) -> RingFigures:
    r, lk = d.ring, d.link
    f0 = float(microring.frequency_hz(lk.wavelength))
    length = float(microring.circumference_m(r.radius))
    fsr = float(microring.fsr_frequency_hz(r.group_index, length))
    fwhm = float(microring.fwhm_hz(f0, r.filter_q))
    qi = float(microring.intrinsic_q(r.group_index, lk.wavelength, ring_loss_db_per_m(d)))
    t0 = microring.through_on_resonance_symmetric(r.filter_q, qi)
    return RingFigures(
        fsr_hz=fsr,
        fsr_m=float(microring.fsr_wavelength_m(lk.wavelength, r.group_index, length)),
        filter_fwhm_hz=fwhm,
        finesse=float(microring.finesse(fsr, fwhm)),
        intrinsic_q=qi,
        drop_loss_db=float(microring.drop_loss_db(r.filter_q, qi)),
        through_loss_db=float(microring.through_loss_db(lk.channel_spacing, fwhm, t0, r.through_excess_loss)),
        modulator_drop_loss_db=float(microring.drop_loss_db(d.modulator.q, qi)),
        modulator_max_rate_bps=float(microring.max_rate_for_q(f0, d.modulator.q)),
        filter_max_rate_bps=float(microring.max_rate_for_q(f0, r.filter_q)),
    )


def sensitivity(d: LinkDesign) -> tuple[float, float]:
    """(sensitivity in W, extinction ratio it assumes, linear) for the receiver model."""
    rx, lk = d.receiver, d.link
    er = float(db_to_lin(d.modulator.extinction_ratio))
    if rx.model == "ge-photodiode":
        return float(receiver.ge_photodiode_sensitivity_w(lk.data_rate, er, rx.responsivity, rx.dark_current,
                                                          receiver.q_from_ber(lk.ber))), er
    if rx.model == "thermal-noise":
        return float(receiver.thermal_noise_sensitivity_w(lk.data_rate, lk.ber, er, rx.responsivity,
                                                          rx.noise_density)), er
    return rx.sensitivity, float(db_to_lin(rx.reference_extinction_ratio))


def _laser_lines_in_bus(d: LinkDesign, counts):
    """Laser lines the transmit bus carries: a comb brings all its lines, a DFB array only the ones used."""
    lz = d.laser
    return np.maximum(lz.lines, counts) if lz.kind == "comb" else np.asarray(counts)


def _flatness_db(d: LinkDesign) -> float:
    """Weakest line below the mean: the comb's envelope; a DFB array has none."""
    return d.laser.flatness if d.laser.kind == "comb" else 0.0


def _ledger(d: LinkDesign, ring: RingFigures, n: int, er: float) -> tuple[LedgerLine, ...]:
    """Losses of the worst of `n` wavelengths from the transmit bus to the detector, in path order. On-off keying
    converts the CW line to the average power of the data (E8), so the received power is an average power, as
    sensitivities are."""
    ls, mod = d.loss, d.modulator
    lines = [
        distributed("transmit waveguide", ls.tx_waveguide_length, ls.waveguide_loss),
        line("bends", ls.bends, ls.bend_loss, "each"),
        line("crossings", ls.crossings, ls.crossing_loss, "each"),
        line("Y-junctions", ls.splitters, ls.splitter_loss, "each"),
    ]
    if mod.kind == "add-drop":
        lines.append(line("modulator drop port", 1, ring.modulator_drop_loss_db, "add-drop modulator (E4)"))
    lines += [
        line("modulator insertion", 1, mod.insertion_loss, "'1' level"),
        LedgerLine("on-off keying", float(modulator.ook_penalty_db(er)),
                   f"average of '1' and '0' at ER {mod.extinction_ratio:g} dB (E8)"),
        line("rings passed, transmit", n - 1, ring.through_loss_db, "off resonance (E5)"),
        line("output coupler", 1, ls.coupler, "per facet"),
        line("connectors", ls.connectors, ls.connector_loss, "each"),
        distributed("fiber", ls.fiber_length, ls.fiber_loss, "km" if ls.fiber_length >= 1e3 else "m"),
        line("optical-switch passes", ls.switch_ports, ls.switch_loss + ls.switch_connectors * ls.connector_loss,
             f"each: {ls.switch_loss:g} dB port + {ls.switch_connectors} patch connectors"),
        line("mux/demux", 1, ls.mux_demux_loss, ""),
        line("input coupler", 1, ls.coupler, "per facet"),
        line("rings passed, receive", n - 1, ring.through_loss_db, "off resonance (E5)"),
        distributed("receive waveguide", ls.rx_waveguide_length, ls.waveguide_loss),
        line("drop filter", 1, ring.drop_loss_db, "on resonance (E4)"),
    ]
    return tuple(lines)


def transmit_loss_db(ledger) -> float:
    """Loss from the transmit bus into the fiber: the ledger up to and including the output coupler."""
    names = [item.name for item in ledger]
    return total_db(ledger[: names.index("output coupler") + 1])


def evaluate(d: LinkDesign) -> LinkEstimate:
    """Evaluate a design point. Raises InputError for values no receiver or ring can have; returns the
    estimate (with its violations) for a design that is well formed but may be infeasible."""
    lk, ls, lz, r, tn, pk = d.link, d.loss, d.laser, d.ring, d.tuning, d.package
    if tn.t_min >= tn.t_max:
        raise InputError(f"[tuning] t_min ({tn.t_min:g} K) must be below t_max ({tn.t_max:g} K)")
    ring = ring_figures(d)
    f0 = float(microring.frequency_hz(lk.wavelength))
    n_req, rate, er = lk.wavelengths_per_fiber, lk.data_rate, float(db_to_lin(d.modulator.extinction_ratio))
    q_ber = receiver.q_from_ber(lk.ber)

    sens_w, ref_er = sensitivity(d)
    quantum_w = float(receiver.quantum_limit_w(rate, f0, lk.ber))
    if sens_w < quantum_w:
        raise InputError(f"[receiver] sensitivity {float(w_to_dbm(sens_w)):.2f} dBm is better than the quantum "
                         f"limit {float(w_to_dbm(quantum_w)):.2f} dBm at {rate / 1e9:g} Gbps, BER {lk.ber:g} (E17)")
    sens_dbm = float(w_to_dbm(sens_w))
    er_db = float(modulator.relative_extinction_penalty_db(er, ref_er))
    flat = _flatness_db(d)

    laser_line_dbm = float(w_to_dbm(lz.power_per_line))
    split_db = float(laser.split_loss_db(lz.fibers_per_source))
    mean_in_bus_dbm = laser_line_dbm - lz.coupling_loss - split_db
    cap_dbm = float(w_to_dbm(lz.aggregate_power_limit))
    fsr_channels = int(math.floor(ring.fsr_hz / lk.channel_spacing * (1 + 1e-12)))
    fixed_db = total_db(item for item in _ledger(d, ring, 1, er))  # the ledger with no ring passed

    def margins_up_to(n_max: int):
        """Margin of the worst wavelength for N = 1..n_max: the aggregate cap shared by every line in the bus,
        2(N−1) rings passed, crosstalk from every channel in the fiber (all-pass modulators let unused comb
        lines through) with the weakest comb line as victim."""
        counts = np.arange(1, n_max + 1)
        lit = _laser_lines_in_bus(d, counts)
        present = counts if d.modulator.kind == "add-drop" else lit
        table = crosstalk.worst_channel_leakage_by_count(int(present.max()), lk.channel_spacing,
                                                         ring.filter_fwhm_hz, rate, ring.fsr_hz)
        leak = table[present - 1] * db_to_lin(flat)
        xt = crosstalk.penalty_db(leak, q_ber, er)
        m = budget.link_margin_db(
            line_power_dbm=mean_in_bus_dbm - flat, aggregate_cap_dbm=cap_dbm - flat, wavelengths=counts,
            lines_in_bus=lit, fixed_loss_db=fixed_db, per_ring_loss_db=ring.through_loss_db,
            rings_passed_per_wavelength=2 * (counts - 1), penalty_db=er_db + xt, sensitivity_dbm=sens_dbm,
            system_margin_db=lk.system_margin)
        return leak, xt, m

    n_max = max(n_req, fsr_channels + 2, lz.lines, 2)
    leak, xt_db, margins = margins_up_to(n_max)
    while margins[-1] >= 0.0 and n_max < MAX_SEARCH_WAVELENGTHS:  # margin still positive: search further
        n_max = min(2 * n_max, MAX_SEARCH_WAVELENGTHS)
        leak, xt_db, margins = margins_up_to(n_max)
    power_budget_n = budget.largest_feasible_count(margins)

    i = n_req - 1
    lit_req = int(_laser_lines_in_bus(d, n_req))
    launch_dbm = float(budget.launch_power_dbm(mean_in_bus_dbm, cap_dbm, lit_req)) - flat
    cap_binds = mean_in_bus_dbm > cap_dbm - 10.0 * math.log10(lit_req)
    ledger = _ledger(d, ring, n_req, er)
    penalties = (LedgerLine("extinction ratio", er_db, "beyond the ER the sensitivity assumes (E8)"),
                 LedgerLine("crosstalk", float(xt_db[i]), f"ΣX {leak[i]:.4f} at the weakest line, {n_req} channels "
                            "(E6–E7)"))
    received_dbm = launch_dbm - total_db(ledger)
    margin = float(margins[i])

    # --- limits on the wavelength count, the per-wavelength rate and the fiber count ---------------------
    escape = int(packaging.escape_fibers_per_direction(pk.chiplets, pk.chiplet_fiber_edge, pk.fiber_pitch))
    # a modulator whose photon lifetime cannot pass the data rate carries nothing at that rate (E13); the budget
    # was evaluated at the design's rate, so no slower rate is assumed in its place
    rate_run = rate if rate <= ring.modulator_max_rate_bps else 0.0
    fibers = lk.fibers_per_direction
    wl_limits = {"fsr_channels": fsr_channels, "laser_lines": lz.lines, "power_budget": power_budget_n,
                 "requested": n_req}
    limits = {
        "fsr_channels": fsr_channels * rate * fibers,
        "laser_lines": lz.lines * rate * fibers,
        "power_budget": power_budget_n * rate * fibers,
        "modulator_bandwidth": n_req * rate_run * fibers,
        "package_escape": n_req * rate * escape,
        "requested": n_req * rate * fibers,
    }
    n_phys = min(fsr_channels, lz.lines, power_budget_n)
    capacity = min(n_phys, n_req) * rate_run * min(fibers, escape)
    binding = _binding(limits, wl_limits, rate_run < rate, escape < fibers)
    max_limits = {"fsr_channels": fsr_channels * rate * escape, "laser_lines": lz.lines * rate * escape,
                  "power_budget": power_budget_n * rate * escape, "modulator_bandwidth": n_phys * rate_run * escape,
                  "package_escape": n_phys * rate * escape}
    max_capacity = n_phys * rate_run * escape
    max_binding = min(max_limits, key=lambda k: max_limits[k])

    # --- inverse problems at the requested count -------------------------------------------------------
    penalty_req = er_db + float(xt_db[i])
    # the laser line must cover the link's losses plus its own coupling, split and comb envelope (E9 in dB)
    min_line_dbm = float(budget.min_line_power_dbm(sens_dbm, total_db(ledger) + lz.coupling_loss + split_db + flat,
                                                   penalty_req, lk.system_margin))
    other_loss = total_db(ledger) - ls.fiber_length * ls.fiber_loss
    max_fiber = float(budget.max_length_m(launch_dbm, sens_dbm, penalty_req, other_loss, ls.fiber_loss,
                                          lk.system_margin)) if ls.fiber_loss > 0 else math.inf
    if max_fiber < 0:
        max_fiber = math.nan  # the budget fails even with no fiber: no reach to report
    per_pass = ls.switch_loss + ls.switch_connectors * ls.connector_loss
    switch_fixed = total_db(ledger) - ls.switch_ports * per_pass
    passes = int(budget.max_hops(launch_dbm, sens_dbm, penalty_req, switch_fixed, per_pass, lk.system_margin)) \
        if per_pass > 0 else -1
    max_switch = passes if passes >= 0 else None

    # --- energy and power --------------------------------------------------------------------------------
    fibers_used = min(fibers, escape)
    sources = math.ceil(fibers_used / lz.fibers_per_source)
    emitted_line_w = float(dbm_to_w(min(laser_line_dbm, cap_dbm - 10.0 * math.log10(lit_req) + lz.coupling_loss
                                        + split_db)))
    laser_w = float(laser.electrical_power_w(sources * laser.lit_lines(lz.kind, lz.lines, n_req) * emitted_line_w,
                                             lz.wall_plug_efficiency))
    rings_total = 2 * fibers_used * n_req  # a modulator and a drop filter per wavelength per fiber
    tuning_w, shift_needed = _tuning(d, ring, rings_total, fibers_used)
    power = {"laser": laser_w, "modulator": d.modulator.energy * capacity, "receiver": d.receiver.energy * capacity,
             "tuning": tuning_w}
    energy = {k: (v / capacity if capacity > 0 else math.nan) for k, v in power.items()}  # undefined at 0 bps

    # --- power launched into one fiber (eye safety): the data lines, plus unused CW comb lines (all-pass) --
    tx_db = transmit_loss_db(ledger)
    data_w = n_req * float(dbm_to_w(launch_dbm + flat - tx_db))
    # an unused CW line is neither modulated nor attenuated by a modulator of its own: it passes all N modulators
    cw_db = (tx_db - d.modulator.insertion_loss - ledger_value(ledger, "on-off keying")
             + ring.through_loss_db)
    cw_w = (lit_req - n_req) * float(dbm_to_w(launch_dbm + flat - cw_db))
    fiber_dbm = float(w_to_dbm(data_w + (cw_w if d.modulator.kind == "all-pass" else 0.0)))

    edge_used = pk.chiplets * pk.chiplet_fiber_edge
    est = LinkEstimate(
        design=d, ring=ring, ledger=ledger, penalties=penalties, laser_line_dbm=laser_line_dbm, launch_dbm=launch_dbm,
        aggregate_cap_binds=bool(cap_binds), received_dbm=received_dbm, sensitivity_dbm=sens_dbm,
        quantum_limit_dbm=float(w_to_dbm(quantum_w)), margin_db=margin, wavelength_limits=wl_limits,
        limits_bps=limits, capacity_bps=capacity, binding_limit=binding, max_capacity_bps=max_capacity,
        max_binding_limit=max_binding, max_wavelengths_per_fiber=n_phys, min_laser_power_per_line_dbm=min_line_dbm,
        max_fiber_length_m=max_fiber, max_switch_passes=max_switch,
        energy_j_per_bit=energy, power_w=power, escape_fibers_per_direction=escape,
        shoreline_bps_per_m=float(packaging.shoreline_density_bps_per_m(capacity, edge_used)),
        fiber_launch_dbm=fiber_dbm, crosstalk_leakage=float(leak[i]),
    )
    warnings = []
    grid_hz = n_req * lk.channel_spacing
    if tn.strategy == "nearest-channel" and ring.fsr_hz > 1.5 * grid_hz:
        matched_radius = float(microring.C / (r.group_index * grid_hz * 2 * math.pi))
        warnings.append(f"[tuning] the grid spans {grid_hz / 1e12:.2f} THz of a {ring.fsr_hz / 1e12:.2f} THz FSR: "
                        f"nearest-channel tuning may cross a {shift_needed / 1e12:.2f} THz gap; a ring of radius "
                        f"{matched_radius * 1e6:.1f} µm matches the grid")
    if power_budget_n >= MAX_SEARCH_WAVELENGTHS:
        warnings.append(f"[link] the power budget closes at least {MAX_SEARCH_WAVELENGTHS} wavelengths per fiber; "
                        "the search stops there")
    if r.loss_model == "bend-fit" and r.radius < BEND_FIT_MIN_RADIUS_M:
        warnings.append(f"[ring] the bending-loss fit is extrapolated below 5 µm (radius {r.radius * 1e6:g} µm)")
    return replace(est, violations=tuple(_violations(est, shift_needed)), warnings=tuple(warnings))


def ledger_value(ledger, name: str) -> float:
    """The value (dB) of the ledger line called `name`."""
    return next(item.value_db for item in ledger if item.name == name)


def _binding(limits: dict[str, float], counts: dict[str, int], rate_limited: bool, escape_limited: bool) -> str:
    """The limit(s) that set the capacity = min(wavelength counts) × rate × min(fibers): the tightest wavelength
    limit if it is below the requested count, the modulator if the rate is capped, the package if the fibers are;
    joined with '+' when several bind, 'requested' when none does."""
    names = []
    wavelength = min(("fsr_channels", "laser_lines", "power_budget"), key=lambda k: limits[k])
    if counts[wavelength] < counts["requested"]:
        names.append(wavelength)
    if rate_limited:
        names.append("modulator_bandwidth")
    if escape_limited:
        names.append("package_escape")
    return "+".join(names) or "requested"


def tuning_hz_per_k(d: LinkDesign) -> float:
    """Resonance shift per kelvin from the thermo-optic coefficient, f·(dn/dT)/n_g (E12)."""
    return float(microring.thermo_optic_shift_hz_per_k(microring.frequency_hz(d.link.wavelength), d.ring.dn_dt,
                                                        d.ring.group_index))


def _tuning(d: LinkDesign, ring: RingFigures, rings_total: int, fibers_used: int):
    """(heater power in W, largest shift one ring must make in Hz) for the tuning strategy (E11, E11b)."""
    tn, n = d.tuning, d.link.wavelengths_per_fiber
    per_kelvin = tuning_hz_per_k(d)
    eta = microring.heater_efficiency_hz_per_w(per_kelvin, tn.heating_efficiency)
    if tn.strategy == "nearest-channel":
        banks = 2 * fibers_used  # one transmit and one receive bank per fiber
        shift = float(microring.nearest_channel_shift_hz(ring.fsr_hz, n, d.link.channel_spacing))
        return float(microring.tuning_power_nearest_channel_grid_w(ring.fsr_hz, n, d.link.channel_spacing, eta,
                                                                   banks)), shift
    if tn.strategy == "full-thermal":
        shift = float(microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin,
                                                      tn.t_min, tn.t_max, tn.temperature))
        return rings_total * shift / eta, float(microring.full_thermal_shift_hz(
            tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min, tn.t_max, tn.t_min))
    shift = float(microring.athermal_shift_hz(tn.sigma_local, tn.sigma_system))
    return rings_total * shift / eta, shift


def min_channel_spacing_hz(d: LinkDesign) -> float | None:
    """Smallest grid spacing at which the design's wavelength count still closes its budget. Crosstalk and
    ring tails couple the spacing to the margin, so a bracketed root-finder (Brent) solves margin(spacing) = 0
    between FWHM/100 and FSR/N (within [link] channel_spacing's declared range), evaluating the whole link at each
    step. None when even FSR/N fails."""
    n = d.link.wavelengths_per_fiber
    if n < 2:
        return None
    ring = ring_figures(d)

    def margin_at(spacing_hz: float) -> float:
        return evaluate(replace(d, link=replace(d.link, channel_spacing=spacing_hz))).margin_db

    declared = specs(LinkSection)["channel_spacing"]  # the search stays inside the spacings a design may have
    hi = min(ring.fsr_hz / n, declared.hi)
    if hi < declared.lo or margin_at(hi) < 0.0:
        return None
    lo = max(ring.filter_fwhm_hz / 100.0, declared.lo)
    if margin_at(lo) >= 0.0:
        return lo
    return budget.solve_decreasing(margin_at, lo, hi, "channel spacing", xtol=1e6)


def _violations(est: LinkEstimate, shift_needed_hz: float) -> list[Violation]:
    d, ring = est.design, est.ring
    lk, lz, r, pk, tn = d.link, d.laser, d.ring, d.package, d.tuning
    out = []
    if est.margin_db < 0:
        out.append(Violation("power_budget", f"margin {est.margin_db:.2f} dB < 0: received {est.received_dbm:.2f} dBm, "
                             f"sensitivity {est.sensitivity_dbm:.2f} dBm, penalties "
                             f"{sum(p.value_db for p in est.penalties):.2f} dB, system margin {lk.system_margin:g} dB"))
    n = lk.wavelengths_per_fiber
    if n > est.wavelength_limits["fsr_channels"]:
        out.append(Violation("fsr_channels", f"{n} wavelengths per fiber > {est.wavelength_limits['fsr_channels']} "
                             f"channels per FSR (FSR {ring.fsr_hz / 1e9:.0f} GHz / spacing "
                             f"{lk.channel_spacing / 1e9:g} GHz)"))
    if n > lz.lines:
        out.append(Violation("laser_lines", f"{n} wavelengths per fiber > {lz.lines} lines per laser source"))
    if lk.fibers_per_direction > est.escape_fibers_per_direction:
        out.append(Violation("package_escape", f"{lk.fibers_per_direction} fibers per direction > "
                             f"{est.escape_fibers_per_direction} the package escapes ({pk.chiplets} chiplets × "
                             f"{pk.chiplet_fiber_edge * 1e3:g} mm at {pk.fiber_pitch * 1e6:g} µm pitch, Tx + Rx)"))
    if lk.data_rate > ring.modulator_max_rate_bps:
        out.append(Violation("modulator_bandwidth", f"data rate {lk.data_rate / 1e9:g} Gbps > f0/Q = "
                             f"{ring.modulator_max_rate_bps / 1e9:.1f} Gbps for modulator Q {d.modulator.q:g} (E13)"))
    if lk.data_rate > ring.filter_max_rate_bps:
        out.append(Violation("filter_bandwidth", f"data rate {lk.data_rate / 1e9:g} Gbps > filter linewidth "
                             f"f0/Q = {ring.filter_max_rate_bps / 1e9:.1f} Gbps for filter Q {r.filter_q:g} (E13)"))
    if r.filter_q >= ring.intrinsic_q:
        out.append(Violation("filter_q", f"filter loaded Q {r.filter_q:g} ≥ intrinsic Q {ring.intrinsic_q:.0f}: "
                             "the ring cannot drop (E4)"))
    if d.modulator.kind == "add-drop" and d.modulator.q >= ring.intrinsic_q:
        out.append(Violation("modulator_q", f"modulator loaded Q {d.modulator.q:g} ≥ intrinsic Q "
                             f"{ring.intrinsic_q:.0f}: an add-drop modulator cannot drop (E4)"))
    for name, q in (("filter_q", r.filter_q), ("modulator_q", d.modulator.q)):
        if q > r.max_q:
            out.append(Violation(name, f"{name.replace('_', ' ')} {q:g} > largest ring Q {r.max_q:g}"))
    eye_dbm = float(w_to_dbm(lz.eye_safety_limit))
    if est.fiber_launch_dbm > eye_dbm:
        out.append(Violation("eye_safety", f"{est.fiber_launch_dbm:.2f} dBm launched into one fiber > eye-safety "
                             f"limit {eye_dbm:.2f} dBm (E15)"))
    reach_hz = tn.max_heater_power * tuning_hz_per_k(d) * tn.heating_efficiency
    if shift_needed_hz > reach_hz:
        out.append(Violation("tuning_range", f"{tn.strategy} tuning needs {shift_needed_hz / 1e9:.0f} GHz per ring > "
                             f"{reach_hz / 1e9:.0f} GHz a {tn.max_heater_power * 1e3:g} mW heater reaches"))
    perimeter = float(packaging.package_perimeter_m(pk.width, pk.height))
    if pk.chiplets * pk.chiplet_fiber_edge > perimeter:
        out.append(Violation("package_edge", f"{pk.chiplets} chiplets × {pk.chiplet_fiber_edge * 1e3:g} mm > package "
                             f"perimeter {perimeter * 1e3:g} mm"))
    return out
