"""The bandwidth a traffic pattern's flows get on each fabric, and the training patterns to try.

Each fabric kind serves flows its own way (`FabricKind.serve`): SiP-Ring allocates wavelengths on ring segments
(pairs beyond the optical reach are relayed by the GPUs between, and counted), SiP-OCS chooses circuits (pairs
in different pods get nothing), electrical and ideal fabrics share each GPU's links in proportion to demand.
Every bandwidth includes the fabric's useful-time fraction and, on optical fabrics, is carried at the capacity the
estimate reports (`FabricEstimate.per_gpu_bandwidth_bps`: after the FEC overhead), never at the line rate.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from core.errors import InputError
from core.records import record
from fabric.estimate import FabricEstimate
from fabric.flows import Flows, group_alltoall_flows, ring_and_group_flows, ring_neighbour_flows

PATTERNS = ("ring", "groups", "training")
MAX_PATTERN_FLOWS = 1 << 25  # pairs [assumed: the arrays of an allocation, ~150 B a pair, ~5 GB; twice SiP-ML's
# training pattern in groups of 16 on 2^20 GPUs]


@record
class Served:
    """What a fabric kind gives a set of flows: bit/s per flow, the method, and how many flows were relayed."""

    bandwidth_bps: np.ndarray
    method: str
    relayed: int = 0


@record(kw_only=True, slots=False)
class PairBandwidth:
    """What a fabric serves a traffic pattern: each flow's bandwidth, the least share of a demand, the flows served
    by none or relayed, and how it was allocated."""

    flows: Flows
    bandwidth_bps: np.ndarray  # per flow, bit/s, with the useful-time fraction applied
    min_ratio: float  # min over flows of bandwidth / demand
    pairs: int  # flows (pairs with demand)
    unserved: int  # flows that get nothing
    relayed: int  # flows carried through intermediate GPUs (beyond the optical reach)
    method: str


def pattern_flows(pattern: str, gpus: int, group_size: int, rate_bps: float = 1e9) -> Flows:
    """SiP-ML-style training traffic: 'ring' (GPU i → i+1), 'groups' (all-to-all inside consecutive groups of
    `group_size`, model-parallel partitions placed together) or 'training' (both), `rate_bps` per pair; InputError
    for a pattern of more than MAX_PATTERN_FLOWS pairs."""
    if pattern in ("groups", "training") and isinstance(gpus, numbers.Integral) \
            and isinstance(group_size, numbers.Integral) \
            and int(gpus) * max(int(group_size) - 1, 0) > MAX_PATTERN_FLOWS:
        raise InputError(f"the {pattern!r} pattern on {int(gpus):,} GPUs in groups of {int(group_size):,} has "
                         f"{int(gpus) * (int(group_size) - 1):,} pairs or more (its groups' pairs; training adds "
                         f"the ring's), above the {MAX_PATTERN_FLOWS:,} an allocation holds: smaller groups, or "
                         "fewer GPUs")
    if pattern == "ring":
        return ring_neighbour_flows(gpus, rate_bps)
    if pattern == "groups":
        return group_alltoall_flows(gpus, group_size, rate_bps)
    if pattern == "training":
        return ring_and_group_flows(gpus, group_size, rate_bps)
    raise InputError(f"unknown traffic pattern '{pattern}', expected one of {', '.join(PATTERNS)}")


def ring_distance(flows: Flows, gpus: int) -> np.ndarray:
    """Shortest ring distance (hops) of each flow on a ring of `gpus`."""
    d = flows.dst - flows.src
    np.abs(d, out=d)
    other_way = gpus - d  # the type numpy gives `gpus` and the distances
    return np.minimum(d, other_way, out=other_way)  # in place: millions of flows at 10⁶ GPUs


def proportional_share(flows: Flows, link_bps: np.ndarray, inside=None) -> np.ndarray:
    """Each GPU's send and receive bandwidth split over its flows in proportion to demand; a flow takes the smaller
    of its two shares. `link_bps` per flow (the link it uses); `inside` (bool per flow) splits the flows into two
    independent link classes (e.g. NVLink inside a server and the NIC across)."""
    out = np.zeros(flows.count)
    parts = [np.ones(flows.count, dtype=bool)] if inside is None else [inside, ~inside]
    for part in parts:
        if not part.any():
            continue
        src, dst, demand = flows.src[part], flows.dst[part], flows.demand_bps[part]
        sent = np.bincount(src, demand, flows.gpus)
        received = np.bincount(dst, demand, flows.gpus)
        link = link_bps[part]
        out[part] = np.minimum(demand / sent[src] * link, demand / received[dst] * link)
    return out


def pair_bandwidth(est: FabricEstimate, flows: Flows) -> PairBandwidth:
    """Per-flow bandwidth the fabric gives `flows`."""
    from fabric.registry import get_kind

    if flows.gpus != est.gpus:
        raise InputError(f"the flows are on {flows.gpus} GPUs, the fabric has {est.gpus}")
    served = get_kind(est.kind).serve(est, flows)
    bandwidth = np.asarray(served.bandwidth_bps, dtype=float)
    ratio = float(np.min(bandwidth / flows.demand_bps)) if flows.count else math.inf
    return PairBandwidth(flows=flows, bandwidth_bps=bandwidth, min_ratio=ratio, pairs=flows.count,
                         unserved=int(np.sum(bandwidth <= 0)), relayed=served.relayed, method=served.method)
