"""A fabric kind defined outside the package, as a plug-in would: one shared bus every GPU sends on in turn. It
declares its section, its model, its formulas (what `sipml explain` shows), its display figures and its bill of
materials, and touches nothing under `fabric/` or `sipml/`; a test registers it (`register(TOY)`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from core.fields import Section, non_negative, positive
from core.formulas import Formula, Terms
from fabric.bom import BomLine
from fabric.estimate import FabricEstimate
from fabric.formulas import every_peer_degree
from fabric.kind import BITS_PER_BYTE, CollectiveTime, FabricKind, proportional
from fabric.traffic import Served, proportional_share

TAP = "cable.fiber_patch"  # the catalog entry of one GPU's tap onto the bus


@dataclass(frozen=True, kw_only=True, slots=True)
class ToyBusSection(Section):
    """One shared bus every GPU sends on in turn."""

    section_name: ClassVar[str] = "toy_bus"

    bandwidth: float = positive("100 Gbit/s", "bit/s", "rate of the shared bus", "[assumed] a test kind")
    latency: float = non_negative("1 us", "s", "latency of one transfer", "[assumed] a test kind")


def _evaluate(design) -> FabricEstimate:
    bus = design.topology
    gpus = design.fabric.gpus
    return FabricEstimate(design=design, kind="toy-bus", gpus=gpus, job_gpus=design.job_gpus,
                          per_gpu_bandwidth_bps=bus.bandwidth / gpus, useful_fraction=1.0, degree=gpus - 1,
                          bisection_bps=bus.bandwidth / 2, pod_gpus=gpus, details=bus,
                          bom=(BomLine(key=TAP, count=1, scope="per_gpu", network=True),))


def _price(est, c, n, p, s, share) -> CollectiveTime:
    """Every rank's bytes cross the bus one after the other: p·n·8/B (all-reduce twice), plus one latency."""
    bus = est.design.topology
    passes = 2.0 if c.op == "all_reduce" else 1.0
    t = bus.latency + passes * p * n * BITS_PER_BYTE / (bus.bandwidth * share)
    return CollectiveTime(np.where(p > 1, t, 0.0), "bus", share, bus.bandwidth * share)


def _serve(est: FabricEstimate, flows) -> Served:
    """Each GPU's turn on the bus split over its flows in proportion to demand."""
    return Served(proportional_share(flows, np.full(flows.count, est.per_gpu_bandwidth_bps)), "turns on the bus")


def _bandwidth_formula(est: FabricEstimate) -> Formula:
    """B = B_bus / G: the GPUs take turns on the bus."""
    t = Terms()
    return Formula("B", t(r"B_{\mathrm{bus}}", est.design.topology.bandwidth, "bit/s", "[toy_bus] bandwidth")
                   / t("G", est.gpus, "", "GPUs on the bus"), t.terms)


def _bisection_formula(est: FabricEstimate) -> Formula:
    """B_bis = B_bus / 2: a cut of the bus carries it in each direction at half the rate."""
    t = Terms()
    return Formula(r"B_{\mathrm{bis}}", t(r"B_{\mathrm{bus}}", est.design.topology.bandwidth, "bit/s",
                                          "[toy_bus] bandwidth") / 2, t.terms)


def _figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    return {"bus rate": (est.design.topology.bandwidth / 1e9, "Gbps"), "GPUs on the bus": (float(est.gpus), "")}


TOY = FabricKind(name="toy-bus", section="toy_bus", section_type=ToyBusSection, evaluator=_evaluate,
                 sharer=lambda est, collectives, arrays: proportional([np.asarray(1.0) for _ in collectives]),
                 pricer=_price, server=_serve,
                 formulas={"per_gpu_bandwidth_gbps": _bandwidth_formula, "bisection_gbps": _bisection_formula,
                           "degree": every_peer_degree},
                 figures=_figures)

DESIGN = """
[fabric]
kind = "toy-bus"
gpus = 16

[toy_bus]
bandwidth = "400 Gbit/s"
"""
