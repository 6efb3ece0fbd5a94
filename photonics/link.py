"""One GPU's optical I/O evaluated end to end: signal, receiver, budget, capacity, reach, tuning, energy.

`evaluate(design)` checks the design across its sections (`photonics.resolve`), then composes stages that each
return a record (`photonics.records`): the signal (modulation, FEC, target BER), the receiver's sensitivity, the
penalties both link kinds share (extinction ratio, RIN, dispersion), the kind's own stages (`photonics.ring_wdm`,
`photonics.point_to_point`: ledger, budget, capacity limits, tuning), the reach, the energy per bit and the
violated constraints. Every number is traceable to a formula (E1–E38 of the project's photonics references) and a
sourced field of `photonics.design`. Capacity is per GPU and per direction; energy per bit counts transmit and
receive (as vendors quote).

For the fabric floor: `pass_through_loss_db(est)` (the loss of one intermediate GPU on a ring), `hop_reach(est,
loss)` (the hops the neighbour's margin pays for) and `with_fabric_energy(est, part, j_per_bit)`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace

from core.errors import InputError
from core.fields import specs
from core.units import db_to_lin, format_si, w_to_dbm
from photonics import budget, fiber, microring, modulation, modulator, noise, point_to_point, receiver, ring_wdm
from photonics.design import LinkDesign, LinkSection
from photonics.loss import LedgerLine, fiber_path, total_db
from photonics.records import (LinkEstimate, ReachFigures, ReceiverFigures, SignalFigures, Violation, LinkEnergy,
                               BudgetFigures)
from photonics.resolve import resolve
from photonics.ring_wdm import transmit_loss_db
from photonics.signal import signal_figures

__all__ = ["LIMIT_TEXT", "LinkEstimate", "Violation", "evaluate", "hop_reach", "min_channel_spacing_hz",
           "pass_through_loss_db", "sensitivity", "transmit_loss_db", "tuning_hz_per_k", "with_fabric_energy"]

# Every capacity limit, in report order, with what it means.
LIMIT_TEXT = {
    "fsr_channels": "channels per ring FSR at the chosen spacing",
    "laser_lines": "laser lines per source",
    "power_budget": "wavelengths the power budget closes",
    "modulator_bandwidth": "ring-modulator linewidth f0/Q (0 when the symbol rate exceeds it)",
    "filter_bandwidth": "drop-filter linewidth f0/Q (0 when the symbol rate exceeds it)",
    "source_bandwidth": "source bandwidth: 2 × its 3-dB bandwidth in symbols/s (Nyquist; 0 beyond)",
    "modal_bandwidth": "multimode fiber's modal bandwidth at its length (0 beyond)",
    "package_escape": "fibers the package edge can escape",
    "requested": "the design's own wavelengths and fibers (payload after FEC)",
}
KIND_STAGES = {"ring-wdm": ring_wdm.stages, "point-to-point": point_to_point.stages}


def evaluate(d: LinkDesign) -> LinkEstimate:
    """Evaluate a design point. Raises InputError for values no receiver or ring can have and for sections that
    contradict each other; returns the estimate (with its violations) for a design that is well formed but may be
    infeasible. Designs and estimates are immutable, so the last few estimates are kept: a command that reads the
    same link in several stages (budget, fabric, cost, sweep columns) computes it once."""
    return _evaluate_cached(d, spectral_forms(d))


def spectral_forms(d: LinkDesign) -> tuple:
    """The form (Hz or wavelength span) of each spectral field: a span equals the float of its metres, so a cache
    keyed on a design needs these too."""
    return (type(d.link.channel_spacing), type(d.ring.tuning_efficiency), type(d.tuning.sigma_local),
            type(d.tuning.sigma_system))


@functools.lru_cache(maxsize=256)
def _evaluate_cached(d: LinkDesign, forms: tuple) -> LinkEstimate:
    d = resolve(d)
    signal = signal_figures(d.link)
    rx = receiver_figures(d, signal)
    kind = KIND_STAGES[d.link.kind](d, signal, rx, shared_penalties(d, signal, rx))
    est = LinkEstimate(design=d, signal=signal, receiver=rx, ring=kind.ring, budget=kind.budget,
                       capacity=kind.capacity, reach=reach_figures(d, signal, rx, kind.budget, kind.modal_reach_m),
                       energy=LinkEnergy(kind.capacity.capacity_bps, kind.optical_power_w, electrical_j_per_bit(d)),
                       tuning=kind.tuning, package=kind.package)
    return replace(est, violations=(*_shared_violations(est), *kind.violations),
                   warnings=(*_shared_warnings(est), *kind.warnings))


# --- the receiver --------------------------------------------------------------------------------------------------
def link_extinction_ratio(d: LinkDesign) -> float:
    """Linear extinction ratio of the signal at the receiver: the ring modulator's, or the transmitter's."""
    return float(db_to_lin(d.modulator.extinction_ratio if d.link.kind == "ring-wdm"
                           else d.transmitter.extinction_ratio))


def receiver_figures(d: LinkDesign, signal: SignalFigures) -> ReceiverFigures:
    """Average-power sensitivity at the target BER and the extinction ratio it assumes: the Ge-photodiode fit (E16,
    NRZ) or a thermal-noise-limited receiver (PAM-M through E22) at the link's ER, or the given figure (an OMA one
    converted at the link's ER, E24). Refuses a sensitivity better than the quantum limit (E17)."""
    rx, lk = d.receiver, d.link
    er = link_extinction_ratio(d)
    if rx.model == "ge-photodiode":
        sens, ref_er = float(receiver.ge_photodiode_sensitivity_w(lk.data_rate, er, rx.responsivity, rx.dark_current,
                                                                   signal.eye_q)), er
    elif rx.model == "thermal-noise":
        sens, ref_er = float(receiver.thermal_noise_sensitivity_w(signal.symbol_rate_baud, signal.target_ber, er,
                                                                   rx.responsivity, rx.noise_density,
                                                                   levels=signal.levels)), er
    elif rx.sensitivity_type == "oma":
        sens, ref_er = float(modulation.average_from_oma_w(rx.sensitivity, er)), er
    else:
        sens, ref_er = rx.sensitivity, float(db_to_lin(rx.reference_extinction_ratio))
    quantum_w = float(receiver.quantum_limit_w(lk.data_rate, microring.frequency_hz(lk.wavelength),
                                               signal.target_ber))
    if sens < quantum_w:
        raise InputError(f"[receiver] sensitivity {float(w_to_dbm(sens)):.2f} dBm is better than the quantum limit "
                         f"{float(w_to_dbm(quantum_w)):.2f} dBm at {format_si(lk.data_rate, 'bit/s')}, BER "
                         f"{signal.target_ber:g} (E17)")
    return ReceiverFigures(sens, ref_er, quantum_w)


def sensitivity(d: LinkDesign) -> tuple[float, float]:
    """(average-power sensitivity in W, the extinction ratio it assumes, linear) of the design's receiver."""
    d = resolve(d)
    rx = receiver_figures(d, signal_figures(d.link))
    return rx.sensitivity_w, rx.reference_extinction_ratio


# --- penalties both link kinds share -------------------------------------------------------------------------------
def spectral_width_m(d: LinkDesign, signal: SignalFigures) -> float:
    """RMS spectral width of the signal: a directly modulated source's own (chirp, modes), else the chirp-free width
    of the modulated CW line (`fiber.transform_limited_rms_width_m`)."""
    if d.link.kind == "point-to-point" and d.laser.kind in ("dml", "vcsel"):
        return d.transmitter.spectral_width
    return float(fiber.transform_limited_rms_width_m(d.link.wavelength, signal.symbol_rate_baud))


def dispersion_spread(d: LinkDesign, signal: SignalFigures, length_m):
    """ε = B·L·|D|·σ_λ at `length_m` of the design's fiber (E28–E29)."""
    fb = d.fiber
    dispersion = fiber.dispersion_s_per_m2(d.link.wavelength, fb.zero_dispersion_wavelength, fb.dispersion_slope)
    return fiber.spread_product(signal.symbol_rate_baud, length_m, dispersion, spectral_width_m(d, signal))


def dispersion_penalty_db(d: LinkDesign, signal: SignalFigures, length_m) -> float:
    """Chromatic-dispersion penalty of the design's model at `length_m` (E29; 0 with model 'none')."""
    if d.fiber.dispersion_model == "none":
        return 0.0
    return float(fiber.DISPERSION_PENALTIES[d.fiber.dispersion_model](dispersion_spread(d, signal, length_m)))


def shared_penalties(d: LinkDesign, signal: SignalFigures, rx: ReceiverFigures) -> list[LedgerLine]:
    """Extinction ratio beyond what the sensitivity assumes (E8), laser RIN (E30) and chromatic dispersion (E29),
    in that order."""
    er = link_extinction_ratio(d)
    er_db = float(modulator.relative_extinction_penalty_db(er, rx.reference_extinction_ratio))
    noise_bw = receiver.NOISE_BANDWIDTH_FRACTION * signal.symbol_rate_baud
    rin_db = float(noise.rin_penalty_db(d.laser.rin, noise_bw, signal.eye_q, signal.eye_scale)) + 0.0  # no −0
    disp_db = dispersion_penalty_db(d, signal, d.loss.fiber_length)
    eps = float(dispersion_spread(d, signal, d.loss.fiber_length))
    model = d.fiber.dispersion_model
    return [LedgerLine("extinction ratio", er_db, "beyond the ER the sensitivity assumes (E8)"),
            LedgerLine("RIN", rin_db, f"{d.laser.rin:g} dB/Hz over {format_si(noise_bw, 'Hz')} (E30)"),
            LedgerLine("dispersion", disp_db, f"ε = B·L·|D|·σ = {eps:.3g}, {model} model (E29)" if model != "none"
                       else "not counted ([fiber] dispersion_model = 'none')")]


# --- reach ---------------------------------------------------------------------------------------------------------
def reach_figures(d: LinkDesign, signal: SignalFigures, rx: ReceiverFigures, power: BudgetFigures,
                  modal_reach: float) -> ReachFigures:
    """Longest fiber (attenuation and the dispersion penalty growing together, within the modal reach), each length
    limit alone, most switch passes, least laser power per line."""
    lk, ls = d.link, d.loss
    total = total_db(power.ledger)
    disp_now = dispersion_penalty_db(d, signal, ls.fiber_length)
    # margin with no fiber and no dispersion: what the fiber's attenuation and dispersion may spend
    headroom = (power.launch_dbm - (total - ls.fiber_length * ls.fiber_loss) - rx.sensitivity_dbm
                - (power.penalty_db - disp_now) - lk.system_margin)
    reach = {"loss": headroom / ls.fiber_loss if ls.fiber_loss > 0 else math.inf,
             "dispersion": _dispersion_reach_m(d, signal, headroom), "modal_bandwidth": modal_reach}
    if headroom < 0:
        reach = dict.fromkeys(reach, math.nan)  # the budget fails even with no fiber: no reach to report
        longest = math.nan
    else:
        longest = min(_combined_reach_m(d, signal, headroom, reach), modal_reach)
    per_pass = ls.switch_loss + ls.switch_connectors * ls.connector_loss
    switch_fixed = total - ls.switch_ports * per_pass
    passes = int(budget.max_hops(power.launch_dbm, rx.sensitivity_dbm, power.penalty_db, switch_fixed, per_pass,
                                 lk.system_margin)) if per_pass > 0 else -1
    # the laser line must cover the link's losses plus its own coupling, split and comb envelope (E9 in dB)
    min_line = float(budget.min_line_power_dbm(rx.sensitivity_dbm, total + power.source_to_launch_db,
                                               power.penalty_db, lk.system_margin))
    return ReachFigures(max_fiber_length_m=longest, fiber_reach_m=reach,
                        max_switch_passes=passes if passes >= 0 else None, min_laser_power_per_line_dbm=min_line)


def _dispersion_reach_m(d: LinkDesign, signal: SignalFigures, headroom_db: float) -> float:
    """Length at which the dispersion penalty alone takes the whole headroom (E29 solved for ε)."""
    per_metre = float(dispersion_spread(d, signal, 1.0))
    if d.fiber.dispersion_model == "none" or per_metre == 0.0 or headroom_db < 0:
        return math.inf if headroom_db >= 0 else math.nan
    return float(fiber.spread_for_penalty(d.fiber.dispersion_model, headroom_db)) / per_metre


def _combined_reach_m(d: LinkDesign, signal: SignalFigures, headroom_db: float, reach: dict) -> float:
    """Length where attenuation plus the dispersion penalty take the headroom: the margin falls with length, so
    bisection between 0 and the shorter of the two single-effect reaches."""
    alpha = d.loss.fiber_loss
    hi = min(reach["loss"], reach["dispersion"])
    if math.isinf(reach["dispersion"]) or math.isinf(hi):
        return hi
    per_metre = float(dispersion_spread(d, signal, 1.0))  # ε grows linearly with length
    penalty = fiber.DISPERSION_PENALTIES[d.fiber.dispersion_model]
    return budget.section_decreasing(lambda length: headroom_db - alpha * length - penalty(per_metre * length),
                                     0.0, hi)


# --- energy --------------------------------------------------------------------------------------------------------
def electrical_j_per_bit(d: LinkDesign) -> dict[str, float]:
    """The electrical side per bit, transmit + receive: die-to-die crossings and SerDes/DSP."""
    it = d.interface
    return {"die_to_die": it.crossings * it.die_to_die_energy, "serdes_dsp": it.dsp_energy}


def with_fabric_energy(est: LinkEstimate, part: str, j_per_bit: float) -> LinkEstimate:
    """The estimate with a per-bit energy the fabric adds (e.g. amplifiers on a ring) in its energy record."""
    return replace(est, energy=est.energy.with_fabric(part, j_per_bit))


# --- constraints both kinds share ----------------------------------------------------------------------------------
def _shared_violations(est: LinkEstimate) -> list[Violation]:
    d, lk = est.design, est.design.link
    out = []
    if est.margin_db < 0:
        out.append(Violation("power_budget", f"margin {est.margin_db:.2f} dB < 0: received {est.received_dbm:.2f} dBm, "
                             f"sensitivity {est.sensitivity_dbm:.2f} dBm, penalties {est.budget.penalty_db:.2f} dB, "
                             f"system margin {lk.system_margin:g} dB"))
    eye_dbm = float(w_to_dbm(d.laser.eye_safety_limit))
    if est.fiber_launch_dbm > eye_dbm:
        out.append(Violation("eye_safety", f"{est.fiber_launch_dbm:.2f} dBm launched into one fiber > eye-safety "
                             f"limit {eye_dbm:.2f} dBm (E15)"))
    return out


def _shared_warnings(est: LinkEstimate) -> list[str]:
    d = est.design
    out = []
    if d.receiver.model == "ge-photodiode" and d.link.data_rate > receiver.GE_FIT_MAX_RATE_BPS:
        out.append(f"[receiver] the Ge-photodiode fit (E16) is extrapolated above 50 Gbit/s (data rate "
                   f"{format_si(d.link.data_rate, 'bit/s')})")
    return out


# --- for the fabric floor ------------------------------------------------------------------------------------------
def pass_through_loss_db(est: LinkEstimate) -> float:
    """Loss of passing one intermediate GPU on a fiber ring: its input and output couplers, its transmit and receive
    waveguides, the rings of that fiber at their own detunings (`ring_wdm.pass_through_rings_db`), and the next hop's
    fiber plant ([loss] connectors, splices, fiber_length and extra items describe one hop)."""
    d = est.design
    if est.ring is None:
        raise InputError(f"[link] kind = '{d.link.kind}' has no rings for a wavelength to pass: a ring fabric needs "
                         "[link] kind = 'ring-wdm'")
    ls = d.loss
    hop = [item for item in fiber_path(d) if item.name not in ("optical-switch passes", "mux/demux")]
    return (2 * ls.coupler + (ls.tx_waveguide_length + ls.rx_waveguide_length) * ls.waveguide_loss
            + ring_wdm.pass_through_rings_db(d, est.ring) + total_db(hop))


def hop_reach(est: LinkEstimate, pass_loss_db: float) -> int:
    """Hops a wavelength travels with no amplifier: 1 (the neighbour) + the intermediate elements the neighbour's
    margin pays for at `pass_loss_db` each (budget.max_hops); 0 when even the neighbour does not close."""
    extra = budget.max_hops(est.launch_dbm, est.sensitivity_dbm, est.budget.penalty_db, total_db(est.ledger),
                            pass_loss_db, est.design.link.system_margin)
    return int(extra) + 1 if extra >= 0 else 0


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
    ring = ring_wdm.ring_figures(d, signal_figures(d.link))

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
    return ring_wdm.tuning_hz_per_k(resolve(d))

