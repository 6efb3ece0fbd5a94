"""The calculator from Python: the same design files, checks and numbers as the command line.

Values go in with their units — text (``"50 Gbit/s"``), pint quantities (``Q_(50, "Gbit/s")``) or, for counts and
plain ratios, numbers — and come out as the project's records, whose fields are SI floats named with their unit
(``capacity_bps``, ``margin_db``). Bad input raises ``core.errors.InputError`` with the message the CLI prints.

>>> from sipml import Q_, budget, cost, evaluate, fabric, load_design, speedup
>>> design = load_design("sip-ring", {"link.data_rate": Q_(35, "Gbit/s")})
>>> link = budget(design)
>>> round(link.capacity.capacity_bps / 1e12, 2), link.binding_limit
(2.8, 'requested')
>>> ring = fabric(design)                 # at 35 GBd the neighbour's margin pays for fewer hops
>>> ring.feasible, [v.name for v in ring.violations]
(False, ['ring_reach'])
>>> fabric("sip-ring").feasible
True
>>> summary = cost(design)
>>> 5_000 < summary.network_cost_per_gpu_usd.typical < 20_000
True
>>> point = evaluate(design)             # every stage of one design point, each computed once
>>> point.fabric is point.fabric and point.cost.bom is point.cost.bom
True
>>> row = speedup("sip-ocs", "gpt2-355m")[0]
>>> row["design"], row["baseline"], row["speedup"] > 1
('sip-ocs', 'fattree-200', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["budget", "cost", "evaluate", "fabric", "load_design", "speedup", "sweep"]


MAX_WORKERS = 256  # [assumed] local processes: more than any machine this runs on has cores


def _bad(what: str, value, expected: str):
    from core.errors import InputError, shown

    return InputError(f"{what}: expected {expected}, got {type(value).__name__} {shown(value)}")


def _text(what: str, value, optional: bool = False):
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _bad(what, value, "a text" + (" or None" if optional else ""))
    return value


def _count(what: str, value, optional: bool = True, lo: int = 1):
    """A whole number (Python's or numpy's) ≥ lo; None where optional."""
    import numbers

    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < lo:
        raise _bad(what, value, f"a whole number ≥ {lo}" + (" or None" if optional else ""))
    return int(value)


def _texts(what: str, value, allow_empty: bool = True) -> list[str]:
    """A text, or a sequence of texts."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise _bad(what, value, "a text or a sequence of texts")
    if not value and not allow_empty:
        raise _bad(what, value, "at least one")
    return list(value)


def _paths(what: str, value) -> list:
    import os

    items = [value] if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(items, Sequence) or not all(isinstance(v, (str, os.PathLike)) for v in items):
        raise _bad(what, value, "a file name or a sequence of them")
    return list(items)


def _override_text(target, value) -> str:
    """One `section.key=value` override from a Python value: a pint quantity as its magnitude and unit, a bool
    as TOML, a number (Python's or numpy's) as its digits, a text as itself."""
    import numbers

    from core.units import Q_

    if not isinstance(target, str):
        raise _bad("changes", target, "'section.key' texts as keys")
    if isinstance(value, Q_):
        text = f"{value.magnitude!r} {value.units:~C}"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, numbers.Integral):
        text = str(int(value))
    elif isinstance(value, numbers.Real):
        text = repr(float(value))
    else:
        raise _bad(f"changes[{target!r}]", value, "a quantity, a text, a number or a bool")
    return f"{target}={text}"


def load_design(design: str | Path | None = None, changes: Mapping[str, object] | None = None):
    """The design `design` (a TOML file, a built-in name, or None for the built-in ``sip-ring``) with `changes`
    ({"section.key": value}) applied exactly as ``--set`` applies them: every key checked, a key without effect
    refused. Returns a `fabric.design.ClusterDesign`."""
    import os

    from sipml.design import load_design as load

    if design is not None and not isinstance(design, (str, os.PathLike)):
        raise _bad("design", design, "a file name, a built-in design's name or None")
    if changes is not None and not isinstance(changes, Mapping):
        raise _bad("changes", changes, "a mapping {'section.key': value} or None")
    overrides = [_override_text(target, value) for target, value in (changes or {}).items()]
    return load(design, overrides, given_as="changes")


def _design(design, changes=None):
    import os

    from fabric.design import ClusterDesign

    if isinstance(design, ClusterDesign):
        if changes:
            raise _bad("changes", changes, "None with a loaded design (apply them with load_design)")
        return design
    if design is not None and not isinstance(design, (str, os.PathLike)):
        raise _bad("design", design, "a ClusterDesign, a file name, a built-in design's name or None")
    return load_design(design, changes)



def evaluate(design=None, catalog_files: Sequence[str | Path] = (), changes: Mapping[str, object] | None = None):
    """The design point as a `workloads.evaluation.Evaluation`: its `link`, `fabric`, `cost` and
    `training(model, batch)`, each computed once when first read and handed to the next; priced from the shipped
    catalog merged with `catalog_files`; `changes` as `load_design` applies them."""
    from fabric.catalog import load_catalog
    from workloads.evaluation import Evaluation

    files = _paths("catalog_files", catalog_files)
    return Evaluation(_design(design, changes), load_catalog(*files) if files else None)


def _name(design) -> str:
    from fabric.design import ClusterDesign
    from sipml.design import DEFAULT_DESIGN

    if isinstance(design, ClusterDesign):  # built in Python: named by its fabric
        return f"a {design.fabric.kind} design"
    return str(design) if design is not None else DEFAULT_DESIGN


def budget(design=None, changes: Mapping[str, object] | None = None):
    """The link budget of the design's GPU-to-GPU optical link (with any switch passes): a
    `photonics.records.LinkEstimate` (ledger, margin_db, capacity, binding_limit, reach, energy, violations) that a
    notebook shows as `sipml budget`'s tables (`sipml.notebook.Result`; `.record` is the estimate itself); `changes`
    as `load_design` applies them."""
    from core.errors import InputError
    from sipml.notebook import Result
    from sipml.reports import budget_report

    point = evaluate(design, changes=changes)
    if point.link_design is None:
        raise InputError(f"[fabric] kind = '{point.design.fabric.kind}' has no optical link to budget")
    name = _name(design)
    return Result(point.link, lambda est: budget_report(est, name))


def fabric(design=None, changes: Mapping[str, object] | None = None):
    """The fabric of the design: a `fabric.estimate.FabricEstimate` (per-GPU bandwidth, degree, bisection, reach,
    bill of materials, violations) that a notebook shows as `sipml fabric`'s tables."""
    from fabric.evaluate import job_collectives
    from sipml.notebook import Result
    from sipml.reports import fabric_report

    point = evaluate(design, changes=changes)
    name, size = _name(design), point.design.fabric.message_size
    return Result(point.fabric, lambda fab: fabric_report(fab, job_collectives(fab, size), size, name))


def cost(design=None, catalog_files: Sequence[str | Path] = (), changes: Mapping[str, object] | None = None):
    """The cluster's cost and power: a `fabric.cost.CostSummary` (each figure a low/typical/high range), priced
    from the shipped catalog merged with `catalog_files`, that a notebook shows as `sipml cost`'s tables."""
    from sipml.notebook import Result
    from sipml.reports import cost_data, cost_report

    point = evaluate(design, catalog_files, changes)
    name = _name(design)
    return Result(point.cost, lambda summary: cost_report([cost_data(name, point.fabric, summary)]))


def speedup(designs: str | Sequence[str] = ("sip-ring", "sip-ocs"), model: str = "gpt3-175b", *,
            gpus: int | None = None, batch: int | None = None, strategy: str | None = None,
            stack: str | None = None, sets: Sequence[str] = (),
            baselines: Sequence[str] = ("fattree-200", "dgx-a100"), tokens: float | None = None):
    """The rows of ``sipml speedup`` (`sipml.notebook.Rows`, a list of dicts a notebook shows as the command's
    tables; `to_pandas()`): for each design the best strategy under the software stack, iteration time
    and its breakdown, throughput, model TFLOP/s, MFU, speedup / per $ / per W over each baseline, and a training
    run's time, energy and cost (the keys of the README's `sipml speedup --format json`). `stack` is
    `--strategy stack=NAME`; `sets` are `--set` overrides of the designs compared (not of the baselines, except
    `BASELINE:section.key=value`). Each baseline carries the GPU and server host of the design it is compared with
    (`baselines.<name>.gpu`), and runs its best without the parts of `strategy` it cannot run
    (`baselines.<name>.fallback` says which)."""
    from sipml.notebook import Rows
    from sipml.speedup_report import run_speedup, speedup_report

    names = _texts("designs", designs, allow_empty=False)
    _text("model", model)
    gpus, batch = _count("gpus", gpus, lo=2), _count("batch", batch)
    strategy, stack = _text("strategy", strategy, optional=True), _text("stack", stack, optional=True)
    sets, baselines = _texts("sets", sets), _texts("baselines", baselines, allow_empty=False)
    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, (int, float))):
        raise _bad("tokens", tokens, "a number or None")
    if stack is not None:
        strategy = ",".join(x for x in (strategy, f"stack={stack}") if x)
    rows, batch_source, failures = run_speedup(names, model, gpus, batch, strategy, list(sets), list(baselines),
                                               tokens)
    return Rows(rows, lambda shown: speedup_report(shown, batch_source, failures))


def sweep(design=None, vary: Sequence[str] = (), *, model: str | None = None, batch: int | None = None,
          workers: int = 1, scheduler: str | None = None, link_only: bool = False):
    """The rows of ``sipml sweep`` as a `sipml.rows.Table`: a sequence of one dict per point of the grid of `vary`
    axes (``"section.key=start:stop:count[:log]"`` or ``"section.key=a,b,c"``), in grid order, kept by column
    (`to_pandas()`, a notebook shows the first and last rows); `link_only` as ``--link-only``."""
    import os

    from sipml.sweeps import run_sweep

    if design is not None and not isinstance(design, (str, os.PathLike)):
        raise _bad("design", design, "a file name, a built-in design's name or None")
    axes = _texts("vary", vary, allow_empty=False)
    model, scheduler = _text("model", model, optional=True), _text("scheduler", scheduler, optional=True)
    batch, workers = _count("batch", batch), _count("workers", workers, optional=False)
    if workers > MAX_WORKERS:
        raise _bad("workers", workers, f"at most {MAX_WORKERS} processes")
    if not isinstance(link_only, bool):
        raise _bad("link_only", link_only, "True or False")
    _, rows = run_sweep(None if design is None else str(design), None, axes, model=model, batch=batch,
                        scheduler=scheduler, workers=workers, link_only=link_only)
    return rows
