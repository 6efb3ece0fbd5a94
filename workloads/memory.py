"""Memory per GPU: activations of a transformer layer under tensor/sequence parallelism and recomputation
(Korthikanti et al., K22), what the first pipeline stage holds under 1F1B and interleaving, and weights +
gradients + optimizer states under ZeRO stages 0–3 (Rajbhandari et al., R20). Pure numpy, broadcasting over
arrays of strategies; bytes.

References
- K22: Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023.
- R20: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC20.
- the project's workload notes restate both, with the generalisations used here.
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from workloads.models import TransformerModel
from workloads.transformer import recompute_code

ZERO_STAGES = (0, 1, 2, 3)


def activation_bytes_per_layer(seq_len, microbatch, hidden, heads, *, tp=1, sequence_parallel=False,
                               recompute="none", ffn_hidden=None, kv_width=None, value_width=None,
                               gated=False, dropout=True, flash_attention=False):
    """Bytes one transformer layer keeps for its backward pass, per GPU (16-bit activations, 1-byte dropout
    masks).

    With the defaults (MHA, GeLU MLP of width 4h, dropout) this is K22 exactly: s·b·h·(34 + 5·a·s/h) unsplit
    (Eq. 1), s·b·h·(10 + 24/t + 5·a·s/(h·t)) with tensor parallelism (Eq. 2), (s·b·h/t)·(34 + 5·a·s/h) with
    sequence parallelism (Eq. 4), the attention-score term dropped by selective recomputation (Tab. 2), and
    the layer input 2·s·b·h alone under full recomputation (§5; 2·s·b·h/t when the input is sequence-parallel).

    Generalised [inferred, workloads-2.md §1]: an MLP of width d_ff stores 3·sbh + 4·sb·d_ff (6·sb·d_ff when
    gated: gate and up outputs and their product); K and V of width `kv_width` (grouped-query attention)
    store 2·sb·kv_width each instead of 2·sbh; without dropout the three 1-byte masks (attention output, MLP
    output, attention probabilities) and the dropout output of the probabilities go; a fused (flash) attention
    kernel keeps no s×s tensor.
    """
    s, b, h, a, t = (np.asarray(x, dtype=float) for x in (seq_len, microbatch, hidden, heads, tp))
    d_ff = 4.0 * h if ffn_hidden is None else np.asarray(ffn_hidden, dtype=float)
    kv = h if kv_width is None else np.asarray(kv_width, dtype=float)
    v_out = h if value_width is None else np.asarray(value_width, dtype=float)
    sp = np.asarray(sequence_parallel, dtype=bool)
    code = recompute_code(recompute)
    sbh = s * b * h
    mask = 1.0 if dropout else 0.0
    # outside the tensor-parallel region (not split by t unless sequence parallel): the two LayerNorm inputs,
    # the inputs of the QKV and first MLP GEMMs, the two dropout masks after attention and MLP
    unsplit = 4.0 * sbh + 2.0 * sbh + 2.0 * sbh + 2.0 * mask * sbh
    # inside it (split by t): Q, K, V, the output projection's input, the MLP activations
    split = (2.0 * sbh + 2.0 * 2.0 * s * b * kv + 2.0 * s * b * v_out
             + (6.0 if gated else 4.0) * s * b * d_ff)
    scores = np.where(flash_attention, 0.0, (2.0 + (3.0 * mask)) * a * s * s * b)  # softmax out (+ mask, dropout out)
    stored = np.where(sp, (unsplit + split) / t, unsplit + split / t) + np.where(code == 0, scores / t, 0.0)
    full = np.where(sp, 2.0 * sbh / t, 2.0 * sbh)
    return np.where(code == 2, full, stored)


def model_activation_bytes_per_layer(model: TransformerModel, microbatch, *, tp=1, sequence_parallel=False,
                                     recompute="none", flash_attention=False, moe=False, cp=1, etp=None):
    """`activation_bytes_per_layer` for a model's shape (grouped-query widths, gated MLP, dropout). A MoE
    layer's MLP stores, per GPU, the dispatched token copies (2·h each) and the expert activations for
    top_k · capacity_factor slots per token [inferred] — with balanced routing the same whatever the expert
    parallelism; each GPU dispatches its sequence-parallel share of the tokens gathered over the `etp` GPUs an
    expert is split over (default: tp, every token) — plus the shared experts as a dense MLP. Context parallelism
    over `cp` GPUs keeps s/cp of the tokens on each (workloads-3.md §6), and with it 1/cp of everything stored."""
    per_cp = 1.0 / np.asarray(cp, dtype=float)
    hd = model.qk_head_dim
    kv_width = model.kv * hd if model.attention == "mha" else model.heads * hd
    common = dict(tp=tp, sequence_parallel=sequence_parallel, recompute=recompute, gated=model.gated,
                  dropout=model.dropout == "yes", flash_attention=flash_attention,
                  kv_width=kv_width, value_width=model.heads * model.value_head_dim)
    if not moe:
        return per_cp * activation_bytes_per_layer(model.tokens, microbatch, model.hidden, model.heads,
                                                   ffn_hidden=model.ffn, **common)
    # the attention part and norms as a dense layer with an empty MLP, then the MoE MLP on top
    attention = activation_bytes_per_layer(model.tokens, microbatch, model.hidden, model.heads, ffn_hidden=0,
                                           **common)
    s, b, h, t = (np.asarray(x, dtype=float) for x in (model.tokens, microbatch, model.hidden, tp))
    copies = 1.0 if etp is None else np.asarray(etp, dtype=float) / t  # the tokens' share a GPU dispatches
    slots = model.top_k * model.capacity_factor
    per_expert_width = model.expert_ffn
    routed = slots * s * b * (2.0 * h * copies + (6.0 if model.gated else 4.0) * per_expert_width / t)
    shared = model.shared_experts * (6.0 if model.gated else 4.0) * s * b * per_expert_width / t
    code = recompute_code(recompute)
    return per_cp * np.where(code == 2, attention, attention + routed + shared)


def first_stage_activation_bytes(per_layer_bytes, layers, pp, interleave=1, schedule="1f1b", microbatches=None):
    """Activation bytes on the first pipeline stage, which holds the most (K22 Eq. 5, §4.2.3).

    1F1B: p microbatches in flight × L/p layers = L layers' worth, whatever p — min(p, m) of them where an iteration
    has fewer microbatches m than stages (Megatron's warm-up runs min(p − rank − 1, m) forwards before the first
    backward: stage 0 holds min(p, m)); interleaved with v > 1 chunks per GPU (m a multiple of p): × (1 + (p −
    1)/(p·v)); GPipe: all m microbatches × L/p layers."""
    per, l, p, v = (np.asarray(x, dtype=float) for x in (per_layer_bytes, layers, pp, interleave))
    if schedule == "gpipe":
        if microbatches is None:
            raise InputError("GPipe activation memory needs the number of microbatches")
        return per * np.asarray(microbatches, dtype=float) * l / p
    if schedule != "1f1b":
        raise InputError(f"schedule = {schedule!r}: expected '1f1b' or 'gpipe'")
    factor = np.where(v > 1, 1.0 + (p - 1.0) / (p * v), 1.0)
    if microbatches is None:
        return per * l * factor
    m = np.asarray(microbatches, dtype=float)
    return np.where(m >= p, per * l * factor, per * l / p * m * factor)


def embedding_activation_bytes(seq_len, microbatch, hidden, vocab, *, tp=1, pp=1, microbatches=None):
    """Input-embedding dropout masks for the p microbatches in flight (min(p, m) where an iteration has fewer, as
    `first_stage_activation_bytes`), and with p = 1 the last LayerNorm and output layer: (s·b·h/t)·(p + δ_{p=1}·4·(1
    + V/h)) — K22 §4.3 (< 0.01 % of the total at 22B)."""
    s, b, h, v, t, p = (np.asarray(x, dtype=float) for x in (seq_len, microbatch, hidden, vocab, tp, pp))
    held = p if microbatches is None else np.minimum(p, np.asarray(microbatches, dtype=float))
    return s * b * h / t * (held + np.where(p == 1, 4.0 * (1.0 + v / h), 0.0))


def model_state_bytes(parameters, dp=1, zero_stage=0, *, optimizer_bytes_per_param=12.0, param_bytes=2.0,
                      grad_bytes=2.0):
    """Weights + gradients + optimizer states per GPU for Ψ = `parameters` held by this rank's model-parallel
    shard, data-parallel degree N_d = `dp`, K = `optimizer_bytes_per_param` (12 for mixed-precision Adam:
    fp32 master weights, momentum, variance — R20 §3.1):

    stage 0 (plain DP) (2 + 2 + K)·Ψ; 1 (P_os) 4Ψ + K·Ψ/N_d; 2 (P_os+g) 2Ψ + (2 + K)·Ψ/N_d;
    3 (P_os+g+p) (2 + 2 + K)·Ψ/N_d — R20 Fig. 1, §5. `param_bytes` and `grad_bytes` generalise the 2 + 2
    (Megatron keeps fp32 main gradients: grad_bytes = 4)."""
    psi, n, k = (np.asarray(x, dtype=float) for x in (parameters, dp, optimizer_bytes_per_param))
    stage = np.asarray(zero_stage)
    if not ((stage >= min(ZERO_STAGES)) & (stage <= max(ZERO_STAGES)) & (stage == np.floor(stage))).all():
        raise InputError(f"zero_stage must be one of {ZERO_STAGES}")
    pb, gb = float(param_bytes), float(grad_bytes)
    return np.select(
        [stage == 0, stage == 1, stage == 2],
        [(pb + gb + k) * psi, (pb + gb) * psi + k * psi / n, pb * psi + (gb + k) * psi / n],
        (pb + gb + k) * psi / n,
    )
