"""α–β cost models of collective communication, and the nccl-tests bandwidth definitions.

Pure functions on SI floats or numpy arrays (seconds, bytes, bit/s) that broadcast; the fabric kinds compose them
into the schedules each fabric can run (fabric.kind checks the arguments once, at the seam). Arguments:

- ``n``            bytes, as named in each docstring (all-reduce: the buffer every rank holds);
- ``p``            ranks taking part (≥ 1);
- ``bandwidth_bps`` the rate one rank sends (and, full duplex, receives) in bit/s; β = 8/bandwidth s/B;
- ``alpha_s``      α, the cost of one step (protocol, synchronisation and path latency).

A collective on one rank moves nothing and costs 0 s.

References
----------
- MPICH ``src/mpi/coll/allreduce`` and ``alltoall`` algorithm comments ("Cost = …") [verbatim in workloads.md].
- NCCL ``src/graph/tuning.cc``: ring nsteps = 2(p−1); tree all-reduce at half the bus bandwidth with latency
  2·(log2 of the node count) steps [restated].
- nccl-tests ``doc/PERFORMANCE.md``: algbw = S/t and the busbw factor of each operation [verbatim in workloads.md].
- R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
  IJHPCA 19(1), 2005 (the α–β model).
Formulas tagged [inferred] are this project's derivations from those tables.

Validity: contention-free α–β steps (the kinds divide bandwidth among concurrent groups before calling these),
bandwidth-bound steps overlap send and receive (full duplex), reduction arithmetic hidden behind communication.
"""

from __future__ import annotations

import difflib
import math

import numpy as np

from core.errors import InputError

BITS_PER_BYTE = 8.0


def _active(p):
    return np.asarray(p, dtype=float) > 1


def pipelined_s(latency_s, transfer_s, steps, alpha_s):
    """Seconds of `steps` dependent ring steps whose latencies sum to `latency_s` (the slowest step's α_s) and whose
    transfers take `transfer_s` in all, the buffer cut into chunks that flow through the steps as NCCL runs a ring
    (several chunks in flight): a chunk's journey round the ring pays every step's latency, each link carries every
    chunk once, and the two overlap — t = max(Σα, transfer) + min(α, τ), τ = transfer/steps the fill of the first
    step. Σα + τ for small messages (the α–β sum), transfer + α for large ones, whose per-step latencies the
    chunks in flight hide (NCCL's ring reaches its link's rate at large sizes: fabric-photonics-3.md F9, measured
    ~96 % of it) [inferred]. Never above the α–β sum Σα + transfer."""
    steps = np.asarray(steps, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where(steps > 0, transfer_s / np.where(steps > 0, steps, 1.0), 0.0)
    return np.where(steps > 0, np.maximum(latency_s, transfer_s) + np.minimum(alpha_s, tau), 0.0)


def ring_half_s(n, p, bandwidth_bps, alpha_s, halves=1.0):
    """Ring reduce-scatter (n = each rank's input) or all-gather (n = the gathered result), `halves` of them in one
    pipeline (2: the ring all-reduce's 2(p−1) steps): p − 1 steps of α per half, each rank sending (p−1)/p·n·8/B
    bits per half, pipelined (`pipelined_s`) [inferred; NCCL nsteps p−1 per half]."""
    latency, bits = ring_half_terms(n, p, alpha_s)
    p = np.asarray(p, dtype=float)
    return np.where(_active(p), pipelined_s(halves * latency, halves * bits / bandwidth_bps, halves * (p - 1),
                                            alpha_s), 0.0)


def ring_half_terms(n, p, alpha_s):
    """The α–β terms of `ring_half_s` on p > 1 ranks, (latency s, bits) with t = latency + bits/B."""
    p = np.asarray(p, dtype=float)
    return (p - 1) * alpha_s, (p - 1) / p * n * BITS_PER_BYTE


def two_level_half_s(n, inner, outer, inner_bps, outer_bps, inner_alpha_s, outer_alpha_s, halves=1.0):
    """Reduce-scatter (or, backwards, all-gather; `halves` of them in one pipeline, 2 for the all-reduce) as rings
    inside groups of `inner` ranks, then rings of `outer` ranks, one per inner position, each on its n/inner shard,
    each ring pipelined (`pipelined_s`); the α–β sum of a half is
    (i−1)·α_i + (o−1)·α_o + (i−1)/i·n·8/B_i + (o−1)/o·(n/i)·8/B_o  [inferred; the two-level all-reduce's half]."""
    inner = np.asarray(inner, dtype=float)
    outer = np.asarray(outer, dtype=float)
    first = halves * (inner - 1) / inner * n * BITS_PER_BYTE / inner_bps
    second = halves * (outer - 1) / outer * (n / inner) * BITS_PER_BYTE / outer_bps
    return (pipelined_s(halves * (inner - 1) * inner_alpha_s, first, halves * (inner - 1), inner_alpha_s)
            + pipelined_s(halves * (outer - 1) * outer_alpha_s, second, halves * (outer - 1), outer_alpha_s))


def node_ring_half_s(n, p, nodes, bandwidth_bps, intra_alpha_s, inter_alpha_s, halves=1.0):
    """NCCL's ring reduce-scatter (or all-gather; `halves` of them in one pipeline, 2 for the all-reduce) over p
    ranks on `nodes` nodes, consecutive ranks per node: p − 1 steps per half, nodes − 1 of them across nodes; every
    rank sends (p−1)/p·n at the ring's bottleneck rate. The α–β sum is (p − nodes)·α_intra + (nodes − 1)·α_inter +
    (p−1)/p·n·8/B (NCCL tuning.cc ring latency, workloads-2.md §9); pipelined (`pipelined_s`).
    With m ranks and m NICs per node, one ring per NIC, each ring crosses every node boundary once per direction, so
    a rank's ring runs at B = min(B_NVLink, m·B_NIC): busbw ≤ min(B_NVLink, m·B_NIC) (fabric-photonics-3.md F9),
    whatever the number of nodes."""
    p = np.asarray(p, dtype=float)
    nodes = np.asarray(nodes, dtype=float)
    latency = halves * ((p - nodes) * intra_alpha_s + (nodes - 1) * inter_alpha_s)
    transfer = halves * (p - 1) / p * n * BITS_PER_BYTE / bandwidth_bps
    slowest = np.where(nodes > 1, np.maximum(intra_alpha_s, inter_alpha_s), intra_alpha_s)
    return np.where(_active(p), pipelined_s(latency, transfer, halves * (p - 1), slowest), 0.0)


# NCCL's tuning model rates a tree all-reduce at 0.92 of the graph's bus bandwidth (Tree/Simple refinement) and
# turns bus into algorithm bandwidth at × 0.5 (a ring at × p/(2(p−1))): fabric-photonics-3.md F3, F6 [verbatim].
NCCL_TREE_EFFICIENCY = 0.92
NCCL_TREE_ALGBW_PER_BUSBW = 0.5 * NCCL_TREE_EFFICIENCY


def nccl_tree_model_s(n, tree_latency_s, bus_bps):
    """NCCL's own time for a tree all-reduce of n bytes (t = latency + bytes/algBw, F1; algBw = 0.46·busBw): what it
    compares with the ring's to choose, so the tree is chosen for small messages and the ring for large ones even
    where the tree would move the bytes faster (2 nodes: the maintainers' 'force NCCL_ALGO=Tree',
    fabric-photonics-3.md F11). The published 2-server A100 figures are the ring's: 192 GB/s on 8 × HDR
    (NVIDIA/nccl issue 812) and 91 GB/s on 4 × HDR (nccl-tests issue 100) against a NIC bound of 200 and 100, where
    the tree would give ~1.7× that."""
    return tree_latency_s + n * BITS_PER_BYTE / (NCCL_TREE_ALGBW_PER_BUSBW * bus_bps)


def tree_allreduce_s(n, p, bandwidth_bps, alpha_s):
    """Double-binary-tree all-reduce (NCCL Tree), reduce up and broadcast down, pipelined:
    t = 2·⌈lg p⌉·α + 2·n·8/B  [inferred from NCCL tuning.cc: tree algBw = busBw/2, latency ∝ 2·log2 p]."""
    p = np.asarray(p, dtype=float)
    depth = np.ceil(np.log2(np.maximum(p, 1.0)))
    return np.where(_active(p), 2 * depth * alpha_s + 2 * n * BITS_PER_BYTE / bandwidth_bps, 0.0)


def pairwise_alltoall_s(n, p, bandwidth_bps, alpha_s):
    """Pairwise-exchange all-to-all; n = bytes one rank sends to the others: t = (p−1)·α + n·8/B
    (MPICH alltoall comment)."""
    p = np.asarray(p, dtype=float)
    return np.where(_active(p), (p - 1) * alpha_s + n * BITS_PER_BYTE / bandwidth_bps, 0.0)


def point_to_point_s(n, bandwidth_bps, alpha_s):
    """One message over one path: t = α + n·8/B (Hockney's α–β model)."""
    return alpha_s + n * BITS_PER_BYTE / bandwidth_bps


def torus_rows(p):
    """Rows of the squarest complete 2-D torus of p ranks: the largest divisor of p not above √p (1: p is prime, no
    torus without holes) [inferred]."""
    p = np.asarray(p, dtype=float)
    values, inverse = np.unique(p, return_inverse=True)  # each group size's divisors found once
    r = np.arange(1.0, math.isqrt(max(int(values.max(initial=1.0)), 1)) + 1.0)
    fits = (np.fmod(values[:, None], r) == 0) & (r * r <= values[:, None])
    rows = np.max(np.where(fits, r, 1.0), axis=1, initial=1.0)[inverse].reshape(p.shape)
    return rows if rows.ndim else float(rows)


def expander_mean_distance(degree, nodes):
    """Mean shortest-path length between distinct ranks when each has `degree` outgoing circuits and the circuit
    graph grows like a tree (a random regular digraph, the best a degree-d circuit set does for uniform traffic):
    d^k ranks at distance k until the p − 1 others are reached [inferred; the directed Moore bound].
    d = 20, p = 1024 → 2.57; one circuit each (a directed ring) → p/2."""
    d = np.maximum(np.floor(np.asarray(degree, dtype=float)), 1.0)
    others = np.maximum(np.asarray(nodes, dtype=float) - 1.0, 0.0)
    d, others = np.broadcast_arrays(d, others)
    reached = np.zeros(d.shape)
    total = np.zeros(d.shape)
    layer = np.where(d > 1, d, 0.0)
    k = 1
    while np.any((reached < others) & (d > 1)):
        take = np.minimum(layer, others - reached)
        total += k * take
        reached += take
        layer = layer * d
        k += 1
    mean = np.where(others > 0, total / np.maximum(others, 1.0), 0.0)
    mean = np.where(d > 1, mean, (others + 1.0) / 2.0 * (others > 0))
    return mean if mean.ndim else float(mean)


# --- nccl-tests bandwidth definitions -----------------------------------------------------------------
_BUSBW_OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce")


def algbw_bps(message_bytes, time_s):
    """Algorithm bandwidth algbw = S / t, in bit/s (nccl-tests doc/PERFORMANCE.md; it prints GB/s)."""
    return np.asarray(message_bytes, dtype=float) * BITS_PER_BYTE / time_s


def busbw_factor(op: str, ranks):
    """busbw / algbw for an operation on p ranks (nccl-tests doc/PERFORMANCE.md): all_reduce 2(p−1)/p;
    all_gather, reduce_scatter, all_to_all (p−1)/p; broadcast, reduce 1."""
    p = np.asarray(ranks, dtype=float)
    if op == "all_reduce":
        return 2.0 * (p - 1) / p
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (p - 1.0) / p
    if op in ("broadcast", "reduce"):
        return np.ones_like(p)
    hint = difflib.get_close_matches(str(op), _BUSBW_OPS, n=1)
    extra = f"; did you mean {hint[0]!r}?" if hint else ""
    raise InputError(f"unknown collective {op!r}, expected one of {', '.join(_BUSBW_OPS)}{extra}")


def busbw_bps(op: str, message_bytes, ranks, time_s):
    """Bus bandwidth busbw = algbw × busbw_factor(op, p), in bit/s (nccl-tests doc/PERFORMANCE.md)."""
    return busbw_factor(op, ranks) * algbw_bps(message_bytes, time_s)
