"""The result of evaluating a fabric: typed numbers every kind reports, and the kind's own typed details."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from core.distinct import distinct_columns
from core.records import record
from fabric.cluster_design import ClusterDesign
from photonics.link import LinkEstimate, Violation

if TYPE_CHECKING:
    from fabric.bom import BomLine


@record(kw_only=True)
class FabricEstimate:
    """What a fabric gives one job: per-GPU bandwidth and useful time, degree, bisection, pods, reach, the kind's
    details, the link, the bill, violations and notes."""
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
    host_serdes_w: float = 0.0  # the host SerDes lanes driving the fabric's optics, whole cluster (inside the
    # switches' and NICs' own power; what the whole-port boundary adds to the optics, fabric.cost.optics_power)

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def effective_bandwidth_bps(self) -> float:
        return self.per_gpu_bandwidth_bps * self.useful_fraction


@record(kw_only=True)
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


@record
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


def over_points(est: FabricEstimate, shape: tuple, where=None) -> FabricEstimate:
    """A pricing view (`pricing_view`) of an estimate whose figures are arrays over a grid of `shape`, as one batch
    of its points (those of the mask `where`, or all): every array figure (its own and its details') broadcast to
    the grid and laid out as (P, 1), P points in the grid's C order, so a collective priced on it for K strategies
    gives (P, K) seconds, row i point i's. The bandwidth is always laid out so (`points`)."""
    rows = slice(None) if where is None else np.broadcast_to(where, shape).ravel()
    view = pricing_view(est)
    view = dataclasses.replace(view, per_gpu_bandwidth_bps=np.asarray(view.per_gpu_bandwidth_bps, dtype=float)
                               + np.zeros(shape))
    return _figures(view, lambda a: np.broadcast_to(a, shape).reshape(-1, 1)[rows], 1)


def points(est: FabricEstimate) -> int | None:
    """How many design points a batched view (`over_points`) holds; None for one point's estimate."""
    return est.per_gpu_bandwidth_bps.shape[0] if np.ndim(est.per_gpu_bandwidth_bps) == 2 else None


def point_view(view: FabricEstimate, i: int) -> FabricEstimate:
    """Point i of a batched view (`over_points`) as a pricing view of its own, its figures numbers (a figure the
    batch left 0-d, one value at every point, too: the view is hashable, a search's key)."""
    return _figures(view, lambda a: (a[i, 0] if a.ndim == 2 else a).item(), 0)


def distinct_points(view: FabricEstimate) -> tuple[np.ndarray, np.ndarray]:
    """(the first of each distinct point of a batched view, each point's distinct one): points whose figures (its
    own and its details', every one pricing reads) are all equal price every collective alike, so a search at the
    first of them is the search at each (`take_points(view, first)`, then row inverse[i] for point i)."""
    count = points(view) or 1  # a grid of one point (no axes) is one point's view
    rows = []

    def collect(value):
        if isinstance(value, np.ndarray) and value.ndim == 2:
            rows.append(value.reshape(count).astype(float) if value.dtype.kind in "biuf" else None)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                if f.init and f.compare:  # the rest is informational: pricing does not read it (`pricing_view`)
                    collect(getattr(value, f.name))

    for name in _POINT_FIGURES:
        collect(getattr(view, name))
    if any(r is None for r in rows):  # a figure that is not a number: every point its own
        return np.arange(count), np.arange(count)
    if not rows:  # no figure varies: all alike
        return np.zeros(1, dtype=np.intp), np.zeros(count, dtype=np.intp)
    return distinct_columns(np.stack(rows))


def take_points(view: FabricEstimate, rows) -> FabricEstimate:
    """The points `rows` (indices) of a batched view (`over_points`), as a batched view."""
    return _figures(view, lambda a: a[rows], 2)


def joined_points(views) -> FabricEstimate:
    """Pricing views of one design (the ways its fabric can run a job, `fabric.kind.FabricKind.alternatives`),
    each of one point or a batch (`over_points`), as one batched view: view k's points after view k − 1's. A
    figure (its own, its details', `static`) that is an array in one of them or differs between them becomes
    (ΣP, 1), each view's rows its own; one they share stays as it is. Point j of view k prices as the point
    ΣP_<k + j of the joined view."""
    counts = [points(v) or 1 for v in views]

    def joined(values):
        first = values[0]
        if dataclasses.is_dataclass(first) and not isinstance(first, type):
            return dataclasses.replace(first, **{f.name: joined([getattr(v, f.name) for v in values])
                                                 for f in dataclasses.fields(first) if f.init})
        if not any(isinstance(v, np.ndarray) for v in values) and all(v == first for v in values[1:]):
            return first
        return np.concatenate([np.broadcast_to(np.asarray(v), (n, 1)) for v, n in zip(values, counts)])

    views = [pricing_view(v) for v in views]
    view = dataclasses.replace(views[0], per_gpu_bandwidth_bps=np.concatenate(
        [np.broadcast_to(np.asarray(v.per_gpu_bandwidth_bps, dtype=float), (n, 1)) for v, n in zip(views, counts)]))
    return dataclasses.replace(view, **{name: joined([getattr(v, name) for v in views])
                                        for name in _POINT_FIGURES[1:]})


def _figures(view: FabricEstimate, change, ndim: int) -> FabricEstimate:
    """The view with `change` applied to every array figure of at least `ndim` dimensions, its own and its
    details' (nested records included)."""
    def changed(value):
        if isinstance(value, np.ndarray) and value.ndim >= ndim:
            return change(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.replace(value, **{f.name: changed(getattr(value, f.name))
                                                 for f in dataclasses.fields(value) if f.init})
        return value

    return dataclasses.replace(view, **{name: changed(getattr(view, name)) for name in _POINT_FIGURES})


_POINT_FIGURES = ("per_gpu_bandwidth_bps", "useful_fraction", "degree", "bisection_bps", "reach_hops", "pod_gpus",
                  "details", "static")


def useful_time_fraction(interval_s: float, reconfiguration_s: float) -> float:
    """Share of time a reconfigurable fabric carries traffic: interval / (interval + reconfiguration) [sim]."""
    return interval_s / (interval_s + reconfiguration_s)
