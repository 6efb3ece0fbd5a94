"""`sipml explain QUANTITY [DESIGN]`: where one reported number comes from and which input moves it most.

A quantity is any number `budget`, `fabric`, `cost` or `speedup` reports under its JSON key. The explanation gives
its formula, the same formula with the design's numbers, and its sensitivities, ranked by the swing:

- each design input that has an effect in the design (a sweepable field of `sipml fields`) is moved by ±10 % (a
  count by ±1) and the quantity recomputed through the whole model: the swing, ∂quantity/∂input at the design
  point (central difference, SI units of the input), the elasticity (% change per % change) and the input's source;
- for quantities with a price in them, each catalog component the design uses is set to its low and its high
  price (the catalog's range) with the others typical.

Inputs a step would take out of their declared range, or that make the design refuse the step (a count that no
longer divides the cluster, say), are left out and counted.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

STEP = 0.10  # relative step of a continuous input, both ways
TOP = 15  # sensitivity rows shown

LINK_QUANTITIES = ("margin_db", "capacity_gbps", "max_capacity_gbps", "max_wavelengths_per_fiber",
                   "symbol_rate_gbd", "laser_power_per_line_dbm", "min_laser_power_per_line_dbm", "max_fiber_length_m",
                   "max_switch_passes", "energy_pj_per_bit", "total_energy_pj_per_bit", "io_power_w",
                   "total_io_power_w", "escape_fibers_per_direction", "shoreline_tbps_per_mm")
FABRIC_QUANTITIES = ("per_gpu_bandwidth_gbps", "effective_bandwidth_gbps", "useful_time_fraction", "degree",
                     "bisection_gbps", "optical_reach", "all_reduce_s")
COST_QUANTITIES = ("network_cost_usd_per_gpu", "network_power_w_per_gpu", "cluster_cost_usd", "cluster_power_w",
                   "network_cost_share", "scale_out_cost_share", "gpu_cost_share", "all_reduce_busbw_gbps")
TRAINING_QUANTITIES = ("speedup", "speedup_per_dollar", "speedup_per_watt", "iteration_s", "tflops_per_gpu", "mfu",
                       "throughput")
QUANTITIES = (*LINK_QUANTITIES, *FABRIC_QUANTITIES, *COST_QUANTITIES, *TRAINING_QUANTITIES)
PRICED = set(COST_QUANTITIES) | {"speedup_per_dollar"}

FORMULAS = {
    "margin_db": "margin = P_launch − Σ losses − Σ penalties − S − M_sys (dB, dBm; E9–E10): the worst wavelength's "
                 "received power above the receiver's sensitivity after penalties and the reserved margin",
    "capacity_gbps": "C = min(N_λ limits) · R_payload · min(fibers) per direction (E14); R_payload = R·k/n with FEC, "
                     "0 when a ring or the source cannot pass the symbol rate (E13)",
    "max_capacity_gbps": "C_max = N_λ,max · R_payload · fibers, the design's own counts lifted",
    "max_wavelengths_per_fiber": "N_max = min(channels per FSR, laser lines, largest N whose budget closes) (E10)",
    "energy_pj_per_bit": "E = (laser wall-plug + modulator/driver + receiver + tuning power) / capacity (E32)",
    "total_energy_pj_per_bit": "E_total = optical link + electrical side (die-to-die, SerDes/DSP) + fabric adders",
    "optical_reach": "reach = 1 + ⌊(margin of the neighbour link) / (loss of passing one GPU)⌋ hops (SiP-Ring; with "
                     "amplifiers the Q at the destination sets it)",
    "network_cost_usd_per_gpu": "Σ over network components of count per GPU × typical price",
    "cluster_cost_usd": "GPUs × (GPU + host + network per GPU), typical prices",
    "speedup": "speedup = T_iteration(baseline) / T_iteration(design), each at its best strategy, same model and batch",
    "speedup_per_dollar": "(throughput / cluster cost) / (throughput / cluster cost) of the baseline",
    "speedup_per_watt": "(throughput / nameplate power) / (the baseline's)",
    "iteration_s": "T = m·t_stage + (p − 1)/v·t_stage + exposed DP reduction + optimizer (best strategy)",
}


def symbolic_formula(name: str):
    """The quantity's formula as a sympy equation (the same as FORMULAS' text, terms in its order), or None."""
    import sympy as sp

    sym = lambda text: sp.Symbol(text, positive=True)  # noqa: E731
    add = lambda *terms: sp.Add(*terms, evaluate=False)  # noqa: E731
    frac = lambda a, b: sp.Mul(a, sp.Pow(b, -1, evaluate=False), evaluate=False)  # noqa: E731
    n_fsr, n_lines, n_budget, n_req = (sym(t) for t in (r"N_{\mathrm{FSR}}", r"N_{\mathrm{lines}}",
                                                        r"N_{\mathrm{budget}}", r"N_{\mathrm{req}}"))
    rate, payload, capacity, t_iter = sym("R"), frac(sym("k"), sym("n")), sym("C"), sym("T")
    throughput, x_b = sym("X"), sym(r"X_{\mathrm{baseline}}")
    optical = add(*(sym(rf"P_{{\mathrm{{{part}}}}}") for part in ("laser", "mod", "rx", "tune")))
    i = sp.Symbol("i", integer=True)
    forms = {
        "margin_db": (sym(r"\mathrm{margin}"), add(sym(r"P_{\mathrm{launch}}"), -sym(r"\Sigma IL"), -sym(r"\Sigma PP"),
                                                  -sym("S"), -sym(r"M_{\mathrm{sys}}"))),
        "capacity_gbps": (capacity, sp.Min(n_fsr, n_lines, n_budget, n_req) * rate * payload
                          * sp.Min(sym("F"), sym(r"F_{\mathrm{escape}}"))),
        "max_capacity_gbps": (sym(r"C_{\max}"), sym(r"N_{\max}") * rate * payload * sym(r"F_{\mathrm{escape}}")),
        "max_wavelengths_per_fiber": (sym(r"N_{\max}"), sp.Min(n_fsr, n_lines, n_budget)),
        "energy_pj_per_bit": (sym("E"), frac(optical, capacity)),
        "total_energy_pj_per_bit": (sym(r"E_{\mathrm{total}}"), add(frac(optical, capacity), sym(r"E_{\mathrm{d2d}}"),
                                                                      sym(r"E_{\mathrm{DSP}}"),
                                                                      sym(r"E_{\mathrm{fabric}}"))),
        "optical_reach": (sym("h"), add(1, sp.floor(sym(r"m_{\mathrm{neighbour}}") / sym(r"L_{\mathrm{pass}}")))),
        "network_cost_usd_per_gpu": (sym(r"c_{\mathrm{net}}"),
                                     sp.Sum(sp.IndexedBase("n")[i] * sp.IndexedBase("p")[i], (i, 1, sym("K")))),
        "cluster_cost_usd": (sym(r"\$_{\mathrm{cluster}}"), sym("G") * add(sym(r"p_{\mathrm{GPU}}"),
                                                                         sym(r"p_{\mathrm{host}}"),
                                                                         sym(r"c_{\mathrm{net}}"))),
        "speedup": (sym("s"), frac(sym(r"T_{\mathrm{baseline}}"), t_iter)),
        "speedup_per_dollar": (sym(r"s_{\$}"), (throughput / sym(r"\$")) / (x_b / sym(r"\$_{\mathrm{baseline}}"))),
        "speedup_per_watt": (sym(r"s_{W}"), (throughput / sym("W")) / (x_b / sym(r"W_{\mathrm{baseline}}"))),
        "iteration_s": (t_iter, add(sym("m") * sym(r"t_{\mathrm{stage}}"),
                                    sp.Mul(frac(add(sym("p"), -1), sym("v")), sym(r"t_{\mathrm{stage}}"), evaluate=False),
                                    sym(r"T_{\mathrm{DP}}"), sym(r"T_{\mathrm{opt}}"))),
    }
    if name not in forms:
        return None
    lhs, rhs = forms[name]
    return sp.Eq(lhs, rhs, evaluate=False)


def formula_latex(name: str) -> str:
    """LaTeX of `symbolic_formula(name)` ('' for a quantity without one)."""
    import sympy as sp

    eq = symbolic_formula(name)
    return "" if eq is None else sp.latex(eq, order="none")


@dataclass(frozen=True)
class Sensitivity:
    section: str
    key: str
    unit: str
    value: float
    shown: str  # the input's value as the design file writes it
    low: float  # the quantity with the input at its low step
    high: float
    derivative: float | None  # ∂quantity/∂input, SI units of the input
    elasticity: float | None
    source: str

    @property
    def swing(self) -> float:
        return abs(self.high - self.low)


def check_quantity(name: str) -> None:
    from core.errors import InputError
    from core.errors import did_you_mean

    if name not in QUANTITIES:
        raise InputError(f"explain: unknown quantity {name!r}{did_you_mean(name, QUANTITIES)}; known: "
                         f"{', '.join(QUANTITIES)}")


class Evaluator:
    """quantity(point) for one quantity, `point` a `workloads.evaluation.Evaluation` (or a design, evaluated
    here); the baseline of a training quantity is evaluated once per job size and catalog."""

    def __init__(self, name: str, model: str, baseline: str):
        from fabric.catalog import load_catalog

        self.name, self.catalog = name, load_catalog()
        self.model_name, self.baseline_name, self._baselines = model, baseline, {}

    def point(self, design, catalog=None):
        from workloads.evaluation import Evaluation

        return design if isinstance(design, Evaluation) else Evaluation(design, catalog or self.catalog)

    def __call__(self, design, catalog=None) -> float:
        point = self.point(design, catalog)
        if self.name in LINK_QUANTITIES:
            return _number(_link_data(point)[self.name])
        if self.name in FABRIC_QUANTITIES:
            return _fabric_number(point.fabric, self.name)
        if self.name in COST_QUANTITIES:
            from sipml.reports import cost_data

            return _number(cost_data("", point.fabric, point.cost)[self.name])
        return self._training(point)

    def _training(self, point) -> float:
        from workloads.models import load_model
        from workloads.speedup import compare, default_batch

        model = load_model(self.model_name)
        batch, _ = default_batch(model, point.cluster.job_gpus)
        result = point.training(model, batch, top=1)
        if self.name in ("iteration_s", "tflops_per_gpu", "mfu", "throughput"):
            return {"iteration_s": result.best.iteration_s, "tflops_per_gpu": result.tflops_per_gpu,
                    "mfu": result.mfu, "throughput": result.throughput}[self.name]
        return compare(result, self._baseline(model, point, batch))[self.name]

    def _baseline(self, model, point, batch):
        """The baseline at the point's size, priced from the point's catalog: its fabric evaluated once per size,
        its training once per catalog."""
        from sipml.design import load_design
        from workloads.evaluation import Evaluation

        gpus = point.cluster.fabric.gpus
        if gpus not in self._baselines:
            base = load_design(self.baseline_name, [f"fabric.gpus={gpus}"])
            self._baselines[gpus] = Evaluation(base, self.catalog)
        base = self._baselines[gpus]
        if point.catalog is not base.catalog:
            base = base.priced(point.catalog)
        return base.training(model, batch, name=self.baseline_name, top=1)


def _number(value) -> float:
    return float("nan") if value is None else float(value)


def _link_data(point) -> dict:
    from core.errors import InputError
    from sipml.reports import budget_data

    if point.link_design is None:
        raise InputError(f"[fabric] kind = '{point.design.fabric.kind}' has no optical link")
    return budget_data(point.link, "")


def _fabric_number(fab, name: str) -> float:
    if name == "optical_reach":
        return float("nan") if fab.reach_hops is None else float(fab.reach_hops)
    if name == "all_reduce_s":
        from fabric.evaluate import job_collectives

        return float(job_collectives(fab, fab.design.fabric.message_size)["all_reduce"].seconds)
    scale = 1e-9 if name.endswith("_gbps") else 1.0
    attr = {"per_gpu_bandwidth_gbps": "per_gpu_bandwidth_bps", "effective_bandwidth_gbps": "effective_bandwidth_bps",
            "bisection_gbps": "bisection_bps", "useful_time_fraction": "useful_fraction", "degree": "degree"}[name]
    return float(getattr(fab, attr)) * scale


def with_value(design, section: str, key: str, value):
    """The design with [section] key = value (validated as on construction)."""
    from fabric.design import ClusterDesign
    from photonics.design import SECTIONS

    if section in SECTIONS:
        part = dataclasses.replace(getattr(design.link, section), **{key: value})
        return dataclasses.replace(design, link=dataclasses.replace(design.link, **{section: part}))
    if section == "fabric":
        return dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, **{key: value}))
    return ClusterDesign(link=design.link, fabric=design.fabric, topology=dataclasses.replace(design.topology,
                                                                                              **{key: value}),
                         has_fabric=design.has_fabric)


def _steps(spec, value):
    """(low, high) inputs around `value`: ±1 for a count, ±1 dB for a ratio in decibels, ±STEP relative otherwise;
    None for a continuous input at zero, which has no scale to step by."""
    if spec.integer:
        return value - 1, value + 1
    if spec.unit.startswith("dB"):  # dB, dBm, dB/Hz: a logarithmic input steps by ±1 dB
        return value - 1.0, value + 1.0
    if value == 0:
        return None
    return value * (1 - STEP), value * (1 + STEP)


def design_sensitivities(design, evaluate, base: float) -> tuple[list[Sensitivity], int]:
    """Sensitivity of the quantity to every design input with an effect; and how many inputs were left out."""
    from core.errors import SipmlError
    from core.fields import specs
    from sipml.design import ALL_SECTIONS, key_applies, section_of

    rows, skipped = [], 0
    for section, cls in ALL_SECTIONS.items():
        holder = section_of(design, section)
        for key, spec in specs(cls).items():
            if not spec.sweepable or not key_applies(design, section, key):
                continue
            value = getattr(holder, key)
            steps = None if isinstance(value, str) or not math.isfinite(value) else _steps(spec, value)
            if steps is None:
                continue
            try:
                lo_in, hi_in = (type(value)(v) for v in steps)  # a wavelength span stays a span
                low = evaluate(with_value(design, section, key, lo_in))
                high = evaluate(with_value(design, section, key, hi_in))
            except (SipmlError, ZeroDivisionError, OverflowError, ValueError):
                skipped += 1
                continue
            if not (math.isfinite(low) and math.isfinite(high)) or (low == base == high):
                continue
            dx = float(hi_in) - float(lo_in)
            derivative = (high - low) / dx if dx else None
            logarithmic = spec.unit.startswith("dB")  # a step in dB is already relative: no elasticity
            elasticity = (derivative * float(value) / base if derivative is not None and base and value
                          and not logarithmic else None)
            default = next(f.default for f in dataclasses.fields(cls) if f.name == key)
            source = spec.source if value == default else f"this design (default {spec.default_text}: {spec.source})"
            rows.append(Sensitivity(section, key, spec.unit, float(value), spec.show(value), low, high, derivative,
                                    elasticity, source))
    return rows, skipped


def price_sensitivities(point, evaluate) -> list[Sensitivity]:
    """The quantity with each catalog component the design's bill uses at its low and high price (the link and
    the fabric carry over: only the bill is priced again)."""
    from fabric.catalog import Catalog

    catalog = point.catalog
    keys = [line.key for line in point.cost.bom.lines_by_cost()]
    rows = []
    for key in dict.fromkeys(keys):
        component = catalog[key]
        levels = []
        for level in (0, 2):
            changed = dict(catalog.components)
            changed[key] = dataclasses.replace(component, price_usd=(component.price_usd[level],) * 3)
            levels.append(evaluate(point.priced(Catalog(components=changed, files=catalog.files))))
        low, high = levels
        if low == high:
            continue
        rows.append(Sensitivity("catalog", key, "USD", component.price_usd[1], f"{component.price_usd[1]:,.0f} USD",
                                low, high, None, None, f"{component.source} {component.tag}"))
    return rows


def explain_quantity(name: str, design, source: str, model: str = "gpt2-355m", baseline: str = "fattree-200"):
    """The report of `sipml explain QUANTITY DESIGN`."""
    from sipml.render import Report, Table

    check_quantity(name)
    evaluate = Evaluator(name, model, baseline)
    point = evaluate.point(design)
    base = evaluate(point)
    rows, skipped = design_sensitivities(design, evaluate, base)
    if name in PRICED:
        rows += price_sensitivities(point, evaluate)
    rows.sort(key=lambda r: -r.swing)
    context = f" ({model} over {baseline})" if name in TRAINING_QUANTITIES else ""
    latex = formula_latex(name)
    data = {"quantity": name, "design": source, "value": base, "formula": FORMULAS.get(name, ""),
            "formula_latex": latex,
            "numbers": _numbers(name, point), "step": STEP,
            "sensitivities": [{"section": r.section, "key": r.key, "unit": r.unit, "value": r.value,
                               "shown": r.shown, "low": r.low,
                               "high": r.high, "swing": r.swing, "derivative": r.derivative,
                               "elasticity": r.elasticity, "source": r.source} for r in rows],
            "inputs_left_out": skipped}
    header = Table(f"{name} of {source}{context}", ["quantity", "value"], [
        {"quantity": name, "value": f"{base:.6g}"},
        *({"quantity": "formula", "value": FORMULAS[name]} for _ in [0] if name in FORMULAS)])
    tables = [header]
    if data["numbers"]:
        tables.append(Table("With this design's numbers", ["term", "value", "unit"], data["numbers"]))
    shown = [{"input": f"[{r.section}] {r.key}", "value": r.shown,
              "quantity at −/+": f"{r.low:.4g} … {r.high:.4g}", "swing": f"{r.swing:.3g}",
              "sensitivity": _sensitivity_text(r), "source": r.source} for r in rows[:TOP]]
    tables.append(Table(f"What moves it most (design inputs ±{STEP:.0%}, dB inputs ±1 dB, counts ±1; catalog "
                        "prices low … high)", ["input", "value", "quantity at −/+", "swing", "sensitivity", "source"],
                        shown))
    notes = [f"{len(rows)} inputs move it (the {min(TOP, len(rows))} largest shown; all in the JSON); {skipped} could "
             "not take the step (out of range, or refused by the design's rules).",
             "sensitivity: % change of the quantity per % change of the input (elasticity); per dB for inputs in dB."]
    return Report(data, tables, notes, equations=[latex] if latex else [])


def _sensitivity_text(row: Sensitivity) -> str:
    if row.elasticity is not None:
        return f"{row.elasticity:+.3g} %/%"
    if row.derivative is not None:
        return f"{row.derivative:+.3g} /dB"
    return ""


def _numbers(name: str, point) -> list[dict]:
    """The formula's terms with this design's numbers, for the quantities whose terms the reports carry."""
    design = point.design
    if name == "margin_db":
        data = _link_data(point)
        rows = [{"term": r["name"], "value": f"{r['value']:+.2f}", "unit": r["unit"]} for r in data["ledger"]]
        if rows and rows[-1]["term"] != "margin":
            rows.append({"term": "margin", "value": f"{data['margin_db']:+.2f}", "unit": "dB"})
        return rows
    if name == "capacity_gbps":
        data = _link_data(point)
        rows = [{"term": f"limit: {k}", "value": f"{v:.4g}", "unit": "Gbps"} for k, v in data["limits_gbps"].items()]
        return rows + [{"term": f"binding: {data['binding_limit']}", "value": f"{data['capacity_gbps']:.4g}",
                        "unit": "Gbps"}]
    if name == "optical_reach" and design.fabric.kind == "sip-ring":
        fab = point.fabric
        ring = fab.details
        rows = [{"term": "neighbour link margin", "value": f"{ring.neighbour_margin_db:.3f}", "unit": "dB"},
                {"term": "loss of passing one GPU", "value": f"{ring.pass_loss_db:.3f}", "unit": "dB"},
                {"term": "unamplified reach 1 + ⌊margin / pass loss⌋", "value": str(ring.unamplified_reach_hops),
                 "unit": "hops"},
                {"term": "amplifiers in the cluster", "value": str(ring.amplifiers), "unit": ""}]
        return rows + [{"term": "reach", "value": str(fab.reach_hops), "unit": "hops"}]
    if name in ("speedup", "speedup_per_dollar", "speedup_per_watt", "iteration_s"):
        return []  # the training breakdown is `sipml speedup`'s
    if name == "network_cost_usd_per_gpu":
        bom = point.cost.bom
        return [{"term": f"{line.key} × {line.count_per_gpu:g}", "value": f"{line.cost_usd.typical / design.fabric.gpus:,.0f}",
                 "unit": "USD per GPU"} for line in bom.lines_by_cost() if line.network]
    return []
