"""One point of a sweep: its design loaded with the point's --set values, and its row of link, fabric, cost and
training columns. Runs in the sweeping process, in a worker process or on a Dask worker."""

from __future__ import annotations

import functools
import math

from core.errors import SipmlError


def evaluate_chunk(design: str | None, overrides: tuple, axes: tuple, points: tuple, model: str | None,
                   batch: int | None, link_only: bool = False) -> list[dict]:
    """Rows of the given grid points (indices into each axis). Runs in a worker process or on a Dask worker."""
    loader, baselines = Points(design), {}
    return [_row(loader, overrides, axes, point, model, batch, link_only, baselines) for point in points]


@functools.lru_cache(maxsize=1)
def _catalog():
    """The shipped catalog, loaded once per process (it is immutable)."""
    from fabric.catalog import load_catalog

    return load_catalog()


class Points:
    """Design points of one design file: the file read once, and each point's design built from it with the
    point's --set values (as `sipml.design.load_design` builds it); the sections a point does not change are the
    base design's."""

    def __init__(self, design: str | None):
        from sipml.design import DEFAULT_DESIGN, read_toml, resolve

        self.design = design
        self.data = read_toml(resolve(design if design is not None else DEFAULT_DESIGN))
        self.source = str(design) if design is not None else DEFAULT_DESIGN
        self._base = None

    def load(self, sets):
        from sipml.design import apply_overrides, design_from_mapping, section_values

        if self._base is None:
            try:
                self._base = section_values(self.data, design_from_mapping(self.data, self.source))
            except SipmlError:
                self._base = {}  # the base alone is refused (an axis may fix it): every point builds its own
        if not sets:
            return design_from_mapping(self.data, self.source, self._base)
        return design_from_mapping(apply_overrides(self.data, sets, self.source), f"{self.source} (with --set)",
                                   self._base)


def load_point(design, sets):
    """`sipml.design.load_design(design, sets)`."""
    return Points(design).load(sets)


def _row(loader, overrides, axes, point, model, batch, link_only, baselines) -> dict:
    from core.errors import SipmlError
    from workloads.evaluation import Evaluation

    row = {a.column: a.values[i] for a, i in zip(axes, point)}
    sets = [*overrides, *(f"{a.section}.{a.key}={a.texts[i]}" for a, i in zip(axes, point))]
    try:
        loaded = loader.load(sets)
        evaluation = Evaluation(loaded, _catalog())
        row.update(_physics(evaluation))
        if not link_only and (loaded.has_fabric or loader.design is not None):
            row.update(_fabric(evaluation))
        if model is not None:
            row.update(_training(evaluation, model, batch, baselines))
        row["error"] = ""
    except SipmlError as exc:
        row["error"] = str(exc)
    return row


PHYSICS_COLUMNS = ("link_feasible", "margin [dB]", "capacity [Gbit/s]", "binding_limit", "max_wavelengths_per_fiber",
                   "energy [pJ/bit]", "min_laser_power_per_line [dBm]", "link_violations")
FABRIC_COLUMNS = ("fabric_feasible", "effective_bandwidth [Gbit/s]", "reach [hops]", "network_cost_per_gpu [USD]",
                  "network_power_per_gpu [W]", "cluster_cost [USD]", "fabric_violations")
TRAINING_COLUMNS = ("training_feasible", "iteration [s]", "tflops_per_gpu [TFLOP/s]", "speedup", "speedup_per_dollar",
                    "speedup_per_watt", "training_error")


def _physics(evaluation) -> dict:
    est = evaluation.link
    if est is None:
        return {}
    return {"link_feasible": est.feasible, "margin [dB]": est.margin_db, "capacity [Gbit/s]": est.capacity_bps / 1e9,
            "binding_limit": est.binding_limit, "max_wavelengths_per_fiber": est.max_wavelengths_per_fiber,
            "energy [pJ/bit]": est.total_energy_j_per_bit * 1e12,
            "min_laser_power_per_line [dBm]": est.min_laser_power_per_line_dbm,
            "link_violations": ";".join(v.name for v in est.violations)}


def _fabric(evaluation) -> dict:
    est, summary = evaluation.fabric, evaluation.cost
    return {"fabric_feasible": est.feasible, "effective_bandwidth [Gbit/s]": est.effective_bandwidth_bps / 1e9,
            "reach [hops]": est.reach_hops if est.reach_hops is not None else math.nan,
            "network_cost_per_gpu [USD]": summary.network_cost_per_gpu_usd.typical,
            "network_power_per_gpu [W]": summary.network_power_per_gpu_w.typical,
            "cluster_cost [USD]": summary.cluster_cost_usd.typical,
            "fabric_violations": ";".join(v.name for v in est.violations)}


def _training(evaluation, model_name, batch, baselines: dict) -> dict:
    from core.errors import InfeasibleDesign
    from workloads.models import load_model
    from workloads.speedup import compare, default_batch

    design = evaluation.design
    model = load_model(model_name)
    n = design.job_gpus
    if batch is None:
        batch, _ = default_batch(model, n)
    try:
        result = evaluation.training(model, batch, name="point")
    except InfeasibleDesign as exc:
        return {"training_feasible": False, "iteration [s]": math.nan, "tflops_per_gpu [TFLOP/s]": math.nan,
                "speedup": math.nan, "speedup_per_dollar": math.nan, "speedup_per_watt": math.nan,
                "training_error": str(exc)}
    key = (model_name, batch, design.fabric.gpus)
    if key not in baselines:
        baselines[key] = _baseline(*key)
    versus = compare(result, baselines[key])
    return {"training_feasible": True, "iteration [s]": result.best.iteration_s,
            "tflops_per_gpu [TFLOP/s]": result.tflops_per_gpu, **versus, "training_error": ""}


def _baseline(model_name: str, batch: int, gpus: int):
    """The fattree-200 baseline at this size (a chunk evaluates it once per size)."""
    from sipml.design import load_design
    from workloads.evaluation import Evaluation
    from workloads.models import load_model

    point = Evaluation(load_design("fattree-200", [f"fabric.gpus={gpus}"]), _catalog())
    return point.training(load_model(model_name), batch, name="fattree-200")
