"""The records `photonics.link.evaluate` builds, one per stage, and the estimate that composes them.

Every number is an SI float (W, dBm, dB, Hz, bit/s, s, m, J/bit) with the unit in its name; rendering happens in
`sipml`. Stages: the signal (modulation, FEC, target BER), the receiver (sensitivity), the ring figures (ring-wdm
links), the budget (ledger, penalties, margin), the capacity (every limit and the binding one), the reach (fiber
length, switch passes, least laser power), tuning and ring yield (ring-wdm links), energy, packaging.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import field, replace

import numpy as np

from core.records import record
from core.sums import in_order
from photonics.link_design import LinkDesign
from photonics.loss import LedgerLine


@record
class Violation:
    """A constraint the design breaks, with the numbers that show it."""

    name: str
    message: str


@record
class FecFigures:
    """The forward error correction the link runs: its target, overhead and latency."""

    name: str  # 'none', 'kr4', 'kp4', 'given'
    threshold_ber: float  # the BER the receiver must reach (the pre-FEC threshold; the link's BER without FEC)
    overhead: float  # n/k − 1
    latency_s: float  # one codeword at the line rate + the decoder's logic (or the given latency); 0 without FEC
    frame_error_ratio: float | None  # E27 at the threshold, for the standard codes
    code: str = ""  # e.g. 'RS(544,514) KP4'
    post_fec_ber: float | None = None  # F42 at the threshold, for the standard codes

    @property
    def payload_fraction(self) -> float:
        """Share of the line rate that carries data, k/n = 1/(1 + overhead)."""
        return 1.0 / (1.0 + self.overhead)


@record
class SignalFigures:
    """The signal the link carries: modulation, levels, symbol rate, target BER, the eye Q it needs, FEC."""

    modulation: str  # 'nrz' or 'pam4'
    levels: int
    symbol_rate_baud: float  # line rate / bits per symbol
    target_ber: float
    eye_q: float  # d/(2σ) the receiver needs at the target BER (E22; NRZ: Q = −Φ⁻¹(BER))
    fec: FecFigures

    @property
    def eye_scale(self) -> float:
        """How many times smaller than NRZ's one eye of the format is at equal OMA: M − 1 (E23)."""
        return float(self.levels - 1)


@record
class ReceiverFigures:
    """The receiver's average-power sensitivity, the extinction ratio it assumes, the quantum limit."""

    sensitivity_w: float  # average power
    reference_extinction_ratio: float  # linear ER the sensitivity assumes
    quantum_limit_w: float

    @property
    def sensitivity_dbm(self) -> float:
        return float(10.0 * np.log10(self.sensitivity_w / 1e-3))  # numpy's log10, as the grid kernel's

    @property
    def quantum_limit_dbm(self) -> float:
        return float(10.0 * np.log10(self.quantum_limit_w / 1e-3))


@record
class RingFigures:
    """A ring-wdm link's rings: FSR, linewidths, finesse, Q, drop and through losses, the rates they pass."""

    fsr_hz: float
    fsr_m: float
    filter_fwhm_hz: float
    modulator_fwhm_hz: float
    finesse: float
    intrinsic_q: float
    drop_loss_db: float
    filter_on_resonance: float  # through transmission t0 of a drop filter on resonance
    modulator_on_resonance: float  # through transmission t0 of a modulator ring on resonance
    through_loss_db: float  # one passed filter ring one channel away (the nearest neighbour's share, E5)
    modulator_drop_loss_db: float  # drop port of an add-drop modulator ring (E4)
    modulator_max_rate_bps: float  # largest symbol rate the modulator passes, f0/Q (E13)
    filter_max_rate_bps: float  # largest symbol rate the drop filter passes, f0/Q (E13, E18d)
    filter_to_symbol_rate: float  # Δ = FWHM / symbol rate of the drop filter (E18)


@record
class BudgetFigures:
    """The power budget of the worst wavelength at the design's own counts."""

    ledger: tuple[LedgerLine, ...]  # losses after the launch point, in path order
    penalties: tuple[LedgerLine, ...]
    laser_line_dbm: float  # mean laser output per line (point-to-point: the average launch power)
    launch_dbm: float  # weakest line entering the transmit bus (point-to-point: the average power into the fiber)
    aggregate_cap_binds: bool
    received_dbm: float
    margin_db: float
    power_budget_count: int  # wavelengths per fiber the budget closes (point-to-point: 1 or 0)
    fiber_launch_dbm: float  # total optical power entering one fiber
    min_line_dbm: float  # least laser power per line that closes, cap applied (NaN where none does)
    crosstalk_leakage: float = 0.0  # ΣX at the worst victim, relative to the victim's power (E6)
    source_to_launch_db: float = 0.0  # from the laser output to the launch point: coupling, split, comb envelope
    # the aggregate cap's share of the weakest line entering the bus however strong the laser, P_max − 10·log10 N_bus
    # less a comb's envelope (E10); +inf where no cap applies (point-to-point)
    cap_share_dbm: float = math.inf
    lines_in_bus: int = 1  # the laser lines sharing the cap at the design's count

    @property
    def penalty_db(self) -> float:
        return float(sum(p.value_db for p in self.penalties))

    @property
    def needed_at_launch_dbm(self) -> float:
        """What the weakest line must bring to the launch point to close: the launch less the margin,
        S + ΣIL + ΣPP + the system margin."""
        return self.launch_dbm - self.margin_db


@record
class CapacityFigures:
    """The capacity: every limit, the one that binds, and the capacity with the design's counts lifted."""

    wavelength_limits: dict[str, int]
    limits_bps: dict[str, float]
    capacity_bps: float
    binding_limit: str
    max_capacity_bps: float  # with the design's own wavelength and fiber counts lifted
    max_binding_limit: str  # the limits at max_capacity_bps in lifted_limits_bps, '+'-joined
    max_wavelengths_per_fiber: int
    wavelengths_used: int  # per fiber, by the capacity (0 when it is zero)
    fibers_used: int
    lifted_limits_bps: dict[str, float] = field(default_factory=dict)  # each limit with the counts lifted

    def binds(self, limit: str, lifted: bool = False) -> bool:
        """Whether `limit` binds the capacity (at the design's counts, or `lifted`): the one reading of the
        binding labels that the summary and the limits table share."""
        return limit in (self.max_binding_limit if lifted else self.binding_limit).split("+")


@record
class ReachFigures:
    """How far the budget reaches: fiber length, switch passes, the least laser power per line that closes."""

    max_fiber_length_m: float  # NaN when the budget fails even with no fiber
    fiber_reach_m: dict[str, float]  # each length limit alone: 'loss', 'dispersion', 'channel_isi'
    max_switch_passes: int | None  # None when the budget fails even with no switch
    min_laser_power_per_line_dbm: float  # with the aggregate cap applied; NaN where no line power closes
    no_power_closes: str = ""  # why no line power closes (a closed eye, or the aggregate cap); '' where one does


@record
class RingYield:
    """Rings that lock under fabrication variation (E33–E34), for the rings in use."""

    sigma_hz: float
    rings: int
    range_hz: float  # one-way heater range left for the variation
    lock_probability: float  # one ring
    io_yield: float  # all the rings of one GPU
    target_yield: float
    range_at_target_hz: float
    power_at_target_w: float


@record
class TuningFigures:
    """Heater power for the rings in use, the shift they must make, the reach, and the ring yield."""

    power_w: float
    shift_needed_hz: float  # largest shift one ring of the designed grid must make
    heater_reach_hz: float  # the largest shift the heater driver supplies
    ring_yield: RingYield | None = None  # full-thermal and athermal-untrimmed tuning only


@record
class LinkEnergy:
    """Energy per bit (transmit + receive, J/bit) and power (W) by part: the optical link, the electrical side, and
    anything a fabric adds (`with_fabric`). Optical parts are kept as power (a comb draws even at zero capacity),
    the others as energy per bit."""

    capacity_bps: float
    optical_power_w: dict[str, float]
    electrical_j_per_bit: dict[str, float]
    fabric_j_per_bit: dict[str, float] = field(default_factory=dict)

    def _per_bit(self, power_w: float) -> float:
        return power_w / self.capacity_bps if self.capacity_bps > 0 else math.nan  # undefined at 0 bps

    @property
    def optical_j_per_bit(self) -> dict[str, float]:
        return {k: self._per_bit(v) for k, v in self.optical_power_w.items()}

    @property
    def optical_total_j_per_bit(self) -> float:
        """The parts added in order, as a grid adds its arrays (`photonics.ring_wdm.optical_energy_j_per_bit`)."""
        return float(in_order(self.optical_j_per_bit.values()))

    @property
    def total_j_per_bit(self) -> float:
        """Optical link + electrical side + what the fabric adds."""
        return (self.optical_total_j_per_bit + sum(self.electrical_j_per_bit.values())
                + sum(self.fabric_j_per_bit.values()))

    @property
    def total_power_w(self) -> float:
        return sum(self.optical_power_w.values()) + self.capacity_bps * (
            sum(self.electrical_j_per_bit.values()) + sum(self.fabric_j_per_bit.values()))

    def with_fabric(self, part: str, j_per_bit: float) -> LinkEnergy:
        """The same record with a fabric part (e.g. 'amplifiers') added per bit."""
        return replace(self, fabric_j_per_bit={**self.fabric_j_per_bit, part: float(j_per_bit)})


@record
class PackageFigures:
    """The package's fiber escape per direction and its shoreline bandwidth density."""

    escape_fibers_per_direction: int
    shoreline_bps_per_m: float




def _forward(record: str, name: str):
    """A read-only attribute of the estimate that reads `name` from one of its stage records."""
    return property(lambda self: getattr(getattr(self, record), name), doc=f"{record}.{name}")


@record
class FabricInputs:
    """What a fabric reads of its GPU-to-GPU link: numbers for one design point (`photonics.link.fabric_inputs`) or
    arrays over a grid of them (`photonics.link_grid.fabric_inputs`), the same figures either way."""

    capacity_bps: object
    margin_db: object
    launch_dbm: object  # the weakest line entering the transmit bus
    sensitivity_dbm: object
    penalty_db: object  # every penalty of the budget
    ledger_db: object  # every loss of the ledger
    system_margin_db: object
    pass_loss_db: object  # passing one intermediate GPU (`photonics.link.hop_pass_loss_db`); None without rings
    power_w: dict  # optical I/O power by part
    # what an amplified ring reads besides (its noise at the destination)
    transmit_loss_db: object  # from the transmit bus into the fiber
    penalty_after_er_db: object  # the penalties other than the extinction ratio's
    sensitivity_w: object  # average power
    reference_extinction_ratio: object  # linear ER the sensitivity assumes
    filter_fwhm_hz: object  # None without rings
    symbol_rate_baud: object
    eye_q: object  # the Q the receiver needs at the target BER


@record(slots=False)
class LinkEstimate:
    """Everything `evaluate` finds for a design point, stage by stage (the attributes below read the stages). Its
    reach is found when first read (`reach`)."""

    design: LinkDesign
    signal: SignalFigures
    receiver: ReceiverFigures
    ring: RingFigures | None  # None for a point-to-point link
    budget: BudgetFigures
    capacity: CapacityFigures
    energy: LinkEnergy
    tuning: TuningFigures | None  # None for a point-to-point link
    package: PackageFigures | None  # None for a point-to-point link
    # the reach of these records (`photonics.link.reach_figures` of the design, signal, receiver and budget)
    reach_of: Callable[[], ReachFigures] = field(compare=False, repr=False)
    violations: tuple[Violation, ...] = ()
    warnings: tuple[str, ...] = ()

    ledger = _forward("budget", "ledger")
    penalties = _forward("budget", "penalties")
    laser_line_dbm = _forward("budget", "laser_line_dbm")
    launch_dbm = _forward("budget", "launch_dbm")
    aggregate_cap_binds = _forward("budget", "aggregate_cap_binds")
    received_dbm = _forward("budget", "received_dbm")
    margin_db = _forward("budget", "margin_db")
    fiber_launch_dbm = _forward("budget", "fiber_launch_dbm")
    crosstalk_leakage = _forward("budget", "crosstalk_leakage")
    sensitivity_dbm = _forward("receiver", "sensitivity_dbm")
    quantum_limit_dbm = _forward("receiver", "quantum_limit_dbm")
    wavelength_limits = _forward("capacity", "wavelength_limits")
    limits_bps = _forward("capacity", "limits_bps")
    capacity_bps = _forward("capacity", "capacity_bps")
    binding_limit = _forward("capacity", "binding_limit")
    max_capacity_bps = _forward("capacity", "max_capacity_bps")
    max_binding_limit = _forward("capacity", "max_binding_limit")
    max_wavelengths_per_fiber = _forward("capacity", "max_wavelengths_per_fiber")
    max_fiber_length_m = _forward("reach", "max_fiber_length_m")
    max_switch_passes = _forward("reach", "max_switch_passes")
    min_laser_power_per_line_dbm = _forward("budget", "min_line_dbm")  # as the reach has it, without its bisections
    no_power_closes = _forward("reach", "no_power_closes")
    power_w = _forward("energy", "optical_power_w")
    energy_j_per_bit = _forward("energy", "optical_j_per_bit")
    # the optical link's whole energy per bit (the JSON's energy_pj_per_bit; `energy.total_j_per_bit` adds the
    # electrical side and the fabric's, the JSON's total_energy_pj_per_bit): a name kept for the scripts that read it
    total_energy_j_per_bit = _forward("energy", "optical_total_j_per_bit")

    @functools.cached_property
    def reach(self) -> ReachFigures:
        """The fiber length, switch passes and laser power the budget reaches: found when first read (`reach_of`),
        as it bisects the fiber length (~4 ms, more than the rest of a link's evaluation) and only the link's own
        readings ask for it (its report, the fiber-length and switch-pass quantities), not a fabric, a cost or a
        training run."""
        return self.reach_of()

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def escape_fibers_per_direction(self) -> int | None:
        return self.package.escape_fibers_per_direction if self.package else None

    @property
    def shoreline_bps_per_m(self) -> float | None:
        return self.package.shoreline_bps_per_m if self.package else None
