"""`sipml reliability`: a design's reliability budget for one training job, line by line as `budget` is for a link —
the parts the job is exposed to, their failure rates and what a failure does to it — then its interruptions,
checkpoints, restarts and effective training time, and the assumptions that move that most."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from sipml.render import Report, Table

SUMMARY = ("interruptions_per_day", "job_mtti_s", "checkpoint_interval_s", "restart_s", "ettr")


def reliability_reading(design, model, catalog=None):
    """(Reading, Goodput) of `model` trained on `design` (its job's GPUs): the quantities of the summary read it."""
    from fabric.registry import get_kind
    from sipml.quantities import Reading
    from workloads.evaluation import Evaluation
    from workloads.goodput import job_goodput

    point = Evaluation(design, catalog)
    est, cost = point.fabric, point.cost
    goodput = job_goodput(model, est, cost.bom, get_kind(est.kind), cost.cluster_cost_usd.typical, cost.rates)
    result = SimpleNamespace(goodput=goodput, estimate=est, ettr=goodput.ettr)
    return Reading(fabric=est, cost=cost, result=result), goodput


def _lost_s(g, restart: float) -> float:
    """Wall time one interruption costs: its restart and, on average, half an interval of work redone (and an
    asynchronous checkpoint's write, `Goodput.rework_s`)."""
    return restart + g.rework_s + (g.interval_s + g.pause_s) / 2 if g.interval_s != float("inf") else restart


# the assumptions `sensitivity` moves, each to a low and a high end: (label, what moves — 'restart' and 'storage'
# scale the design's times or bandwidths, 'spares' sets the hot spares, 'repair' scales their repair time,
# 'cause:NAME' scales a cause's MTBF, 'causes:PREFIX' those of every cause whose name begins so,
# 'mtbf:NAME' sets it in seconds — low, high)
RELIABILITY_SWINGS = (
    ("restart: detection + rescheduling + start-up (×0.5 / ×2)", "restart", 0.5, 2.0),
    ("checkpoint storage bandwidth, and the job's storage ports (×0.5 / ×2)", "storage", 0.5, 2.0),
    ("pluggable module MTBF (0.5 / 1 M h, reliability.md Y13)", "mtbf:pluggable", 0.5e6 * 3600, 1.0e6 * 3600),
    ("GPU hardware MTBFs (×0.5 / ×2: Llama 3's H100 rates, taken for every GPU)", "causes:gpu_", 0.5, 2.0),
    ("switch MTBF (×0.5 / ×2)", "cause:switch", 0.5, 2.0),
    ("co-packaged engine MTBF (×0.5 / ×2)", "cause:cpo_engine", 0.5, 2.0),
    ("a spare for the job (none / 8 hot spares)", "spares", 0, 8),
    ("hot spares' repair time (×0.5 / ×2, [assumed])", "repair", 0.5, 2.0),
)


def sensitivity(design, model, catalog=None) -> list[dict]:
    """ETTR at each end of each assumption, the rest as designed, largest swing first (rows of the causes the
    design has none of are left out)."""
    from core.errors import InputError
    from fabric.reliability import load_rates

    reading, base = reliability_reading(design, model, catalog)
    if base.ettr < 1e-6:  # nothing of the training is kept: no ratio to move
        return []
    est, cost = reading.fabric, reading.cost
    from fabric.registry import get_kind

    kind = get_kind(est.kind)
    rates = cost.rates or load_rates()  # the catalog's: a catalog file's [cause.NAME] laid over the shipped
    rel = design.reliability
    rows = []
    for label, what, low, high in (*_spares_swing(RELIABILITY_SWINGS, rel.spare_gpus, design.job_gpus),
                                   *_assumed_rates(base, rates)):
        try:
            ends = _ends(design, est, cost, kind, model, rates, rel, what, low, high)
        except InputError:  # an end outside its field's range: the row says nothing the user could set
            continue
        if all(abs(g.ettr - base.ettr) < 1e-12 and g.spares_cost_usd == base.spares_cost_usd for g in ends):
            continue
        if est.feasible:
            price = cost.cluster_cost_usd.typical
            per_dollar = [g.ettr / base.ettr * (price + base.spares_cost_usd) / (price + g.spares_cost_usd)
                          for g in ends]
            swing = abs(per_dollar[1] - per_dollar[0])
        else:  # what cannot be built is not priced: no goodput per $, the swing of ETTR alone
            per_dollar, swing = [None, None], abs(ends[1].ettr - ends[0].ettr)
        rows.append({"assumption": label, "ettr": base.ettr, "ettr_low": ends[0].ettr, "ettr_high": ends[1].ettr,
                     "goodput_per_dollar_low": per_dollar[0], "goodput_per_dollar_high": per_dollar[1],
                     "swing": swing})
    return sorted(rows, key=lambda r: -r["swing"])


def _spares_swing(swings, spares: int, job_gpus: int) -> tuple:
    """The swings with the hot spares' ends around the design's own: none and 8 where it has none, none and twice
    its count where it has some (8 would be fewer than a design of 512 has), at most the job's GPUs (as many as a
    job may have)."""
    if not spares:
        return swings
    high = min(2 * spares, job_gpus)
    return tuple((f"hot spares for the job (none / {high}; {spares} as designed)", what, 0, high)
                 if what == "spares" else (label, what, low, end) for label, what, low, end in swings)


def _assumed_rates(goodput, rates) -> list[tuple]:
    """A swing (×0.5 / ×2 of the MTBF) for each [assumed] failure rate among the causes that stop the job and that
    RELIABILITY_SWINGS leaves out: the design's own parts (a ring's chiplets, an OCS's ports) move its ETTR too."""
    fixed = {what.split(":", 1)[1] for _, what, _, _ in RELIABILITY_SWINGS if what.startswith("cause:")}
    stopping = {line.cause for line in goodput.lines if line.per_s > 0}
    return [(f"{c.what} MTBF (×0.5 / ×2, {c.tag})", f"cause:{c.name}", 0.5, 2.0) for c in rates.causes
            if "assumed" in c.tag and c.what in stopping and c.name not in fixed]


def _ends(design, est, cost, kind, model, rates, rel, what, low, high) -> list:
    """The goodput at each end of one assumption (InputError where an end leaves its field's range)."""
    from workloads.goodput import job_goodput

    ends = []
    for end in (low, high):
        changed_design, changed_rates = design, rates
        if what == "restart":
            changed_design = dataclasses.replace(design, reliability=dataclasses.replace(
                rel, detection_time=rel.detection_time * end, reschedule_time=rel.reschedule_time * end,
                startup_time=rel.startup_time * end))
        elif what == "storage":
            changed_design = dataclasses.replace(design, reliability=dataclasses.replace(
                rel, storage_write_bandwidth=rel.storage_write_bandwidth * end,
                storage_read_bandwidth=rel.storage_read_bandwidth * end,
                storage_port_bandwidth=rel.storage_port_bandwidth * end))
        elif what == "spares":
            changed_design = dataclasses.replace(design, reliability=dataclasses.replace(rel, spare_gpus=end))
        elif what == "repair":
            changed_design = dataclasses.replace(design, reliability=dataclasses.replace(
                rel, spare_repair_time=rel.spare_repair_time * end))
        else:
            how, name = what.split(":", 1)
            hit = (lambda c: c.name.startswith(name)) if how == "causes" else (lambda c: c.name == name)
            changed_rates = dataclasses.replace(rates, causes=tuple(
                (dataclasses.replace(c, mtbf_s=end, mtbf_percentages_s=None) if how == "mtbf" else
                 dataclasses.replace(c, mtbf_s=c.mtbf_s * end, mtbf_percentages_s=c.mtbf_percentages_s and
                                     c.mtbf_percentages_s * end)) if hit(c) else c  # both readings scaled
                for c in rates.causes))
        ends.append(job_goodput(model, dataclasses.replace(est, design=changed_design), cost.bom, kind,
                                cost.cluster_cost_usd.typical, rates=changed_rates))
    return ends


def _per_dollar(value) -> str:
    return "–" if value is None else f"{value:.3f}"  # none for a design that cannot be built (not priced)


def _bound_by(g, rel) -> str:
    """What sets a job's checkpoint write and read bandwidths: the storage, or the job's own storage ports."""
    ports = [what for what, bps, storage in (("write", g.write_bps, rel.storage_write_bandwidth),
                                             ("read", g.read_bps, rel.storage_read_bandwidth)) if bps < storage]
    if not ports:
        return "the storage's"
    return "the job's storage ports" + ("" if len(ports) == 2 else f" for its {ports[0]}, the storage's the other")


def _duration_row(quantity: str, seconds) -> dict:
    """A row of the job's table for a duration, in the unit that reads it ('–' where there is none)."""
    from sipml.render import duration_parts

    value, unit = ("–", "") if seconds is None else duration_parts(float(seconds))
    return {"quantity": quantity, "value": value, "unit": unit}


def _job_table(g, rel, summary: dict, planned_per_day: float) -> Table:
    """The job's totals: interruptions, checkpoints (their size, bandwidths, pause and interval), restarts, spares'
    coverage, rework and ETTR."""
    mtti = summary["job_mtti_s"]
    return Table("The job", ["quantity", "value", "unit"], [
        {"quantity": "interruptions (unexpected)", "value": f"{summary['interruptions_per_day']:.3g}", "unit": "per day"},
        {"quantity": "mean time to interruption", "value": "–" if mtti is None else f"{mtti / 3600:.3g}",
         "unit": "h"},
        {"quantity": "planned interruptions", "value": f"{planned_per_day:.3g}", "unit": "per day"},
        {"quantity": "checkpoint size", "value": f"{g.checkpoint_bytes / 1e12:.3g}", "unit": "TB"},
        {"quantity": "checkpoint write / read bandwidth (" + _bound_by(g, rel) + ")",
         "value": f"{g.write_bps / 1e9:.4g} / {g.read_bps / 1e9:.4g}", "unit": "GB/s"},
        {"quantity": "pause per checkpoint (" + ("copy to host memory, the write behind training)"
                                                 if rel.checkpoint_write == "asynchronous" else "write)"),
         "value": f"{g.pause_s:.3g}", "unit": "s"},
        _duration_row("checkpoint interval", summary["checkpoint_interval_s"]),
        _duration_row("restart (mean, read included)", summary["restart_s"]),
        *([{"quantity": f"failures spares take over that find enough free (each in use "
                        f"{rel.spare_repair_time / 3600:.3g} h)", "value": f"{100 * g.spare_coverage:.1f}",
            "unit": "%"}] if g.covered_by_size else []),
        *([_duration_row("work redone per failure beyond the interval's (the asynchronous write)", g.rework_s)]
          if g.rework_s else []),
        {"quantity": "effective training time ratio", "value": f"{100 * summary['ettr']:.1f}", "unit": "%"}])


def reliability_report(name: str, design, model, reading=None, catalog=None) -> Report:
    """The command's report; `reading`: `reliability_reading(design, model, catalog)` where the caller has it;
    `catalog`: what it prices with (None: the shipped one)."""
    from sipml.quantities import values
    from workloads.goodput import restart_s

    reading = reading or reliability_reading(design, model, catalog)[0]
    g = reading.result.goodput
    rel = design.reliability
    lines = []
    for line in g.lines:
        restart = restart_s(line, rel, g.read_s, g.covered(line))
        lines.append({"component": line.component, "cause": line.cause, "units": line.units,
                      "mtbf_s": line.mtbf_s, "interrupts": line.interrupts,
                      "interruptions_per_day": line.per_s * 86400.0,
                      "recovery": line.recovery if line.interrupts else "rides through",
                      "restart_s": restart if line.interrupts else None,
                      "lost_s_per_day": line.per_s * 86400.0 * _lost_s(g, restart),
                      "why": line.why, "source": line.source, "tag": line.tag})
    summary = values(reading, SUMMARY)
    swings = sensitivity(design, model, catalog)
    est = reading.fabric
    data = {"design": name, "fabric": design.fabric.kind, "model": model.name, "gpus": design.fabric.gpus,
            "job_gpus": design.job_gpus, "feasible": bool(est.feasible),
            "violations": [{"name": v.name, "message": v.message} for v in est.violations], **summary,
            "planned_per_day": g.planned_per_s * 86400.0,
            "checkpoint_bytes": g.checkpoint_bytes, "pause_s": g.pause_s, "read_s": g.read_s,
            "checkpoint_write_bytes_per_s": float(g.write_bps), "checkpoint_read_bytes_per_s": float(g.read_bps),
            "rework_s": g.rework_s, "spare_coverage": g.spare_coverage if g.covered_by_size else None,
            "table5_reading": rel.table5_reading, "lines": lines, "sensitivity": swings, "notes": list(g.notes)}
    table = Table(f"Reliability budget: {model.name} on {design.job_gpus} GPUs of {name} ({design.fabric.kind})",
                  ["component", "cause", "units", "MTBF h", "stops job", "per day", "recovery", "restart min",
                   "lost h/day", "tag"],
                  [{"component": l["component"], "cause": l["cause"], "units": f"{l['units']:,.0f}" if l["units"] >= 100 else f"{l['units']:.3g}",
                    "MTBF h": f"{l['mtbf_s'] / 3600:,.0f}", "stops job": f"{l['interrupts']:.3g}",
                    "per day": f"{l['interruptions_per_day']:.3g}", "recovery": l["recovery"], "restart min": "–" if l["restart_s"] is None else f"{l['restart_s'] / 60:.3g}",
                    "lost h/day": f"{l['lost_s_per_day'] / 3600:.3g}", "tag": l["tag"]} for l in lines])
    totals = _job_table(g, rel, summary, data["planned_per_day"])
    tables = [table, totals]
    if swings:
        tables.append(Table("What moves it most: ETTR and goodput per $ at each end of an assumption (as designed: "
                            f"ETTR {100 * g.ettr:.1f} %)",
                            ["assumption", "ETTR % (1st end)", "ETTR % (2nd end)", "goodput per $ (1st)",
                             "goodput per $ (2nd)", "swing"],
                            [{"assumption": r["assumption"], "ETTR % (1st end)": f"{100 * r['ettr_low']:.1f}",
                              "ETTR % (2nd end)": f"{100 * r['ettr_high']:.1f}",
                              "goodput per $ (1st)": _per_dollar(r["goodput_per_dollar_low"]),
                              "goodput per $ (2nd)": _per_dollar(r["goodput_per_dollar_high"]),
                              "swing": f"{r['swing']:.3f}"} for r in swings]))
    footer = [f"rates: fabric/catalog/reliability.toml; GPU rates from Llama 3's Table 5, {rel.table5_reading} "
              "reading ([reliability] table5_reading); a part that rides through costs no restart (its lost "
              "bandwidth until repair is not modelled)",
              "lost h/day: interruptions × (restart + half a checkpoint interval of work redone, and an asynchronous "
              "checkpoint's write); ETTR from Daly's complete model with the checkpoint interval shown",
              "goodput per $: relative to the design as it is (hot spares priced at the cluster's cost per GPU); "
              "each assumption's ends in the order its row names them"]
    footer[:0] = [f"note: {note}" for note in g.notes]
    if not est.feasible:
        footer.insert(0, f"{name} is infeasible ({', '.join(v.name for v in est.violations)}; `sipml check` says "
                         "why): the budget is its parts' alone")
    return Report(data, tables, footer, records=[data])  # `-f csv` one wide row, as budget, fabric and cost
