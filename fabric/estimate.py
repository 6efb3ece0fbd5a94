"""The result of evaluating a fabric: typed numbers every kind reports, and the kind's own typed details."""

from __future__ import annotations

import dataclasses
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
    static: bool | None = None  # configured once per job (None: as its kind says, fabric.kind.FabricKind.static)

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def effective_bandwidth_bps(self) -> float:
        return self.per_gpu_bandwidth_bps * self.useful_fraction


@dataclass(frozen=True, slots=True, kw_only=True)
class Floor:
    """What a kind's floor finds of a design built on its link (`fabric.kind.FabricKind.grid_floor`): numbers for
    one design point, arrays over a grid of them; the estimate reports the same numbers."""

    per_gpu_bandwidth_bps: object
    useful_fraction: float
    degree: object
    bisection_bps: object
    broken: dict  # violation name → where it is broken (bool), in report order, after the link's own
    bom: tuple

    @property
    def effective_bandwidth_bps(self):
        return self.per_gpu_bandwidth_bps * self.useful_fraction


@dataclass(frozen=True, slots=True)
class PricingDesign:
    """What pricing a collective reads of a design: the kind's own section and the shared [fabric] settings."""

    topology: object
    fabric: object


def pricing_view(est: FabricEstimate) -> FabricEstimate:
    """The estimate as the collective pricing sees it (`fabric.kind.FabricKind.price`): its numbers and details, the
    design's topology and [fabric] sections, not the link, the bill of materials or the messages. Two designs with
    the same view price every collective alike, so a search over strategies keyed on it is done once; a pricing
    function that reached for anything else would fail on the view, not read a stale value."""
    return dataclasses.replace(est, design=PricingDesign(est.design.topology, est.design.fabric), link=None, bom=(),
                               violations=(), notes=())


def useful_time_fraction(interval_s: float, reconfiguration_s: float) -> float:
    """Share of time a reconfigurable fabric carries traffic: interval / (interval + reconfiguration) [sim]."""
    return interval_s / (interval_s + reconfiguration_s)
