"""Reports built from results: the data behind `sipml budget`, `check` and `fields`."""

from __future__ import annotations

import math

from fabric.estimate import FabricEstimate
from photonics.link import LIMIT_TEXT, LinkEstimate
from sipml.design import field_notes, field_rows
from sipml.render import Report, Table, count_text


def _f(value: float, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "−∞"
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
    if lz.kind == "comb" and lz.flatness:
        parts.append(f"weakest line {lz.flatness:g} dB below mean")
    return ", ".join(parts)


def budget_report(est: LinkEstimate, source: str, min_spacing_hz: float | None | bool = False) -> Report:
    """`min_spacing_hz`: False when not solved, None when no spacing closes, else the spacing in Hz."""
    data = budget_data(est, source)
    if min_spacing_hz is not False:
        data["min_channel_spacing_ghz"] = None if min_spacing_hz is None else min_spacing_hz / 1e9
    ledger = Table("Link budget (worst wavelength)", ["item", "value", "unit", "detail"],
                   [{"item": row["name"], "value": f"{row['value']:+.2f}", "unit": row["unit"],
                     "detail": row["detail"]} for row in data["ledger"]])
    limits = Table("Capacity per GPU per direction: every limit", ["limit", "capacity", "unit", "meaning"],
                   [{"limit": k + ("  ← binds" if k == est.binding_limit else ""), "capacity": _f(v / 1e9, 0),
                     "unit": "Gbps", "meaning": LIMIT_TEXT[k]} for k, v in est.limits_bps.items()])
    energy = Table("Energy per bit (transmit + receive)", ["part", "energy pJ/bit", "power W"],
                   [{"part": k, "energy pJ/bit": _f(v * 1e12, 3), "power W": _f(est.power_w[k], 3)}
                    for k, v in est.energy_j_per_bit.items()]
                   + [{"part": "total", "energy pJ/bit": _f(est.total_energy_j_per_bit * 1e12, 3),
                       "power W": _f(sum(est.power_w.values()), 3)}])
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
        {"quantity": "max fiber length", "value": _f(est.max_fiber_length_m / 1e3, 3),
         "unit": "km" if math.isfinite(est.max_fiber_length_m) or math.isinf(est.max_fiber_length_m)
         else "km (the budget fails with no fiber)"},
        {"quantity": "max optical-switch passes",
         "value": "–" if est.max_switch_passes is None else str(est.max_switch_passes),
         "unit": "" if est.max_switch_passes is not None else "(the budget fails with no switch)"},
        {"quantity": "ring FSR", "value": f"{r.fsr_hz / 1e9:.0f} / {r.fsr_m * 1e9:.2f}", "unit": "GHz / nm"},
        {"quantity": "filter FWHM / finesse", "value": f"{r.filter_fwhm_hz / 1e9:.1f} / {r.finesse:.0f}",
         "unit": "GHz / –"},
        {"quantity": "escape fibers per direction", "value": str(est.escape_fibers_per_direction), "unit": ""},
        {"quantity": "shoreline density", "value": _f(est.shoreline_bps_per_m / 1e15, 3), "unit": "Tbps/mm"},
    ])
    if min_spacing_hz is not False:
        summary.rows.append({"quantity": "min channel spacing", "unit": "GHz",
                             "value": "none closes" if min_spacing_hz is None else _f(min_spacing_hz / 1e9, 1)})
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
    rows, data = field_rows(), {}
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
    data = {"design": source, "feasible": fab.feasible, "fabric": fab.kind,
            "margin_db": link.margin_db if link else None,
            "capacity_gbps": fab.per_gpu_bandwidth_bps / 1e9,
            "binding_limit": link.binding_limit if link else None,
            "violations": [{"name": v.name, "message": v.message} for v in fab.violations],
            "warnings": list(link.warnings) if link else []}
    verdict = (f"{source}: {fab.kind} feasible, {fab.per_gpu_bandwidth_bps / 1e9:.0f} Gbps per GPU per direction"
               if fab.feasible else f"{source}: {fab.kind} INFEASIBLE, {len(fab.violations)} constraint(s) violated")
    tables = [Table("Violated constraints", ["constraint", "violation"], _violation_rows(fab.violations))] \
        if fab.violations else []
    return Report(data, tables, [verdict, *(f"warning: {w}" for w in data["warnings"])])


def fabric_data(fab: FabricEstimate, times: dict[str, float], algorithms: dict[str, str], message_bytes: float,
                source: str) -> dict:
    return {
        "design": source, "fabric": fab.kind, "gpus": fab.gpus, "feasible": fab.feasible,
        "per_gpu_bandwidth_gbps": fab.per_gpu_bandwidth_bps / 1e9,
        "effective_bandwidth_gbps": fab.effective_bandwidth_bps / 1e9,
        "useful_time_fraction": fab.useful_fraction, "degree": fab.degree, "bisection_gbps": fab.bisection_bps / 1e9,
        "margin_db": fab.link.margin_db if fab.link else None,
        "figures": {name: {"value": v, "unit": u} for name, (v, u) in fab.figures.items()},
        "message_bytes": message_bytes,
        "collective_times_s": times,
        "collective_algorithms": algorithms,
        "violations": [{"name": v.name, "message": v.message} for v in fab.violations],
        "notes": list(fab.notes),
    }


def traffic_data(traffic) -> dict:
    import numpy as np

    pattern, group, demand, result = traffic
    mask = demand > 0
    got = result.bandwidth_bps[mask]
    return {"pattern": pattern, "group_size": group, "pairs": result.pairs, "unserved_pairs": result.unserved,
            "min_pair_gbps": float(got.min()) / 1e9, "mean_pair_gbps": float(np.mean(got)) / 1e9,
            "min_ratio": result.min_ratio, "method": result.method}


def fabric_report(fab: FabricEstimate, times: dict[str, float], algorithms: dict[str, str], message_bytes: float,
                  source: str, traffic=None) -> Report:
    data = fabric_data(fab, times, algorithms, message_bytes, source)
    summary = Table(f"Fabric: {fab.kind}, {fab.gpus} GPUs", ["quantity", "value", "unit"], [
        {"quantity": "feasible", "value": "yes" if fab.feasible else "NO", "unit": ""},
        {"quantity": "per-GPU bandwidth", "value": _f(fab.per_gpu_bandwidth_bps / 1e9, 0), "unit": "Gbps per direction"},
        {"quantity": "useful-time fraction", "value": f"{fab.useful_fraction:.4f}", "unit": ""},
        {"quantity": "effective bandwidth", "value": _f(fab.effective_bandwidth_bps / 1e9, 0), "unit": "Gbps"},
        {"quantity": "degree", "value": str(fab.degree), "unit": "peers at once"},
        {"quantity": "bisection", "value": _f(fab.bisection_bps / 1e12, 2), "unit": "Tbps"},
        *({"quantity": name, "value": count_text(v), "unit": u} for name, (v, u) in fab.figures.items()),
    ])
    from core.units import format_si

    size = format_si(message_bytes / 8, "bit").replace("bit", "B")  # bytes shown with an SI prefix
    coll = Table(f"Collective times, {size} per rank", ["collective", "time ms", "busbw Gbps", "algorithm"],
                 [{"collective": k, "time ms": f"{t * 1e3:.4g}", "busbw Gbps": _busbw(k, message_bytes, fab.gpus, t),
                   "algorithm": algorithms[k]} for k, t in times.items()])
    tables = [summary, coll]
    if traffic is not None:
        t = data["traffic"] = traffic_data(traffic)
        tables.append(Table(f"Traffic '{t['pattern']}' (groups of {t['group_size']}), equal demand per pair",
                            ["quantity", "value", "unit"], [
                                {"quantity": "pairs with demand", "value": str(t["pairs"]), "unit": ""},
                                {"quantity": "pairs left unserved", "value": str(t["unserved_pairs"]), "unit": ""},
                                {"quantity": "smallest pair bandwidth", "value": _f(t["min_pair_gbps"], 1),
                                 "unit": "Gbps"},
                                {"quantity": "mean pair bandwidth", "value": _f(t["mean_pair_gbps"], 1), "unit": "Gbps"},
                                {"quantity": "method", "value": t["method"], "unit": ""}]))
    footer = [f"violated: {v.name}: {v.message}" for v in fab.violations] + [f"note: {n}" for n in fab.notes]
    return Report(data, tables, footer)


def _busbw(op: str, message_bits: float, ranks: int, time_s: float) -> str:
    from fabric.collectives import busbw_bps

    if op == "p2p" or not math.isfinite(time_s) or time_s <= 0:
        return "–" if op == "p2p" else "0"
    return f"{float(busbw_bps(op, message_bits / 8, ranks, time_s)) / 1e9:.4g}"


def cost_data(name: str, fab: FabricEstimate, bom, pue: float) -> dict:
    from fabric.bom import facility_power_w
    from fabric.cost import scale_out_cost_share

    g = fab.gpus
    breakdown = [{"key": l.key, "description": l.description, "network": l.network, "unit": l.unit,
                  "count_per_gpu": l.count_per_gpu, "cost_usd_per_gpu": [x / g for x in l.cost_usd.as_tuple()],
                  "power_w_per_gpu": [x / g for x in l.power_w.as_tuple()], "cost_share": l.cost_share,
                  "power_share": l.power_share, "source": l.source, "date": l.date, "tag": l.tag}
                 for l in bom.lines_by_cost()]
    return {
        "design": name, "fabric": fab.kind, "gpus": g, "feasible": fab.feasible,
        "per_gpu_bandwidth_gbps": fab.per_gpu_bandwidth_bps / 1e9, "degree": fab.degree,
        "bisection_gbps": fab.bisection_bps / 1e9,
        "network_cost_usd_per_gpu": bom.network_cost_usd.typical / g,
        "network_cost_usd_per_gpu_range": [x / g for x in bom.network_cost_usd.as_tuple()],
        "network_power_w_per_gpu": bom.network_power_w.typical / g,
        "network_power_w_per_gpu_range": [x / g for x in bom.network_power_w.as_tuple()],
        "cluster_cost_usd": bom.cost_per_cluster_usd.typical,
        "cluster_cost_usd_range": list(bom.cost_per_cluster_usd.as_tuple()),
        "cluster_power_w": bom.power_per_cluster_w.typical,
        "cluster_power_w_range": list(bom.power_per_cluster_w.as_tuple()),
        "facility_power_w": facility_power_w(bom.power_per_cluster_w.typical, pue=pue),
        "network_cost_share": bom.network_cost_share.typical,
        "scale_out_cost_share": scale_out_cost_share(bom),
        "network_power_share": bom.network_power_share.typical,
        "breakdown": breakdown,
        "violations": [{"name": v.name, "message": v.message} for v in fab.violations],
        "notes": list(fab.notes),
    }


def _money(x: float) -> str:
    return f"{x:,.0f}"


def cost_report(entries: list[dict]) -> Report:
    """Side-by-side cost and power of several designs (entries from `cost_data`)."""
    names = [e["design"] for e in entries]
    def row(label, unit, fn):
        return {"quantity": label, "unit": unit, **{n: fn(e) for n, e in zip(names, entries)}}
    rng = lambda v: f"{_money(v[0])} – {_money(v[2])}"  # noqa: E731
    side = Table("Cost and power (typical; range = all-low … all-high prices)", ["quantity", "unit", *names], [
        row("fabric", "", lambda e: e["fabric"]),
        row("feasible", "", lambda e: "yes" if e["feasible"] else "NO"),
        row("GPUs", "", lambda e: str(e["gpus"])),
        row("per-GPU bandwidth", "Gbps", lambda e: _f(e["per_gpu_bandwidth_gbps"], 0)),
        row("degree", "", lambda e: str(e["degree"])),
        row("bisection", "Tbps", lambda e: _f(e["bisection_gbps"] / 1e3, 1)),
        row("network cost per GPU", "USD", lambda e: _money(e["network_cost_usd_per_gpu"])),
        row("  range", "USD", lambda e: rng(e["network_cost_usd_per_gpu_range"])),
        row("network power per GPU", "W", lambda e: _f(e["network_power_w_per_gpu"], 1)),
        row("network share of cost", "%", lambda e: _f(100 * e["network_cost_share"], 1)),
        row("  outside the servers", "%", lambda e: _f(100 * e["scale_out_cost_share"], 1)),
        row("network share of power", "%", lambda e: _f(100 * e["network_power_share"], 1)),
        row("cluster cost", "USD", lambda e: _money(e["cluster_cost_usd"])),
        row("  range", "USD", lambda e: rng(e["cluster_cost_usd_range"])),
        row("cluster power (nameplate)", "W", lambda e: _money(e["cluster_power_w"])),
        row("facility power (× PUE)", "W", lambda e: _money(e["facility_power_w"])),
    ])
    tables = [side]
    for e in entries:
        tables.append(Table(f"Breakdown per GPU: {e['design']}", ["component", "side", "count/GPU", "item",
                                                                  "cost USD", "range USD", "power W", "cost %", "tag"],
                            [{"component": b["key"], "side": "network" if b["network"] else "compute",
                              "count/GPU": count_text(b["count_per_gpu"]), "item": b["unit"],
                              "cost USD": _money(b["cost_usd_per_gpu"][1]),
                              "range USD": rng(b["cost_usd_per_gpu"]), "power W": _f(b["power_w_per_gpu"][1], 2),
                              "cost %": _f(100 * b["cost_share"], 1), "tag": b["tag"]} for b in e["breakdown"]]))
    footer = [f"{e['design']}: violated: {v['name']}: {v['message']}" for e in entries for v in e["violations"]]
    footer += [f"{e['design']}: note: {n}" for e in entries for n in e["notes"]]
    return Report({"designs": entries}, tables, footer)
