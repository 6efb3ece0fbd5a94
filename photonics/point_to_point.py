"""The point-to-point link: one modulated source per fiber, budgeted as a textbook (and an IEEE 802.3 channel table)
does — launch power, named losses, sensitivity, margin.

    margin = P_launch − Σ losses (connectors, splices, fiber × length, extra items, switch passes) − S − ΣPP − M

The launch power is the transmitter's average power into the fiber (an OMA figure is converted at its extinction
ratio, E24); the source may be a CW DFB with an external modulator, a directly modulated laser or a VCSEL. Each lane
(fiber) carries one wavelength at the line rate; the source's and the receiver's bandwidths and, on multimode fiber,
the modal bandwidth cost margin as the ISI of one Gaussian channel (`photonics.channel`, F23–F27), so they limit
rate and length through the budget.

References: *Introduction to Information Optics*, Table 12.3 (the power-budget method, R1); E31 for the IEEE channel
insertion-loss tables; `photonics.fiber` for dispersion, `photonics.channel` for the channel's ISI.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from core.records import record
from core.units import db_to_lin, w_to_dbm
from photonics import budget, channel, fiber, modulation
from photonics.link_design import LinkDesign
from photonics.loss import LedgerLine, fiber_path, ndim, total_db
from photonics.link_records import BudgetFigures, CapacityFigures
from photonics.common_stages import (PenaltyArrays, ReceiverArrays, SignalArrays, as_number, penalty_arrays, penalty_lines,
                              receiver_arrays, sections, signal_arrays, spectral_width_m)

LIMITS = ("power_budget",)


def _is_default(section, key: str) -> bool:
    field = next(f for f in dataclasses.fields(section) if f.name == key)
    return getattr(section, key) == field.default


def default_warnings(d: LinkDesign) -> list[str]:
    """Library defaults that describe the ring-wdm chiplet's parts, left in place on a point-to-point link whose
    parts differ: each is kept (a design file says what it means) but named, with the value its part has."""
    out = []
    if d.fiber.type == "mmf" and _is_default(d.loss, "fiber_loss"):
        out.append("[loss] fiber_loss is the single-mode default (0.35 dB/km) on multimode fiber; multimode is "
                   "~3.5 dB/km at 850 nm (IEEE 802.3 link models): set it")
    if d.fiber.type == "mmf" and _is_default(d.fiber, "zero_dispersion_wavelength") and \
            _is_default(d.fiber, "dispersion_slope") and d.transmitter.eye_closure == "model":
        out.append("[fiber] zero_dispersion_wavelength and dispersion_slope are the single-mode defaults (1312 nm, "
                   "0.092 ps/nm²/km) on multimode fiber; the IEEE 802.3 link models use 1320 nm and 0.11 "
                   "ps/nm²/km for 50 µm and 1365 nm and 0.093 for 62.5 µm fiber: set them")
    if d.receiver.model == "ge-photodiode" and d.link.wavelength < 1.1e-6:
        out.append("[receiver] model 'ge-photodiode' is PhoenixSim's fit for O/C-band germanium photodiodes; at "
                   f"{d.link.wavelength * 1e9:.0f} nm use model = 'given' with the receiver's datasheet sensitivity")
    if d.laser.kind == "dml" and d.fiber.dispersion_model == "chirped-gaussian":
        symbol_rate = d.link.data_rate / np.log2(modulation.LEVELS[d.link.modulation])
        own = float(fiber.chirp_spectral_width_m(0.25 / symbol_rate, d.transmitter.chirp, d.link.wavelength))
        if d.transmitter.spectral_width < own:
            out.append(f"[transmitter] spectral_width {d.transmitter.spectral_width * 1e9:.3g} nm is narrower than the "
                       f"{own * 1e9:.3g} nm RMS a pulse at chirp {d.transmitter.chirp:g} spans by itself at this "
                       "symbol rate (E93, E97): the chirp sets the width and the stated one adds nothing; give the "
                       "measured modulated width (at least this), or a smaller |chirp|")
    if d.transmitter.eye_closure == "tdecq":
        out.append("[transmitter] tdecq holds for the fiber it is measured through (the standard's worst case at its "
                   "reach): the longest fiber here assumes the eye closes no further beyond [loss] fiber_length"
                   + ("" if d.receiver.sensitivity_floor > 0 else "; and a standard's receiver floor (e.g. "
                      "400GBASE-DR4's −4.4 dBm OMA) binds below its knee: give it as [receiver] sensitivity_floor"))
    return out


def launch_average_w(d: LinkDesign, tx):
    """Average power into the fiber: as given, or from a given OMA at the transmitter's extinction ratio (E24)."""
    if d.transmitter.launch_power_type == "average":
        return np.asarray(tx.launch_power, dtype=float)
    return modulation.average_from_oma_w(tx.launch_power, db_to_lin(tx.extinction_ratio))


@record(slots=False)
class LaneBudget:
    """One lane's budget over the fiber plant: the ledger and penalties, the launch, the margin, whether it closes."""
    ledger: tuple  # the fiber plant, LedgerLine values
    penalties: tuple  # extinction ratio, RIN, dispersion
    launch_dbm: object  # average power into the fiber
    total_db: object
    penalty_db: object
    margin: object
    count: object  # 1 when the lane closes, else 0
    fiber_launch_dbm: object
    min_line_dbm: object  # least launch power that closes


@record(slots=False)
class ChannelArrays:
    """The channel at one fiber length: its rise time and eye, and the penalties of the IEEE 802.3 link model."""

    rise: object  # 10–90 %, the whole channel
    eye: object  # inner eye over the unfiltered one (ISI, DCD, jitter)
    isi_db: object
    rin_db: object  # on the closed eye
    mode_partition_db: object
    modal_noise_db: object
    interaction_db: object  # the noises together on the closed eye, beyond each alone

    @property
    def total_db(self):
        return self.isi_db + self.rin_db + self.mode_partition_db + self.modal_noise_db + self.interaction_db


def _rin_oma_db_per_hz(d: LinkDesign, s: dict):
    """The laser's RIN referred to the OMA: as given, or from an average-referred RIN at the link's extinction ratio
    (E26)."""
    rin = s["laser"].rin
    if d.laser.rin_type == "oma":
        return rin
    return rin + 20.0 * np.log10(1.0 / modulation.oma_from_average_w(1.0, db_to_lin(s["transmitter"].extinction_ratio)))


def channel_stage(d: LinkDesign, s: dict, sig: SignalArrays, length_m) -> ChannelArrays:
    """The IEEE 802.3 link model's channel at `length_m` (photonics.channel): rise times of the transmitter, the
    receiver, multimode fiber's modal bandwidth and, with dispersion_model = 'gaussian-channel', chromatic
    dispersion; the eye they leave; RIN, mode-partition noise (VCSELs), modal noise (multimode fiber) and baseline
    wander on that eye."""
    lk, fb, tx, rx = s["link"], s["fiber"], s["transmitter"], s["receiver"]
    rate = np.asarray(sig.symbol_rate, dtype=float)
    length = np.asarray(length_m, dtype=float)
    mmf = d.fiber.type == "mmf"
    f_rx = rx.bandwidth_to_symbol_rate * rate
    t_rx = channel.receiver_rise_s(f_rx)
    t_modal = channel.modal_rise_s(length, fb.modal_bandwidth) if mmf else 0.0 * length
    width = spectral_width_m(d, s, rate)
    dispersion = fiber.dispersion_s_per_m2(lk.wavelength, fb.zero_dispersion_wavelength, fb.dispersion_slope)
    t_cd = (channel.chromatic_rise_s(length, dispersion, width) if d.fiber.dispersion_model == "gaussian-channel"
            else 0.0 * length)
    rise = channel.combined_rise_s(channel.transmitter_rise_s(tx.bandwidth), t_rx, t_modal, t_cd)
    eye = channel.gaussian_eye(rate, rise, tx.duty_cycle_distortion, tx.deterministic_jitter, sig.levels)
    open_eye = np.where(eye > 1e-100, eye, 1e-100)  # a closed eye: every noise penalty infinite
    q = sig.eye_q * sig.eye_scale
    v_rin = channel.rin_variance(_rin_oma_db_per_hz(d, s), channel.noise_bandwidth_hz(
        channel.optical_bandwidth_hz(t_cd), channel.optical_bandwidth_hz(t_modal), f_rx))
    k = tx.mode_partition_k if d.laser.kind == "vcsel" and d.fiber.dispersion_model != "none" else 0.0
    sigma_mpn = channel.mode_partition_sigma(k, rate, dispersion, length, width)
    modal_noise = fb.modal_noise if mmf else 0.0
    wander = np.asarray(rx.baseline_wander, dtype=float) ** 2
    parts = (channel.eye_penalty_db(eye) + 0.0, channel.noise_penalty_db(q, v_rin / open_eye**2) + 0.0,
             channel.noise_penalty_db(q, sigma_mpn**2) + 0.0, np.asarray(modal_noise, dtype=float) + 0.0 * length)
    together = channel.noise_penalty_db(q, (wander + v_rin) / open_eye**2 + channel.modal_noise_variance(
        modal_noise, q) + sigma_mpn**2) - channel.noise_penalty_db(
        q, wander / channel.gaussian_eye(rate, t_rx, levels=sig.levels) ** 2)
    alone = sum(parts[1:])
    with np.errstate(invalid="ignore"):
        interaction = np.where(np.isfinite(together), together - alone, np.where(np.isinf(alone), 0.0, np.inf))
    return ChannelArrays(rise=rise, eye=eye, isi_db=parts[0], rin_db=parts[1], mode_partition_db=parts[2],
                         modal_noise_db=parts[3], interaction_db=interaction + 0.0)


def channel_penalty_db(d: LinkDesign, s: dict, sig: SignalArrays, length_m):
    """Every channel penalty at `length_m` of fiber, summed (what grows with length besides dispersion)."""
    return channel_stage(d, s, sig, length_m).total_db


def _channel_lines(d: LinkDesign, s: dict, sig: SignalArrays, ch: ChannelArrays) -> tuple[LedgerLine, ...]:
    one = ndim(ch.isi_db) == 0
    tx = s["transmitter"]
    isi = (f"10–90 % rise {float(ch.rise) * 1e12:.4g} ps over a {1e12 / float(sig.symbol_rate):.4g} ps symbol"
           + (f", DCD {tx.duty_cycle_distortion * 1e12:g} ps" if tx.duty_cycle_distortion else "")
           + (f", DJ {tx.deterministic_jitter * 1e12:g} ps" if tx.deterministic_jitter else "")
           + ", Gaussian channel (IEEE 802.3 link model)") if one else ""
    rin = (f"RIN_OMA {float(_rin_oma_db_per_hz(d, s)):.4g} dB/Hz on the eye the channel leaves (IEEE 802.3 link "
           "model)") if one else ""
    return (LedgerLine("RIN", as_number(ch.rin_db), rin, "rin"),
            LedgerLine("channel ISI", as_number(ch.isi_db), isi, "channel_isi"),
            LedgerLine("mode partition", as_number(ch.mode_partition_db),
                       "VCSEL mode-partition noise (F28)" if one else "", "mode_partition"),
            LedgerLine("modal noise", as_number(ch.modal_noise_db),
                       "multimode fiber's allocation" if one else "", "modal_noise"),
            LedgerLine("noise on the closed eye", as_number(ch.interaction_db),
                       "the noises together, beyond each alone (IEEE 802.3 link model)" if one else "",
                       "noise_interaction"))


def budget_stage(d: LinkDesign, s: dict, sig: SignalArrays, rx: ReceiverArrays, pen: PenaltyArrays) -> LaneBudget:
    """The textbook budget of one lane: launch − the fiber plant's losses − sensitivity − penalties (extinction ratio,
    dispersion, and the channel's: RIN, ISI, mode partition, modal noise and their interaction; or, with
    `eye_closure = "tdecq"`, the extinction ratio and the transmitter's measured TDECQ) − system margin."""
    launch = w_to_dbm(launch_average_w(d, s["transmitter"]))
    items = tuple(fiber_path(d, s["loss"]))
    shared = {line.key: line for line in penalty_lines(d, s, sig, pen)}
    if d.transmitter.eye_closure == "tdecq":  # the measured eye closure stands for the channel's and the fiber's
        tdecq = np.asarray(s["transmitter"].tdecq, dtype=float)
        # the receiver's floor: the OMA it needs whatever the eye, as average power at the link's extinction ratio
        floor_w = modulation.average_from_oma_w(s["receiver"].sensitivity_floor,
                                                db_to_lin(s["transmitter"].extinction_ratio))
        with np.errstate(divide="ignore"):
            above = w_to_dbm(floor_w) - rx.sensitivity_dbm  # the floor over the ideal eye's sensitivity, dB
        charged = np.maximum(tdecq, above)
        floors = np.any(above > tdecq)
        name = "TDECQ" if sig.levels > 2 else "TDEC"
        detail = (f"measured through the reference receiver and worst-case fiber, in place of the channel's ISI, "
                  f"dispersion, RIN and noise ({name}, IEEE 802.3 cl. 121)" if ndim(tdecq) == 0 else "")
        if floors and ndim(charged) == 0:
            detail = (f"the receiver's floor {w_to_dbm(s['receiver'].sensitivity_floor):.2f} dBm OMA binds: "
                      f"{float(above):.2f} dB above the ideal eye's sensitivity, more than the {float(tdecq):.2f} dB "
                      f"{name}")
        penalties = (shared["extinction_ratio"], LedgerLine(name if not floors else f"{name} or the receiver's floor",
                                                            as_number(charged), detail, "tdecq"))
    else:
        lines = _channel_lines(d, s, sig, channel_stage(d, s, sig, s["loss"].fiber_length))
        penalties = (shared["extinction_ratio"], lines[0], shared["dispersion"], *lines[1:])
    total, penalty_db = total_db(items), total_db(penalties)
    margin = launch - total - rx.sensitivity_dbm - penalty_db - s["link"].system_margin
    return LaneBudget(ledger=items, penalties=penalties, launch_dbm=launch, total_db=total, penalty_db=penalty_db,
                      margin=margin, count=np.where(margin >= 0.0, 1, 0), fiber_launch_dbm=launch,
                      min_line_dbm=budget.min_line_power_dbm(rx.sensitivity_dbm, total, penalty_db,
                                                             s["link"].system_margin))


@record(slots=False)
class LaneCapacity:
    """A point-to-point link's capacity: the payload rate per lane, every limit's capacity, the least of them."""
    payload: object  # bit/s per lane after the FEC overhead
    limits: dict  # every limit's capacity, and 'requested'
    capacity: object


def capacity_stage(s: dict, sig: SignalArrays, power: LaneBudget) -> LaneCapacity:
    """Lanes × payload rate, unless the budget (bandwidths included, as ISI) fails."""
    lk = s["link"]
    lanes, payload = np.asarray(lk.fibers_per_direction), np.asarray(lk.data_rate) * (1.0 / (1.0 + sig.overhead))
    limits = {"power_budget": power.count * payload * lanes, "requested": payload * lanes}
    capacity = np.min(np.stack(np.broadcast_arrays(*limits.values())), axis=0)
    return LaneCapacity(payload=payload, limits=limits, capacity=capacity)


@record(slots=False)
class PointToPoint:
    """Every stage of the point-to-point link (one point, or arrays over a grid)."""

    design: LinkDesign
    sections: dict
    signal: SignalArrays
    receiver: ReceiverArrays
    penalties: PenaltyArrays
    budget: LaneBudget
    capacity: LaneCapacity
    optical_power: dict  # W: transmitter and receiver energy at the capacity


def lane_arrays(d: LinkDesign, varied: dict | None = None) -> PointToPoint:
    """The point-to-point link of `d` (resolved), with the arrays of `varied` in place of the design's numbers."""
    s = sections(d, varied)
    sig = signal_arrays(d, s["link"])
    rx = receiver_arrays(d, s, sig)
    pen = penalty_arrays(d, s, sig, rx)
    power = budget_stage(d, s, sig, rx, pen)
    cap = capacity_stage(s, sig, power)
    parts = {"transmitter": np.asarray(s["transmitter"].energy) * cap.capacity,
             "receiver": np.asarray(s["receiver"].energy) * cap.capacity}
    return PointToPoint(design=d, sections=s, signal=sig, receiver=rx, penalties=pen, budget=power, capacity=cap,
                        optical_power=parts)


def budget_figures(a: PointToPoint) -> BudgetFigures:
    """One point's budget record."""
    b = a.budget
    launch = float(b.launch_dbm)
    return BudgetFigures(ledger=b.ledger, penalties=b.penalties, laser_line_dbm=launch, launch_dbm=launch,
                         aggregate_cap_binds=False, received_dbm=launch - b.total_db, margin_db=float(b.margin),
                         power_budget_count=int(b.count), fiber_launch_dbm=float(b.fiber_launch_dbm),
                         min_line_dbm=float(b.min_line_dbm))


def capacity_figures(a: PointToPoint) -> CapacityFigures:
    """One point's capacity record: the limits below the requested rate bind, '+'-joined ('requested' if none)."""
    limits = {k: float(v) for k, v in a.capacity.limits.items()}
    capacity = float(a.capacity.capacity)
    binding = "+".join(k for k in LIMITS if limits[k] < limits["requested"]) or "requested"
    count = int(a.budget.count)
    return CapacityFigures(
        wavelength_limits={"power_budget": count, "requested": 1}, limits_bps=limits, capacity_bps=capacity,
        binding_limit=binding, max_capacity_bps=capacity, max_binding_limit=binding,
        lifted_limits_bps=dict(limits),  # one lane: no count to lift
        max_wavelengths_per_fiber=count if capacity > 0 else 0, wavelengths_used=1 if capacity > 0 else 0,
        fibers_used=a.sections["link"].fibers_per_direction)
