"""`sipml report`: SiP-ML's story end to end on the built-in designs — the optical link and what binds it; SiP-Ring,
SiP-OCS and the electrical baselines side by side; what each buys in training time, per dollar and per watt;
the validation table; and the assumptions that move the answer most."""

from __future__ import annotations

import math
from pathlib import Path

from sipml.render import Report, Table

FABRICS = ("sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "fattree-200", "fattree-400", "ideal")
TRAINING = ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "fattree-400")
BASELINES = ("fattree-200", "dgx-a100")
MODELS = ("resnet-50", "transformer-big", "gpt2-355m", "gpt3-175b")  # SiP-ML's three and a modern large model
SENSITIVITY_MODEL = "gpt2-355m"


def _link_section():
    from sipml.design import load_design
    from sipml.quantities import Reading
    from sipml.reports import reported
    from workloads.evaluation import Evaluation

    design = load_design("sip-ring")
    est = Evaluation(design).link
    rows = [("capacity per GPU per direction", f"{est.capacity_bps / 1e9:.0f}", "Gbps"),
            ("binding limit", est.binding_limit, ""), ("margin", f"{est.margin_db:.2f}", "dB"),
            ("max wavelengths per fiber", str(est.max_wavelengths_per_fiber), ""),
            ("energy per bit (Tx + Rx)", f"{est.total_energy_j_per_bit * 1e12:.2f}", "pJ/bit"),
            ("laser power per line, least that closes", f"{est.min_laser_power_per_line_dbm:.2f}", "dBm")]
    data = reported(Reading(link=est), ("capacity_gbps", "binding_limit", "margin_db", "max_wavelengths_per_fiber",
                                        "energy_pj_per_bit"), {"binding_limit": est.binding_limit})
    return data, Table("The optical link (SiP-ML's interface, the sip-ring design)", ["quantity", "value", "unit"],
                       [{"quantity": q, "value": v, "unit": u} for q, v, u in rows]), design


FABRIC_ENTRY = ("design", "fabric", "feasible", "per_gpu_bandwidth_gbps", "effective_bandwidth_gbps", "degree",
                "optical_reach", "bisection_gbps", "network_cost_usd_per_gpu", "network_power_w_per_gpu",
                "cluster_cost_usd", "all_reduce_busbw_gbps", "breakdown")


def _fabric_section(catalog):
    from sipml.design import load_design
    from sipml.quantities import Reading
    from sipml.reports import reported
    from workloads.evaluation import Evaluation

    rows, data = [], []
    for name in FABRICS:
        point = Evaluation(load_design(name), catalog)
        est, summary = point.fabric, point.cost
        entry = reported(Reading(fabric=est, cost=summary), FABRIC_ENTRY, {
            "design": name, "fabric": est.kind, "feasible": est.feasible,
            "breakdown": [(line.key, line.cost_usd.typical / est.gpus, line.power_w.typical / est.gpus)
                          for line in summary.bom.lines_by_cost()]})
        data.append(entry)
        free = est.kind == "ideal"  # a reference switch: its network is not costed, not free
        priced = est.feasible and not free
        money = (lambda text: text) if priced else (lambda text: "not costed" if free else "–")
        rows.append({"design": name, "fabric": est.kind, "GPU": est.design.fabric.gpu.removeprefix("gpu."),
                     "feasible": "yes" if est.feasible else "NO",
                     "Gbps per GPU": f"{entry['per_gpu_bandwidth_gbps']:.0f}",
                     "reach hops": "–" if est.reach_hops is None else str(est.reach_hops),
                     "degree": str(est.degree), "bisection Tbps": f"{entry['bisection_gbps'] / 1e3:.1f}",
                     "all-reduce busbw Gbps": f"{entry['all_reduce_busbw_gbps']:.0f}",
                     "network USD/GPU": money(f"{entry['network_cost_usd_per_gpu']:,.0f}"),
                     "network W/GPU": money(f"{entry['network_power_w_per_gpu']:.0f}"),
                     "cluster USD": f"{entry['cluster_cost_usd']:,.0f}" if est.feasible else "–"})
    return data, Table("Fabrics side by side (1024 GPUs; all-reduce busbw at 100 MB over the whole job)",
                       list(rows[0]), rows)


def _training_section():
    from sipml.speedup_report import run_speedup

    rows, data, notes = [], [], []
    for model in MODELS:
        result, _, failures = run_speedup(list(TRAINING), model, None, None, None, None, list(BASELINES), None)
        notes += [f"{model} on {name}: {why}" for name, why in failures.items()]
        for r in result:
            if not r["feasible"]:
                continue
            data.append(r)
            versus = r["baselines"]
            rows.append({"model": model, "design": r["design"], "iteration s": f"{r['iteration_s']:.4g}",
                         "TFLOP/s per GPU": f"{r['tflops_per_gpu']:.0f}",
                         **{f"vs {b}": _triple(versus[b]) for b in BASELINES}})
    return data, Table("Training: speedup, per $, per W over each baseline (best strategy on each fabric)",
                       ["model", "design", "iteration s", "TFLOP/s per GPU", *(f"vs {b}" for b in BASELINES)],
                       rows), notes


def _triple(v) -> str:
    return "–" if v is None else f"{v['speedup']:.2f} / {v['speedup_per_dollar']:.2f} / {v['speedup_per_watt']:.2f}"


def _validation_section():
    from sipml.validation import all_cases

    cases = [c for c in all_cases() if not c.informational]
    rows = [{"group": c.group, "case": c.name, "published": (f"{c.published:g}–{c.high:g}" if c.high is not None
                                                              else f"{c.published:g}"),
             "ours": "–" if not math.isfinite(c.ours) else f"{c.ours:.4g}", "unit": c.unit,
             "ok": "yes" if c.passed else "NO"} for c in cases]
    data = {"passed": sum(c.passed for c in cases), "cases": len(cases),
            "outside": [c.name for c in cases if not c.passed]}
    return data, Table(f"Validation: {data['passed']} of {data['cases']} published cases inside their tolerance "
                       "(sipml validate for the details)", ["group", "case", "published", "ours", "unit", "ok"], rows)


SENSITIVITIES = (  # (what, --set overrides or catalog levels for low / high, designs affected)
    ("OCS port price (catalog low / high)", "price:ocs.", ("sip-ocs",)),
    ("optical I/O chiplet price (catalog low / high)", "price:sip.", ("sip-ocs", "sip-ring")),
    ("step latency of a SiP collective step (1 µs / 10 µs)", "set:step_latency", ("sip-ocs", "sip-ring")),
    ("GPU price (catalog low / high)", "price:gpu.", ("sip-ocs", "sip-ring", "fattree-200")),
)


def _sensitivity_section(catalog):
    """How much SiP-OCS's and SiP-Ring's speedup per dollar over the 200 Gbps fat-tree moves when one assumption
    spans its range, largest first."""
    import dataclasses

    from fabric.catalog import Catalog
    from sipml.design import load_design
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

    def per_dollar(design_name, sets=(), cat=catalog, base_cat=catalog):
        return compare(trained(design_name, sets, cat), trained("fattree-200", (), base_cat))["speedup_per_dollar"]

    def at_level(prefix, level):
        changed = {k: dataclasses.replace(c, price_usd=(c.price_usd[level],) * 3) if k.startswith(prefix) else c
                   for k, c in catalog.components.items()}
        return Catalog(components=changed, files=catalog.files)

    rows, data = [], []
    for design in ("sip-ocs", "sip-ring"):
        base = per_dollar(design)
        for what, how, affected in SENSITIVITIES:
            if design not in affected:
                continue
            kind, _, key = how.partition(":")
            if kind == "price":
                low_cat, high_cat = at_level(key, 0), at_level(key, 2)
                values = [per_dollar(design, cat=c, base_cat=c if "fattree-200" in affected else catalog)
                          for c in (low_cat, high_cat)]
            else:
                section = design.replace("-", "_")
                values = [per_dollar(design, [f'{section}.{key}="{v}"']) for v in ("1 us", "10 us")]
            data.append({"design": design, "assumption": what, "base": base, "low": values[0], "high": values[1]})
    data.sort(key=lambda e: -abs(e["high"] - e["low"]))
    for e in data:
        rows.append({"design": e["design"], "assumption": e["assumption"], "speedup per $": f"{e['base']:.2f}",
                     "low end": f"{e['low']:.2f}", "high end": f"{e['high']:.2f}",
                     "swing": f"{abs(e['high'] - e['low']):.2f}"})
    return data, Table(f"Assumptions that move the answer most: speedup per dollar of {SENSITIVITY_MODEL} over the "
                       "200 Gbps fat-tree", ["design", "assumption", "speedup per $", "low end", "high end", "swing"],
                       rows)


def check_plots_folder(folder) -> None:
    """Before anything is computed: InputError when --plots cannot be written (a file is in the way, no matplotlib);
    a missing folder is created, parents included, as `-o` users expect."""
    from core.errors import InputError

    folder = Path(folder)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("--plots needs matplotlib: pip install 'sipml[plots]'") from None
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--plots {folder}: not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--plots {folder}: cannot create the folder ({exc.strerror or exc})") from None


def build_report(plots: Path | None = None) -> tuple[Report, list[Path]]:
    from fabric.catalog import load_catalog

    if plots is not None:
        check_plots_folder(plots)

    catalog = load_catalog()
    link_data, link_table, design = _link_section()
    fabric_data, fabric_table = _fabric_section(catalog)
    training_data, training_table, notes = _training_section()
    validation_data, validation_table = _validation_section()
    sensitivity_data, sensitivity_table = _sensitivity_section(catalog)
    data = {"link": link_data, "fabrics": fabric_data, "training": training_data, "validation": validation_data,
            "sensitivity": sensitivity_data}
    footer = ["SiP-ML (Khani et al., SIGCOMM 2021) claims 1.3–9.1× faster training than electrical networks; the "
              "training table gives this model's answer for SiP-ML's three workloads and a modern large model.",
              "speedup per $ and per W: throughput per cluster dollar (per nameplate watt) over the baseline's.",
              *notes]
    written = write_plots(plots, design, fabric_data, training_data) if plots is not None else []
    tables = [link_table, fabric_table, training_table, validation_table, sensitivity_table]
    return Report(data, tables, footer + [f"plot: {p}" for p in written]), written


def write_plots(folder: Path, design, fabric_data, training_data) -> list[Path]:
    """The figures of the story, as PNG files in `folder` (written atomically): margin against wavelengths per
    fiber; network cost and power per GPU by component; speedup and speedup per $ and per W by fabric."""
    import dataclasses

    from core.errors import InputError

    try:
        import matplotlib
    except ImportError:
        raise InputError("--plots needs matplotlib: pip install 'sipml[plots]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from photonics.link import evaluate
    from sipml.render import write_atomic_bytes

    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"--plots {folder}: not a folder")
    out = []

    def save(fig, name):
        import io

        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
        plt.close(fig)
        path = folder / name
        write_atomic_bytes(path, buf.getvalue())
        out.append(path)

    counts = list(range(1, 17))
    margins = [evaluate(dataclasses.replace(design.link, link=dataclasses.replace(design.link.link,
                                                                                  wavelengths_per_fiber=n))).margin_db
               for n in counts]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(counts, margins, marker="o")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set(xlabel="wavelengths per fiber", ylabel="margin (dB)", title="Link margin of the sip-ring interface")
    save(fig, "margin_vs_wavelengths.png")

    for what, index, unit in (("cost", 1, "USD per GPU"), ("power", 2, "W per GPU")):
        fig, ax = plt.subplots(figsize=(8, 4.5))
        ax.set_prop_cycle(color=plt.cm.tab20.colors)
        names = [f["design"] for f in fabric_data]
        keys = sorted({k for f in fabric_data for k, *_ in f["breakdown"] if not k.startswith(("gpu.", "server."))})
        bottom = [0.0] * len(names)
        for key in keys:
            values = [next((line[index] for line in f["breakdown"] if line[0] == key), 0.0) for f in fabric_data]
            if any(values):
                ax.bar(names, values, bottom=bottom, label=key)
                bottom = [b + v for b, v in zip(bottom, values)]
        ax.set(ylabel=unit, title=f"Network {what} per GPU by component")
        ax.tick_params(axis="x", rotation=30)
        ax.legend(fontsize=6, ncol=2)
        save(fig, f"network_{what}_per_gpu.png")

    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=False)
    models = sorted({r["model"] for r in training_data})
    designs = sorted({r["design"] for r in training_data})
    width = 0.8 / max(len(designs), 1)
    for ax, key, label in zip(axes, ("speedup", "speedup_per_dollar", "speedup_per_watt"),
                              ("speedup", "speedup per $", "speedup per W")):
        for j, d in enumerate(designs):
            ys = [next((r[key] for r in training_data if r["model"] == m and r["design"] == d), 0.0) or 0.0
                  for m in models]
            ax.bar([i + j * width for i in range(len(models))], ys, width, label=d)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(models))], models, rotation=20, fontsize=7)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set(title=f"{label} over {BASELINES[0]}")
    axes[0].legend(fontsize=7)
    save(fig, "speedup_by_fabric.png")
    return out
