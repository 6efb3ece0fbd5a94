"""Iteration time of a transformer training job on a fabric, for arrays of strategies (workloads.strategy):

    iteration = m·t_stage + (p − 1)/v·t_stage + exposed data-parallel reduction + exposed ZeRO gathers + optimizer

t_stage is one microbatch through the slowest pipeline stage: its layers' forward and backward compute
(workloads.compute; uneven stages each with their own layers, the embedding on the first, the head on the last),
the tensor-parallel collectives (Megatron-LM: two all-reduces forward and two backward per layer over the t GPUs of
the group, two more when full recomputation replays the forward — reduce-scatter + all-gather pairs of the same
volume with sequence parallelism), the context-parallel exchange of keys and values, the pipeline point-to-point
sends (activations forward, gradients backward, b·s·h/t bytes each with Megatron's scatter/gather, v times with v
interleaved chunks) and, for mixture-of-experts layers, the expert-parallel all-to-alls (dispatch and combine,
forward and backward). The pipeline bubble is (p − 1)/v stage times (1F1B; N21 §2.2).

What is overlapped, and how, is the software's (`TrainingSettings`, set by the stack, workloads.stacks): the
gradient reduction in buckets launched as the first stage's last backward produces them (the last bucket exposed),
ZeRO-1's parameter gather under the next forward, ZeRO-3's gathers layer by layer one layer ahead, pipeline sends
behind the other chunk's compute when interleaved, the key/value exchange behind attention, tensor-parallel
collectives behind the GEMMs (Transformer Engine's user-buffer overlap). An overlapped collective X under compute C
costs max(X − C, σ·X): compute runs 18.9 % slower while communication kernels hold SMs and HBM (workloads-3.md §2).

Every collective is priced by the fabric for the group it runs in (fabric.kind: tensor groups consecutive, data
and pipeline groups strided by the strategy's rank order) and, on fabrics configured once per job (SiP-OCS,
SiP-Ring), on the share of the fabric the job's whole traffic mix gives it (bytes per iteration of each group).

Memory per GPU: weights, gradients and optimizer states (ZeRO stage, fp32 main gradients) plus the first stage's
activations (K22), within the usable share of HBM; strategies that do not fit are marked infeasible.

References: N21 = Narayanan et al., SC21; K22 = Korthikanti et al., MLSys 2023; R20 = Rajbhandari et al., SC20
(ZeRO traffic: 2Ψ for stages 0–2, 3Ψ for stage 3).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import field, fields

import numpy as np

from core.distinct import distinct_whole_columns
from core.memo import last_results
from core.records import record
from fabric.estimate import FabricEstimate, points
from fabric.evaluate import mix_pricing
from fabric.kind import Collective, group_arrays
from workloads.compute import (distinct_layers, edge_times, gradient_buffer_s, layer_times, optimizer_step_s,
                               shard_copy_s)
from workloads.gpus import Gpu
from workloads.kinds import WorkloadKind
from workloads.memory import (embedding_activation_bytes, first_stage_activation_bytes,
                              model_activation_bytes_per_layer,
                              model_state_bytes)
from workloads.models import TransformerModel
from workloads.moe import all_to_all_bytes_per_token, expert_load
from workloads.pipeline import bubble_fraction, stage_layers
from workloads.settings import DEFAULT_SETTINGS, DEFAULT_TRAINING, ComputeSettings, TrainingSettings
from workloads.stacks import DEFAULT_STACK
from workloads.strategy import Strategies
from workloads.transformer import (expert_parameters_per_gpu, kv_width, layer_weights, parameter_count,
                                   parameters_per_gpu, pipeline_message_bytes, tensor_parallel_collectives_per_layer,
                                   tensor_parallel_message_bytes, training_flops_per_token)




@record(slots=False)
class Breakdown:
    """Seconds per iteration by phase, and what the strategy needs, per candidate (arrays of one length)."""

    compute_s: np.ndarray  # m · (forward + backward) of the slowest stage, with recomputation, and once-a-step work
    tensor_parallel_s: np.ndarray  # exposed tensor-parallel collectives
    context_parallel_s: np.ndarray  # exposed key/value exchange of context parallelism
    pipeline_s: np.ndarray  # exposed point-to-point sends between stages
    expert_parallel_s: np.ndarray  # all-to-alls of the mixture-of-experts layers
    bubble_s: np.ndarray
    straggler_s: np.ndarray  # the wait for the job's slowest GPU (TrainingSettings.straggler_s)
    data_parallel_s: np.ndarray  # exposed gradient reduction (and ZeRO gathers)
    optimizer_s: np.ndarray
    memory_bytes: np.ndarray  # per GPU
    memory_limit_bytes: float
    hardware_flops: np.ndarray  # per iteration, whole job, recomputation included
    model_flops: np.ndarray  # per iteration, whole job, without recomputation (for MFU)

    PHASES = ("compute", "tensor_parallel", "context_parallel", "pipeline", "expert_parallel", "bubble",
              "straggler", "data_parallel", "optimizer")

    @property
    def iteration_s(self) -> np.ndarray:
        return sum(getattr(self, f"{name}_s") for name in self.PHASES)

    @property
    def fits(self) -> np.ndarray:
        return self.memory_bytes <= self.memory_limit_bytes

    def take(self, index) -> Breakdown:
        values = {}
        for f in fields(self):
            value = getattr(self, f.name)
            values[f.name] = value[index] if isinstance(value, np.ndarray) else value
        return Breakdown(**values)

    def point(self, i: int) -> Breakdown:
        """Point i's breakdown, of one priced on a batched view (`fabric.estimate.over_points`: arrays (points,
        candidates) where the fabric enters); a breakdown of one point is its own."""
        values = {}
        for f in fields(self):
            value = getattr(self, f.name)
            values[f.name] = value[i] if isinstance(value, np.ndarray) and value.ndim == 2 else value
        return Breakdown(**values)

    def phases(self, i: int) -> dict[str, float]:
        return {name: float(getattr(self, f"{name}_s")[i]) for name in self.PHASES}


def precision_for(gpu: Gpu) -> str:
    """bf16 where the GPU has it, else fp16 (V100)."""
    return "bf16" if "bf16" in gpu.precisions else "fp16"


def transformer_breakdown(model: TransformerModel, gpu: Gpu, est: FabricEstimate, batch: int, st: Strategies, *,
                          compute: ComputeSettings = DEFAULT_SETTINGS, training: TrainingSettings = DEFAULT_TRAINING,
                          precision: str | None = None, index=None) -> Breakdown:
    """The iteration of every strategy in `st` for `batch` sequences on the fabric `est` (its job's GPUs); with
    `index`, of those strategies alone (each candidate's numbers are its own: the same as in the whole set)."""
    plan = transformer_plan(model, gpu, batch, st, compute=compute, training=training, precision=precision)
    return plan_breakdown(plan, training, est, index)


def plan_breakdown(plan: TransformerPlan, training: TrainingSettings, est: FabricEstimate, rows=None,
                   alone: dict | None = None) -> Breakdown:
    """The iteration of the plan's strategies (the `rows` of the plan alone) on the fabric `est`. `alone`: the
    model-parallel collectives' seconds per call at those strategies where the floor has them (`StrategyFloor.at`), read
    rather than priced again."""
    if rows is not None:
        plan = plan.take(rows, est.job_gpus)
    return _iteration(plan, training, _collective_times(plan, est, alone))


def transformer_bound(plan: TransformerPlan, training: TrainingSettings) -> Breakdown:
    """The iteration of every strategy of the plan with its communication free: no fabric makes a strategy faster
    (each phase grows with the collectives' times). Fabric-free: once per plan; a search orders its strategies by
    `transformer_floor`, which is at or above it."""
    return _iteration(plan, training, dict.fromkeys(COLLECTIVE_TIMES, np.zeros(len(plan.index))))


@record(slots=False)
class StrategyFloor:
    """A search's floor (`transformer_floor`): each strategy's iteration with its model-parallel collectives alone
    on the fabric and its data-parallel ones free (the least over a batched view's points), and, where the fabric
    shares only among the collectives running (`fabric.kind.MixPricing.shares_by_running`: the iteration prices
    them alone too), those collectives' seconds per call at each strategy (a batched view's points first):
    "tensor" {operation: seconds}, "pipeline", "expert", "context" (absent where no strategy calls it)."""

    iteration_s: np.ndarray
    alone: dict | None  # None on a fabric configured once per job (a collective's share there is the mix's)

    def at(self, points_at, rows) -> dict | None:
        """`alone` at the plan's `rows`, at the points `points_at` of a batched view (None: all of them)."""
        if self.alone is None:
            return None

        def take(a):
            a = a[points_at] if points_at is not None and a.ndim == 2 and len(a) > 1 else a
            return a[..., rows]
        return {key: ({op: take(a) for op, a in value.items()} if key == "tensor" else take(value))
                for key, value in self.alone.items()}


@record(slots=False)
class FloorParts:
    """What a floor reads of a plan whatever the fabric (`TransformerPlan.floor_parts`): each strategy's column among
    the distinct values of its MODEL_PARALLEL_KEYS, the collectives of one strategy per column, and each strategy's
    tensor-parallel calls per microbatch, whole and asynchronous."""

    inverse: np.ndarray
    mix: tuple
    tp_calls: dict
    tp_async_calls: dict


def transformer_floor(plan: TransformerPlan, training: TrainingSettings, est: FabricEstimate) -> StrategyFloor:
    """The floor of every strategy of the plan on the fabric `est` (`StrategyFloor`): its iteration with its
    model-parallel collectives (tensor, pipeline, expert, context) each alone on the fabric and its data-parallel
    ones free, the least over the points of a batched view, and those collectives' seconds where the fabric's
    iteration prices them alone too. No strategy is faster than its floor at any point: each phase grows with every
    collective's time, and the model-parallel collectives are priced alone in `_collective_times` too (a
    packet-switched fabric) or at a share of the fabric below the whole (one configured per job, where a collective
    is not slower with more of the fabric: `fabric.kind`). Each model-parallel collective is priced once per
    distinct (tp, pp, cp, ep, etp, dp, microbatch, order): all its bytes, group and stride depend on."""
    parts = plan.floor_parts()
    mix, tp_calls = parts.mix, parts.tp_calls
    alone = mix_pricing(est, None)  # each collective alone
    times = dict.fromkeys(COLLECTIVE_TIMES, 0.0)
    spread = (lambda c: np.take(alone.seconds([c])[0], parts.inverse, axis=-1))  # one call's seconds at each strategy
    per_call = {c.op: spread(c) for c in mix[:len(tp_calls)] if np.any(tp_calls[c.op])}
    times.update(_tensor_times(tp_calls, parts.tp_async_calls, per_call))
    known = {"tensor": per_call}
    for key, c, calls in zip(("pipeline", "expert", "context"), mix[len(tp_calls):len(tp_calls) + 3],
                             (plan.pp_calls_mb, plan.ep_calls_mb, plan.cp_calls_mb)):
        if np.any(calls):
            times[key] = known[key] = spread(c)
    with np.errstate(invalid="ignore"):  # a group no wavelength reaches: inf seconds, none of them hidden (σ = 0)
        floor = _iteration(plan, training, times).iteration_s
    # not a number only where a collective alone takes forever: the iteration there is not finite either
    floor = np.where(np.isnan(floor), np.inf, floor)
    return StrategyFloor(np.min(floor, axis=0) if np.ndim(floor) == 2 else floor,
                         known if alone.shares_by_running() else None)


# the collectives a floor prices alone (the tensor-parallel ones whole and as Megatron's async backward splits them)
MODEL_PARALLEL = ("tensor", "tensor_sync", "tensor_dgrad", "tensor_wgrad", "pipeline", "expert", "context")
# the strategy's sizes, microbatch and rank order: what the bytes, groups and strides of its model-parallel
# collectives depend on (`_plan_collectives`)
MODEL_PARALLEL_KEYS = ("tp", "pp", "cp", "ep", "etp", "dp", "microbatch", "order")


COLLECTIVE_TIMES = ("tensor", "tensor_sync", "tensor_dgrad", "tensor_wgrad", "pipeline", "expert", "context",
                    "all_reduce", "reduce_scatter", "all_gather", "all_reduce_bucket", "reduce_scatter_bucket",
                    "all_gather_bucket")


def _collective_times(plan: TransformerPlan, est: FabricEstimate, alone: dict | None = None) -> dict:
    """Seconds of the plan's collectives on the fabric (COLLECTIVE_TIMES): the tensor-parallel ones summed over a
    microbatch's calls, the others one call each; the gradient reduction priced while the backward's tensor-parallel
    collectives run, a bucket being one call of the same collective on fewer bytes. `alone`: the model-parallel
    ones' seconds per call where the floor priced them alone on a fabric that prices them alone here too
    (`StrategyFloor.at`)."""
    mix = plan.mix
    tp_cs = mix[:len(plan.tp_calls)]
    pp_c, ep_c, cp_c, ar_c, rs_c, ag_c = mix[len(tp_cs):]
    pricing = mix_pricing(est, mix, plan.mix_arrays(est.job_gpus))
    alone = alone or {}

    def per_call(c, calls, known=None):
        """One call's seconds: the floor's where it has them; unpriced where no candidate calls it (it costs
        nothing)."""
        if not np.any(calls):
            return 0.0
        return known if known is not None else pricing.seconds([c])[0]

    tensor = alone.get("tensor", {})
    times = _tensor_times(plan.tp_calls, _tp_async_calls(plan.strategies, _tp_layers(plan.model, plan.strategies,
                                                                                     plan.stage_layers)),
                          {c.op: per_call(c, plan.tp_calls[c.op], tensor.get(c.op)) for c in tp_cs})
    times.update((key, per_call(c, calls, alone.get(key))) for key, c, calls in (
        ("pipeline", pp_c, plan.pp_calls_mb), ("expert", ep_c, plan.ep_calls_mb), ("context", cp_c, plan.cp_calls_mb)))
    # each data-parallel collective and its last bucket in one call, their bytes stacked on a leading axis (a
    # batched view's points next, dropped where the seconds are the same at every point, as each alone gives them)
    batched = points(est) is not None
    for c, gather in ((ar_c, 1.0), (rs_c, 1.0), (ag_c, plan.gather_to_grad)):
        both = np.stack(np.broadcast_arrays(c.message_bytes, plan.bucket_bytes * gather))
        seconds = pricing.seconds([dataclasses.replace(c, message_bytes=both[:, None] if batched else both),
                                   *tp_cs], first_only=True)[0]
        if batched and seconds.shape[1] == 1:
            seconds = seconds[:, 0]
        times[c.op], times[f"{c.op}_bucket"] = seconds[0], seconds[1]
    return times


def _column_share(model: TransformerModel) -> float:
    """The column-parallel layers' (QKV, MLP-up) share of a dense layer's GEMM FLOPs."""
    weights = layer_weights(model, False, False)
    return (sum(w.active * w.k * w.n for w in weights if w.split == "column")
            / sum(w.active * w.k * w.n for w in weights))


def _tensor_times(calls: dict, async_calls: dict, per_call: dict) -> dict:
    """A microbatch's tensor-parallel seconds from each collective's seconds per call: all of them (`tensor`), and
    split as Megatron's asynchronous backward runs them (`_tp_async_calls`): the column-parallel layers' input
    re-gathers under their data-gradient GEMMs (`tensor_dgrad`), their input-gradient reduce-scatters or
    all-reduces under their weight-gradient GEMMs (`tensor_wgrad`), the rest on the critical path (`tensor_sync`,
    from the call counts, so an unreachable group stays infinite)."""
    def seconds(counts):
        return sum((_times_calls(counts[op], per_call[op]) for op in counts if op in per_call), 0.0)
    sync = {op: calls[op] - async_calls.get(op, 0.0) for op in calls}
    return {"tensor": seconds(calls), "tensor_sync": seconds(sync),
            "tensor_dgrad": seconds({"all_gather": async_calls["all_gather"]}),
            "tensor_wgrad": seconds({op: async_calls[op] for op in ("reduce_scatter", "all_reduce")})}


def _tp_layers(model: TransformerModel, st: Strategies, fullest):
    """The fullest stage's layers counted in tensor-parallel collectives of the layer's message: a MoE layer's MLP
    half is its experts' (Megatron-Core's all-to-all dispatcher). Split over the tensor-parallel GPUs (etp = tp),
    the experts' tokens are gathered over them after the all-to-all and scattered back before it: the dispatched
    copies, top_k·capacity_factor times a dense MLP's message; folded (etp < tp), each GPU routes its own
    sequence-parallel share: none. A shared expert gathers and scatters its input on the tensor-parallel group as a
    dense MLP does (SharedExpertMLP)."""
    if not model.is_moe:
        return fullest
    shared = 1.0 if model.shared_experts else 0.0
    mlp = np.where(st.etp < st.tp, shared, model.top_k * model.capacity_factor + shared)
    moe = model.moe_layers / model.layers
    return fullest * ((1.0 - moe) + moe * 0.5 * (1.0 + mlp))


def _tp_async_calls(st: Strategies, fullest) -> dict:
    """Per microbatch through the fullest stage, the tensor-parallel collectives of the backward that Megatron runs
    asynchronously (LinearWithGradAccumulationAndAsyncCommunication, the column-parallel layers only): with sequence
    parallelism each column-parallel layer's input gathered again under its data-gradient GEMM and its input
    gradient reduce-scattered under its weight-gradient GEMM; without it that gradient all-reduced there."""
    on = np.where(st.tp > 1, 2.0 * fullest, 0.0)
    sp = st.sp.astype(bool)
    return {"reduce_scatter": np.where(sp, on, 0.0), "all_reduce": np.where(sp, 0.0, on),
            "all_gather": np.where(sp, on, 0.0)}


def _times_calls(calls, seconds):
    """calls × seconds of each call, nothing where there is no call (whatever the fabric would take for one, an
    unreachable group's infinity too)."""
    with np.errstate(invalid="ignore"):  # 0 calls × inf seconds, replaced by nothing
        return np.where(calls > 0, calls * seconds, 0.0)


def _iteration(plan: TransformerPlan, training: TrainingSettings, times: dict) -> Breakdown:
    """The phases of an iteration of the plan's strategies from the plan and its collectives' seconds
    (`_collective_times`); each phase is non-decreasing in every one of them."""
    m, st = plan.m, plan.strategies
    tensor, pp_t, ep_t, cp_t = times["tensor"], times["pipeline"], times["expert"], times["context"]
    ar_t, rs_t, ag_t = times["all_reduce"], times["reduce_scatter"], times["all_gather"]
    ar_b, rs_b, ag_b = times["all_reduce_bucket"], times["reduce_scatter_bucket"], times["all_gather_bucket"]
    if training.tp_overlap in ("gemm", "backward"):  # Megatron's async column-parallel backward: each under its
        # own backward GEMMs; the user-buffer overlap ('gemm') needs sequence parallelism (Megatron-LM refuses
        # --tp-comm-overlap without it: megatron/training/arguments.py), the async backward otherwise
        backward = (times["tensor_sync"] + training.overlapped(times["tensor_dgrad"], plan.column_gemm_mb)
                    + training.overlapped(times["tensor_wgrad"], plan.column_gemm_mb))
        tensor = (np.where(st.sp, training.overlapped(tensor, plan.gemm_mb), backward)
                  if training.tp_overlap == "gemm" else backward)
    context = training.overlapped(_times_calls(plan.cp_calls_mb, cp_t), plan.attention_mb)
    pipeline = _times_calls(plan.pp_calls_mb, pp_t)
    interleaved = (training.p2p_overlap == "interleaved") & (st.interleave > 1)
    pipeline_steady = np.where(interleaved, training.overlapped(pipeline, plan.compute_mb), pipeline)
    expert = _times_calls(plan.ep_calls_mb, ep_t)
    if training.ep_overlap == "compute":  # under another microbatch's compute, where a step has another
        expert = np.where(m > 1, training.overlapped(expert, plan.compute_mb), expert)
    t_stage = plan.compute_mb + tensor + context + expert
    bubble = _times_calls(bubble_fraction(st.pp, m, st.interleave) * m, t_stage + pipeline)  # none with one stage

    # data-parallel reduction (R20): stage 0 all-reduces the accumulated gradients once, stage 1 reduce-scatters them
    # once, both in the first pipeline stage's last backward (the last stage to finish), and stage 1 all-gathers the
    # updated parameter shards under the next forward; stage 2 keeps only its gradient shard, so it reduce-scatters
    # every microbatch's gradients in that microbatch's backward; stage 3 also gathers the parameters for every
    # microbatch's forward and backward, one layer ahead
    sharded = bool(np.any(st.zero >= 2))  # gradients sharded: some strategy runs ZeRO-2 or ZeRO-3
    if training.dp_overlap == "backward":
        reduce_each = training.overlapped(rs_t, plan.last_backward, rs_b)
        reduce = np.where(st.zero >= 1, reduce_each, training.overlapped(ar_t, plan.last_backward, ar_b))
    else:
        reduce, reduce_each = np.where(st.zero >= 1, rs_t, ar_t), rs_t
    gather = (training.overlapped(ag_t, plan.first_forward, ag_b) if training.param_gather_overlap == "forward"
              else ag_t)
    if sharded:
        per_layer = 1.0 / np.maximum(plan.stage_layers, 1.0)
        zero3 = training.overlapped(2.0 * ag_t + rs_t, plan.compute_mb, (ag_t + rs_t) * per_layer)
        exposed = np.select([st.zero == 0, st.zero == 1, st.zero == 2],
                            [reduce, reduce + gather, m * reduce_each + gather], m * zero3)
    else:  # ZeRO stages 0 and 1 alone
        exposed = np.where(st.zero == 0, reduce, reduce + gather)
    gpus = np.max(st.dp * st.tp * st.pp * st.cp, initial=1)  # the job's GPUs, every one of which a step waits for
    compute = m * plan.compute_mb + plan.step_compute
    return Breakdown(
        compute_s=compute, tensor_parallel_s=m * tensor, context_parallel_s=m * context,
        pipeline_s=m * pipeline_steady, expert_parallel_s=m * expert, bubble_s=bubble,
        straggler_s=training.straggler_s(compute, gpus), data_parallel_s=exposed,
        optimizer_s=plan.optimizer_s, memory_bytes=plan.memory_bytes,
        memory_limit_bytes=plan.memory_limit_bytes, hardware_flops=plan.hardware_flops,
        model_flops=plan.model_flops)


@record(slots=False)
class TransformerPlan:
    """What a transformer's iteration needs that no fabric changes, per strategy planned: microbatches, compute of
    one microbatch (and the windows communication can hide under), the collectives (with their calls), optimizer
    step, memory and FLOPs; the strategies planned (`index`: their positions in the set the plan was asked for),
    and the least memory any strategy of that set needs."""

    strategies: Strategies
    index: np.ndarray
    least_memory_bytes: float
    memory_limit_bytes: float
    m: np.ndarray
    stage_layers: np.ndarray  # on the fullest stage
    compute_mb: np.ndarray  # one microbatch through the slowest stage
    step_compute: np.ndarray  # once a step besides the microbatches: the fullest stage's FP8 weight casts
    gemm_mb: np.ndarray  # of which GEMMs
    column_gemm_mb: np.ndarray  # one backward GEMM (data or weight gradient) of the column-parallel layers
    attention_mb: np.ndarray  # of which attention
    last_backward: np.ndarray  # the first stage's backward of one microbatch: the gradients' window
    first_forward: np.ndarray  # the first stage's forward of one microbatch: the parameter gather's window
    pp_calls_mb: np.ndarray
    ep_calls_mb: np.ndarray
    cp_calls_mb: np.ndarray
    optimizer_s: np.ndarray
    memory_bytes: np.ndarray
    hardware_flops: np.ndarray
    model_flops: np.ndarray
    rerun: np.ndarray  # the share of the fullest stage's layers whose forward reruns (1 without full recomputation)
    stage_params: np.ndarray  # parameters on the first stage's GPU
    grad_group: np.ndarray  # the ranks the gradients are reduced over
    expert_params: np.ndarray  # of stage_params, the routed experts' (their own group's)
    expert_group: np.ndarray  # the ranks the experts' gradients are reduced over (expert data parallelism)
    model: TransformerModel
    training: TrainingSettings
    _checked: dict = field(default_factory=dict, compare=False, repr=False)
    _collectives: dict = field(default_factory=dict, compare=False, repr=False)  # `_plan_collectives`', once built
    _floor_parts: dict = field(default_factory=dict, compare=False, repr=False)  # `floor_parts`', once found

    @property
    def mix(self) -> tuple:
        """The collectives: tensor-parallel ones, then pipeline, expert, context, all-reduce, reduce-scatter,
        all-gather (`_plan_collectives`, built when first priced: a search prices only some of a plan's
        strategies, from a plan of those alone)."""
        return self._built()["mix"]

    @property
    def tp_calls(self) -> dict:
        """Each tensor-parallel collective's calls per microbatch."""
        return self._built()["tp_calls"]

    @property
    def gather_to_grad(self) -> float:
        """Bytes per parameter gathered over bytes per gradient reduced."""
        return self.training.param_gather_bytes / self.training.grad_reduce_bytes

    @property
    def bucket_bytes(self) -> np.ndarray:
        """One gradient bucket."""
        return self._built()["bucket_bytes"]

    def _built(self) -> dict:
        if not self._collectives:
            self._collectives.update(_plan_collectives(self))
        return self._collectives

    def mix_arrays(self, job_gpus: int) -> tuple:
        """The mix's group arrays checked against a job of `job_gpus` ranks (`fabric.kind.group_arrays`), found
        once per plan: every fabric a search prices the plan on reads them."""
        if job_gpus not in self._checked:
            self._checked[job_gpus] = tuple(group_arrays(c, job_gpus) for c in self.mix)
        return self._checked[job_gpus]

    def floor_parts(self) -> FloorParts:
        """What `transformer_floor` reads of the plan whatever the fabric, found once per plan: every fabric a search
        prices the plan on floors it."""
        if not self._floor_parts:
            st = self.strategies
            first, inverse = distinct_whole_columns(tuple(getattr(st, key) for key in MODEL_PARALLEL_KEYS))
            tp_layers = _tp_layers(self.model, st, self.stage_layers)
            tp_calls = _tp_calls(st, self.rerun, tp_layers)
            self._floor_parts["parts"] = FloorParts(inverse, self.take(first, None).mix, tp_calls,
                                                    _tp_async_calls(st, tp_layers))
        return self._floor_parts["parts"]

    def take(self, index, job_gpus: int | None) -> TransformerPlan:
        """The plan of the strategies `index` alone (their mix's group arrays taken from this plan's where it has
        them checked for a job of `job_gpus` ranks, else checked on those strategies alone when they are priced)."""
        count = len(self.m)
        part = (lambda v: v[index] if isinstance(v, np.ndarray) and v.ndim and len(v) == count else v)
        values = {f.name: part(getattr(self, f.name)) for f in fields(self)
                  if f.name not in ("strategies", "_checked", "_collectives", "_floor_parts")}
        checked = {job_gpus: tuple(tuple(part(a) for a in arrays) for arrays in self._checked[job_gpus])} \
            if job_gpus in self._checked else {}
        return TransformerPlan(**values, strategies=self.strategies.take(index), _checked=checked)


def transformer_plan(model: TransformerModel, gpu: Gpu, batch: int, st: Strategies, *,
                     compute: ComputeSettings = DEFAULT_SETTINGS, training: TrainingSettings = DEFAULT_TRAINING,
                     precision: str | None = None, fitting: bool = False) -> TransformerPlan:
    """The fabric-free part of `transformer_breakdown`, of every strategy of `st`, or with `fitting` of those that
    fit in the GPU's memory alone (a search plans only what it may pick: each strategy's figures are its own,
    whatever else is planned with it). The same model, GPU, strategies and settings give the same plan, computed
    once (a sweep prices one plan on many fabrics)."""
    return _transformer_plan(model, gpu, batch, st, compute, training, precision or precision_for(gpu), fitting)


@record(slots=False)
class ModelStates:
    """Parameters of a GPU whose gradients and optimizer state live on a group of their own, and that group's size."""

    params: np.ndarray
    group: np.ndarray


@record(slots=False)
class _Runs:
    """What a plan reads of the runs of strategies it keeps (`_memory_first`), one entry per run."""

    strategies: Strategies
    n_first: np.ndarray  # layers of the first, an interior and the last pipeline stage
    n_interior: np.ndarray
    n_last: np.ndarray
    fullest: np.ndarray  # layers of the fullest stage
    rerun: np.ndarray  # the share of the fullest stage's layers whose forward reruns
    stage_params: np.ndarray  # parameters on the first stage's GPU
    grad_group: np.ndarray  # the ranks the gradients are reduced over
    expert_params: np.ndarray  # of stage_params, the routed experts'
    expert_group: np.ndarray  # the ranks the experts' gradients are reduced over
    memory: np.ndarray  # bytes on the first stage's GPU
    inverse: np.ndarray  # each run's distinct layer configuration

    def take(self, index) -> _Runs:
        return _Runs(strategies=self.strategies.take(index),
                     **{f.name: getattr(self, f.name)[index] for f in fields(self) if f.name != "strategies"})


def _memory_first(model, gpu, all_st, compute, training, fitting: bool, batch: int) -> tuple:
    """The memory of every strategy of `all_st`, found first, once per run of strategies alike but for their
    rank order (`Strategies.order_runs`): (the distinct layer configurations; (the least memory any strategy
    needs, the GPU's usable memory); the positions to plan — every strategy, or with `fitting` those that fit;
    each planned strategy's run among the runs kept; and what the plan reads of those runs (`_Runs`))."""
    runs, run_of = all_st.order_runs()
    st = all_st.take(runs)
    n_first, n_interior, n_last = (x.astype(float) for x in stage_layers(model.layers, st.pp))
    fullest = np.maximum(np.maximum(n_first, n_interior), n_last)
    # full recomputation of only some of each stage's layers (Megatron's --recompute-num-layers): that share of
    # the layers reruns its forward, the rest keeps its activations
    rerun = np.where(st.recompute == 2, st.recompute_layers / fullest, 1.0)
    # the parameters depend on (tp, pp, ep, etp) alone: each distinct one found once
    shards, sharded = distinct_whole_columns((st.tp, st.pp, st.ep, st.etp))
    shard = (st.tp[shards], st.pp[shards], st.ep[shards], st.etp[shards])
    stage_params = parameters_per_gpu(model, *shard)[sharded]
    grad_group = (st.dp * st.cp).astype(float)  # the gradients are reduced (and the optimizer sharded) over
    # data × context parallelism; the routed experts' over the expert data-parallel group, the GPUs of a stage
    # holding the same experts (Megatron-Core's expert grid: tp·cp·dp / (ep·etp) of them)
    experts = ModelStates(expert_parameters_per_gpu(model, *shard)[sharded],
                          (st.tp * st.cp * st.dp / (st.ep * st.etp)).astype(float))
    # a layer's figures depend on (microbatch, tp, sp, recompute, ep, cp, etp) alone: each distinct one found once
    first, inverse = distinct_layers(st.microbatch, st.tp, st.sp, st.recompute, st.ep, st.cp, st.etp)
    configs = st.take(first)
    memory = _plan_memory(model, gpu, st, configs, inverse, compute, training, rerun, n_first, stage_params,
                          grad_group, experts, batch / (st.dp * st.microbatch).astype(float))
    limit = gpu.hbm_bytes * training.usable_memory
    least = float(np.min(memory, initial=math.inf))
    runs = _Runs(strategies=st, n_first=n_first, n_interior=n_interior, n_last=n_last, fullest=fullest, rerun=rerun,
                 stage_params=stage_params, grad_group=grad_group, expert_params=experts.params,
                 expert_group=experts.group, memory=memory, inverse=inverse)
    if not fitting:
        return configs, (least, limit), np.arange(len(all_st)), run_of, runs
    fits = memory <= limit
    index = np.flatnonzero(fits[run_of])
    kept = np.flatnonzero(fits)
    return configs, (least, limit), index, (np.cumsum(fits) - 1)[run_of[index]], \
        runs.take(kept) if len(kept) < len(st) else runs


@last_results(32)  # the fabric-free plan once per strategy set: a sweep prices one plan on every point's fabric
def _transformer_plan(model, gpu, batch, all_st, compute, training, precision, fitting) -> TransformerPlan:
    configs, (least, limit), index, run, r = _memory_first(model, gpu, all_st, compute, training, fitting, batch)
    st, fullest, rerun, stage_params = r.strategies, r.fullest, r.rerun, r.stage_params
    d, t, p, c, b, v = (x.astype(float) for x in (st.dp, st.tp, st.pp, st.cp, st.microbatch, st.interleave))
    m = batch / (d * b)
    common = dict(microbatch=configs.microbatch, tp=configs.tp, sequence_parallel=configs.sp,
                  recompute=configs.recompute, cp=configs.cp, precision=precision, settings=compute,
                  split_tp_gemms=training.tp_overlap == "gemm")
    # per-layer averages over the model's kinds of layer (each stage holds them in proportion)
    kinds = [("dense", model.dense_mlp_layers, {})]
    if model.is_moe:
        kinds.append(("moe", model.moe_layers, {"ep": configs.ep, "etp": configs.etp}))
    if model.encoder_layers:
        kinds.append(("encoder", model.encoder_layers, {}))
    fwd = bwd = gemm = attention = flops = cast = 0.0
    at = (lambda figure: figure[r.inverse])  # a distinct configuration's figure at each strategy
    # what a recomputation runs again in the backward: a fully recomputed layer its whole forward, its forward
    # collectives with it (`again`: the recomputed share `rerun` of the stage's layers, as `_tp_calls` counts the
    # tensor-parallel ones); selective recomputation its attention core (`reattend`, with full's share), under
    # which the context-parallel exchange it reruns is hidden too
    again = np.where(st.recompute == 2, rerun, 0.0)
    reattend = np.where(st.recompute == 1, 1.0, again)
    for kind, count, extra in kinds:
        lt = layer_times(model, gpu, kind=kind, **common, **extra)  # sums over a configuration's figures first
        share = count / model.layers
        fwd = fwd + share * at(lt.forward_s)
        bwd = bwd + share * (at(lt.backward_s) - (1.0 - rerun) * at(lt.recompute_s))
        gemm = gemm + share * at(lt.gemm_forward_s + lt.gemm_backward_s)
        attention = attention + share * (at(lt.attention_forward_s) * (1.0 + reattend) + at(lt.attention_backward_s))
        flops = flops + count * (at(lt.hardware_flops) - (1.0 - rerun) * at(lt.recompute_flops))
        cast = cast + share * at(lt.weight_cast_s)
    edges = edge_times(model, gpu, microbatch=configs.microbatch, tp=configs.tp, sequence_parallel=configs.sp,
                       cp=configs.cp, precision=precision, settings=compute)
    emb_f, emb_b = at(edges.embedding_forward_s), at(edges.embedding_backward_s)
    head, head_b, head_flops = at(edges.head_forward_s + edges.head_backward_s), at(edges.head_backward_s), \
        at(edges.head_flops)
    layer = fwd + bwd
    single = p == 1
    first = r.n_first * layer + emb_f + emb_b + np.where(single, head, 0.0)
    compute_mb = np.maximum(np.maximum(first, r.n_interior * layer), r.n_last * layer + head)
    compute_mb = compute_mb + np.where(st.zero == 3, shard_copy_s(stage_params, gpu, compute), 0.0)

    # --- communication: the calls per microbatch here (the bound reads them), the collectives when priced --
    pp_calls_mb = np.where(p > 1, 2.0 * v, 0.0)
    # the token dispatcher's all-to-alls: dispatch and combine in the forward (again where the layer reruns), their
    # gradients in the backward
    ep_calls_mb = np.where(st.ep > 1, (4.0 + 2.0 * again) * model.moe_layers / p, 0.0)
    # context parallelism: each layer all-gathers the sequence's keys and values in the forward, again in the
    # backward, and reduce-scatters their gradients (workloads-3.md §6); once more where the attention reruns
    cp_calls_mb = np.where(c > 1, (3.0 + reattend) * fullest, 0.0)
    updated = np.where(st.zero >= 1, (stage_params - r.expert_params) / r.grad_group
                       + r.expert_params / r.expert_group, stage_params)
    optimizer = optimizer_step_s(updated, gpu, compute) + _gradient_buffer_s(r, updated, gpu, compute, training)

    # the windows the first stage's gradient reduction and parameter gather hide under: one microbatch's backward
    # (forward) through the stage; with v interleaved chunks each chunk's reduction starts when its own last
    # backward ends, and the final microbatch reaches the stage's chunks p chunk-steps apart, so the earliest chunk
    # has (v − 1)·p chunk-steps to hide under (workloads-3.md §3.2: a chunk's grad sync launches when its last
    # backward finishes)
    spread = ((v - 1.0) * p + 1.0) / v
    per_run = dict(
        m=m, stage_layers=fullest, compute_mb=compute_mb, step_compute=fullest * cast, gemm_mb=gemm * fullest,
        column_gemm_mb=gemm * fullest * _column_share(model) / 3.0, attention_mb=attention * fullest,
        last_backward=spread * (r.n_first * bwd + emb_b + np.where(single, head_b, 0.0)),
        first_forward=spread * (r.n_first * fwd + emb_f),
        pp_calls_mb=pp_calls_mb, ep_calls_mb=ep_calls_mb, cp_calls_mb=cp_calls_mb, optimizer_s=optimizer,
        memory_bytes=r.memory,
        hardware_flops=(flops + 3.0 * head_flops) * m * d * t * c,  # per shard × shards × microbatches × pipelines
        rerun=rerun, stage_params=stage_params, grad_group=r.grad_group, expert_params=r.expert_params,
        expert_group=r.expert_group)
    return TransformerPlan(
        strategies=all_st.take(index), index=index, least_memory_bytes=least, memory_limit_bytes=limit,
        **{name: value[run] for name, value in per_run.items()},  # each planned strategy's run's
        model_flops=np.full(len(index), training_flops_per_token(model) * batch * model.tokens),
        model=model, training=training)


def _gradient_buffer_s(r: _Runs, updated, gpu, compute: ComputeSettings, training: TrainingSettings):
    """Each step's passes over this GPU's gradient buffer outside the optimizer (`TrainingSettings`
    grad_buffer_passes, grad_average): the whole buffer (the 1/dp·cp shard under sharded accumulation) zeroed and
    checked; scaled in place by the reduction's 1/(dp·cp) where the stack does not average in the collective (the
    routed experts' part by 1/expert-dp), and otherwise the experts' part still by expert-dp/(dp·cp) where the two
    groups differ (NVIDIA/Megatron-LM megatron/core/distributed/distributed_data_parallel.py)."""
    sharded = compute.grad_accumulation == "sharded"
    buffer = updated if sharded else r.stage_params
    dense, experts = r.stage_params - r.expert_params, r.expert_params
    if sharded:
        dense, experts = dense / r.grad_group, experts / r.expert_group
    in_place = training.grad_average == "in-place"
    scaled = (np.where(in_place & (r.grad_group > 1), dense, 0.0)
              + np.where((r.expert_group > 1) if in_place else (r.expert_group != r.grad_group), experts, 0.0))
    return gradient_buffer_s(training.grad_buffer_passes * buffer + 2.0 * scaled, training.grad_reduce_bytes, gpu,
                             compute)


def _tp_calls(st: Strategies, rerun, fullest) -> dict:
    """Each tensor-parallel collective's calls per microbatch through the fullest stage."""
    per_layer = tensor_parallel_collectives_per_layer(st.recompute, st.sp)
    replayed = np.where(st.recompute == 2, 2.0 * (1.0 - rerun), 0.0)  # the forward collectives not rerun
    return {op: np.where(st.tp > 1, np.where(count > 0, count - replayed, 0.0) * fullest, 0.0)
            for op, count in per_layer.items()}


def _plan_collectives(plan: TransformerPlan) -> dict:
    """The plan's collectives (`TransformerPlan.mix`), each tensor-parallel one's calls per microbatch and one
    gradient bucket, from the strategies' groups, messages and calls."""
    st, m, fullest, rerun, model, training = (plan.strategies, plan.m, plan.stage_layers, plan.rerun, plan.model,
                                              plan.training)
    stage_params, grad_group = plan.stage_params, plan.grad_group
    t, c, b = (x.astype(float) for x in (st.tp, st.cp, st.microbatch))
    strides = st.strides()
    act = training.activation_bytes
    tp_calls = _tp_calls(st, rerun, _tp_layers(model, st, fullest))
    tp_msg = tensor_parallel_message_bytes(model, st.microbatch, act) / c
    pp_msg = pipeline_message_bytes(model, st.microbatch, st.tp, act) / c
    tokens = b * model.tokens / c
    # the all-to-alls end when the busiest GPU of the expert group has received its copies (`expert_load`)
    ep_msg = (tokens / t) * all_to_all_bytes_per_token(model.hidden, model.top_k,
                                                       dispatch_bytes=training.ep_dispatch_bytes or act,
                                                       combine_bytes=training.ep_combine_bytes or act, ep=st.ep) / 2.0 \
        * expert_load(model, tokens * st.etp / t, st.ep) if model.is_moe else np.zeros_like(t)
    cp_msg = 2.0 * b * model.tokens * kv_width(model) / t * act
    # the experts' gradients reduce over their own group (e GPUs, next to each other every ep·etp ranks in the
    # expert grid), the others over the data-parallel one (g): both priced as one reduction over the larger group,
    # the other group's parameters by their bytes per GPU, (x − 1)/x of them (none on a group of one)
    g, e, experts = plan.grad_group, plan.expert_group, plan.expert_params
    wider = e > g
    on = (lambda x: 1.0 - 1.0 / x)  # the share of a reduction's bytes that leaves a GPU of a group of x
    ratio = (lambda x, y: np.divide(on(x), on(y), out=np.zeros_like(x), where=y > 1))  # x's bytes over y's
    reduced = np.where(wider, experts + (stage_params - experts) * ratio(g, e),
                       (stage_params - experts) + experts * ratio(e, g))
    grad_group = np.where(wider, e, g)
    grads = reduced * training.grad_reduce_bytes
    gather = reduced * training.param_gather_bytes
    bucket = np.minimum(np.maximum(training.bucket_parameters, training.bucket_parameters_per_replica * grad_group),
                        stage_params)
    tp_cs = [Collective(op, tp_msg, st.tp, strides["tp"], calls=m * tp_calls[op], name=f"tp-{op}") for op in tp_calls]
    pp_c = Collective("p2p", pp_msg, st.pp, strides["pp"], calls=m * plan.pp_calls_mb, name="pp")
    ep_c = Collective("all_to_all", ep_msg, st.ep, strides["ep"], calls=m * plan.ep_calls_mb, name="ep")
    cp_c = Collective("all_gather", cp_msg, st.cp, strides["cp"], calls=m * plan.cp_calls_mb, name="cp")
    grad_stride = np.where(wider, st.ep * st.etp,  # tp-pp-dp keeps cp = 1
                           np.where(st.order == 1, strides["dp"], strides["cp"]))
    ar_c = Collective("all_reduce", grads, grad_group, grad_stride, calls=(st.zero == 0) * 1.0, name="dp")
    rs_c = Collective("reduce_scatter", grads, grad_group, grad_stride,
                      calls=np.select([st.zero == 1, st.zero >= 2], [1.0, m], 0.0), name="dp-rs")
    ag_c = Collective("all_gather", gather, grad_group, grad_stride,
                      calls=np.select([st.zero == 3, st.zero >= 1], [2.0 * m, 1.0], 0.0), name="zero-ag")
    return {"mix": (*tp_cs, pp_c, ep_c, cp_c, ar_c, rs_c, ag_c), "tp_calls": tp_calls,
            "bucket_bytes": bucket * training.grad_reduce_bytes}


def _plan_memory(model, gpu, st, configs, inverse, compute, training, rerun, n_first, stage_params, grad_group,
                 experts: ModelStates, microbatches):
    """Bytes on the first stage's GPU: its stored activations (the recomputed share of the layers keeping only
    their inputs, one layer's working set while it reruns; the microbatches in flight no more than an iteration's
    `microbatches`), the embedding's, and the model states. A layer's activations are found for each distinct layer
    configuration (`configs`; `inverse`, each strategy's)."""
    c, p = st.cp.astype(float), st.pp.astype(float)
    flash = gpu.attention_kernel(compute.attention) != "unfused"
    kw = dict(tp=configs.tp, sequence_parallel=configs.sp, flash_attention=flash, cp=configs.cp)
    b = configs.microbatch
    moe_share = model.moe_layers / model.layers  # a stage holds each kind of layer in proportion

    def per_layer(recompute):  # a layer's stored bytes, averaged over the model's kinds of layer
        dense = model_activation_bytes_per_layer(model, b, recompute=recompute, **kw)
        if not model.is_moe:
            return dense[inverse]
        moe = model_activation_bytes_per_layer(model, b, recompute=recompute, moe=True, etp=configs.etp, **kw)
        return ((1.0 - moe_share) * dense + moe_share * moe)[inverse]
    kept = per_layer("none")
    stored = np.where(st.recompute == 2, rerun * per_layer("full") + (1.0 - rerun) * kept,
                      per_layer(configs.recompute))
    working = np.where(st.recompute == 2, kept, 0.0)
    activations = (first_stage_activation_bytes(stored, n_first * p, st.pp, st.interleave, microbatches=microbatches)
                   + working
                   + embedding_activation_bytes(model.tokens / c, st.microbatch, model.hidden, model.vocab, tp=st.tp,
                                                pp=st.pp, microbatches=microbatches))
    grad_bytes = training.grad_reduce_bytes
    states = (model_state_bytes(stage_params - experts.params, grad_group, st.zero, grad_bytes=grad_bytes)
              + model_state_bytes(experts.params, experts.group, st.zero, grad_bytes=grad_bytes))
    return states + activations


# --- the transformer workload kind (workloads.kinds) ---------------------------------------------------------------
def _kind_breakdown(model: TransformerModel, gpu: Gpu, est: FabricEstimate, batch: int, per_candidate: dict, *,
                    stack, precision: str, gradient_bytes=None) -> tuple:
    """Every valid strategy of `model` on the job's GPUs of `est` under `stack`, and their breakdown."""
    from workloads.strategy import transformer_strategies

    st = transformer_strategies(model, est.job_gpus, batch, per_candidate, stack)
    return st, transformer_breakdown(model, gpu, est, batch, st, compute=stack.compute_for(gpu),
                                     training=stack.training, precision=precision)


TRANSFORMER_KIND = WorkloadKind(
    name="transformer", model=TransformerModel, default_stack=DEFAULT_STACK, unit="tokens",
    per_iteration=lambda model, batch: batch * model.tokens, breakdown=_kind_breakdown, default_amount=300e9,
    amount_source="GPT-3's 300B tokens (Brown et al. 2020)", parameters=parameter_count,  # all experts of an MoE
    shape=lambda m: f"l {m.layers}, h {m.hidden}, a {m.heads}, s {m.seq_len}" + (
        f", {m.experts} experts top-{m.top_k}" if m.is_moe else ""), batched=True)
