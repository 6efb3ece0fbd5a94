"""Cost and power of a cluster design: the fabric's bill of materials plus GPUs and hosts, priced from the
component catalog. For silicon-photonic fabrics the optical I/O power comes from the link model (laser
wall-plug, modulator/driver, receiver, tuning at the delivered capacity), not from the catalog's nameplate
figure, so it is never counted twice.
"""

from __future__ import annotations

import dataclasses

from fabric.bom import BomLine, BomResult, roll_up
from fabric.catalog import Catalog
from fabric.design import ClusterDesign
from fabric.estimate import FabricEstimate
from fabric.optical_io import laser_lines_per_gpu

CHIPLET = "sip.optical_io_chiplet"
LASER = "laser.comb_line"


def link_priced_catalog(catalog: Catalog, design: ClusterDesign, estimate: FabricEstimate) -> Catalog:
    """The catalog with the chiplet's and laser's power replaced by the link model's figures for this design."""
    if estimate.link is None:
        return catalog
    link, lk = estimate.link, design.link
    chiplet_w = (link.power_w["modulator"] + link.power_w["receiver"] + link.power_w["tuning"]) / lk.package.chiplets
    laser_w = link.power_w["laser"] / laser_lines_per_gpu(lk)
    changes = {}
    for key, watts, what in ((CHIPLET, chiplet_w, "modulator/driver + receiver + tuning"),
                             (LASER, laser_w, "laser wall-plug")):
        if key in catalog:
            comp = catalog.get(key)
            changes[key] = dataclasses.replace(
                comp, power_w=(watts, watts, watts),
                source=f"power: link model ({what} at {link.capacity_bps / 1e9:.0f} Gbps per direction); "
                       f"price: {comp.source}")
    return dataclasses.replace(catalog, components={**catalog.components, **changes})


def cluster_bom(design: ClusterDesign, estimate: FabricEstimate, catalog: Catalog) -> BomResult:
    """GPUs, hosts and the fabric's own lines, rolled up for the whole cluster."""
    fab = design.fabric
    lines = [BomLine(key=fab.gpu, count=1, scope="per_gpu", network=False)]
    if fab.host != "none":
        lines.append(BomLine(key=fab.host, count=1, scope="per_gpu", network=False))
    lines += estimate.bom
    return roll_up(lines, link_priced_catalog(catalog, design, estimate), fab.gpus)


SCALE_UP = ("nvswitch.",)  # interconnect inside the server


def scale_out_cost_share(bom: BomResult) -> float:
    """Share of the cluster's typical cost in interconnect outside the servers (NICs, switches, optics, cables,
    fiber; for SiP fabrics all of it): the part Epoch AI's ≈ 19 % 'interconnect share' of GPU clusters counts,
    with the NVSwitch inside the server left in the server's cost."""
    part = sum(line.cost_usd.typical for line in bom.lines if line.network and not line.key.startswith(SCALE_UP))
    return part / bom.cost_per_cluster_usd.typical if bom.cost_per_cluster_usd.typical else 0.0
