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
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from core import speed_knobs
from core.errors import InfeasibleDesign, InputError
from core.fields import non_negative, param, positive
from core.records import record
from fabric.catalog import Catalog, load_catalog
from fabric.cost import CostSummary, cost_summary
from fabric.cluster_design import ClusterDesign
from fabric.estimate import (FabricEstimate, distinct_points, joined_points, over_points, point_view, points,
                             pricing_view, take_points)
from fabric.evaluate import evaluate_fabric
from fabric.kind import configured_once
from fabric.registry import get_kind
from workloads import kinds
from workloads.gpus import Gpu, shipped_gpus
from workloads.models import Model
from workloads.stacks import Stack, get_stack
from workloads.strategy import transformer_strategies
from workloads.training import (Breakdown, plan_breakdown, precision_for, transformer_floor, transformer_plan)

EPOCH = "Epoch AI (Cottier et al. 2024; costs-power.md)"


@record(kw_only=True)
class RunSettings:
    """What a training run's cost reads: the hardware's depreciation life, electricity price and load."""
    life: float = positive("4 yr", "s", "hardware depreciation life (amortised linearly)", f"{EPOCH}: 4 years "
                           "(5 from 2023) [verbatim]")
    electricity: float = non_negative("0.078 USD/kWh", "USD/J", "electricity price", f"{EPOCH}: US industrial "
                                      "$0.072–0.083 per kWh, 2021–2025 [verbatim]; midpoint [inferred]")
    load_fraction: float = param(0.75, "1", "power drawn while training over nameplate", f"{EPOCH}: servers draw "
                                 "0.75 × TDP during training [verbatim]", lo=0.0, hi=1.0, lo_open=True)


DEFAULT_RUN = RunSettings()


def holding_cost(cost_usd: float, power_w: float, pue: float, seconds, settings: RunSettings = DEFAULT_RUN) -> dict:
    """What holding hardware of `cost_usd` and nameplate `power_w` for `seconds` costs: its energy at the training
    load and PUE, its hardware amortised linearly over its life, and their sum (Epoch AI's accounting, RunSettings)."""
    energy_j = power_w * settings.load_fraction * pue * seconds
    hardware = cost_usd * seconds / settings.life
    electricity = energy_j * settings.electricity
    return {"energy_kwh": energy_j / 3.6e6, "electricity_usd": electricity, "hardware_usd": hardware,
            "run_cost_usd": hardware + electricity}


@record(slots=False)
class Candidate:
    """One parallel strategy of a search: its iteration time, the time breakdown and memory per GPU."""
    strategy: dict
    iteration_s: float
    breakdown: dict[str, float]
    memory_bytes: float


@record(slots=False)
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
    goodput: object = None  # workloads.goodput.Goodput: its interruptions, checkpoints, restarts and ETTR

    @property
    def best(self) -> Candidate:
        return self.top[0]

    @property
    def cluster_cost_usd(self) -> float:
        return self.cost.cluster_cost_usd.typical

    @property
    def cluster_power_w(self) -> float:
        return self.cost.cluster_power_w.typical

    @property
    def job_share(self) -> float:
        """The job's share of the cluster it runs on: its GPUs over the cluster's (1 for a job on all of it)."""
        return self.estimate.job_gpus / self.estimate.gpus

    @property
    def job_cost_usd(self) -> float:
        """The job's share of the cluster's typical cost: what the job is charged."""
        return self.cluster_cost_usd * self.job_share

    @property
    def job_power_w(self) -> float:
        """The job's share of the cluster's nameplate power."""
        return self.cluster_power_w * self.job_share

    def run(self, amount: float, settings: RunSettings = DEFAULT_RUN) -> dict[str, float]:
        """Wall time, energy and cost of training on `amount` tokens (or samples), on the job's share of the
        cluster."""
        seconds = amount / self.throughput
        return {"time_s": seconds, **holding_cost(self.job_cost_usd, self.job_power_w,
                                                  self.estimate.design.fabric.pue, seconds, settings)}

    @property
    def ettr(self) -> float:
        """Effective training time ratio (1 where its interruptions are not known)."""
        return self.goodput.ettr if self.goodput is not None else 1.0

    @property
    def goodput_cost_usd(self) -> float:
        """The job's share of the cluster's typical cost with the job's hot spares."""
        return self.job_cost_usd + (self.goodput.spares_cost_usd if self.goodput is not None else 0.0)

    @property
    def goodput_power_w(self) -> float:
        """The job's share of the cluster's nameplate power with the job's hot spares (powered, as hot spares are:
        their share of the cluster's nameplate, as the spares' cost is their share of its cost)."""
        reliability = getattr(self.estimate.design, "reliability", None)
        spares = reliability.spare_gpus if reliability is not None and self.goodput is not None else 0
        return self.job_power_w + spares * self.cluster_power_w / self.estimate.gpus

    def goodput_run(self, amount: float, settings: RunSettings = DEFAULT_RUN) -> dict[str, float]:
        """`run` with its interruptions: the failure-free time over ETTR (the cluster held and powered while it
        restarts and redoes work), its hardware and power the cluster's with the job's spares."""
        seconds = amount / self.throughput / self.ettr
        held = holding_cost(self.goodput_cost_usd, self.goodput_power_w, self.estimate.design.fabric.pue, seconds,
                            settings)
        return {"time_s": seconds, "energy_kwh": held["energy_kwh"], "run_cost_usd": held["run_cost_usd"]}


def gpu_of(design: ClusterDesign, gpus: Mapping[str, Gpu] | None = None) -> Gpu:
    """The workload GPU whose catalog entry is the design's `[fabric] gpu`, among `gpus` (the shipped ones, or
    those `workloads.gpus.load_gpus` read with a user's GPU files)."""
    if gpus is None:  # the shipped GPU the design names, read alone
        gpus = shipped_gpus()
        found = gpus.with_catalog_key(design.fabric.gpu)
        if found is not None:
            return found
    for gpu in gpus.values():
        if gpu.catalog_key == design.fabric.gpu:
            return gpu
    known = ", ".join(g.catalog_key for g in gpus.values())
    raise InputError(f"[fabric] gpu = {design.fabric.gpu!r} has no compute model; GPUs with one: {known}")


PRE_NVLS = ("volta", "ampere")  # GPU generations NCCL runs no NVLink SHARP on: its NVLS efficiency is 0 before
# Hopper, by compute capability (fabric-photonics-3.md F4) [verbatim]


def gpu_bound(design: ClusterDesign, gpus: Mapping[str, Gpu] | None = None) -> ClusterDesign:
    """The design as its GPU can run it: a fabric section's `nvlink_bandwidth` (per GPU per direction) above the
    GPU's own (gpus.toml) is the GPU's, as an H800 in a DGX H100 server moves 200 GB/s a direction, not 450; NVLink
    SHARP (`in_network_reduction = "nvls"`) is off on a GPU before Hopper. The design as it is where its fabric has
    no NVLink, nothing binds, or its GPU has no compute model."""
    pair = _nvlinks(design, gpus)
    if pair is None:
        return design
    changes = {}
    if pair.gpu < pair.servers:
        if pair.gpu <= 0:
            raise InputError(f"{pair.name} has no NVLink (its nvlink_bandwidth is 0): a server of "
                             f"{design.topology.gpus_per_server} GPUs cannot join it by NVLink; give it "
                             f"[{get_kind(design.fabric.kind).section}] gpus_per_server = 1")
        changes["nvlink_bandwidth"] = pair.gpu
    if getattr(design.topology, "in_network_reduction", None) == "nvls" and pair.architecture in PRE_NVLS:
        changes["in_network_reduction"] = "none"
    if not changes:
        return design
    return dataclasses.replace(design, topology=dataclasses.replace(design.topology, **changes))


def gpu_bound_note(design: ClusterDesign, bound: ClusterDesign) -> str:
    """What `gpu_bound` changed from `design` to `bound`, said as a fabric note ('' where nothing)."""
    if bound is design:
        return ""
    said = []
    if bound.topology.nvlink_bandwidth != design.topology.nvlink_bandwidth:
        said.append(f"{_nvlinks(design, None, bound.topology.nvlink_bandwidth).said} is more than "
                    f"{design.fabric.gpu}'s own NVLink ({bound.topology.nvlink_bandwidth / 1e9:g} Gbit/s a "
                    "direction): the GPU's is used")
    if bound.topology.in_network_reduction != design.topology.in_network_reduction:
        said.append(f"in_network_reduction = 'nvls': {design.fabric.gpu} is older than Hopper, where NCCL has no "
                    "NVLink SHARP: all-reduces run as rings and trees")
    return "; ".join(said)


def slower_nvlink_note(design: ClusterDesign, gpus: Mapping[str, Gpu] | None = None) -> str:
    """A design whose servers' NVLink is slower than its GPU's own (a B200 in a design's H100 servers, set by hand
    or named as its host): the design's is used, as built, and said with the setting that would take the GPU's own
    server's where one would ('' where not, or where the fabric has no NVLink domain)."""
    pair = _nvlinks(design, gpus)
    if pair is None or pair.gpu <= pair.servers:
        return ""
    return (f"{pair.said} is less than {design.fabric.gpu}'s own NVLink ({pair.gpu / 1e9:g} Gbit/s a direction): "
            f"the design's servers are used as built{pair.fix}")


class NvlinkPair(NamedTuple):
    servers: float  # the design's servers' NVLink, bit/s per GPU per direction
    gpu: float  # the GPU's own (gpus.toml)
    name: str  # the GPU's name
    architecture: str  # its generation ('' where the caller gave its NVLink alone)
    said: str  # the servers' NVLink as a note names it: the setting, or the server it is taken from
    fix: str  # ' (the setting that takes the GPU's own server's NVLink)', or '' where none would


def _nvlinks(design: ClusterDesign, gpus: Mapping[str, Gpu] | None, own: float | None = None) -> NvlinkPair | None:
    """The design's servers' NVLink and its GPU's own (`own` where the caller has it); None where the fabric has
    no NVLink domain (no nvlink_bandwidth, or servers of one GPU) or the GPU is priced but not modelled (the fabric
    as designed)."""
    topology, kind = design.topology, get_kind(design.fabric.kind)
    try:
        domain = kind.nvlink_domain(design)
        if domain is None or domain.gpus < 2:  # no NVLink domain
            return None
        gpu = gpu_of(design, gpus) if own is None else None
    except InputError:  # a server without a known NVLink domain: the fabric's evaluation says so
        return None
    rate = f"{domain.nvlink_bps / 1e9:g} Gbit/s"
    said = (f"[{kind.section}] nvlink_bandwidth {rate}" if topology.nvlink_bandwidth else
            f"the {domain.name}'s NVLink ({rate} a direction)")
    return NvlinkPair(servers=domain.nvlink_bps, gpu=own if gpu is None else gpu.nvlink_bandwidth_bps,
                      name=design.fabric.gpu if gpu is None else gpu.name,
                      architecture="" if gpu is None else gpu.architecture, said=said,
                      fix=_own_server_fix(design, kind.section))


def _own_server_fix(design: ClusterDesign, section: str) -> str:
    """' (the settings that would take the GPU's own server's NVLink)'; '' where none would: the GPU's server is
    unknown, or the design takes it already."""
    from fabric.cluster_design import SERVER_NVLINK, SERVERS

    own, topology = SERVERS.get(design.fabric.gpu), design.topology
    if own not in SERVER_NVLINK:
        return ""
    unset = [text for text, on in (('nvlink_bandwidth = "0 Gbit/s"', topology.nvlink_bandwidth != 0),
                                   ('nvswitch = "server"', topology.nvswitch != "server")) if on]
    fixes = []
    if unset:
        fixes.append(f"[{section}] {' and '.join(unset)} take{'s' if len(unset) == 1 else ''} its server's NVLink")
    if design.fabric.host not in ("gpu", "none", own):  # a server named as host: the GPU's own takes its NVLink
        fixes.append("[fabric] host = 'gpu' takes the GPU's own server")
    return f" ({'; '.join(fixes)})" if fixes else ""


def stack_for(model: Model, fixed: dict | None = None, stack: Stack | str | None = None) -> Stack:
    """The stack a run uses: `stack=` among the fixed strategy keys, else `stack`, else the model file's, else the
    default for the model's kind."""
    chosen = (fixed or {}).get("stack") or stack or model.info.stack or kinds.of(model).default_stack
    return chosen if isinstance(chosen, Stack) else get_stack(chosen)


def precision_of(gpu: Gpu, stack: Stack, fixed: dict | None = None) -> str:
    """The GEMM precision: `precision=` among the fixed keys, else the stack's (`gemm_precision`: FP8 where the GPU
    has FP8 tensor cores) or the GPU's 16-bit training mode; FP8 only where the GPU has FP8 tensor cores and the
    stack runs FP8 GEMMs."""
    own = "fp8" if stack.compute.gemm_precision == "fp8" and "fp8" in gpu.precisions else None
    precision = (fixed or {}).get("precision") or own or precision_for(gpu)
    why = precision_refusal(gpu, stack, precision)
    if why:
        raise InputError(f"--strategy precision={precision}: {why}")
    return precision


def precision_refusal(gpu: Gpu, stack: Stack, precision: str) -> str:
    """Why `gpu` under `stack` cannot run its GEMMs at `precision` ('' when it can)."""
    if precision not in gpu.precisions:
        return f"{gpu.name} has no {precision} tensor cores (it has {', '.join(gpu.precisions)})"
    return stack.refusal("precision", precision) or ""


def breakdown(model: Model, gpu: Gpu, est: FabricEstimate, batch: int, fixed: dict | None = None, *,
              stack: Stack | None = None, gradient_bytes: float | None = None):
    """(strategies, breakdown) of every valid strategy of `model` on the job's GPUs of `est` under its stack."""
    stack = stack_for(model, fixed, stack)
    return kinds.of(model).breakdown(model, gpu, est, batch, _per_candidate(fixed), stack=stack,
                                     precision=precision_of(gpu, stack, fixed), gradient_bytes=gradient_bytes)


def _per_candidate(fixed: dict | None) -> dict:
    """The fixed strategy keys that hold per candidate (the stack and the precision hold for the whole search)."""
    return {k: v for k, v in (fixed or {}).items() if k not in ("stack", "precision")}


@record(slots=False)
class SearchJob:
    """What a strategy search holds fixed: the model, its GPU, the global batch, the fixed per-candidate strategy
    keys (sorted items), the stack and the GEMM precision. Hashable: with the pricing views, the search's memo key
    (the GPU by its identity: a GPU file read twice gives two keys, never one key for two GPUs)."""

    model: Model
    gpu: Gpu
    batch: int
    fixed_items: tuple
    stack: Stack
    precision: str


def search_job(model: Model, design: ClusterDesign, batch: int, fixed: dict | None, stack, gpus) -> SearchJob:
    """The search of `model` on `design` at `batch`: its GPU (among `gpus`), stack, precision and fixed keys."""
    gpu = gpu_of(design, gpus)
    stack = stack_for(model, fixed, stack)
    return SearchJob(model, gpu, batch, tuple(sorted(_per_candidate(fixed).items())), stack,
                     precision_of(gpu, stack, fixed))


def evaluate_model(model: Model, design: ClusterDesign, name: str, batch: int, fixed: dict | None = None, *,
                   catalog: Catalog | None = None, top: int = 5, stack: Stack | str | None = None,
                   gradient_bytes: float | None = None, estimate: FabricEstimate | None = None,
                   cost: CostSummary | None = None, gpus: Mapping[str, Gpu] | None = None) -> Result:
    """Search every strategy of `model` on `design` at global batch `batch` (sequences or samples) and keep the
    `top` fastest that fit. InfeasibleDesign when the fabric does not work (its violations named) or no strategy
    fits in memory. The search sees the fabric through `fabric.estimate.pricing_view`, and the last searches are
    kept by it: designs that differ only where pricing does not look (a sweep's link margins) search once.
    `estimate` and `cost`: the design's fabric and its priced bill when the caller has them
    (`workloads.evaluation.Evaluation` hands them over); `gpus` the GPUs to find the design's among (`gpu_of`)."""
    est = estimate or evaluate_fabric(gpu_bound(design, gpus))
    if not est.feasible:
        raise InfeasibleDesign(f"the {est.kind} fabric is infeasible ("
                               + "; ".join(f"{v.name}: {v.message}" for v in est.violations) + ")")
    job = search_job(model, design, batch, fixed, stack, gpus)
    found, est = _searched(job, est, top, gradient_bytes)
    if isinstance(found, str):
        raise InfeasibleDesign(found)
    return _result(job, name, est, found, cost or cost_summary(design, est, catalog or load_catalog()))


def evaluate_model_points(model: Model, design: ClusterDesign, estimate: FabricEstimate, where, name: str,
                          batch: int, cost: CostSummary, fixed: dict | None = None, *,
                          stack: Stack | str | None = None,
                          gpus: Mapping[str, Gpu] | None = None) -> tuple[Result, np.ndarray]:
    """`evaluate_model` at the points `where` (a mask) of a grid of `design`'s fabric: `estimate`'s figures arrays
    over the grid (`fabric.kind.FabricKind.floor_estimate`), each point of `where` feasible, `cost` the points'
    priced bills (arrays). The points are searched as batches (`fabric.estimate.over_points`), those that price
    alike once. Returns a Result whose figures are arrays of the grid's shape (NaN outside `where` and where no
    strategy fits) and each point's reason where no strategy fits ('' elsewhere). Each point's figures are those
    of the fastest strategy `evaluate_model` finds for it; the result's candidate carries no strategy and its
    estimate is the grid's."""
    where = np.asarray(where, dtype=bool)
    view = over_points(estimate, where.shape, where)
    first, inverse = distinct_points(view)  # points that price alike are searched once
    job = search_job(model, design, batch, fixed, stack, gpus)
    found, reasons = _fastest_at_points(job, take_points(view, first))
    on_grid = np.full(where.shape, -1)
    on_grid[where] = inverse
    errors = np.full(where.shape, "", dtype=object)
    errors[where] = reasons[inverse]
    return _result(job, name, estimate, _taken(found, on_grid), cost), errors


def _searched(job: SearchJob, est: FabricEstimate, top: int, gradient_bytes) -> tuple:
    """(found, the estimate it was found on): the search on each way the fabric can run the job, the fastest kept
    (the first of equals)."""
    # a fabric that can run a job several ways (SiP-Ring's wavelength allocations) runs it the fastest one
    options = get_kind(est.kind).alternatives(est)
    best, found = _search(job, tuple(pricing_view(o) for o in options), top, gradient_bytes)
    return found, options[best]


def _result(job: SearchJob, name, est, found, cost) -> Result:
    model, gpu, batch, stack, precision = job.model, job.gpu, job.batch, job.stack, job.precision
    n = est.job_gpus
    kind = kinds.of(model)
    unit, per_iteration = kind.throughput_unit, kind.per_iteration(model, batch)
    best = found.top[0]
    peak = gpu.peak_flops(precision_for(gpu))
    per_gpu = n * best.iteration_s
    return Result(
        model=model, design_name=name, estimate=est, gpu=gpu, batch=batch, candidates=found.candidates,
        feasible=found.feasible, top=found.top, stack=stack, precision=precision,
        tflops_per_gpu=found.model_flops / per_gpu / 1e12, hardware_tflops_per_gpu=found.hardware_flops / per_gpu / 1e12,
        mfu=found.model_flops / (per_gpu * peak), hfu=found.hardware_flops / (per_gpu * peak),
        throughput=per_iteration / best.iteration_s, throughput_unit=unit, cost=cost, model_flops=found.model_flops,
        hardware_flops=found.hardware_flops, peak_flops=peak, goodput=_goodput(model, est, cost))


def _goodput(model, est: FabricEstimate, cost):
    """The job's goodput on `est` (arrays over a sweep's grid; None for a pricing view, which has no design's
    reliability section)."""
    if cost is None or not hasattr(est.design, "reliability") or getattr(cost, "bom", None) is None:
        return None
    from fabric.registry import get_kind
    from workloads.goodput import job_goodput

    return job_goodput(model, est, cost.bom, get_kind(est.kind), cost.cluster_cost_usd.typical,
                       getattr(cost, "rates", None))


@record(slots=False)
class _Found:
    """What a search found: candidates, how many fit, the best few, and the best one's FLOPs."""
    candidates: int
    feasible: int
    top: tuple[Candidate, ...]
    hardware_flops: float  # of the best
    model_flops: float


def _record(each, phases: dict) -> _Found:
    """A record of arrays over points: `each(pick)` the array of pick(record) over them, `phases` the best
    candidate's phase arrays."""
    return _Found(candidates=each(lambda r: r.candidates), feasible=each(lambda r: r.feasible),
                  top=(Candidate(strategy=None, iteration_s=each(lambda r: r.top[0].iteration_s), breakdown=phases,
                                 memory_bytes=each(lambda r: r.top[0].memory_bytes)),),
                  hardware_flops=each(lambda r: r.hardware_flops), model_flops=each(lambda r: r.model_flops))


def _as_arrays(found: list) -> tuple[_Found, np.ndarray]:
    """Searches of single points as one record of arrays over them (the best candidate's figures, no strategy;
    NaN where a point found no strategy) and each point's reason where none fits ('' elsewhere)."""
    got = [f for f in found if not isinstance(f, str)]

    def each(pick):
        return np.array([math.nan if isinstance(f, str) else pick(f) for f in found], dtype=float)

    names = got[0].top[0].breakdown if got else ()
    return (_record(each, {k: each(lambda f, k=k: f.top[0].breakdown[k]) for k in names}),
            np.array([f if isinstance(f, str) else "" for f in found], dtype=object))


def _taken(found: _Found, index: np.ndarray) -> _Found:
    """A record of arrays over points (`_as_arrays`) at `index` (any shape), NaN where it is −1."""
    def take(a):
        return np.where(index >= 0, np.asarray(a)[np.maximum(index, 0)], math.nan)

    return _record(lambda pick: take(pick(found)), {k: take(v) for k, v in found.top[0].breakdown.items()})


def _joined_records(parts: list) -> tuple[_Found, np.ndarray]:
    """Records of arrays over consecutive groups of points (`_as_arrays`), with their reasons, as one."""
    if len(parts) == 1:
        return parts[0]
    records = [r for r, _ in parts]
    cat = (lambda pick: np.concatenate([pick(r) for r in records]))
    names = records[0].top[0].breakdown
    return (_record(cat, {k: cat(lambda r, k=k: r.top[0].breakdown[k]) for k in names}),
            np.concatenate([e for _, e in parts]))


def _fastest_at_points(job: SearchJob, view) -> tuple[_Found, np.ndarray]:
    """The fastest strategy at each point of `view` (one, or a batched view's), on the fastest way the fabric
    runs the job there (the first of equals): a record of arrays over the points (`_as_arrays`) and each point's
    reason where no strategy fits. A transformer's ways configured alike are searched as one batch (their shares
    alike everywhere), the re-tuned ones first (each collective has the fabric while it runs: usually the faster),
    then the others only for what is as fast at each point (a ceiling: what is slower cannot be the fastest); the
    other models' point by point (through `_search`'s memory)."""
    options = get_kind(view.kind).alternatives(view)
    if kinds.of(job.model).batched:
        alike: dict[bool, list[int]] = {}
        for k, o in enumerate(options):
            alike.setdefault(_configured_once(o), []).append(k)
        each, ceiling = {}, None  # the fastest found so far at each point, over the ways searched
        for once in sorted(alike):  # re-tuned first; ties under a ceiling are found, the first way of equals wins
            group = alike[once]
            record, reasons = _fastest_in_parts(job, _one_batch([options[k] for k in group]),
                                                None if ceiling is None else np.tile(ceiling, len(group)))
            starts = np.cumsum([0, *(points(options[k]) or 1 for k in group)])
            for k, a, b in zip(group, starts[:-1], starts[1:]):
                each[k] = (_taken(record, np.arange(a, b)), reasons[a:b])
                seconds = np.where(each[k][1] == "", each[k][0].top[0].iteration_s, math.inf)
                ceiling = seconds if ceiling is None else np.minimum(ceiling, seconds)
        found = [each[k] for k in range(len(options))]
    else:
        found = [_as_arrays([_search(job, (point_view(o, i) if points(o) else pricing_view(o),), 1, None)[1]
                             for i in range(points(o) or 1)]) for o in options]
    if len(found) == 1:
        return found[0]
    seconds = np.stack([np.where(reasons == "", record.top[0].iteration_s, math.inf) for record, reasons in found])
    best = np.argmin(seconds, axis=0)  # the first of equals
    rows = np.arange(seconds.shape[1])

    def pick(get):
        return np.stack([get(record) for record, _ in found])[best, rows]

    names = dict.fromkeys(k for record, _ in found for k in record.top[0].breakdown)  # none where nothing fits
    nothing = np.full(len(rows), math.nan)
    return (_record(pick, {k: pick(lambda r, k=k: r.top[0].breakdown.get(k, nothing)) for k in names}),
            np.stack([reasons for _, reasons in found])[best, rows])


@functools.lru_cache(maxsize=4096)  # keyed on what pricing reads: designs that differ elsewhere search once
def _search(job: SearchJob, views: tuple, top: int, gradient_bytes: float | None) -> tuple[int, _Found | str]:
    """The strategy search on the pricing views `views` (the ways a fabric can run the job), one point each:
    (the fastest way, the first of equals; the `top` fastest candidates that fit there, or why none does). A
    batched kind's ways (a transformer's) are searched at once, each only as far as it could still be the fastest;
    another kind's candidates are all priced, each way on its own or, for a kind with `ways`, all ways in one
    breakdown."""
    kind = kinds.of(job.model)
    if kind.batched:
        found = _bounded_search(job, _one_batch(views), top, ways=len(views) > 1)
    else:  # every candidate priced: each way on its own, or (a kind that takes them so) all of them at once
        fixed = {**dict(job.fixed_items), "precision": job.precision}
        together = kind.ways and len(views) > 1
        found = []
        for view in [_one_batch(views)] if together else views:
            st, br = breakdown(job.model, job.gpu, view, job.batch, fixed, stack=job.stack,
                               gradient_bytes=gradient_bytes)
            for each in [br.point(i) for i in range(len(views))] if together else [br]:
                found.append(_found(st, each, each.fits, np.arange(len(st)), _Memory.of(each), top, job.model,
                                    job.gpu))
    seconds = (lambda f: math.inf if isinstance(f, str) else f.top[0].iteration_s)
    best = min(range(len(found)), key=lambda k: seconds(found[k]))
    return best, found[best]


def _one_batch(views) -> FabricEstimate:
    """The views as one batch of their points (`fabric.estimate.joined_points`); one view as it is."""
    if len(views) == 1:
        return views[0]
    return joined_points([dataclasses.replace(v, static=_configured_once(v)) for v in views])


def _configured_once(view: FabricEstimate) -> bool:
    """Whether the view's fabric (one point's) is configured once per job (`fabric.kind.configured_once`)."""
    return bool(configured_once(get_kind(view.kind), view))


def _fastest_in_parts(job: SearchJob, view, ceiling=None) -> tuple:
    """`_fastest` at every point of a batched view, `points_per_search` (core.speed_knobs) points at a time (a
    point's search does not depend on the others searched with it)."""
    count, step = 1 if points(view) is None else points(view), speed_knobs.KNOBS.points_per_search
    if count <= step:
        return _fastest(job, view, ceiling)
    parts = [np.arange(start, min(start + step, count)) for start in range(0, count, step)]
    return _joined_records([_fastest(job, take_points(view, part),
                                     None if ceiling is None else np.asarray(ceiling)[part]) for part in parts])


class Round(NamedTuple):
    """One round of a bounded search: the points it priced (ascending), the plan's rows it priced (ascending),
    their breakdown, and their iteration times (points, rows; inf where not finite)."""

    points: np.ndarray
    rows: np.ndarray
    breakdown: Breakdown
    times: np.ndarray


@record(slots=False)
class Rounds:
    """A bounded search: the strategies, the plan of those that fit, and its rounds."""

    strategies: object  # workloads.strategy.Strategies
    plan: object  # workloads.training.TransformerPlan
    rounds: list[Round]


def _bounded_rounds(job: SearchJob, view: FabricEstimate, top: int, ceiling=None, ways: bool = False) -> Rounds:
    """The transformer search, branch and bound, at each point of `view` (one, or a batched view's): strategies
    are priced in rounds in the order of their floor on the view (`workloads.training.transformer_floor`: the
    model-parallel collectives alone on the fabric, the data-parallel ones free; no point's iteration is below
    it), and a point's rounds stop at the first
    strategy whose bound is above the `top`-th fastest priced there so far; those left out cannot be among its
    fastest, so the result is the full search's (ties included: a bound equal to the `top`-th time is priced). A
    round prices the points still searching, up to the farthest of their stops (each point's strategies beyond its
    own stop are slower than its `top`-th). With `ceiling` (a time per point), a point's search starts as if it had
    priced `top` strategies of that time: what it finds is what is not slower. With `ways` (the points are the
    ways one design runs the job, and only the fastest way's `top` is kept: the first of equal fastest), a point
    other than the fastest so far also stops at the first strategy whose bound is above that way's fastest: it
    cannot become the fastest beyond it and is priced up to it, so the fastest way, and its `top`, are the full
    search's.
    Only the strategies that fit in memory are planned and priced; where one round prices them all (no ceiling,
    at most the first round's size), no floor is found. Returns the strategies, the plan of those that fit and the
    rounds (`Rounds`)."""
    model, gpu, stack = job.model, job.gpu, job.stack
    st = transformer_strategies(model, view.job_gpus, job.batch, _per_candidate(dict(job.fixed_items)), stack)
    plan = transformer_plan(model, gpu, job.batch, st, compute=stack.compute_for(gpu), training=stack.training,
                            precision=job.precision, fitting=True)
    count = 1 if points(view) is None else points(view)
    fastest = np.full((count, top), math.inf)  # each point's `top` fastest priced so far
    if ceiling is not None:
        fastest[:] = np.reshape(ceiling, (count, 1))
    knobs = speed_knobs.KNOBS
    size = knobs.first_priced_few if count <= knobs.few_points else knobs.first_priced
    if ceiling is None and len(plan.index) <= size:  # the first round prices every strategy: no order to find
        order, lower, floor = np.arange(len(plan.index)), None, None
    else:
        floor = transformer_floor(plan, stack.training, view)
        order = np.argsort(floor.iteration_s, kind="stable")
        lower = floor.iteration_s[order]
    rounds, rows, start = [], np.arange(count), 0
    while start < len(order):
        end = start + size
        if rounds or ceiling is not None:
            stops = np.searchsorted(lower, fastest[:, -1], side="right")
            if ways:
                lead = int(np.argmin(fastest[:, 0]))  # the fastest way so far, the first of equals
                others = np.arange(count) != lead
                stops[others] = np.minimum(stops[others], np.searchsorted(lower, fastest[lead, 0], side="right"))
            rows = np.flatnonzero(stops > start)
            if not rows.size:
                break
            end = min(end, int(stops[rows].max()))
        index = np.sort(order[start:end])
        alone = None if floor is None else floor.at(None if len(rows) == count else rows, index)
        br = plan_breakdown(plan, stack.training, view if len(rows) == count else take_points(view, rows), index,
                            alone)
        times = np.broadcast_to(br.iteration_s, (len(rows), len(index)))
        times = np.where(np.isfinite(times), times, math.inf)
        merged = np.concatenate([fastest[rows], times], axis=1)
        fastest[rows] = np.sort(np.partition(merged, top - 1, axis=1)[:, :top], axis=1)
        rounds.append(Round(rows, index, br, times))
        start, size = end, 2 * size
    return Rounds(st, plan, rounds)


def _bounded_search(job: SearchJob, view: FabricEstimate, top: int, ways: bool = False) -> list:
    """The `top` fastest strategies that fit at each point of `view` (one, or a batched view's), or why none
    does: `_bounded_rounds`' search, each point's rounds joined. With `ways`, the fastest point's in full, the
    others' from what was searched of them (`_bounded_rounds`): none is faster than the fastest's first."""
    searched = _bounded_rounds(job, view, top, ways=ways)
    count = 1 if points(view) is None else points(view)
    memory = _Memory.of_plan(searched.plan)
    if not memory.feasible:
        return [memory.refusal(job.model, job.gpu)] * count
    at = [dict(zip(rnd.points.tolist(), range(len(rnd.points)))) for rnd in searched.rounds]
    out = []
    for i in range(count):  # a point's rounds are the first few
        mine = [(rnd.rows, rnd.breakdown.point(a[i])) for a, rnd in zip(at, searched.rounds) if i in a]
        index = np.concatenate([index for index, _ in mine])
        out.append(_found(searched.strategies, _joined([br for _, br in mine]), np.ones(len(index), dtype=bool),
                          searched.plan.index[index], memory, top, job.model, job.gpu))
    return out


def _fastest(job: SearchJob, view: FabricEstimate, ceiling=None) -> tuple[_Found, np.ndarray]:
    """`_bounded_search` with top = 1 at each point of `view` (one, or a batched view's), as a record of arrays
    over the points (`_as_arrays`: the fastest's figures) and each point's reason where no strategy fits; picked
    from the rounds with arrays (the least time, then the first strategy), not point by point. With `ceiling` (a
    time per point), a point where no strategy is as fast as its ceiling finds none (reason SLOWER)."""
    searched = _bounded_rounds(job, view, 1, ceiling)
    st, rounds, model, gpu = searched.strategies, searched.rounds, job.model, job.gpu
    count = 1 if points(view) is None else points(view)
    memory = _Memory.of_plan(searched.plan)
    if not memory.feasible:  # nothing fits in memory
        return _as_arrays([memory.refusal(model, gpu)] * count)
    if not rounds:
        return _as_arrays([SLOWER] * count)
    best_t, best_s = np.full(count, math.inf), np.full(count, len(st))  # each point's fastest, its row in the plan
    best_round, best_col = np.full(count, -1), np.zeros(count, dtype=int)
    for k, rnd in enumerate(rounds):
        rows, times = rnd.points, rnd.times
        col = np.argmin(times, axis=1)  # the round's strategies ascend: the first of its equals
        t, s = times[np.arange(len(rows)), col], rnd.rows[col]  # the plan's rows ascend as the strategies do
        better = (t < best_t[rows]) | ((t == best_t[rows]) & (s < best_s[rows]))
        mine = rows[better]
        best_t[mine], best_s[mine], best_round[mine], best_col[mine] = t[better], s[better], k, col[better]
    found = np.isfinite(best_t)

    def figure(name: str) -> np.ndarray:
        out = np.full(count, math.nan)
        for k, rnd in enumerate(rounds):
            mine = np.flatnonzero(found & (best_round == k))
            value = getattr(rnd.breakdown, name)
            if mine.size:
                out[mine] = value[np.searchsorted(rnd.points, mine), best_col[mine]] if np.ndim(value) == 2 \
                    else value[best_col[mine]]
        return out

    reason = "" if found.all() else memory.unserved(model, gpu)  # they fit (above): none is served there
    if ceiling is not None:
        reason = np.where(np.isfinite(np.reshape(ceiling, count)), SLOWER, reason)
    everywhere = (lambda value: np.where(found, value, math.nan))
    record = _Found(candidates=everywhere(len(st)), feasible=everywhere(memory.feasible),
                    top=(Candidate(strategy=None, iteration_s=everywhere(best_t),
                                   breakdown={name: figure(f"{name}_s") for name in Breakdown.PHASES},
                                   memory_bytes=figure("memory_bytes")),),
                    hardware_flops=figure("hardware_flops"), model_flops=figure("model_flops"))
    return record, np.where(found, "", reason).astype(object)


SLOWER = "no strategy as fast as on another way the fabric runs the job"  # a search under a ceiling (`_fastest`)


def _joined(parts: list) -> Breakdown:
    """Breakdowns of one point (`Breakdown.point`) for consecutive groups of strategies as one."""
    if len(parts) == 1:
        return parts[0]
    values = {}
    for f in dataclasses.fields(Breakdown):
        first = getattr(parts[0], f.name)
        values[f.name] = np.concatenate([getattr(p, f.name) for p in parts]) if isinstance(first, np.ndarray) \
            else first
    return Breakdown(**values)


@record(slots=False)
class _Memory:
    """What a search's strategies need of the GPU's memory: how many fit, the least any needs, what is usable."""

    feasible: int
    least_bytes: float
    limit_bytes: float

    @classmethod
    def of(cls, br) -> _Memory:
        """Of the strategies of a breakdown."""
        return cls(int(np.sum(br.fits)), float(np.min(br.memory_bytes)), br.memory_limit_bytes)

    @classmethod
    def of_plan(cls, plan) -> _Memory:
        """Of the strategies a plan was asked for (`workloads.training.transformer_plan`: it keeps the least memory
        of them all, and plans every one or those that fit)."""
        return cls(int(np.sum(plan.memory_bytes <= plan.memory_limit_bytes)), plan.least_memory_bytes,
                   plan.memory_limit_bytes)

    def refusal(self, model: Model, gpu: Gpu) -> str:
        """Why no strategy runs: the least memory one needs, and what the GPU has usable."""
        return (f"no strategy of {model.name} fits in {gpu.name}'s memory (the smallest needs "
                f"{self.least_bytes / 1e9:.1f} GB of {self.limit_bytes / 1e9:.1f} GB usable)")

    @staticmethod
    def unserved(model: Model, gpu: Gpu) -> str:
        """Why no strategy runs where some fit in memory: the fabric serves none of them."""
        return (f"no strategy of {model.name} that fits in {gpu.name}'s memory runs on this fabric: each has a "
                "collective over groups the fabric does not serve (no circuit or wavelength for it)")


def _found(st, br, fits, index, memory: _Memory, top: int, model: Model, gpu: Gpu) -> _Found | str:
    """The `top` fastest of the priced strategies `index` (their breakdown `br`, `fits` of them in memory), ties in
    the strategies' order; `memory`, what all of them need (for the refusal when none fits)."""
    t = br.iteration_s
    ok = fits & np.isfinite(t)
    if not ok.any():
        return memory.unserved(model, gpu) if memory.feasible and fits.any() else memory.refusal(model, gpu)
    rows = np.flatnonzero(ok)
    rows = rows[np.lexsort((index[rows], t[rows]))][:top]  # by time, then the strategies' order
    best = int(rows[0])
    return _Found(candidates=len(st), feasible=memory.feasible,
                  top=tuple(Candidate(strategy=st.row(int(index[r])), iteration_s=float(t[r]),
                                      breakdown=br.phases(int(r)), memory_bytes=float(br.memory_bytes[r]))
                            for r in rows),
                  hardware_flops=float(br.hardware_flops[best]), model_flops=float(br.model_flops[best]))


def compare(result: Result, baseline: Result) -> dict[str, float]:
    """Speedup, speedup per dollar and per watt of `result` over `baseline` (same model and batch), failure-free
    and with each one's interruptions (its ETTR; per dollar and per watt with its hot spares); each is charged its
    job's share of its cluster (the whole cluster for a job on all of it)."""
    speedup = baseline.best.iteration_s / result.best.iteration_s
    goodput = speedup * result.ettr / baseline.ettr
    return {"speedup": speedup,
            "speedup_per_dollar": speedup * baseline.job_cost_usd / result.job_cost_usd,
            "speedup_per_watt": speedup * baseline.job_power_w / result.job_power_w,
            "goodput_speedup": goodput,
            "goodput_speedup_per_dollar": goodput * baseline.goodput_cost_usd / result.goodput_cost_usd,
            "goodput_speedup_per_watt": goodput * baseline.goodput_power_w / result.goodput_power_w}


def baseline_training(point, model: Model, batch: int, fixed: dict | None = None, *, name: str,
                      top: int = 5) -> tuple[Result, dict[str, str]]:
    """A baseline's training under the strategy fixed for the design it is compared with (`point`: the baseline's
    `workloads.evaluation.Evaluation`). Where the baseline cannot run that strategy it runs its best under the
    parts it can: a precision its GPU or stack does not have is dropped (the GPU's 16-bit mode runs), then, where
    no strategy with the fixed per-candidate keys (tp, pp, recompute, …) fits or is served on its fabric, those
    keys are dropped and searched. Returns (result, dropped): each part run without, as `key=value[,…]`, with why
    ({} when the whole strategy ran). InfeasibleDesign when the fabric does not work or nothing fits even then."""
    fixed = dict(fixed or {})
    dropped: dict[str, str] = {}
    if "precision" in fixed:
        why = precision_refusal(gpu_of(point.cluster, point.gpus), stack_for(model, fixed), fixed["precision"])
        if why:
            dropped[f"precision={fixed.pop('precision')}"] = why
    per_candidate = _per_candidate(fixed)
    try:
        return point.training(model, batch, fixed, name=name, top=top), dropped
    except InfeasibleDesign as exc:
        if not per_candidate or not point.fabric.feasible:
            raise
        why = str(exc)
    kept = {k: v for k, v in fixed.items() if k not in per_candidate}
    result = point.training(model, batch, kept, name=name, top=top)
    dropped[",".join(_strategy_item(k, v) for k, v in per_candidate.items())] = why
    return result, dropped


def _strategy_item(key: str, value) -> str:
    """One fixed strategy key as `--strategy` takes it (`recompute=full`, not its index)."""
    from workloads.strategy import ORDERS, RECOMPUTE

    if key == "recompute":
        value = RECOMPUTE[value]
    elif key == "order":
        value = ORDERS[value]
    elif isinstance(value, bool):
        value = str(value).lower()
    return f"{key}={value}"


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
    """(global batch, where it comes from) for `model` on `gpus` GPUs: the zoo's for a zoo model (a file of the same
    numbers whatever its path), else two samples per GPU (a file that reuses a zoo name with other numbers too)."""
    from workloads.models import zoo

    shipped = zoo().get(model.name)
    if model.name in DEFAULT_BATCH and shipped is not None and dataclasses.replace(model, info=shipped.info) == shipped:
        return DEFAULT_BATCH[model.name]
    return 2 * gpus, "[assumed] two samples per GPU (a model not in the zoo as shipped: give --batch)"
