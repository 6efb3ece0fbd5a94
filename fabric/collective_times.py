"""Collective-operation times on each fabric, from its bandwidths, degree and latency (fabric.collectives).

Which algorithm each fabric runs, and on what bandwidth:
- SiP-Ring: a ring over the physical ring (both directions' fibers in use: bandwidth = the GPU's effective
  capacity), or two levels: rings in groups of g ≤ the optical reach, then a ring of GPUs g apart whose hops share
  each segment g ways [inferred]; all-to-all bounded by the ring's bisection (shortest-arc routing);
  point-to-point to a neighbour on one direction's fibers.
- SiP-OCS: d edge-disjoint rings, one per switch (each OCS set to a Hamiltonian cycle), or a 2-D torus of circuits
  with half the switches per dimension, its two phases pipelined on their separate ports [inferred]; all-to-all relayed over the single-shot circuit graph, each
  byte crossing ⌈log_d p⌉ circuits (the diameter of a d-regular expander) [inferred]; point-to-point on one circuit.
- electrical: a ring over the NICs, two levels (NVSwitch inside a server, the NIC across servers) pipelined chunk
  by chunk as NCCL does, or NCCL's double binary tree; pairwise all-to-all limited by the NIC (and the
  oversubscription); point-to-point across servers at the NIC rate.
- ideal: ring or double binary tree, pairwise all-to-all, at the ideal per-GPU rate.
The fastest schedule a fabric supports is reported, with its name.
All times use the fabric's effective bandwidth (capacity × useful-time fraction) and the largest job's GPUs
([fabric] job_gpus, the whole cluster by default) as ranks.
"""

from __future__ import annotations

import math

from fabric import collectives as col
from fabric.design import ClusterDesign, job_size
from fabric.estimate import FabricEstimate


COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")


def largest_divisor_at_most(p: int, limit: int) -> int:
    """The largest g ≤ limit that divides p (1 if none larger)."""
    return max(g for g in range(1, max(1, min(p, limit)) + 1) if p % g == 0)


def _two_level_half(n, p, g, inner_bps, outer_bps, alpha, pipelined=False) -> float:
    """Reduce-scatter (or all-gather) as rings inside groups of g, then across the p/g groups."""
    return float(col.hierarchical_half_s(n, g, p // g, inner_bps, outer_bps, node_latency_s=alpha,
                                         edge_latency_s=alpha, pipelined=pipelined))


def _half_candidates(design: ClusterDesign, est: FabricEstimate, n: float, p: int, bw: float) -> dict[str, float]:
    """Reduce-scatter / all-gather schedules each fabric can run, with their α–β times."""
    alpha = est.alpha_s
    flat = float(col.ring_reduce_scatter_s(n, p, bw, latency_s=alpha))
    if est.kind == "sip-ring":
        # rings inside groups of g ≤ reach consecutive GPUs on the neighbour links, then a ring of GPUs g apart:
        # each outer hop spans g segments, so g outer flows share every segment (bandwidth C/g per flow)
        g = largest_divisor_at_most(p, int(est.figures["optical reach"][0]))
        out = {"ring": flat}
        if 1 < g < p:
            out[f"two-level ring (groups of {g})"] = _two_level_half(n, p, g, bw, bw / g, alpha)
        return out
    if est.kind == "sip-ocs":
        d = est.degree
        out = {f"{d} rings, one per switch": flat}
        g = largest_divisor_at_most(p, int(round(math.sqrt(p))))
        if d >= 2 and 1 < g < p:  # a 2-D torus of circuits: half the switches per dimension, so the two
            # dimensions use separate ports and their phases overlap chunk by chunk
            out[f"2-D torus ({g} × {p // g})"] = _two_level_half(n, p, g, bw / 2, bw / 2, alpha, pipelined=True)
        return out
    if est.kind == "electrical":
        el = design.electrical
        g = min(el.gpus_per_server, p)
        nic = el.nic_bandwidth / el.oversubscription
        out = {"ring over the NICs": float(col.ring_reduce_scatter_s(n, p, nic, latency_s=alpha))}
        if p % g == 0 and 1 < g < p:
            out["two-level, NVLink + NIC pipelined"] = _two_level_half(n, p, g, el.nvlink_bandwidth, nic, alpha,
                                                                       pipelined=True)
        return out
    return {"ring": flat}


def collective_times_s(design: ClusterDesign, est: FabricEstimate, message_bytes: float):
    """(seconds, algorithm) for all-reduce, all-gather, reduce-scatter, all-to-all and point-to-point of
    `message_bytes` (the buffer per rank; for all-to-all, the bytes one rank sends in total), as two dicts keyed by
    collective. For all-reduce and its halves the fastest schedule the fabric supports is taken, as NCCL's tuner
    picks one: all-reduce = reduce-scatter + all-gather of the same schedule, or a double binary tree
    (2·⌈lg p⌉ steps) where the fabric can wire one (ideal switch, electrical)."""
    p, alpha, n = job_size(design.fabric), est.alpha_s, message_bytes
    bw = est.effective_bandwidth_bps
    if bw <= 0:
        return {c: math.inf for c in COLLECTIVES}, {c: "none: no bandwidth" for c in COLLECTIVES}
    halves = _half_candidates(design, est, n, p, bw)
    half_alg = min(halves, key=halves.get)
    reduce = {name: 2.0 * t for name, t in halves.items()}
    if est.kind in ("ideal", "electrical"):
        tree_bw = bw if est.kind == "ideal" else design.electrical.nic_bandwidth / design.electrical.oversubscription
        reduce["double binary tree"] = float(col.tree_allreduce_s(n, p, tree_bw, latency_s=alpha))
    reduce_alg = min(reduce, key=reduce.get)
    times = {"all_reduce": reduce[reduce_alg], "all_gather": halves[half_alg], "reduce_scatter": halves[half_alg]}
    algorithms = {"all_reduce": reduce_alg, "all_gather": half_alg, "reduce_scatter": half_alg}
    if est.kind == "sip-ring":
        directions = design.sip_ring.directions
        times["all_to_all"] = float(col.bidirectional_ring_alltoall_s(n, p, bw / directions, latency_s=alpha)
                                    if directions == 2 else col.pairwise_alltoall_s(n * p / 2, p, bw, latency_s=alpha))
        algorithms["all_to_all"] = "shortest arc, bisection-bound"
        times["p2p"], algorithms["p2p"] = float(col.point_to_point_s(n, bw / directions, latency_s=alpha)), \
            "one direction's fibers"
    elif est.kind == "sip-ocs":
        d = est.degree
        relay_hops = max(1, math.ceil(math.log(p) / math.log(d))) if d > 1 else p - 1
        times["all_to_all"] = float(col.pairwise_alltoall_s(n * relay_hops, p, bw, latency_s=alpha))
        algorithms["all_to_all"] = f"relayed over the circuits, {relay_hops} hops"
        times["p2p"], algorithms["p2p"] = float(col.point_to_point_s(n, bw / d, latency_s=alpha)), "one circuit"
    elif est.kind == "electrical":
        el = design.electrical
        times["all_to_all"] = float(col.pairwise_alltoall_s(n, p, el.nic_bandwidth / el.oversubscription,
                                                            latency_s=alpha))
        algorithms["all_to_all"] = "pairwise over the NICs"
        times["p2p"], algorithms["p2p"] = float(col.point_to_point_s(n, el.nic_bandwidth, latency_s=alpha)), \
            "across servers, one NIC"
    else:
        times["all_to_all"] = float(col.pairwise_alltoall_s(n, p, bw, latency_s=alpha))
        algorithms["all_to_all"] = "pairwise"
        times["p2p"], algorithms["p2p"] = float(col.point_to_point_s(n, bw, latency_s=alpha)), "one port"
    return times, algorithms
