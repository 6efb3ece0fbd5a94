"""Evaluate a cluster design through its fabric kind, and price collectives over the job's ranks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import InputError
from fabric.cluster_design import ClusterDesign
from fabric.kind import OPS, Collective, CollectiveTime, MixPricing
from fabric.registry import get_kind
from photonics.link_design import LinkDesign

if TYPE_CHECKING:
    from fabric.estimate import FabricEstimate


def evaluate_fabric(design: ClusterDesign, link=None) -> FabricEstimate:
    """The fabric's bandwidth, degree, bisection, reach, bill of materials and violations. `link`: the estimate of
    the design's optical link (`effective_link`) when the caller has it."""
    kind = get_kind(design.fabric.kind)
    if kind.optical and design.link.link.kind != "ring-wdm":
        raise InputError(f"[fabric] kind = '{kind.name}' is built from ring-wdm chiplets; a [link] kind = "
                         f"'{design.link.link.kind}' link is evaluated on its own (`sipml budget`, `sipml check`)")
    return kind.evaluate(design, link)


def effective_link(design: ClusterDesign) -> LinkDesign | None:
    """The GPU-to-GPU optical link of the design's fabric (with its switch passes), or None for an electrical one."""
    return get_kind(design.fabric.kind).optical_link(design)


def price(est: FabricEstimate, running, mix=None) -> list[CollectiveTime]:
    """Times of the collectives in `running` when they run together; a static fabric is configured for `mix`
    (default: `running`). See fabric.kind."""
    return get_kind(est.kind).price(est, running, mix)


def mix_pricing(est: FabricEstimate, mix, arrays=None) -> MixPricing:
    """A pricer of collectives of the job's traffic `mix` on `est` (see fabric.kind.MixPricing): a strategy search
    prices through one; `arrays`, the mix's checked group arrays (`fabric.kind.group_arrays`), when known."""
    return MixPricing(get_kind(est.kind), est, mix, arrays)


def price_first(est: FabricEstimate, running, mix=None) -> CollectiveTime:
    """`price(est, running, mix)[0]` without pricing the others."""
    return get_kind(est.kind).price(est, running, mix, first_only=True)[0]


def job_collectives(est: FabricEstimate, message_bytes: float) -> dict[str, CollectiveTime]:
    """Each collective over all of the job's ranks, alone on the fabric; p2p is each rank sending to the next."""
    return {op: job_collective(est, op, message_bytes) for op in OPS}


def job_collective(est: FabricEstimate, op: str, message_bytes: float) -> CollectiveTime:
    """One collective over all of the job's ranks, alone on the fabric."""
    return price(est, [Collective(op, message_bytes, est.job_gpus)])[0]


def groups_together(est: FabricEstimate, sizes: dict, message_bytes: float) -> list[tuple]:
    """(group, collective, its time) of each parallel group of `sizes` (`fabric.layout.parallel_groups`: tp, dp, …
    over the job's ranks), every group running its collective at once on `message_bytes` per rank."""
    from fabric.layout import OPERATION, parallel_groups

    layout = parallel_groups(est.job_gpus, **sizes)
    collectives = [Collective(OPERATION[g.name], message_bytes, g.size, g.stride, name=g.name) for g in layout]
    return list(zip(layout, collectives, price(est, collectives)))
