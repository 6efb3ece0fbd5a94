"""Evaluate a cluster design: dispatch on the fabric kind, and the optical link each kind puts in the budget."""

from __future__ import annotations

from fabric.design import ClusterDesign
from fabric.electrical import evaluate_electrical, evaluate_ideal
from fabric.estimate import FabricEstimate
from fabric.sip_ocs import evaluate_ocs, ocs_link
from fabric.sip_ring import evaluate_ring
from photonics.design import LinkDesign

EVALUATORS = {"sip-ring": evaluate_ring, "sip-ocs": evaluate_ocs, "electrical": evaluate_electrical,
              "ideal": evaluate_ideal}


def evaluate_fabric(design: ClusterDesign) -> FabricEstimate:
    """The fabric's bandwidth, degree, bisection, reach, bill of materials and violations."""
    return EVALUATORS[design.fabric.kind](design)


def effective_link(design: ClusterDesign) -> LinkDesign | None:
    """The GPU-to-GPU optical link of the design's fabric (with its switch passes), or None for an electrical one."""
    kind = design.fabric.kind
    if kind == "sip-ring":
        return design.link
    if kind == "sip-ocs":
        return ocs_link(design)
    return None
