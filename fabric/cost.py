"""Cost and power of a cluster design: the fabric's bill of materials plus GPUs and hosts, priced from the
component catalog. For silicon-photonic fabrics the optical I/O power comes from the link model (laser
wall-plug, modulator/driver, receiver, tuning at the delivered capacity), not from the catalog's nameplate
figure, so it is never counted twice.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from core.errors import InputError
from core.records import record
from fabric.bom import BomLine, BomResult, Range, roll_up, share
from fabric.catalog import Catalog
from fabric.cluster_design import ClusterDesign
from fabric.estimate import FabricEstimate
from fabric.optical_io import laser_lines_per_gpu
from photonics.link_design import LinkDesign

CHIPLET = "sip.optical_io_chiplet"
LASER = "laser.comb_line"


def link_priced_catalog(catalog: Catalog, io: LinkDesign, link) -> Catalog:
    """The catalog with the chiplet's power (modulator/driver + receiver + tuning over the chiplets) and one laser
    line's (the laser wall-plug over the lines) from the link model: `link`'s `power_w` by part (a
    `photonics.link_records.LinkEstimate`, or `FabricInputs` over a grid), `io` the GPU's optical I/O (a design, or its
    sections with arrays in place)."""
    power_w, capacity = link.power_w, link.capacity_bps
    chiplet_w = (power_w["modulator"] + power_w["receiver"] + power_w["tuning"]) / io.package.chiplets
    laser_w = power_w["laser"] / laser_lines_per_gpu(io)
    at = f" at {capacity / 1e9:.0f} Gbit/s per direction" if np.ndim(capacity) == 0 else ""
    changes = {}
    for key, watts, what in ((CHIPLET, chiplet_w, "modulator/driver + receiver + tuning"),
                             (LASER, laser_w, "laser wall-plug")):
        if key in catalog:
            comp = catalog.get(key)
            changes[key] = dataclasses.replace(comp, power_w=(watts, watts, watts),
                                               source=f"power: link model ({what}{at}); price: {comp.source}")
    return dataclasses.replace(catalog, components={**catalog.components, **changes})


def cluster_bom(design: ClusterDesign, estimate: FabricEstimate, catalog: Catalog) -> BomResult:
    """GPUs, hosts and the fabric's own lines, rolled up for the whole cluster."""
    return fabric_bill(design, estimate.bom, catalog, estimate.link, design.link)


def fabric_bill(design: ClusterDesign, lines, catalog: Catalog, link, io) -> BomResult:
    """The fabric's `lines` with the servers' (`server_bom`), rolled up for the whole cluster, the optical I/O's power
    from `link` (None: an electrical fabric's catalog figures; see `link_priced_catalog`)."""
    priced = catalog if link is None else link_priced_catalog(catalog, io, link)
    catalog.get(design.fabric.gpu)  # a GPU the catalog lacks is named as such before its server is sought
    return roll_up([*server_bom(design), *lines], priced, design.fabric.gpus)


def server_bom(design: ClusterDesign) -> list[BomLine]:
    """The lines outside the fabric: one GPU and its share of a host per GPU."""
    fab = design.fabric
    lines = [BomLine(key=fab.gpu, count=1, scope="per_gpu", network=False)]
    if fab.server != "none":
        lines.append(BomLine(key=fab.server, count=1, scope="per_gpu", network=False))
    return lines


SCALE_UP = ("nvswitch.",)  # interconnect inside the server


def scale_out_cost_share(bom: BomResult) -> float:
    """Share of the cluster's typical cost in interconnect outside the servers (NICs, switches, optics, cables,
    fiber; for SiP fabrics all of it): the part Epoch AI's ≈ 19 % 'interconnect share' of GPU clusters counts,
    with the NVSwitch inside the server left in the server's cost."""
    part = sum(line.cost_usd.typical for line in bom.lines if line.network and not line.key.startswith(SCALE_UP))
    return share(part, bom.cost_per_cluster_usd.typical)


@record(kw_only=True)
class CostSummary:
    """What a cluster costs and draws, per GPU and in total (typical, with the all-low … all-high range), its shares,
    the facility power at the design's PUE, and the all-reduce bus bandwidth it buys (nccl-tests convention, over
    the job's ranks at the design's message size)."""

    gpus: int
    gpu: str  # catalog entry of the GPU
    bom: BomResult
    cost_per_gpu_usd: Range
    network_cost_per_gpu_usd: Range
    power_per_gpu_w: Range
    network_power_per_gpu_w: Range
    cluster_cost_usd: Range
    cluster_power_w: Range  # nameplate
    facility_power_w: float  # typical nameplate × PUE
    network_cost_share: float
    scale_out_cost_share: float
    network_power_share: float
    gpu_cost_share: float
    all_reduce_busbw_bps: float
    optics_power_per_gpu_w: Range | None = None  # B1: modules or engines with their lasers (fabric.catalog)
    optics_cost_per_gpu_usd: Range | None = None
    port_power_per_gpu_w: Range | None = None  # B2: B1 plus the host SerDes lanes that drive the optics
    rates: object = None  # fabric.reliability.Rates of the catalog it was priced from (None: the shipped file's)


def optics_lines(bom: BomResult) -> tuple:
    """The lines of a bill that are optics: those whose catalog entry states a power boundary."""
    return tuple(line for line in bom.lines if line.boundary)


def optics_power(bom: BomResult) -> Range:
    """The bill's optics power at one boundary, B1 (fabrics-2026.md K1): the module or engine of every port with its
    laser. An entry given as a whole port (B2) is converted where it declares its host SerDes part; any other figure
    that is not at B1 is refused, naming the entries that disagree (adding a module-only watt to a whole-port watt
    says nothing, and a whole port's host SerDes are already in the switch's or NIC's power)."""
    from core.errors import InputError
    from fabric.catalog import BOUNDARIES

    total, apart = Range.zero(), {}
    for line in optics_lines(bom):
        if line.boundary == "optics" or (line.boundary == "port" and line.host_serdes_w is not None):
            total = total + line.power_w  # a whole port's with its host SerDes taken out (fabric.bom.roll_up)
        else:
            apart[line.key] = line.boundary
    if apart:
        at_b1 = [line.key for line in optics_lines(bom) if line.key not in apart]
        named = "; ".join(f"{key} at {BOUNDARIES[b].split(':')[0]}" for key, b in apart.items())
        raise InputError(f"optics power is added at one boundary, B1 optics per port, but {named}"
                         + (f" (and {', '.join(at_b1)} at B1)" if at_b1 else "")
                         + ": give the entry's power at B1 (catalog boundary = \"optics\"), or its whole-port "
                           "figure with host_serdes_power, the part the switch's or NIC's own power already counts")
    return total


def cost_summary(design: ClusterDesign, estimate: FabricEstimate, catalog: Catalog) -> CostSummary:
    """The cluster's bill of materials priced from `catalog`, with its per-GPU figures and shares."""
    from fabric.collectives import busbw_bps
    from fabric.evaluate import job_collective

    check_switch_radix(design, catalog)
    bom = cluster_bom(design, estimate, catalog)
    size = design.fabric.message_size
    t = job_collective(estimate, "all_reduce", size).seconds
    busbw = float(busbw_bps("all_reduce", size, estimate.job_gpus, t)) if 0 < t < float("inf") else 0.0
    return dataclasses.replace(summarize(design, bom, busbw, host_serdes_w(estimate)), rates=catalog.rates)


def check_switch_radix(design: ClusterDesign, catalog: Catalog) -> None:
    """A kind's section that names a `switch` and its `radix`: the radix within the ports the catalog entry states
    (an optical circuit switch's `ports`); InputError otherwise."""
    section = design.topology
    switch, radix = getattr(section, "switch", None), getattr(section, "radix", None)
    if not isinstance(switch, str) or radix is None or switch not in catalog:
        return
    ports = catalog.get(switch).ports
    if ports is not None and radix > ports:
        raise InputError(f"[{section.section_name}] radix = {radix}: {switch} has {ports} ports (its catalog entry's "
                         "ports); name a larger switch or fewer ports")


def host_serdes_w(estimate: FabricEstimate) -> float:
    """The host SerDes (or die-to-die) power that drives the fabric's optics, whole cluster: a kind with an optical
    link, its electrical side per bit at its capacity on every GPU; any other, what its estimate says."""
    link = estimate.link
    if link is not None:
        return float(estimate.gpus * link.capacity_bps * sum(link.energy.electrical_j_per_bit.values()))
    return estimate.host_serdes_w


def summarize(design: ClusterDesign, bom: BomResult, busbw_bps: float, serdes_w=None) -> CostSummary:
    """The per-GPU figures and shares of a rolled-up bill (numbers, or arrays over a grid of design points);
    `serdes_w` the host SerDes driving the optics (the whole-port figure is left out without it)."""
    from fabric.bom import facility_power_w

    g = bom.gpus
    optics = optics_power(bom)
    optics_cost = sum((line.cost_usd for line in optics_lines(bom)), Range.zero())
    gpu_cost = sum(line.cost_usd.typical for line in bom.lines if line.key == design.fabric.gpu)
    return CostSummary(
        gpus=g, gpu=design.fabric.gpu, bom=bom, cost_per_gpu_usd=bom.cost_per_gpu_usd,
        network_cost_per_gpu_usd=bom.network_cost_usd.scaled(1 / g), power_per_gpu_w=bom.power_per_gpu_w,
        network_power_per_gpu_w=bom.network_power_w.scaled(1 / g), cluster_cost_usd=bom.cost_per_cluster_usd,
        cluster_power_w=bom.power_per_cluster_w,
        facility_power_w=facility_power_w(bom.power_per_cluster_w.typical, pue=design.fabric.pue),
        network_cost_share=bom.network_cost_share.typical, scale_out_cost_share=scale_out_cost_share(bom),
        network_power_share=bom.network_power_share.typical,
        gpu_cost_share=share(gpu_cost, bom.cost_per_cluster_usd.typical), all_reduce_busbw_bps=busbw_bps,
        optics_power_per_gpu_w=optics.scaled(1 / g), optics_cost_per_gpu_usd=optics_cost.scaled(1 / g),
        port_power_per_gpu_w=None if serdes_w is None else Range(*(w + serdes_w for w in optics.as_tuple())).scaled(
            1 / g))
