"""Formulas several fabric kinds share (`fabric.kind.FabricKind.formulas`): what a packet switch gives every GPU.
Each takes the kind's `fabric.estimate.FabricEstimate` and returns a `core.formulas.Formula` whose terms are its
numbers."""

from __future__ import annotations

from core.formulas import Formula, Terms


def packet_switched_useful(est) -> Formula:
    """u = 1: a packet-switched fabric is never idle for a reconfiguration."""
    t = Terms()
    return Formula("u", t(r"\mathbb{1}", 1.0, "", "a packet-switched fabric always carries traffic"), t.terms)


def every_peer_degree(est) -> Formula:
    """D = G − 1: a switch reaches every other GPU of the cluster at once."""
    t = Terms()
    return Formula("D", t("G", est.gpus, "", "GPUs") - 1, t.terms)


def switch_bisection(est, rate_bps: float, oversubscription: float) -> Formula:
    """B_bis = G/2 · B / o: half the GPUs send at their rate B across the cut, divided by the oversubscription o of
    the tiers above them (o = 1: non-blocking)."""
    t = Terms()
    return Formula(r"B_{\mathrm{bis}}", t("G", est.gpus, "", "GPUs") / 2 * t("B", rate_bps, "bit/s", "per-GPU rate")
                   / t("o", oversubscription, "", "oversubscription"), t.terms)
