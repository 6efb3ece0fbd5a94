"""Mixture-of-experts traffic, load and FLOPs: the all-to-all bytes of expert parallelism per token and MoE layer, the
node-limited dispatch of DeepSeek-V3, the busiest GPU's share of the routed tokens, and training FLOPs from the
active parameters (workloads-2.md §4). Pure numpy, broadcasting; bytes and FLOPs."""

from __future__ import annotations

import numpy as np

from workloads.models import TransformerModel
from workloads.settings import expected_maximum
from workloads.transformer import parameter_count


def all_to_all_bytes_per_token(hidden, top_k, *, dispatch_bytes=2.0, combine_bytes=2.0, ep=None,
                               capacity_factor=1.0, padded=False, backward=False):
    """Bytes one token sends through the all-to-alls of one MoE layer: forward dispatch k·h·b_d + combine
    k·h·b_c; `backward` adds the same again (the gradients retrace both) [inferred, workloads-2.md §4].

    With `ep` given, only the share leaving the GPU under uniform routing, (EP − 1)/EP, is counted; `padded`
    (fixed-capacity kernels) sends the whole capacity, × capacity_factor."""
    h, k = np.asarray(hidden, dtype=float), np.asarray(top_k, dtype=float)
    forward = k * h * (np.asarray(dispatch_bytes, dtype=float) + np.asarray(combine_bytes, dtype=float))
    total = forward * (2.0 if backward else 1.0)
    total = total * np.where(padded, np.asarray(capacity_factor, dtype=float), 1.0)
    if ep is not None:
        e = np.asarray(ep, dtype=float)
        total = total * (e - 1.0) / e
    return total


def node_limited_dispatch_bytes(hidden, nodes_per_token, dispatch_bytes=1.0):
    """Bytes one token's dispatch puts on the scale-out network when it goes to at most M nodes, one copy per
    target node then fanned out over NVLink: M·h·b_d (DeepSeek-V3, M = 4, FP8: ≤ 28 KiB; DS3 §3.2.2)."""
    return (np.asarray(nodes_per_token, dtype=float) * np.asarray(hidden, dtype=float)
            * np.asarray(dispatch_bytes, dtype=float))


def model_all_to_all_bytes_per_token(model: TransformerModel, *, dispatch_bytes=2.0, combine_bytes=2.0,
                                     backward=True, ep=None, padded=False):
    """All MoE layers of a model together: per-layer bytes × the number of MoE layers."""
    per_layer = all_to_all_bytes_per_token(model.hidden, model.top_k, dispatch_bytes=dispatch_bytes,
                                           combine_bytes=combine_bytes, ep=ep,
                                           capacity_factor=model.capacity_factor, padded=padded,
                                           backward=backward)
    return per_layer * model.moe_layers


def busiest_expert_load(experts, top_k, routed_tokens, ep) -> np.ndarray:
    """The busiest of the `ep` GPUs sharing the experts, its routed token copies over the mean (≥ 1), in one MoE
    layer of one microbatch under dropless routing balanced in expectation: each of the ep·T tokens the group routes
    (T = `routed_tokens` per GPU) sends its k = `top_k` copies to k distinct experts of the E = `experts`, each
    GPU holding E/ep of them, so a GPU's count is a sum of ep·T hypergeometric draws — mean T·k,
    variance σ² = T·k·(1 − 1/ep)·(E − k)/(E − 1) — and the ep counts, whose sum is fixed, are ep independent
    normals less their mean, each of variance σ²·ep/(ep − 1) = T·k·(E − k)/(E − 1). The layer waits for the
    largest: 1 + z_ep·√((E − k)/((E − 1)·T·k)) over the mean, z_ep the expected largest of ep standard normals
    (`workloads.settings.expected_maximum`) [derived]. The sampling floor of a router that is balanced on average
    (NVIDIA's force-balanced MoE benchmarks route so: random logits, Megatron-Core's moe_router_force_load_balancing);
    a trained router's correlated choices add to it (Wang et al. 2024, arXiv:2408.15664, measure the imbalance of
    auxiliary-loss routers as MaxVio), which is not modelled. 1 with one GPU (every expert local: the GPU computes
    all the copies whatever their split)."""
    e, k, t, p = (np.asarray(v, dtype=float) for v in (experts, top_k, routed_tokens, ep))
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.sqrt((e - k) / np.maximum(e - 1.0, 1.0) / (t * k))
    counts, inverse = np.unique(np.maximum(p, 1.0), return_inverse=True)
    z = np.array([expected_maximum(int(c)) for c in counts])[inverse].reshape(p.shape)
    return np.where((p > 1) & (t > 0), 1.0 + z * spread, 1.0)


def expert_load(model: TransformerModel, routed_tokens, ep) -> np.ndarray:
    """The token copies the busiest GPU of a MoE layer's expert group receives and computes over T·top_k (T =
    `routed_tokens` per GPU, `ep` GPUs sharing the experts): the expert capacity where capacity_factor > 1
    (fixed-capacity kernels send and compute the whole capacity, Fedus et al. 2022), or dropless (capacity_factor
    = 1) the busiest GPU's load over the mean (`busiest_expert_load`), which every GPU of the group waits for at the
    layer's all-to-alls."""
    return np.where(model.capacity_factor > 1.0, model.capacity_factor,
                    busiest_expert_load(model.experts, model.top_k, routed_tokens, ep))


def six_n_flops_per_token(model: TransformerModel) -> float:
    """Training FLOPs per token ≈ 6 · N_active (KAP §2.1 applied to the active parameters; the attention term
    and the embedding lookups aside) — the '≈ 77 GFLOP' (Mixtral) and '≈ 222 GFLOP' (DeepSeek-V3) of
    workloads-2.md §4."""
    return 6.0 * parameter_count(model, active=True)
