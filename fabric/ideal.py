"""The ideal switch: non-blocking at B per GPU per direction, one step latency, and the best schedule any fabric
has — the switch reduces in the network (as NVLink SHARP and InfiniBand SHARP do) and every collective moves only
the bytes it must. A reference point with no cost model, as in SiP-ML's experiments [sim]; a lower bound on every
fabric of the same per-GPU bandwidth and step latency.

Lower bounds it meets (n, p as in fabric.kind): all-reduce, each rank sends its n bytes once and receives the
result once, up to the switch and back, the chunks pipelined as a ring's are (fabric.collectives.pipelined_s over
two steps: max(2α, n·8/B) + min(α, n·8/2B)); reduce-scatter and all-gather, (p−1)/p·n·8/B + α; all-to-all,
n·8/B + (p−1)·α (one message per peer); point-to-point, n·8/B + α [inferred].
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from core.fields import Section, non_negative, positive
from core.formulas import Formula, Terms
from core.records import record
from fabric.cluster_design import MAX_LATENCY_S, MAX_RATE_BPS, MIN_RATE_BPS, SIPML, ClusterDesign
from fabric.estimate import FabricEstimate
from fabric.collectives import pipelined_s
from fabric.formulas import every_peer_degree, packet_switched_useful, switch_bisection
from fabric.kind import BITS_PER_BYTE, CollectiveTime, FabricKind, bytes_sent_per_rank, proportional


@record(kw_only=True)
class IdealSection(Section):
    """The `[ideal]` section: one non-blocking switch's per-GPU rate and per-step latency."""

    section_name: ClassVar[str] = "ideal"

    bandwidth: float = positive("2000 Gbit/s", "bit/s", "per-GPU rate of the non-blocking switch, per direction",
                                f"{SIPML}: swept 128–8192 Gbps; 2 Tbps matches the SiP designs",
                                lo=MIN_RATE_BPS, hi=MAX_RATE_BPS)
    step_latency: float = non_negative("3.4 us", "s", "latency of one collective step", "[assumed] the lowest "
                                       "per-step latency of the built-in fabrics (NCCL Ring/Simple over NVLink)",
                                       hi=MAX_LATENCY_S)


def _evaluate(design: ClusterDesign) -> FabricEstimate:
    fab, ideal = design.fabric, design.topology
    return FabricEstimate(
        design=design, kind="ideal", gpus=fab.gpus, job_gpus=design.job_gpus, per_gpu_bandwidth_bps=ideal.bandwidth,
        useful_fraction=1.0, degree=fab.gpus - 1, bisection_bps=fab.gpus / 2 * ideal.bandwidth, pod_gpus=fab.gpus,
        details=ideal, notes=("ideal non-blocking switch: a reference point, its network is not costed",))


def _shares(est, collectives, arrays):
    volume = []
    for c, (n, p, _) in zip(collectives, arrays):
        volume.append(bytes_sent_per_rank(c.op, n, p) * np.asarray(c.calls, dtype=float))
    return proportional(volume)


def _price(est, c, n, p, s, share) -> CollectiveTime:
    ideal = est.design.topology
    bw = ideal.bandwidth * share
    alpha = ideal.step_latency
    bits = n * BITS_PER_BYTE
    if c.op == "all_reduce":
        # up to the switch and back down, the chunks pipelined through it as through a ring's two steps
        t, name = pipelined_s(2 * alpha, bits / bw, 2, alpha), "in-network reduction"
    elif c.op in ("reduce_scatter", "all_gather"):
        t, name = alpha + (p - 1) / p * bits / bw, "in-network reduction" if c.op == "reduce_scatter" else "multicast"
    elif c.op == "all_to_all":
        t, name = (p - 1) * alpha + bits / bw, "pairwise"
    else:
        t, name = alpha + bits / bw, "one port"
    return CollectiveTime(np.where(p > 1, t, 0.0), name, share, bw)


def _serve(est: FabricEstimate, flows):
    from fabric.traffic import Served, proportional_share

    return Served(proportional_share(flows, np.full(flows.count, est.per_gpu_bandwidth_bps)),
                  "proportional share of each GPU's links")


def _bandwidth_formula(est: FabricEstimate):
    """B = the switch's per-GPU rate."""
    t = Terms()
    return Formula("B", t(r"B_{\mathrm{ideal}}", est.design.topology.bandwidth, "bit/s", "[ideal] bandwidth"), t.terms)


def _bisection_formula(est: FabricEstimate):
    """B_bis = G/2 · B: non-blocking."""
    return switch_bisection(est, est.design.topology.bandwidth, 1.0)


def _figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    return {"per-GPU rate": (est.per_gpu_bandwidth_bps / 1e9, "Gbit/s")}


IDEAL = FabricKind(name="ideal", section="ideal", section_type=IdealSection, static=False, evaluator=_evaluate,
                   sharer=_shares, pricer=_price, server=_serve,
                   formulas={"per_gpu_bandwidth_gbps": _bandwidth_formula,
                             "useful_time_fraction": packet_switched_useful, "degree": every_peer_degree,
                             "bisection_gbps": _bisection_formula},
                   figures=_figures, costed=False)
