"""One point of a sweep: its design loaded with the point's --set values, and its row of link, fabric, cost and
training columns. Runs in the sweeping process, in a worker process or on a Dask worker."""

from __future__ import annotations

import functools
import math

from core.errors import SipmlError
from core.records import record
from sipml.quantities import FABRIC, LINK, QUANTITIES, SWEEP, TRAINING, Reading, column, sweep_columns


@record(slots=False)
class DataFiles:
    """The user's catalog files and GPU files a sweep prices with (none: the shipped catalog and GPUs), as paths a
    worker process or a Dask worker reads."""

    catalogs: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()


SHIPPED = DataFiles()
BASELINE = "fattree-200"  # what a sweep's training columns measure each point against unless --baseline says, as
# `sipml speedup` does


@record
class Trained:
    """What a sweep trains at each point (`--model`, `--batch`, `--baseline`): the model (a name or a file), its
    global batch (None: the model's default at each point's job size), the design its speedups are over."""

    model: str
    batch: int | None = None
    baseline: str = BASELINE


def evaluate_chunk(design: str | None, overrides: tuple, axes: tuple, points: tuple, trained: Trained | None,
                   link_only: bool = False, files: DataFiles = SHIPPED) -> list[dict]:
    """Rows of the given grid points (indices into each axis), with the training columns `trained` asks for (None:
    none). Runs in a worker process or on a Dask worker."""
    loader, baselines, links, priced = Points(design), {}, {}, priced_with(files)
    return [_row(loader, overrides, axes, point, trained, link_only, baselines, links, priced) for point in points]


def priced_with(files: DataFiles = SHIPPED) -> tuple:
    """(catalog, GPUs) of `files`: the catalog with the user's catalog files merged, and the GPUs with the user's GPU
    files (None without any: the shipped ones); the shipped catalog alone is read once per process."""
    if files == SHIPPED:
        return _catalog(), None
    from fabric.catalog import load_catalog
    from workloads.gpus import load_gpus

    catalog = load_catalog(*files.catalogs)
    return catalog, (load_gpus(*files.gpus, catalog=catalog) if files.gpus else None)


@functools.lru_cache(maxsize=1)
def _catalog():
    """The shipped catalog, loaded once per process (it is immutable)."""
    from fabric.catalog import load_catalog

    return load_catalog()


class Points:
    """Design points of one design file: the file read once, and each point's design built from it with the
    point's --set values (as `sipml.design_files.load_design` builds it); the sections a point does not change are the
    base design's."""

    def __init__(self, design: str | None):
        from sipml.design_files import DEFAULT_DESIGN, read_toml, resolve

        self.design = design
        self.data = read_toml(resolve(design if design is not None else DEFAULT_DESIGN))
        self.source = str(design) if design is not None else DEFAULT_DESIGN
        self._base = None

    def load(self, sets, given_as: str = "--set"):
        """The design with `sets` applied; its errors say where they came from as `given_as` does ('--set', or
        `given_as(overrides)` where the sets hold --vary values)."""
        from sipml.design_files import apply_overrides, design_from_mapping, section_values

        if self._base is None:
            try:
                self._base = section_values(self.data, design_from_mapping(self.data, self.source))
            except SipmlError:
                self._base = {}  # the base alone is refused (an axis may fix it): every point builds its own
        if not sets:
            return design_from_mapping(self.data, self.source, self._base, loaded_as=self.source)
        return design_from_mapping(apply_overrides(self.data, sets, self.source), f"{self.source} (with {given_as})",
                                   self._base, loaded_as=self.source)

    def within(self, sets, design) -> Points:
        """The points of this file with `sets` applied first (`design`, the design they give): a point that adds
        one value to them builds only the sections that value changes (a sweep's combination of fabric axes, then
        each value of a link axis)."""
        from sipml.design_files import apply_overrides, section_values

        combo = Points.__new__(Points)
        combo.design, combo.source = self.design, self.source
        combo.data = apply_overrides(self.data, sets, self.source)
        combo._base = section_values(combo.data, design)
        return combo


def load_point(design, sets, given_as: str = "--set"):
    """`sipml.design_files.load_design(design, sets)` (`Points.load`'s `given_as`)."""
    return Points(design).load(sets, given_as)


def given_as(overrides) -> str:
    """Where a point's values come from, as its errors say it: its --vary values, after any --set ones."""
    return "--set and --vary" if overrides else "--vary"


def _row(loader, overrides, axes, point, trained, link_only, baselines, links, priced) -> dict:
    from workloads.evaluation import Evaluation

    row = {a.column: a.values[i] for a, i in zip(axes, point)}
    sets = [*overrides, *(f"{a.section}.{a.key}={a.texts[i]}" for a, i in zip(axes, point))]
    try:
        loaded = loader.load(sets, given_as(overrides))
        evaluation = Evaluation(loaded, *priced)
        evaluation.share_link(links)
        row.update(_physics(evaluation))
        if not link_only and (loaded.has_fabric or loader.design is not None):
            row.update(_fabric(evaluation))
        if trained is not None:
            row.update(_training(evaluation, trained, baselines))
        row["error"] = ""
    except SipmlError as exc:
        row["error"] = str(exc)
    return row


PHYSICS_COLUMNS, FABRIC_COLUMNS, TRAINING_COLUMNS = (sweep_columns(stage) for stage in (LINK, FABRIC, TRAINING))


def stage_columns(reading, stage: str, labels: dict | None = None) -> dict:
    """The stage's columns of one point (or of a grid of points: arrays) in the sweep's order: numbers from the
    quantity table (NaN where a point has none), labels from `labels` (none without it)."""
    out = {}
    for key in SWEEP[stage]:
        if key in QUANTITIES:
            value = QUANTITIES[key].value(reading)
            out[column(key)] = math.nan if value is None else value
        elif labels is not None:
            out[key] = labels[key]
    return out


def _numbers_of(stage: str) -> list[str]:
    return [column(k) for k in SWEEP[stage] if k in QUANTITIES]


def _physics(evaluation) -> dict:
    est = evaluation.link
    if est is None:
        return {}
    return link_columns(est, ";".join(v.name for v in est.violations))


def link_columns(link, violations=None) -> dict:
    """The link's columns of a point's estimate (`photonics.link.evaluate`) or of a grid of them
    (`photonics.link_grid.GridResult`, its figures named as the estimate's, its violations labels already)."""
    labels = {"link_feasible": link.feasible, "binding_limit": link.binding_limit,
              "link_violations": link.violations if violations is None else violations}
    return stage_columns(Reading(link=link), LINK, labels)


def _fabric(evaluation) -> dict:
    est = evaluation.fabric
    return stage_columns(Reading(fabric=est, cost=evaluation.cost), FABRIC, {
        "fabric_feasible": est.feasible, "fabric_violations": ";".join(v.name for v in est.violations)})


def _training(evaluation, trained: Trained, baselines: dict) -> dict:
    from core.errors import InfeasibleDesign, InputError
    from sipml.speedup_report import run_key
    from workloads.models import load_model
    from workloads.speedup import default_batch

    design = evaluation.design
    est = evaluation.fabric
    if not est.feasible:
        return {"training_feasible": False, **dict.fromkeys(_numbers_of(TRAINING), math.nan),
                "training_error": infeasible_text(est.kind, [v.name for v in est.violations])}
    model_name, batch, baseline = trained.model, trained.batch, trained.baseline
    model = load_model(model_name)
    n = design.job_gpus
    if batch is None:
        batch, _ = default_batch(model, n)
    try:
        result = evaluation.training(model, batch, name="point")
    except (InfeasibleDesign, InputError) as exc:  # no strategy trains here (a job size that splits no batch, …):
        # the point's training columns say why; its design, which the checks pass, keeps its fabric and cost columns
        return {"training_feasible": False, **dict.fromkeys(_numbers_of(TRAINING), math.nan),
                "training_error": str(exc)}
    key = (model_name, batch, baseline, *run_key(design))
    if key not in baselines:
        baselines[key] = sweep_baseline(model_name, batch, design, evaluation.catalog, evaluation.gpus, baseline)
    return stage_columns(Reading(result=result, baseline=baselines[key]), TRAINING,
                    {"training_feasible": True, "training_error": ""})


def infeasible_text(kind: str, names) -> str:
    """A sweep row's training error where its design is infeasible: the limits it breaks (the row's link and
    fabric violations; `sipml check` gives each one's numbers)."""
    return f"the {kind} fabric is infeasible: {', '.join(names)}"


def sweep_baseline(model_name: str, batch: int, design, catalog, gpus, baseline: str = BASELINE):
    """The baseline (fattree-200 unless named) as `sipml speedup` measures `design` against it (its cluster and job
    size, its GPU and server host; a chunk evaluates it once per such key), priced from `catalog`, its GPU among
    `gpus`: its fastest strategy alone, all a row reads of it."""
    from sipml.speedup_report import measured_baseline
    from workloads.evaluation import Evaluation
    from workloads.models import load_model

    sizes = [f"fabric.gpus={design.fabric.gpus}"] + ([f"fabric.job_gpus={design.job_gpus}"]
                                                    if design.job_gpus < design.fabric.gpus else [])
    point = Evaluation(measured_baseline(baseline, design, sizes, None), catalog, gpus)
    return point.training(load_model(model_name), batch, name=baseline, top=1)
