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
import math

from core.units import db_to_lin, format_si, w_to_dbm
from photonics import fiber, modulation
from photonics.design import LinkDesign
from photonics.loss import LedgerLine, fiber_path, total_db
from photonics.signal import baud_text
from photonics.records import BudgetFigures, CapacityFigures, KindStages, ReceiverFigures, SignalFigures, Violation

NYQUIST_SYMBOLS_PER_HZ = 2.0  # a channel of bandwidth B passes at most 2·B symbols/s free of ISI (H. Nyquist, 1928)


def stages(d: LinkDesign, signal: SignalFigures, rx: ReceiverFigures, shared: list[LedgerLine]) -> KindStages:
    """The point-to-point stages: budget, capacity, optical power (no rings, tuning or package)."""
    power = link_budget(d, signal, rx, shared)
    cap = capacity_limits(d, signal, power)
    return KindStages(ring=None, budget=power, capacity=cap, tuning=None, package=None,
                      optical_power_w=optical_power_w(d, cap), modal_reach_m=modal_reach_m(d, signal),
                      violations=tuple(violations(d, signal, cap)), warnings=tuple(default_warnings(d)))


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


def launch_average_w(d: LinkDesign) -> float:
    """Average power into the fiber: as given, or from a given OMA at the transmitter's extinction ratio (E24)."""
    tx = d.transmitter
    if tx.launch_power_type == "average":
        return tx.launch_power
    return float(modulation.average_from_oma_w(tx.launch_power, db_to_lin(tx.extinction_ratio)))


def link_budget(d: LinkDesign, signal: SignalFigures, rx: ReceiverFigures,
                penalties: list[LedgerLine]) -> BudgetFigures:
    """The textbook budget of one lane: launch − the fiber plant's losses − sensitivity − penalties − system margin."""
    launch_dbm = float(w_to_dbm(launch_average_w(d)))
    items = tuple(fiber_path(d))
    received = launch_dbm - total_db(items)
    margin = received - rx.sensitivity_dbm - total_db(penalties) - d.link.system_margin
    return BudgetFigures(ledger=items, penalties=tuple(penalties), laser_line_dbm=launch_dbm, launch_dbm=launch_dbm,
                         aggregate_cap_binds=False, received_dbm=received, margin_db=margin,
                         power_budget_count=1 if margin >= 0.0 else 0, fiber_launch_dbm=launch_dbm)


def modal_reach_m(d: LinkDesign, signal: SignalFigures) -> float:
    """Longest fiber its modal bandwidth allows at the symbol rate (multimode fiber only; single-mode: unbounded)."""
    if d.fiber.type != "mmf":
        return math.inf
    return float(fiber.modal_reach_m(signal.symbol_rate_baud, d.fiber.modal_bandwidth))


def capacity_limits(d: LinkDesign, signal: SignalFigures, power: BudgetFigures) -> CapacityFigures:
    """Lanes × payload rate, unless the budget fails, the source's bandwidth cannot pass the symbol rate (Nyquist),
    or the multimode fiber is longer than its modal bandwidth allows."""
    lk = d.link
    lanes, payload = lk.fibers_per_direction, lk.data_rate * signal.fec.payload_fraction
    source_ok = signal.symbol_rate_baud <= NYQUIST_SYMBOLS_PER_HZ * d.transmitter.bandwidth
    modal_ok = d.loss.fiber_length <= modal_reach_m(d, signal)
    limits = {"power_budget": power.power_budget_count * payload * lanes,
              "source_bandwidth": payload * lanes if source_ok else 0.0,
              "modal_bandwidth": payload * lanes if modal_ok else 0.0,
              "requested": payload * lanes}
    capacity = min(limits.values())
    binding = "+".join(k for k, v in limits.items() if k != "requested" and v < limits["requested"]) or "requested"
    return CapacityFigures(
        wavelength_limits={"power_budget": power.power_budget_count, "requested": 1}, limits_bps=limits,
        capacity_bps=capacity, binding_limit=binding, max_capacity_bps=capacity, max_binding_limit=binding,
        max_wavelengths_per_fiber=power.power_budget_count if capacity > 0 else 0,
        wavelengths_used=1 if capacity > 0 else 0, fibers_used=lanes)


def optical_power_w(d: LinkDesign, cap: CapacityFigures) -> dict:
    """Transmitter and receiver energy at the capacity (W)."""
    return {"transmitter": d.transmitter.energy * cap.capacity_bps, "receiver": d.receiver.energy * cap.capacity_bps}


def violations(d: LinkDesign, signal: SignalFigures, cap: CapacityFigures) -> list[Violation]:
    out = []
    tx = d.transmitter
    if cap.limits_bps["source_bandwidth"] == 0.0:
        out.append(Violation("source_bandwidth", f"symbol rate {baud_text(signal.symbol_rate_baud)} > "
                             f"2 × the source's {format_si(tx.bandwidth, 'Hz')} bandwidth (Nyquist)"))
    if cap.limits_bps["modal_bandwidth"] == 0.0:
        reach = modal_reach_m(d, signal)
        out.append(Violation("modal_bandwidth", f"{format_si(d.loss.fiber_length, 'm')} of multimode fiber > the "
                             f"{format_si(reach, 'm')} its {d.fiber.modal_bandwidth / 1e9:g} MHz·km modal bandwidth "
                             f"passes at {baud_text(signal.symbol_rate_baud)} (rise time 0.44·L/B0 "
                             "within 70 % of a symbol)"))
    return out
