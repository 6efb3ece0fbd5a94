"""`sipml explain QUANTITY [DESIGN]`: where one reported number comes from and which input moves it most.

A quantity is any number of the quantity table (`sipml.quantities`), by its JSON key. The explanation gives
its formula, the same formula with the design's numbers, and its sensitivities, largest move first:

- each design input that has an effect in the design (a sweepable field of `sipml fields`) is moved by ±10 % (a
  count by ±1, a level or ratio in dB by ±1 dB; a continuous input's step stops at its declared range) and the
  quantity recomputed through the whole model: the swing, ∂quantity/∂input at the design point (central
  difference, SI units of the input), the elasticity (% change per % change) and the input's source;
- for quantities with a price in them, each catalog component the design uses is set to its low and its high
  price (the catalog's range) with the others typical.

Inputs a step would take out of their declared range (a count below 0), or that make the design refuse the step (a
count that no longer divides the cluster, say), are left out and listed with why.
"""

from __future__ import annotations

import dataclasses
import math

from core.records import record
from sipml import quantities
from sipml.quantities import PRICED_KEYS, QUANTITIES, Reading

STEP = 0.10  # relative step of a continuous input, both ways
# units of a level or a ratio in decibels, stepped ±1 dB; a loss per length (dB/m) is a coefficient, stepped ±STEP
LOGARITHMIC = ("dB", "dBm", "dB/Hz")
TOP = 15  # sensitivity rows shown


def priced(name: str) -> bool:
    """Whether a catalog price moves the quantity (the bill's, and speedup per dollar)."""
    return QUANTITIES[name].stage == "cost" or name == "speedup_per_dollar"


# [assumed] a step that moves the quantity by less than this part of it moves only the rounding of its arithmetic
# (a ring radius that leaves the worst channel where it was: 4e-16 dB of a 3.6 dB margin): the same value
ROUNDING = 1e-12


@record(slots=False)
class Sensitivity:
    """How a quantity moves with one design input: the value, its low and high steps, derivative, elasticity."""
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
    no_value_at: str | None = None  # "low" or "high": the step where the quantity has none (one-sided: `low` or
    # `high` is then the design's own value)
    low_input: float = math.nan  # the input at the low step (SI; a catalog price at its low), the design's own
    high_input: float = math.nan  # value where that step has no value or the input is at its bound
    stopped: str = ""  # the steps as the design file writes them, where one stopped at the field's range

    @property
    def swing(self) -> float:
        return abs(self.high - self.low)


def check_quantity(name: str) -> None:
    from core.errors import InputError

    try:
        quantities.check_quantity(name)
    except InputError as exc:
        raise InputError(f"explain: {exc}") from None


class Evaluator:
    """quantity(point) for one quantity, `point` a `workloads.evaluation.Evaluation` (or a design, evaluated
    here); the baseline of a training quantity is evaluated once per job size and catalog. `catalog`: the one to
    price with (None: the shipped one); `gpus`: the GPUs to find a design's among (None: the shipped ones); `batch`:
    the global batch a training quantity is computed at (None: the model's default for the job, as `sipml speedup`
    takes it)."""

    def __init__(self, name: str, model: str, baseline: str, catalog=None, gpus=None, strategy: str | None = None,
                 batch: int | None = None):
        from fabric.catalog import load_catalog
        from workloads.strategy import parse_strategy

        self.name, self.catalog, self.gpus = name, catalog or load_catalog(), gpus
        self.fixed = parse_strategy(strategy)  # `sipml speedup --strategy`'s: fixed parts, the rest searched
        self.quantity = QUANTITIES[name]
        self.batch = batch
        self.model_name, self.baseline_name, self._baselines = model, baseline, {}
        self._links: dict = {}  # the link estimates of the points evaluated so far, by link design (share_link)

    def point(self, design, catalog=None):
        from workloads.evaluation import Evaluation

        return design if isinstance(design, Evaluation) else Evaluation(design, catalog or self.catalog, self.gpus)

    def __call__(self, design, catalog=None) -> float:
        """The quantity at `design`; points whose link is the same (an input off the link changed) evaluate it
        once, when their readings first ask for it."""
        point = self.point(design, catalog)
        point.share_link(self._links, evaluate=False)
        value = self.quantity.value(self.reading(point))
        point.share_link(self._links, evaluate=False)
        return _number(value)

    def reading(self, point) -> Reading:
        """The point as the quantity table reads it (its training against the baseline for a training
        quantity)."""
        if self.quantity.stage == "link" and point.link_design is None:
            from core.errors import InputError

            raise InputError(f"{self.name}: [fabric] kind = '{point.design.fabric.kind}' has no optical link")
        if self.quantity.stage != "training":
            return Reading.of(point)
        from workloads.models import load_model
        from workloads.speedup import default_batch

        model = load_model(self.model_name)
        batch = self.batch if self.batch is not None else default_batch(model, point.cluster.job_gpus)[0]
        return Reading.of(point, point.training(model, batch, self.fixed, top=1), self._baseline(model, point, batch))

    def baselines(self) -> list:
        """The baselines' evaluations read so far (one per cluster size and GPU; none for a quantity without one)."""
        return list(self._baselines.values())

    def _baseline(self, model, point, batch):
        """The baseline as `sipml speedup` measures the point against it — the point's cluster and job size, its
        GPU and server host — priced from the point's catalog: its fabric evaluated once per size, its training once
        per catalog."""
        from sipml.speedup_report import measured_baseline, run_key
        from workloads.evaluation import Evaluation

        fab = point.cluster.fabric
        key = run_key(point.cluster)
        if key not in self._baselines:
            sizes = [f"fabric.gpus={fab.gpus}"] + ([f"fabric.job_gpus={point.cluster.job_gpus}"]
                                                  if point.cluster.job_gpus < fab.gpus else [])
            self._baselines[key] = Evaluation(measured_baseline(self.baseline_name, point.cluster, sizes, None),
                                              self.catalog, self.gpus)
        base = self._baselines[key]
        if point.catalog is not base.catalog:
            base = base.priced(point.catalog)
        from workloads.speedup import baseline_training

        return baseline_training(base, model, batch, self.fixed, name=self.baseline_name, top=1)[0]


def _number(value) -> float:
    return float("nan") if value is None else float(value)


def with_value(design, section: str, key: str, value):
    """The design with [section] key = value (validated as on construction)."""
    from fabric.cluster_design import ClusterDesign
    from photonics.link_design import SECTIONS

    if section in SECTIONS:
        part = dataclasses.replace(getattr(design.link, section), **{key: value})
        return dataclasses.replace(design, link=dataclasses.replace(design.link, **{section: part}))
    if section in ("fabric", "reliability"):
        return dataclasses.replace(design, **{section: dataclasses.replace(getattr(design, section), **{key: value})})
    return ClusterDesign(link=design.link, fabric=design.fabric, topology=dataclasses.replace(design.topology,
                                                                                              **{key: value}),
                         reliability=design.reliability, has_fabric=design.has_fabric)


def _steps(spec, value):
    """(low, high) inputs around `value`: ±1 for a count (from 1, 1 and 2: many counts read 0 as none — no
    amplifiers, no spares — so a step to it measures a switch, not a slope), ±1 dB for a level or ratio in decibels
    (LOGARITHMIC) and an optical power (`Spec.level`, in W), ±STEP relative otherwise; None for a continuous input
    at zero, which has no scale to step by. The rule's steps: `_inside` stops a continuous input's at the field's
    range."""
    if spec.integer:
        return (value, value + 1) if value == 1 else (value - 1, value + 1)
    if spec.unit in LOGARITHMIC:
        return value - 1.0, value + 1.0
    if value == 0:
        return None
    if spec.level:  # an optical power: ±1 dB
        return value * 10 ** -0.1, value * 10 ** 0.1
    return value * (1 - STEP), value * (1 + STEP)


def _shown(spec, value) -> str:
    """An input as the table shows it: an optical power as a level in dBm (it steps in dB), the rest as the design
    file writes them."""
    if spec.level and value > 0 and math.isfinite(value):
        return f"{10 * math.log10(value / 1e-3):.4g} dBm"
    return spec.show(value)


def _inside(spec, value: float, step: float) -> float:
    """`step` within the field's declared range: at a closed bound it passes, half-way from `value` to an open one
    (a 0.02 dB bend loss steps to 0 and 1.02 dB; one at its bound steps one way)."""
    if spec.lo is not None and (step < spec.lo or (spec.lo_open and step <= spec.lo)):
        return 0.5 * (value + spec.lo) if spec.lo_open else float(spec.lo)
    if spec.hi is not None and (step > spec.hi or (spec.hi_open and step >= spec.hi)) and not math.isinf(value):
        return 0.5 * (value + spec.hi) if spec.hi_open else float(spec.hi)
    return step


def design_sensitivities(design, evaluate, base: float) -> tuple[list[Sensitivity], list[dict]]:
    """Sensitivity of the quantity to every design input with an effect (one-sided where one step leaves the quantity
    without a value); and the inputs left out, each `{section, key, why}`: a step the field's range or the design's
    rules refuse, or both steps without a value."""
    from core.errors import SipmlError
    from core.fields import specs
    from sipml.design_files import ALL_SECTIONS, key_applies, section_of

    rows, skipped = [], []
    for section, cls in ALL_SECTIONS.items():
        holder = section_of(design, section)
        taken = holder.followed(design) if hasattr(holder, "followed") else {}  # e.g. the server's NVLink
        for key, spec in specs(cls).items():
            if not spec.sweepable or not key_applies(design, section, key):
                continue
            followed = key in taken  # a setting at 0 that takes its value elsewhere: stepped around that value
            value = taken[key] if followed else getattr(holder, key)
            rule = None if isinstance(value, str) or not math.isfinite(value) else _steps(spec, value)
            if rule is None:
                continue
            steps = rule if spec.integer else tuple(_inside(spec, value, step) for step in rule)
            try:
                lo_in, hi_in = (type(value)(v) for v in steps)  # a wavelength span stays a span
                low = base if lo_in == value else _at_step(evaluate, with_value(design, section, key, lo_in))
                high = base if hi_in == value else _at_step(evaluate, with_value(design, section, key, hi_in))
            except (SipmlError, ZeroDivisionError, OverflowError, ValueError) as exc:
                skipped.append({"section": section, "key": key, "why": str(exc).splitlines()[0] if str(exc) else
                                type(exc).__name__})
                continue
            missing, bounded = None, value in (lo_in, hi_in)
            if not math.isfinite(low):  # one side without a value (a step off the design's feasible edge): the other
                lo_in, low, missing = value, base, "low"
            if not math.isfinite(high):
                hi_in, high, missing = value, base, "high"
            if lo_in == hi_in:  # no step with a value: only the design's own
                one = "a count at 1 steps to 2 only" if spec.integer else "the input is at its range's bound"
                skipped.append({"section": section, "key": key, "why": (
                    f"no {evaluate.name} at its one step (the design cannot be built or trained there; {one})"
                    if bounded else f"no {evaluate.name} at either step (the design cannot be built or trained "
                                    "there)")})
                continue
            low, high = (base if abs(q - base) <= ROUNDING * max(abs(base), abs(q)) else q for q in (low, high))
            if low == base == high:
                continue
            # an optical power's slope per dB of it, as a level's
            dx = 10 * math.log10(hi_in / lo_in) if spec.level else float(hi_in) - float(lo_in)
            derivative = (high - low) / dx if dx else None
            logarithmic = spec.unit in LOGARITHMIC or spec.level  # a step in dB is already relative: no elasticity
            # relative to |quantity|, so the sign says which way the quantity moves even where it is negative
            elasticity = (derivative * float(value) / abs(base) if derivative is not None and base and value
                          and not logarithmic else None)
            default = next(f.default for f in dataclasses.fields(cls) if f.name == key)
            source = (spec.source if value == default or followed else
                      f"this design (default {spec.default_text}: {spec.source})")
            stopped = f"{_shown(spec, steps[0])} … {_shown(spec, steps[1])}" if steps != rule else ""
            rows.append(Sensitivity(section, key, spec.unit, float(value), _shown(spec, value), low, high, derivative,
                                    elasticity, source, missing, float(lo_in), float(hi_in), stopped))
    return rows, skipped


def _at_step(evaluate, design) -> float:
    """The quantity at a stepped design; NaN where it has none because the design cannot be built or trained there
    (the step is then one-sided), an error where the step itself is refused (out of range, the design's rules)."""
    from core.errors import InfeasibleDesign

    try:
        return evaluate(design)
    except InfeasibleDesign:
        return math.nan


def price_sensitivities(point, evaluate) -> list[Sensitivity]:
    """The quantity with each catalog component the design's bill uses (and its baseline's, for a quantity measured
    against one) at its low and high price (the link and the fabric carry over: only the bills are priced again)."""
    from fabric.catalog import Catalog

    catalog = point.catalog
    keys = [line.key for line in point.cost.bom.lines_by_cost()]
    for base in evaluate.baselines():  # a baseline's parts move a speedup per $ too
        keys += [line.key for line in base.cost.bom.lines_by_cost()]
    rows = []
    for key in dict.fromkeys(keys):
        component = catalog[key]
        levels = []
        for level in (0, 2):
            changed = dict(catalog.components)
            changed[key] = dataclasses.replace(component, price_usd=(component.price_usd[level],) * 3)
            levels.append(evaluate(point.priced(Catalog(components=changed, files=catalog.files, rates=catalog.rates))))
        low, high = levels
        if low == high:
            continue
        rows.append(Sensitivity("catalog", key, "USD", component.price_usd[1], f"{component.price_usd[1]:,.0f} USD",
                                low, high, None, None, f"{component.source} {component.tag}",
                                low_input=component.price_usd[0], high_input=component.price_usd[2]))
    return rows


def explain_quantity(name: str, design, source: str, model: str = "gpt2-355m", baseline: str = "fattree-200",
                     catalog=None, gpus=None, strategy: str | None = None, batch: int | None = None):
    """The report of `sipml explain QUANTITY DESIGN` (priced from `catalog`, its GPU among `gpus`, a training
    quantity under the fixed parts of `strategy` at the global batch `batch`: `Evaluator`)."""
    from core.errors import InputError
    from sipml.figures_text import figure_text
    from sipml.render import Report, Table

    check_quantity(name)
    evaluate = Evaluator(name, model, baseline, catalog, gpus, strategy, batch)
    point = evaluate.point(design)
    try:
        base = evaluate(point)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    if not math.isfinite(base):
        _refuse_undefined(name, source, evaluate.reading(point), point)
    rows, skipped = design_sensitivities(design, evaluate, base)
    if priced(name):
        rows += price_sensitivities(point, evaluate)
    # largest move first: the swing, or where both steps move the quantity one way (the design sits at a peak: a
    # GPU count whose neighbours divide into fewer strategies), the farther step's move from the design's value
    rows.sort(key=lambda r: -max(r.swing, abs(r.low - base), abs(r.high - base)))
    quantity = QUANTITIES[name]
    reading = evaluate.reading(point)
    training = quantity.stage == "training"  # what a training quantity was computed for (null for the others)
    context = (f" ({model} over {baseline}{', ' + strategy if strategy else ''}"
               f"{f', batch {batch:,}' if batch is not None else ''})" if training else "")
    formula = quantity.formula(reading)
    latex = formula.latex() if formula is not None else ""
    data = {"quantity": name, "unit": quantity.unit, "help": quantity.help, "design": source, "value": base,
            "formula": _plain(formula), "formula_latex": latex, "formula_text": formula_text(formula),
            "numbers": _numbers(formula, quantity), "step": STEP,
            "sensitivities": [{"section": r.section, "key": r.key, "unit": r.unit, "value": r.value,
                               "shown": r.shown, "low": r.low,
                               "high": r.high, "swing": r.swing, "derivative": r.derivative,
                               "elasticity": r.elasticity, "source": r.source, "no_value_at": r.no_value_at,
                               "low_input": r.low_input, "high_input": r.high_input}
                              for r in rows],
            "inputs_left_out": len(skipped), "left_out": skipped}
    data.update({"model": model if training else None, "baseline": baseline if training else None,
                 "strategy": (strategy or None) if training else None,
                 "batch": reading.result.batch if training else None})
    header = Table(f"{name} of {source}{context}", ["quantity", "value"], [
        {"quantity": name, "value": f"{figure_text(base, 6, whole=True)} {quantity.unit}".rstrip()},
        {"quantity": "what", "value": quantity.help},
        *({"quantity": "formula", "value": data["formula_text"]} for _ in [0] if formula is not None)])
    tables = [header]
    if data["numbers"]:  # the terms by their terminal names (the JSON's `term` keeps the LaTeX one)
        tables.append(Table("With this design's numbers", ["term", "value", "unit", "meaning"],
                            [{**row, "term": row["text"], "value": figure_text(float(row["value"]), 6, whole=True)}
                             for row in data["numbers"]]))
    shown = [{"input": f"[{r.section}] {r.key}", "value": r.shown + (f" (steps {r.stopped})" if r.stopped else ""),
              "quantity at −/+": _steps_text(r), "swing": figure_text(r.swing, 3),
              "sensitivity": _sensitivity_text(r, base), "source": r.source} for r in rows[:TOP]]
    if shown:
        tables.append(Table(f"What moves it most (design inputs ±{STEP:.0%}, dB inputs and optical powers ±1 dB, "
                            "counts ±1; catalog prices low … high)",
                            ["input", "value", "quantity at −/+", "swing", "sensitivity", "source"], shown))
    moved = (f"{len(rows)} inputs move it (the {min(TOP, len(rows))} largest shown; all in the JSON)" if rows else
             f"no design input (±{STEP:.0%}, ±1 dB, counts ±1) and no catalog price moves it")
    left = ", ".join(f"[{e['section']}] {e['key']}" for e in skipped[:4]) + (", …" if len(skipped) > 4 else "")
    notes = [f"{moved}; {len(skipped)} could not take the step (out of range, refused by the design's rules, or "
             f"without a value there{': ' + left if left else ''}; each with why in the JSON's left_out).",
             "sensitivity: % change of the quantity (of its size, so + means it rises) per % change of the input "
             "(elasticity); per dB for inputs in dB."]
    if any(r.no_value_at for r in rows[:TOP]):
        notes.append("–: no value at that step (the design cannot be built or trained there); the swing and "
                     "sensitivity are the other step's against the design's own value.")
    return Report(data, tables, notes, equations=[latex] if latex else [])


def _refuse_undefined(name: str, source: str, reading, point) -> None:
    """Why the design has no value of the quantity: InfeasibleDesign (exit 1) where the design cannot be built or its
    link does not close, as `cost` and `check` refuse it; InputError where the quantity does not apply."""
    from core.errors import InfeasibleDesign, InputError

    why = QUANTITIES[name].why_undefined(reading)
    link_fails = reading.link is not None and not reading.link.feasible and QUANTITIES[name].stage == "link"
    if link_fails and not why:
        closed = getattr(reading.link, "no_power_closes", "")  # a closed eye is why; the cap's share is check's
        closed = closed if closed.startswith("no power closes: the eye is closed") else ""
        why = ("the link is infeasible (" + ", ".join(v.name for v in reading.link.violations)
               + (f"; {closed}" if closed else "") + "); `sipml check` says what binds")
    if why and ((name in PRICED_KEYS and not reading.fabric.feasible) or link_fails):
        raise InfeasibleDesign(f"{source}: {name} is not defined for this design: {why}")
    if why:
        raise InputError(f"{source}: {name} is not defined for this design: {why}")
    raise InputError(f"{source}: {name} is not defined for this design ([fabric] kind = '{point.design.fabric.kind}'"
                     + (f", [link] kind = '{point.design.link.link.kind}'" if point.link_design is not None else "")
                     + "): nothing to explain")


def _steps_text(row: Sensitivity) -> str:
    """The quantity at the low and the high step, '–' at a step where it has no value."""
    from sipml.figures_text import figure_text

    low, high = ("–" if row.no_value_at == side else figure_text(v) for side, v in (("low", row.low),
                                                                                    ("high", row.high)))
    return f"{low} … {high}"


def _sensitivity_text(row: Sensitivity, base: float) -> str:
    """The elasticity in %/%, else the slope per dB, to 3 digits with its sign (no exponent: -1,500 /dB); where both
    steps move the quantity the same way (a peak or a trough: no slope), that."""
    from sipml.figures_text import figure_text

    if row.no_value_at is None and (row.low - base) * (row.high - base) > 0:  # ranked by the farther move: said
        return (f"both steps {'lower' if row.low < base else 'raise'} it, by up to "
                f"{figure_text(max(abs(row.low - base), abs(row.high - base)), 3)}")
    for value, unit in ((row.elasticity, "%/%"), (row.derivative, "/dB")):
        if value is not None:
            return f"{'+' if value > 0 else ''}{figure_text(value, 3)} {unit}"
    return ""


def _plain(formula) -> str:
    """The formula as text (sympy's), '' without one."""
    if formula is None:
        return ""
    import sympy as sp

    return f"{formula.lhs} = {sp.sstr(formula.rhs, order='none')}"


_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η", "theta": "θ",
          "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
          "phi": "φ", "omega": "ω", "Delta": "Δ", "Lambda": "Λ", "Sigma": "Σ", "Omega": "Ω", "Phi": "Φ"}
_LATEX_WORDS = {**_GREEK, "max": "max", "min": "min", "cdot": "· ", "$": "$", " ": " ", ",": " "}
_SUBSCRIPT = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")


def text_name(latex: str) -> str:
    """A term's LaTeX name as terminal text: `P_{\\mathrm{launch}}` → `P_launch`, `\\Sigma IL_{0}` → `ΣIL₀`,
    `R_{s}` → `Rₛ`, `T_{\\mathrm{tensor parallel}}` → `T_(tensor parallel)`; no backslash left."""
    import re

    text = re.sub(r"\\math(?:rm|bb|it|bf)\{([^{}]*)\}", lambda m: "𝟙" if m.group(1) == "1" else m.group(1), latex)
    text = re.sub(r"\\([A-Za-z]+|[$ ,])\s?", lambda m: _LATEX_WORDS.get(m.group(1), m.group(1)), text)

    def subscript(match) -> str:
        inner = match.group(1).strip()
        if len(inner) == 1 and inner.translate(_SUBSCRIPT) != inner or inner.isdigit():
            return inner.translate(_SUBSCRIPT)
        return f"_({inner})" if " " in inner or "," in inner else f"_{inner}"

    text = re.sub(r"_\{([^{}]*)\}", subscript, text)
    return text.replace("{", "").replace("}", "").replace("\\", "")


def formula_text(formula) -> str:
    """The formula as one line of terminal text: the terms by their `text_name`s, `·` for a product, `^` for a
    power, '' without one."""
    if formula is None:
        return ""
    from sympy.printing.str import StrPrinter

    class _Text(StrPrinter):
        def _print_Symbol(self, expr):
            return text_name(expr.name)

        def _print_Min(self, expr):
            return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

        def _print_Max(self, expr):
            return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

        def _print_Piecewise(self, expr):  # "a if c; none otherwise" (an undefined branch is NaN)
            import sympy as sp

            return "; ".join(("none" if value is sp.nan else self._print(value))
                             + ("" if cond is sp.true else f" if {self._print(cond)}")
                             + (" otherwise" if cond is sp.true else "") for value, cond in expr.args)

    rhs = _Text({"order": "none"}).doprint(formula.rhs).replace("**", "^").replace("*", "·")
    return f"{text_name(formula.lhs)} = {rhs}"


def _numbers(formula, quantity) -> list[dict]:
    """The formula's terms with this design's numbers, and its value."""
    if formula is None:
        return []
    rows = [{"term": name, "text": text_name(name), "value": float(value), "unit": unit, "meaning": meaning}
            for name, (value, unit, meaning) in formula.terms.items()]
    return rows + [{"term": formula.lhs, "text": text_name(formula.lhs), "value": float(formula.evaluate()),
                    "unit": _si_unit(quantity), "meaning": "the formula with these numbers (SI)"}]


def _si_unit(quantity) -> str:
    return {"Gbit/s": "bit/s", "GBd": "Bd", "pJ/bit": "J/bit", "Tbit/s/mm": "bit/s/m", "TFLOP/s": "FLOP/s",
            "GB": "B"}.get(
        quantity.unit, quantity.unit)
