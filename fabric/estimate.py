"""The result of evaluating a fabric: the numbers every topology reports, as data."""

from __future__ import annotations

from dataclasses import dataclass, field

from fabric.bom import BomLine
from photonics.link import LinkEstimate, Violation


@dataclass(frozen=True, slots=True)
class FabricEstimate:
    kind: str
    gpus: int
    per_gpu_bandwidth_bps: float  # injection per GPU per direction, while the fabric carries traffic
    useful_fraction: float  # share of time the fabric carries traffic (retuning, reconfiguration)
    degree: int  # peers one GPU reaches directly at once
    bisection_bps: float
    alpha_s: float  # per-message latency of a collective step
    link: LinkEstimate | None = None
    figures: dict[str, tuple[float, str]] = field(default_factory=dict)  # name → (value, unit)
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
