"""SiP-OCS: each GPU splits its optical I/O into one port per optical circuit switch (degree = switches).

The switch's insertion loss (and the patch connectors at its ports) is fed back into the link budget: a
design can fail here. When the cluster has more GPUs than a switch has ports, the design must say how it copes:
'single' is then infeasible, 'partitioned' serves independent pods of ≤ radix GPUs (no circuit between pods),
'clos' builds a 3-stage folded Clos per switch plane (3 switch passes per circuit).

References: SiP-ML simulator (MLNetwork/rostam) [sim]: per-port rate N_λ·R_λ/N_ocs, 20 OCSes, single-shot
configuration, multi-shot every 5 × reconfiguration delay (useful 5/6). Folded-Clos counts: C. Clos, Bell
Syst. Tech. J. 1953; leaves of r/2 down- and r/2 up-ports.
"""

from __future__ import annotations

import dataclasses
import math

from fabric.design import ClusterDesign, job_size
from fabric.bom import BomLine
from fabric.estimate import FabricEstimate, useful_time_fraction
from fabric.optical_io import optical_io_bom
from core.errors import InputError
from photonics.link import Violation, evaluate

MULTI_SHOT_PERIOD = 5.0  # reconfigure every 5 × the reconfiguration time [sim]


def switch_passes(topology: str) -> int:
    """Switches one circuit traverses: 1 in a single layer or a pod, 3 in a folded Clos."""
    return 3 if topology == "clos" else 1


def clos_switches_per_plane(gpus: int, radix: int) -> tuple[int, int]:
    """(leaf, spine) switches of a 2-level folded Clos per plane: leaves with r/2 ports down and r/2 up,
    spines connecting every leaf uplink."""
    half = radix // 2
    leaves = math.ceil(gpus / half)
    spines = math.ceil(leaves * half / radix)
    return leaves, spines


def ocs_link(design: ClusterDesign):
    """The GPU-to-GPU link through the fabric: the design's link plus the switch passes and their connectors."""
    d, ocs = design.link, design.sip_ocs
    passes = switch_passes(ocs.topology)
    loss = dataclasses.replace(d.loss, switch_ports=d.loss.switch_ports + passes)
    return dataclasses.replace(d, loss=loss)


def useful_fraction(shots: str) -> float:
    """Single-shot: configured once per job (no reconfiguration during training); multi-shot: reconfigured every
    5 × the delay, so 5/6 of the time carries traffic [sim]."""
    return 1.0 if shots == "single" else useful_time_fraction(MULTI_SHOT_PERIOD, 1.0)


def evaluate_ocs(design: ClusterDesign) -> FabricEstimate:
    fab, ocs, lk = design.fabric, design.sip_ocs, design.link.link
    if lk.fibers_per_direction % ocs.switches:
        raise InputError(f"[sip_ocs] switches = {ocs.switches}: each GPU needs whole fibers per OCS port, so [link] "
                         f"fibers_per_direction must be a multiple of {ocs.switches}; it is {lk.fibers_per_direction} "
                         f"(e.g. link.fibers_per_direction={ocs.switches} with link.wavelengths_per_fiber="
                         f"{max(1, lk.wavelengths_per_fiber * lk.fibers_per_direction // ocs.switches)}, or start "
                         "from the built-in sip-ocs)")
    fibers_per_port = lk.fibers_per_direction // ocs.switches
    est = evaluate(ocs_link(design))
    violations = list(est.violations)
    passes = switch_passes(ocs.topology)
    pods, pod_size = 1, fab.gpus
    if ocs.topology == "single":
        ocs_count = ocs.switches
        if fab.gpus > ocs.radix:
            violations.append(Violation("ocs_radix", f"{fab.gpus} GPUs need {fab.gpus}-port switches for one layer; "
                                        f"{ocs.switch} has {ocs.radix} ports (use [sip_ocs] topology = "
                                        "'partitioned' or 'clos')"))
    elif ocs.topology == "partitioned":
        pods = math.ceil(fab.gpus / ocs.radix)
        pod_size = math.ceil(fab.gpus / pods)
        ocs_count = ocs.switches * pods
        if job_size(fab) > pod_size:
            violations.append(Violation("pod_size", f"a {job_size(fab)}-GPU job spans {pods} independent pods of "
                                        f"≤ {pod_size} GPUs with no circuit between them (set [fabric] job_gpus to "
                                        "the largest job, or use topology = 'clos')"))
    else:
        leaves, spines = clos_switches_per_plane(fab.gpus, ocs.radix)
        ocs_count = ocs.switches * (leaves + spines)
    capacity = est.capacity_bps
    per_port = capacity / ocs.switches
    figures = {"switch passes per circuit": (float(passes), ""),
               "fibers per port": (float(fibers_per_port), ""),
               "per-port bandwidth": (per_port / 1e9, "Gbps"),
               "OCS count": (float(ocs_count), ""),
               "pods": (float(pods), ""),
               "GPUs per pod": (float(pod_size), ""),
               "margin through the switch": (est.margin_db, "dB"),
               "reconfiguration time": (ocs.reconfiguration_time * 1e3, "ms")}
    # bisection: a single layer or a rearrangeably non-blocking Clos carries half the GPUs' capacity across any cut;
    # independent pods have no circuit between them, so a cut between pods carries nothing
    bisection = 0.0 if pods > 1 else fab.gpus / 2 * capacity
    ports_per_ocs = ocs.radix
    # each transmit fiber runs GPU → switch and each receive fiber switch → GPU; `fiber_length` is the whole path
    bom = [*optical_io_bom(design.link),
           BomLine(key=ocs.switch, count=ocs_count * ocs.radix, scope="per_cluster", network=True),  # per port
           BomLine(key="fiber.smf_per_m", count=lk.fibers_per_direction * design.link.loss.fiber_length,
                   scope="per_gpu", network=True),
           BomLine(key="cable.fiber_patch", count=2 * lk.fibers_per_direction * passes, scope="per_gpu", network=True)]
    ls = design.link.loss
    notes = [f"{ocs_count} switches of {ports_per_ocs} ports, {passes} pass(es) of {ls.switch_loss:g} dB + "
             f"{ls.switch_connectors} × {ls.connector_loss:g} dB connectors each"]
    if pods > 1:
        notes.append(f"{pods} independent pods of ≤ {pod_size} GPUs: jobs must fit in a pod")
    notes.append(f"{ocs.switches} OCS ports per GPU (TPU v4 has 48 OCSes for 4096 chips); OCS ports dominate the "
                 "network cost, beyond TPU v4's < 5 % of system cost")
    return FabricEstimate(
        kind="sip-ocs", gpus=fab.gpus, per_gpu_bandwidth_bps=capacity, useful_fraction=useful_fraction(ocs.shots),
        degree=ocs.switches, bisection_bps=bisection, alpha_s=fab.latency, link=est, figures=figures,
        bom=tuple(bom), violations=tuple(violations), notes=tuple(notes))
