"""`sipml mix`: several jobs sharing one cluster, on each design side by side — where each job runs, how fast alone
and together, what the placement leaves idle, and the whole mix's throughput per dollar and per watt."""

from __future__ import annotations

import math

from sipml.render import Report, Table

DEFAULT_MIX = "four-jobs-4096"
DEFAULT_DESIGNS = ("sip-ring", "sip-ocs-384", "cpo-800g", "ocs-torus-v4")


def load_mix_designs(names, mix, overrides, gpus: int | None) -> dict:
    """Each design as the mix runs it: its --set items, then the mix's (or --gpus') cluster size, GPU and host where
    its --set items do not give them (a --set fabric.gpu=… runs the mix on that GPU; --gpus holds over either)."""
    from sipml.design_files import load_design, scoped_overrides

    sized = {f"fabric.{key}": f'fabric.{key}="{value}"' if isinstance(value, str) else f"fabric.{key}={value}"
             for key, value in (("gpus", gpus or mix.gpus), ("gpu", mix.gpu), ("host", mix.host)) if value}
    out = {}
    for name in names:
        own = scoped_overrides(name, overrides, list(names))
        given = {item.partition("=")[0].strip() for item in own} - ({"fabric.gpus"} if gpus else set())
        out[name] = load_design(name, [*own, *(item for key, item in sized.items() if key not in given)])
    return out


def run_mix_rows(mix, designs: dict, catalog=None, gpus=None, point: str = "") -> tuple[list[dict], dict]:
    """(one record per design, with its jobs' records under 'jobs'; the MixRun of each design that ran). `point`: the
    --vary point the mix is at, where a mix larger than a design's cluster is that design's row, not an error (as
    is, anywhere, a mix whose GPUs the cluster has but not in whole units)."""
    from core.errors import InfeasibleDesign
    from fabric.placement import MixTooLarge
    from workloads.mix import run_mix

    rows, runs = [], {}
    for name, design in designs.items():
        try:
            run = run_mix(design, mix, catalog, gpus=gpus)
        except (InfeasibleDesign, MixTooLarge) as exc:
            # a mix asking more GPUs than the cluster has is a bad mix (exit 2); one the cluster's whole units
            # (servers, racks, cubes) cannot hold, though its GPUs could, is this design's row, as at a --vary point
            units_only = sum(j.gpus for j in mix.jobs) <= design.fabric.gpus
            if isinstance(exc, MixTooLarge) and not point and not units_only:
                raise MixTooLarge(f"{name}: {exc}") from None
            reason = f"at {point}: {exc}" if isinstance(exc, MixTooLarge) and point else str(exc)
            rows.append({"design": name, "fabric": design.fabric.kind, "feasible": False, "gpus": design.fabric.gpus,
                         "reason": reason, "jobs": []})
            continue
        runs[name] = run
        rows.append(design_record(name, run, mix.policy, gpus))
    return rows, runs


def design_record(name: str, run, policy: str, gpus=None) -> dict:
    """A design's record of `sipml mix --format json`: the cluster's figures and its jobs' records; its GPU named as
    `speedup` names it (`workloads.speedup.gpu_of` among `gpus`: a100_sxm4_40gb, not the catalog's a100_sxm4)."""
    from workloads.speedup import gpu_of

    jobs = [job_record(name, run, j) for j in run.jobs]
    running = sum(j.job.gpus for j in run.jobs if j.ran)
    flops = sum(j.model_flops_per_s for j in run.jobs)
    slow = [j.slowdown for j in run.jobs if j.ran]
    left = run.leftover
    return {"design": name, "fabric": run.estimate.kind, "feasible": run.feasible, "gpus": run.estimate.gpus,
            "gpu": gpu_of(run.design, gpus).name, "policy": policy, "rule": run.slots.rule,
            "gpus_placed": run.estimate.gpus - left.idle_gpus, "gpus_running": running, "idle_gpus": left.idle_gpus,
            "stranded_gpus": left.stranded_gpus, "largest_fit_gpus": left.largest_fit_gpus,
            "utilisation": running / run.estimate.gpus, "model_pflops": flops / 1e15,
            "cluster_cost_usd": run.cluster_cost_usd, "cluster_power_w": run.cluster_power_w,
            "pflops_per_musd": flops / 1e15 / (run.cluster_cost_usd / 1e6),
            "tflops_per_kw": flops / 1e12 / (run.cluster_power_w / 1e3),
            "mean_slowdown": sum(slow) / len(slow) if slow else math.nan, "jobs": jobs}


def job_record(design: str, run, j) -> dict:
    out = {"design": design, "job": j.job.name, "model": j.job.model, "gpus": j.job.gpus,
           "placement": placement_text(run, j),
           "cost_per_hour_usd": run.cost_per_hour_usd(j.placed.allocated_gpus) if j.placed else None}
    if not j.ran:
        return {**out, "strategy_alone": None, "strategy": None, "iteration_alone_s": None, "iteration_s": None,
                "slowdown": None, "throughput": None, "throughput_unit": None, "tflops_per_gpu": None,
                "reason": j.reason}
    a, t = j.alone, j.together
    return {**out, "strategy_alone": a.best.strategy, "strategy": t.best.strategy,
            "iteration_alone_s": a.best.iteration_s, "iteration_s": t.best.iteration_s, "slowdown": j.slowdown,
            "throughput": t.throughput, "throughput_unit": t.throughput_unit, "tflops_per_gpu": t.tflops_per_gpu,
            "reason": ""}


def placement_text(run, j) -> str:
    """Where a job runs, in the fabric's own terms: GPUs, and the pods, cubes or arc they make."""
    slots, p = run.slots, j.placed
    if p is None:
        return "not placed: it cannot run here"
    text = f"GPUs {p.gpu_ranges()}"
    if slots.unit == "cube":
        text += f" ({len(p.units)} cubes)"
    elif slots.contiguous:
        text += f" (arc of {p.gpus})"
    elif slots.domain_units:
        pods = sorted({slots.domain_of(u) for u in p.units})
        text += f" ({slots.domain}{'s' if len(pods) > 1 else ''} {', '.join(map(str, pods))})"
    if p.stranded_gpus:
        text += f", {p.stranded_gpus} stranded"
    return text


def _short(strategy) -> str:
    if not strategy:
        return "—"
    return ",".join(f"{k}={v}" for k, v in strategy.items()
                    if k in ("dp", "tp", "pp", "microbatch") or (k in ("cp", "ep") and v != 1)
                    or (k == "etp" and v != strategy.get("tp")))


def mix_report(mix, rows: list[dict], figure: tuple | None = None) -> Report:
    """The tables of `sipml mix`: the clusters side by side, then each job on each design."""
    ran = [r for r in rows if r.get("feasible") is not None and "utilisation" in r]
    axes = list(rows[0].get("point", {})) if rows else []  # --vary: each row's point first
    asked = "at each point of --vary" if axes else f"{sum(j.gpus for j in mix.jobs)} GPUs asked"
    cluster = Table(f"Mix '{mix.name}' ({len(mix.jobs)} jobs, {asked}, {mix.policy}): the clusters side by side",
                    [*axes, "design", "fabric", "GPU", "GPUs", "running", "idle", "stranded", "largest fit",
                     "utilisation", "model PFLOP/s", "mean slowdown", "cost M$", "power MW", "PFLOP/s per M$",
                     "TFLOP/s per kW"])
    for r in ran:
        cluster.rows.append({
            **r.get("point", {}), "design": r["design"], "fabric": r["fabric"], "GPU": r["gpu"], "GPUs": r["gpus"],
            "running": r["gpus_running"], "idle": r["idle_gpus"], "stranded": r["stranded_gpus"],
            "largest fit": r["largest_fit_gpus"],
            "utilisation": f"{r['utilisation']:.1%}", "model PFLOP/s": f"{r['model_pflops']:.1f}",
            "mean slowdown": f"{r['mean_slowdown']:.3f}×", "cost M$": f"{r['cluster_cost_usd'] / 1e6:.1f}",
            "power MW": f"{r['cluster_power_w'] / 1e6:.2f}", "PFLOP/s per M$": f"{r['pflops_per_musd']:.2f}",
            "TFLOP/s per kW": f"{r['tflops_per_kw']:.1f}"})
    jobs = Table("Each job: where it runs, alone and together", [*axes, "design", "job", "GPUs", "placement",
                                                                  "strategy", "alone s", "together s", "slowdown",
                                                                  "TFLOP/s per GPU", "$ per job-hour"])
    for r in ran:
        for j in r["jobs"]:
            shown_strategy = _short(j["strategy"])
            if j["strategy"] and j["strategy_alone"] != j["strategy"]:
                shown_strategy += f" (alone {_short(j['strategy_alone'])})"
            jobs.rows.append({
                **r.get("point", {}), "design": r["design"], "job": j["job"], "GPUs": j["gpus"],
                "placement": j["placement"], "strategy": shown_strategy if j["iteration_s"] is not None else f"cannot run: {j['reason']}",
                "alone s": _num(j["iteration_alone_s"]), "together s": _num(j["iteration_s"]),
                "slowdown": "—" if j["slowdown"] is None else f"{j['slowdown']:.3f}×",
                "TFLOP/s per GPU": _num(j["tflops_per_gpu"], 1),
                "$ per job-hour": "—" if j["cost_per_hour_usd"] is None else f"{j['cost_per_hour_usd']:,.0f}"})
    footer = list(dict.fromkeys(f"{r['design']}: {r['rule']}" for r in ran))  # a design's rule once
    footer += dict.fromkeys(f"{r['design']}: infeasible — {r['reason']}" for r in rows
                            if "reason" in r and "utilisation" not in r)
    footer += _verdicts(ran) if ran else ["No design runs the mix: nothing to compare."]
    footer.append("Together: jobs whose collectives cross a shared resource (an oversubscribed pod uplink, a ring "
                  "segment) are taken to cross it at once — the slowdown is an upper bound; private circuits and "
                  "slices share nothing. Model PFLOP/s: useful FLOP/s of every job together (no recomputation).")
    figures = [figure] if figure else []
    tables = [cluster, jobs] if ran else []  # no design ran it: the reasons say why, no empty tables
    return Report({"mix": mix.name, "policy": mix.policy, "designs": rows}, tables, footer,
                  figures=figures, records=[{k: v for k, v in r.items() if k != "jobs"} for r in rows])


def _verdicts(rows: list[dict]) -> list[str]:
    """`decides` over the designs of the mix; with --vary, at each point where two or more designs ran."""
    points: dict[tuple, list[dict]] = {}
    for r in rows:
        points.setdefault(tuple(r.get("point", {}).items()), []).append(r)
    if len(points) == 1:
        return [decides(rows)]
    compared = [f"At {', '.join(f'{k}={v}' for k, v in point)}: {decides(alike)}"
                for point, alike in points.items() if len(alike) > 1]
    return compared or ["One design at each point: nothing to compare."]


def decides(rows: list[dict]) -> str:
    """One sentence: which design gives the most mix throughput per dollar, and the mechanism behind the gap."""
    if len(rows) < 2:
        return "One design: nothing to compare."
    best = max(rows, key=lambda r: r["pflops_per_musd"])
    worst = min(rows, key=lambda r: r["pflops_per_musd"])
    parts = []
    for r in (best, worst):
        why = []
        if r["mean_slowdown"] > 1.005:
            why.append(f"sharing slows its jobs {r['mean_slowdown']:.2f}× on average")
        if r["idle_gpus"] + r["stranded_gpus"] > min(x["idle_gpus"] + x["stranded_gpus"] for x in rows):
            why.append(f"{r['idle_gpus'] + r['stranded_gpus']} GPUs idle or stranded")
        why.append(f"{r['model_pflops']:.1f} PFLOP/s for ${r['cluster_cost_usd'] / 1e6:.1f} M")
        parts.append(f"{r['design']} ({'; '.join(why)})")
    ratio = best["pflops_per_musd"] / worst["pflops_per_musd"] if worst["pflops_per_musd"] else math.inf
    cost = best["cluster_cost_usd"] / worst["cluster_cost_usd"]
    speed = best["model_pflops"] / worst["model_pflops"] if worst["model_pflops"] else math.inf
    gpus = {r["gpu"] for r in rows}
    mechanism = ("the price of the fabric" if abs(math.log(cost)) >= abs(math.log(speed)) else
                 "the speed its jobs reach (their strategies on its bandwidth, and any sharing)")
    if len(gpus) > 1:
        mechanism = (f"the GPUs differ ({', '.join(sorted(gpus))}: give the mix a `gpu` to compare the fabrics) — "
                     + mechanism)
    return (f"Throughput per dollar, the best against the last: {parts[0]} leads {parts[1]} by {ratio:.2f}×: its "
            f"jobs run {speed:.2f}× as fast on a cluster costing {cost:.2f}× as much, so {mechanism} decides it.")


def _num(value, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}" if value >= 1 else f"{value:.{digits}g}"


VARY_KEYS = ("gpus", "batch")


def parse_vary(items) -> list[tuple[str, str, list[int]]]:
    """`JOB.KEY=a,b,c` axes (KEY gpus or batch) as (job, key, values); InputError naming the bad item."""
    from core.errors import InputError, did_you_mean

    axes = []
    for item in items or ():
        target, eq, values = str(item).partition("=")
        job, dot, key = target.strip().rpartition(".")
        if not eq or not dot or not job:
            raise InputError(f"--vary {item!r}: expected JOB.KEY=a,b,c (KEY: {', '.join(VARY_KEYS)})")
        if key not in VARY_KEYS:
            raise InputError(f"--vary {item!r}: a job's {key!r} cannot be varied{did_you_mean(key, VARY_KEYS)}; "
                             f"expected one of {', '.join(VARY_KEYS)}")
        try:
            numbers = [int(v) for v in values.split(",") if v.strip()]
        except ValueError:
            raise InputError(f"--vary {item!r}: the values must be whole numbers, 'a,b,c'") from None
        if not numbers or any(v < 1 for v in numbers):
            raise InputError(f"--vary {item!r}: give whole numbers ≥ 1, 'a,b,c'")
        axes.append((job, key, numbers))
    return axes


def run_mix_command(designs, jobs: str | None, gpus: int | None, policy: str | None, overrides, vary,
                    plot=None, embed: bool = False, catalog=None, gpu_table=None) -> tuple[Report, bool]:
    """(the report of `sipml mix`, whether every design ran every job); `plot`: a figure file (.png, .svg, .pdf)
    for the placement figure (of the last point of a --vary), `embed`: the figure in the report (an HTML page);
    `catalog`, `gpu_table`: what it prices with and finds each design's GPU among (None: the shipped ones)."""
    import dataclasses
    import itertools

    from core.errors import InputError
    from fabric.catalog import load_catalog
    from workloads.mix import load_mix

    mix = load_mix(DEFAULT_MIX if jobs is None else jobs)
    if policy:
        from fabric.placement import POLICIES

        if policy not in POLICIES:
            raise InputError(f"--policy {policy!r}: expected one of {', '.join(POLICIES)}")
        mix = dataclasses.replace(mix, policy=policy)
    names = list(dict.fromkeys(designs or DEFAULT_DESIGNS))
    loaded = load_mix_designs(names, mix, overrides, gpus)
    catalog = catalog or load_catalog()
    axes = parse_vary(vary)
    rows, last_runs, last_point = [], {}, ""
    for point in itertools.product(*(values for _, _, values in axes)):
        varied = mix
        for (job, key, _), value in zip(axes, point):
            varied = varied.with_job(job, **{key: value})
        at = ", ".join(f"{job}.{key}={value}" for (job, key, _), value in zip(axes, point))
        these, runs = run_mix_rows(varied, loaded, catalog, gpu_table, at)
        for r in these:
            if axes:
                r["point"] = {f"{job}.{key}": value for (job, key, _), value in zip(axes, point)}
        rows += these
        if runs:
            last_runs, last_point = runs, at
    figure = None
    if (plot is not None or embed) and last_runs:
        from sipml.mix_figure import placement_figure
        from sipml.plotting import png, save

        title = f"Mix '{mix.name}', {mix.policy}: where each job runs" + (
            f" (at {last_point}, the last point of --vary)" if last_point else "")
        if plot is not None:
            save(placement_figure(last_runs, title), plot, title)
        if embed:
            figure = ("Where each job runs", png(placement_figure(last_runs, title)))
    report = mix_report(mix, rows, figure)
    if axes:
        report.tables.insert(1, _vary_table(rows, axes))
    ok = all(r.get("feasible") for r in rows)
    return report, ok


def _vary_table(rows, axes) -> Table:
    keys = [f"{job}.{key}" for job, key, _ in axes]
    table = Table("Over the mix's sizes", [*keys, "design", "utilisation", "largest fit", "model PFLOP/s",
                                           "mean slowdown", "PFLOP/s per M$"])
    for r in rows:
        if "utilisation" not in r:
            continue
        table.rows.append({**r["point"], "design": r["design"], "utilisation": f"{r['utilisation']:.1%}",
                           "largest fit": r["largest_fit_gpus"], "model PFLOP/s": f"{r['model_pflops']:.1f}",
                           "mean slowdown": f"{r['mean_slowdown']:.3f}×",
                           "PFLOP/s per M$": f"{r['pflops_per_musd']:.2f}"})
    return table
