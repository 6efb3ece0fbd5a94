"""Reports built from results: the data behind `sipml budget`, `check` and `fields`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from photonics.link import LIMIT_TEXT, LinkEstimate
from sipml.design_files import field_notes, field_rows
from sipml.figures import figures
from sipml.quantities import NETWORK_PRICED_KEYS, PRICED_KEYS, QUANTITIES, Reading, network_costed
from sipml.render import Report, Table, count_text

if TYPE_CHECKING:  # the estimate is read, never built, here: a link command imports no fabric code
    from fabric.estimate import FabricEstimate


def _rate(value_bps: float) -> tuple[str, str]:
    """(number, unit) of a data rate in Gbit/s, or in Mbit/s below 1 Gbit/s, to four significant digits."""
    if value_bps is None or not math.isfinite(value_bps):
        return _f(value_bps), "Gbit/s"
    from sipml.figures_text import figure_text

    if 0 < value_bps < 1e9:
        return figure_text(value_bps / 1e6), "Mbit/s"
    return figure_text(value_bps / 1e9), "Gbit/s"


def _f(value: float, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}f}"


def _source_rows(est: LinkEstimate) -> list[dict]:
    """The ledger's first rows: the laser line and the weakest line entering the bus (ring-wdm), or the launch."""
    d = est.design
    if d.link.kind == "point-to-point":
        tx = d.transmitter
        given = f"given as OMA {10 * math.log10(tx.launch_power / 1e-3):.2f} dBm at ER {tx.extinction_ratio:g} dB" \
            if tx.launch_power_type == "oma" else "given"
        return [{"name": "launch power (average)", "value": est.launch_dbm, "unit": "dBm",
                 "detail": f"{d.laser.kind}, {given}"}]
    return [{"name": "laser line power (mean)", "value": est.laser_line_dbm, "unit": "dBm",
             "detail": f"{d.laser.kind}, {d.laser.lines} lines"},
            {"name": "weakest line entering the bus", "value": est.launch_dbm, "unit": "dBm",
             "detail": _launch_detail(est)}]


def _as(key: str, values: dict) -> dict:
    """{name: SI value} in the reported unit of quantity `key` (its declared scale: pJ/bit, Gbit/s)."""
    return {k: QUANTITIES[key].scaled(v) for k, v in values.items()}


def _pj(values: dict) -> dict:
    return _as("energy_pj_per_bit", values)


def _ring_data(est: LinkEstimate) -> dict | None:
    r = est.ring
    if r is None:
        return None
    return {"fsr_ghz": r.fsr_hz / 1e9, "fsr_nm": r.fsr_m * 1e9, "filter_fwhm_ghz": r.filter_fwhm_hz / 1e9,
            "finesse": r.finesse, "intrinsic_q": r.intrinsic_q, "drop_loss_db": r.drop_loss_db,
            "through_loss_db": r.through_loss_db, "modulator_max_rate_gbps": r.modulator_max_rate_bps / 1e9,
            "filter_max_rate_gbps": r.filter_max_rate_bps / 1e9, "filter_to_symbol_rate": r.filter_to_symbol_rate}


def _yield_data(est: LinkEstimate) -> dict | None:
    y = est.tuning.ring_yield if est.tuning else None
    if y is None:
        return None
    return {"sigma_ghz": y.sigma_hz / 1e9, "rings": y.rings, "range_ghz": y.range_hz / 1e9,
            "lock_probability": y.lock_probability, "io_yield": y.io_yield, "target_yield": y.target_yield,
            "range_at_target_ghz": y.range_at_target_hz / 1e9, "tuning_power_at_target_w": y.power_at_target_w}


BUDGET_KEYS = ("design", "feasible", "link_kind", "margin_db", "capacity_gbps", "binding_limit", "limits_gbps",
               "max_capacity_gbps", "max_binding_limit", "lifted_limits_gbps", "max_wavelengths_per_fiber",
               "wavelength_limits", "modulation", "symbol_rate_gbd", "target_ber", "fec", "laser_power_per_line_dbm",
               "min_laser_power_per_line_dbm", "no_power_closes", "received_power_dbm", "sensitivity_dbm",
               "quantum_limit_dbm", "max_fiber_length_m", "fiber_reach_m", "max_switch_passes", "energy_pj_per_bit",
               "energy_breakdown_pj_per_bit", "electrical_energy_breakdown_pj_per_bit",
               "fabric_energy_breakdown_pj_per_bit", "total_energy_pj_per_bit", "io_power_w", "total_io_power_w",
               "escape_fibers_per_direction", "shoreline_tbps_per_mm", "ring", "ring_yield", "ledger", "violations",
               "warnings")
CHECK_KEYS = ("design", "feasible", "margin_db", "capacity_gbps", "binding_limit", "violations", "warnings")
CHECK_FABRIC_KEYS = ("design", "feasible", "fabric", "margin_db", "per_gpu_bandwidth_gbps", "binding_limit",
                     "violations", "warnings")
FABRIC_KEYS = ("design", "fabric", "gpus", "job_gpus", "feasible", "per_gpu_bandwidth_gbps", "effective_bandwidth_gbps",
               "useful_time_fraction", "degree", "bisection_gbps", "optical_reach", "margin_db", "figures",
               "message_bytes", "collective_times_s", "collective_busbw_gbps", "collective_algorithms", "violations",
               "notes")
COST_KEYS = ("design", "fabric", "gpus", "gpu", "feasible", "per_gpu_bandwidth_gbps", "degree", "bisection_gbps",
             "network_cost_usd_per_gpu", "network_cost_usd_per_gpu_range", "network_power_w_per_gpu",
             "network_power_w_per_gpu_range", "cluster_cost_usd", "cluster_cost_usd_range", "cluster_power_w",
             "cluster_power_w_range", "facility_power_w", "network_cost_share", "scale_out_cost_share",
             "network_power_share", "gpu_cost_share", "optics_power_w_per_gpu", "optics_power_w_per_gpu_range",
             "optics_power_boundary", "port_power_w_per_gpu", "port_power_w_per_gpu_range", "port_power_boundary",
             "optics_cost_usd_per_gpu", "optics_cost_usd_per_gpu_range", "all_reduce_busbw_gbps", "breakdown",
             "violations", "notes")


def reported(reading: Reading, keys, labels: dict) -> dict:
    """A command's JSON in `keys` order: each quantity from the table (sipml.quantities), each label from
    `labels`."""
    return {key: QUANTITIES[key].value(reading) if key in QUANTITIES else labels[key] for key in keys}


def budget_data(est: LinkEstimate, source: str) -> dict:
    """The JSON of `sipml budget` (keys documented in the README)."""
    sig, fec, energy = est.signal, est.signal.fec, est.energy
    ledger = _source_rows(est)
    ledger += [{"name": l.name, "value": -l.value_db, "unit": "dB", "detail": l.detail} for l in est.ledger]
    ledger.append({"name": "received power", "value": est.received_dbm, "unit": "dBm", "detail": ""})
    ledger.append({"name": "sensitivity", "value": est.sensitivity_dbm, "unit": "dBm",
                   "detail": f"model {est.design.receiver.model}"})
    ledger += [{"name": f"penalty: {p.name}", "value": -p.value_db, "unit": "dB", "detail": p.detail}
               for p in est.penalties]
    ledger.append({"name": "system margin reserved", "value": -est.design.link.system_margin, "unit": "dB",
                   "detail": ""})
    ledger.append({"name": "margin", "value": est.margin_db, "unit": "dB", "detail": ""})
    labels = {
        "design": source, "feasible": est.feasible, "link_kind": est.design.link.kind,
        "binding_limit": est.binding_limit, "limits_gbps": _as("capacity_gbps", est.limits_bps),
        "max_binding_limit": est.max_binding_limit,
        "lifted_limits_gbps": _as("capacity_gbps", est.capacity.lifted_limits_bps),
        "no_power_closes": est.no_power_closes or None, "wavelength_limits": est.wavelength_limits,
        "modulation": sig.modulation,
        "fec": {"name": fec.name, "code": fec.code, "threshold_ber": fec.threshold_ber, "overhead": fec.overhead,
                "latency_s": fec.latency_s, "frame_error_ratio": fec.frame_error_ratio,
                "post_fec_ber": fec.post_fec_ber},
        "fiber_reach_m": est.reach.fiber_reach_m, "energy_breakdown_pj_per_bit": _pj(est.energy_j_per_bit),
        "electrical_energy_breakdown_pj_per_bit": _pj(energy.electrical_j_per_bit),
        "fabric_energy_breakdown_pj_per_bit": _pj(energy.fabric_j_per_bit),
        "ring": _ring_data(est), "ring_yield": _yield_data(est), "ledger": ledger,
        "violations": [{"name": v.name, "message": v.message} for v in est.violations],
        "warnings": list(est.warnings)}
    return reported(Reading(link=est), BUDGET_KEYS, labels)


def _launch_detail(est: LinkEstimate) -> str:
    lz = est.design.laser
    parts = [f"coupling {lz.coupling_loss:g} dB"]
    if lz.fibers_per_source > 1:
        parts.append(f"split over {lz.fibers_per_source} fibers")
    if est.aggregate_cap_binds:
        parts.append("capped by the aggregate waveguide power (E10): the laser's power above it is lost")
    if lz.kind == "comb" and lz.flatness:
        parts.append(f"weakest line {lz.flatness:g} dB below mean")
    return ", ".join(parts)


def _energy_table(est: LinkEstimate) -> Table:
    energy = est.energy
    cap = energy.capacity_bps

    def row(part, j_per_bit, watts):
        return {"part": part, "energy pJ/bit": _f(j_per_bit * 1e12, 3), "power W": _f(watts, 3)}

    rows = [row(k, v, est.power_w[k]) for k, v in est.energy_j_per_bit.items()]
    rows.append(row("optical link", est.total_energy_j_per_bit, sum(est.power_w.values())))
    rows += [row(f"electrical: {k}", v, v * cap) for k, v in energy.electrical_j_per_bit.items()]
    rows += [row(f"fabric: {k}", v, v * cap) for k, v in energy.fabric_j_per_bit.items()]
    rows.append(row("total", energy.total_j_per_bit, energy.total_power_w))
    return Table("Energy per bit (transmit + receive)", ["part", "energy pJ/bit", "power W"], rows)


def _fmt_rate(value_bps: float, unit: str = "bit/s") -> str:
    from core.units import format_si

    return format_si(value_bps, "bit/s").replace("bit/s", unit)


def _capacity_caveat(est: LinkEstimate) -> str:
    """Where the capacity is not the design's own: an infeasible link's capacity is what the binding limit allows
    (fewer wavelengths than written), while its margin is the design's as written."""
    written = est.design.link.wavelengths_per_fiber
    if est.feasible or est.design.link.kind != "ring-wdm" or est.max_wavelengths_per_fiber >= written:
        return ""
    return (f" at {est.max_wavelengths_per_fiber} wavelengths per fiber, the most the limits allow (the margin is "
            f"at the design's {written})")


def _summary_rows(est: LinkEstimate) -> list[dict]:
    sig, fec = est.signal, est.signal.fec
    rows = [
        {"quantity": "feasible", "value": "yes" if est.feasible else "NO", "unit": ""},
        {"quantity": "link", "value": est.design.link.kind, "unit": ""},
        {"quantity": "margin", "value": _f(est.margin_db), "unit": "dB"},
        {"quantity": "capacity", "value": _rate(est.capacity_bps)[0],
         "unit": f"{_rate(est.capacity_bps)[1]} per direction{_capacity_caveat(est)}"},
        {"quantity": "binding limit", "value": est.binding_limit,
         "unit": "the design's own wavelength and fiber counts: nothing else binds"
         if est.binding_limit == "requested" else ""},
        {"quantity": "modulation, symbol rate", "value": f"{sig.modulation.upper()}, "
                                                          f"{_fmt_rate(sig.symbol_rate_baud, 'Bd')}", "unit": ""},
        {"quantity": "FEC, target BER", "value": f"{fec.code or fec.name}, {sig.target_ber:g}", "unit": ""},
        {"quantity": "max wavelengths per fiber", "value": str(est.max_wavelengths_per_fiber), "unit": ""},
        {"quantity": "max capacity (counts lifted)", "value": _rate(est.max_capacity_bps)[0],
         "unit": f"{_rate(est.max_capacity_bps)[1]}, bound by {est.max_binding_limit}"},
        {"quantity": "min laser power per line" if est.ring else "min launch power (average)",
         "value": _f(est.min_laser_power_per_line_dbm),
         "unit": f"dBm ({est.no_power_closes})" if est.no_power_closes else "dBm"},
        {"quantity": "max fiber length", "value": _f(est.max_fiber_length_m / 1e3, 3),
         "unit": "km" if math.isfinite(est.max_fiber_length_m) or math.isinf(est.max_fiber_length_m)
         else "km (the budget fails with no fiber)"},
        {"quantity": "max optical-switch passes",
         "value": "–" if est.max_switch_passes is None else str(est.max_switch_passes),
         "unit": "" if est.max_switch_passes is not None else "(the budget fails with no switch)"},
    ]
    if fec.name != "none":
        rows.insert(7, {"quantity": "FEC latency", "value": _f(fec.latency_s * 1e9, 1), "unit": "ns"})
        if fec.post_fec_ber is not None:
            rows.insert(8, {"quantity": "pre-FEC target / post-FEC BER / frame error ratio",
                            "value": f"{fec.threshold_ber:.3g} / {fec.post_fec_ber:.3g} / {fec.frame_error_ratio:.3g}",
                            "unit": ""})
    r = est.ring
    if r is not None:
        rows += [
            {"quantity": "ring FSR", "value": f"{r.fsr_hz / 1e9:.0f} / {r.fsr_m * 1e9:.2f}", "unit": "GHz / nm"},
            {"quantity": "filter FWHM / finesse", "value": f"{r.filter_fwhm_hz / 1e9:.1f} / {r.finesse:.0f}",
             "unit": "GHz / –"},
            {"quantity": "escape fibers per direction", "value": str(est.escape_fibers_per_direction), "unit": ""},
            {"quantity": "shoreline density", "value": _f(est.shoreline_bps_per_m / 1e15, 3), "unit": "Tbit/s/mm"}]
    y = est.tuning.ring_yield if est.tuning else None
    if y is not None:
        rows += [{"quantity": "ring lock yield", "value": f"{y.io_yield:.4g}",
                  "unit": f"all {y.rings} rings, target {y.target_yield:g}"},
                 {"quantity": "tuning range / power at target yield",
                  "value": f"{y.range_at_target_hz / 1e9:.0f} / {y.power_at_target_w:.3f}", "unit": "GHz / W"}]
    return rows


def _limits_table(est: LinkEstimate) -> Table:
    """Every capacity limit at the design's counts and with the counts lifted, each marked where it binds: read,
    as the summary's binding limits are, from the capacity record (`CapacityFigures.binds`)."""
    cap = est.capacity

    def cell(value_bps: float | None, binds: bool) -> str:
        if value_bps is None:
            return ""
        number, unit = _rate(value_bps)
        return f"{number} {unit}" + ("  ← binds" if binds else "")

    rows = [{"limit": k, "at the design's counts": cell(v, cap.binds(k)),
             "counts lifted": cell(cap.lifted_limits_bps.get(k), cap.binds(k, lifted=True)), "meaning": LIMIT_TEXT[k]}
            for k, v in cap.limits_bps.items()]
    return Table("Capacity per GPU per direction: every limit", ["limit", "at the design's counts", "counts lifted",
                                                                  "meaning"], rows)


def budget_report(est: LinkEstimate, source: str, min_spacing_hz: float | None | bool = False) -> Report:
    """`min_spacing_hz`: False when not solved, None when no spacing closes, else the spacing in Hz."""
    data = budget_data(est, source)
    if min_spacing_hz is not False:
        data["min_channel_spacing_ghz"] = None if min_spacing_hz is None else min_spacing_hz / 1e9
    ledger = Table("Link budget (worst wavelength)", ["item", "value", "unit", "detail"],
                   [{"item": row["name"], "value": f"{row['value']:+.2f}", "unit": row["unit"],
                     "detail": row["detail"]} for row in data["ledger"]])
    limits = _limits_table(est)
    summary = Table("Summary", ["quantity", "value", "unit"], _summary_rows(est))
    if min_spacing_hz is not False:
        summary.rows.append({"quantity": "min channel spacing", "unit": "GHz",
                             "value": "none closes" if min_spacing_hz is None else _f(min_spacing_hz / 1e9, 1)})
    footer = [f"violated: {v.name}: {v.message}" for v in est.violations]
    footer += [f"warning: {w}" for w in est.warnings]
    return Report(data, [summary, ledger, limits, _energy_table(est)], footer, records=[data])


def check_report(est: LinkEstimate, source: str) -> Report:
    rows = [{"constraint": v.name, "violation": v.message} for v in est.violations]
    data = reported(Reading(link=est), CHECK_KEYS, {
        "design": source, "feasible": est.feasible, "binding_limit": est.binding_limit,
        "violations": [{"name": v.name, "message": v.message} for v in est.violations],
        "warnings": list(est.warnings)})
    verdict = (f"{source}: feasible, margin {est.margin_db:.2f} dB, {' '.join(_rate(est.capacity_bps))} per "
               f"direction ({est.binding_limit} binds)" if est.feasible else
               f"{source}: INFEASIBLE, {len(est.violations)} constraint(s) violated")
    tables = [Table("Violated constraints", ["constraint", "violation"], rows)] if rows else []
    return Report(data, tables, [verdict, *(f"warning: {w}" for w in est.warnings)], records=[data])


def fields_report(sections=None) -> Report:
    """`sipml fields`: every declared field, or those of `sections`."""
    from core.errors import InputError
    from core.errors import did_you_mean
    from sipml.design_files import ALL_SECTIONS, OPTICAL_IO

    for name in sections or ():
        if name == OPTICAL_IO:
            raise InputError(f"fields: [{OPTICAL_IO}] has one key, design = NAME (a built-in name or a design file): "
                             "the design takes that design's optical I/O, its [link] … [package] sections, whose "
                             "fields `sipml fields link` and the others list")
        if name not in ALL_SECTIONS:
            raise InputError(f"fields: unknown section [{name}]{did_you_mean(name, ALL_SECTIONS)}; known sections: "
                             f"{', '.join(ALL_SECTIONS)}")
    rows, data = [r for r in field_rows() if not sections or r["section"] in sections], {}
    for row in rows:
        data.setdefault(row["section"], {})[row["key"]] = {k.replace(" ", "_").replace("-", "_"): v
                                                           for k, v in row.items() if k not in ("section", "key")}
    shown = [{**row, "sweepable": "yes" if row["sweepable"] else "no"} for row in rows]
    return Report(data, [Table("Design-file fields", list(rows[0]), shown)], field_notes())


def _violation_rows(violations) -> list[dict]:
    return [{"constraint": v.name, "violation": v.message} for v in violations]


def check_fabric_report(fab: FabricEstimate, source: str) -> Report:
    """`sipml check` on a design with a fabric: the fabric's violations (its link's included)."""
    link = fab.link
    data = reported(Reading(link=link, fabric=fab), CHECK_FABRIC_KEYS, {
        "design": source, "feasible": fab.feasible, "fabric": fab.kind,
        "binding_limit": link.binding_limit if link else None,
        "violations": [{"name": v.name, "message": v.message} for v in fab.violations],
        "warnings": list(link.warnings) if link else []})
    kind = "" if source == fab.kind else f" ({fab.kind} fabric)"
    verdict = (f"{source}{kind}: feasible, {fab.per_gpu_bandwidth_bps / 1e9:.0f} Gbit/s per GPU per direction"
               if fab.feasible else f"{source}{kind}: INFEASIBLE, {len(fab.violations)} constraint(s) violated")
    tables = [Table("Violated constraints", ["constraint", "violation"], _violation_rows(fab.violations))] \
        if fab.violations else []
    return Report(data, tables, [verdict, *(f"warning: {w}" for w in data["warnings"])], records=[data])


def fabric_data(fab: FabricEstimate, times, message_bytes: float, source: str) -> dict:
    return reported(Reading(link=fab.link, fabric=fab), FABRIC_KEYS, {
        "design": source, "fabric": fab.kind, "gpus": fab.gpus, "job_gpus": fab.job_gpus, "feasible": fab.feasible,
        "figures": {name: {"value": v, "unit": u} for name, (v, u) in figures(fab).items()},
        "message_bytes": message_bytes,
        "collective_times_s": {op: t.seconds for op, t in times.items()},
        "collective_busbw_gbps": {op: _busbw_gbps(op, message_bytes, fab.job_gpus, t.seconds)
                                  for op, t in times.items()},
        "collective_algorithms": {op: str(t.schedule) for op, t in times.items()},
        "violations": [{"name": v.name, "message": v.message} for v in fab.violations],
        "notes": list(fab.notes)})


def traffic_data(traffic) -> dict:
    import numpy as np

    pattern, group, result = traffic
    got = result.bandwidth_bps
    return {"pattern": pattern, "group_size": None if pattern == "ring" else group, "pairs": result.pairs,
            "unserved_pairs": result.unserved,
            "relayed_pairs": result.relayed, "min_pair_gbps": float(got.min()) / 1e9,
            "mean_pair_gbps": float(np.mean(got)) / 1e9, "min_ratio": result.min_ratio, "method": result.method}


def fabric_report(fab: FabricEstimate, times, message_bytes: float, source: str, traffic=None,
                  groups=None) -> Report:
    data = fabric_data(fab, times, message_bytes, source)
    summary = Table(f"Fabric: {fab.kind}, {fab.gpus} GPUs", ["quantity", "value", "unit"], [
        {"quantity": "feasible", "value": "yes" if fab.feasible else "NO", "unit": ""},
        {"quantity": "per-GPU bandwidth", "value": _f(fab.per_gpu_bandwidth_bps / 1e9, 0),
         "unit": "Gbit/s per direction"},
        {"quantity": "useful-time fraction", "value": f"{fab.useful_fraction:.4f}", "unit": ""},
        {"quantity": "effective bandwidth", "value": _f(fab.effective_bandwidth_bps / 1e9, 0), "unit": "Gbit/s"},
        {"quantity": "degree", "value": str(fab.degree), "unit": "peers at once"},
        {"quantity": "bisection", "value": _f(fab.bisection_bps / 1e12, 2), "unit": "Tbit/s"},
        *({"quantity": name, "value": count_text(v), "unit": u} for name, (v, u) in figures(fab).items()),
    ])
    from core.units import format_si

    size = format_si(message_bytes, "bit").replace("bit", "B")  # bytes shown with an SI prefix
    coll = Table(f"Collective times, {size} per rank, {fab.job_gpus} ranks",
                 ["collective", "time ms", "busbw Gbit/s", "algorithm"],
                 [{"collective": k, "time ms": f"{t.seconds * 1e3:.4g}",
                   "busbw Gbit/s": _busbw(k, message_bytes, fab.job_gpus, t.seconds), "algorithm": str(t.schedule)}
                  for k, t in times.items()])
    tables = [summary, coll]
    if traffic is not None:
        t = data["traffic"] = traffic_data(traffic)
        grouped = "" if t["pattern"] == "ring" else f" (groups of {t['group_size']})"
        tables.append(Table(f"Traffic '{t['pattern']}'{grouped}, equal demand per pair",
                            ["quantity", "value", "unit"], [
                                {"quantity": "pairs with demand", "value": str(t["pairs"]), "unit": ""},
                                {"quantity": "pairs left unserved", "value": str(t["unserved_pairs"]), "unit": ""},
                                {"quantity": "pairs relayed beyond the reach", "value": str(t["relayed_pairs"]),
                                 "unit": ""},
                                {"quantity": "smallest pair bandwidth", "value": _f(t["min_pair_gbps"], 1),
                                 "unit": "Gbit/s"},
                                {"quantity": "mean pair bandwidth", "value": _f(t["mean_pair_gbps"], 1),
                                 "unit": "Gbit/s"},
                                {"quantity": "method", "value": t["method"], "unit": ""}]))
    if groups is not None:
        data["groups"] = [{"name": g.name, "size": g.size, "stride": g.stride, "collective": c.op,
                           "time_s": t.seconds, "schedule": str(t.schedule), "share": float(t.share),
                           "bandwidth_gbps": float(t.bandwidth_bps) / 1e9} for g, c, t in groups]
        tables.append(Table("Parallel groups running together (one configuration for the job)",
                            ["group", "ranks", "stride", "collective", "time ms", "share", "Gbit/s per rank",
                             "schedule"],
                            [{"group": row["name"], "ranks": str(row["size"]), "stride": str(row["stride"]),
                              "collective": row["collective"], "time ms": f"{row['time_s'] * 1e3:.4g}",
                              "share": f"{row['share']:.3f}", "Gbit/s per rank": f"{row['bandwidth_gbps']:.4g}",
                              "schedule": row["schedule"]} for row in data["groups"]]))
    footer = [f"violated: {v.name}: {v.message}" for v in fab.violations] + [f"note: {n}" for n in fab.notes]
    return Report(data, tables, footer, records=[data])


def _busbw_gbps(op: str, message_bytes: float, ranks: int, time_s: float) -> float | None:
    """A collective's bus bandwidth (NCCL's busbw) in Gbit/s; None for a point-to-point send, which has none, and 0
    for a collective that never ends."""
    from fabric.collectives import busbw_bps

    if op == "p2p":
        return None
    if not math.isfinite(time_s) or time_s <= 0:
        return 0.0
    return float(busbw_bps(op, message_bytes, ranks, time_s)) / 1e9


def _busbw(op: str, message_bytes: float, ranks: int, time_s: float) -> str:
    busbw = _busbw_gbps(op, message_bytes, ranks, time_s)
    return "–" if busbw is None else "0" if busbw == 0 else f"{busbw:.4g}"


UNPRICED_KEEPS = ("gpus", "gpu", "all_reduce_busbw_bps")  # what a `CostSummary` keeps unpriced (JSON: not null)



def unpriced(summary):
    """The `fabric.cost.CostSummary` of a design that cannot be built, as `sipml cost --format json` gives it: every
    price, power and share None (the JSON's null; PRICED_KEYS), the bill too."""
    import dataclasses

    return dataclasses.replace(summary, **{f.name: None for f in dataclasses.fields(summary)
                                           if f.name not in UNPRICED_KEEPS})


def uncosted_network(summary):
    """The `fabric.cost.CostSummary` of a reference switch (the ideal fabric), as `sipml cost --format json` gives
    it: its network's price, power and shares None (not costed, not free); the GPUs and servers priced."""
    import dataclasses

    from sipml.quantities import NETWORK_PREFIXES

    return dataclasses.replace(summary, **{f.name: None for f in dataclasses.fields(summary)
                                           if f.name.startswith(NETWORK_PREFIXES)})


def cost_data(name: str, fab: FabricEstimate, summary) -> dict:
    """The JSON of one design in `sipml cost`; an infeasible design's prices are null (PRICED_KEYS)."""
    bom, g = summary.bom, summary.gpus
    breakdown = [{"key": l.key, "description": l.description, "network": l.network, "unit": l.unit,
                  "count_per_gpu": l.count_per_gpu, "cost_usd_per_gpu": [x / g for x in l.cost_usd.as_tuple()],
                  "power_w_per_gpu": [x / g for x in l.power_w.as_tuple()], "cost_share": l.cost_share,
                  "power_share": l.power_share, "boundary": l.boundary or None,
                  "pj_per_bit": None if l.j_per_bit is None else l.j_per_bit * 1e12, "source": l.source,
                  "date": l.date, "tag": l.tag}
                 for l in bom.lines_by_cost()]
    return reported(Reading(fabric=fab, cost=summary), COST_KEYS, {
        "design": name, "fabric": fab.kind, "gpus": g, "gpu": summary.gpu, "feasible": fab.feasible,
        "network_cost_usd_per_gpu_range": list(summary.network_cost_per_gpu_usd.as_tuple()),
        "network_power_w_per_gpu_range": list(summary.network_power_per_gpu_w.as_tuple()),
        "cluster_cost_usd_range": list(summary.cluster_cost_usd.as_tuple()),
        "cluster_power_w_range": list(summary.cluster_power_w.as_tuple()),
        **optics_data(summary),
        "breakdown": breakdown, "violations": [{"name": v.name, "message": v.message} for v in fab.violations],
        "notes": list(fab.notes)}) | ({} if fab.feasible else dict.fromkeys(PRICED_KEYS)) | (
        {} if network_costed(fab) else dict.fromkeys(NETWORK_PRICED_KEYS))


BREAKDOWN_COLUMNS = ("network", "count_per_gpu", "cost_usd_per_gpu", "power_w_per_gpu", "cost_share", "power_share")


def cost_record(entry: dict) -> dict:
    """One design of `sipml cost` as its CSV row reads it (`sipml.wide.wide_row`): the JSON entry with each
    component of the breakdown keyed by its catalog entry, its numbers alone (BREAKDOWN_COLUMNS: cost and power
    typical with their `_range`; the texts — description, source, date, tag — are in the JSON and `csv-long`)."""
    if entry["breakdown"] is None:
        return entry
    parts = {}
    for line in entry["breakdown"]:
        part = {}
        for k in BREAKDOWN_COLUMNS:
            if isinstance(line[k], list):  # low, typical, high
                part[k], part[f"{k}_range"] = line[k][1], line[k]
            else:
                part[k] = line[k]
        parts[line["key"]] = part
    return {**entry, "breakdown": parts}


def unpriced_reason(entry: dict) -> str | None:
    """Why a design of `sipml cost` has no price (None when it has one): what cannot be built is not costed."""
    if entry["breakdown"] is not None:
        return None
    return (f"not priced: a design that cannot be built has no cost (violated: "
            f"{', '.join(v['name'] for v in entry['violations'])})")


def optics_data(summary) -> dict:
    """The optics of a priced bill at their boundaries (fabrics-2026.md K1): B1, the modules or engines with their
    lasers; B2, B1 and the host SerDes that drive them; per GPU, typical and the all-low … all-high range."""
    from fabric.catalog import BOUNDARIES

    b1, b2, cost = summary.optics_power_per_gpu_w, summary.port_power_per_gpu_w, summary.optics_cost_per_gpu_usd
    return {"optics_power_w_per_gpu": b1.typical, "optics_power_w_per_gpu_range": list(b1.as_tuple()),
            "optics_power_boundary": BOUNDARIES["optics"],
            "port_power_w_per_gpu": None if b2 is None else b2.typical,
            "port_power_w_per_gpu_range": None if b2 is None else list(b2.as_tuple()),
            "port_power_boundary": BOUNDARIES["port"],
            "optics_cost_usd_per_gpu": cost.typical, "optics_cost_usd_per_gpu_range": list(cost.as_tuple())}


def _money(x: float) -> str:
    return f"{x:,.0f}"


def cost_report(entries: list[dict]) -> Report:
    """Side-by-side cost and power of several designs (entries from `cost_data`)."""
    names = [e["design"] for e in entries]
    def row(label, unit, fn):
        return {"quantity": label, "unit": unit, **{n: fn(e) for n, e in zip(names, entries)}}
    def rng(v):
        return "–" if v is None else f"{_money(v[0])} – {_money(v[2])}"

    from fabric.registry import get_kind

    def priced(fn):  # an infeasible design is not priced (no bill)
        return lambda e: "–" if e["breakdown"] is None else fn(e)

    def network(fn):  # a reference switch (the ideal fabric): its network is not costed, not free
        return lambda e: priced(fn)(e) if get_kind(e["fabric"]).costed else "not costed"
    side = Table("Cost and power (typical; range = all-low … all-high prices)", ["quantity", "unit", *names], [
        row("fabric", "", lambda e: e["fabric"]),
        row("GPU", "", lambda e: e["gpu"]),
        row("feasible", "", lambda e: "yes" if e["feasible"] else "NO"),
        row("GPUs", "", lambda e: str(e["gpus"])),
        row("per-GPU bandwidth", "Gbit/s", lambda e: _f(e["per_gpu_bandwidth_gbps"], 0)),
        row("degree", "", lambda e: str(e["degree"])),
        row("bisection", "Tbit/s", lambda e: _f(e["bisection_gbps"] / 1e3, 1)),
        row("network cost per GPU", "USD", network(lambda e: _money(e["network_cost_usd_per_gpu"]))),
        row("  range", "USD", network(lambda e: rng(e["network_cost_usd_per_gpu_range"]))),
        row("network power per GPU", "W", network(lambda e: _f(e["network_power_w_per_gpu"], 1))),
        row("optics power per GPU [B1]", "W", network(lambda e: _f(e["optics_power_w_per_gpu"], 1))),
        row("  + host SerDes [B2]", "W", network(lambda e: "–" if e["port_power_w_per_gpu"] is None
                                                 else _f(e["port_power_w_per_gpu"], 1))),
        row("optics cost per GPU", "USD", network(lambda e: _money(e["optics_cost_usd_per_gpu"]))),
        row("network share of cost", "%", network(lambda e: _f(100 * e["network_cost_share"], 1))),
        row("  outside the servers", "%", network(lambda e: _f(100 * e["scale_out_cost_share"], 1))),
        row("GPU share of cost", "%", priced(lambda e: _f(100 * e["gpu_cost_share"], 1))),
        row("network share of power", "%", network(lambda e: _f(100 * e["network_power_share"], 1))),
        row("cluster cost", "USD", priced(lambda e: _money(e["cluster_cost_usd"]))),
        row("  range", "USD", lambda e: rng(e["cluster_cost_usd_range"])),
        row("cluster power (nameplate)", "W", priced(lambda e: _money(e["cluster_power_w"]))),
        row("facility power (× PUE)", "W", priced(lambda e: _money(e["facility_power_w"]))),
    ])
    tables = [side]
    for e in entries:
        if e["breakdown"] is None:
            continue
        tables.append(Table(f"Breakdown per GPU: {e['design']}", ["component", "side", "count/GPU", "item",
                                                                  "cost USD", "range USD", "power W", "pJ/bit",
                                                                  "cost %", "tag"],
                            [{"component": b["key"], "side": "network" if b["network"] else "compute",
                              "count/GPU": count_text(b["count_per_gpu"]), "item": b["unit"],
                              "cost USD": _money(b["cost_usd_per_gpu"][1]),
                              "range USD": rng(b["cost_usd_per_gpu"]), "power W": _f(b["power_w_per_gpu"][1], 2),
                              "pJ/bit": "" if b["pj_per_bit"] is None else _f(b["pj_per_bit"], 2),
                              "cost %": _f(100 * b["cost_share"], 1), "tag": b["tag"]} for b in e["breakdown"]]))
    footer = [f"{e['design']}: {unpriced_reason(e)}" for e in entries if e["breakdown"] is None]
    footer += [f"{e['design']}: violated: {v['name']}: {v['message']}" for e in entries for v in e["violations"]]
    footer += [f"{e['design']}: note: {n}" for e in entries for n in e["notes"]]
    if entries:
        footer += [f"[B1] {entries[0]['optics_power_boundary']}",
                   f"[B2] {entries[0]['port_power_boundary']} (the host SerDes are inside the switches' and NICs' "
                   "nameplate power, rated at their lanes' rate ([electrical] rated_lane_rate); a design whose "
                   "host channels need another class has the difference on its serdes.beyond_rating line, so a "
                   "switched design's network power holds its B2 optics)",
                   "pJ/bit: an optics entry's power over the bit rate its items serve (a part of B1 where a port's "
                   "optics are several entries, e.g. an engine and its laser module)"]
    return Report({"designs": entries}, tables, footer, records=[cost_record(e) for e in entries])


def quantities_report() -> Report:
    """Every reported quantity of the table (sipml.quantities): key, unit, the record it is read from, whether
    `optimize` may target it, what it is; then the JSON keys that are not numbers."""
    from sipml.quantities import LABELS, QUANTITY_LIST

    rows = [{"key": f"`{q.key}`", "unit": q.unit or "–", "from": q.stage, "optimize": "yes" if q.target else "no",
             "what": q.help} for q in QUANTITY_LIST]
    labels = [{"key": f"`{k}`", "what": v} for k, v in LABELS.items()]
    return Report({"quantities": [{"key": q.key, "unit": q.unit, "stage": q.stage, "target": q.target,
                                   "help": q.help} for q in QUANTITY_LIST], "labels": LABELS},
                  [Table("Reported quantities (each with its formula in `sipml explain KEY`)",
                         ["key", "unit", "from", "optimize", "what"], rows),
                   Table("Other JSON keys", ["key", "what"], labels)])
