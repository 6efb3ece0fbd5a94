"""Collective-operation times on each fabric, from its bandwidths, degree and latency (fabric.collectives).

Which algorithm each fabric runs, and on what bandwidth:
- SiP-Ring: rings over the physical ring, both directions' fibers in use (bandwidth = the GPU's effective
  capacity); all-to-all bounded by the ring's bisection (shortest-arc routing); point-to-point to a neighbour on
  one direction's fibers.
- SiP-OCS: d edge-disjoint rings, one per switch (each OCS set to a Hamiltonian cycle); all-to-all relayed over
  the single-shot circuit graph, each byte crossing ⌈log_d p⌉ circuits (the diameter of a d-regular expander)
  [inferred]; point-to-point on one circuit. Partitioned pods run collectives inside a pod.
- electrical: two-level collectives (NVSwitch inside a server, the NIC across servers), the two phases pipelined
  chunk by chunk as NCCL does (all-reduce = two-level reduce-scatter + all-gather); pairwise all-to-all limited by
  the NIC (and the oversubscription); point-to-point across servers at the NIC rate.
- ideal: ring algorithms and pairwise all-to-all at the ideal per-GPU rate.
All times use the fabric's effective bandwidth (capacity × useful-time fraction) and the largest job's GPUs
([fabric] job_gpus, the whole cluster by default) as ranks.
"""

from __future__ import annotations

import math

from fabric import collectives as col
from fabric.design import ClusterDesign, job_size
from fabric.estimate import FabricEstimate


def collective_times_s(design: ClusterDesign, est: FabricEstimate, message_bytes: float) -> dict[str, float]:
    """Seconds for all-reduce, all-gather, reduce-scatter, all-to-all and point-to-point of `message_bytes`
    (the buffer per rank; for all-to-all, the bytes one rank sends in total)."""
    p, alpha, n = job_size(design.fabric), est.alpha_s, message_bytes
    bw = est.effective_bandwidth_bps
    if bw <= 0:
        return {name: math.inf for name in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")}
    if est.kind == "sip-ring":
        directions = design.sip_ring.directions
        return {
            "all_reduce": col.ring_allreduce_s(n, p, bw, latency_s=alpha),
            "all_gather": col.ring_allgather_s(n, p, bw, latency_s=alpha),
            "reduce_scatter": col.ring_reduce_scatter_s(n, p, bw, latency_s=alpha),
            "all_to_all": col.bidirectional_ring_alltoall_s(n, p, bw / directions, latency_s=alpha)
            if directions == 2 else col.pairwise_alltoall_s(n * p / 2, p, bw, latency_s=alpha),
            "p2p": col.point_to_point_s(n, bw / directions, latency_s=alpha),
        }
    if est.kind == "sip-ocs":
        d = est.degree
        ranks = p
        port = bw / d
        relay_hops = max(1, math.ceil(math.log(ranks) / math.log(d))) if d > 1 else ranks - 1
        return {
            "all_reduce": col.multiport_ring_allreduce_s(n, ranks, d, port, latency_s=alpha),
            "all_gather": col.ring_allgather_s(n, ranks, bw, latency_s=alpha),
            "reduce_scatter": col.ring_reduce_scatter_s(n, ranks, bw, latency_s=alpha),
            "all_to_all": col.pairwise_alltoall_s(n * relay_hops, ranks, bw, latency_s=alpha),
            "p2p": col.point_to_point_s(n, port, latency_s=alpha),
        }
    if est.kind == "electrical":
        el = design.electrical
        g = min(el.gpus_per_server, p)
        nodes = math.ceil(p / g)
        nic = el.nic_bandwidth / el.oversubscription
        half = col.hierarchical_half_s(n, g, nodes, el.nvlink_bandwidth, nic, node_latency_s=alpha,
                                       edge_latency_s=alpha, pipelined=True)
        return {
            "all_reduce": 2.0 * half,
            "all_gather": half,
            "reduce_scatter": half,
            "all_to_all": col.pairwise_alltoall_s(n, p, nic, latency_s=alpha),
            "p2p": col.point_to_point_s(n, el.nic_bandwidth, latency_s=alpha),
        }
    return {
        "all_reduce": col.ring_allreduce_s(n, p, bw, latency_s=alpha),
        "all_gather": col.ring_allgather_s(n, p, bw, latency_s=alpha),
        "reduce_scatter": col.ring_reduce_scatter_s(n, p, bw, latency_s=alpha),
        "all_to_all": col.pairwise_alltoall_s(n, p, bw, latency_s=alpha),
        "p2p": col.point_to_point_s(n, bw, latency_s=alpha),
    }
