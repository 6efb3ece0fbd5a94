"""The point-to-point link: one modulated source per fiber, budgeted as a textbook (and an IEEE 802.3 channel table)
does — launch power, named losses, sensitivity, margin.

    margin = P_launch − Σ losses (connectors, splices, fiber × length, extra items, switch passes) − S − ΣPP − M

The launch power is the transmitter's average power into the fiber (an OMA figure is converted at its extinction
ratio, E24); the source may be a CW DFB with an external modulator, a directly modulated laser or a VCSEL. Each lane
(fiber) carries one wavelength at the line rate; the source's 3-dB bandwidth and, on multimode fiber, the modal
bandwidth limit the rate and the length.

References: *Introduction to Information Optics*, Table 12.3 (the power-budget method, R1); E31 for the IEEE channel
insertion-loss tables; `photonics.fiber` for dispersion and modal bandwidth.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from core.units import db_to_lin, w_to_dbm
from photonics import budget, fiber, modulation
from photonics.design import LinkDesign
from photonics.loss import fiber_path, total_db
from photonics.records import BudgetFigures, CapacityFigures
from photonics.shared import (PenaltyArrays, ReceiverArrays, SignalArrays, penalty_arrays, penalty_lines,
                              receiver_arrays, sections, signal_arrays)

NYQUIST_SYMBOLS_PER_HZ = 2.0  # a channel of bandwidth B passes at most 2·B symbols/s free of ISI (H. Nyquist, 1928)
LIMITS = ("power_budget", "source_bandwidth", "modal_bandwidth")


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
    if d.laser.kind == "vcsel" and _is_default(d.laser, "rin"):
        out.append("[laser] rin is the comb default (-135 dB/Hz); 850 nm VCSELs are specified at -128 dB/Hz "
                   "(10GBASE-SR RIN12OMA): set it")
    if d.receiver.model == "ge-photodiode" and d.link.wavelength < 1.1e-6:
        out.append("[receiver] model 'ge-photodiode' is PhoenixSim's fit for O/C-band germanium photodiodes; at "
                   f"{d.link.wavelength * 1e9:.0f} nm use model = 'given' with the receiver's datasheet sensitivity")
    return out


def launch_average_w(d: LinkDesign, tx):
    """Average power into the fiber: as given, or from a given OMA at the transmitter's extinction ratio (E24)."""
    if d.transmitter.launch_power_type == "average":
        return np.asarray(tx.launch_power, dtype=float)
    return modulation.average_from_oma_w(tx.launch_power, db_to_lin(tx.extinction_ratio))


@dataclass(frozen=True)
class LaneBudget:
    ledger: tuple  # the fiber plant, LedgerLine values
    penalties: tuple  # extinction ratio, RIN, dispersion
    launch_dbm: object  # average power into the fiber
    total_db: object
    penalty_db: object
    margin: object
    count: object  # 1 when the lane closes, else 0
    fiber_launch_dbm: object
    min_line_dbm: object  # least launch power that closes


def budget_stage(d: LinkDesign, s: dict, sig: SignalArrays, rx: ReceiverArrays, pen: PenaltyArrays) -> LaneBudget:
    """The textbook budget of one lane: launch − the fiber plant's losses − sensitivity − penalties − system margin."""
    launch = w_to_dbm(launch_average_w(d, s["transmitter"]))
    items = tuple(fiber_path(d, s["loss"]))
    penalties = penalty_lines(d, s, sig, pen)
    total, penalty_db = total_db(items), total_db(penalties)
    margin = launch - total - rx.sensitivity_dbm - penalty_db - s["link"].system_margin
    return LaneBudget(ledger=items, penalties=penalties, launch_dbm=launch, total_db=total, penalty_db=penalty_db,
                      margin=margin, count=np.where(margin >= 0.0, 1, 0), fiber_launch_dbm=launch,
                      min_line_dbm=budget.min_line_power_dbm(rx.sensitivity_dbm, total, penalty_db,
                                                             s["link"].system_margin))


def modal_reach_m(d: LinkDesign, s: dict, symbol_rate):
    """Longest fiber its modal bandwidth allows at the symbol rate (multimode fiber only; single-mode: unbounded)."""
    if d.fiber.type != "mmf":
        return np.asarray(np.inf)
    return fiber.modal_reach_m(symbol_rate, s["fiber"].modal_bandwidth)


@dataclass(frozen=True)
class LaneCapacity:
    payload: object  # bit/s per lane after the FEC overhead
    source_ok: object
    modal_ok: object
    limits: dict  # every limit's capacity, and 'requested'
    capacity: object


def capacity_stage(s: dict, sig: SignalArrays, power: LaneBudget, modal_reach) -> LaneCapacity:
    """Lanes × payload rate, unless the budget fails, the source's bandwidth cannot pass the symbol rate (Nyquist),
    or the multimode fiber is longer than its modal bandwidth allows."""
    lk = s["link"]
    lanes, payload = np.asarray(lk.fibers_per_direction), np.asarray(lk.data_rate) * (1.0 / (1.0 + sig.overhead))
    source_ok = sig.symbol_rate <= NYQUIST_SYMBOLS_PER_HZ * np.asarray(s["transmitter"].bandwidth)
    modal_ok = np.asarray(s["loss"].fiber_length) <= modal_reach
    limits = {"power_budget": power.count * payload * lanes,
              "source_bandwidth": np.where(source_ok, payload * lanes, 0.0),
              "modal_bandwidth": np.where(modal_ok, payload * lanes, 0.0), "requested": payload * lanes}
    capacity = np.min(np.stack(np.broadcast_arrays(*limits.values())), axis=0)
    return LaneCapacity(payload=payload, source_ok=source_ok, modal_ok=modal_ok, limits=limits, capacity=capacity)


@dataclass(frozen=True)
class PointToPoint:
    """Every stage of the point-to-point link (one point, or arrays over a grid)."""

    design: LinkDesign
    sections: dict
    signal: SignalArrays
    receiver: ReceiverArrays
    penalties: PenaltyArrays
    budget: LaneBudget
    capacity: LaneCapacity
    modal_reach_m: object
    optical_power: dict  # W: transmitter and receiver energy at the capacity


def lane_arrays(d: LinkDesign, varied: dict | None = None) -> PointToPoint:
    """The point-to-point link of `d` (resolved), with the arrays of `varied` in place of the design's numbers."""
    s = sections(d, varied)
    sig = signal_arrays(d, s["link"])
    rx = receiver_arrays(d, s, sig)
    pen = penalty_arrays(d, s, sig, rx)
    power = budget_stage(d, s, sig, rx, pen)
    reach = modal_reach_m(d, s, sig.symbol_rate)
    cap = capacity_stage(s, sig, power, reach)
    parts = {"transmitter": np.asarray(s["transmitter"].energy) * cap.capacity,
             "receiver": np.asarray(s["receiver"].energy) * cap.capacity}
    return PointToPoint(design=d, sections=s, signal=sig, receiver=rx, penalties=pen, budget=power, capacity=cap,
                        modal_reach_m=reach, optical_power=parts)


def budget_figures(a: PointToPoint) -> BudgetFigures:
    """One point's budget record."""
    b = a.budget
    launch = float(b.launch_dbm)
    return BudgetFigures(ledger=b.ledger, penalties=b.penalties, laser_line_dbm=launch, launch_dbm=launch,
                         aggregate_cap_binds=False, received_dbm=launch - b.total_db, margin_db=float(b.margin),
                         power_budget_count=int(b.count), fiber_launch_dbm=float(b.fiber_launch_dbm))


def capacity_figures(a: PointToPoint) -> CapacityFigures:
    """One point's capacity record: the limits below the requested rate bind, '+'-joined ('requested' if none)."""
    limits = {k: float(v) for k, v in a.capacity.limits.items()}
    capacity = float(a.capacity.capacity)
    binding = "+".join(k for k in LIMITS if limits[k] < limits["requested"]) or "requested"
    count = int(a.budget.count)
    return CapacityFigures(
        wavelength_limits={"power_budget": count, "requested": 1}, limits_bps=limits, capacity_bps=capacity,
        binding_limit=binding, max_capacity_bps=capacity, max_binding_limit=binding,
        max_wavelengths_per_fiber=count if capacity > 0 else 0, wavelengths_used=1 if capacity > 0 else 0,
        fibers_used=a.sections["link"].fibers_per_direction)
