"""What a fabric buys: the best strategy of a model on a cluster design, its throughput, and the speedup, speedup per
dollar and per watt against a baseline, with the energy and cost of one training run.

- Strategy search: every valid strategy evaluated at once (workloads.training / workloads.generic), those that do
  not fit in memory dropped, the fastest first.
- The software stack (workloads.stacks) is an input: `stack=NAME` in the fixed strategy keys, the model file's
  `stack`, or the default (Megatron-Core for transformers, PyTorch DDP for the rest); `precision=fp8` runs the
  GEMMs in FP8 where the stack and the GPU can.
- Throughput: tokens (transformers) or samples per second. Model FLOP/s per GPU counts the model's FLOPs (forward
  and backward, no recomputation: the same whatever is recomputed) and MFU divides them by the GPUs' dense 16-bit
  peak (C22 §4, "BF16 MFU" as Llama 3 and MegaScale quote it); hardware FLOP/s and HFU count the FLOPs executed,
  recomputation included.
- Speedup = baseline iteration time / this one at the same model and batch. Per dollar: throughput per cluster
  dollar over the baseline's; per watt: throughput per cluster watt (nameplate) over the baseline's.
- A run of `tokens` (or samples): its wall time; its energy, cluster nameplate power × the load during training ×
  PUE × wall time (Epoch AI: servers draw 0.75 × TDP while training); its cost, the hardware amortised linearly
  over its life plus the electricity (Epoch AI's conventions, costs-power.md).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from core.errors import InfeasibleDesign, InputError
from core.fields import non_negative, param, positive
from fabric.catalog import Catalog, load_catalog
from fabric.cost import CostSummary, cost_summary
from fabric.design import ClusterDesign
from fabric.estimate import (FabricEstimate, distinct_points, joined_points, over_points, point_view, points,
                             pricing_view, take_points)
from fabric.evaluate import evaluate_fabric
from fabric.registry import get_kind
from workloads.generic import dlrm_breakdown, generic_breakdown, split_strategies
from workloads.gpus import Gpu, shipped_gpus
from workloads.models import DlrmModel, Model, TransformerModel
from workloads.stacks import DEFAULT_DATA_PARALLEL_STACK, DEFAULT_STACK, Stack, get_stack
from workloads.strategy import transformer_strategies
from workloads.training import Breakdown, precision_for, transformer_bound, transformer_breakdown

EPOCH = "Epoch AI (Cottier et al. 2024; costs-power.md)"


@dataclass(frozen=True, kw_only=True, slots=True)
class RunSettings:
    life: float = positive("4 yr", "s", "hardware depreciation life (amortised linearly)", f"{EPOCH}: 4 years "
                           "(5 from 2023) [verbatim]")
    electricity: float = non_negative("0.078 USD/kWh", "USD/J", "electricity price", f"{EPOCH}: US industrial "
                                      "$0.072–0.083 per kWh, 2021–2025 [verbatim]; midpoint [inferred]")
    load_fraction: float = param(0.75, "1", "power drawn while training over nameplate", f"{EPOCH}: servers draw "
                                 "0.75 × TDP during training [verbatim]", lo=0.0, hi=1.0, lo_open=True)


DEFAULT_RUN = RunSettings()


@dataclass(frozen=True)
class Candidate:
    strategy: dict
    iteration_s: float
    breakdown: dict[str, float]
    memory_bytes: float


@dataclass(frozen=True)
class Result:
    """The best strategy of one model on one design, and what it costs."""

    model: Model
    design_name: str
    estimate: FabricEstimate
    gpu: Gpu
    batch: int
    candidates: int  # strategies evaluated
    feasible: int  # of which fit in memory
    top: tuple[Candidate, ...]  # fastest first
    stack: Stack
    precision: str  # of the GEMMs
    tflops_per_gpu: float  # model FLOP/s per GPU of the best (no recomputation), in TFLOP/s
    hardware_tflops_per_gpu: float  # executed FLOP/s per GPU (recomputation included), in TFLOP/s
    mfu: float
    hfu: float
    throughput: float  # tokens/s or samples/s
    throughput_unit: str
    cost: CostSummary
    model_flops: float = 0.0  # of one iteration of the best, whole job, without recomputation
    hardware_flops: float = 0.0  # executed, recomputation included
    peak_flops: float = 0.0  # one GPU's dense peak at the GEMMs' precision

    @property
    def best(self) -> Candidate:
        return self.top[0]

    @property
    def cluster_cost_usd(self) -> float:
        return self.cost.cluster_cost_usd.typical

    @property
    def cluster_power_w(self) -> float:
        return self.cost.cluster_power_w.typical

    def run(self, amount: float, settings: RunSettings = DEFAULT_RUN) -> dict[str, float]:
        """Wall time, energy and cost of training on `amount` tokens (or samples)."""
        seconds = amount / self.throughput
        pue = self.estimate.design.fabric.pue
        energy_j = self.cluster_power_w * settings.load_fraction * pue * seconds
        hardware = self.cluster_cost_usd * seconds / settings.life
        return {"time_s": seconds, "energy_kwh": energy_j / 3.6e6, "electricity_usd": energy_j * settings.electricity,
                "hardware_usd": hardware, "run_cost_usd": hardware + energy_j * settings.electricity}


def gpu_of(design: ClusterDesign) -> Gpu:
    """The workload GPU whose catalog entry is the design's `[fabric] gpu`."""
    gpus = shipped_gpus()
    for gpu in gpus.values():
        if gpu.catalog_key == design.fabric.gpu:
            return gpu
    known = ", ".join(g.catalog_key for g in gpus.values())
    raise InputError(f"[fabric] gpu = {design.fabric.gpu!r} has no compute model; GPUs with one: {known}")


def stack_for(model: Model, fixed: dict | None = None, stack: Stack | str | None = None) -> Stack:
    """The stack a run uses: `stack=` among the fixed strategy keys, else `stack`, else the model file's, else the
    default for the model's kind."""
    chosen = (fixed or {}).get("stack") or stack or model.info.stack or (
        DEFAULT_STACK if isinstance(model, TransformerModel) else DEFAULT_DATA_PARALLEL_STACK)
    return chosen if isinstance(chosen, Stack) else get_stack(chosen)


def precision_of(gpu: Gpu, stack: Stack, fixed: dict | None = None) -> str:
    """The GEMM precision: `precision=` among the fixed keys, else the GPU's 16-bit training mode; FP8 only where
    the GPU has FP8 tensor cores and the stack runs FP8 GEMMs."""
    precision = (fixed or {}).get("precision") or precision_for(gpu)
    if precision not in gpu.precisions:
        raise InputError(f"--strategy precision={precision}: {gpu.name} has no {precision} tensor cores "
                         f"(it has {', '.join(gpu.precisions)})")
    why = stack.refusal("precision", precision)
    if why:
        raise InputError(f"--strategy precision={precision}: {why}")
    return precision


def breakdown(model: Model, gpu: Gpu, est: FabricEstimate, batch: int, fixed: dict | None = None, *,
              stack: Stack | None = None, gradient_bytes: float | None = None):
    """(strategies, breakdown) of every valid strategy of `model` on the job's GPUs of `est` under its stack."""
    n = est.job_gpus
    stack = stack_for(model, fixed, stack)
    precision = precision_of(gpu, stack, fixed)
    compute, training = stack.compute_for(gpu), stack.training
    per_candidate = _per_candidate(fixed)
    if isinstance(model, TransformerModel):
        st = transformer_strategies(model, n, batch, per_candidate, stack)
        return st, transformer_breakdown(model, gpu, est, batch, st, compute=compute, training=training,
                                         precision=precision)
    if isinstance(model, DlrmModel):
        st = split_strategies(n, batch, {"dp": n, **per_candidate})
        return st, dlrm_breakdown(model, gpu, est, batch, st, compute=compute, training=training)
    st = split_strategies(n, batch, per_candidate)
    return st, generic_breakdown(model, gpu, est, batch, st, gradient_bytes=gradient_bytes, compute=compute,
                                 training=training)


def _per_candidate(fixed: dict | None) -> dict:
    """The fixed strategy keys that hold per candidate (the stack and the precision hold for the whole search)."""
    return {k: v for k, v in (fixed or {}).items() if k not in ("stack", "precision")}


def evaluate_model(model: Model, design: ClusterDesign, name: str, batch: int, fixed: dict | None = None, *,
                   catalog: Catalog | None = None, top: int = 5, stack: Stack | str | None = None,
                   gradient_bytes: float | None = None, estimate: FabricEstimate | None = None,
                   cost: CostSummary | None = None) -> Result:
    """Search every strategy of `model` on `design` at global batch `batch` (sequences or samples) and keep the
    `top` fastest that fit. InfeasibleDesign when the fabric does not work (its violations named) or no strategy
    fits in memory. The search sees the fabric through `fabric.estimate.pricing_view`, and the last searches are
    kept by it: designs that differ only where pricing does not look (a sweep's link margins) search once.
    `estimate` and `cost`: the design's fabric and its priced bill when the caller has them
    (`workloads.evaluation.Evaluation` hands them over)."""
    est = estimate or evaluate_fabric(design)
    if not est.feasible:
        raise InfeasibleDesign(f"the {est.kind} fabric is infeasible ("
                               + "; ".join(f"{v.name}: {v.message}" for v in est.violations) + ")")
    gpu, stack, precision, ((found, est),) = _searched(model, design, est, batch, fixed, top, stack, gradient_bytes)
    if isinstance(found, str):
        raise InfeasibleDesign(found)
    return _result(model, name, est, gpu, batch, found, stack, precision,
                   cost or cost_summary(design, est, catalog or load_catalog()))


def evaluate_model_points(model: Model, design: ClusterDesign, estimate: FabricEstimate, where, name: str,
                          batch: int, cost: CostSummary, fixed: dict | None = None, *, top: int = 5,
                          stack: Stack | str | None = None) -> tuple[Result, np.ndarray]:
    """`evaluate_model` at the points `where` (a mask) of a grid of `design`'s fabric: `estimate`'s figures arrays
    over the grid (`fabric.kind.FabricKind.floor_estimate`), each point of `where` feasible, `cost` the points'
    priced bills (arrays). The points are searched as batches (`fabric.estimate.over_points`), those that price
    alike once. Returns a Result whose figures are arrays of the grid's shape (NaN outside `where` and where no
    strategy fits) and each point's reason where no strategy fits ('' elsewhere). Each point's figures are those
    `evaluate_model` finds for it; the result's candidates carry no strategy and its estimate is the grid's."""
    where = np.asarray(where, dtype=bool)
    view = over_points(estimate, where.shape, where)
    first, inverse = distinct_points(view)  # points that price alike are searched once
    gpu, stack, precision, chosen = _searched(model, design, take_points(view, first), batch, fixed, top, stack,
                                              None)
    found = [chosen[i][0] for i in inverse]
    errors = np.full(where.shape, "", dtype=object)
    errors[where] = [f if isinstance(f, str) else "" for f in found]
    return _result(model, name, estimate, gpu, batch, _over_points(found, where), stack, precision, cost), errors


def _searched(model, design, est, batch, fixed, top, stack, gradient_bytes):
    """(gpu, stack, precision, [(found, the estimate it was found on)] per point of `est`): the search on each way
    the fabric can run the job, the fastest kept (the first of equals)."""
    gpu = gpu_of(design)
    stack = stack_for(model, fixed, stack)
    precision = precision_of(gpu, stack, fixed)
    fixed_items = tuple(sorted((k, v) for k, v in (fixed or {}).items() if k not in ("stack", "precision")))
    # a fabric that can run a job several ways (SiP-Ring's wavelength allocations) runs it the fastest one
    options = get_kind(est.kind).alternatives(est)
    found = _search_options(model, gpu, options, batch, fixed_items, top, stack, precision, gradient_bytes)
    seconds = (lambda f: math.inf if isinstance(f, str) else f.top[0].iteration_s)
    best = [min(range(len(options)), key=lambda k: seconds(found[k][i])) for i in range(len(found[0]))]
    return gpu, stack, precision, [(found[k][i], options[k]) for i, k in enumerate(best)]


def _result(model, name, est, gpu, batch, found, stack, precision, cost) -> Result:
    n = est.job_gpus
    unit, per_iteration = ("tokens/s", batch * model.seq_len) if isinstance(model, TransformerModel) \
        else ("samples/s", batch)
    best = found.top[0]
    peak = gpu.peak_flops(precision_for(gpu))
    per_gpu = n * best.iteration_s
    return Result(
        model=model, design_name=name, estimate=est, gpu=gpu, batch=batch, candidates=found.candidates,
        feasible=found.feasible, top=found.top, stack=stack, precision=precision,
        tflops_per_gpu=found.model_flops / per_gpu / 1e12, hardware_tflops_per_gpu=found.hardware_flops / per_gpu / 1e12,
        mfu=found.model_flops / (per_gpu * peak), hfu=found.hardware_flops / (per_gpu * peak),
        throughput=per_iteration / best.iteration_s, throughput_unit=unit, cost=cost, model_flops=found.model_flops,
        hardware_flops=found.hardware_flops, peak_flops=peak)


@dataclass(frozen=True)
class _Found:
    candidates: int
    feasible: int
    top: tuple[Candidate, ...]
    hardware_flops: float  # of the best
    model_flops: float


def _over_points(found: list, where: np.ndarray) -> _Found:
    """The searches at the points `where` of a grid as one record of arrays over the grid: the best candidate's
    figures (no strategy), NaN elsewhere and where a point found no strategy (a reason instead)."""
    def grid(pick):
        out = np.full(where.shape, math.nan)
        out[where] = [math.nan if isinstance(f, str) else pick(f) for f in found]
        return out

    got = [f for f in found if not isinstance(f, str)]
    phases = {name: grid(lambda f, name=name: f.top[0].breakdown[name]) for name in (got[0].top[0].breakdown if got
                                                                                      else ())}
    return _Found(candidates=grid(lambda f: f.candidates), feasible=grid(lambda f: f.feasible),
                  top=(Candidate(strategy=None, iteration_s=grid(lambda f: f.top[0].iteration_s), breakdown=phases,
                                 memory_bytes=grid(lambda f: f.top[0].memory_bytes)),),
                  hardware_flops=grid(lambda f: f.hardware_flops), model_flops=grid(lambda f: f.model_flops))


def _search_options(model, gpu, options: tuple, batch, fixed_items, top, stack, precision, gradient_bytes) -> list:
    """[the searches at each point of each option]: estimates of one point through `_search`'s memory; batched
    views (`fabric.estimate.over_points`) a transformer's options at once, the others point by point."""
    if all(points(o) is None for o in options):
        return [[f] for f in _search(model, gpu, tuple(pricing_view(o) for o in options), batch, fixed_items, top,
                                     stack, precision, gradient_bytes)]
    if isinstance(model, TransformerModel):  # the options configured alike at once (their shares alike everywhere)
        alike: dict[bool, list[int]] = {}
        for k, o in enumerate(options):
            alike.setdefault(_configured_once(o), []).append(k)
        out = {}
        for group in alike.values():
            found = _bounded_in_parts(model, gpu, _one_batch([options[k] for k in group]), batch, fixed_items, top,
                                      stack, precision)
            sizes = [points(options[k]) for k in group]
            out.update({k: found[start:start + n] for k, start, n in zip(group, np.cumsum([0, *sizes]), sizes)})
        return [out[k] for k in range(len(options))]
    return [[_search(model, gpu, (point_view(o, i),), batch, fixed_items, top, stack, precision, gradient_bytes)[0]
             for i in range(points(o))] for o in options]


@functools.lru_cache(maxsize=4096)  # keyed on what pricing reads: designs that differ elsewhere search once
def _search(model: Model, gpu: Gpu, views: tuple, batch: int, fixed_items: tuple, top: int, stack: Stack,
            precision: str, gradient_bytes: float | None) -> tuple:
    """The strategy search on each pricing view of `views` (the ways a fabric can run the job), one point each:
    the `top` fastest candidates that fit there, or why none does. A transformer's views are searched at once."""
    if isinstance(model, TransformerModel):
        return tuple(_bounded_search(model, gpu, _one_batch(views), batch, fixed_items, top, stack, precision))
    out = []
    for view in views:
        st, br = breakdown(model, gpu, view, batch, {**dict(fixed_items), "precision": precision}, stack=stack,
                           gradient_bytes=gradient_bytes)
        out.append(_found(st, br, br.fits, np.arange(len(st)), br, top, model, gpu))
    return tuple(out)


def _one_batch(views) -> FabricEstimate:
    """The views as one batch of their points (`fabric.estimate.joined_points`); one view as it is."""
    if len(views) == 1:
        return views[0]
    return joined_points([dataclasses.replace(v, static=_configured_once(v)) for v in views])


def _configured_once(view: FabricEstimate) -> bool:
    """Whether the view's fabric is configured once per job: as it says, or as its kind is."""
    return get_kind(view.kind).static if view.static is None else bool(view.static)


FIRST_PRICED = 512  # strategies priced in the first round of a bounded search (each round doubles it)
FIRST_PRICED_FEW = 2048  # … of a search of at most FEW_POINTS points (one design's ways to run a job), whose rounds
FEW_POINTS = 3  # cost their Python more than their arithmetic (measured: 512 → 2 048 takes a fattree-200 baseline
# of gpt2-355m from 24 to 20 ms, GPT-3 175B on SiP-Ring from 45–50 to 35–40 ms; 4 096 and 8 192 are slower again)
POINTS_PER_SEARCH = 256  # points of a batched view searched together, so that its arrays stay small (measured on a
# 10 000-point gpt2-355m sweep with 3 550 feasible points: all at once 52 s, 64 at a time 33 s, 256 at a time 29 s)


def _bounded_in_parts(model, gpu, view, batch, fixed_items, top, stack, precision) -> list:
    """`_bounded_search` at every point of a batched view, POINTS_PER_SEARCH points at a time (a point's search
    does not depend on the others searched with it)."""
    count = points(view)
    if count <= POINTS_PER_SEARCH:
        return _bounded_search(model, gpu, view, batch, fixed_items, top, stack, precision)
    return [found for start in range(0, count, POINTS_PER_SEARCH) for found in _bounded_search(
        model, gpu, take_points(view, np.arange(start, min(start + POINTS_PER_SEARCH, count))), batch, fixed_items,
        top, stack, precision)]


def _bounded_search(model: TransformerModel, gpu: Gpu, view: FabricEstimate, batch: int, fixed_items: tuple, top: int,
                    stack: Stack, precision: str) -> list:
    """The transformer search, branch and bound, at each point of `view` (one, or a batched view's): strategies
    are priced in rounds in the order of their iteration with free communication
    (`workloads.training.transformer_bound`, which no fabric beats), and a point's rounds stop at the first
    strategy whose bound is above the `top`-th fastest priced there so far; those left out cannot be among its
    fastest, so the result is the full search's (ties included: a bound equal to the `top`-th time is priced). A
    round prices the points still searching, up to the farthest of their stops (each point's strategies beyond its
    own stop are slower than its `top`-th)."""
    st = transformer_strategies(model, view.job_gpus, batch, _per_candidate(dict(fixed_items)), stack)
    kw = dict(compute=stack.compute_for(gpu), training=stack.training, precision=precision)
    bound = transformer_bound(model, gpu, batch, st, **kw)
    fits = bound.fits
    order = np.flatnonzero(fits)[np.argsort(bound.iteration_s[fits], kind="stable")]
    lower = bound.iteration_s[order]
    count = 1 if points(view) is None else points(view)
    fastest = np.full((count, top), math.inf)  # each point's `top` fastest priced so far
    rounds, rows, start, size = [], np.arange(count), 0, FIRST_PRICED_FEW if count <= FEW_POINTS else FIRST_PRICED
    while start < len(order):
        end = start + size
        if rounds:
            stops = np.searchsorted(lower, fastest[:, -1], side="right")
            rows = np.flatnonzero(stops > start)
            if not rows.size:
                break
            end = min(end, int(stops[rows].max()))
        index = np.sort(order[start:end])
        br = transformer_breakdown(model, gpu, view if len(rows) == count else take_points(view, rows), batch, st,
                                   index=index, **kw)
        times = np.broadcast_to(br.iteration_s, (len(rows), len(index)))
        merged = np.concatenate([fastest[rows], np.where(np.isfinite(times), times, math.inf)], axis=1)
        fastest[rows] = np.sort(np.partition(merged, top - 1, axis=1)[:, :top], axis=1)
        rounds.append((dict(zip(rows.tolist(), range(len(rows)))), index, br))
        start, size = end, 2 * size
    if not rounds:  # nothing fits in memory
        return [_found(st, bound, fits, np.arange(len(st)), bound, top, model, gpu)] * count
    out = []
    for i in range(count):  # a point's rounds are the first few
        mine = [(index, br.point(at[i])) for at, index, br in rounds if i in at]
        index = np.concatenate([index for index, _ in mine])
        out.append(_found(st, _joined([br for _, br in mine]), np.ones(len(index), dtype=bool), index, bound, top,
                          model, gpu))
    return out


def _joined(parts: list) -> Breakdown:
    """Breakdowns of consecutive groups of strategies as one."""
    if len(parts) == 1:
        return parts[0]
    values = {}
    for f in dataclasses.fields(Breakdown):
        arrays = [getattr(p, f.name) for p in parts]
        if not isinstance(arrays[0], np.ndarray):
            values[f.name] = arrays[0]
            continue
        rows = max(a.shape[0] if a.ndim == 2 else 0 for a in arrays)  # a batched view's points
        values[f.name] = np.concatenate([np.broadcast_to(a, (rows, a.shape[-1])) for a in arrays], axis=1) if rows \
            else np.concatenate(arrays)
    return Breakdown(**values)


def _found(st, br, fits, index, everything, top: int, model: Model, gpu: Gpu) -> _Found | str:
    """The `top` fastest of the priced strategies `index` (their breakdown `br`, `fits` of them in memory), ties in
    the strategies' order; `everything`, a breakdown of every strategy (for the memory it needs)."""
    t = br.iteration_s
    ok = fits & np.isfinite(t)
    if not ok.any():
        needed = float(np.min(everything.memory_bytes)) / 1e9
        return (f"no strategy of {model.name} fits in {gpu.name}'s memory "
                f"(the smallest needs {needed:.1f} GB of {everything.memory_limit_bytes / 1e9:.1f} GB usable)")
    rows = np.flatnonzero(ok)
    rows = rows[np.lexsort((index[rows], t[rows]))][:top]  # by time, then the strategies' order
    best = int(rows[0])
    return _Found(candidates=len(st), feasible=int(np.sum(everything.fits)),
                  top=tuple(Candidate(strategy=st.row(int(index[r])), iteration_s=float(t[r]),
                                      breakdown=br.phases(int(r)), memory_bytes=float(br.memory_bytes[r]))
                            for r in rows),
                  hardware_flops=float(br.hardware_flops[best]), model_flops=float(br.model_flops[best]))


def compare(result: Result, baseline: Result) -> dict[str, float]:
    """Speedup, speedup per dollar and per watt of `result` over `baseline` (same model and batch)."""
    speedup = baseline.best.iteration_s / result.best.iteration_s
    return {"speedup": speedup,
            "speedup_per_dollar": speedup * baseline.cluster_cost_usd / result.cluster_cost_usd,
            "speedup_per_watt": speedup * baseline.cluster_power_w / result.cluster_power_w}


# Global batch (sequences for transformers, samples otherwise) each zoo model trains at unless told, with its source.
DEFAULT_BATCH = {
    "megatron-1.7b": (512, "N21 Table 1 [restated]"), "megatron-3.6b": (512, "N21 Table 1 [restated]"),
    "megatron-7.5b": (512, "N21 Table 1 [restated]"), "megatron-18.4b": (1024, "N21 Table 1 [restated]"),
    "megatron-39.1b": (1536, "N21 Table 1 [restated]"), "megatron-76.1b": (1792, "N21 Table 1 [restated]"),
    "megatron-145.6b": (2304, "N21 Table 1 [restated]"), "megatron-310.1b": (2160, "N21 Table 1 [restated]"),
    "megatron-529.6b": (2520, "N21 Table 1 [restated]"), "megatron-1008b": (3072, "N21 Table 1 [restated]"),
    "gpt3-175b": (1536, "Brown et al. 2020: 3.2M tokens per batch = 1536 × 2048 [restated]"),
    "gpt2-355m": (1024, "SiP-ML's GPT-2 case (sipml.md) [sim]"),
    "transformer-big": (1024, "SiP-ML's Transformer-big case (sipml.md) [sim]"),
    "resnet-50": (8192, "SiP-ML's ResNet-50 case (sipml.md) [sim]"),
    "vgg-16": (8192, "[assumed] as SiP-ML's ResNet-50"),
    "bert-large": (1024, "[assumed] a 0.5M-token batch at 512 tokens"),
    "dlrm-dcnv2": (65536, "MLPerf DLRM-DCNv2 reference global batch (workloads-2.md §5) [verbatim]"),
    "mixtral-8x7b": (1024, "[assumed] a 4M-token batch at 4096 tokens"),
    "deepseek-v3": (15360, "DeepSeek-V3 §4.2: batch size raised to 15,360 sequences [restated]"),
    "llama3-405b": (2048, "Llama 3 Table 4: 16M tokens per batch at 8,192 tokens [verbatim]"),
}


def default_batch(model: Model, gpus: int) -> tuple[int, str]:
    """(global batch, where it comes from) for `model` on `gpus` GPUs."""
    if model.name in DEFAULT_BATCH:
        return DEFAULT_BATCH[model.name]
    return 2 * gpus, "[assumed] two samples per GPU (a model outside the zoo: give --batch)"
