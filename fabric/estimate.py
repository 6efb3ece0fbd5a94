"""The result of evaluating a fabric: typed numbers every kind reports, and the kind's own typed details."""

from __future__ import annotations

from dataclasses import dataclass

from fabric.bom import BomLine
from fabric.design import ClusterDesign
from photonics.link import LinkEstimate, Violation


@dataclass(frozen=True, slots=True, kw_only=True)
class FabricEstimate:
    design: ClusterDesign
    kind: str
    gpus: int
    job_gpus: int  # ranks of the largest job: every collective runs over these
    per_gpu_bandwidth_bps: float  # injection per GPU per direction, while the fabric carries traffic
    useful_fraction: float  # share of time the fabric carries traffic (retuning, reconfiguration)
    degree: int  # peers one GPU reaches directly at once
    bisection_bps: float  # per direction
    pod_gpus: int  # GPUs a job can span (the cluster, or one independent pod)
    reach_hops: int | None = None  # GPUs one wavelength travels on a ring; None where every pair is one circuit
    details: object = None  # the kind's own typed record (e.g. fabric.sip_ring.RingDetails)
    link: LinkEstimate | None = None
    bom: tuple[BomLine, ...] = ()
    violations: tuple[Violation, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def effective_bandwidth_bps(self) -> float:
        return self.per_gpu_bandwidth_bps * self.useful_fraction


def useful_time_fraction(interval_s: float, reconfiguration_s: float) -> float:
    """Share of time a reconfigurable fabric carries traffic: interval / (interval + reconfiguration) [sim]."""
    return interval_s / (interval_s + reconfiguration_s)
