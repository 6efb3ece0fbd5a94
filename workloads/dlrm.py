"""DLRM sizes, FLOPs and traffic (Naumov et al. 2019; the MLPerf DLRM-DCNv2 shape of workloads-2.md §5):
embedding tables sharded by model parallelism, pooled lookups exchanged by a personalised all-to-all that turns
table-sharded vectors into batch-sharded ones, dense MLPs data-parallel.

Bytes, FLOPs (2 per multiply–accumulate), per sample unless named otherwise.
"""

from __future__ import annotations

from workloads.models import DlrmModel


def embedding_parameters(model: DlrmModel) -> int:
    """Σ rows × D over all tables."""
    return sum(model.embedding_rows) * model.embedding_dim


def lookups_per_sample(model: DlrmModel) -> int:
    """Rows read per sample: the multi-hot sizes summed over the tables."""
    return sum(model.multi_hot)


def lookup_bytes_per_sample(model: DlrmModel, bytes_per_element: float = 4.0) -> float:
    """Embedding bytes read per sample: lookups × D × element size."""
    return lookups_per_sample(model) * model.embedding_dim * bytes_per_element


def interaction_width(model: DlrmModel) -> int:
    """Width of the top MLP's input: DCN-v2 works on the concatenation of the bottom output and the T pooled
    embeddings, (T + 1)·D; the dot interaction on the bottom output plus the T(T+1)/2 pairwise dots."""
    t, d = model.tables, model.embedding_dim
    if model.interaction == "dcn":
        return (t + 1) * d
    return d + t * (t + 1) // 2


def _mlp(widths_in: int, widths: tuple[int, ...]) -> tuple[int, int]:
    """(parameters with biases, multiply–accumulates per sample) of an MLP."""
    params = macs = 0
    previous = widths_in
    for width in widths:
        params += previous * width + width
        macs += previous * width
        previous = width
    return params, macs


def _cross(model: DlrmModel) -> tuple[int, int]:
    """DCN-v2 low-rank cross layers x_{l+1} = x_0 ⊙ (U_l (V_l x_l) + b_l) + x_l: U, V of in × r, a bias of in."""
    width = interaction_width(model)
    if model.interaction != "dcn":
        t = model.tables + 1
        return 0, t * t * model.embedding_dim  # the pairwise dots as one (T+1)×D·D×(T+1) product
    per_layer_params = 2 * width * model.dcn_low_rank + width
    per_layer_macs = 2 * width * model.dcn_low_rank
    return model.dcn_layers * per_layer_params, model.dcn_layers * per_layer_macs


def dense_parameters(model: DlrmModel) -> int:
    """Bottom MLP + interaction + top MLP parameters: the data-parallel part, all-reduced each step."""
    bottom, _ = _mlp(model.dense_features, model.bottom_mlp)
    cross, _ = _cross(model)
    top, _ = _mlp(interaction_width(model), model.top_mlp)
    return bottom + cross + top


def forward_flops_per_sample(model: DlrmModel) -> dict[str, float]:
    """Forward FLOPs of the dense part by block: bottom MLP, interaction, top MLP (embedding pooling aside)."""
    _, bottom = _mlp(model.dense_features, model.bottom_mlp)
    _, cross = _cross(model)
    _, top = _mlp(interaction_width(model), model.top_mlp)
    return {"bottom": 2.0 * bottom, "interaction": 2.0 * cross, "top": 2.0 * top}


def training_flops_per_sample(model: DlrmModel) -> float:
    """Forward + backward ≈ 3 × forward FLOPs of the dense part."""
    return 3.0 * sum(forward_flops_per_sample(model).values())


def all_to_all_bytes_per_sample(model: DlrmModel, bytes_per_element: float = 4.0) -> float:
    """Pooled embedding bytes one sample puts through the forward all-to-all: T·D·element size (pooled, so
    independent of the multi-hot sizes); the backward all-to-all of their gradients moves as much again, and
    (N − 1)/N of it crosses GPUs [inferred, workloads-2.md §5]."""
    return model.tables * model.embedding_dim * bytes_per_element


def index_bytes_per_sample(model: DlrmModel, index_bytes: float = 8.0) -> float:
    """Lookup indices (and lengths) exchanged ahead of the lookups: Σ multi-hot × index size."""
    return lookups_per_sample(model) * index_bytes
