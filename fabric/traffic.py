"""The per-pair bandwidth a traffic matrix gets on each fabric, and the training patterns to try.

- SiP-Ring: wavelengths by `allocation.ring_allocation_fast` on the design's ring; pairs beyond the optical reach
  cannot be served by one wavelength and get nothing (they are counted).
- SiP-OCS: circuits by `allocation.ocs_assignment` (exact for the single-shot objective); in a partitioned
  cluster, pairs in different pods get nothing.
- electrical and ideal: each GPU's NIC (or NVLink inside a server) shared in proportion to demand on the send and
  receive side, the smaller share taken: a feasible fair share, not an optimum.
Every bandwidth is multiplied by the fabric's useful-time fraction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fabric import allocation
from fabric.design import ClusterDesign
from fabric.estimate import FabricEstimate
from core.errors import InputError

PATTERNS = ("ring", "groups", "training")


@dataclass(frozen=True, kw_only=True)
class PairBandwidth:
    bandwidth_bps: np.ndarray  # (N, N) bit/s each pair gets, with the useful-time fraction applied
    min_ratio: float  # min over pairs with demand of bandwidth / demand
    pairs: int  # pairs with demand
    unserved: int  # pairs with demand that get nothing
    method: str


def training_demand_bps(gpus: int, group_size: int, rate_bps: float = 1e9) -> np.ndarray:
    """SiP-ML-style training traffic: a data-parallel ring (i → i+1) plus all-to-all inside consecutive groups of
    `group_size` GPUs (model-parallel partitions placed together), `rate_bps` per pair."""
    return (allocation.ring_neighbour_demand_bps(gpus, rate_bps)
            + allocation.group_alltoall_demand_bps(gpus, group_size, rate_bps))


def pattern_demand_bps(pattern: str, gpus: int, group_size: int, rate_bps: float = 1e9) -> np.ndarray:
    if pattern == "ring":
        return allocation.ring_neighbour_demand_bps(gpus, rate_bps)
    if pattern == "groups":
        return allocation.group_alltoall_demand_bps(gpus, group_size, rate_bps)
    if pattern == "training":
        return training_demand_bps(gpus, group_size, rate_bps)
    raise InputError(f"unknown traffic pattern '{pattern}', expected one of {', '.join(PATTERNS)}")


def _ratio(bandwidth: np.ndarray, demand: np.ndarray) -> float:
    mask = demand > 0
    return float(np.min(bandwidth[mask] / demand[mask])) if mask.any() else math.inf


def ring_distance(n: int) -> np.ndarray:
    i = np.arange(n)
    d = np.abs(i[:, None] - i[None, :])
    return np.minimum(d, n - d)


def pair_bandwidth(design: ClusterDesign, est: FabricEstimate, demand_bps: np.ndarray) -> PairBandwidth:
    """Per-pair bandwidth the fabric gives `demand_bps` (an N × N matrix of bit/s, zero diagonal)."""
    demand = np.asarray(demand_bps, dtype=float)
    n = est.gpus
    if demand.shape != (n, n):
        raise InputError(f"traffic matrix is {demand.shape}, expected ({n}, {n}) for {n} GPUs")
    served = demand.copy()
    method = ""
    if est.kind == "sip-ring":
        reach = int(est.figures["optical reach"][0])
        served[ring_distance(n) > reach] = 0.0  # one wavelength cannot travel further than the reach
        lk, ring = design.link.link, design.sip_ring
        if served.any() and est.per_gpu_bandwidth_bps > 0:
            alloc = allocation.ring_allocation_fast(
                served, directions=ring.directions, fibers=lk.fibers_per_direction // ring.directions,
                wavelengths_per_fiber=lk.wavelengths_per_fiber, wavelength_rate_bps=lk.data_rate)
            bandwidth, method = alloc.bandwidth_bps * est.useful_fraction, alloc.method
        else:
            bandwidth = np.zeros_like(demand)
    elif est.kind == "sip-ocs":
        pod = int(est.figures["GPUs per pod"][0])
        group = np.arange(n) // pod
        served[group[:, None] != group[None, :]] = 0.0  # no circuit between independent pods
        if served.any() and est.per_gpu_bandwidth_bps > 0:
            alloc = allocation.ocs_assignment(served, n_ocs=est.degree,
                                              circuit_bps=est.per_gpu_bandwidth_bps / est.degree)
            bandwidth, method = alloc.bandwidth_bps * est.useful_fraction, alloc.method
        else:
            bandwidth = np.zeros_like(demand)
    else:
        bandwidth, method = _fair_share(design, est, demand), "proportional share of each GPU's links"
    mask = demand > 0
    return PairBandwidth(bandwidth_bps=bandwidth, min_ratio=_ratio(bandwidth, demand), pairs=int(mask.sum()),
                         unserved=int((mask & (bandwidth <= 0)).sum()), method=method)


def _fair_share(design: ClusterDesign, est: FabricEstimate, demand: np.ndarray) -> np.ndarray:
    """Each GPU's send and receive bandwidth split in proportion to demand; the pair takes the smaller share.
    Electrical: NVLink inside a server, the NIC (over the oversubscription) between servers."""
    n = est.gpus
    if est.kind == "electrical":
        el = design.electrical
        server = np.arange(n) // el.gpus_per_server
        same = server[:, None] == server[None, :]
        link = np.where(same, el.nvlink_bandwidth, el.nic_bandwidth / el.oversubscription)
    else:
        same = np.zeros((n, n), dtype=bool)
        link = np.full((n, n), est.per_gpu_bandwidth_bps)
    out = np.zeros_like(demand)
    for part in (same, ~same):
        d = np.where(part, demand, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            send = np.nan_to_num(d / d.sum(axis=1, keepdims=True)) * link
            recv = np.nan_to_num(d / d.sum(axis=0, keepdims=True)) * link
        out += np.minimum(send, recv)
    return out * est.useful_fraction
