"""Reports built from results: the data behind `sipml budget`, `check` and `fields`."""

from __future__ import annotations

import math

from photonics.design import SECTIONS
from photonics.fields import specs
from photonics.link import LIMIT_TEXT, LinkEstimate
from sipml.render import Report, Table


def _f(value: float, digits: int = 2) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    return f"{value:.{digits}f}"


def budget_data(est: LinkEstimate, source: str) -> dict:
    """The JSON of `sipml budget` (keys documented in the README)."""
    r = est.ring
    ledger = [{"name": "laser line power (mean)", "value": est.laser_line_dbm, "unit": "dBm",
               "detail": f"{est.design.laser.kind}, {est.design.laser.lines} lines"},
              {"name": "weakest line entering the bus", "value": est.launch_dbm, "unit": "dBm",
               "detail": _launch_detail(est)}]
    ledger += [{"name": l.name, "value": -l.value_db, "unit": "dB", "detail": l.detail} for l in est.ledger]
    ledger.append({"name": "received power", "value": est.received_dbm, "unit": "dBm", "detail": ""})
    ledger.append({"name": "sensitivity", "value": est.sensitivity_dbm, "unit": "dBm",
                   "detail": f"model {est.design.receiver.model}"})
    ledger += [{"name": f"penalty: {p.name}", "value": -p.value_db, "unit": "dB", "detail": p.detail}
               for p in est.penalties]
    ledger.append({"name": "system margin reserved", "value": -est.design.link.system_margin, "unit": "dB",
                   "detail": ""})
    ledger.append({"name": "margin", "value": est.margin_db, "unit": "dB", "detail": ""})
    return {
        "design": source,
        "feasible": est.feasible,
        "margin_db": est.margin_db,
        "capacity_gbps": est.capacity_bps / 1e9,
        "binding_limit": est.binding_limit,
        "limits_gbps": {k: v / 1e9 for k, v in est.limits_bps.items()},
        "max_capacity_gbps": est.max_capacity_bps / 1e9,
        "max_binding_limit": est.max_binding_limit,
        "max_wavelengths_per_fiber": est.max_wavelengths_per_fiber,
        "wavelength_limits": est.wavelength_limits,
        "laser_power_per_line_dbm": est.laser_line_dbm,
        "min_laser_power_per_line_dbm": est.min_laser_power_per_line_dbm,
        "received_power_dbm": est.received_dbm,
        "sensitivity_dbm": est.sensitivity_dbm,
        "quantum_limit_dbm": est.quantum_limit_dbm,
        "max_fiber_length_m": est.max_fiber_length_m,
        "max_switch_passes": est.max_switch_passes,
        "energy_pj_per_bit": est.total_energy_j_per_bit * 1e12,
        "energy_breakdown_pj_per_bit": {k: v * 1e12 for k, v in est.energy_j_per_bit.items()},
        "io_power_w": sum(est.power_w.values()),
        "escape_fibers_per_direction": est.escape_fibers_per_direction,
        "shoreline_tbps_per_mm": est.shoreline_bps_per_m / 1e15,
        "ring": {"fsr_ghz": r.fsr_hz / 1e9, "fsr_nm": r.fsr_m * 1e9, "filter_fwhm_ghz": r.filter_fwhm_hz / 1e9,
                 "finesse": r.finesse, "intrinsic_q": r.intrinsic_q, "drop_loss_db": r.drop_loss_db,
                 "through_loss_db": r.through_loss_db, "modulator_max_rate_gbps": r.modulator_max_rate_bps / 1e9},
        "ledger": ledger,
        "violations": [{"name": v.name, "message": v.message} for v in est.violations],
        "warnings": list(est.warnings),
    }


def _launch_detail(est: LinkEstimate) -> str:
    lz = est.design.laser
    parts = [f"coupling {lz.coupling_loss:g} dB"]
    if lz.fibers_per_source > 1:
        parts.append(f"split over {lz.fibers_per_source} fibers")
    if est.aggregate_cap_binds:
        parts.append("capped by the aggregate waveguide power (E10)")
    if lz.flatness:
        parts.append(f"weakest line {lz.flatness:g} dB below mean")
    return ", ".join(parts)


def budget_report(est: LinkEstimate, source: str) -> Report:
    data = budget_data(est, source)
    ledger = Table("Link budget (worst wavelength)", ["item", "value", "unit", "detail"],
                   [{"item": row["name"], "value": f"{row['value']:+.2f}", "unit": row["unit"],
                     "detail": row["detail"]} for row in data["ledger"]])
    limits = Table("Capacity per GPU per direction: every limit", ["limit", "capacity", "unit", "meaning"],
                   [{"limit": k + ("  ← binds" if k == est.binding_limit else ""), "capacity": _f(v / 1e9, 0),
                     "unit": "Gbps", "meaning": LIMIT_TEXT[k]} for k, v in est.limits_bps.items()])
    energy = Table("Energy per bit (transmit + receive)", ["part", "energy", "unit", "power", "unit "],
                   [{"part": k, "energy": _f(v * 1e12, 3), "unit": "pJ/bit", "power": _f(est.power_w[k], 3),
                     "unit ": "W"} for k, v in est.energy_j_per_bit.items()]
                   + [{"part": "total", "energy": _f(est.total_energy_j_per_bit * 1e12, 3), "unit": "pJ/bit",
                       "power": _f(sum(est.power_w.values()), 3), "unit ": "W"}])
    r = est.ring
    summary = Table("Summary", ["quantity", "value", "unit"], [
        {"quantity": "feasible", "value": "yes" if est.feasible else "NO", "unit": ""},
        {"quantity": "margin", "value": _f(est.margin_db), "unit": "dB"},
        {"quantity": "capacity", "value": _f(est.capacity_bps / 1e9, 0), "unit": "Gbps per direction"},
        {"quantity": "binding limit", "value": est.binding_limit, "unit": ""},
        {"quantity": "max wavelengths per fiber", "value": str(est.max_wavelengths_per_fiber), "unit": ""},
        {"quantity": "max capacity (counts lifted)", "value": _f(est.max_capacity_bps / 1e9, 0),
         "unit": f"Gbps, bound by {est.max_binding_limit}"},
        {"quantity": "min laser power per line", "value": _f(est.min_laser_power_per_line_dbm), "unit": "dBm"},
        {"quantity": "max fiber length", "value": _f(est.max_fiber_length_m / 1e3, 3), "unit": "km"},
        {"quantity": "max optical-switch passes", "value": str(est.max_switch_passes), "unit": ""},
        {"quantity": "ring FSR", "value": f"{r.fsr_hz / 1e9:.0f} / {r.fsr_m * 1e9:.2f}", "unit": "GHz / nm"},
        {"quantity": "filter FWHM / finesse", "value": f"{r.filter_fwhm_hz / 1e9:.1f} / {r.finesse:.0f}",
         "unit": "GHz / –"},
        {"quantity": "escape fibers per direction", "value": str(est.escape_fibers_per_direction), "unit": ""},
        {"quantity": "shoreline density", "value": _f(est.shoreline_bps_per_m / 1e15, 3), "unit": "Tbps/mm"},
    ])
    footer = [f"violated: {v.name}: {v.message}" for v in est.violations]
    footer += [f"warning: {w}" for w in est.warnings]
    return Report(data, [summary, ledger, limits, energy], footer)


def check_report(est: LinkEstimate, source: str) -> Report:
    rows = [{"constraint": v.name, "violation": v.message} for v in est.violations]
    data = {"design": source, "feasible": est.feasible, "margin_db": est.margin_db,
            "capacity_gbps": est.capacity_bps / 1e9, "binding_limit": est.binding_limit,
            "violations": [{"name": v.name, "message": v.message} for v in est.violations],
            "warnings": list(est.warnings)}
    verdict = (f"{source}: feasible, margin {est.margin_db:.2f} dB, {est.capacity_bps / 1e9:.0f} Gbps per direction "
               f"({est.binding_limit} binds)" if est.feasible else
               f"{source}: INFEASIBLE, {len(est.violations)} constraint(s) violated")
    tables = [Table("Violated constraints", ["constraint", "violation"], rows)] if rows else []
    return Report(data, tables, [verdict, *(f"warning: {w}" for w in est.warnings)])


def fields_report() -> Report:
    rows, data = [], {}
    for section, cls in SECTIONS.items():
        for key, spec in specs(cls).items():
            row = {"section": section, "key": key, "unit": spec.unit if spec.unit != "1" else "—",
                   "default": spec.default_text, "range": spec.range_text(), "help": spec.help,
                   "source": spec.source}
            rows.append(row)
            data.setdefault(section, {})[key] = {k: v for k, v in row.items() if k not in ("section", "key")}
    return Report(data, [Table("Design-file fields", ["section", "key", "unit", "default", "range", "help",
                                                      "source"], rows)])
