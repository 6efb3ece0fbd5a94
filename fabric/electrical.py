"""Electrical baselines: DGX-style servers under a fat-tree of k-port switches, and an ideal switch.

A server holds g GPUs on an NVSwitch at B_n per GPU; each GPU has one NIC of B_e into a fat-tree
(fabric.fattree) of k-port switches, with the leaf oversubscription given. The ideal switch is non-blocking at
B per GPU with no cost model (a reference point, as in SiP-ML's experiments [sim]).
"""

from __future__ import annotations

import math

from fabric.design import ClusterDesign
from fabric.bom import BomLine
from fabric.estimate import FabricEstimate
from fabric.fattree import fat_tree, min_fat_tree_tiers
from core.errors import InputError


def evaluate_electrical(design: ClusterDesign) -> FabricEstimate:
    fab, el = design.fabric, design.electrical
    try:
        tiers = min_fat_tree_tiers(fab.gpus, radix=el.switch_radix, oversubscription=el.oversubscription)
        tree = fat_tree(fab.gpus, radix=el.switch_radix, tiers=tiers, oversubscription=el.oversubscription)
    except InputError as exc:  # the design's keys, named as a design file names them
        raise InputError(f"[electrical] switch_radix = {el.switch_radix}, oversubscription = "
                         f"{el.oversubscription:g} for [fabric] gpus = {fab.gpus}: {exc}") from None
    servers = math.ceil(fab.gpus / el.gpus_per_server)
    bom = (BomLine(key=el.nvswitch, count=1, scope="per_gpu", network=True),
           BomLine(key=el.nic, count=1, scope="per_gpu", network=True),
           # the NIC end of every endpoint link, and every switch port in use (twin-port optics serve two)
           BomLine(key=el.transceiver, count=fab.gpus, scope="per_cluster", network=True),
           BomLine(key=el.switch_transceiver, count=math.ceil((fab.gpus + 2 * tree.switch_links)
                                                              / el.switch_transceiver_ports),
                   scope="per_cluster", network=True),
           BomLine(key="cable.fiber_patch", count=tree.links, scope="per_cluster", network=True),
           BomLine(key="fiber.smf_per_m", count=tree.links * el.link_length, scope="per_cluster", network=True),
           BomLine(key=el.switch, count=tree.switches, scope="per_cluster", network=True))
    figures = {"GPUs per server": (float(el.gpus_per_server), ""), "servers": (float(servers), ""),
               "NVLink per GPU": (el.nvlink_bandwidth / 1e9, "Gbps"), "NIC per GPU": (el.nic_bandwidth / 1e9, "Gbps"),
               "fat-tree tiers": (float(tiers), ""), "switches": (float(tree.switches), ""),
               "links": (float(tree.links), ""), "oversubscription": (el.oversubscription, "")}
    return FabricEstimate(
        kind="electrical", gpus=fab.gpus, per_gpu_bandwidth_bps=el.nic_bandwidth, useful_fraction=1.0,
        degree=fab.gpus - 1, bisection_bps=fab.gpus / 2 * el.nic_bandwidth / el.oversubscription,
        alpha_s=fab.latency, figures=figures, bom=bom,
        notes=(f"{tiers}-tier fat-tree of {el.switch_radix}-port switches ({tree.switches} switches) for "
               f"{fab.gpus} NICs",))


def evaluate_ideal(design: ClusterDesign) -> FabricEstimate:
    fab, el = design.fabric, design.electrical
    return FabricEstimate(
        kind="ideal", gpus=fab.gpus, per_gpu_bandwidth_bps=el.ideal_bandwidth, useful_fraction=1.0,
        degree=fab.gpus - 1, bisection_bps=fab.gpus / 2 * el.ideal_bandwidth, alpha_s=fab.latency,
        figures={"per-GPU rate": (el.ideal_bandwidth / 1e9, "Gbps")},
        notes=("ideal non-blocking switch: a reference point, its network is not costed",))
