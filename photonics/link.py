"""One GPU's optical I/O evaluated end to end: signal, receiver, budget, capacity, reach, tuning, energy.

`evaluate(design)` checks the design across its sections (`photonics.resolve`), then composes stages that each
return a record (`photonics.link_records`): the signal (modulation, FEC, target BER), the receiver's sensitivity, the
penalties both link kinds share (extinction ratio, RIN, dispersion), the kind's own stages (`photonics.ring_wdm`,
`photonics.point_to_point`: ledger, budget, capacity limits, tuning), the reach, the energy per bit and the
violated constraints. Every number is traceable to a formula (E1–E38 of the project's photonics references) and a
sourced field of `photonics.link_design`. Capacity is per GPU and per direction; energy per bit counts transmit and
receive (as vendors quote).

For the fabric floor: `fabric_inputs(est)` (what a fabric reads of the link), `pass_through_loss_db(est)` (the loss
of one intermediate GPU on a ring), `hop_reach(est, loss)` (the hops the neighbour's margin pays for) and
`with_fabric_energy(est, part, j_per_bit)`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np

from core.errors import InputError
from core.fields import default_of, specs
from core.units import format_si, w_to_dbm
from photonics import budget, constraints, microring, modulation, receiver, ring_wdm, ring_wdm_records
from photonics.link_design import MAX_FIBER_M, LinkDesign, LinkSection
from photonics.loss import fiber_path, total_db
from photonics.link_records import (BudgetFigures, FabricInputs, LinkEnergy, LinkEstimate, ReachFigures, ReceiverFigures,
                               SignalFigures, Violation)
from photonics.resolve import resolve
from photonics.ring_wdm import transmit_loss_db
from photonics.common_stages import dispersion_penalty_db, receiver_arrays, sections, signal_arrays
from photonics.signal import fec_figures

__all__ = ["LIMIT_TEXT", "FabricInputs", "LinkEstimate", "Violation", "evaluate", "fabric_inputs", "hop_reach",
           "link_arrays", "min_channel_spacing_hz", "pass_through_loss_db", "sensitivity", "transmit_loss_db",
           "tuning_hz_per_k", "with_fabric_energy"]

# Every capacity limit, in report order, with what it means.
LIMIT_TEXT = {
    "fsr_channels": "channels per ring FSR at the chosen spacing",
    "laser_lines": "laser lines per source",
    "power_budget": "wavelengths the power budget closes",
    "package_escape": "fibers the package edge can escape",
    "requested": "the design's own wavelengths and fibers (payload after FEC)",
}


def evaluate(d: LinkDesign) -> LinkEstimate:
    """Evaluate a design point. Raises InputError for values no receiver or ring can have and for sections that
    contradict each other; returns the estimate (with its violations) for a design that is well formed but may be
    infeasible."""
    return estimate(link_arrays(resolve(d)))


def link_arrays(d: LinkDesign, varied: dict | None = None, grid_points: int = 1):
    """Every stage of the link of `d` (resolved) on arrays: `ring_wdm.ring_arrays` or `point_to_point.lane_arrays`,
    with the arrays of `varied` ({section: {key: array}}) in place of the design's numbers."""
    if d.link.kind == "ring-wdm":
        return ring_wdm.ring_arrays(d, varied, grid_points)
    from photonics import point_to_point  # a ring-wdm design's start-up does without it

    return point_to_point.lane_arrays(d, varied)


def estimate(a) -> LinkEstimate:
    """The records of one design point from its stage arrays (`link_arrays` without `varied`)."""
    d = a.design
    signal = SignalFigures(modulation=d.link.modulation, levels=a.signal.levels,
                           symbol_rate_baud=float(a.signal.symbol_rate), target_ber=float(a.signal.target_ber),
                           eye_q=float(a.signal.eye_q), fec=fec_figures(d.link))
    rx = receiver_figures(d, a)
    if d.link.kind == "ring-wdm":
        r = ring_wdm_records
        ring, power, cap = r.ring_figures(a), r.budget_figures(a), r.capacity_figures(a)
        tuning, package, kind_warnings = r.tuning_figures(a), r.package_figures(a), r.warnings(a)
    else:
        from photonics import point_to_point

        ring = tuning = package = None
        power, cap = point_to_point.budget_figures(a), point_to_point.capacity_figures(a)
        kind_warnings = point_to_point.default_warnings(d)
    energy = LinkEnergy(cap.capacity_bps, {k: float(v) for k, v in a.optical_power.items()}, electrical_j_per_bit(d))
    return LinkEstimate(
        design=d, signal=signal, receiver=rx, ring=ring, budget=power, capacity=cap, energy=energy, tuning=tuning,
        package=package, reach_of=functools.partial(reach_figures, d, signal, rx, power),
        violations=tuple(Violation(key, message)
                         for key, message in constraints.violated(constraints.TABLES[d.link.kind], a)),
        warnings=(*_shared_warnings(d), *kind_warnings))


# --- the receiver --------------------------------------------------------------------------------------------------
def receiver_figures(d: LinkDesign, a) -> ReceiverFigures:
    """The receiver record of one point; refuses a sensitivity better than the quantum limit (E17)."""
    sens, quantum = float(a.receiver.sensitivity_w), float(a.receiver.quantum_limit_w)
    if sens < quantum:
        lk = d.link
        raise InputError(f"[receiver] sensitivity {float(w_to_dbm(sens)):.2f} dBm is better than the quantum limit "
                         f"{float(w_to_dbm(quantum)):.2f} dBm at {format_si(lk.data_rate, 'bit/s')}, BER "
                         f"{float(a.signal.target_ber):g} (E17)")
    return ReceiverFigures(sens, float(a.receiver.reference_er), quantum)


def sensitivity(d: LinkDesign) -> tuple[float, float]:
    """(average-power sensitivity in W, the extinction ratio it assumes, linear) of the design's receiver."""
    d = resolve(d)
    s = sections(d)
    rx = receiver_arrays(d, s, signal_arrays(d, s["link"]))
    return float(rx.sensitivity_w), float(rx.reference_er)


# --- reach ---------------------------------------------------------------------------------------------------------
CHANNEL_KEYS = ("rin", "channel_isi", "mode_partition", "modal_noise", "noise_interaction")  # point-to-point


def length_penalties(d: LinkDesign, s: dict, signal: SignalFigures) -> dict:
    """The penalties that grow with fiber length, {group: (the ledger keys it covers, its total as a function of
    length)} (floats or arrays of lengths): dispersion, and a point-to-point link's channel penalties."""
    if d.link.kind == "point-to-point" and d.transmitter.eye_closure == "tdecq":
        return {}  # a measured TDECQ holds at the standard's reach: nothing here grows with the fiber
    rate = signal.symbol_rate_baud
    out = {"dispersion": (("dispersion",),
                          lambda length: np.asarray(dispersion_penalty_db(d, s, rate, length), dtype=float))}
    if d.link.kind == "point-to-point":
        from photonics import point_to_point

        sig = signal_arrays(d, s["link"])
        out["channel_isi"] = (CHANNEL_KEYS, lambda length: np.asarray(
            point_to_point.channel_penalty_db(d, s, sig, length), dtype=float))
    return out


def reach_figures(d: LinkDesign, signal: SignalFigures, rx: ReceiverFigures, power: BudgetFigures) -> ReachFigures:
    """Longest fiber (attenuation and the length-dependent penalties growing together), each length limit alone, most
    switch passes, least laser power per line, of the resolved design `d` (`LinkEstimate.reach`)."""
    lk, ls, s, min_line_dbm = d.link, d.loss, sections(d), power.min_line_dbm
    total = total_db(power.ledger)
    groups = length_penalties(d, s, signal)
    grows = {k: f for k, (_, f) in groups.items()}
    growing = {key for keys, _ in groups.values() for key in keys}
    fixed = sum(p.value_db for p in power.penalties if p.key not in growing)
    # the margin at zero length: what the fiber's attenuation and the penalties' growth with length may spend
    headroom = (power.launch_dbm - (total - ls.fiber_length * ls.fiber_loss) - rx.sensitivity_dbm - fixed
                - lk.system_margin - sum(float(f(0.0)) for f in grows.values()))
    growth = {k: (lambda f: lambda length: f(length) - float(f(0.0)))(f) for k, f in grows.items()}
    reach = {"loss": headroom / ls.fiber_loss if ls.fiber_loss > 0 else math.inf}
    reach.update({k: _reach_alone_m(g, headroom) for k, g in growth.items()})
    reach.setdefault("channel_isi", math.inf)  # a ring-wdm link's own filtering does not grow with length
    if headroom < 0:
        reach = dict.fromkeys(reach, math.nan)  # the budget fails even with no fiber: no reach to report
        longest = math.nan
    else:
        longest = _combined_reach_m(ls.fiber_loss, growth, headroom, min(reach.values()))
    per_pass = ls.switch_loss + ls.switch_connectors * ls.connector_loss
    switch_fixed = total - ls.switch_ports * per_pass
    passes = int(budget.max_hops(power.launch_dbm, rx.sensitivity_dbm, power.penalty_db, switch_fixed, per_pass,
                                 lk.system_margin)) if per_pass > 0 else -1
    no_power = "" if math.isfinite(min_line_dbm) else constraints.no_power_closes_text(
        d.laser.aggregate_power_limit, power.lines_in_bus, power.cap_share_dbm, power.needed_at_launch_dbm,
        power.penalties, rx.sensitivity_dbm)
    return ReachFigures(max_fiber_length_m=longest, fiber_reach_m=reach,
                        max_switch_passes=passes if passes >= 0 else None, min_laser_power_per_line_dbm=min_line_dbm,
                        no_power_closes=no_power)


def _reach_alone_m(growth, headroom_db: float) -> float:
    """Length at which one penalty's growth alone takes the whole headroom (a penalty never falls with length once
    it is above its zero-length value, so the lengths within the headroom are [0, L])."""
    if headroom_db < 0:
        return math.nan
    if float(growth(MAX_FIBER_M)) <= headroom_db:
        return math.inf
    return budget.section_decreasing(lambda length: headroom_db - growth(length), 0.0, MAX_FIBER_M)


def _combined_reach_m(alpha: float, growth: dict, headroom_db: float, hi: float) -> float:
    """Length where attenuation plus every penalty's growth take the headroom: the margin falls with length, so
    bisection between 0 and the shortest single-effect reach."""
    if math.isinf(hi):
        return hi
    return budget.section_decreasing(
        lambda length: headroom_db - alpha * length - sum(g(length) for g in growth.values()), 0.0, hi)


# --- energy --------------------------------------------------------------------------------------------------------
def electrical_j_per_bit(d: LinkDesign) -> dict[str, float]:
    """The electrical side per bit, transmit + receive: die-to-die crossings and SerDes/DSP."""
    it = d.interface
    return {"die_to_die": it.crossings * it.die_to_die_energy, "serdes_dsp": it.dsp_energy}


def with_fabric_energy(est: LinkEstimate, part: str, j_per_bit: float) -> LinkEstimate:
    """The estimate with a per-bit energy the fabric adds (e.g. amplifiers on a ring) in its energy record."""
    return replace(est, energy=est.energy.with_fabric(part, j_per_bit))


# --- warnings both kinds share ------------------------------------------------------------------------------------
def _shared_warnings(d: LinkDesign) -> list[str]:
    out = []
    rx = d.receiver
    if rx.model == "given" and rx.sensitivity_type == "average" and rx.sensitivity_extinction == "link":
        out.append("[receiver] the given average-power sensitivity is read at the link's own extinction ratio, so no "
                   "extinction-ratio penalty is charged; if it was measured at another, set sensitivity_extinction = "
                   "'given' and reference_extinction_ratio")
    if d.receiver.model == "ge-photodiode" and d.link.data_rate > receiver.GE_FIT_MAX_RATE_BPS:
        out.append(f"[receiver] the Ge-photodiode fit (E16) is extrapolated above 50 Gbit/s (data rate "
                   f"{format_si(d.link.data_rate, 'bit/s')})")
    baud = d.link.data_rate / modulation.bits_per_symbol(modulation.LEVELS[d.link.modulation])
    shipped = default_of(type(rx)).noise_density
    if rx.model == "thermal-noise" and rx.noise_density == shipped and baud > receiver.TIA_RATED_BAUD:
        out.append(f"[receiver] the noise density {shipped * 1e12:.3g} pA/√Hz is a "
                   f"{receiver.TIA_RATED_BAUD / 1e9:g} Gb/s TIA's (Xie et al. "
                   f"2021), taken at {baud / 1e9:g} GBd: a TIA that fast has more input noise; give its own "
                   "noise_density")
    return out


# --- for the fabric floor ------------------------------------------------------------------------------------------
def pass_through_loss_db(est: LinkEstimate) -> float:
    """Loss of passing one intermediate GPU on a fiber ring (`hop_pass_loss_db` of the estimate's design and rings)."""
    d = est.design
    if est.ring is None:
        raise InputError(f"[link] kind = '{d.link.kind}' has no rings for a wavelength to pass: a ring fabric needs "
                         "[link] kind = 'ring-wdm'")
    r = est.ring
    return float(hop_pass_loss_db(d, sections(d), r.fsr_hz, ((r.modulator_fwhm_hz, r.modulator_on_resonance),
                                                             (r.filter_fwhm_hz, r.filter_on_resonance))))


def hop_pass_loss_db(d: LinkDesign, s: dict, fsr, rings):
    """Loss of passing one intermediate GPU on a fiber ring: its input and output couplers, its transmit and receive
    waveguides, the rings of that fiber at their own detunings (`ring_wdm.pass_through_rings_db`), and the next hop's
    fiber plant ([loss] connectors, splices, fiber_length and extra items describe one hop). `s`: the design's
    sections (`photonics.common_stages.sections`, arrays in place over a grid), `fsr` and `rings` the ring figures."""
    ls, lk = s["loss"], s["link"]
    hop = [item for item in fiber_path(d, ls) if item.key not in ("switch_passes", "mux_demux")]
    return (2 * ls.coupler + (ls.tx_waveguide_length + ls.rx_waveguide_length) * ls.waveguide_loss
            + ring_wdm.pass_through_rings_db(lk.wavelengths_per_fiber, lk.channel_spacing, fsr, rings,
                                             s["ring"].through_excess_loss) + total_db(hop))


def fabric_inputs(est: LinkEstimate) -> FabricInputs:
    """What a fabric reads of the link of one design point (`photonics.link_records.FabricInputs`)."""
    return FabricInputs(capacity_bps=est.capacity_bps, margin_db=est.margin_db, launch_dbm=est.launch_dbm,
                        sensitivity_dbm=est.sensitivity_dbm, penalty_db=est.budget.penalty_db,
                        ledger_db=total_db(est.ledger), system_margin_db=est.design.link.system_margin,
                        pass_loss_db=None if est.ring is None else pass_through_loss_db(est), power_w=est.power_w,
                        transmit_loss_db=transmit_loss_db(est.ledger),
                        penalty_after_er_db=sum(p.value_db for p in est.penalties if p.key != "extinction_ratio"),
                        sensitivity_w=est.receiver.sensitivity_w,
                        reference_extinction_ratio=est.receiver.reference_extinction_ratio,
                        filter_fwhm_hz=None if est.ring is None else est.ring.filter_fwhm_hz,
                        symbol_rate_baud=est.signal.symbol_rate_baud, eye_q=est.signal.eye_q)


def hop_reach(est: LinkEstimate, pass_loss_db: float) -> int:
    """Hops a wavelength travels with no amplifier (`budget.hop_reach` of the estimate's budget)."""
    return int(budget.hop_reach(est.launch_dbm, est.sensitivity_dbm, est.budget.penalty_db, total_db(est.ledger),
                                pass_loss_db, est.design.link.system_margin))


# --- inverse problem on the grid -----------------------------------------------------------------------------------
def min_channel_spacing_hz(d: LinkDesign) -> float | None:
    """Smallest grid spacing at which the design's wavelength count still closes its budget. Crosstalk and
    ring tails couple the spacing to the margin, so a bracketed root-finder (Brent) solves margin(spacing) = 0
    between FWHM/100 and FSR/N (within [link] channel_spacing's declared range), evaluating the whole link at each
    step. None when even FSR/N fails (or with one wavelength, which has no neighbour to space from); an InputError
    for a link without a grid."""
    d = resolve(d)
    if d.link.kind != "ring-wdm":
        raise InputError(f"[link] kind = '{d.link.kind}' has no channel grid whose spacing could be solved for")
    n = d.link.wavelengths_per_fiber
    if n < 2:
        return None
    ring = evaluate(d).ring

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


def tuning_hz_per_k(d: LinkDesign) -> float:
    """Resonance shift per kelvin of the design's rings (E12, or the given tuning efficiency), in Hz/K."""
    d = resolve(d)
    return float(ring_wdm.shift_per_kelvin_hz(d, d.ring, microring.frequency_hz(d.link.wavelength)))

