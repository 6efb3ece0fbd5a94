"""`sipml optimize`: the best design point of a grid for one quantity, under constraints, and what stops it.

The search is exhaustive over the grid the `--vary` axes span (the same axes as `sipml sweep`): every point is a
design loaded with its values (so the design rules apply), judged feasible as `sipml check` judges it, and scored
by the objective — any quantity `sipml explain` knows (`speedup_per_dollar`, `capacity_gbps`, `margin_db`, …).
Constraints are `QUANTITY>=NUMBER` (or `<=`, `>`, `<`). The answer is the best point that is feasible and meets
every constraint; what stops it is what the points with a better objective fail: each constraint (and feasibility)
with the number of better points it excludes. An exhaustive search is exact on the grid: no point of the grid is
better.
"""

from __future__ import annotations

import math
import operator
import re

from core.records import record

OPERATORS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
MAX_POINTS = 20_000  # [assumed] an exhaustive search a user waits for: ~1–50 ms a point


@record(slots=False)
class Constraint:
    """A bound on a quantity (`quantity<=bound`, `quantity>=bound`) that an optimum must hold."""
    quantity: str
    op: str
    bound: float

    @property
    def text(self) -> str:
        return f"{self.quantity}{self.op}{self.bound:g}"

    def holds(self, value: float) -> bool:
        return math.isfinite(value) and OPERATORS[self.op](value, self.bound)


def check_target(name: str) -> None:
    """InputError unless `optimize` may target the quantity (sipml.quantities: `target`)."""
    from core.errors import InputError
    from sipml.quantities import QUANTITIES, check_quantity

    try:
        check_quantity(name)
    except InputError as exc:
        raise InputError(f"optimize: {exc}") from None
    if not QUANTITIES[name].target:
        raise InputError(f"{name} is reported, not designed for: optimize cannot target it")


def parse_constraint(text: str) -> Constraint:
    from core.errors import InputError

    match = re.fullmatch(r"\s*([A-Za-z_][\w]*)\s*(>=|<=|>|<)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*", text,
                         re.ASCII)  # ASCII digits only, as every number the CLI reads (core.units.whole_number)
    if match is None:
        raise InputError(f"--subject-to {text!r}: expected QUANTITY>=NUMBER (or <=, >, <), a plain number in the "
                         "quantity's reported unit, quoted for the shell: --subject-to 'margin_db>=3'")
    name, op, number = match.groups()
    try:
        check_target(name)
    except InputError as exc:
        raise InputError(f"--subject-to {text!r}: {exc}") from None
    if not math.isfinite(float(number)):
        raise InputError(f"--subject-to {text!r}: the bound {number} is not a finite number")
    return Constraint(name, op, float(number))


def _feasible(point, link_only: bool = False) -> bool:
    """Feasible as `sipml check` judges it: the fabric, or a point-to-point link on its own (or, `link_only`, the
    link alone: `sipml budget`'s verdict)."""
    return not _violations(point, link_only)


def optimize(design, overrides, vary, objective: str, maximize: bool, constraints: list[Constraint],
             model: str = "gpt2-355m", baseline: str = "fattree-200", progress=None, refine: bool = False,
             catalog=None, gpus=None, strategy: str | None = None, batch: int | None = None,
             link_only: bool = False) -> dict:
    """Search the grid (then, with `refine`, each continuous axis around the best point); the result's keys are
    the JSON of `sipml optimize`. `catalog`, `gpus`: what the points price with and find their GPU among (None:
    the shipped ones); `strategy`, `batch`: the fixed parts of the strategy and the global batch of the training
    quantities (`sipml.explain.Evaluator`); `link_only`: points judged by their link alone, link quantities only."""
    from core.errors import InputError
    from sipml.design_files import ALL_SECTIONS
    from sipml.explain import Evaluator
    from sipml.sweep_point_rows import Points
    from sipml.sweep_run import check_axes_once, grid_points, parse_axis

    check_target(objective)
    if not vary:
        raise InputError("optimize needs at least one --vary axis, e.g. --vary link.wavelengths_per_fiber=4:32:29")
    most = f"an exhaustive search takes at most {MAX_POINTS:,} points (use fewer values per axis)"
    axes = [parse_axis(spec, ALL_SECTIONS, (MAX_POINTS, most)) for spec in vary]
    check_axes_once(axes)
    size = math.prod(len(a.values) for a in axes)
    if size > MAX_POINTS:
        raise InputError(f"the grid has {size:,} points; {most}")
    points = grid_points(axes)
    names = list(dict.fromkeys([objective, *(c.quantity for c in constraints)]))
    evaluators = {name: Evaluator(name, model, baseline, catalog, gpus, strategy, batch) for name in names}
    name, design = design, Points(design)  # the file read once; each point built from it
    _check_grid(name, design.load(list(overrides or ())), axes, evaluators, link_only)
    rows = []
    if progress is not None:  # the total before the first point ends
        progress(0, len(points))
    for done, point in enumerate(points, 1):
        values = {f"{a.section}.{a.key}": a.values[i] for a, i in zip(axes, point)}
        texts = {f"{a.section}.{a.key}": a.texts[i] for a, i in zip(axes, point)}
        rows.append(_evaluate(design, overrides, values, texts, evaluators, _as_written(axes, values), link_only))
        if progress is not None:
            progress(done, len(points))
    result = _result(rows, objective, maximize, constraints)
    training = any(e.quantity.stage == "training" for e in evaluators.values())
    _refuse_unusable_options(result, strategy, batch, gpu_varies=any((a.section, a.key) == ("fabric", "gpu")
                                                                     for a in axes))
    result.update({"model": model if training else None, "baseline": baseline if training else None,
                   "strategy": (strategy or None) if training else None, "batch": batch if training else None})
    if refine and result["best"] is not None:
        _refine(result, rows, axes, design, overrides, evaluators, objective, maximize, constraints, link_only)
        # what scores better than the refined best, and what stops it: the grid's and the refined points' anew
        again = _result(rows, objective, maximize, constraints)
        result.update({key: again[key] for key in ("better_points", "stopped_by", "undefined")})
    return result


def _check_grid(name, base, axes, evaluators, link_only: bool) -> None:
    """InputError where every point would fail alike: under --link-only, a quantity that is not the link's or a
    design with no optical link; a priced quantity on a GPU with no known server (no axis changing it)."""
    from core.errors import InputError
    from fabric.evaluate import effective_link
    from sipml.quantities import QUANTITIES
    from sipml.sweep_run import check_server

    beyond = [key for key, e in evaluators.items() if e.quantity.stage != "link"]
    if link_only and beyond:
        raise InputError(f"--link-only judges each point by its link alone: {', '.join(beyond)} "
                         f"{'is not a link quantity' if len(beyond) == 1 else 'are not link quantities'} (those are "
                         + ", ".join(q.key for q in QUANTITIES.values() if q.stage == "link") + ")")
    if link_only and effective_link(base) is None:
        raise InputError(f"{name or 'the default design'}: its [fabric] kind = '{base.fabric.kind}' has no optical "
                         "link: --link-only has no link to judge")
    if any(e.quantity.stage in ("cost", "training") for e in evaluators.values()):
        check_server(base, name, axes)  # every point prices the GPUs' server


def _refuse_unusable_options(result: dict, strategy: str | None, batch: int | None, gpu_varies: bool) -> None:
    """InputError (exit 2, as `speedup` and `explain` refuse it) where no point trains for want of a strategy under
    the --strategy or --batch given: every point refused for it, or, the GPU the same at every point, each point
    that reaches training refused by the option itself (a precision its GPU has no tensor cores for) and the rest
    infeasible. The options, not the designs, are what no point can use."""
    from core.errors import InputError

    refused = result["refused"]
    if not (strategy or batch is not None) or result["valid_points"] or len(refused) != 1:
        return
    error = refused[0]["error"]
    if error.startswith("--strategy ") and not gpu_varies:
        raise InputError(f"{error} (at every point of the grid)")
    if result["errors"] == result["points"] and error.startswith("no valid strategy"):
        raise InputError(f"{'--strategy ' + strategy if strategy else '--batch ' + str(batch)}: no point of the grid "
                         f"can use it ({error})")


def _value(evaluate, point, feasible: bool) -> float:
    """The quantity at the point; NaN where the point is infeasible and the quantity cannot be had there (a training
    on a fabric that cannot be built: the point fails its checks, named as such, not refused by the rules)."""
    from core.errors import InfeasibleDesign

    try:
        return evaluate(point)
    except InfeasibleDesign:
        if feasible:
            raise
        return math.nan


def _as_written(axes, values: dict) -> dict:
    """Each axis's value at a point as its --vary wrote it ('9 dBm' for an axis written in dBm, not '7.94328 mW');
    the design file's text where it was written in the field's own unit."""
    from core.fields import specs
    from sipml.design_files import ALL_SECTIONS
    from sipml.sweep_run import set_text

    out = {}
    for a in axes:
        key = f"{a.section}.{a.key}"
        value = values[key]
        if a.written_column is not None and isinstance(value, float):
            out[key] = f"{float(a.written([value])[0]):g} {a.written_unit}"
        else:
            out[key] = set_text(specs(ALL_SECTIONS[a.section])[a.key], value)
    return out


def _evaluate(points, overrides, values: dict, texts: dict, evaluators, shown: dict | None = None,
              link_only: bool = False) -> dict:
    """One point: its inputs, whether it is feasible (`link_only`: its link alone), and every quantity asked for (or
    the rules' refusal); `texts` its --set texts, `shown` how its inputs are written in the report (`_as_written`;
    None: `texts`)."""
    from core.errors import SipmlError
    from sipml.sweep_point_rows import given_as
    from workloads.evaluation import Evaluation

    sets = [*(overrides or ()), *(f"{key}={text}" for key, text in texts.items())]
    row = {"inputs": values, "texts": {key: _plain(text) for key, text in (shown or texts).items()}}
    try:
        first = next(iter(evaluators.values()))
        point = Evaluation(points.load(sets, given_as(overrides)), first.catalog, first.gpus)
        row["feasible"] = _feasible(point, link_only)
        row["violations"] = [] if row["feasible"] else [{"name": v.name, "message": v.message}
                                                        for v in _violations(point, link_only)]
        row["values"] = {name: _value(evaluate, point, row["feasible"]) for name, evaluate in evaluators.items()}
        row["error"] = ""
    except SipmlError as exc:
        row.update(feasible=False, values={}, error=str(exc))
    return row


def _refine(result, rows, axes, design, overrides, evaluators, objective, maximize, constraints,
            link_only: bool = False) -> None:
    """Bounded scalar search (scipy, Brent's method) along each continuous axis between the best grid point's
    neighbours, the others held; a refined point replaces the best only if it qualifies and scores better."""
    from scipy.optimize import minimize_scalar

    from core.fields import specs
    from sipml.design_files import ALL_SECTIONS
    from sipml.sweep_run import set_text

    best = result["best"]
    sign = 1.0 if maximize else -1.0
    refined = []
    for axis in axes:
        key = f"{axis.section}.{axis.key}"
        field = specs(ALL_SECTIONS[axis.section])[axis.key]
        ordered = sorted(v for v in axis.values if isinstance(v, float))
        if field.integer or not field.numeric or len(ordered) < 2:
            continue
        i = ordered.index(best["inputs"][key])
        lo, hi = ordered[max(i - 1, 0)], ordered[min(i + 1, len(ordered) - 1)]
        form = type(best["inputs"][key])  # a wavelength span stays a span
        texts = {k: set_text(specs(ALL_SECTIONS[k.split(".")[0]])[k.split(".")[1]], v)
                 for k, v in best["inputs"].items()}
        tried = {}
        # a point that does not qualify scores a finite step worse than the grid's best (an infinity would make
        # Brent's parabolic step ∞ − ∞)
        worse = -sign * best["value"] + abs(best["value"]) + 1.0

        def at(x):
            value = field.parse(field.show(form(x)))
            inputs = {**best["inputs"], key: value}
            row = _evaluate(design, overrides, inputs, {**texts, key: set_text(field, value)}, evaluators,
                            _as_written(axes, inputs), link_only)
            tried[x] = row
            ok = not _fails(row, constraints) and math.isfinite(row["values"].get(objective, math.nan))
            return -sign * row["values"][objective] if ok else worse

        search = minimize_scalar(at, bounds=(lo, hi), method="bounded",
                                 options={"xatol": 1e-4 * (hi - lo), "maxiter": 40})
        row = tried.get(search.x) or min(tried.values(), key=lambda r: -sign * r["values"].get(objective, -math.inf))
        if not _fails(row, constraints) and sign * row["values"][objective] > sign * best["value"]:
            best = {"inputs": row["inputs"], "texts": row["texts"], "value": row["values"][objective],
                    "values": row["values"]}
            refined.append(key)
        rows.append(row)
    result["best"] = best
    result["refined_axes"] = refined
    if refined:  # a refined best scores better than every grid point: none ties it
        result["ties"] = 0
    result["method"] = ("exhaustive search over the grid, then a bounded scalar search (scipy, Brent) along each "
                        "continuous axis between the best point's neighbours")


def _violations(point, link_only: bool = False):
    """What makes the point infeasible, as `sipml check` reports it (`link_only`: the link's alone; an InputError
    where the point has none, its fabric kind an axis)."""
    from core.errors import InputError

    design = point.design
    if link_only and point.link_design is None:
        raise InputError(f"[fabric] kind = '{design.fabric.kind}' has no optical link: --link-only has none to judge")
    if link_only or (design.link.link.kind != "ring-wdm" and not design.has_fabric):
        return point.link.violations
    return point.fabric.violations


def _shortfall(c: Constraint, value: float) -> float:
    """How far a value is from meeting a constraint, relative to the bound's size (∞ when it is not a number)."""
    if not math.isfinite(value):
        return math.inf
    return max(0.0, c.bound - value if c.op in (">=", ">") else value - c.bound) / max(abs(c.bound), 1.0)


def closest(rows: list[dict], constraints: list[Constraint], score=None) -> dict | None:
    """With no point qualifying: the point that fails the fewest checks (each design constraint `sipml check` finds
    violated, each constraint not met), then the least relative shortfall summed over its constraints, then the best
    `score` (the objective, higher better; points without one last) — with the numbers that stop it."""
    ranked = [r for r in rows if not r["error"]]
    if not ranked:
        return None

    def distance(row):
        value = score(row) if score is not None else math.nan
        return (len(_reasons(row, constraints)),
                sum(_shortfall(c, row["values"].get(c.quantity, math.nan)) for c in constraints),
                -value if math.isfinite(value) else math.inf)

    row = min(ranked, key=distance)
    return {"inputs": row["inputs"], "texts": row["texts"], "values": row["values"],
            "fails": [{"constraint": c.text, "value": row["values"].get(c.quantity, math.nan), "bound": c.bound}
                      for c in constraints if not c.holds(row["values"].get(c.quantity, math.nan))],
            "violations": row.get("violations", [])}


def _plain(text: str) -> str:
    """An axis value as a person writes it (the --set text without its TOML quotes)."""
    import json

    return json.loads(text) if text.startswith('"') else text


def _fails(row: dict, constraints: list[Constraint]) -> list[str]:
    """What keeps a point out: 'error', 'feasible', and the constraints it does not meet."""
    if row["error"]:
        return ["error"]
    failed = [] if row["feasible"] else ["feasible"]
    return failed + [c.text for c in constraints if not c.holds(row["values"].get(c.quantity, math.nan))]


def _reasons(row: dict, constraints: list[Constraint]) -> list[tuple[str, str, str]]:
    """What keeps a point out, each as (name, kind, why at this point): every design constraint `sipml check`
    finds violated, by its name (kind 'check'); every --subject-to constraint it does not meet, by its text, with
    the value (kind 'subject-to'); or the design rules' refusal (kind 'error')."""
    if row["error"]:
        return [("error", "error", row["error"])]
    out = []
    if not row["feasible"]:
        out += [(v["name"], "check", v["message"]) for v in row.get("violations", [])] or [
            ("feasible", "check", "infeasible")]
    for c in constraints:
        value = row["values"].get(c.quantity, math.nan)
        if not c.holds(value):
            shown = f"{value:.4g}" if math.isfinite(value) else "undefined"
            why = (f"{c.quantity} = {shown}, needs {c.op} {c.bound:g}" if math.isfinite(value) or row["feasible"]
                   else f"{c.quantity} has no value: the design cannot be built there")
            out.append((c.text, "subject-to", why))
    return out


def _result(rows: list[dict], objective: str, maximize: bool, constraints: list[Constraint]) -> dict:
    def score(row) -> float:
        value = row["values"].get(objective, math.nan)
        return value if maximize else -value

    valid = [r for r in rows if not _fails(r, constraints) and math.isfinite(score(r))]
    best = max(valid, key=score) if valid else None
    better = [r for r in rows if not r["error"] and math.isfinite(score(r)) and (best is None or
                                                                                 score(r) > score(best))]
    refused: dict[str, int] = {}
    for r in rows:
        if r["error"]:
            refused[r["error"]] = refused.get(r["error"], 0) + 1
    # the better points nearest the best first (with no best, the best scored): each reason's example is the point
    # that would have won next
    better.sort(key=score, reverse=best is None)
    stoppers: dict[str, dict] = {}
    for r in better:
        for reason, kind, why in _reasons(r, constraints):
            entry = stoppers.setdefault(reason, {"reason": reason, "kind": kind, "better_points": 0,
                                                 "example": {"texts": r["texts"],
                                                             "value": r["values"].get(objective), "why": why}})
            entry["better_points"] += 1
    return {
        "objective": objective, "sense": "maximize" if maximize else "minimize",
        "constraints": [c.text for c in constraints], "points": len(rows),
        "valid_points": len(valid), "errors": sum(1 for r in rows if r["error"]),
        "best": None if best is None else {"inputs": best["inputs"], "texts": best["texts"],
                                           "value": best["values"][objective], "values": best["values"]},
        "better_points": len(better),
        "ties": 0 if best is None else sum(1 for r in valid if r is not best and score(r) == score(best)),
        "undefined": _undefined(rows, score, constraints),
        "stopped_by": sorted(stoppers.values(), key=lambda e: -e["better_points"]),
        "refused": [{"error": k, "points": v} for k, v in sorted(refused.items(), key=lambda kv: -kv[1])],
        "closest": closest(rows, constraints, score) if best is None else None,
        "refined_axes": [],
        "method": "exhaustive search over the grid (exact on it)",
    }


def _undefined(rows: list[dict], score, constraints: list[Constraint]) -> dict:
    """The points where the objective has no value (a link that closes no wavelength has no energy per bit), and what
    they fail, each reason with its count: the best may sit at their edge, where no better point can be scored."""
    none = [r for r in rows if not r["error"] and not math.isfinite(score(r))]
    reasons: dict[str, int] = {}
    for r in none:
        for reason, _, _ in _reasons(r, constraints):
            reasons[reason] = reasons.get(reason, 0) + 1
    return {"points": len(none), "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1]))}


def _figure(value) -> str:
    """A quantity's value in optimize's tables: six digits, '–' where the point has none (a price of a design that
    cannot be built)."""
    return f"{value:.6g}" if value is not None and math.isfinite(value) else "–"


def optimize_report(result: dict, source: str):
    from sipml.render import Report, Table

    tables, notes = [], []
    best = result["best"]
    batch = result.get("batch")
    fixed = "".join(f", {text}" for text in (result.get("strategy"), batch and f"batch {batch:,}") if text)
    trained = f" ({result['model']} against {result['baseline']}{fixed})" if result.get("model") else ""
    title = (f"{result['sense']} {result['objective']} of {source}{trained} over {result['points']} "
             f"point{'s' if result['points'] != 1 else ''}")
    if best is None:
        notes.append(f"{source}: no point is feasible and meets {', '.join(result['constraints']) or 'the rules'}")
        near = result.get("closest")
        if near is not None:
            rows = [{"quantity": k, "value": v, "stops it": ""} for k, v in near["texts"].items()]
            rows += [{"quantity": k, "value": _figure(v),
                      "stops it": next((f"needs {f['constraint']}" for f in near["fails"]
                                        if f["constraint"].startswith(k) and f["constraint"][len(k)] in "<>"), "")}
                     for k, v in near["values"].items()]
            rows += [{"quantity": "feasible", "value": "no", "stops it": f"{v['name']}: {v['message']}"}
                     for v in near["violations"]]
            tables.append(Table(f"Closest point (fewest checks failed, then least shortfall, then best "
                                f"{result['objective']}): {title}",
                                ["quantity", "value", "stops it"], rows))
    else:
        rows = [{"quantity": k, "value": v} for k, v in best["texts"].items()]
        rows += [{"quantity": k, "value": _figure(v)} for k, v in best["values"].items()]
        tables.append(Table(f"Best point: {title}", ["quantity", "value"], rows))
        if result.get("ties"):
            many = result["ties"] > 1
            notes.append(f"{result['ties']} other point{'s' if many else ''} tie{'' if many else 's'} at the best "
                         f"{result['objective']}: the first in the grid's order is shown (a --subject-to on another "
                         "quantity chooses among them)")
    if result["stopped_by"]:
        kinds = {"check": "design constraint (sipml check)", "subject-to": "--subject-to", "error": "design rules"}
        which, counted, example_at = ((f"a better {result['objective']}", "better points", "nearest better point")
                                      if best is not None else
                                      (f"a {result['objective']}", "points", "best-scored point failing it"))
        stop_rows = []
        for s in result["stopped_by"]:
            example = s.get("example") or {}
            at = ", ".join(f"{k}={v}" for k, v in example.get("texts", {}).items())
            value = example.get("value")
            scored = f" ({result['objective']} {value:.6g})" if isinstance(value, float) and math.isfinite(value) \
                else ""  # the best's digits: a better value never reads as a worse one (1.515 beside 1.51483)
            stop_rows.append({"constraint": s["reason"], "kind": kinds.get(s.get("kind"), s.get("kind", "")),
                              counted: f"{s['better_points']} of {result['better_points']}",
                              example_at: f"{at}{scored}: {example.get('why', '')}" if at else example.get("why", "")})
        n = result["better_points"]
        who = (f"the {n} point{'s' if n != 1 else ''} with {which} fail{'s' if n == 1 else ''}" if best is not None
               else f"{'each of the ' + str(n) + ' points' if n != 1 else 'the one point'} scored fails")
        tables.append(Table(f"What stops it: {who} these constraints (a point may fail several)",
                            ["constraint", "kind", counted, example_at], stop_rows))
    elif best is not None and result["undefined"]["points"]:
        undefined = result["undefined"]
        many = undefined["points"] != 1
        notes.append(f"no point of the grid scores better on {result['objective']}; {undefined['points']} "
                     f"point{'s' if many else ''} {'have' if many else 'has'} no {result['objective']}, failing "
                     + ", ".join(f"{k} ({n})" for k, n in undefined["reasons"].items())
                     + f": the best may sit at {'their' if many else 'its'} edge (what stops it there)")
    elif best is not None:
        notes.append("no point of the grid scores better: nothing inside it stops the objective (widen the axes to "
                     "look further)")
    for refusal in result["refused"][:3]:
        notes.append(f"refused ({refusal['points']} points): {refusal['error']}")
    notes.append(f"{result['valid_points']} of {result['points']} points are feasible and meet the constraints; "
                 f"{result['errors']} refused; {result['method']}")
    return Report(result, tables, notes)
