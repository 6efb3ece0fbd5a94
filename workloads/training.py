"""Iteration time of a transformer training job on a fabric, for arrays of strategies (workloads.strategy):

    iteration = m·t_stage + (p − 1)/v·t_stage + exposed data-parallel reduction + exposed ZeRO gathers + optimizer

t_stage is one microbatch through the slowest pipeline stage: its layers' forward and backward compute
(workloads.compute), the tensor-parallel collectives on the critical path (Megatron-LM: two all-reduces forward
and two backward per layer over the t GPUs of the group, two more when full recomputation replays the forward —
reduce-scatter + all-gather pairs of the same volume with sequence parallelism), the pipeline point-to-point sends
(activations forward, gradients backward, b·s·h/t bytes each with Megatron's scatter/gather, v times with v
interleaved chunks) and, for mixture-of-experts layers, the expert-parallel all-to-alls (dispatch and combine,
forward and backward). The pipeline bubble is (p − 1)/v stage times (1F1B; N21 §2.2). Gradients are reduced over
the data-parallel group once per iteration, overlapped with the last microbatch's backward (buckets become ready
layer by layer, so at least one layer's bucket is exposed) — or not at all with `dp_overlap = "none"`.

Every collective is priced by the fabric for the group it runs in (fabric.kind: tensor groups consecutive, data
and pipeline groups strided by the strategy's rank order) and, on fabrics configured once per job (SiP-OCS,
SiP-Ring), on the share of the fabric the job's whole traffic mix gives it (bytes per iteration of each group).

Memory per GPU: weights, gradients and optimizer states (ZeRO stage, fp32 main gradients) plus the first stage's
activations (K22), within the usable share of HBM; strategies that do not fit are marked infeasible.

References: N21 = Narayanan et al., SC21; K22 = Korthikanti et al., MLSys 2023; R20 = Rajbhandari et al., SC20
(ZeRO traffic: 2Ψ for stages 0–2, 3Ψ for stage 3).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from core.fields import param
from core.memo import last_results
from fabric.estimate import FabricEstimate
from fabric.evaluate import price, price_first
from fabric.kind import Collective
from workloads.compute import DEFAULT_SETTINGS, ComputeSettings, edge_times, layer_times, optimizer_step_s
from workloads.gpus import Gpu
from workloads.memory import (embedding_activation_bytes, first_stage_activation_bytes,
                              model_activation_bytes_per_layer,
                              model_state_bytes)
from workloads.models import TransformerModel
from workloads.moe import all_to_all_bytes_per_token
from workloads.strategy import Strategies
from workloads.pipeline import bubble_fraction
from workloads.transformer import (megatron_flops_per_iteration, parameters_per_gpu, pipeline_message_bytes,
                                   tensor_parallel_collectives_per_layer, tensor_parallel_message_bytes,
                                   training_flops_per_token)


@dataclass(frozen=True, kw_only=True, slots=True)
class TrainingSettings:
    """How the training software runs; each default with its source."""

    dp_overlap: str = param("backward", "choice", "data-parallel gradient reduction overlapped with the last "
                            "microbatch's backward ('backward', PyTorch DDP and Megatron-LM --overlap-grad-reduce) "
                            "or after it ('none', SiP-ML's fat-tree term)", "PyTorch DDP bucketing [restated]",
                            choices=("backward", "none"))
    activation_bytes: float = param(2.0, "1", "bytes per activation element on the wire (16-bit)",
                                    "mixed-precision training [restated]", lo=1.0, hi=4.0)
    grad_reduce_bytes: float = param(4.0, "1", "bytes per gradient element in the data-parallel reduction",
                                     "Megatron-LM keeps fp32 main gradients and reduces them in fp32 with bf16 "
                                     "(--accumulate-allreduce-grads-in-fp32) [restated]", lo=1.0, hi=4.0)
    param_gather_bytes: float = param(2.0, "1", "bytes per parameter in ZeRO's parameter all-gather (16-bit "
                                      "weights)", "R20 §7 [restated]", lo=1.0, hi=4.0)
    usable_memory: float = param(0.9, "1", "share of HBM a job can fill (the rest: CUDA context, allocator "
                                 "fragmentation, workspace)", "[assumed] ~8 GB of 80 GB lost in practice",
                                 lo=0.1, hi=1.0)


DEFAULT_TRAINING = TrainingSettings()


@dataclass(frozen=True)
class Breakdown:
    """Seconds per iteration by phase, and what the strategy needs, per candidate (arrays of one length)."""

    compute_s: np.ndarray  # m · (forward + backward) of the slowest stage, with recomputation
    tensor_parallel_s: np.ndarray  # exposed tensor-parallel collectives
    pipeline_s: np.ndarray  # exposed point-to-point sends between stages
    expert_parallel_s: np.ndarray  # all-to-alls of the mixture-of-experts layers
    bubble_s: np.ndarray
    data_parallel_s: np.ndarray  # exposed gradient reduction (and ZeRO gathers)
    optimizer_s: np.ndarray
    memory_bytes: np.ndarray  # per GPU
    memory_limit_bytes: float
    hardware_flops: np.ndarray  # per iteration, whole job, recomputation included
    model_flops: np.ndarray  # per iteration, whole job, without recomputation (for MFU)
    megatron_flops: float  # N21's count (96·B·s·l·h²·…), the numerator of its achieved TFLOP/s

    @property
    def iteration_s(self) -> np.ndarray:
        return (self.compute_s + self.tensor_parallel_s + self.pipeline_s + self.expert_parallel_s + self.bubble_s
                + self.data_parallel_s + self.optimizer_s)

    @property
    def fits(self) -> np.ndarray:
        return self.memory_bytes <= self.memory_limit_bytes

    def take(self, index) -> Breakdown:
        values = {}
        for f in fields(self):
            value = getattr(self, f.name)
            values[f.name] = value[index] if isinstance(value, np.ndarray) else value
        return Breakdown(**values)

    def phases(self, i: int) -> dict[str, float]:
        return {name: float(getattr(self, f"{name}_s")[i]) for name in
                ("compute", "tensor_parallel", "pipeline", "expert_parallel", "bubble", "data_parallel", "optimizer")}


def precision_for(gpu: Gpu) -> str:
    """bf16 where the GPU has it, else fp16 (V100)."""
    return "bf16" if "bf16" in gpu.precisions else "fp16"


def transformer_breakdown(model: TransformerModel, gpu: Gpu, est: FabricEstimate, batch: int, st: Strategies, *,
                          compute: ComputeSettings = DEFAULT_SETTINGS,
                          training: TrainingSettings = DEFAULT_TRAINING) -> Breakdown:
    """The iteration of every strategy in `st` for `batch` sequences on the fabric `est` (its job's GPUs)."""
    plan = transformer_plan(model, gpu, batch, st, compute=compute, training=training)
    m, bwd, compute_mb, tp_calls, tp_cs, mix = plan.m, plan.bwd, plan.compute_mb, plan.tp_calls, plan.tp_cs, plan.mix
    pp_c, ep_c, ar_c, rs_c, ag_c = mix[len(tp_cs):]
    tensor = sum(tp_calls[c.op] * price(est, [c], mix)[0].seconds for c in tp_cs)
    pp_t, ep_t = (price(est, [c], mix)[0].seconds for c in (pp_c, ep_c))
    # the gradient reduction runs while the backward's tensor-parallel collectives run
    ar_t, rs_t, ag_t = (price_first(est, [c, *tp_cs], mix).seconds for c in (ar_c, rs_c, ag_c))
    pipeline = plan.pp_calls_mb * pp_t
    expert = plan.ep_calls_mb * ep_t
    t_stage = compute_mb + tensor + pipeline + expert
    bubble = bubble_fraction(st.pp, m, st.interleave) * m * t_stage

    # data-parallel reduction (R20): stage 0 all-reduces the accumulated gradients once, stage 1 reduce-scatters them
    # once, in the last microbatch's backward (at least one layer's bucket exposed) and all-gathers the updated
    # parameter shards after the step; stage 2 keeps only its gradient shard, so it reduce-scatters every
    # microbatch's gradients in that microbatch's backward; stage 3 also gathers the parameters for every
    # microbatch's forward and backward, prefetched under that microbatch's compute
    reduce = np.where(st.zero >= 1, rs_t, ar_t)
    if training.dp_overlap == "backward":
        hidden = lambda cost, window: np.maximum(cost - window, cost / np.maximum(plan.stage_layers, 1.0))  # noqa: E731
    else:
        hidden = lambda cost, window: cost  # noqa: E731
    exposed = np.select([st.zero <= 1, st.zero == 2],
                        [hidden(reduce, bwd) + np.where(st.zero == 1, ag_t, 0.0), m * hidden(rs_t, bwd) + ag_t],
                        m * hidden(2.0 * ag_t + rs_t, compute_mb))
    return Breakdown(
        compute_s=m * compute_mb, tensor_parallel_s=m * tensor, pipeline_s=m * pipeline, expert_parallel_s=m * expert,
        bubble_s=bubble, data_parallel_s=exposed, optimizer_s=plan.optimizer_s, memory_bytes=plan.memory_bytes,
        memory_limit_bytes=gpu.hbm_bytes * training.usable_memory, hardware_flops=plan.hardware_flops,
        model_flops=plan.model_flops, megatron_flops=plan.megatron_flops)


@dataclass(frozen=True)
class TransformerPlan:
    """What a transformer's iteration needs that no fabric changes, per strategy: microbatches, compute of one
    microbatch, the collectives (with their calls), optimizer step, memory and FLOPs."""

    m: np.ndarray
    stage_layers: np.ndarray
    bwd: np.ndarray
    compute_mb: np.ndarray
    tp_calls: dict
    tp_cs: list
    mix: tuple  # tensor-parallel collectives, then pipeline, expert, all-reduce, reduce-scatter, all-gather
    pp_calls_mb: np.ndarray
    ep_calls_mb: np.ndarray
    optimizer_s: np.ndarray
    memory_bytes: np.ndarray
    hardware_flops: np.ndarray
    model_flops: np.ndarray
    megatron_flops: float


def transformer_plan(model: TransformerModel, gpu: Gpu, batch: int, st: Strategies, *,
                     compute: ComputeSettings = DEFAULT_SETTINGS,
                     training: TrainingSettings = DEFAULT_TRAINING) -> TransformerPlan:
    """The fabric-free part of `transformer_breakdown`; the same model, GPU, strategies and settings give the same
    plan, computed once (a sweep prices one plan on many fabrics)."""
    return _transformer_plan(model, gpu, batch, st, compute, training)


@last_results(32)
def _transformer_plan(model, gpu, batch, st, compute, training) -> TransformerPlan:
    precision = precision_for(gpu)
    d, t, p, b, v = (x.astype(float) for x in (st.dp, st.tp, st.pp, st.microbatch, st.interleave))
    m = batch / (d * b)
    common = dict(microbatch=st.microbatch, tp=st.tp, sequence_parallel=st.sp, recompute=st.recompute,
                  precision=precision, settings=compute)
    stage_layers = model.layers / p
    dense = layer_times(model, gpu, kind="dense", **common)
    fwd = dense.forward_s * model.dense_mlp_layers / p
    bwd = dense.backward_s * model.dense_mlp_layers / p
    flops = dense.hardware_flops * model.dense_mlp_layers
    if model.is_moe:
        moe = layer_times(model, gpu, kind="moe", ep=st.ep, **common)
        fwd, bwd = fwd + moe.forward_s * model.moe_layers / p, bwd + moe.backward_s * model.moe_layers / p
        flops = flops + moe.hardware_flops * model.moe_layers
    if model.encoder_layers:
        enc = layer_times(model, gpu, kind="encoder", **common)
        fwd, bwd = fwd + enc.forward_s * model.encoder_layers / p, bwd + enc.backward_s * model.encoder_layers / p
        flops = flops + enc.hardware_flops * model.encoder_layers
    stage_params = parameters_per_gpu(model, st.tp, st.pp, st.ep)
    edges = edge_times(model, gpu, microbatch=st.microbatch, tp=st.tp, sequence_parallel=st.sp,
                       precision=precision, settings=compute)
    first = edges.embedding_forward_s + edges.embedding_backward_s
    last = edges.head_forward_s + edges.head_backward_s
    compute_mb = fwd + bwd + np.where(p > 1, np.maximum(first, last), first + last)

    # --- communication ------------------------------------------------------------------------------------
    strides = st.strides()
    tokens = b * model.seq_len
    act = training.activation_bytes
    per_layer = tensor_parallel_collectives_per_layer(st.recompute, st.sp)
    tp_calls = {op: np.where(t > 1, count * model.layers / p, 0.0) for op, count in per_layer.items()}
    tp_msg = tensor_parallel_message_bytes(model, st.microbatch, act)
    pp_calls_mb = np.where(p > 1, 2.0 * v, 0.0)
    pp_msg = pipeline_message_bytes(model, st.microbatch, st.tp, act)
    moe_per_stage = model.moe_layers / p
    ep_calls_mb = np.where(st.ep > 1, 4.0 * moe_per_stage, 0.0)
    ep_msg = (tokens / t) * all_to_all_bytes_per_token(model.hidden, model.top_k, dispatch_bytes=act,
                                                       combine_bytes=act, ep=st.ep) / 2.0 if model.is_moe \
        else np.zeros_like(t)
    grads = stage_params * training.grad_reduce_bytes
    gather = stage_params * training.param_gather_bytes
    tp_cs = [Collective(op, tp_msg, st.tp, strides["tp"], calls=m * tp_calls[op], name=f"tp-{op}") for op in tp_calls]
    pp_c = Collective("p2p", pp_msg, st.pp, strides["pp"], calls=m * pp_calls_mb, name="pp")
    ep_c = Collective("all_to_all", ep_msg, st.ep, strides["ep"], calls=m * ep_calls_mb, name="ep")
    ar_c = Collective("all_reduce", grads, st.dp, strides["dp"], calls=(st.zero == 0) * 1.0, name="dp")
    rs_c = Collective("reduce_scatter", grads, st.dp, strides["dp"],
                      calls=np.select([st.zero == 1, st.zero >= 2], [1.0, m], 0.0), name="dp-rs")
    ag_c = Collective("all_gather", gather, st.dp, strides["dp"],
                      calls=np.select([st.zero == 3, st.zero >= 1], [2.0 * m, 1.0], 0.0), name="zero-ag")
    mix = (*tp_cs, pp_c, ep_c, ar_c, rs_c, ag_c)
    updated = np.where(st.zero >= 1, stage_params / d, stage_params)
    optimizer = optimizer_step_s(updated, gpu, compute)

    # --- memory --------------------------------------------------------------------------------------------
    flash = compute.attention == "flash"
    per_layer = model_activation_bytes_per_layer(model, st.microbatch, tp=st.tp, sequence_parallel=st.sp,
                                                 recompute=st.recompute, flash_attention=flash)
    working = np.where(st.recompute == 2, model_activation_bytes_per_layer(
        model, st.microbatch, tp=st.tp, sequence_parallel=st.sp, recompute="none", flash_attention=flash), 0.0)
    activations = (first_stage_activation_bytes(per_layer, model.layers, st.pp, st.interleave) + working
                   + embedding_activation_bytes(model.seq_len, st.microbatch, model.hidden, model.vocab, tp=st.tp,
                                                pp=st.pp))
    states = model_state_bytes(stage_params, st.dp, st.zero, grad_bytes=training.grad_reduce_bytes)

    return TransformerPlan(
        m=m, stage_layers=stage_layers, bwd=bwd, compute_mb=compute_mb, tp_calls=tp_calls, tp_cs=tp_cs, mix=mix,
        pp_calls_mb=pp_calls_mb, ep_calls_mb=ep_calls_mb, optimizer_s=optimizer, memory_bytes=states + activations,
        hardware_flops=(flops + 3.0 * edges.head_flops) * m * d * t,  # per shard × shards × microbatches × pipelines
        model_flops=np.full(len(st), training_flops_per_token(model) * batch * model.seq_len),
        megatron_flops=float(megatron_flops_per_iteration(batch, model.layers, model.hidden, model.seq_len,
                                                          model.vocab)))
