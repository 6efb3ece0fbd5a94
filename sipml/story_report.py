"""`sipml report`: SiP-ML's story end to end on the built-in designs, as a document — the answer first (a summary
computed from the numbers, then the training table with every design on the same GPU: speedup, per dollar and per watt
over SiP-ML's fat-tree); the assumptions that move it, with their sources; then the details (training per model and
design, the GPU generation, the optical link and what binds it, the fabrics side by side with any design named by
`--design`); the validation in a line (`sipml validate` has the cases). The HTML page and the figures carry the
version, date and command line (`provenance`)."""

from __future__ import annotations

from pathlib import Path

from sipml.provenance import provenance, stamp_text, stamped
from sipml.render import Report, Table

FABRICS = ("sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "cpo-800g", "lpo-800g", "dsp-800g",
           "fattree-200", "fattree-400", "ideal")
TRAINING = ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "cpo-800g", "fattree-400")
BASELINES = ("fattree-200", "dgx-a100")
# The training table runs every design on the same GPU: that of HEADLINE_GPU (the A100 of SiP-ML's designs and its
# baselines), with the server host the GPU sits in; NEXT_GPU's GPU and host (H100) are the generation compared.
HEADLINE_GPU = "dgx-a100"
NEXT_GPU = "dgx-h100"
MODELS = ("resnet-50", "transformer-big", "gpt2-355m", "gpt3-175b")  # SiP-ML's three and a modern large model
SENSITIVITY_MODEL = "gpt2-355m"


def _link_section():
    from sipml.design_files import load_design
    from sipml.quantities import Reading
    from sipml.design_reports import reported
    from workloads.evaluation import Evaluation

    design = load_design("sip-ring")
    est = Evaluation(design).link
    rows = [("capacity per GPU per direction", f"{est.capacity_bps / 1e9:.0f}", "Gbit/s"),
            ("binding limit", est.binding_limit, ""), ("margin", f"{est.margin_db:.2f}", "dB"),
            ("max wavelengths per fiber", str(est.max_wavelengths_per_fiber), ""),
            ("optical energy per bit (lasers, modulators, receivers, heaters)",
             f"{est.total_energy_j_per_bit * 1e12:.2f}", "pJ/bit"),
            ("energy per bit with the electrical side (as `sipml budget`'s total)",
             f"{est.energy.total_j_per_bit * 1e12:.2f}", "pJ/bit"),
            ("laser power per line, least that closes", f"{est.min_laser_power_per_line_dbm:.2f}", "dBm")]
    data = reported(Reading(link=est), ("capacity_gbps", "binding_limit", "margin_db", "max_wavelengths_per_fiber",
                                        "energy_pj_per_bit", "total_energy_pj_per_bit",
                                        "min_laser_power_per_line_dbm"),
                    {"binding_limit": est.binding_limit})
    return data, Table("The optical link (SiP-ML's interface, the sip-ring design)", ["quantity", "value", "unit"],
                       [{"quantity": q, "value": v, "unit": u} for q, v, u in rows]), design


FABRIC_ENTRY = ("design", "fabric", "gpu", "gpus", "feasible", "per_gpu_bandwidth_gbps", "effective_bandwidth_gbps", "degree",
                "optical_reach", "bisection_gbps", "network_cost_usd_per_gpu", "network_power_w_per_gpu",
                "optics_power_w_per_gpu", "port_power_w_per_gpu", "cluster_cost_usd", "all_reduce_busbw_gbps",
                "breakdown")


def _fabric_section(catalog, designs: dict):
    """The built-in designs' fabrics (`FABRICS`) and then those of `designs` (name → loaded design) side by side."""
    from core.errors import InputError
    from fabric.registry import get_kind
    from sipml.design_files import load_design
    from sipml.quantities import Reading
    from sipml.design_reports import reported
    from workloads.evaluation import Evaluation

    rows, data = [], []
    for name in dict.fromkeys([*FABRICS, *designs]):
        point = Evaluation(designs[name] if name in designs else load_design(name), catalog)
        try:
            est, summary = point.fabric, point.cost
        except InputError as exc:  # a --design the fabric refuses: named, as `sipml fabric` names it
            raise InputError(f"{name}: {exc}") from None
        entry = reported(Reading(fabric=est, cost=summary), FABRIC_ENTRY, {
            "design": name, "fabric": est.kind, "gpu": est.design.fabric.gpu, "gpus": est.gpus,
            "feasible": est.feasible, "breakdown": [(line.key, line.cost_usd.typical / est.gpus, line.power_w.typical / est.gpus)
                          for line in summary.bom.lines_by_cost()]})
        data.append(entry)
        free = not get_kind(est.kind).costed  # a reference switch: its network is not costed, not free
        priced = est.feasible and not free
        def money(template: str, *keys) -> str:  # a price of what cannot be built is no number: '–'
            return template.format(*(entry[k] for k in keys)) if priced else ("not costed" if free else "–")
        rows.append({"design": name, "fabric": est.kind, "GPU": est.design.fabric.gpu.removeprefix("gpu."),
                     "feasible": "yes" if est.feasible else "NO",
                     "Gbit/s per GPU": f"{entry['per_gpu_bandwidth_gbps']:.0f}",
                     "reach hops": "–" if est.reach_hops is None else str(est.reach_hops),
                     "degree": str(est.degree), "bisection Tbit/s": f"{entry['bisection_gbps'] / 1e3:.1f}",
                     "all-reduce busbw Gbit/s": f"{entry['all_reduce_busbw_gbps']:.0f}",
                     "network USD/GPU": money("{:,.0f}", "network_cost_usd_per_gpu"),
                     "network W/GPU": money("{:.0f}", "network_power_w_per_gpu"),
                     "optics W/GPU B1 / B2": money("{:.1f} / {:.1f}", "optics_power_w_per_gpu",
                                                   "port_power_w_per_gpu"),
                     "cluster USD": f"{entry['cluster_cost_usd']:,.0f}" if est.feasible else "–"})
    sizes = " or ".join(str(g) for g in dict.fromkeys(entry["gpus"] for entry in data))
    return data, Table(f"Fabrics side by side ({sizes} GPUs; all-reduce busbw at 100 MB over the whole job; optics "
                       "power at B1, modules or engines with their lasers, and B2, with the host SerDes)",
                       list(rows[0]), rows)


def _gpu_of(name: str) -> dict[str, str]:
    """The GPU and server host of built-in design `name` (`[fabric] gpu` and `host`), the catalog's keys."""
    from sipml.design_files import load_design

    fabric = load_design(name).fabric
    return {"gpu": fabric.gpu, "host": fabric.server}


def _on(gpu: dict[str, str]) -> list[str]:
    """The --set items that put a design on `gpu` (its GPU and server host)."""
    return [f'fabric.{key}="{value}"' for key, value in gpu.items()]


def _carrying(gpu: dict[str, str]) -> list[str]:
    """The designs of the training table whose own GPU is not `gpu`: there, their network carries it."""
    return [name for name in TRAINING if _gpu_of(name)["gpu"] != gpu["gpu"]]


def _training_section(catalog):
    """The training table, every design and baseline on the headline GPU, and the GPU generation beside it: each
    design on the next GPU, over the first baseline on that GPU and over the same fabric on the headline GPU."""
    from sipml.design_files import load_design
    from sipml.speedup_report import Shared, run_speedup
    from workloads.speedup import gpu_of

    headline, later = _gpu_of(HEADLINE_GPU), _gpu_of(NEXT_GPU)
    gpu, next_gpu = (gpu_of(load_design(name)).name for name in (HEADLINE_GPU, NEXT_GPU))
    rows, data, notes, generation, generation_rows = [], [], [], [], []
    first, other = BASELINES[0], BASELINES[1:]
    shared = Shared()  # each design loaded, and its link, fabric and bill evaluated, once for every model and GPU
    for model in MODELS:
        result, _, failures = run_speedup(list(TRAINING), model, None, None, None, _on(headline), list(BASELINES),
                                          None, catalog=catalog, shared=shared)
        newer, _, newer_failures = run_speedup(list(TRAINING), model, None, None, None, _on(later), list(BASELINES),
                                               None, catalog=catalog, shared=shared)
        notes += [f"{model} on {name}: {why}" for name, why in failures.items()]
        notes += [f"{model} on {name} ({later['gpu']}): {why}" for name, why in newer_failures.items()]
        before = {r["design"]: r for r in result if r["feasible"]}
        for r in result:
            if not r["feasible"]:
                continue
            data.append(r)
            versus = r["baselines"]
            rows.append({"model": model, "design": r["design"], "iteration s": f"{r['iteration_s']:.4g}",
                         "TFLOP/s per GPU": f"{r['tflops_per_gpu']:.0f}", **_columns(versus[first]),
                         **{k: v for b in other for k, v in _columns(versus[b], f"{b} ").items()}})
        for r in newer:
            if not r["feasible"]:
                continue
            same_fabric = _over(r, before[r["design"]]) if r["design"] in before else None
            generation.append({**r, "over_same_fabric": same_fabric})
            generation_rows.append({"model": model, "design": r["design"], "iteration s": f"{r['iteration_s']:.4g}",
                                    "TFLOP/s per GPU": f"{r['tflops_per_gpu']:.0f}",
                                    **_columns(r["baselines"][first]),
                                    **_columns(same_fabric, f"{_short(gpu)} → {_short(next_gpu)} ")})
    carried = _carrying(headline)
    table = Table(f"Training on the same GPU, {gpu}, in every design and baseline (server host {headline['host']}): "
                  f"speedup, per $ and per W over {first} and over {', '.join(other)}, best strategy on each fabric"
                  + (f"; {', '.join(carried)}: {'its' if len(carried) == 1 else 'their'} scale-out network "
                     f"carrying the {gpu} in its own servers (their NVLink domain)" if carried else ""),
                  ["model", "design", "iteration s", "TFLOP/s per GPU", *_columns(None),
                   *(k for b in other for k in _columns(None, f"{b} "))], rows)
    carried = _carrying(later)
    generation_table = Table(
        f"GPU generation: every design on {next_gpu} (server host {later['host']}), speedup, per $ and per W over "
        f"{first} on {next_gpu}, and over the same fabric on {gpu} ({_short(gpu)} → {_short(next_gpu)}: what the "
        "GPU alone buys)"
        + (f"; {', '.join(carried)}: {'its' if len(carried) == 1 else 'their'} network carrying the {next_gpu}"
           if carried else ""),
        ["model", "design", "iteration s", "TFLOP/s per GPU", *_columns(None),
         *_columns(None, f"{_short(gpu)} → {_short(next_gpu)} ")], generation_rows)
    headline_table = _headline_table(data, gpu, headline["host"])
    return data, generation, headline_table, table, generation_table, notes


MEASURES = (("speedup", "speedup"), ("per $", "speedup_per_dollar"), ("per W", "speedup_per_watt"))


def _columns(versus: dict | None, prefix: str = "") -> dict[str, str]:
    """Speedup, per $ and per W over one baseline as three cells ('–' where the baseline did not run)."""
    return {f"{prefix}{label}": "–" if versus is None or versus.get(key) is None else f"{versus[key]:.2f}"
            for label, key in MEASURES}


def _short(gpu: str) -> str:
    """'a100_sxm4_40gb' → 'A100': a GPU as a column header names it."""
    return gpu.split("_")[0].upper()


def _headline_table(data: list[dict], gpu: str, host: str) -> Table:
    """The answer: speedup, per $ and per W over the first baseline, a block of rows each, one row per model and
    one column per design (as README "What it answers" shows it)."""
    designs = [d for d in TRAINING if any(r["design"] == d for r in data)]
    cell = {(r["model"], r["design"]): r["baselines"][BASELINES[0]] for r in data}
    key = f"over {BASELINES[0]}"
    rows = []
    for label, measure in MEASURES:
        for i, model in enumerate(m for m in MODELS if any(r["model"] == m for r in data)):
            rows.append({key: label if i == 0 else "", "model": model,
                         **{d: "–" if (cell.get((model, d)) or {}).get(measure) is None
                            else f"{cell[(model, d)][measure]:.2f}" for d in designs}})
    gpus = data[0]["gpus"] if data else 0
    return Table(f"Training on {gpus} GPUs, every design on the {_short(gpu)} ({gpu}, host {host}): over "
                 f"{BASELINES[0]} on the same GPUs", [key, "model", *designs], rows)


def _over(result: dict, baseline: dict) -> dict[str, float]:
    """Speedup, per $ and per W of one `sipml speedup` row over another of the same model and batch
    (`workloads.speedup.compare` on the rows' iteration time, cluster cost and nameplate power)."""
    speedup = baseline["iteration_s"] / result["iteration_s"]
    return {"speedup": speedup,
            "speedup_per_dollar": speedup * baseline["cluster_cost_usd"] / result["cluster_cost_usd"],
            "speedup_per_watt": speedup * baseline["cluster_power_w"] / result["cluster_power_w"]}


GOODPUT_DESIGNS = ("llama3-24k", "dsp-800g", "lpo-800g", "cpo-800g")  # frontier fabrics at Llama 3's job size
GOODPUT_MODEL, GOODPUT_GPUS = "llama3-405b", 16384


def _goodput_section(catalog):
    """Llama 3 405B's job on 16,384 GPUs of each frontier fabric: its interruptions and ETTR from the parts' rates
    (`sipml reliability`), and the assumptions that move goodput per $ most on the first."""
    from sipml.design_files import load_design
    from sipml.reliability_report import reliability_reading, sensitivity
    from workloads.models import load_model

    model = load_model(GOODPUT_MODEL)
    rows, data = [], []
    for name in GOODPUT_DESIGNS:
        sets = ["fabric.job_gpus=16384"] if name == "llama3-24k" else [f"fabric.gpus={GOODPUT_GPUS}"]
        design = load_design(name, sets)
        _, g = reliability_reading(design, model, catalog)
        optics = sum(l.per_s for l in g.lines if l.component.startswith(("transceiver.", "cpo.", "els.", "sip.",
                                                                           "laser.")))
        entry = {"design": name, "interruptions_per_day": g.interruptions_per_day, "job_mtti_s": g.mtti_s,
                 "restart_s": g.restart_s, "ettr": g.ettr,
                 "optics_share": optics / g.interruptions_per_s if g.interruptions_per_s else 0.0}
        data.append(entry)
        rows.append({"design": name, "interruptions/day": f"{entry['interruptions_per_day']:.3g}",
                     "MTTI h": f"{g.mtti_s / 3600:.3g}", "optics share %": f"{100 * entry['optics_share']:.1f}",
                     "restart min": f"{g.restart_s / 60:.3g}", "ETTR %": f"{100 * g.ettr:.1f}"})
    first = GOODPUT_DESIGNS[1]
    swings = sensitivity(load_design(first, [f"fabric.gpus={GOODPUT_GPUS}"]), model, catalog)
    table = Table(f"Interruptions: {GOODPUT_MODEL} on {GOODPUT_GPUS:,} GPUs of each frontier fabric (its parts' "
                  "failure rates; `sipml reliability`)", list(rows[0]), rows)
    line = ""
    if swings:
        top = swings[0]
        line = (f"goodput per $ on {first}: {top['assumption']} moves it most ({top['goodput_per_dollar_low']:.3f} … "
                f"{top['goodput_per_dollar_high']:.3f} of as designed; ETTR {100 * top['ettr_low']:.1f} … "
                f"{100 * top['ettr_high']:.1f} %)")
    return {"rows": data, "sensitivity_design": first, "sensitivity": swings}, table, line


def _validation_section():
    """The validation in a line or two (the cases themselves are `sipml validate`'s): how many published cases
    are inside their tolerance, from which groups, and any outside by name."""
    from sipml.validation import all_cases

    cases = [c for c in all_cases(judged_only=True) if not c.informational]
    data = {"passed": sum(c.passed for c in cases), "cases": len(cases),
            "outside": [c.name for c in cases if not c.passed]}
    groups = ", ".join(dict.fromkeys(c.group for c in cases))
    lines = [f"Validation: {data['passed']} of {data['cases']} published cases inside their tolerance ({groups}); "
             "`sipml validate` lists each with its source, error and tolerance."]
    if data["outside"]:
        lines.append(f"Outside their tolerance: {'; '.join(data['outside'])}.")
    return data, lines


SENSITIVITY_ROWS = 8  # the largest swings shown; the JSON keeps every assumption that moves the answer


def _sensitivity_section(catalog):
    """How much SiP-OCS's and SiP-Ring's speedup per dollar over the 200 Gbps fat-tree moves when one assumption
    spans its range, largest first: every catalog price in the design's or the baseline's bill at its low and high
    (both priced in the same catalog) and the SiP collective step's latency."""
    import dataclasses

    from fabric.catalog import Catalog
    from sipml.design_files import load_design
    from workloads.models import load_model
    from workloads.evaluation import Evaluation
    from workloads.speedup import compare, default_batch

    model = load_model(SENSITIVITY_MODEL)
    batch, _ = default_batch(model, 1024)
    points: dict[tuple, Evaluation] = {}  # each design's link and fabric once, priced under every catalog

    def trained(design_name, sets, cat):
        key = (design_name, tuple(sets))
        if key not in points:
            points[key] = Evaluation(load_design(design_name, list(sets)), catalog)
        point = points[key] if cat is catalog else points[key].priced(cat)
        return point.training(model, batch, name=design_name)

    def per_dollar(design_name, sets=(), cat=catalog):  # the baseline priced in the same catalog
        return compare(trained(design_name, sets, cat), trained("fattree-200", (), cat))["speedup_per_dollar"]

    def at_level(key, level):
        changed = {k: dataclasses.replace(c, price_usd=(c.price_usd[level],) * 3) if k == key else c
                   for k, c in catalog.components.items()}
        return Catalog(components=changed, files=catalog.files, rates=catalog.rates)

    rows, data = [], []
    for design in ("sip-ocs", "sip-ring"):
        base = per_dollar(design)
        bill = dict.fromkeys(line.key for name in (design, BASELINES[0])  # the baseline's parts move the ratio too
                             for line in points[(name, ())].cost.bom.lines_by_cost())
        assumptions = [*((f"{key} price (catalog low / high)", f"price:{key}") for key in bill),
                       ("step latency of a SiP collective step (1 µs / 10 µs)", "set:step_latency")]
        for what, how in assumptions:
            kind, _, key = how.partition(":")
            if kind == "price":  # a part both buy moves both
                values = [per_dollar(design, cat=c) for c in (at_level(key, 0), at_level(key, 2))]
            else:
                section = design.replace("-", "_")
                values = [per_dollar(design, [f'{section}.{key}="{v}"']) for v in ("1 us", "10 us")]
            if values[0] == values[1] == base:
                continue
            data.append({"design": design, "assumption": what, "base": base, "low": values[0], "high": values[1],
                         "source": _assumption_source(points[(design, ())], how)})
    data.sort(key=lambda e: -abs(e["high"] - e["low"]))
    for e in data[:SENSITIVITY_ROWS]:
        rows.append({"design": e["design"], "assumption": e["assumption"], "speedup per $": f"{e['base']:.2f}",
                     "low end": f"{e['low']:.2f}", "high end": f"{e['high']:.2f}",
                     "swing": f"{abs(e['high'] - e['low']):.2f}", "source": e["source"]})
    return data, Table(f"Assumptions that move the answer most: speedup per dollar of {SENSITIVITY_MODEL} over "
                       f"{BASELINES[0]}, each assumption at the low and high end of its range, with its source",
                       ["design", "assumption", "speedup per $", "low end", "high end", "swing", "source"], rows)


def _assumption_source(point, how: str) -> str:
    """Where an assumption's number comes from: the catalog entry of the price (its source's price part, with its
    tag), or the design field's declared source."""
    kind, _, key = how.partition(":")
    if kind == "price":  # a component's source names power, radix and price: the price's part
        entry = point.catalog[key]
        parts = [p for p in entry.source.split("; ") if "price" in p.lower()] or [entry.source]
        return f"{key}: {'; '.join(parts)} {entry.tag}".rstrip()
    from core.fields import specs
    from sipml.design_files import ALL_SECTIONS

    section = point.design.fabric.kind.replace("-", "_")
    return specs(ALL_SECTIONS[section])[key].source


def require_matplotlib(what: str) -> None:
    import importlib

    from core.errors import InputError

    try:
        importlib.import_module("matplotlib")  # present, or the figures cannot be drawn
    except ImportError:
        raise InputError(f"{what} needs matplotlib: pip install 'sipml[plots]'") from None


def check_plots_folder(folder) -> None:
    """Before anything is computed: InputError when --plots cannot be written (a file is in the way, no matplotlib);
    a missing folder is created, parents included, as `-o` users expect."""
    from core.errors import InputError

    folder = Path(folder)
    require_matplotlib("--plots")
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--plots {folder}: not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--plots {folder}: cannot create the folder ({exc.strerror or exc})") from None


def _mix_section(catalog, figure: bool):
    """The built-in job mix on the four fabrics of `sipml mix` (its default), side by side: utilisation, the mix's
    throughput per $ and per W, and what decides it; with `figure`, the placement figure."""
    from sipml.mix_report import DEFAULT_DESIGNS, DEFAULT_MIX, decides, load_mix_designs, run_mix_rows
    from workloads.mix import load_mix

    mix = load_mix(DEFAULT_MIX)
    rows, runs = run_mix_rows(mix, load_mix_designs(DEFAULT_DESIGNS, mix, [], None), catalog)
    ran = [r for r in rows if "utilisation" in r]
    table = Table(f"Several jobs on one cluster: the mix '{mix.name}' ({len(mix.jobs)} jobs, "
                  f"{sum(j.gpus for j in mix.jobs):,} of {mix.gpus:,} GPUs; `sipml mix`)",
                  ["design", "utilisation %", "idle GPUs", "model PFLOP/s", "mean slowdown", "PFLOP/s per M$",
                   "TFLOP/s per kW"],
                  [{"design": r["design"], "utilisation %": f"{100 * r['utilisation']:.1f}",
                    "idle GPUs": r["idle_gpus"] + r["stranded_gpus"], "model PFLOP/s": f"{r['model_pflops']:.0f}",
                    "mean slowdown": f"{r['mean_slowdown']:.3f}", "PFLOP/s per M$": f"{r['pflops_per_musd']:.2f}",
                    "TFLOP/s per kW": f"{r['tflops_per_kw']:.0f}"} for r in ran])
    fig = None
    if figure and runs:
        from sipml.mix_figure import placement_figure

        fig = placement_figure(runs, f"Mix '{mix.name}': where each job runs")
    return {"mix": mix.name, "designs": rows}, table, decides(ran), fig


def build_report(plots: Path | None = None, embed: bool = False, designs=()) -> tuple[Report, list[Path]]:
    """The report; with `plots` its figures are written there as PNG, with `embed` they are kept in the report
    (`Report.figures`, for an HTML page); `designs` (files or built-in names) join the fabrics side by side."""
    from fabric.catalog import load_catalog

    from sipml.design_files import load_design

    if plots is not None:
        check_plots_folder(plots)
    elif embed:
        require_matplotlib("-f html")
    extra = {name: load_design(name) for name in designs}  # each read before anything is computed

    catalog = load_catalog()
    link_data, link_table, design = _link_section()
    fabric_data, fabric_table = _fabric_section(catalog, extra)
    training_data, generation_data, headline_table, training_table, generation_table, notes = _training_section(catalog)
    validation_data, validation_lines = _validation_section()
    sensitivity_data, sensitivity_table = _sensitivity_section(catalog)
    goodput_data, goodput_table, goodput_line = _goodput_section(catalog)
    mix_data, mix_table, mix_line, mix_fig = _mix_section(catalog, plots is not None or embed)
    summary = summary_sentences(training_data, generation_data, sensitivity_data)
    data = {"summary": summary, "link": link_data, "fabrics": fabric_data, "training": training_data,
            "gpu_generation": generation_data, "validation": validation_data, "sensitivity": sensitivity_data,
            "goodput": goodput_data, "mix": mix_data}
    footer = [*validation_lines,
              "speedup per $ and per W: throughput per cluster dollar (per nameplate watt) over the baseline's; "
              "each model at its zoo batch under its default software stack, best strategy on each fabric.",
              *notes, *([goodput_line] if goodput_line else []), f"Several jobs: {mix_line}"]
    stamp = provenance()
    figures = story_figures(design, fabric_data, training_data, stamp) if plots is not None or embed else []
    if mix_fig is not None:
        from sipml.plotting import png

        title = "Several jobs on one cluster: where each job runs"
        figures.append(("mix_placement.png", title, png(mix_fig, stamped(title, stamp))))
    written = write_plots(plots, figures) if plots is not None else []
    # the answer (the summary and the headline table), the assumptions that move it, then the details
    tables = [headline_table, sensitivity_table, training_table, generation_table, link_table, fabric_table,
              goodput_table, mix_table]
    return Report(data, tables, footer + [f"plot: {p}" for p in written],
                  figures=[(title, payload) for _, title, payload in figures] if embed else [],
                  preface=[" ".join(summary)], stamp=stamp_text(stamp)), written


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}×" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}×"


def summary_sentences(training: list[dict], generation: list[dict], sensitivity: list[dict]) -> list[str]:
    """The answer in a few sentences, every number read from the tables below it."""
    if not training:
        return ["No design could be trained: see the notes."]
    base = BASELINES[0]
    gpus, gpu = training[0]["gpus"], training[0]["gpu"]
    models = [m for m in MODELS if any(r["model"] == m for r in training)]
    over = {(r["model"], r["design"]): r["baselines"][base] for r in training if r["baselines"].get(base)}

    def best(measure: str) -> str:
        """The designs that lead most often on `measure`, and on how many models."""
        leaders = [max((d for m2, d in over if m2 == m), key=lambda d: over[(m, d)][measure]) for m in models]
        most = max(leaders.count(d) for d in leaders)
        tied = [d for d in dict.fromkeys(leaders) if leaders.count(d) == most]
        return (f"{tied[0]} ({most} of {len(models)})" if len(tied) == 1
                else f"{' and '.join(tied)} ({most} each)")

    sip = [d for d in ("sip-ring", "sip-ocs") if any(d == dd for _, dd in over)]
    spans = [f"{d} {_span([over[(m, d)]['speedup'] for m in models if (m, d) in over])}" for d in sip]
    out = [f"On {gpus} {_short(gpu)}s, every design on the same GPU: "
           + (f"{spans[0]} faster than SiP-ML's {base} on the {len(models)} models"
              + "".join(f", {s}" for s in spans[1:]) + "; " if spans else "")
           + f"fastest {best('speedup')}, best per $ {best('speedup_per_dollar')}, per W "
             f"{best('speedup_per_watt')}."]
    own = [m for m in MODELS[:3] if m in models]  # SiP-ML's own workloads
    if sip and own:
        top = [max(over[(m, d)]["speedup"] for d in sip if (m, d) in over) for m in own]
        where = ("inside that range" if min(top) >= 1.3 and max(top) <= 9.1 else
                 "below it" if max(top) < 1.3 else "partly outside it")
        out.append(f"SiP-ML claims 1.3–9.1×: for its three workloads the best SiP fabric gives {_span(top)} here, "
                   f"{where}.")
    alone = [r["over_same_fabric"]["speedup"] for r in generation if r.get("over_same_fabric")]
    if alone:
        out.append(f"The {_short(generation[0]['gpu'])} alone buys {_span(alone)} on the same fabric.")
    if sensitivity:
        top = sensitivity[0]
        out.append(f"Most sensitive: the {top['assumption']} swings {top['design']}'s speedup per $ "
                   f"({SENSITIVITY_MODEL}) between {top['low']:.2f} and {top['high']:.2f} ({top['base']:.2f} as "
                   "designed).")
    return out


# each bill-of-materials entry's family, for the cost and power figures: few enough colours to tell apart
COMPONENT_GROUPS = (("sip.", "optical I/O chiplets"), ("packaging.", "optical I/O chiplets"), ("laser.", "lasers"),
                    ("amplifier.", "amplifiers and clamps"), ("filter.", "amplifiers and clamps"),
                    ("ocs.", "optical circuit switches"), ("switch.", "packet switches"), ("nic.", "NICs"),
                    ("transceiver.", "transceivers"), ("cpo.", "co-packaged optics"), ("els.", "co-packaged optics"),
                    ("cable.", "fiber and cables"), ("fiber.", "fiber and cables"), ("nvswitch.", "NVSwitch"),
                    ("", "other"))


def component_group(key: str) -> str:
    return next((group for prefix, group in COMPONENT_GROUPS if key.startswith(prefix)), "other")


def write_plots(folder: Path, figures) -> list[Path]:
    """The figures (`story_figures`) as PNG files in `folder`, each written atomically."""
    from sipml.render import write_atomic_bytes

    out = []
    for name, _, payload in figures:
        write_atomic_bytes(Path(folder) / name, payload)
        out.append(Path(folder) / name)
    return out


def story_figures(design, fabric_data, training_data, stamp: dict | None = None) -> list[tuple[str, str, bytes]]:
    """The figures of the story as (file name, title, PNG bytes), in the house style (sipml.plotting): margin
    against wavelengths per fiber; network cost and power per GPU by component family; speedup and speedup per $
    and per W by fabric. Each PNG carries its title, the version, date and command line (`provenance`) in its
    metadata."""
    from sipml.plotting import png, pyplot

    plt = pyplot()
    stamp = stamp or provenance()
    drawn = [(_margin_figure(plt, design), "margin_vs_wavelengths.png", "Link margin against wavelengths per fiber"),
             *_network_figures(plt, fabric_data),
             (_speedup_figure(plt, training_data), "speedup_by_fabric.png",
              "Training speedup, per $ and per W by fabric")]
    return [(name, title, png(fig, stamped(title, stamp))) for fig, name, title in drawn]


def _margin_figure(plt, design):
    """Margin against wavelengths per fiber: the counts the design's limits refuse are shaded, and a margin far
    below the feasible ones (a ring aliasing past its FSR) is drawn at the bottom edge with its value, not as the
    scale."""
    import dataclasses

    from photonics.link import evaluate

    counts = list(range(1, 17))
    links = [evaluate(dataclasses.replace(design.link, link=dataclasses.replace(design.link.link,
                                                                                wavelengths_per_fiber=n)))
             for n in counts]
    margins = [e.margin_db for e in links]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    allowed = [n for n, e in zip(counts, links) if n <= e.max_wavelengths_per_fiber or e.feasible]
    inside = [m for n, m in zip(counts, margins) if n in allowed] or margins
    floor = min(min(inside) - 2.0, -2.0)
    ax.plot([n for n in counts if n in allowed], [m for n, m in zip(counts, margins) if n in allowed], marker="o",
            label="margin")
    beyond = [n for n in counts if n not in allowed]
    if beyond:
        why = sorted({v.name for n, e in zip(counts, links) if n in beyond for v in e.violations
                      if v.name != "power_budget"})
        ax.axvspan(beyond[0] - 0.5, counts[-1] + 0.5, color="#eeeeee", zorder=0,
                   label=f"refused: {', '.join(why) or 'power_budget'}")
        low = [(n, m) for n, m in zip(counts, margins) if n in beyond]
        ax.plot([n for n, _ in low], [max(m, floor + 0.3) for _, m in low], marker="v", linestyle="none",
                color="#999999")
        n0, m0 = low[0]
        ax.annotate(f"{m0:.0f} dB", (n0, max(m0, floor + 0.3)), textcoords="offset points", xytext=(4, 6),
                    fontsize=8, color="#555555")
    ax.axhline(0.0, color="#555555", lw=0.8)
    ax.set_ylim(floor, max(margins) + 1.5)
    ax.set(xlabel="wavelengths per fiber", ylabel="margin (dB)", xticks=counts[::1],
           title=f"Link margin of the {design.link.link.data_rate / 1e9:g} Gbit/s sip-ring interface")
    ax.legend(loc="lower left")
    return fig


def _network_figures(plt, fabric_data) -> list[tuple]:
    """(figure, file name, title) of the network cost and the power per GPU, stacked by component family."""
    from fabric.registry import get_kind

    out = []
    names = [f["design"] for f in fabric_data]
    ticks = [f"{f['design']}\n({f['gpu'].removeprefix('gpu.').split('_')[0].upper()})" for f in fabric_data]
    groups = list(dict.fromkeys(group for _, group in COMPONENT_GROUPS))
    # one colour per family in both figures (Okabe–Ito, then greys)
    palette = dict(zip(groups, ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442",
                                "#000000", "#999999", "#dddddd", "#666666")))
    for what, index, unit in (("cost", 1, "USD per GPU"), ("power", 2, "W per GPU")):
        fig, ax = plt.subplots(figsize=(max(8.0, 0.8 * len(names) + 2.5), 4.5))
        bottom = [0.0] * len(names)
        for group in groups:
            values = [sum(line[index] for line in f["breakdown"] if component_group(line[0]) == group
                          and not line[0].startswith(("gpu.", "server."))) for f in fabric_data]
            if any(values):
                ax.bar(ticks, values, bottom=bottom, label=group, width=0.7, color=palette[group])
                bottom = [b + v for b, v in zip(bottom, values)]
        for i, f in enumerate(fabric_data):
            costed = get_kind(f["fabric"]).costed
            if not costed or not f["feasible"]:
                ax.text(i, max(bottom) * 0.02, "not costed" if not costed else "infeasible",
                        ha="center", va="bottom", rotation=90, fontsize=8, color="#555555")
        ax.set(ylabel=unit, title=f"Network {what} per GPU by component, {fabric_data[0]['gpus']} GPUs (GPU type "
                                  "under each design)")
        ax.tick_params(axis="x", labelsize=8)
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1.01, 1.0))  # top of stack first
        out.append((fig, f"network_{what}_per_gpu.png", f"Network {what} per GPU by component"))

    return out


def _speedup_figure(plt, training_data):
    """Speedup, per $ and per W of each design over the first baseline, by model."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    models = [m for m in MODELS if any(r["model"] == m for r in training_data)]
    designs = [d for d in TRAINING if any(r["design"] == d for r in training_data)]
    width = 0.8 / max(len(designs), 1)
    for ax, key, what in zip(axes, ("speedup", "speedup_per_dollar", "speedup_per_watt"),
                             ("speedup", "speedup per $", "speedup per W")):
        for j, d in enumerate(designs):
            ys = [next((r[key] for r in training_data if r["model"] == m and r["design"] == d), 0.0) or 0.0
                  for m in models]
            gpu = next((r["gpu"] for r in training_data if r["design"] == d), "")
            ax.bar([i + j * width for i in range(len(models))], ys, width,
                   label=f"{d} ({gpu.split('_')[0].upper()})" if gpu else d)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(models))], models, rotation=15)
        ax.axhline(1.0, color="#555555", lw=0.8)
        ax.set(title=what, ylabel=f"{what} over {BASELINES[0]} (×)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", ncol=len(designs),
               bbox_to_anchor=(0.5, 1.07))
    fig.suptitle(f"Training on {training_data[0]['gpus']} GPUs, best strategy on each fabric (1 = {BASELINES[0]})",
                 y=1.12)
    return fig
