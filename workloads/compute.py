"""Achieved compute: the seconds one transformer layer takes on one GPU, forward and backward, for arrays of
strategies (microbatch b, tensor-parallel size t, sequence parallelism, recomputation, expert parallelism).

Each layer is the kernels it runs, per tensor-parallel shard (Megatron-LM's split: QKV and MLP-up by columns,
attention-out and MLP-down by rows, attention by heads):

- GEMMs — QKV (or MLA's down/up projections), attention scores QKᵀ, attention·V, output projection, MLP up and
  down, MoE router and experts — each timed by `workloads.gemm` (tile/wave quantization over the SMs, the
  MAMF ceiling, the HBM roofline, the fixed kernel time). The backward of Y = X·W runs dX = dY·Wᵀ and
  dW = Xᵀ·dY, so it is ≈ 2× the forward, each product timed at its own shape.
- memory-bound kernels — LayerNorm/RMSNorm, softmax, dropout, GeLU/SwiGLU, bias + dropout + residual add,
  the context-layer transpose, rotary embedding, MoE permutation — as bytes moved / (HBM bandwidth × the same
  streaming efficiency the GEMM model uses), plus the fixed kernel time each.
- recomputation: full recomputation runs the whole forward again inside the backward; selective runs the
  attention core again (QKᵀ, softmax, dropout, attention·V), K22 §5 — a fused kernel's forward too (Megatron-Core
  checkpoints the core attention whatever its kernel: with a fused kernel it saves no memory and costs a forward).
- a fused (flash) attention kernel replaces the score GEMMs and the softmax/dropout kernels by one kernel at
  the share of the tensor-core peak the GPU's measurements give its kernel family (`workloads.gpus`), skipping
  the tiles above the diagonal of causal attention; its backward does 2.5× the forward FLOPs (it recomputes the
  scores).
- FP8 GEMMs (Transformer Engine) run at the GPU's FP8 MAMF, after cast-transpose kernels that turn each 16-bit
  operand into FP8 (the activations and the output gradients every microbatch, after an amax pass of their own under
  current scaling; the weights once a step, `LayerTimes.weight_cast_s`); attention, the memory-bound kernels and
  the output layer stay in 16 bits (Megatron-Core's output layer is its own ColumnParallelLinear, not a Transformer
  Engine module, so FP8 does not reach it: NVIDIA/Megatron-LM megatron/core/models/gpt/gpt_model.py [verbatim]).

Also: the input embedding, the output logits with the vocabulary-parallel cross-entropy, the optimizer step
and per-microbatch gradient accumulation. Everything broadcasts over numpy arrays; identical strategies are
evaluated once (`np.unique`), so 10⁶ candidates with a few hundred distinct (b, t, …) cost little.

Software choices that change the bytes moved are `ComputeSettings`, set per training stack (workloads.stacks):
Megatron-LM as of SC21 ran unfused attention and added each microbatch's fp16 weight gradients into fp32 main
gradients in a separate pass; today's stacks fuse both (flash attention, gradient accumulation inside the
weight-gradient GEMM). Every rate is the GPU's benchmark rate times the stack's in-situ share on it
(`ComputeSettings.efficiency_on`). No constant depends on the model.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from core.distinct import distinct_whole_columns
from core.errors import InputError
from core.records import record
from workloads.gemm import GemmConstants, ceiling_flops, gemm_time_s
from workloads.gpus import Gpu
from workloads.models import TransformerModel
from workloads.moe import expert_load
from workloads.flop_units import OPERAND_BYTES, activation_bytes, check_precision
from workloads.settings import DEFAULT_SETTINGS, ComputeSettings
from workloads.transformer import (Weight, layer_parameters_per_gpu, layer_weights, recompute_code,
                                   score_head_dim)

KINDS = ("dense", "moe", "encoder")




@record(kw_only=True)
class LayerTimes:
    """Seconds and FLOPs of one layer for one microbatch on one GPU, arrays over the strategies given.

    backward_s includes the recomputed forward (recompute_s) and the gradient accumulation."""

    gemm_forward_s: np.ndarray
    attention_forward_s: np.ndarray  # QKᵀ, softmax, dropout, attention·V (or the fused kernel)
    elementwise_forward_s: np.ndarray
    gemm_backward_s: np.ndarray
    attention_backward_s: np.ndarray
    elementwise_backward_s: np.ndarray
    grad_accumulation_s: np.ndarray
    recompute_s: np.ndarray
    forward_flops: np.ndarray  # executed by the forward pass (GEMMs and attention)
    backward_flops: np.ndarray  # 2× forward; fused attention recomputes its scores: 2.5× its forward
    recompute_flops: np.ndarray
    parameters: np.ndarray  # of the layer on this GPU (workloads.transformer.layer_parameters_per_gpu)
    weight_cast_s: np.ndarray  # once per step, not per microbatch: the layer's weights cast to FP8 (0 in 16 bits)

    @property
    def forward_s(self):
        return self.gemm_forward_s + self.attention_forward_s + self.elementwise_forward_s

    @property
    def backward_s(self):
        return (self.gemm_backward_s + self.attention_backward_s + self.elementwise_backward_s
                + self.grad_accumulation_s + self.recompute_s)

    @property
    def total_s(self):
        return self.forward_s + self.backward_s

    @property
    def hardware_flops(self):
        """FLOPs executed by forward, backward and recomputation."""
        return self.forward_flops + self.backward_flops + self.recompute_flops

    def take(self, index) -> LayerTimes:
        """The figures at the positions `index` (e.g. each strategy's distinct layer configuration)."""
        return LayerTimes(**{f.name: getattr(self, f.name)[index] for f in fields(self)})


@record(kw_only=True)
class _Hardware:
    """What the GEMM and attention models read of a GPU at one precision: ceiling, SMs, HBM, operand sizes."""
    ceiling: float
    sm_count: int
    hbm_bandwidth: float  # spec, bytes/s
    operand_bytes: float
    element_bytes: float
    constants: GemmConstants
    attention_kernel: str  # what the GPU runs for the software's choice: 'unfused', 'flash2' or 'flash3'
    attention_rates: tuple[float, float]  # fused attention's forward and backward FLOP/s on its useful FLOPs
    fp8: bool  # GEMMs in FP8 (their operands cast from 16 bits first)
    fp8_cast_bytes: float
    fp8_amax_pass: bool  # current scaling: each operand's amax read in a pass of its own before its cast
    ceiling16: float  # the 16-bit GEMM ceiling: the output layer's, whatever the layers' GEMMs run in

    software_efficiency: float = 1.0

    @property
    def stream_bandwidth(self) -> float:
        """What a streaming kernel achieves, bytes/s."""
        return self.hbm_bandwidth * self.constants.hbm_efficiency * self.software_efficiency

    def gemm(self, batch, m, n, k, output_bytes=None):
        return gemm_time_s(batch, m, n, k, ceiling_flops_per_s=self.ceiling, sm_count=self.sm_count,
                           hbm_bandwidth_bytes_per_s=self.hbm_bandwidth, operand_bytes=self.operand_bytes,
                           output_bytes=self.element_bytes if output_bytes is None else output_bytes,
                           constants=self.constants)

    def gemms(self, shapes: list, sixteen_bit: bool = False) -> np.ndarray:
        """`gemm` of each (batch, m, n, k, output bytes) of `shapes` (numbers or arrays that broadcast), in one
        call: their times stacked on a leading axis; with `sixteen_bit`, in 16 bits whatever the layers run in."""
        shape = np.broadcast_shapes(*(np.shape(x) for dims in shapes for x in dims))
        columns = np.empty((5, len(shapes)) + shape)  # (batch, m, n, k, output bytes) × shapes
        for i, dims in enumerate(shapes):
            for j, x in enumerate(dims):
                columns[j, i] = x
        if sixteen_bit:
            return gemm_time_s(*columns[:4], ceiling_flops_per_s=self.ceiling16, sm_count=self.sm_count,
                               hbm_bandwidth_bytes_per_s=self.hbm_bandwidth, operand_bytes=self.element_bytes,
                               output_bytes=columns[4], constants=self.constants)
        return self.gemm(*columns[:4], output_bytes=columns[4])

    def fp8_cast(self, elements, tensors=1.0):
        """Seconds to cast `elements` 16-bit values to FP8 (with the transposed copy the backward reads), after
        their amax pass under current scaling, as `tensors` equal tensors quantized one by one."""
        each = np.asarray(elements, dtype=float) / tensors
        amax = self.stream(self.element_bytes * each, tensors) if self.fp8_amax_pass else 0.0
        return self.stream(self.fp8_cast_bytes * each, tensors) + amax

    def stream(self, moved_bytes, kernels=1):
        """`kernels` memory-bound kernels, each moving `moved_bytes`."""
        moved = np.asarray(moved_bytes, dtype=float)
        return np.where(moved > 0, kernels * (self.constants.kernel_time + moved / self.stream_bandwidth), 0.0)


def _hardware(gpu: Gpu, precision: str | None, settings: ComputeSettings) -> _Hardware:
    precision = gpu.default_precision if precision is None else check_precision(precision)
    efficiency = settings.efficiency_on(gpu)
    ceiling = ceiling_flops(gpu, precision, settings.gemm) * efficiency
    kernel = gpu.attention_kernel(settings.attention)
    peak16 = gpu.peak_flops(gpu.default_precision)  # fused attention runs in 16 bits whatever the GEMMs do
    shares = gpu.attention.get(kernel, (0.0, 0.0))
    return _Hardware(ceiling=ceiling, software_efficiency=efficiency, sm_count=gpu.sm_count,
                     hbm_bandwidth=gpu.hbm_bandwidth_bytes_per_s, operand_bytes=OPERAND_BYTES[precision],
                     element_bytes=activation_bytes(precision), constants=settings.gemm, attention_kernel=kernel,
                     attention_rates=tuple(x * peak16 * efficiency for x in shares),
                     fp8=precision == "fp8", fp8_cast_bytes=settings.fp8_cast_bytes,
                     fp8_amax_pass=settings.fp8_scaling == "current",
                     ceiling16=ceiling if precision == gpu.default_precision else
                     ceiling_flops(gpu, gpu.default_precision, settings.gemm) * efficiency)


# --- strategy arrays ------------------------------------------------------------------------------------------
def _strategy_arrays(microbatch, tp, sequence_parallel, recompute, ep, cp, etp):
    b, t, e, c, et = (np.asarray(x) for x in (microbatch, tp, ep, cp, etp))
    for name, value in (("microbatch", b), ("tp", t), ("ep", e), ("cp", c), ("etp", et)):
        if value.size and (not np.all(np.equal(np.mod(value, 1), 0)) or np.any(value < 1)):
            raise InputError(f"{name} must be whole numbers ≥ 1")
    sp = np.asarray(sequence_parallel, dtype=bool)
    rc = recompute_code(recompute)
    return np.broadcast_arrays(b.astype(np.int64), t.astype(np.int64), sp, rc, e.astype(np.int64),
                               c.astype(np.int64), et.astype(np.int64))


def _check_divisible(model: TransformerModel, t, e, kind):
    """InputError naming the tensor- (and expert-) parallel sizes that do not divide the heads (the experts); the
    sizes are read only where one fails (a set, not np.unique, which imports numpy.ma)."""
    bad_t = sorted({int(x) for x in t[model.heads % t != 0].ravel()})
    if bad_t:
        raise InputError(f"{model.name}: heads = {model.heads} is not divisible by tensor-parallel size(s) {bad_t}")
    if kind == "moe":
        bad_e = sorted({int(x) for x in e[model.experts % e != 0].ravel()})
        if bad_e:
            raise InputError(f"{model.name}: experts = {model.experts} is not divisible by expert-parallel "
                             f"size(s) {bad_e}")


def _unique_strategies(arrays):
    """Distinct rows of the (b, t, sp, rc, ep, cp, etp) strategy arrays and the index that maps them back."""
    rows = tuple(a.ravel() for a in arrays)
    first, inverse = distinct_layers(*rows)
    return tuple(x[first] for x in rows), inverse


def distinct_layers(microbatch, tp, sequence_parallel, recompute, ep, cp, etp) -> tuple[np.ndarray, np.ndarray]:
    """(the first of each distinct (microbatch, tp, sp, recompute code, ep, cp, etp) of 1-D strategy arrays of whole
    numbers, each strategy's distinct one): what a layer's figures depend on
    (`core.distinct.distinct_whole_columns`)."""
    return distinct_whole_columns((microbatch, tp, sequence_parallel, recompute, ep, cp, etp))


# --- one layer ------------------------------------------------------------------------------------------------
def layer_times(model: TransformerModel, gpu: Gpu, *, microbatch, tp=1, sequence_parallel=False,
                recompute="none", ep=1, cp=1, etp=None, precision=None, kind="dense", split_tp_gemms=False,
                settings: ComputeSettings = DEFAULT_SETTINGS) -> LayerTimes:
    """Forward and backward seconds of one layer for one microbatch on one GPU.

    `kind`: 'dense' (a decoder layer; with cross-attention for encoder–decoder models), 'moe' (its MLP is the
    mixture of experts, `ep` GPUs sharing the experts, each expert's MLP split over `etp` GPUs: the
    tensor-parallel group (None), or fewer, the expert group folded over it, each GPU dispatching its
    sequence-parallel share of the tokens) or 'encoder'. `split_tp_gemms`: the tensor-parallel GEMMs that overlap
    a collective run as tp GEMMs of M/tp rows each (`_tp_chunks`). With context parallelism over `cp` GPUs each
    holds s/cp of every sequence's tokens and attends them to the whole sequence (load-balanced chunks,
    workloads-3.md §6). Arrays broadcast; the result has their common shape."""
    if kind not in KINDS:
        raise InputError(f"kind = {kind!r}: expected one of {', '.join(KINDS)}")
    if kind == "moe" and not model.is_moe:
        raise InputError(f"{model.name} has no MoE layers")
    arrays = _strategy_arrays(microbatch, tp, sequence_parallel, recompute, ep, cp, tp if etp is None else etp)
    shape = arrays[0].shape
    _check_divisible(model, arrays[1], arrays[4], kind)
    hw = _hardware(gpu, precision, settings)
    (b, t, sp, rc, e, c, et), inverse = _unique_strategies(arrays)
    parts = _layer_parts(model, hw, settings, kind, b.astype(float), t.astype(float), sp.astype(bool), rc,
                         e.astype(float), c.astype(float), et.astype(float), split_tp_gemms)
    return LayerTimes(**{name: np.asarray(value, dtype=float)[inverse].reshape(shape)
                         for name, value in parts.items()})


def _rows(weight: Weight, model: TransformerModel, tokens, routed_tokens, ep, load):
    """(batch, rows, the rows' share of them a GPU computes on average) of a weight's GEMM on one GPU: all the
    tokens, or for routed experts the E/ep local experts each with its share of the slots dispatched to the
    busiest GPU of the expert group from the T routed tokens of each of its GPUs, `load` times T·top_k
    (`workloads.moe.expert_load`)."""
    if not weight.routed:
        return 1.0, tokens, 1.0
    local = model.experts / ep
    return local, routed_tokens * model.top_k * load / local, model.capacity_factor / load


def _cast_tensors(weight: Weight, model: TransformerModel, ep, settings: ComputeSettings):
    """The tensors a weight's FP8 operands are quantized as, each with its own kernels: the E/ep local experts'
    one by one where their GEMMs run per expert and the scaling is not delayed (Transformer Engine's split_quantize
    fuses the experts' casts into one kernel for delayed scaling only: transformer_engine/pytorch/csrc/extensions/
    cast.cpp, multi_tensor_quantize_impl, 'Currently only have fused kernel for FP8 delayed scaling' [verbatim]);
    1 otherwise."""
    if not weight.routed or settings.expert_gemms == "grouped" or settings.fp8_scaling == "delayed":
        return 1.0
    return model.experts / ep


def _expert_rounds(weight: Weight, model: TransformerModel, ep, settings: ComputeSettings):
    """The rounds a routed weight's GEMMs run in on one GPU: its E/ep local experts' GEMMs each a kernel of its own,
    expert_gemm_streams at a time, a round's kernels sharing the SMs as one batched GEMM of theirs would
    [assumed] (ComputeSettings.expert_gemms 'per-expert'); 1 for one grouped kernel, or a weight that is not an
    expert's."""
    if not weight.routed or settings.expert_gemms == "grouped":
        return 1.0
    return np.ceil(model.experts / ep / settings.expert_gemm_streams)


def _split_dims(weight: Weight, t, etp):
    """(N, K) of a weight's GEMM on one GPU: column- or row-parallel over the tensor-parallel GPUs, routed
    experts over their own `etp`."""
    t = etp if weight.routed else t
    n = weight.n / t if weight.split == "column" else weight.n * np.ones_like(t)
    k = weight.k / t if weight.split == "row" else weight.k * np.ones_like(t)
    return n, k


def _tp_chunks(weight: Weight, chunks):
    """(forward, data-gradient) GEMMs of `weight` each run as: 1, or `chunks` GEMMs of M/chunks rows. Transformer
    Engine's user-buffer overlap of a tensor-parallel collective with its GEMM by ring exchange computes one chunk
    of M/tp rows while the next moves: the all-gather before the column-parallel forward GEMMs (QKV, MLP up) and
    before the row-parallel data-gradient GEMMs (output projection, MLP down), the reduce-scatter after the
    row-parallel forward GEMMs; the column-parallel data gradients and every weight gradient overlap in bulk, one
    GEMM. NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/training/comm_overlap.py: ring_exchange for qkv_fprop,
    fc1_fprop, proj_dgrad, fc2_dgrad in every configuration; proj_fprop and fc2_fprop by ring exchange in most,
    in others (most BF16 H100 ones) pipelined in 4 splits on the SMs an 8–32-SM communication kernel leaves
    [restated]; taken here as tp chunks throughout [assumed: 4 splits at TP 4; at TP 8 twice the splits on all the
    SMs, at TP 2 half]. Every non-routed, non-replicated projection is split so (MLA's and cross-attention's too,
    which no configuration lists)."""
    if weight.routed or weight.split == "replicated":
        return 1.0, 1.0
    return chunks, (chunks if weight.split == "row" else 1.0)


def _layer_parts(model: TransformerModel, hw: _Hardware, settings: ComputeSettings, kind, b, t, sp, rc, ep, cp,
                 etp, split_tp_gemms=False):
    s = float(model.tokens)  # the real tokens of a sequence: attention on sequences of the mean length
    s_q = s / cp  # the tokens of a sequence this GPU holds; its queries attend to all s keys
    el = hw.element_bytes
    tokens = b * s_q
    tokens_sp = np.where(sp, tokens / t, tokens)  # tokens per GPU outside the tensor-parallel region
    routed = tokens * etp / t  # tokens each GPU routes: its sequence-parallel share, gathered over the etp GPUs
    cross = kind == "dense" and model.encoder_layers > 0
    weights = layer_weights(model, moe=kind == "moe", cross_attention=cross)
    wgrad_out = 8.0 if settings.grad_accumulation == "fused" else el

    gemm_f = np.zeros_like(b)
    gemm_b = np.zeros_like(b)
    weight_cast = np.zeros_like(b)
    flops_f = np.zeros_like(b)
    params = layer_parameters_per_gpu(model, t, ep, moe=kind == "moe", cross_attention=cross, etp=etp)
    biased_outputs = np.zeros_like(b)  # Σ rows × N over biased GEMMs, for the bias-gradient reductions
    load = expert_load(model, routed, ep) if kind == "moe" else 1.0
    # (w, batch, rows, the rows' average share, n, k, forward chunks, data-gradient chunks, rounds of GEMMs)
    chunks = np.where(sp & (t > 1), t, 1.0) if split_tp_gemms else np.ones_like(t)
    dims = [(w, *_rows(w, model, tokens, routed, ep, load), *_split_dims(w, t, etp), *_tp_chunks(w, chunks),
             _expert_rounds(w, model, ep, settings)) for w in weights]
    # each weight's forward, data-gradient and weight-gradient GEMMs (chunk by chunk, round by round), timed in one
    # call
    times = iter(hw.gemms([shape for _, batch, rows, _, n, k, cf, cd, r in dims for shape in (
        (batch / r, rows / cf, n, k, el), (batch / r, rows / cd, k, n, el), (batch / r, k, n, rows, wgrad_out))]))
    for w, batch, rows, average, n, k, cf, cd, r in dims:
        gemm_f = gemm_f + cf * r * next(times)
        gemm_b = gemm_b + cd * r * next(times) + r * next(times)
        if hw.fp8:  # the input cast before the forward, the output gradient before the backward; the weight once
            # a step (Transformer Engine keeps the FP8 weights of the step's first microbatch: is_first_microbatch)
            tensors = _cast_tensors(w, model, ep, settings)
            gemm_f = gemm_f + hw.fp8_cast(batch * rows * k, tensors)
            gemm_b = gemm_b + hw.fp8_cast(batch * rows * n, tensors)
            weight_cast = weight_cast + hw.fp8_cast(batch * k * n, tensors)
        flops_f = flops_f + 2.0 * batch * rows * average * n * k
        if w.bias:
            biased_outputs = biased_outputs + batch * rows * n

    heads_local = model.heads / t
    d_qk, d_v = float(score_head_dim(model)), float(model.value_head_dim)
    dropout = model.dropout == "yes"
    masks = [model.attention_mask == "causal" and kind != "encoder"] + ([False] if cross else [])  # self, cross
    att_f = att_b = att_flops = att_backward_flops = att_recompute = np.zeros_like(b)
    unfused = hw.attention_kernel == "unfused"
    for causal in masks:
        if unfused:
            f, bw, fl, rerun = _unfused_attention(hw, b, s_q, s, heads_local, d_qk, d_v, dropout)
            bw_flops = 2.0 * fl
        else:
            f, bw, fl = _flash_attention(hw, settings, b, s_q, s, heads_local, d_qk, d_v, causal, cp)
            # selective recomputation checkpoints the attention core whatever its kernel (Megatron-Core's
            # _checkpointed_attention_forward): the fused kernel's forward runs again in the backward
            bw_flops, rerun = 2.5 * fl, f
        att_f, att_b, att_flops = att_f + f, att_b + bw, att_flops + fl
        att_backward_flops, att_recompute = att_backward_flops + bw_flops, att_recompute + rerun

    elem_f, elem_b = _elementwise(model, hw, kind, tokens, tokens_sp, t, cross, dropout, biased_outputs, unfused,
                                  settings.layer_kernels == "eager", settings.norm_kernel == "eager", routed, etp, ep,
                                  load, settings.moe_dispatch == "sorted")
    grad_acc = hw.stream(10.0 * params) if settings.grad_accumulation == "separate" else np.zeros_like(b)

    forward_s = gemm_f + att_f + elem_f
    forward_flops = flops_f + att_flops
    selective_flops = att_flops
    return dict(gemm_forward_s=gemm_f, attention_forward_s=att_f, elementwise_forward_s=elem_f,
                gemm_backward_s=gemm_b, attention_backward_s=att_b, elementwise_backward_s=elem_b,
                grad_accumulation_s=grad_acc,
                recompute_s=np.select([rc == 2, rc == 1], [forward_s, att_recompute], 0.0),
                forward_flops=forward_flops, backward_flops=2.0 * flops_f + att_backward_flops,
                recompute_flops=np.select([rc == 2, rc == 1], [forward_flops, selective_flops], 0.0),
                parameters=params, weight_cast_s=weight_cast)


def _unfused_score_flops(b, s_q, s_k, heads, d_qk, d_v):
    return 2.0 * b * heads * s_q * s_k * (d_qk + d_v)


def _unfused_attention(hw: _Hardware, b, s_q, s_k, heads, d_qk, d_v, dropout):
    """QKᵀ and attention·V as batched GEMMs over b·heads, the s_q×s_k scores through softmax (and dropout) in
    HBM. Returns forward, backward, forward FLOPs and the time selective recomputation re-runs."""
    batch = b * heads
    el = hw.element_bytes
    scores = batch * s_q * s_k
    qk = hw.gemm(batch, s_q, s_k, d_qk)
    av = hw.gemm(batch, s_q, d_v, s_k)
    softmax_f = hw.stream(2.0 * el * scores)
    dropout_f = hw.stream((2.0 * el + 1.0) * scores) if dropout else 0.0 * b
    forward = qk + av + softmax_f + dropout_f
    backward = (hw.gemm(batch, s_q, d_qk, s_k) + hw.gemm(batch, s_k, d_qk, s_q)      # dQ = dS·K, dK = dSᵀ·Q
                + hw.gemm(batch, s_q, s_k, d_v) + hw.gemm(batch, s_k, d_v, s_q)      # dP = dO·Vᵀ, dV = Pᵀ·dO
                + hw.stream(3.0 * el * scores)                                       # softmax backward
                + (hw.stream((2.0 * el + 1.0) * scores) if dropout else 0.0 * b))
    return forward, backward, _unfused_score_flops(b, s_q, s_k, heads, d_qk, d_v), forward


def _flash_attention(hw: _Hardware, settings: ComputeSettings, b, s_q, s_k, heads, d_qk, d_v, causal, calls):
    """Fused kernels over the keys in `calls` pieces (the ring steps of context parallelism): the FLOPs of the tiles
    the kernel runs at the GPU's measured long-sequence share of the 16-bit peak for the kernel family
    (workloads.gpus), plus each outer tile's pipeline fill, worth L½ keys once a call (a rate ∝ L/(L + L½) for L
    keys a call), or the HBM time of Q, K, V and O, whichever is longer; the backward does 2.5× the FLOPs (it
    recomputes the scores) at its own rate and moves Q, K, V, O, dO in and dQ, dK, dV out.

    Causal: outer tiles of B tokens (`ComputeSettings.flash_block`) visit the keys up to their diagonal only,
    ((n + 1)/(2n) of the square for n = s/B tiles, all of it below one tile: the unmasked half plus the tiles
    crossing the diagonal run whole), while every outer tile still pays its fill: ~1.7× over non-causal at 2k
    tokens, nearer 2× at 16k, where FlashAttention-2 reports ~1.7–1.8× (Dao 2023 §3.1.1, no length given). The
    useful FLOPs (returned, counted by HFU) are the unmasked half."""
    full = _unfused_score_flops(b, s_q, s_k, heads, d_qk, d_v)
    useful = full * (0.5 if causal else 1.0)
    # the share of the square whose tiles run, and each outer tile's fill (worth L½ keys) once a call as a share of
    # the keys; causal under context parallelism, half the calls run half the tiles (the load-balanced chunks: a
    # rank's later chunk alone attends the keys of the ranks after it)
    run = np.minimum(0.5 * (1.0 + settings.flash_block / s_k), 1.0) if causal else 1.0
    fill = ((1.0 + 0.75 * (calls - 1.0)) if causal else calls) * settings.flash_half_length / s_k
    forward_rate, backward_rate = hw.attention_rates
    el = hw.element_bytes
    io = b * heads * (s_q + s_k) * (d_qk + d_v) * el  # Q and O of this GPU's tokens, K and V of the sequence
    fixed = calls * hw.constants.kernel_time
    forward = fixed + np.maximum(full * (run + fill) / forward_rate, io / hw.stream_bandwidth)
    backward = fixed + np.maximum(2.5 * full * (run + fill) / backward_rate, 2.0 * io / hw.stream_bandwidth)
    return forward, backward, useful


@record
class _Op:
    """HBM bytes per element a memory-bound op moves forward and backward, in how many kernels each."""

    forward: float
    backward: float
    forward_kernels: int = 1
    backward_kernels: int = 1


def _ops(el: float, eager: bool, eager_norm: bool) -> dict[str, _Op]:
    """The per-element bytes of a layer's memory-bound ops (e = `el` bytes per 16-bit activation, fp32 temporaries
    4 B). Fused: one kernel per op reading its inputs once and writing its output once. Eager (PyTorch autograd op
    by op, torchtitan's Llama modules) [inferred] by counting each op's reads and writes, forward and backward:
    - RMSNorm (`eager_norm`) `(x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * w`: cast e+4,
      pow 8, mean 4, scale 8, cast back 4+e, weight 2e = 4e + 28 in 8 kernels (two of them per row only); its
      autograd backward 8e + 76 in 16 kernels (the weight product's two gradients, the casts, the scale's two
      gradients, pow's backward as a copy, a scalar and a gradient product, the mean's divide, and the sum of the
      two paths into dx). LayerNorm is one native kernel either way.
    - SwiGLU `silu(a) * b`: 2e + 3e in 2 kernels; backward the product's two gradients 6e, silu's 3e, 3 kernels.
    - rotary embedding through fp32 complex numbers: cast e+4, complex product 8, cast back 4+e = 2e + 16 in 3
      kernels, the same backward.
    - copies: the attention output transposed back to [s, b, h] (`.contiguous()`), and under grouped-query
      attention the keys and values repeated to every query head (`_elementwise`)."""
    fused = dict(norm=_Op(2.0 * el, 3.0 * el), swiglu=_Op(3.0 * el, 5.0 * el), rotary=_Op(2.0 * el, 2.0 * el))
    if eager:
        fused.update(swiglu=_Op(5.0 * el, 9.0 * el, 2, 3), rotary=_Op(2.0 * el + 16.0, 2.0 * el + 16.0, 3, 3))
    if eager_norm:
        fused.update(norm=_Op(4.0 * el + 28.0, 8.0 * el + 76.0, 8, 16))
    return fused


def _elementwise(model: TransformerModel, hw: _Hardware, kind, tokens, tokens_sp, t, cross, dropout,
                 biased_outputs, unfused_attention, eager, eager_norm, routed_tokens, etp, ep, load,
                 sorted_dispatch):
    """Forward and backward seconds of the memory-bound kernels of one layer (bytes per element in
    comments; e = 2 bytes per 16-bit activation, masks 1 byte); `eager`, `eager_norm`: op by op (`_ops`);
    `routed_tokens`, `etp`, `ep`, `load`: the tokens a GPU routes to the experts, the GPUs an expert is split over,
    those sharing the experts and the busiest one's copies over T·top_k (`workloads.moe.expert_load`);
    `sorted_dispatch`: ComputeSettings.moe_dispatch is 'sorted'."""
    el, h = hw.element_bytes, float(model.hidden)
    mask = 1.0 if dropout else 0.0
    norms = 3 if cross else 2
    hidden_sp = tokens_sp * h
    ops = _ops(el, eager, eager_norm)
    fwd, bwd = [], []

    def run(op: _Op, elements, count=1):
        fwd.append(hw.stream(op.forward * elements / op.forward_kernels, count * op.forward_kernels))
        bwd.append(hw.stream(op.backward * elements / op.backward_kernels, count * op.backward_kernels))

    # norms: read x, write y / backward read x and dy, write dx (RMSNorm eager: `_ops`)
    run(ops["norm"] if model.norm == "rmsnorm" else _ops(el, False, False)["norm"], hidden_sp, norms)
    # end of each residual branch: bias + dropout + residual add (read branch and residual, write, mask) /
    # backward: dropout backward (read dy, mask; write) and the residual stream's gradient sum (read 2, write 1)
    fwd.append(hw.stream((3.0 * el + mask) * hidden_sp, norms))
    bwd.append(hw.stream((2.0 * el + mask) * hidden_sp, norms) + hw.stream(3.0 * el * hidden_sp, norms))
    # MLP activation on the tensor-parallel shard: GeLU read 1 write 1 / back read 2 write 1 (one kernel either
    # way); SwiGLU `_ops`
    activation = ops["swiglu"] if model.gated else _Op(2.0 * el, 3.0 * el)
    if kind == "moe":
        slots = routed_tokens * model.top_k * load
        activations = slots * model.expert_ffn / etp + tokens * model.shared_experts * model.expert_ffn / t
        # dispatch and combine permutations of the token copies (gather the k copies, then scatter them back
        # with the weighted sum), each pass reading and writing every copy: the permutation before the all-to-all
        # and its undoing move the GPU's own (sequence-parallel) tokens' copies; with several experts on a GPU the
        # sort by local expert after it and its undoing (ComputeSettings.moe_dispatch), the copies gathered over
        # the etp GPUs
        own = 2.0 * el * tokens_sp * model.top_k * model.capacity_factor * h
        sort = np.where(sorted_dispatch & (model.experts / ep > 1), 2.0 * el * slots * h, 0.0)
        for side in (fwd, bwd):
            side.append(hw.stream(own, 2) + hw.stream(sort, 2))
    else:
        activations = tokens * model.ffn / t
    run(activation, activations)
    # rotary embedding of queries and keys (`_ops`)
    if model.position == "rotary":
        rotary_width = ((model.heads + model.kv) * model.qk_head_dim if model.attention == "mha"
                        else model.heads * model.rope_head_dim + model.rope_head_dim)
        run(ops["rotary"], tokens * rotary_width / t)
    copy = _Op(2.0 * el, 2.0 * el)
    # the context layer [b·heads, s, d_v] written back to [s, b, heads·d_v] (unfused attention, or eager code's
    # transpose before the output projection): read + write
    if unfused_attention or eager:
        run(copy, tokens * model.heads * model.value_head_dim / t * (2 if cross else 1))
    # eager grouped-query attention repeats each key and value head to the query heads it serves: read the kv
    # heads, write every head's copy; its backward sums the copies back (read every head's, write the kv heads)
    if eager and model.attention == "mha" and model.kv < model.heads:
        repeated = el * (model.heads + model.kv) * (model.qk_head_dim + model.value_head_dim) / t
        run(_Op(repeated, repeated), tokens)
    # bias gradients: one more read of each biased GEMM's output gradient
    bwd.append(hw.stream(el * biased_outputs))
    return sum(fwd), sum(bwd)


# --- embedding, logits, optimizer -----------------------------------------------------------------------------
@record(kw_only=True)
class EdgeTimes:
    """Seconds and FLOPs of the work outside the transformer layers for one microbatch on one GPU: the input
    embedding (first pipeline stage) and the final norm, logits and cross-entropy (last stage)."""

    embedding_forward_s: np.ndarray
    embedding_backward_s: np.ndarray
    head_forward_s: np.ndarray
    head_backward_s: np.ndarray
    head_flops: np.ndarray  # forward GEMM FLOPs of the logits

    def take(self, index) -> EdgeTimes:
        """The figures of the strategies `index`."""
        return EdgeTimes(**{f.name: getattr(self, f.name)[index] for f in fields(self)})


def edge_times(model: TransformerModel, gpu: Gpu, *, microbatch, tp=1, sequence_parallel=False, cp=1,
               precision=None, settings: ComputeSettings = DEFAULT_SETTINGS) -> EdgeTimes:
    """The input embedding (vocabulary-parallel lookup, positions, dropout; the dense table gradient) and the
    output head (final norm, logits GEMM against the V/t vocabulary shard, cross-entropy) for the tokens whose
    logits are computed (`model.predicted_tokens`: all of them for a language model, the masked ones for
    masked-LM pre-training)."""
    arrays = _strategy_arrays(microbatch, tp, sequence_parallel, "none", 1, cp, tp)
    shape = arrays[0].shape
    (b, t, sp, _, _, c, _), inverse = _unique_strategies(arrays)  # each distinct (b, t, sp, cp) once
    parts = _edge_parts(model, _hardware(gpu, precision, settings), settings, b.astype(float), t.astype(float),
                        sp.astype(bool), c.astype(float))
    return EdgeTimes(**{name: np.broadcast_to(np.asarray(value, dtype=float), b.shape)[inverse].reshape(shape)
                        for name, value in parts.items()})


def _edge_parts(model: TransformerModel, hw: _Hardware, settings: ComputeSettings, b, t, sp, c) -> dict:
    el, h, v = hw.element_bytes, float(model.hidden), float(model.vocab)
    tokens = b * model.tokens / c
    tokens_sp = np.where(sp, tokens / t, tokens)
    predicted = tokens * model.predicted_tokens
    table = v * h / t
    position = 2.0 if model.position == "learned" else 0.0
    dropout = 1.0 if model.dropout == "yes" else 0.0
    emb_f = hw.stream((2.0 + position + dropout * 1.5) * el * tokens * h)
    accumulate = 10.0 * table if settings.grad_accumulation == "separate" else 0.0
    emb_b = hw.stream(el * table + 3.0 * el * tokens * h) + hw.stream(accumulate)
    wgrad_out = 8.0 if settings.grad_accumulation == "fused" else el
    logits = predicted * v / t
    # the logits GEMM, its data gradient and its weight gradient, timed in one call
    logits_f, logits_d, logits_w = hw.gemms([(1.0, predicted, v / t, h, el), (1.0, predicted, h, v / t, el),
                                             (1.0, h, v / t, predicted, wgrad_out)], sixteen_bit=True)
    head_f = (hw.stream(2.0 * el * tokens_sp * h) + logits_f
              + hw.stream(settings.cross_entropy_forward_bytes * logits))
    head_b = (hw.stream(3.0 * el * tokens_sp * h) + logits_d + logits_w
              + hw.stream(settings.cross_entropy_backward_bytes * logits)
              + (hw.stream(10.0 * table) if settings.grad_accumulation == "separate"
                 and model.embeddings == "untied" else 0.0))
    return dict(embedding_forward_s=emb_f, embedding_backward_s=emb_b, head_forward_s=head_f,
                head_backward_s=head_b, head_flops=2.0 * predicted * v / t * h)


def _streamed_s(moved_bytes, gpu: Gpu, settings: ComputeSettings):
    return np.asarray(moved_bytes, dtype=float) / (gpu.hbm_bandwidth_bytes_per_s * settings.gemm.hbm_efficiency
                                                   * settings.efficiency_on(gpu))


def optimizer_step_s(parameters_per_gpu, gpu: Gpu, settings: ComputeSettings = DEFAULT_SETTINGS):
    """One optimizer step over the parameters this GPU updates (all of its shard's, or 1/N_d of them under
    ZeRO-1 and beyond): bytes per parameter / achievable HBM bandwidth."""
    return _streamed_s(np.asarray(parameters_per_gpu, dtype=float) * settings.optimizer_bytes_per_param, gpu,
                       settings)


def gradient_buffer_s(elements, element_bytes, gpu: Gpu, settings: ComputeSettings = DEFAULT_SETTINGS):
    """Passes over a gradient buffer that read or write `elements` elements of `element_bytes` each (passes ×
    parameters) / achievable HBM bandwidth."""
    return _streamed_s(np.asarray(elements, dtype=float) * element_bytes, gpu, settings)


def shard_copy_s(parameters, gpu: Gpu, settings: ComputeSettings = DEFAULT_SETTINGS):
    """ZeRO-3's buffer copies for one microbatch through `parameters` (unsharded, this GPU's stage): bytes per
    parameter (`shard_copy_bytes_per_param`) / achievable HBM bandwidth."""
    return _streamed_s(np.asarray(parameters, dtype=float) * settings.shard_copy_bytes_per_param, gpu, settings)
