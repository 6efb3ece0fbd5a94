"""α–β(–γ) cost models of collective communication, and the nccl-tests bandwidth definitions.

Every function is pure, takes SI floats or numpy arrays (seconds, bytes, bit/s) and broadcasts. Arguments:

- ``message_bytes``  n, the bytes named in each docstring (for all-reduce: the buffer every rank holds);
- ``ranks``          p, the number of participants (an integer ≥ 1);
- ``bandwidth_bps``  the rate one rank can send (and, full duplex, receive) in bit/s; β = 8 / bandwidth_bps s/B;
- ``latency_s``      α, the start-up cost of one message / one algorithm step;
- ``reduce_s_per_byte``  γ, the time to combine one byte (default 0: reduction hidden or free);
- ``reconfig_s``     time to set up circuits on a reconfigurable fabric (OCS, micro-ring retuning), paid once per
                     phase that needs a different set of circuits; each docstring says how many phases. Default 0.

A collective on one rank (p = 1) moves nothing and costs 0 s, with no reconfiguration.

References
----------
- MPICH ``src/mpi/coll/allreduce`` and ``alltoall`` algorithm comments ("Cost = …") [verbatim in workloads.md].
- NCCL ``src/graph/tuning.cc`` (~v2.7): ring nsteps = 2(p−1); tree algBw = busBw / 2; tree latency grows with
  log2 of the node count [restated].
- nccl-tests ``doc/PERFORMANCE.md``: algbw = S / t, busbw factors per operation [verbatim in workloads.md].
- R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
  IJHPCA 19(1), 2005 (the α–β–γ model).
- Formulas tagged [inferred] are this project's derivations from the table in ``workloads.md``.

Validity: a contention-free α–β model. No congestion, no protocol overhead, no pipelining start-up beyond the
α terms, bandwidth-bound steps assumed to overlap send and receive (full duplex).
"""

from __future__ import annotations

import difflib

import numpy as np

from core.errors import InputError

BITS_PER_BYTE = 8.0


# --- argument checks ----------------------------------------------------------------------------------
def _ranks(value, name: str = "ranks") -> np.ndarray:
    """`value` as a float array of integers ≥ 1, or InputError."""
    arr = np.asarray(value)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise InputError(f"{name} must be an integer ≥ 1, got {value!r}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.floor(arr)):
        raise InputError(f"{name} must be an integer ≥ 1, got {value!r}")
    return arr


def _positive(value, name: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError(f"{name} must be a finite number > 0, got {value!r}")
    return arr


def _non_negative(value, name: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise InputError(f"{name} must be a finite number ≥ 0, got {value!r}")
    return arr


def _power_of_two(p: np.ndarray, name: str = "ranks") -> None:
    exponent = np.log2(p)
    if np.any(exponent != np.round(exponent)):
        raise InputError(f"{name} must be a power of two for this algorithm, got {p.tolist()!r}")


def _common(message_bytes, ranks, bandwidth_bps, latency_s, reduce_s_per_byte, reconfig_s):
    return (_non_negative(message_bytes, "message_bytes"), _ranks(ranks), _positive(bandwidth_bps, "bandwidth_bps"),
            _non_negative(latency_s, "latency_s"), _non_negative(reduce_s_per_byte, "reduce_s_per_byte"),
            _non_negative(reconfig_s, "reconfig_s"))


def _seconds(value) -> float | np.ndarray:
    """Plain float for scalar results, array otherwise."""
    arr = np.asarray(value, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


# --- all-reduce ---------------------------------------------------------------------------------------
def ring_allreduce_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reduce_s_per_byte=0.0, reconfig_s=0.0):
    """Ring all-reduce (reduce-scatter then all-gather around one ring) of n bytes on p ranks:
    t = 2(p−1)·α + 2·(p−1)/p·n·β + (p−1)/p·n·γ  [inferred; matches NCCL nsteps = 2(p−1)].
    One circuit set (the ring): `reconfig_s` paid once."""
    n, p, bw, alpha, gamma, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, reduce_s_per_byte,
                                             reconfig_s)
    share = (p - 1.0) / p
    return _seconds(2 * (p - 1) * alpha + 2 * share * n * BITS_PER_BYTE / bw + share * n * gamma
                    + np.where(p > 1, reconf, 0.0))


def rabenseifner_allreduce_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reduce_s_per_byte=0.0,
                             reconfig_s=0.0):
    """Rabenseifner all-reduce (recursive-halving reduce-scatter + recursive-doubling all-gather), p a power of two:
    t = 2·lg p·α + 2·n·(p−1)/p·β + n·(p−1)/p·γ  (MPICH allreduce comment).
    Partners change every step: 2·lg p steps but the middle two share partners, so 2·lg p − 1 circuit sets."""
    n, p, bw, alpha, gamma, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, reduce_s_per_byte,
                                             reconfig_s)
    _power_of_two(p)
    lg = np.log2(p)
    share = (p - 1.0) / p
    phases = np.maximum(2 * lg - 1, 0.0)
    return _seconds(2 * lg * alpha + 2 * n * share * BITS_PER_BYTE / bw + n * share * gamma + phases * reconf)


def recursive_doubling_allreduce_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reduce_s_per_byte=0.0,
                                   reconfig_s=0.0):
    """Recursive-doubling all-reduce (short messages): the whole buffer is exchanged in every step.

    p a power of two: t = lg p·α + n·lg p·(β + γ)  (MPICH allreduce comment); lg p circuit sets.
    Otherwise MPICH first folds the p − p' extra ranks into a power of two p' = 2^⌊lg p⌋ and sends the result back:
    t = (lg p' + 2)·α + (lg p' + 2)·n·β + (lg p' + 1)·n·γ, with lg p' + 2 circuit sets  [inferred from MPICH's
    non-power-of-two handling]."""
    n, p, bw, alpha, gamma, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, reduce_s_per_byte,
                                             reconfig_s)
    beta = BITS_PER_BYTE / bw
    lg = np.floor(np.log2(p))
    extra = np.where(2.0 ** lg == p, 0.0, 1.0)  # 1 when p is not a power of two
    steps = lg + 2 * extra
    return _seconds(steps * alpha + steps * n * beta + (lg + extra) * n * gamma + steps * reconf)


def tree_allreduce_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reduce_s_per_byte=0.0, reconfig_s=0.0):
    """Double-binary-tree all-reduce (NCCL Tree), pipelined reduce up and broadcast down:
    t = 2·⌈lg p⌉·α + 2·n·β + n·γ  [inferred from NCCL tuning.cc: tree algBw = busBw/2, latency ∝ 2·log2 p].
    Bandwidth term is p/(p−1) times the ring's; latency is logarithmic instead of linear. One circuit set
    (both trees, degree ≤ 3 per rank)."""
    n, p, bw, alpha, gamma, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, reduce_s_per_byte,
                                             reconfig_s)
    active = p > 1
    depth = np.ceil(np.log2(p))
    return _seconds(np.where(active, 2 * depth * alpha + 2 * n * BITS_PER_BYTE / bw + n * gamma + reconf, 0.0))


def hierarchical_allreduce_s(message_bytes, gpus_per_node, nodes, node_bandwidth_bps, edge_bandwidth_bps, *,
                             node_latency_s=0.0, edge_latency_s=0.0, reduce_s_per_byte=0.0, reconfig_s=0.0):
    """Two-level all-reduce: ring reduce-scatter inside each node (g GPUs at B_n), a ring all-reduce of each GPU's
    n/g shard across the N nodes (every GPU at B_e, in parallel), then a ring all-gather inside the node:
    t = 2(g−1)/g·n·8/B_n + 2(N−1)/N·(n/g)·8/B_e + 2(g−1)·α_n + 2(N−1)·α_e + γ terms  [inferred].
    Only the inter-node rings use the reconfigurable fabric: `reconfig_s` paid once when N > 1."""
    n = _non_negative(message_bytes, "message_bytes")
    g = _ranks(gpus_per_node, "gpus_per_node")
    nodes_ = _ranks(nodes, "nodes")
    gamma = _non_negative(reduce_s_per_byte, "reduce_s_per_byte")
    reconf = _non_negative(reconfig_s, "reconfig_s")
    # reduce-scatter then all-gather, each a two-level half; the reduction happens in the reduce-scatter
    halves = 2.0 * np.asarray(hierarchical_half_s(n, g, nodes_, node_bandwidth_bps, edge_bandwidth_bps,
                                                  node_latency_s=node_latency_s, edge_latency_s=edge_latency_s))
    reduce = (g - 1.0) / g * n * gamma + (nodes_ - 1.0) / nodes_ * (n / g) * gamma
    return _seconds(halves + reduce + np.where(nodes_ > 1, reconf, 0.0))


def hierarchical_half_s(message_bytes, gpus_per_node, nodes, node_bandwidth_bps, edge_bandwidth_bps, *,
                        node_latency_s=0.0, edge_latency_s=0.0, pipelined=False):
    """Two-level reduce-scatter (or, run backwards, all-gather) of n bytes: a ring inside each node (g GPUs at
    B_n), then a ring of each GPU's n/g shard across the N nodes (B_e):
    t = (g−1)/g·n·8/B_n + (N−1)/N·(n/g)·8/B_e + (g−1)·α_n + (N−1)·α_e  [inferred; half of the two-level
    all-reduce]. `pipelined`: the node and network phases overlap chunk by chunk (as NCCL pipelines them), so the
    bandwidth terms give max(…) instead of their sum [inferred]."""
    n = _non_negative(message_bytes, "message_bytes")
    g = _ranks(gpus_per_node, "gpus_per_node")
    nodes_ = _ranks(nodes, "nodes")
    b_node = _positive(node_bandwidth_bps, "node_bandwidth_bps")
    b_edge = _positive(edge_bandwidth_bps, "edge_bandwidth_bps")
    intra = (g - 1.0) / g * n * BITS_PER_BYTE / b_node
    inter = (nodes_ - 1.0) / nodes_ * (n / g) * BITS_PER_BYTE / b_edge
    latency = (g - 1) * _non_negative(node_latency_s, "node_latency_s") \
        + (nodes_ - 1) * _non_negative(edge_latency_s, "edge_latency_s")
    return _seconds(latency + (np.maximum(intra, inter) if pipelined else intra + inter))


def multiport_ring_allreduce_s(message_bytes, ranks, ports, port_bandwidth_bps, *, latency_s=0.0,
                               reduce_s_per_byte=0.0, reconfig_s=0.0):
    """Ring all-reduce split over d edge-disjoint rings, one per port of bandwidth b (e.g. d OCSes each set to a
    Hamiltonian cycle): t = 2(p−1)·α + 2·(p−1)/p·n·8/(d·b) + (p−1)/p·n·γ  [inferred].
    All d rings are set up together: `reconfig_s` paid once."""
    d = _ranks(ports, "ports")
    b = _positive(port_bandwidth_bps, "port_bandwidth_bps")
    return ring_allreduce_s(message_bytes, ranks, d * b, latency_s=latency_s, reduce_s_per_byte=reduce_s_per_byte,
                            reconfig_s=reconfig_s)


def torus_allreduce_s(message_bytes, radix, dimensions, link_bandwidth_bps, *, latency_s=0.0,
                      reduce_s_per_byte=0.0):
    """All-reduce on a k-ary D-dimensional torus (p = k^D), one unidirectional ring per dimension in turn:
    reduce-scatter along dimensions 1..D (the buffer shrinks k-fold each time), all-gather back in reverse.
    t = 2·D·(k−1)·α + 2·(p−1)/p·n·8/b + (p−1)/p·n·γ  [inferred]: the bandwidth term equals one p-rank ring's,
    since Σ_i (k−1)/k · n/k^(i−1) = (1 − k^−D)·n. Using both directions of each ring halves the bandwidth term.
    Static topology: no reconfiguration argument."""
    n = _non_negative(message_bytes, "message_bytes")
    k = _ranks(radix, "radix")
    dims = _ranks(dimensions, "dimensions")
    b = _positive(link_bandwidth_bps, "link_bandwidth_bps")
    alpha = _non_negative(latency_s, "latency_s")
    gamma = _non_negative(reduce_s_per_byte, "reduce_s_per_byte")
    share = 1.0 - k ** (-dims)  # (p − 1)/p
    return _seconds(2 * dims * (k - 1) * alpha + 2 * share * n * BITS_PER_BYTE / b + share * n * gamma)


# --- other collectives --------------------------------------------------------------------------------
def ring_allgather_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reconfig_s=0.0):
    """Ring all-gather; n = bytes of the gathered result (nccl-tests' size S; each rank contributes n/p):
    t = (p−1)·α + (p−1)/p·n·β  [inferred; consistent with nccl-tests busbw factor (p−1)/p]. One circuit set."""
    n, p, bw, alpha, _, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, 0.0, reconfig_s)
    share = (p - 1.0) / p
    return _seconds((p - 1) * alpha + share * n * BITS_PER_BYTE / bw + np.where(p > 1, reconf, 0.0))


def ring_reduce_scatter_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reduce_s_per_byte=0.0,
                          reconfig_s=0.0):
    """Ring reduce-scatter; n = bytes of each rank's input (nccl-tests' size S; each rank ends with n/p reduced):
    t = (p−1)·α + (p−1)/p·n·(β + γ)  [inferred; half of the ring all-reduce]. One circuit set."""
    n, p, bw, alpha, gamma, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, reduce_s_per_byte,
                                             reconfig_s)
    share = (p - 1.0) / p
    return _seconds((p - 1) * alpha + share * n * (BITS_PER_BYTE / bw + gamma) + np.where(p > 1, reconf, 0.0))


def pairwise_alltoall_s(message_bytes, ranks, bandwidth_bps, *, latency_s=0.0, reconfig_s=0.0):
    """Pairwise-exchange all-to-all; n = total bytes one rank sends to the others (MPICH's n; nccl-tests' size S
    includes the rank's own chunk, n = S·(p−1)/p):  t = (p−1)·α + n·β  (MPICH alltoall comment).
    Step i pairs every rank with a different partner: p − 1 circuit sets (one per permutation)."""
    n, p, bw, alpha, _, reconf = _common(message_bytes, ranks, bandwidth_bps, latency_s, 0.0, reconfig_s)
    return _seconds((p - 1) * alpha + np.where(p > 1, n * BITS_PER_BYTE / bw, 0.0) + (p - 1) * reconf)


def bidirectional_ring_alltoall_s(message_bytes, ranks, link_bandwidth_bps, *, latency_s=0.0):
    """Uniform all-to-all on a bidirectional ring (links of b bit/s per direction), shortest-arc routing with ties
    split: every directed link carries ⌊p²/4⌋·n/(2(p−1)) bytes, so t = ⌊p/2⌋·α + ⌊p²/4⌋/(2(p−1))·n·8/b.
    n = total bytes one rank sends to the others (n/(p−1) per peer). For even p this is exactly the bisection
    bound (p/2)²·n/(p−1) bytes over 2 links ≈ n·p/(8·b_Bps)  [inferred]. Static ring: no reconfiguration."""
    n = _non_negative(message_bytes, "message_bytes")
    p = _ranks(ranks)
    b = _positive(link_bandwidth_bps, "link_bandwidth_bps")
    alpha = _non_negative(latency_s, "latency_s")
    hop_sum = np.floor(p * p / 4.0)  # Σ_k min(k, p − k) over the p − 1 peers
    per_link_bytes = np.where(p > 1, hop_sum * n / (2.0 * np.maximum(p - 1, 1.0)), 0.0)
    return _seconds(np.floor(p / 2.0) * alpha + per_link_bytes * BITS_PER_BYTE / b)


def point_to_point_s(message_bytes, bandwidth_bps, *, latency_s=0.0, reconfig_s=0.0):
    """One message over one path: t = α + n·β (+ one circuit set-up)  (Hockney α–β model)."""
    n = _non_negative(message_bytes, "message_bytes")
    bw = _positive(bandwidth_bps, "bandwidth_bps")
    return _seconds(_non_negative(latency_s, "latency_s") + n * BITS_PER_BYTE / bw
                    + _non_negative(reconfig_s, "reconfig_s"))


# --- nccl-tests bandwidth definitions -----------------------------------------------------------------
_BUSBW_OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce")


def algbw_bps(message_bytes, time_s):
    """Algorithm bandwidth algbw = S / t, in bit/s (nccl-tests doc/PERFORMANCE.md; it prints GB/s)."""
    return _seconds(_non_negative(message_bytes, "message_bytes") * BITS_PER_BYTE / _positive(time_s, "time_s"))


def busbw_factor(op: str, ranks):
    """busbw / algbw for an operation on p ranks (nccl-tests doc/PERFORMANCE.md): all_reduce 2(p−1)/p;
    all_gather, reduce_scatter, all_to_all (p−1)/p; broadcast, reduce 1."""
    p = _ranks(ranks)
    if op == "all_reduce":
        return _seconds(2.0 * (p - 1) / p)
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return _seconds((p - 1.0) / p)
    if op in ("broadcast", "reduce"):
        return _seconds(np.ones_like(p))
    hint = difflib.get_close_matches(str(op), _BUSBW_OPS, n=1)
    extra = f"; did you mean {hint[0]!r}?" if hint else ""
    raise InputError(f"unknown collective {op!r}, expected one of {', '.join(_BUSBW_OPS)}{extra}")


def busbw_bps(op: str, message_bytes, ranks, time_s):
    """Bus bandwidth busbw = algbw × busbw_factor(op, p), in bit/s (nccl-tests doc/PERFORMANCE.md)."""
    return _seconds(busbw_factor(op, ranks) * np.asarray(algbw_bps(message_bytes, time_s)))
