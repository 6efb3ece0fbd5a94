"""Transformer parameters and FLOPs: the closed forms of Megatron-LM (N21) and Korthikanti et al. (K22), and the
same counts derived from any `TransformerModel` shape (grouped-query and latent attention, gated MLPs, MoE,
encoder–decoder).

Closed forms are pure numpy functions that broadcast over arrays (a strategy search passes arrays of batch sizes
and shapes). Symbols: l layers, h hidden, s sequence, V vocabulary, B sequences per iteration.

References
- N21: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC21.
- K22: Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023.
- KAP: Kaplan et al., "Scaling Laws for Neural Language Models", 2020 (6·N FLOPs per training token).
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from core.records import record
from workloads.models import TransformerModel
from workloads.pipeline import stage_layers

RECOMPUTE = ("none", "selective", "full")


def recompute_code(recompute) -> np.ndarray:
    """'none' / 'selective' / 'full' (or an array of them, or of codes 0/1/2) → integer codes 0/1/2."""
    if isinstance(recompute, str):
        if recompute not in RECOMPUTE:
            raise InputError(f"recompute = {recompute!r}: expected one of {', '.join(RECOMPUTE)}")
        return np.asarray(RECOMPUTE.index(recompute))
    codes = np.asarray(recompute)
    if codes.dtype.kind in "US":
        unknown = set(np.unique(codes)) - set(RECOMPUTE)
        if unknown:
            raise InputError(f"recompute: unknown mode(s) {sorted(unknown)}; expected {', '.join(RECOMPUTE)}")
        return np.select([codes == "selective", codes == "full"], [1, 2], 0)
    if not ((codes >= 0) & (codes <= 2) & (codes == np.floor(codes))).all():
        raise InputError("recompute codes must be 0 (none), 1 (selective) or 2 (full)")
    return codes.astype(int)


# --- closed forms ------------------------------------------------------------------------------------------
def megatron_parameter_count(layers, hidden, vocab, seq_len):
    """P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)) — N21 §5.1 (GPT with learned positions, tied output;
    the final LayerNorm's 2h is left out, as N21 does)."""
    l, h, v, s = (np.asarray(x, dtype=float) for x in (layers, hidden, vocab, seq_len))
    return 12.0 * l * h**2 * (1.0 + 13.0 / (12.0 * h) + (v + s) / (12.0 * l * h))


def model_flops_per_iteration(batch, layers, hidden, seq_len, vocab):
    """Model FLOPs of one iteration (forward + backward, no recomputation, GEMMs only):
    72·B·l·s·h²·(1 + s/(6h) + V/(12·h·l)) — K22 Eq. 7."""
    b, l, h, s, v = (np.asarray(x, dtype=float) for x in (batch, layers, hidden, seq_len, vocab))
    return 72.0 * b * l * s * h**2 * (1.0 + s / (6.0 * h) + v / (12.0 * h * l))


def hardware_flops_per_iteration(batch, layers, hidden, seq_len, vocab, recompute="full"):
    """FLOPs one iteration executes with recomputation: none → K22 Eq. 7; selective → K22 Eq. 8,
    72·B·l·s·h²·(1 + s/(3h) + V/(12hl)); full → N21's 96·B·s·l·h²·(1 + s/(6h) + V/(16lh)) (one extra forward of
    every layer; 96 vs 72 in workloads.md). Eq. 8 charges the recomputed attention three times its forward cost
    (hardware/model ≈ 1 + s/(6h), Eq. 9); the GEMMs actually re-run (QKᵀ and attention·V once more) add
    4·s·h FLOPs per token and layer, which is what `workloads.compute` times."""
    b, l, h, s, v = (np.asarray(x, dtype=float) for x in (batch, layers, hidden, seq_len, vocab))
    code = recompute_code(recompute)
    none = 72.0 * b * l * s * h**2 * (1.0 + s / (6.0 * h) + v / (12.0 * h * l))
    selective = 72.0 * b * l * s * h**2 * (1.0 + s / (3.0 * h) + v / (12.0 * h * l))
    full = 96.0 * b * s * l * h**2 * (1.0 + s / (6.0 * h) + v / (16.0 * l * h))
    return np.select([code == 0, code == 1], [none, selective], full)


def megatron_flops_per_iteration(batch, layers, hidden, seq_len, vocab):
    """N21's FLOP count for its achieved-TFLOP/s figures: 96·B·s·l·h²·(1 + s/(6h) + V/(16lh)) (full
    recomputation included). Achieved TFLOP/s per GPU = this / (GPUs × iteration time)."""
    return hardware_flops_per_iteration(batch, layers, hidden, seq_len, vocab, "full")


# --- counts from a model's shape ------------------------------------------------------------------------------
@record
class Weight:
    """One weight matrix of a layer, as a GEMM sees it: a token row of width `k` in, `n` out.

    `split` is how tensor parallelism cuts it (Megatron: 'column' splits n, 'row' splits k, 'replicated' keeps it
    whole on every rank); `copies` is how many such matrices the layer holds (routed experts) and `active` how
    many one token passes through (top_k of them); `routed` marks the expert matrices, whose rows are the tokens
    dispatched to them."""

    name: str
    k: int
    n: int
    split: str
    copies: int = 1
    active: float = 1.0
    routed: bool = False
    bias: bool = False


def attention_weights(model: TransformerModel, prefix: str = "") -> list[Weight]:
    """The projections of one attention block: fused QKV (or MLA's down/up projections) and the output."""
    h, a, hd, hv = model.hidden, model.heads, model.qk_head_dim, model.value_head_dim
    bias = model.biases == "yes"
    if model.attention == "mla":
        rope, q_rank, kv_rank = model.rope_head_dim, model.q_lora_rank, model.kv_lora_rank
        q = ([Weight(f"{prefix}q_down", h, q_rank, "replicated", bias=bias),
              Weight(f"{prefix}q_up", q_rank, a * (hd + rope), "column", bias=bias)] if q_rank
             else [Weight(f"{prefix}q", h, a * (hd + rope), "column", bias=bias)])
        return q + [Weight(f"{prefix}kv_down", h, kv_rank + rope, "replicated", bias=bias),
                    Weight(f"{prefix}kv_up", kv_rank, a * (hd + hv), "column", bias=bias),
                    Weight(f"{prefix}out", a * hv, h, "row", bias=bias)]
    return [Weight(f"{prefix}qkv", h, (a + 2 * model.kv) * hd, "column", bias=bias),
            Weight(f"{prefix}out", a * hv, h, "row", bias=bias)]


def mlp_weights(model: TransformerModel, width: int, prefix: str = "", copies: int = 1, active: float = 1.0,
                routed: bool = False) -> list[Weight]:
    """An MLP of inner width `width`: up (gate and up fused when gated) and down."""
    bias = model.biases == "yes"
    up = width * (2 if model.gated else 1)
    return [Weight(f"{prefix}up", model.hidden, up, "column", copies, active, routed, bias),
            Weight(f"{prefix}down", width, model.hidden, "row", copies, active, routed, bias)]


def layer_weights(model: TransformerModel, moe: bool = False, cross_attention: bool = False) -> list[Weight]:
    """Every weight matrix of one layer: attention (and cross-attention), then the dense MLP or the MoE block
    (router, routed experts, shared experts)."""
    weights = attention_weights(model)
    if cross_attention:
        weights += attention_weights(model, prefix="cross_")
    if not moe:
        return weights + mlp_weights(model, model.ffn)
    weights.append(Weight("router", model.hidden, model.experts, "replicated"))
    weights += mlp_weights(model, model.expert_ffn, "expert_", copies=model.experts, active=model.top_k,
                           routed=True)
    if model.shared_experts:
        weights += mlp_weights(model, model.expert_ffn * model.shared_experts, "shared_")
    return weights


def _norm(model: TransformerModel, width: int) -> int:
    return 2 * width if model.norm == "layernorm" else width


def layer_norm_parameters(model: TransformerModel, cross_attention: bool = False) -> int:
    """Norm scales (and biases) of one layer: before attention, before the MLP, before cross-attention, and
    MLA's norms of its compressed latents."""
    count = (3 if cross_attention else 2) * _norm(model, model.hidden)
    if model.attention == "mla":
        count += _norm(model, model.kv_lora_rank) + (_norm(model, model.q_lora_rank) if model.q_lora_rank else 0)
    return count


def layer_parameters(model: TransformerModel, moe: bool = False, active: bool = False,
                     cross_attention: bool = False) -> float:
    """Parameters of one layer (`active`: only the experts one token uses)."""
    total = layer_norm_parameters(model, cross_attention)
    for w in layer_weights(model, moe, cross_attention):
        copies = w.active if active else w.copies
        total += copies * (w.k * w.n + (w.n if w.bias else 0))
    return total


def embedding_parameters(model: TransformerModel) -> int:
    """Input embedding, learned positions, untied output matrix and the final norm(s)."""
    h = model.hidden
    count = model.vocab * h + _norm(model, h) * (2 if model.encoder_layers else 1)
    if model.position == "learned":
        count += model.seq_len * h
    if model.embeddings == "untied":
        count += model.vocab * h
    return count


def parameter_count(model: TransformerModel, active: bool = False) -> float:
    """All parameters of the model (`active`: those one token uses — top_k of the routed experts)."""
    cross = model.encoder_layers > 0
    decoder = (model.dense_mlp_layers * layer_parameters(model, cross_attention=cross)
               + model.moe_layers * layer_parameters(model, moe=True, active=active, cross_attention=cross))
    return decoder + model.encoder_layers * layer_parameters(model) + embedding_parameters(model)


def score_head_dim(model: TransformerModel) -> int:
    """Width of one head's query·key product (MLA adds the decoupled rotary part)."""
    return model.qk_head_dim + (model.rope_head_dim if model.attention == "mla" else 0)


def attention_flops_per_token(model: TransformerModel, seq_len: int | None = None) -> float:
    """Forward FLOPs of one token's attention in one layer: QKᵀ and attention·V over the whole sequence,
    2·s·heads·(d_qk + d_v), unmasked (the convention of N21 and K22)."""
    s = model.tokens if seq_len is None else seq_len
    return 2.0 * s * model.heads * (score_head_dim(model) + model.value_head_dim)


def forward_flops_per_token(model: TransformerModel, seq_len: int | None = None) -> float:
    """Forward FLOPs of one token: 2 per active weight of every matrix it passes through, the output logits
    (2·V·h, for the predicted share of the tokens) included and embedding lookups not, plus attention (encoder,
    decoder and cross-attention)."""
    def matrices(moe, cross):
        return sum(w.active * w.k * w.n for w in layer_weights(model, moe, cross))
    cross = model.encoder_layers > 0
    weights = (model.dense_mlp_layers * matrices(False, cross) + model.moe_layers * matrices(True, cross)
               + model.encoder_layers * matrices(False, False)
               + model.predicted_tokens * model.vocab * model.hidden)
    attention_layers = model.layers * (2 if cross else 1) + model.encoder_layers
    return 2.0 * weights + attention_layers * attention_flops_per_token(model, seq_len)


def training_flops_per_token(model: TransformerModel, seq_len: int | None = None) -> float:
    """Forward + backward (2× forward) model FLOPs of one token, no recomputation: 3 × forward
    (KAP §2.1: ≈ 6·N_active plus the attention term)."""
    return 3.0 * forward_flops_per_token(model, seq_len)


# --- what one GPU holds and what tensor/pipeline parallelism moves ---------------------------------------------
def layer_parameters_per_gpu(model: TransformerModel, tp=1, ep=1, moe: bool = False,
                             cross_attention: bool = False, etp=None, routed_only: bool = False):
    """Parameters of one layer on one GPU: column/row-parallel matrices split t ways (their biases with them,
    except a row-parallel layer's, which every rank keeps), replicated ones and the norms whole, routed
    experts shared out over `ep` GPUs (Megatron-LM's layout), each split over `etp` GPUs (default: tp);
    `routed_only`: the routed experts' alone. Broadcasts over arrays of tp, ep and etp."""
    t, e = (np.asarray(x, dtype=float) for x in (tp, ep))
    et = t if etp is None else np.asarray(etp, dtype=float)
    norms = 0.0 if routed_only else float(layer_norm_parameters(model, cross_attention))
    total = np.full(np.broadcast(t, e, et).shape, norms)
    for w in layer_weights(model, moe, cross_attention):
        if routed_only and not w.routed:
            continue
        split = et if w.routed else t
        n = w.n / split if w.split == "column" else w.n
        k = w.k / split if w.split == "row" else w.k
        copies = w.copies / e if w.routed else w.copies
        total = total + copies * (n * k + (n if w.bias else 0.0))
    return total


def parameters_per_gpu(model: TransformerModel, tp=1, pp=1, ep=1, etp=None):
    """Parameters on the GPU of the largest pipeline stage: its layers (workloads.pipeline.stage_layers; each kind
    of layer — dense, MoE, encoder — in proportion), plus on the first stage the input embedding (V/t rows of it
    per rank) and learned positions, on the last the output matrix (its own when untied, a copy of the tied one)
    and the final norm. With p = 1 one GPU holds all of it. Broadcasts over arrays of tp, pp, ep, etp (the
    GPUs a routed expert is split over; default: tp)."""
    totals, _, whole = _stages(model, tp, pp, ep, etp)
    return np.where(np.asarray(pp, dtype=float) > 1, np.max(totals, axis=0), whole)


def expert_parameters_per_gpu(model: TransformerModel, tp=1, pp=1, ep=1, etp=None):
    """The routed experts' share of `parameters_per_gpu`: the expert matrices of the MoE layers on the same GPU
    (the stage's layers in proportion; 0 for a dense model). Megatron-Core keeps their gradients and optimizer
    state on the expert data-parallel group, not the data-parallel one (`training._memory_first`)."""
    if not model.is_moe:
        return np.zeros(np.broadcast(*(np.asarray(x) for x in (tp, pp, ep, tp if etp is None else etp))).shape)
    totals, counts, _ = _stages(model, tp, pp, ep, etp)
    routed = layer_parameters_per_gpu(model, tp, ep, moe=True, etp=etp, routed_only=True)
    layers = np.where(np.asarray(pp, dtype=float) > 1,
                      np.take_along_axis(counts, np.argmax(totals, axis=0)[None], axis=0)[0], float(model.layers))
    return layers * routed * model.moe_layers / model.layers


def _stages(model: TransformerModel, tp, pp, ep, etp):
    """(the parameters per GPU of the first, an interior and the last pipeline stage, stacked; their layers,
    stacked alike; the whole model's on one GPU)."""
    t, e = (np.asarray(x, dtype=float) for x in (tp, ep))
    cross = model.encoder_layers > 0
    layers = (model.dense_mlp_layers * layer_parameters_per_gpu(model, t, e, cross_attention=cross)
              + model.moe_layers * (layer_parameters_per_gpu(model, t, e, moe=True, cross_attention=cross, etp=etp)
                                    if model.is_moe else 0.0)
              + model.encoder_layers * layer_parameters_per_gpu(model, t, e))
    table = model.vocab * model.hidden / t
    first = table + (model.seq_len * model.hidden if model.position == "learned" else 0.0)
    last = table + _norm(model, model.hidden) * (2 if model.encoder_layers else 1)
    both = first + last - (table if model.embeddings == "tied" else 0.0)
    per_layer = layers / model.layers
    n_first, n_interior, n_last = (x.astype(float)
                                   for x in stage_layers(model.layers, np.asarray(pp, dtype=np.int64)))
    totals = np.stack(np.broadcast_arrays(n_first * per_layer + first, n_interior * per_layer,
                                          n_last * per_layer + last))
    counts = np.stack(np.broadcast_arrays(n_first, n_interior, n_last))
    return totals, counts, layers + both


def kv_width(model: TransformerModel) -> float:
    """Elements of one token's key (or value) in one layer, the average of the two widths: kv_heads × head width
    (grouped-query attention shrinks it), or MLA's compressed latent and its rotary part."""
    if model.attention == "mla":
        return float(model.kv_lora_rank + model.rope_head_dim)
    return model.kv * (model.qk_head_dim + model.value_head_dim) / 2.0


def tensor_parallel_message_bytes(model: TransformerModel, microbatch, bytes_per_element=2.0):
    """The activation every tensor-parallel collective of a layer moves: b·s·h elements (N21 §3.2, workloads.md:
    4 all-reduces of b·s·h per layer and microbatch)."""
    return (np.asarray(microbatch, dtype=float) * model.tokens * model.hidden
            * np.asarray(bytes_per_element, dtype=float))


def tensor_parallel_collectives_per_layer(recompute="none", sequence_parallel=False) -> dict[str, np.ndarray]:
    """Collectives of `tensor_parallel_message_bytes` per layer and microbatch, forward + backward: 2 + 2
    all-reduces (N21), 2 more when full recomputation reruns the forward; with sequence parallelism each
    all-reduce is a reduce-scatter plus an all-gather of the same total volume (K22 §4.2.2), and the two
    column-parallel layers (QKV, MLP-up), which keep only their input's shard, gather it again in the backward for
    their weight gradients: 2 more all-gathers (Megatron-LM LinearWithGradAccumulationAndAsyncCommunication).
    Selective recomputation reruns no collective."""
    code = recompute_code(recompute)
    sp = np.asarray(sequence_parallel, dtype=bool)
    count = 4 + np.where(code == 2, 2, 0)
    return {"all_reduce": np.where(sp, 0, count), "reduce_scatter": np.where(sp, count, 0),
            "all_gather": np.where(sp, count + 2, 0)}


def pipeline_message_bytes(model: TransformerModel, microbatch, tp=1, bytes_per_element=2.0, scatter_gather=True):
    """Bytes one microbatch sends across a pipeline-stage boundary each way: b·s·h elements, or b·s·h/t with
    N21's scatter/gather optimisation (each tensor-parallel rank sends its slice, then an all-gather over NVLink
    restores it) — workloads.md."""
    b, t = (np.asarray(x, dtype=float) for x in (microbatch, tp))
    full = b * model.tokens * model.hidden * np.asarray(bytes_per_element, dtype=float)
    return full / t if scatter_gather else full
