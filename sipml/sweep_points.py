"""One point of a sweep: its design loaded with the point's --set values, and its row of link, fabric, cost and
training columns. Runs in the sweeping process, in a worker process or on a Dask worker."""

from __future__ import annotations

import functools
import math


def evaluate_chunk(design: str | None, overrides: tuple, axes: tuple, points: tuple, model: str | None,
                   batch: int | None, link_only: bool = False) -> list[dict]:
    """Rows of the given grid points (indices into each axis). Runs in a worker process or on a Dask worker."""
    return [_row(design, overrides, axes, point, model, batch, link_only) for point in points]


@functools.lru_cache(maxsize=8)
def _base_data(design):
    """The parsed design file and its name in messages, read once per process (as `load_design` reads it)."""
    from sipml.design import DEFAULT_DESIGN, read_toml, resolve

    return read_toml(resolve(design if design is not None else DEFAULT_DESIGN)), (
        str(design) if design is not None else DEFAULT_DESIGN)


@functools.lru_cache(maxsize=1)
def _catalog():
    """The shipped catalog, loaded once per process (it is immutable)."""
    from fabric.catalog import load_catalog

    return load_catalog()


def load_point(design, sets):
    """`sipml.design.load_design(design, sets)`, without reading and parsing the file at every point."""
    from sipml.design import apply_overrides, design_from_mapping

    data, source = _base_data(design)
    if not sets:
        return design_from_mapping(data, source)
    return design_from_mapping(apply_overrides(data, sets, source), f"{source} (with --set)")


def _row(design, overrides, axes, point, model, batch, link_only=False) -> dict:
    from core.errors import SipmlError

    row = {a.column: a.values[i] for a, i in zip(axes, point)}
    sets = [*overrides, *(f"{a.section}.{a.key}={a.texts[i]}" for a, i in zip(axes, point))]
    try:
        loaded = load_point(design, sets)
        row.update(_physics(loaded))
        if not link_only and (loaded.has_fabric or design is not None):
            row.update(_fabric(loaded))
        if model is not None:
            row.update(_training(loaded, model, batch))
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


def _physics(design) -> dict:
    from fabric.evaluate import effective_link
    from photonics.link import evaluate

    link = effective_link(design)
    if link is None:
        return {}
    est = evaluate(link)
    return {"link_feasible": est.feasible, "margin [dB]": est.margin_db, "capacity [Gbit/s]": est.capacity_bps / 1e9,
            "binding_limit": est.binding_limit, "max_wavelengths_per_fiber": est.max_wavelengths_per_fiber,
            "energy [pJ/bit]": est.total_energy_j_per_bit * 1e12,
            "min_laser_power_per_line [dBm]": est.min_laser_power_per_line_dbm,
            "link_violations": ";".join(v.name for v in est.violations)}


def _fabric(design) -> dict:
    from fabric.cost import cost_summary
    from fabric.evaluate import evaluate_fabric

    est = evaluate_fabric(design)
    summary = cost_summary(design, est, _catalog())
    return {"fabric_feasible": est.feasible, "effective_bandwidth [Gbit/s]": est.effective_bandwidth_bps / 1e9,
            "reach [hops]": est.reach_hops if est.reach_hops is not None else math.nan,
            "network_cost_per_gpu [USD]": summary.network_cost_per_gpu_usd.typical,
            "network_power_per_gpu [W]": summary.network_power_per_gpu_w.typical,
            "cluster_cost [USD]": summary.cluster_cost_usd.typical,
            "fabric_violations": ";".join(v.name for v in est.violations)}


def _training(design, model_name, batch) -> dict:
    from core.errors import InfeasibleDesign
    from workloads.models import load_model
    from workloads.speedup import compare, default_batch, evaluate_model

    model = load_model(model_name)
    n = design.job_gpus
    if batch is None:
        batch, _ = default_batch(model, n)
    try:
        result = evaluate_model(model, design, "point", batch, catalog=_catalog())
    except InfeasibleDesign as exc:
        return {"training_feasible": False, "iteration [s]": math.nan, "tflops_per_gpu [TFLOP/s]": math.nan,
                "speedup": math.nan, "speedup_per_dollar": math.nan, "speedup_per_watt": math.nan,
                "training_error": str(exc)}
    versus = compare(result, _baseline(model_name, batch, design.fabric.gpus))
    return {"training_feasible": True, "iteration [s]": result.best.iteration_s,
            "tflops_per_gpu [TFLOP/s]": result.tflops_per_gpu, **versus, "training_error": ""}


@functools.lru_cache(maxsize=16)
def _baseline(model_name: str, batch: int, gpus: int):
    """The fattree-200 baseline at this size, searched once per process."""
    from sipml.design import load_design
    from workloads.models import load_model
    from workloads.speedup import evaluate_model

    return evaluate_model(load_model(model_name), load_design("fattree-200", [f"fabric.gpus={gpus}"]), "fattree-200",
                          batch, catalog=_catalog())


