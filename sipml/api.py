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
>>> summary = cost(design)                # what cannot be built is not priced, as `sipml cost` says
>>> summary.feasible, summary.network_cost_per_gpu_usd, summary.reason
(False, None, 'not priced: a design that cannot be built has no cost (violated: ring_reach)')
>>> 5_000 < cost("sip-ring").network_cost_per_gpu_usd.typical < 20_000
True
>>> point = evaluate(design)             # every stage of one design point, each computed once
>>> point.fabric is point.fabric and point.cost.bom is point.cost.bom
True
>>> row = speedup("sip-ocs", "gpt2-355m")[0]
>>> row["design"], row["baseline"], row["speedup"] > 1
('sip-ocs', 'fattree-200', True)
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["budget", "cost", "evaluate", "fabric", "load_design", "mix", "reliability", "speedup", "sweep"]


def _bad(what: str, value, expected: str):
    from core.errors import InputError, shown

    return InputError(f"{what}: expected {expected}, got {type(value).__name__} {shown(value)}")


def _text(what: str, value, optional: bool = False):
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _bad(what, value, "a text" + (" or None" if optional else ""))
    return value


def _file_or_name(what: str, value, optional: bool = False):
    """A built-in name or a file: a text, or a path (`pathlib.Path`) as its text; None where optional."""
    import os

    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _bad(what, value, "a built-in name or a file (a text or a path)" + (" or None" if optional else ""))
    return value


def _count(what: str, value, optional: bool = True, lo: int = 1, hi: int | None = None):
    """A whole number (Python's or numpy's, or a float of a whole value: 512.0, as design changes take it) from lo
    to hi; None where optional."""
    import math
    import numbers

    if value is None and optional:
        return None
    given = value  # as the error shows it: 1e+300, not the 301 digits of its whole value
    if (isinstance(value, numbers.Real) and not isinstance(value, (bool, numbers.Integral)) and math.isfinite(value)
            and float(value).is_integer()):
        value = int(value)
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < lo
            or hi is not None and int(value) > hi):
        span = f"≥ {lo}" if hi is None else f"from {lo} to {hi}"
        raise _bad(what, given, f"a whole number {span}" + (" or None" if optional else ""))
    return int(value)


def _real(what: str, value, optional: bool = True) -> float | None:
    """A real number (Python's or numpy's, not a bool) as a float; None where optional."""
    import numbers

    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _bad(what, value, "a number" + (" or None" if optional else ""))
    try:
        return float(value)
    except (OverflowError, ValueError):
        raise _bad(what, value, "a number a float can hold") from None


@contextlib.contextmanager
def _reading(what: str):
    """A file the operating system refuses to open (a name too long, a folder, no permission), given as `what`, as
    InputError naming it."""
    from core.errors import InputError, shown

    try:
        yield
    except OSError as exc:
        if exc.filename is None:  # not a file's: a connection, the machine
            raise
        raise InputError(f"{what}: cannot read {shown(str(exc.filename), 80)} ({exc.strerror or exc})") from None


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
        if "decibyte" in str(value.units):  # its symbol reads as a ratio in dB, which a quantity cannot hold
            raise _bad(f"changes[{target!r}]", value, "a ratio in dB as text ('3 dB', '0.5 dB/cm'): Q_(…, 'dB') is "
                       "a decibyte, a tenth of a byte")
        magnitude = value.magnitude  # a numpy scalar (a loop over np.linspace) as its number, not its repr
        if isinstance(magnitude, numbers.Integral) and not isinstance(magnitude, bool):
            magnitude = int(magnitude)
        elif isinstance(magnitude, numbers.Real):
            magnitude = float(magnitude)
        text = f"{magnitude!r} {value.units:~C}"
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
    refused. Returns a `fabric.cluster_design.ClusterDesign`."""
    import os

    from sipml.design_files import load_design as load

    if design is not None and not isinstance(design, (str, os.PathLike)):
        raise _bad("design", design, "a file name, a built-in design's name or None")
    if changes is not None and not isinstance(changes, Mapping):
        raise _bad("changes", changes, "a mapping {'section.key': value} or None")
    overrides = [_override_text(target, value) for target, value in (changes or {}).items()]
    with _reading("design"):
        return load(design, overrides, given_as="changes")


def _design(design, changes=None):
    import os

    from fabric.cluster_design import ClusterDesign

    if isinstance(design, ClusterDesign):
        if changes:
            raise _bad("changes", changes, "None with a loaded design (apply them with load_design)")
        return design
    if design is not None and not isinstance(design, (str, os.PathLike)):
        raise _bad("design", design, "a ClusterDesign, a file name, a built-in design's name or None")
    return load_design(design, changes)



def evaluate(design=None, catalog_files: Sequence[str | Path] = (), changes: Mapping[str, object] | None = None,
             gpu_files: Sequence[str | Path] = ()):
    """The design point as a `workloads.evaluation.Evaluation`: its `link`, `fabric`, `cost` and
    `training(model, batch)`, each computed once when first read and handed to the next; priced from the shipped
    catalog merged with `catalog_files`; `changes` as `load_design` applies them. These are the model's stages as
    computed: `cost` prices even a design that cannot be built, which the `cost` function (and `sipml cost`) do
    not. `training` takes a model by name (or file, or a `workloads.models` model), the global batch (None: the
    model's default for the job, as `sipml speedup` takes it), and `fixed` as `--strategy` text
    (``"tp=8,recompute=full"``); its GPU is found among the shipped GPUs merged with `gpu_files` (`--gpu-file`)."""
    design = _design(design, changes)
    return _point_type()(design, *_priced(catalog_files, gpu_files))


def _priced(catalog_files, gpu_files) -> tuple:
    """(catalog, GPUs) of the user's files: None for either where none is given (the shipped one, read where
    used), as the command line's --catalog and --gpu-file read them."""
    from fabric.catalog import load_catalog
    from workloads.gpus import load_gpus

    catalogs, gpus = _paths("catalog_files", catalog_files), _paths("gpu_files", gpu_files)
    with _reading("catalog_files or gpu_files"):
        catalog = load_catalog(*catalogs) if catalogs or gpus else None
        return catalog, (load_gpus(*gpus, catalog=catalog) if gpus else None)


@functools.cache
def _point_type():
    """`workloads.evaluation.Evaluation` whose `training` checks its arguments as the rest of the API does (the
    class is made on first use: the evaluation's imports are the API's, not the command line's)."""
    from workloads.evaluation import Evaluation

    class DesignPoint(Evaluation):
        __doc__ = Evaluation.__doc__

        def training(self, model, batch: int | None = None, fixed=None, *, name: str = "design", top: int = 5,
                     stack=None, gradient_bytes: float | None = None):
            """`Evaluation.training` of `model` (a name, a file or a model) at global batch `batch` (None: the
            model's default), `fixed` a `--strategy` text, a mapping of its keys, or None; InputError for a bad
            value."""
            model, batch, fixed, gradient_bytes = _training_arguments(self, model, batch, fixed, name, top, stack,
                                                                      gradient_bytes)
            return super().training(model, batch, fixed, name=name, top=top, stack=stack,
                                    gradient_bytes=gradient_bytes)

    DesignPoint.__module__, DesignPoint.__qualname__ = __name__, "DesignPoint"
    return DesignPoint


MAX_TOP = 100  # [assumed] strategies a training result keeps: more than a reader compares


def _training_arguments(point, model, batch, fixed, name, top, stack, gradient_bytes):
    """(model, batch, fixed, gradient_bytes) of `DesignPoint.training`, each checked: InputError naming the bad
    one."""
    import math

    from workloads import kinds
    from workloads.models import load_model
    from workloads.speedup import default_batch
    from workloads.stacks import Stack, get_stack
    from workloads.strategy import MAX_BATCH, parse_strategy

    if isinstance(model, str):
        with _reading("model"):
            model = load_model(model)
    elif not kinds.is_model(model):
        raise _bad("model", model, "a model's name or file, or a workloads.models model")
    batch = _count("batch", batch, hi=MAX_BATCH)
    if batch is None:
        batch, _ = default_batch(model, point.fabric.job_gpus)
    if isinstance(fixed, Mapping):
        if not all(isinstance(k, str) and isinstance(v, (str, int)) for k, v in fixed.items()):
            raise _bad("fixed", fixed, "a mapping of --strategy keys to texts, whole numbers or bools")
        fixed = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in fixed.items())
    fixed = parse_strategy(_text("fixed", fixed, optional=True))
    _text("name", name)
    _count("top", top, optional=False, hi=MAX_TOP)
    if isinstance(stack, str):
        get_stack(stack)
    elif stack is not None and not isinstance(stack, Stack):
        raise _bad("stack", stack, "a stack's name, a workloads.stacks.Stack or None")
    gradient = _real("gradient_bytes", gradient_bytes)
    if gradient is not None and not (math.isfinite(gradient) and gradient > 0):
        raise _bad("gradient_bytes", gradient_bytes, "a positive, finite number of bytes or None")
    return model, batch, fixed, gradient


def _name(design) -> str:
    from fabric.cluster_design import ClusterDesign
    from sipml.design_files import DEFAULT_DESIGN

    if isinstance(design, ClusterDesign):  # named as it was loaded; built in Python, by its fabric
        return design.name or f"a {design.fabric.kind} design"
    return str(design) if design is not None else DEFAULT_DESIGN


def budget(design=None, changes: Mapping[str, object] | None = None):
    """The link budget of the design's GPU-to-GPU optical link (with any switch passes): a
    `photonics.link_records.LinkEstimate` (ledger, margin_db, capacity, binding_limit, reach, energy, violations) that a
    notebook shows as `sipml budget`'s tables (`sipml.notebook.Result`; `.record` is the estimate itself); `changes`
    as `load_design` applies them."""
    from core.errors import InputError
    from sipml.notebook import Result
    from sipml.design_reports import budget_report

    point = evaluate(design, changes=changes)
    name = _name(design)
    if point.link_design is None:  # named as the command names it
        raise InputError(f"{name}: [fabric] kind = '{point.design.fabric.kind}' has no optical link to budget")
    return Result(point.link, lambda est: budget_report(est, name))


def fabric(design=None, changes: Mapping[str, object] | None = None, catalog_files: Sequence[str | Path] = (),
           gpu_files: Sequence[str | Path] = ()):
    """The fabric of the design: a `fabric.estimate.FabricEstimate` (per-GPU bandwidth, degree, bisection, reach,
    bill of materials, violations) that a notebook shows as `sipml fabric`'s tables; its GPU found among the shipped
    GPUs merged with `gpu_files` (`--gpu-file`: a server's NVLink is no faster than its GPU's)."""
    from fabric.evaluate import job_collectives
    from sipml.notebook import Result
    from sipml.design_reports import fabric_report

    point = _entries_checked(evaluate(design, catalog_files, changes, gpu_files), design)
    name, size = _name(design), point.design.fabric.message_size
    return Result(point.fabric, lambda fab: fabric_report(fab, job_collectives(fab, size), size, name))


def _entries_checked(point, design):
    """`point` (an evaluation), its design's catalog entries (GPU, host, switches, amplifier) checked against its
    catalog as `sipml fabric` and `sipml cost` check them: InputError naming each entry the catalog lacks."""
    from sipml.design_files import check_catalog_entries

    check_catalog_entries(point.design, point.catalog, _name(design))
    return point


def cost(design=None, catalog_files: Sequence[str | Path] = (), changes: Mapping[str, object] | None = None,
         gpu_files: Sequence[str | Path] = ()):
    """The cluster's cost and power: a `fabric.cost.CostSummary` (each figure a low/typical/high range), priced
    from the shipped catalog merged with `catalog_files`, that a notebook shows as `sipml cost`'s tables. As
    `sipml cost --format json`, a design that cannot be built is not priced: its prices, powers, shares and bill
    (`bom`) are None, `feasible` is False, `violations` the fabric's and `reason` says so in words (None when
    priced)."""
    from sipml.notebook import Result
    from sipml.design_reports import cost_data, cost_report, uncosted_network, unpriced, unpriced_reason
    from sipml.quantities import network_costed

    point = _entries_checked(evaluate(design, catalog_files, changes, gpu_files), design)
    entry = cost_data(_name(design), point.fabric, point.cost)
    reason = unpriced_reason(entry)
    record = point.cost if reason is None else unpriced(point.cost)
    if not network_costed(point.fabric):
        record = uncosted_network(record)
    verdict = {"feasible": point.fabric.feasible, "violations": point.fabric.violations, "reason": reason}
    return Result(record, lambda _: cost_report([entry]), verdict)


def reliability(design=None, model: str = "gpt3-175b", changes: Mapping[str, object] | None = None,
                catalog_files: Sequence[str | Path] = ()):
    """The reliability budget of one training job of `model` on the design (its [fabric] job_gpus), priced from the
    shipped catalog merged with `catalog_files`: a `workloads.goodput.Goodput` (its failure `lines`,
    interruptions_per_s, mtti_s, checkpoint, restart_s, ettr) that a notebook shows as `sipml reliability`'s tables;
    `to_dict()` is its JSON."""
    from sipml.notebook import Result
    from sipml.reliability_report import reliability_reading, reliability_report
    from workloads.models import load_model

    model = _file_or_name("model", model)
    point = evaluate(design, catalog_files, changes)
    loaded, catalog = point.design, point.catalog
    with _reading("model"):
        job = load_model(model)
    reading, goodput = reliability_reading(loaded, job, catalog)
    name = _name(design)
    return Result(goodput, lambda _: reliability_report(name, loaded, job, reading, catalog))


def speedup(designs=None, model: str = "gpt3-175b", *,
            gpus: int | None = None, batch: int | None = None, strategy: str | None = None,
            stack: str | None = None, sets: Sequence[str] = (),
            baselines: Sequence[str] | None = None, tokens: float | None = None,
            catalog_files: Sequence[str | Path] = (), gpu_files: Sequence[str | Path] = ()):
    """The rows of ``sipml speedup`` (`sipml.notebook.Rows`, a list of dicts a notebook shows as the command's
    tables; `to_pandas()`): for each design the best strategy under the software stack, iteration time
    and its breakdown, throughput, model TFLOP/s, MFU, speedup / per $ / per W over each baseline, and a training
    run's time, energy and cost (the keys of the README's `sipml speedup --format json`). `stack` is
    `--strategy stack=NAME`; `sets` are `--set` overrides of the designs compared (not of the baselines, except
    `BASELINE:section.key=value`). `designs`: names, files or loaded designs (`load_design`, with its changes;
    named as loaded), or a sequence of them. Each baseline carries the GPU and server host of the design it is
    compared with (`baselines.<name>.gpu`) and its `[reliability]` settings but its hot spares, and runs its best
    without the parts of `strategy` it cannot run (`baselines.<name>.fallback` says which). `catalog_files`, `gpu_files`: `--catalog`, `--gpu-file`. No
    `designs` or `baselines`: the command's (`sipml.speedup_report.DEFAULT_DESIGNS`, `DEFAULT_BASELINES`)."""
    from fabric.cluster_design import MAX_GPUS
    from sipml.notebook import Rows
    from sipml.speedup_report import DEFAULT_BASELINES, DEFAULT_DESIGNS, run_speedup, speedup_report
    from workloads.strategy import MAX_BATCH

    names, given = _compared(designs if designs is not None else list(DEFAULT_DESIGNS))
    model = _file_or_name("model", model)
    gpus, batch = _count("gpus", gpus, lo=1, hi=MAX_GPUS), _count("batch", batch, hi=MAX_BATCH)
    strategy, stack = _text("strategy", strategy, optional=True), _text("stack", stack, optional=True)
    sets = _texts("sets", sets)
    if given and (sets or gpus is not None):
        raise _bad("sets" if sets else "gpus", sets or gpus, "none with a loaded design (apply them with "
                   "load_design, as `changes`)")
    baselines = _texts("baselines", baselines if baselines is not None else list(DEFAULT_BASELINES), allow_empty=False)
    tokens = _real("tokens", tokens)
    if stack is not None:
        strategy = ",".join(x for x in (strategy, f"stack={stack}") if x)
    catalog, table = _priced(catalog_files, gpu_files)
    with _reading("designs, model or baselines"):
        rows, batch_source, failures = run_speedup(names, model, gpus, batch, strategy, list(sets),
                                                   list(baselines), tokens, catalog=catalog, gpu_table=table,
                                                   given=given)
    return Rows(rows, lambda shown: speedup_report(shown, batch_source, failures))


def _compared(designs) -> tuple[list[str], dict]:
    """(the names of the designs compared, {name: a loaded ClusterDesign} of those given loaded): names and files
    as texts, a design by the name it was loaded as (`load_design`), else 'design', 'design 2', …"""
    import os

    from fabric.cluster_design import ClusterDesign

    items = [designs] if isinstance(designs, (str, os.PathLike, ClusterDesign)) else designs
    if not isinstance(items, Sequence) or not items or not all(
            isinstance(d, (str, os.PathLike, ClusterDesign)) for d in items):
        raise _bad("designs", designs, "a design (a ClusterDesign, a file or a built-in name) or a sequence of them")
    plain = {str(item) for item in items if not isinstance(item, ClusterDesign)}  # a loaded design named apart
    names, given = [], {}
    for item in items:
        if not isinstance(item, ClusterDesign):
            names.append(str(item))
            continue
        name, n = item.name or "design", 2
        while name in names or name in plain:
            name, n = f"{item.name or 'design'} {n}", n + 1
        names.append(name)
        given[name] = item
    return names, given


def mix(designs: str | Sequence[str] | None = None, jobs: str | None = None, *, gpus: int | None = None,
        policy: str | None = None, sets: Sequence[str] = (), vary: Sequence[str] = ()):
    """The rows of ``sipml mix`` (`sipml.notebook.Rows`, one dict per design — and per point of `vary` — with its
    jobs under "jobs"; a notebook shows the command's tables, `to_dict()` is its JSON): where each job of the mix
    `jobs` (a mix file or built-in name) runs, its iteration time alone and together, the GPUs left idle and the
    mix's throughput per dollar and per watt. `sets` are `--set` items, `vary` `--vary JOB.KEY=a,b,c` axes."""
    from fabric.cluster_design import MAX_GPUS
    from sipml.mix_report import DEFAULT_DESIGNS, run_mix_command
    from sipml.notebook import Rows

    names = _texts("designs", designs if designs is not None else list(DEFAULT_DESIGNS), allow_empty=False)
    jobs, policy = _file_or_name("jobs", jobs, optional=True), _text("policy", policy, optional=True)
    gpus = _count("gpus", gpus, lo=2, hi=MAX_GPUS)
    with _reading("designs or the mix"):
        report, _ = run_mix_command(names, jobs, gpus, policy, _texts("sets", sets), _texts("vary", vary))
    return Rows(report.data["designs"], lambda shown: report)


def sweep(design=None, vary: Sequence[str] = (), *, model: str | None = None, batch: int | None = None,
          workers: int = 1, scheduler: str | None = None, link_only: bool = False, sets: Sequence[str] = (),
          catalog_files: Sequence[str | Path] = (), gpu_files: Sequence[str | Path] = (),
          baseline: str | None = None):
    """The rows of ``sipml sweep`` as a `sipml.rows.Table`: a sequence of one dict per point of the grid of `vary`
    axes (``"section.key=start:stop:count[:log]"`` or ``"section.key=a,b,c"``), in grid order, kept by column
    (`to_pandas()`, a notebook shows the first and last rows); `design` a name, a file or a loaded design
    (`load_design`, with its changes); `link_only` as ``--link-only``; `sets`, `catalog_files`, `gpu_files`,
    `baseline`: ``--set``, ``--catalog``, ``--gpu-file`` (each file read here first), ``--baseline``."""
    import os

    from sipml.sweep_point_rows import BASELINE, DataFiles
    from sipml.sweep_run import max_workers, run_sweep
    from workloads.models import load_model
    from workloads.strategy import MAX_BATCH

    from fabric.cluster_design import ClusterDesign

    if design is not None and not isinstance(design, (str, os.PathLike, ClusterDesign)):
        raise _bad("design", design, "a loaded design (load_design), a file name, a built-in design's name or None")
    axes = _texts("vary", vary, allow_empty=False)
    model, scheduler = _file_or_name("model", model, optional=True), _text("scheduler", scheduler, optional=True)
    batch = _count("batch", batch, hi=MAX_BATCH)
    if batch is not None and model is None:  # as `sipml sweep --batch` without --model
        raise _bad("batch", batch, "None without a model (the global batch of the model trained at each point)")
    workers = _count("workers", workers, optional=False, hi=max_workers())  # as --workers: 4 per core
    if not isinstance(link_only, bool):
        raise _bad("link_only", link_only, "True or False")
    if model is not None:  # refused up front, as `sipml sweep --model` is, not in every row
        with _reading("model"):
            load_model(model)
    sets = _texts("sets", sets)
    _priced(catalog_files, gpu_files)  # a file that cannot be read is refused once, before any point
    files = DataFiles(*(tuple(str(Path(p).resolve()) for p in _paths(what, given))
                        for what, given in (("catalog_files", catalog_files), ("gpu_files", gpu_files))))
    with _reading("design"), _as_file(design) as path:
        _, rows = run_sweep(path, sets, axes, model=model, batch=batch, scheduler=scheduler, workers=workers,
                            link_only=link_only, files=files,
                            baseline=BASELINE if baseline is None else _file_or_name("baseline", baseline))
    return rows


@contextlib.contextmanager
def _as_file(design):
    """The design as `sipml sweep` takes it, a name or a file: a loaded design written to a temporary design file
    (`sipml.design_files.design_toml`, which loads back to it; the sweep's workers read it), removed after."""
    import os
    import tempfile

    from fabric.cluster_design import ClusterDesign
    from sipml.design_files import design_toml

    if not isinstance(design, ClusterDesign):
        yield None if design is None else os.fspath(design)
        return
    with tempfile.TemporaryDirectory(prefix="sipml-sweep-") as folder:
        path = Path(folder) / "design.toml"
        path.write_text(design_toml(design, design.name or "a design loaded in Python"), encoding="utf-8")
        yield str(path)
