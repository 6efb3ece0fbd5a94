"""The constraints a link design must meet, one table per link kind: each constraint has a stable key (what reports,
sweeps and scripts name it by), a predicate over the kind's arrays (one point or a grid, `photonics.ring_wdm`,
`photonics.point_to_point`) and the message one point's violation reads. The records of a point and the violation
column of a grid both read these tables, in their order.

Both kinds share the power budget and eye safety (E15); a ring-wdm link adds its rings, lasers, heaters and package,
a point-to-point link its source's bandwidth and the multimode fiber's modal bandwidth.
"""

from __future__ import annotations

import numpy as np

from core.records import record
from core.units import w_to_dbm
from photonics import packaging, variation


@record(slots=False)
class Constraint:
    """One constraint: a stable key, whether it is broken (over the arrays), and what one point's message says."""

    key: str
    broken: object  # kind arrays → bool array
    message: object  # kind arrays of one point → str


def _n(value):
    return np.asarray(value)


# --- both kinds ----------------------------------------------------------------------------------------------------
def _budget_message(a) -> str:
    received = float(a.budget.launch_dbm - a.budget.total_db)
    return (f"margin {float(a.budget.margin):.2f} dB < 0: received {received:.2f} dBm, sensitivity "
            f"{float(a.receiver.sensitivity_dbm):.2f} dBm, penalties {float(a.budget.penalty_db):.2f} dB, system "
            f"margin {a.sections['link'].system_margin:g} dB")


def no_power_closes_text(cap_w: float, lines: int, cap_share_dbm: float, need_dbm: float, penalties=(),
                         sensitivity_dbm: float = 0.0) -> str:
    """Why no laser power per line closes a budget: a penalty that closes the eye whatever the power (its `penalties`,
    LedgerLines, infinite; or no sensitivity at all), else the aggregate cap's share of the weakest line in the bus
    falls short of what the budget needs there (E10). The one wording of the budget report, `explain` and `check`."""
    closed = [p.name for p in penalties if not np.isfinite(float(p.value_db))]
    closed += ["receiver sensitivity"] if not np.isfinite(float(sensitivity_dbm)) else []
    if closed or not np.isfinite(float(need_dbm)):
        what = ", ".join(closed) if closed else "the power the budget needs"
        return f"no power closes: the eye is closed whatever the laser gives ({what} infinite)"
    return (f"no power closes: the aggregate cap of {cap_w * 1e3:g} mW over {lines} lines binds ({cap_share_dbm:.2f} "
            f"dBm of the weakest line enters the bus however strong the laser, {need_dbm:.2f} dBm needed)")


def _ring_budget_message(a) -> str:
    """The budget's message, and what the laser can do about it: the least line power that closes, with the
    aggregate cap applied, or that none does."""
    b = a.budget
    least = float(b.min_line_dbm)
    if np.isfinite(least):
        return f"{_budget_message(a)}; {least:.2f} dBm per laser line closes it"
    return (f"{_budget_message(a)}; " + no_power_closes_text(
        float(a.sections["laser"].aggregate_power_limit), int(b.lit), float(b.cap_share_dbm),
        float(b.launch_dbm - b.margin), b.penalties, float(a.receiver.sensitivity_dbm)))


def _eye_limit_dbm(a):
    return w_to_dbm(a.sections["laser"].eye_safety_limit)


EYE_SAFETY = Constraint("eye_safety", lambda a: a.budget.fiber_launch_dbm > _eye_limit_dbm(a),
                        lambda a: f"{float(a.budget.fiber_launch_dbm):.2f} dBm launched into one fiber > eye-safety "
                                  f"limit {float(_eye_limit_dbm(a)):.2f} dBm (E15)")
SHARED = (Constraint("power_budget", lambda a: a.budget.margin < 0, _budget_message), EYE_SAFETY)


# --- ring-wdm ------------------------------------------------------------------------------------------------------
def _yield_message(a) -> str:
    t, tn = a.tuning, a.sections["tuning"]
    rings, model = int(t.rings_used), a.design.tuning.variation_model
    needed = variation.gpu_range_for_yield(model, tn.sigma_local, tn.sigma_system, tn.target_yield, rings,
                                           a.sections["package"].chiplets)
    return (f"{rings} rings all lock with probability {float(t.io_yield):.3g} < target {tn.target_yield:g} in the "
            f"{float(t.available) / 1e9:.0f} GHz left to the heater (σ_local {tn.sigma_local / 1e9:g} GHz, σ_sys "
            f"{tn.sigma_system / 1e9:g} GHz, {model} variation); the target needs {needed / 1e9:.0f} GHz "
            f"({'E33–E34' if model == 'independent' else 'F46'})")


def _escape_message(a) -> str:
    pk, lk = a.sections["package"], a.sections["link"]
    perimeter = float(_perimeter_m(a))
    fitting = int(packaging.chiplets_on_edge(pk.chiplets, pk.chiplet_fiber_edge, perimeter))
    chiplets = (f"{pk.chiplets} chiplets" if fitting == pk.chiplets else
                f"{fitting} chiplets, of {pk.chiplets}, the {perimeter * 1e3:g} mm perimeter holds,")
    return (f"{lk.fibers_per_direction} fibers per direction > {int(a.capacity.escape)} the package escapes "
            f"({chiplets} × {pk.chiplet_fiber_edge * 1e3:g} mm at {pk.fiber_pitch * 1e6:g} µm pitch, Tx + Rx)")


def _perimeter_m(a):
    pk = a.sections["package"]
    return packaging.package_perimeter_m(pk.width, pk.height)


def _wavelengths(a):
    return _n(a.sections["link"].wavelengths_per_fiber)


def _notch_short(a):
    """An all-pass modulator whose ring's own notch (its through transmission on resonance, t0) cannot reach the '0'
    level: the '1' level T₁ = 10^(−IL/10) over the ER must stay above t0 (E61b with T_n = t0). An add-drop modulator
    modulates its drop port, whose transmission falls to nothing off resonance: no such bound."""
    mod = a.sections["modulator"]
    t1 = 10 ** (-_n(mod.insertion_loss) / 10)
    return (a.design.modulator.kind == "all-pass") & (t1 / 10 ** (_n(mod.extinction_ratio) / 10)
                                                      <= a.ring.modulator_on_resonance)


def _notch_message(a) -> str:
    mod, t0 = a.sections["modulator"], float(a.ring.modulator_on_resonance)
    depth = -10 * np.log10(t0) if t0 > 0 else np.inf
    return (f"the all-pass modulator's notch is {depth:.3g} dB deep (t0 = (2·Q_L/Q_i − 1)² = {t0:.3g} at Q "
            f"{mod.q:g} against intrinsic Q {float(a.ring.intrinsic_q):.0f}), short of ER {mod.extinction_ratio:g} dB "
            f"below IL {mod.insertion_loss:g} dB (E61b): bring Q toward Q_i/2 (critical coupling), or lower the ER")


def _driver_message(a) -> str:
    """Why the circuit's driver cannot run, with its numbers: the notch, the junction or the node's speed."""
    from photonics.driver_energy import shift_needed
    from photonics.ring_wdm import circuit_driver

    mod, rate = a.sections["modulator"], a.sections["link"].data_rate
    head = f"the {a.design.modulator.node} driver cannot switch the modulator at {rate / 1e9:g} Gbit/s: "
    _, reachable = shift_needed(mod.insertion_loss, mod.extinction_ratio, mod.notch_transmission)
    if not bool(np.all(reachable)):
        return head + (f"ER {mod.extinction_ratio:g} dB below IL {mod.insertion_loss:g} dB is beyond the notch's "
                       f"{-10 * np.log10(mod.notch_transmission):g} dB depth (E61b): lower the ER or the IL")
    drv = circuit_driver(a.design, a.sections)
    if not np.all(np.isfinite(drv.settle_s)) or not np.all(drv.swing_v > 0):
        return head + "the depletion region outgrows the junction at the swing it needs (E63): lower the ER or Q"
    return head + (f"a {float(drv.swing_v):.2f} V swing into {float(drv.load_f) * 1e15:.1f} fF settles in "
                   f"{float(drv.settle_s) * 1e12:.1f} ps at best, beyond the quarter symbol of "
                   f"{float(drv.quarter_s) * 1e12:.1f} ps (E66): a lower rate, a smaller ring (less junction), a "
                   "lower ER or a faster node")


RING_WDM = (
    Constraint("power_budget", SHARED[0].broken, _ring_budget_message), EYE_SAFETY,
    Constraint("fsr_channels", lambda a: _wavelengths(a) > a.ring.fsr_channels,
               lambda a: f"{a.sections['link'].wavelengths_per_fiber} wavelengths per fiber > "
                         f"{int(a.ring.fsr_channels)} channels per FSR (FSR {float(a.ring.fsr) / 1e9:.0f} GHz / "
                         f"spacing {a.sections['link'].channel_spacing / 1e9:g} GHz)"),
    Constraint("laser_lines", lambda a: _wavelengths(a) > a.laser.lines,
               lambda a: f"{a.sections['link'].wavelengths_per_fiber} wavelengths per fiber > "
                         f"{int(a.laser.lines)} lines per laser source (a separate key: raise [laser] lines with "
                         "the wavelengths, and the laser's cost and power follow)"),
    Constraint("package_escape", lambda a: _n(a.sections["link"].fibers_per_direction) > a.capacity.escape,
               _escape_message),
    Constraint("filter_q", lambda a: _n(a.sections["ring"].filter_q) >= a.ring.intrinsic_q,
               lambda a: f"filter loaded Q {a.sections['ring'].filter_q:g} ≥ intrinsic Q "
                         f"{float(a.ring.intrinsic_q):.0f}: the ring cannot drop (E4)"),
    Constraint("modulator_q", lambda a: (_n(a.sections["modulator"].q) >= a.ring.intrinsic_q)
               & (a.design.modulator.kind == "add-drop"),
               lambda a: f"modulator loaded Q {a.sections['modulator'].q:g} ≥ intrinsic Q "
                         f"{float(a.ring.intrinsic_q):.0f}: an add-drop modulator cannot drop (E4)"),
    Constraint("modulator_notch", _notch_short, _notch_message),
    Constraint("filter_q_max", lambda a: _n(a.sections["ring"].filter_q) > a.sections["ring"].max_q,
               lambda a: f"filter q {a.sections['ring'].filter_q:g} > largest ring Q {a.sections['ring'].max_q:g}"),
    Constraint("modulator_q_max", lambda a: _n(a.sections["modulator"].q) > a.sections["ring"].max_q,
               lambda a: f"modulator q {a.sections['modulator'].q:g} > largest ring Q "
                         f"{a.sections['ring'].max_q:g}"),
    Constraint("tuning_range", lambda a: a.tuning.shift > a.tuning.heater_reach,
               lambda a: f"{a.design.tuning.strategy} tuning needs {float(a.tuning.shift) / 1e9:.0f} GHz per ring > "
                         f"{float(a.tuning.heater_reach) / 1e9:.0f} GHz a "
                         f"{a.sections['tuning'].max_heater_power * 1e3:g} mW heater reaches"),
    Constraint("ring_yield", lambda a: (a.tuning.io_yield < a.sections["tuning"].target_yield)
               if a.tuning.io_yield is not None else np.asarray(False), _yield_message),
    Constraint("modulator_driver", lambda a: (a.design.modulator.energy_model == "circuit")
               & ~np.isfinite(a.optical_power["modulator"]),
               _driver_message),
    Constraint("package_edge", lambda a: _n(a.sections["package"].chiplets) * a.sections["package"].chiplet_fiber_edge
               > _perimeter_m(a),
               lambda a: f"{a.sections['package'].chiplets} chiplets × "
                         f"{a.sections['package'].chiplet_fiber_edge * 1e3:g} mm > package perimeter "
                         f"{float(_perimeter_m(a)) * 1e3:g} mm"),
)


# --- point-to-point: its bandwidths cost margin as channel ISI (the power budget), with no cut-offs of their own ----
def _transmitter_draw_w(a):
    """A lane's transmitter power as its energy figure gives it: [transmitter] energy (laser and driver) × the
    lane's payload rate."""
    return np.asarray(a.sections["transmitter"].energy) * a.capacity.payload


def _transmitter_message(a) -> str:
    from photonics.point_to_point import launch_average_w

    light, payload = float(launch_average_w(a.design, a.sections["transmitter"])), float(a.capacity.payload)
    return (f"[transmitter] energy {a.sections['transmitter'].energy * 1e12:.3g} pJ/bit × {payload / 1e9:g} Gbit/s "
            f"a lane = {float(_transmitter_draw_w(a)) * 1e3:.3g} mW < the {light * 1e3:.3g} mW of light it launches: a "
            f"transmitter draws at least what it emits; give its energy at this launch power (≥ "
            f"{light / payload * 1e12:.3g} pJ/bit) or a lower launch_power")


def _transmitter_below_light(a):
    from photonics.point_to_point import launch_average_w

    return _transmitter_draw_w(a) < launch_average_w(a.design, a.sections["transmitter"])


POINT_TO_POINT = (*SHARED, Constraint("transmitter_energy", _transmitter_below_light, _transmitter_message))

TABLES = {"ring-wdm": RING_WDM, "point-to-point": POINT_TO_POINT}


def broken(table, a) -> list:
    """One bool array per constraint of `table`, in its order."""
    return [np.asarray(c.broken(a)) for c in table]


def violated(table, a) -> list[tuple[str, str]]:
    """(key, message) of each constraint one point breaks, in the table's order."""
    return [(c.key, c.message(a)) for c in table if bool(c.broken(a))]
