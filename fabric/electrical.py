"""Electrical baseline: DGX-style servers under a fat-tree of k-port switches.

A server holds g GPUs on an NVSwitch at B_n per GPU per direction; each GPU has one NIC of B_e into a fat-tree
(fabric.fattree) of k-port switches, with the leaf oversubscription given. With ρ rail planes (rail-optimised, as
NVIDIA's DGX SuperPOD compute fabrics are built), NIC k of every server joins plane k mod ρ: ρ fat-trees of N/ρ NICs
each, so a 131 072-GPU cluster of 64-port switches needs 3 tiers per plane (8 planes, 10 240 switches) instead of 4
in one tree (14 336); traffic between rails first crosses NVLink to the GPU on the right rail (NCCL's PXN). Both run at a link-level efficiency
below their raw rate (NVLink packets: ~80 % of the line rate reaches applications; NICs ~94 %).

Collectives (job ranks on consecutive GPUs of consecutive servers, as NCCL's rings are built): a group inside one
server runs on NVLink (a ring, or NVLink SHARP in-switch reduction where the NVSwitch has it); a group with one
member per server runs on the members' own NICs — rail-aligned: member k of every server uses NIC k — and a group
with m members in each of several servers runs NCCL's ring over all its ranks (one ring per NIC, each crossing every
server boundary: a rank's ring runs at min(B_n, m·B_e), the servers' NICs bound it whatever their number), or
NCCL's double binary tree over the servers where NCCL's own time model prefers it — small messages; for large ones
NCCL runs the ring even on 2 servers, where the tree would be faster (fabric-photonics-3.md A1, A3). Every step pays the
protocol's per-step latency of its path (NVLink, or network plus the switch hops of the fat-tree). Oversubscription
divides only traffic that leaves a leaf switch: ring neighbours sit in neighbouring servers and rarely do; tree
and all-to-all traffic does. The fabric is packet-switched: concurrent collectives share a GPU's NVLink and NIC
in proportion to the bytes they put on each.

As built in 2026 (fabrics-2026.md §B–D): pods of `pod_gpus` NICs per plane at full bisection joined at
1:`pod_oversubscription` (fabric.fattree.pod_fat_tree; a group spanning pods runs at m′·B_e/o per rank, m′ of its
members in one pod), leaves of `leaf_endpoints`, `planes` NIC ports per GPU each on its own plane, and the optics of
every link a choice: retimed (DSP) or linear-drive (LPO) pluggables, or engines co-packaged with the switch (CPO) fed
by external laser modules. Each choice leaves the host SerDes a different electrical channel to close
(photonics.host_serdes), which decides whether the link closes and what the whole-port power boundary adds.

References: NCCL src/graph/tuning.cc (per-step latencies, base latency; tree latency 2·((ranks per node − 1)·α_intra
+ log2(nodes)·α_inter)) [verbatim in workloads.md, workloads-2.md]; NVIDIA/nccl issue 1054 and nccl-tests issue
149 (S. Jeaugey: application-level NVLink bandwidth ≈ 80 % of the line rate) [verbatim]; NVIDIA/nccl issue 1442
(NVLink SHARP all-reduce ≈ 30 % above the ring's bus bandwidth on 8 × H100) [verbatim].
"""

from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

import numpy as np

from core.errors import InputError
from core.fields import MIN_EFFICIENCY, FieldError, Section, default_of, non_negative, param, positive, when, when_above
from core.records import record
from fabric import collectives as col
from fabric.bom import BomLine
from fabric.cluster_design import (MAX_DB, MAX_FIBER_M, MAX_LATENCY_S, MAX_RATE_BPS, MAX_SERVER_GPUS, MAX_SWITCH_RADIX,
                           MAX_TRANSCEIVER_PORTS, MIN_RATE_BPS, NCCL, NO_NVLS_SWITCHES, ClusterDesign,
                           ServerNvlink, server_nvlink)
from fabric.estimate import FabricEstimate
from fabric.fattree import fat_tree, leaf_ports, min_fat_tree_tiers, pod_fat_tree
from fabric.kind import (BITS_PER_BYTE, CollectiveTime, FabricKind, bytes_sent_per_rank, divides, fastest,
                         pick_index, proportional)
from photonics.host_serdes import HostChannel, SerdesClass, host_channel, trace_loss_db
from photonics.link_records import Violation

_EFFICIENCY_SOURCE = ("NVIDIA/nccl issue 1054 (S. Jeaugey, NCCL maintainer): 'the app-level bandwidth is 80 % of "
                      "the peak bandwidth' for NVLink [verbatim]")


@record(kw_only=True)
class ElectricalSection(Section):
    """The `[electrical]` section: the NVLink/NVSwitch server, the scale-out network of NICs, switches and optics,
    and NCCL's protocols and latencies over them."""

    section_name: ClassVar[str] = "electrical"

    gpus_per_server: int = param(8, "1", "GPUs per server on the NVSwitch (g)", "DGX A100/H100 [verbatim]",
                                 lo=1, integer=True, hi=MAX_SERVER_GPUS)
    nvlink_bandwidth: float = non_negative("0 Gbit/s", "bit/s", "NVLink bandwidth per GPU per direction (B_n, line "
                                           "rate; at least 1 Mbit/s, or \"0 Gbit/s\": the NVLink of the server "
                                           "[fabric] host names, else of the GPU's own — 1200 Gbit/s in a DGX-1, "
                                           "2400 in a DGX A100, 3600 in a DGX H100, 7200 in a DGX B200 or GB200 "
                                           "NVL72; none where a server holds one GPU)", "fabric.cluster_design."
                                           "SERVER_NVLINK: NVIDIA's figures per GPU, both directions, halved "
                                           "[inferred]", hi=MAX_RATE_BPS)
    nic_bandwidth: float = positive("200 Gbit/s", "bit/s", "scale-out NIC bandwidth per GPU (B_e, line rate)",
                                    "DGX A100: one ConnectX-6 HDR 200 Gb/s per GPU [verbatim]", lo=MIN_RATE_BPS,
                                    hi=MAX_RATE_BPS)
    nvlink_efficiency: float = param(0.8, "1", "share of the NVLink line rate a collective reaches", _EFFICIENCY_SOURCE,
                                     lo=MIN_EFFICIENCY, hi=1.0)
    nic_efficiency: float = param(0.94, "1", "share of the NIC line rate a collective reaches", "nccl-tests issues: "
                                  "46–48 GB/s bus bandwidth per NDR 400 Gb/s NIC [verbatim] → 0.94 [inferred]",
                                  lo=MIN_EFFICIENCY, hi=1.0)
    nvlink_latency: float = non_negative("3.4 us", "s", "per-step latency of a collective over NVLink",
                                         f"{NCCL} (~v2.7): Ring/Simple over NVLink 3.4 µs [verbatim]", hi=MAX_LATENCY_S)
    network_latency: float = non_negative("9.6 us", "s", "per-step latency of a collective over the network (NIC, "
                                          "protocol; the switch hops are added)", f"{NCCL} (~v2.7): Ring/Simple over "
                                          "the network 9.6 µs [verbatim]; v2.30.7 uses 14 µs", hi=MAX_LATENCY_S)
    protocols: str = param("nccl", "choice", "the protocols NCCL's rings and tree may run: 'nccl' LL, LL128, "
                           "Simple, each collective the fastest (LL: half the bandwidth for the lowest per-step "
                           "latency, LL128: 0.92 of it; fabric-photonics-3.md F1, F3); 'simple' Simple alone",
                           f"{NCCL} v2.30.7: the "
                           "tuner picks the fastest (algorithm, protocol) by its time model [verbatim]",
                           choices=("nccl", "simple"))
    nvlink_latency_ll: float = non_negative("0.6 us", "s", "per-step latency of NCCL's LL protocol over NVLink (ring)",
                                            f"{NCCL} v2.30.7: Ring/LL over NVLink 0.6 µs [verbatim]",
                                            hi=MAX_LATENCY_S, applies_when=when("electrical", "protocols", "nccl"))
    nvlink_latency_ll128: float = non_negative("1.9 us", "s", "per-step latency of NCCL's LL128 protocol over NVLink "
                                               "(ring)", f"{NCCL} v2.30.7: Ring/LL128 over NVLink 1.9 µs [verbatim]",
                                               hi=MAX_LATENCY_S, applies_when=when("electrical", "protocols", "nccl"))
    network_latency_ll: float = non_negative("2.7 us", "s", "per-step latency of NCCL's LL protocol over the network "
                                             "(ring; the switch hops are added)", f"{NCCL} v2.30.7: Ring/LL over the "
                                             "network 2.7 µs [verbatim]", hi=MAX_LATENCY_S,
                                             applies_when=when("electrical", "protocols", "nccl"))
    network_latency_ll128: float = non_negative("4 us", "s", "per-step latency of NCCL's LL128 protocol over the "
                                                "network (ring; the switch hops are added)", f"{NCCL} v2.30.7: "
                                                "Ring/LL128 over the network 4.0 µs [verbatim]", hi=MAX_LATENCY_S,
                                                applies_when=when("electrical", "protocols", "nccl"))
    network_tree_latency_ll: float = non_negative("5 us", "s", "per-step latency of NCCL's tree under LL over the "
                                                  "network (the switch hops are added; its NVLink steps take "
                                                  "nvlink_latency_ll)", f"{NCCL} v2.30.7: Tree/LL over the network "
                                                  "5.0 µs [verbatim]", hi=MAX_LATENCY_S,
                                                  applies_when=when("electrical", "protocols", "nccl"))
    network_tree_latency_ll128: float = non_negative("8.5 us", "s", "per-step latency of NCCL's tree under LL128 over "
                                                     "the network (its NVLink steps take nvlink_latency_ll128)",
                                                     f"{NCCL} v2.30.7: Tree/LL128 over the network 8.5 µs "
                                                     "[verbatim]; over NVLink 1.25 µs, here the ring's 1.9",
                                                     hi=MAX_LATENCY_S,
                                                     applies_when=when("electrical", "protocols", "nccl"))
    ll_max_nvlink_bandwidth: float = positive("87.7 GB/s", "bit/s", "the most bus bandwidth NCCL's LL protocol reaches "
                                              "inside one server", f"{NCCL} v2.30.7 llMaxBws, one node: Volta 39, "
                                              "Ampere 87.7, Hopper 141, Blackwell 282 GB/s [verbatim]",
                                              lo=MIN_RATE_BPS, hi=MAX_RATE_BPS,
                                              applies_when=when("electrical", "protocols", "nccl"))
    ll_max_network_bandwidth: float = positive("20.4 GB/s", "bit/s", "the most bus bandwidth NCCL's LL protocol "
                                               "reaches across servers", f"{NCCL} v2.30.7 llMaxBws, multi-node by "
                                               "host CPU: Intel 39.0 (2 nodes) / 20.4 (more), AMD 22.5 / 19.0 GB/s "
                                               "[verbatim]; more than 2 nodes on Intel", lo=MIN_RATE_BPS,
                                               hi=MAX_RATE_BPS, applies_when=when("electrical", "protocols", "nccl"))
    switch_hop_latency: float = non_negative("0.3 us", "s", "latency of one switch hop; a step crosses up to "
                                             "2·tiers − 1 of them", "NVIDIA Quantum-2 class, 0.15–0.33 µs per hop "
                                             "[restated, low confidence]", hi=MAX_LATENCY_S)
    in_network_reduction: str = param("none", "choice", "'nvls': the NVSwitch reduces in the switch (NVLink SHARP) "
                                      "for all-reduce inside a server (where its NVSwitch and GPU can: none before "
                                      "Hopper's)", "NVLink SHARP from NVSwitch gen 3 (H100) [restated]; NCCL's NVLS "
                                      "efficiency 0 before Hopper (fabric-photonics-3.md F4) [verbatim]",
                                      choices=("none", "nvls"))
    nvls_speedup: float = param(1.3, "1", "NVLink SHARP all-reduce bus bandwidth over the ring's (never beyond "
                                "the in-switch floor: each GPU sends its buffer once and receives the result once)",
                                "NVIDIA/nccl issue 1442 (S. Jeaugey): '30 % improvement using NVLink SHARP' on "
                                "8 × H100 [verbatim]", lo=1.0, hi=4.0)
    nvls_latency: float = non_negative("25 us", "s", "latency of an NVLink SHARP all-reduce",
                                       f"{NCCL} v2.30.7: NVLS/Simple over NVLink 25 µs [verbatim]", hi=MAX_LATENCY_S)
    nic: str = param("nic.connectx6_hdr_200g", "text", "catalog entry of the NIC", "MLPerf v1.0 [verbatim]")
    transceiver: str = param("transceiver.hdr_200g_qsfp56", "text", "catalog entry of the NIC-end transceiver",
                             "[assumed] HDR optics")
    switch_transceiver: str = param("transceiver.hdr_200g_qsfp56", "text", "catalog entry of a switch-port "
                                    "transceiver", "[assumed] HDR optics")
    switch_transceiver_ports: int = param(1, "1", "switch ports one switch-side transceiver serves (2: twin-port "
                                          "OSFP)", "[assumed] one", lo=1, integer=True, hi=MAX_TRANSCEIVER_PORTS)
    switch: str = param("switch.ib_hdr_40p", "text", "catalog entry of the fat-tree switch", "[assumed] HDR "
                        "40-port class (QM8700)")
    switch_radix: int = param(40, "1", "ports per fat-tree switch (k)", "QM8700, 40 × 200G [verbatim]", lo=2,
                              integer=True, hi=MAX_SWITCH_RADIX)
    switch_port_rate: float = positive("200 Gbit/s", "bit/s", "line rate of one switch port: a NIC port "
                                       "(nic_bandwidth / planes) needs one at least as fast (the fat-tree counts "
                                       "ports, switch_radix of them a switch)", "QM8700, 40 × 200G [verbatim]",
                                       lo=1e9, hi=1e14)
    rails: int = param(1, "1", "rail planes (ρ): NIC k of every server joins fat-tree plane k mod ρ (1: one "
                       "fat-tree for every NIC); must divide the GPUs per server", "[assumed] one fat-tree, as SiP-ML's "
                       "fat-tree baselines; DGX SuperPOD reference architectures: 8 rails (NVIDIA RA, "
                       "fabric-photonics-3.md F16) [restated]", lo=1, integer=True, hi=MAX_SERVER_GPUS)
    tiers: int = param(0, "1", "fat-tree tiers per plane (0: the fewest that hold the plane's NICs)",
                       "[assumed] the fewest", lo=0, integer=True, hi=8)
    link_length: float = non_negative("15 m", "m", "average fiber length of a fat-tree link (one patch cable each)",
                                      "[assumed] within a row of racks", hi=MAX_FIBER_M)
    oversubscription: float = param(1.0, "1", "fat-tree oversubscription (down/up at the leaves)",
                                    "[assumed] non-blocking", lo=1.0, hi=1000.0)
    nvswitch: str = param("server", "text", "catalog entry of the NVSwitch share per GPU ('none' for servers "
                          "without one; 'server': the switch of the server whose NVLink nvlink_bandwidth = \"0 "
                          "Gbit/s\" takes, none where a server holds one GPU)", "fabric.cluster_design.SERVER_NVLINK",
                          choices=("none", "server"))
    planes: int = param(1, "1", "ports per NIC, each in its own switch plane at nic_bandwidth / planes (2: "
                        "dual-plane, each GPU on two ToRs; switch_radix counts ports at that rate)", "Alibaba HPN: 2 × 200 Gb/s per NIC, port 0 to plane 0 "
                        "and port 1 to plane 1 (fabrics-2026.md K17) [restated]", lo=1, integer=True, hi=16)
    leaf_endpoints: int = param(0, "1", "NIC ports per leaf switch (0: as many as the radix and the leaf "
                                "oversubscription allow)", "Llama 3: 16 GPUs on one rack ToR (fabrics-2026.md K16) "
                                "[verbatim]", lo=0, integer=True, hi=MAX_SWITCH_RADIX)
    pod_gpus: int = param(0, "1", "NIC ports per pod of each plane: a block of the fat-tree joined to the other "
                          "pods at pod_oversubscription (0: no pods, one tree per plane)", "Llama 3: pods of 3,072 "
                          "GPUs at full bisection (fabrics-2026.md K16) [verbatim]", lo=0, integer=True, hi=1 << 20)
    pod_oversubscription: float = param(1.0, "1", "oversubscription above the pods (down : up at a pod's top tier)",
                                        "Llama 3: 1:7 between pods (fabrics-2026.md K16) [verbatim]", lo=1.0,
                                        hi=1000.0, applies_when=when_above("electrical", "pod_gpus", 0))
    optics: str = param("dsp", "choice", "the optics of every switched link: 'dsp' pluggables with a DSP retimer at "
                        "both ends; 'lpo' linear-drive pluggables at both ends (no retimer: the host SerDes close both "
                        "ends' traces); 'cpo' engines co-packaged with the switch ASIC (switch_transceiver a cpo. "
                        "entry, with laser_module), the NIC end a pluggable (transceiver)",
                        "fabrics-2026.md K3–K15 [restated]", choices=("dsp", "lpo", "cpo"))
    lane_rate: float = positive("100 Gbit/s", "bit/s", "PAM4 lane rate between the ASICs and their optics",
                                "800G DR8 modules 8 × 100G, 1.6T modules and CPO engines 200G lanes (fabrics-2026.md "
                                "K3, K13, K14) [restated]", lo=MIN_RATE_BPS, hi=MAX_RATE_BPS)
    pluggable_trace_loss: float = non_negative("22 dB", "dB", "loss of the host trace from an ASIC to a front-panel "
                                               "pluggable at a 200G lane's Nyquist frequency (proportional to the "
                                               "lane rate)", "≈ 22 dB at 200 Gb/s per lane (fabrics-2026.md K7) "
                                               "[restated]", hi=MAX_DB)
    copackaged_trace_loss: float = non_negative("4 dB", "dB", "loss of the host trace from the switch ASIC to a "
                                                "co-packaged engine at a 200G lane's Nyquist frequency",
                                                "≈ 4 dB (fabrics-2026.md K7) [restated]", hi=MAX_DB,
                                                applies_when=when("electrical", "optics", "cpo"))
    serdes_xsr_reach: float = non_negative("12 dB", "dB", "channel loss an XSR (die-to-die) host SerDes closes",
                                           "113G PAM4 XSR: 1–12 dB (photonics-2.md §8 [XSR]) [verbatim]", hi=MAX_DB)
    serdes_xsr_energy: float = non_negative("1.1 pJ/bit", "J/bit", "energy of an XSR host SerDes, Tx + Rx",
                                            "< 1.1 pJ/bit per lane (photonics-2.md §8 [XSR]) [verbatim]", hi=1e-9)
    serdes_mr_reach: float = non_negative("20.8 dB", "dB", "channel loss a medium-reach host SerDes closes",
                                          "112G PAM4 MR: 2.29 pJ/bit at 20.8 dB (photonics-2.md §8 [MR]) [verbatim]",
                                          hi=MAX_DB)
    serdes_mr_energy: float = non_negative("2.29 pJ/bit", "J/bit", "energy of a medium-reach host SerDes, Tx + Rx",
                                           "photonics-2.md §8 [MR] [verbatim]", hi=1e-9)
    serdes_lr_reach: float = non_negative("35 dB", "dB", "channel loss a long-reach host SerDes closes",
                                          "112G long reach ≈ 35 dB (photonics-2.md §8) [restated]; the same taken at "
                                          "224G [assumed]", hi=MAX_DB)
    serdes_lr_energy: float = non_negative("8 pJ/bit", "J/bit", "energy of a long-reach host SerDes, Tx + Rx",
                                           "6–10 pJ/bit (fabrics-2026.md K15) [restated]; the midpoint", hi=1e-9)
    rated_lane_rate: float = non_negative("0 Gbit/s", "bit/s", "lane rate the switches' and NICs' catalog power is "
                                          "rated at, with the retimed pluggables they are sold for (0: lane_rate): "
                                          "their host SerDes counted at the class a front-panel trace takes at that "
                                          "rate (medium reach at 100G, long reach at 200G); a design's channels "
                                          "needing another class add the difference to the network power (the "
                                          "serdes.beyond_rating line)", "[assumed] each box rated with the retimed "
                                          "pluggables it is sold for, at its own lanes' rate (fabrics-2026.md K7, "
                                          "K15)", hi=MAX_RATE_BPS)
    optics_reach: float = positive("500 m", "m", "reach of the switched links' optics", "DR-class single-mode: LPO "
                                   "MSA 100G-DR-LPO and 1.6T DR8, 500 m (fabrics-2026.md K13, K14) [restated]",
                                   hi=MAX_FIBER_M)
    leaf_switch: str = param("same", "text", "catalog entry of the leaf switches ('same': `switch`, every tier alike)",
                             "Llama 3: Minipack2 ToRs under Arista 7800 cluster and aggregation switches "
                             "(fabrics-2026.md K16) [verbatim]", choices=("same",))
    laser_module: str = param("els.cpo_laser_module", "text", "catalog entry of a co-packaged switch's external laser "
                              "module (its port_rate: the ports one module feeds)", "Quantum-X Photonics: 18 modules "
                              "per 144 ports (fabrics-2026.md K8) [restated]",
                              applies_when=when("electrical", "optics", "cpo"))

    def __post_init__(self):
        Section.__post_init__(self)
        if 0 < self.nvlink_bandwidth < MIN_RATE_BPS:
            raise FieldError(self.section_name, f"nvlink_bandwidth = {self.nvlink_bandwidth:g} bit/s: below "
                                                f"{MIN_RATE_BPS / 1e6:g} Mbit/s (0 takes the server's NVLink)")

    def followed(self, design: ClusterDesign) -> dict[str, float]:
        """The settings at 0 that take their value from elsewhere in `design`, with that value: nvlink_bandwidth,
        the server's NVLink (`server_domain`; left out where the server has none to give). What `sipml explain`
        steps around (nothing where `design` is of another kind)."""
        if self.nvlink_bandwidth != 0 or design.topology is not self:
            return {}
        try:
            return {"nvlink_bandwidth": server_domain(design).nvlink_bps}
        except InputError:
            return {}


@record(kw_only=True)
class ElectricalDetails:
    """An electrical fabric's numbers: servers, rails, tiers, switches and links, oversubscription."""
    gpus_per_server: int
    servers: int
    nvlink_bps: float  # line rate per GPU per direction
    nic_bps: float
    rails: int
    tiers: int  # per plane
    switches: int  # all planes
    links: int  # all planes, endpoint links included
    oversubscription: float
    leaf_gpus: int  # GPUs whose NICs (on the leaf's rail) meet under one leaf switch
    network_step_s: float  # per-step latency over the network, switch hops included
    planes: int = 1  # ports per NIC, each in its own plane
    switch_ports: int = 0  # switch ports in use, all planes (each holds one link end's optics)
    pod_gpus: int = 0  # GPUs whose NICs meet inside one pod of every plane (0: no pods)
    pod_oversubscription: float = 1.0
    nic_channel: object = None  # photonics.host_serdes.HostChannel of a NIC port
    switch_channel: object = None  # of a switch port
    leaf_switches: int = 0  # all planes: the switches the NICs plug into
    nvls: bool = False  # the NVSwitch reduces all-reduces in the network (asked, and the switch can)


# NCCL's ring protocols beside Simple (the design's nvlink_latency and network_latency) and the share of the bus
# bandwidth each reaches, NCCL v2.30.7 tuning.cc: Ring LL min(llMaxBw, 0.5·busBw), Ring LL128 0.92·busBw
# (fabric-photonics-3.md F3) [verbatim]. LL128's per-channel cap (20–40 GB/s × channels) is above a rank's rate
# with NCCL's 16+ channels, so left out; so are the protocols' base latencies (LL 6.6, LL128 14.0 against Simple's
# 8.4 µs): every call pays [fabric] launch_latency.
RING_PROTOCOLS = {"LL": 0.5, "LL128": 0.92}
# the tree's, NCCL v2.30.7: Tree LL min(busBw/3.8, llMaxBw), Tree LL128 × 120/128 across nodes (F3) [verbatim]
TREE_PROTOCOLS = {"LL": 1.0 / 3.8, "LL128": 120.0 / 128.0}


# how a schedule's name says its protocol (Simple says nothing), by the index the protocol functions give
PROTOCOL_NAMES = ("", " · LL", " · LL128")


def _fastest_protocol(el: ElectricalSection, det: ElectricalDetails, simple_s, ring, bandwidth_bps, ll_cap_bps):
    """(seconds, protocol: an index of PROTOCOL_NAMES) of an NCCL ring schedule under its fastest protocol:
    `ring(bandwidth, NVLink step, network step)` gives its time, `simple_s` is Simple's at `bandwidth_bps`; LL runs
    at half of it up to `ll_cap_bps`, LL128 at 0.92."""
    if el.protocols == "simple":
        return simple_s, 0
    hops = det.network_step_s - el.network_latency  # the switch hops every protocol's step crosses
    times = [simple_s]
    for name, factor in RING_PROTOCOLS.items():
        nvlink_s = el.nvlink_latency_ll if name == "LL" else el.nvlink_latency_ll128
        network_s = (el.network_latency_ll if name == "LL" else el.network_latency_ll128) + hops
        rate = np.minimum(factor * bandwidth_bps, ll_cap_bps) if name == "LL" else factor * bandwidth_bps
        times.append(ring(rate, nvlink_s, network_s))
    return pick_index(times)


def _nccl_tree(el: ElectricalSection, det: ElectricalDetails, n, servers, m, bn, be, r, rank_bps, ring_s, pod_bps):
    """(seconds, where NCCL runs it, protocol: an index of PROTOCOL_NAMES) of NCCL's double binary tree all-reduce over
    the servers. Each server's NICs carry 2n (n on exactly 2 servers: the tree's 2-node special case, F11), its
    NVLink 2n; the tree reaches 0.92 of the links' rate (NCCL's Tree/Simple refinement, F3), LL and LL128 their share
    of that. NCCL runs the tree, under the protocol its own model (`collectives.nccl_tree_model_s`) finds fastest,
    where that model beats the ring's time (small messages), not where the tree would be fastest."""
    depth = np.ceil(np.log2(np.maximum(servers, 1.0)))
    hops = det.network_step_s - el.network_latency
    nic_bytes = np.where(servers == 2, 1.0, 2.0) * n
    steps = {"": (el.nvlink_latency, det.network_step_s, 1.0)}  # by name, in PROTOCOL_NAMES' order
    if el.protocols == "nccl":
        steps[" · LL"] = (el.nvlink_latency_ll, el.network_tree_latency_ll + hops, TREE_PROTOCOLS["LL"])
        steps[" · LL128"] = (el.nvlink_latency_ll128, el.network_tree_latency_ll128 + hops, TREE_PROTOCOLS["LL128"])
    models, times = [], []
    moved = np.maximum(nic_bytes * BITS_PER_BYTE / np.minimum(m * be / r, pod_bps), 2 * n * BITS_PER_BYTE / bn)
    for name, (a_nv, a_net, share) in steps.items():
        latency = 2 * depth * a_net + 2 * (m - 1) * a_nv
        bus = share * rank_bps if name != " · LL" else np.minimum(share * rank_bps, el.ll_max_network_bandwidth)
        models.append(col.nccl_tree_model_s(n, latency, bus))
        times.append(latency + np.maximum(moved / (col.NCCL_TREE_EFFICIENCY * share),
                                          2 * n * BITS_PER_BYTE / (col.NCCL_TREE_EFFICIENCY * bus)
                                          if name == " · LL" else 0.0))
    model, best = pick_index(models)
    return np.choose(best, np.broadcast_arrays(*times)), model < ring_s, best


def rail_planes(gpus: int, el: ElectricalSection):
    """(NICs per plane, the fat-tree of one plane): ρ rail planes of ⌈N/ρ⌉ NICs, each a fat-tree of the given tiers
    (or the fewest that hold them), or pods of pod_gpus joined above them; each NIC port plane (`planes`) is one
    more such tree."""
    if el.gpus_per_server % el.rails:
        raise InputError(f"[electrical] rails = {el.rails} must divide gpus_per_server = {el.gpus_per_server} (NIC k "
                         "of every server joins plane k mod rails)")
    per_plane = math.ceil(gpus / el.rails)
    if el.pod_gpus and el.pod_gpus < per_plane:
        if el.tiers:
            raise InputError(f"[electrical] tiers = {el.tiers}: with pods (pod_gpus = {el.pod_gpus}) the tiers follow "
                             "from the pods and the radix; leave tiers at 0")
        return per_plane, pod_fat_tree(per_plane, radix=el.switch_radix, pod_endpoints=el.pod_gpus,
                                       pod_oversubscription=el.pod_oversubscription,
                                       leaf_endpoints=el.leaf_endpoints, oversubscription=el.oversubscription)
    if el.leaf_endpoints and el.tiers != 1 and (el.tiers or per_plane > el.leaf_endpoints):
        return per_plane, pod_fat_tree(per_plane, radix=el.switch_radix, pod_endpoints=per_plane,
                                       leaf_endpoints=el.leaf_endpoints, oversubscription=el.oversubscription,
                                       pod_tiers=el.tiers)
    tiers = el.tiers or min_fat_tree_tiers(per_plane, radix=el.switch_radix, oversubscription=el.oversubscription)
    return per_plane, fat_tree(per_plane, radix=el.switch_radix, tiers=tiers, oversubscription=el.oversubscription)


def serdes_classes(el: ElectricalSection) -> tuple[SerdesClass, ...]:
    """The host SerDes classes a switch or NIC ASIC may use, from the design's figures."""
    return (SerdesClass("XSR", el.serdes_xsr_reach, el.serdes_xsr_energy),
            SerdesClass("medium reach", el.serdes_mr_reach, el.serdes_mr_energy),
            SerdesClass("long reach", el.serdes_lr_reach, el.serdes_lr_energy))


def host_channels(el: ElectricalSection) -> tuple[HostChannel, HostChannel]:
    """(a NIC port's, a switch port's) host channel under the design's optics (photonics.host_serdes): pluggables
    end at the front panel, linear-drive ones close both ends' traces, a co-packaged switch port a few dB. A
    die-to-die (XSR) SerDes drives only a co-packaged engine: a channel through a connector to a front-panel module
    takes a medium- or long-reach one (fabrics-2026.md K15)."""
    classes, linear = serdes_classes(el), el.optics == "lpo"
    board = classes[1:]  # the classes that drive a channel through a connector
    pluggable = trace_loss_db(el.pluggable_trace_loss, el.lane_rate)
    nic = host_channel(pluggable, linear, board)
    if el.optics == "cpo":
        return nic, host_channel(trace_loss_db(el.copackaged_trace_loss, el.lane_rate), False, classes)
    return nic, host_channel(pluggable, linear, board)


SERDES_BEYOND_RATING = "serdes.beyond_rating"  # a catalog entry in watts: the host SerDes the boxes' ratings miss


def rated_serdes_j_per_bit(el: ElectricalSection) -> float:
    """The host SerDes energy per bit the switches' and NICs' catalog power counts: the class a retimed pluggable takes
    at the boxes' lane rate (`rated_lane_rate`, or the design's `lane_rate`) through the shipped front-panel trace with
    the shipped SerDes classes (K7, K15: medium reach at 100G lanes, long reach at 200G) — a box's rating, which a
    design's own trace loss, SerDes figures or lanes do not move (they move its host channels, and so the line)."""
    shipped = default_of(ElectricalSection)
    classes = serdes_classes(shipped)
    rate = el.rated_lane_rate or el.lane_rate
    rated = host_channel(trace_loss_db(shipped.pluggable_trace_loss, rate), False, classes[1:])
    return rated.energy_j_per_bit if rated.closes else classes[-1].energy_j_per_bit


def _optics_violations(el: ElectricalSection, nic: HostChannel, switch: HostChannel) -> list[Violation]:
    out = []
    for end, ch in (("NIC", nic), ("switch", switch)):
        if not ch.closes:
            how = ("through linear-drive modules the host SerDes closes both ends' traces, " if ch.traces == 2
                   else "")
            out.append(Violation("host_channel", f"a {end} port's host channel at {el.lane_rate / 1e9:g} Gbit/s per "
                                 f"lane loses {ch.loss_db:.1f} dB ({how}{ch.traces} × {ch.loss_db / ch.traces:.1f} dB)"
                                 f" but the longest-reach host SerDes closes {el.serdes_lr_reach:g} dB (retimed "
                                 "modules or co-packaged optics end the channel at the optics; slower lanes lose "
                                 "less)"))
            break
    if el.link_length > el.optics_reach:
        out.append(Violation("optics_reach", f"links of {el.link_length:g} m are beyond the optics' reach of "
                             f"{el.optics_reach:g} m"))
    port = el.nic_bandwidth / el.planes
    if port > el.switch_port_rate * (1 + 1e-12):
        out.append(Violation("switch_port", f"a NIC port of {port / 1e9:g} Gbit/s (nic_bandwidth / planes) needs a "
                             f"switch port as fast; the switch's are {el.switch_port_rate / 1e9:g} Gbit/s "
                             "(switch_port_rate): more planes, or a faster switch"))
    return out


def _optics_bom(gpus: int, el: ElectricalSection, switch_ports: int, switches: int) -> list[BomLine]:
    """The optics of every link end, each module of the drive the design's optics need (a retimed or a linear-drive
    pluggable): the NIC end's by the bit rate of its ports (a module faster than a port breaks out to several of the
    server's: DGX H100's twin-port OSFP cages serve two NICs each), the switch end's pluggables by the ports in use
    (twin-port modules serve two) or, co-packaged, the engines and laser modules of every port of every switch at
    its own port rate (they come in its package, used or not)."""
    port_bps = el.nic_bandwidth / el.planes
    nic_end = BomLine(key=el.transceiver, count=gpus * el.nic_bandwidth, scope="per_cluster", network=True,
                      per="bit/s", drive="linear" if el.optics == "lpo" else "retimed")
    if el.optics != "cpo":
        return [nic_end, BomLine(key=el.switch_transceiver, count=math.ceil(switch_ports / el.switch_transceiver_ports),
                                 scope="per_cluster", network=True, drive=nic_end.drive)]
    installed = switches * el.switch_radix * el.switch_port_rate  # every port of the package at its own rate
    return [nic_end, BomLine(key=el.switch_transceiver, count=installed, scope="per_cluster", network=True,
                             per="bit/s"),
            BomLine(key=el.laser_module, count=installed, scope="per_cluster", network=True, per="bit/s whole")]


def _switch_bom(el: ElectricalSection, leaves: int, switches: int) -> list[BomLine]:
    """The switches: the leaves as `leaf_switch` where one is named, every other tier (or all) as `switch`."""
    if el.leaf_switch == "same":
        return [BomLine(key=el.switch, count=switches, scope="per_cluster", network=True)]
    return [BomLine(key=el.leaf_switch, count=leaves, scope="per_cluster", network=True),
            BomLine(key=el.switch, count=switches - leaves, scope="per_cluster", network=True)]


# the catalog category each entry key of [electrical] names ('none' and 'same' are not entries)
_CATEGORIES = {"nic": ("nic.",), "transceiver": ("transceiver.",), "switch": ("switch.",),
               "leaf_switch": ("switch.",), "nvswitch": ("nvswitch.",), "laser_module": ("els.",)}


def _check_entries(el: ElectricalSection) -> None:
    """Each catalog key names an entry of its category; a co-packaged switch's optics are engines (cpo.), a
    pluggable one's modules (transceiver.)."""
    words = {"nvswitch": ("none", "server")}  # the words a key takes besides its entries ('none', 'same' else)
    wrong = [f"{key} = {getattr(el, key)!r} is not a {prefixes[0][:-1]} entry ({prefixes[0]}…)"
             for key, prefixes in _CATEGORIES.items()
             if getattr(el, key) not in words.get(key, ("none", "same")) and not getattr(el, key).startswith(prefixes)
             and (key != "laser_module" or el.optics == "cpo")]
    if wrong:
        raise InputError(f"[electrical] {'; '.join(wrong)}")
    want = "cpo." if el.optics == "cpo" else "transceiver."
    if not el.switch_transceiver.startswith(want):
        what = ("puts the switch's optics in its package: switch_transceiver must be a co-packaged engine entry "
                "(cpo.…)" if el.optics == "cpo" else "plugs modules into the switch: switch_transceiver must be a "
                "pluggable entry (transceiver.…)")
        raise InputError(f"[electrical] optics = {el.optics!r} {what}, got {el.switch_transceiver!r}")


def server_domain(design: ClusterDesign) -> ServerNvlink:
    """The NVLink domain of the design's servers: NVLink per GPU, NVSwitch entry, GPUs — its [electrical] settings,
    or where nvlink_bandwidth = 0 or nvswitch = 'server', its server's (`fabric.cluster_design.server_nvlink`). A
    server of one GPU has no NVLink domain (NVLink 0, no switch) unless the design gives it one."""
    el = design.topology
    if el.gpus_per_server < 2:
        return ServerNvlink(nvlink_bps=el.nvlink_bandwidth, nvswitch="none" if el.nvswitch == "server" else el.nvswitch,
                            gpus=1)
    follows = [text for text, on in (('[electrical] nvlink_bandwidth = "0 Gbit/s"', el.nvlink_bandwidth == 0),
                                     ('[electrical] nvswitch = "server"', el.nvswitch == "server")) if on]
    if not follows:
        return ServerNvlink(nvlink_bps=el.nvlink_bandwidth, nvswitch=el.nvswitch, gpus=el.gpus_per_server)
    own = server_nvlink(design.fabric, " and ".join(follows))
    return ServerNvlink(nvlink_bps=el.nvlink_bandwidth or own.nvlink_bps,
                        nvswitch=own.nvswitch if el.nvswitch == "server" else el.nvswitch, gpus=own.gpus,
                        name=own.name)


def _server_notes(design: ClusterDesign) -> tuple[str, ...]:
    """`_domain_notes` of the design's servers (none where their domain is unknown: its evaluation refuses it)."""
    try:
        return _domain_notes(design.topology, server_domain(design))
    except InputError:
        return ()


def _with_servers(design: ClusterDesign, domain: ServerNvlink) -> ClusterDesign:
    """The design with `domain`'s NVLink and NVSwitch set where it takes its server's."""
    el = design.topology
    changes = {**({"nvlink_bandwidth": domain.nvlink_bps} if el.nvlink_bandwidth == 0 else {}),
               **({"nvswitch": domain.nvswitch} if el.nvswitch == "server" else {})}
    return dataclasses.replace(design, topology=dataclasses.replace(el, **changes)) if changes else design


def _domain_notes(el: ElectricalSection, domain: ServerNvlink) -> tuple[str, ...]:
    """What the design's servers do otherwise than it asks: NVLink SHARP on a switch without it (NCCL's NVLS
    efficiency is 0 before Hopper, fabric-photonics-3.md F4), NVLink domains of another size than the server whose
    NVLink they take."""
    notes = []
    if el.in_network_reduction == "nvls" and domain.nvswitch in NO_NVLS_SWITCHES:
        which = "these servers have no NVSwitch" if domain.nvswitch == "none" else f"{domain.nvswitch}'s does not"
        notes.append(f"in_network_reduction = 'nvls' needs an NVSwitch that reduces (NCCL has no NVLS before "
                     f"Hopper): {which}, so all-reduces run as rings and trees")
    if domain.name and domain.gpus != el.gpus_per_server:
        notes.append(f"gpus_per_server = {el.gpus_per_server}: the {domain.name}'s NVLink and NVSwitch taken for "
                     f"domains of {el.gpus_per_server} GPUs (its own are of {domain.gpus})")
    return tuple(notes)


def _evaluate(design: ClusterDesign) -> FabricEstimate:
    fab, el = design.fabric, design.topology
    _check_entries(el)
    domain = server_domain(design)
    per_plane, tree = rail_planes(fab.gpus, el)
    tiers, rails, planes = tree.tiers, el.rails, el.rails * el.planes
    switches, links, switch_links = planes * tree.switches, planes * tree.links, planes * tree.switch_links
    servers = math.ceil(fab.gpus / el.gpus_per_server)
    one_server = _one_server(fab.gpus, el.gpus_per_server)
    if one_server:
        switches = links = 0
    switch_ports = 0 if one_server else fab.gpus * el.planes + 2 * switch_links
    nic_channel, switch_channel = host_channels(el)
    nic_bits, switch_bits = fab.gpus * el.nic_bandwidth, switch_ports * el.nic_bandwidth / el.planes
    serdes_w = 0.0 if one_server else (nic_bits * nic_channel.energy_j_per_bit
                                       + switch_bits * switch_channel.energy_j_per_bit)
    rated = rated_serdes_j_per_bit(el)
    # each end apart, so that the line is exactly 0 where the design's class is the rating's
    beyond_w = 0.0 if one_server else (nic_bits * (nic_channel.energy_j_per_bit - rated)
                                       + switch_bits * (switch_channel.energy_j_per_bit - rated))
    scale_out = () if one_server else (
        *_optics_bom(fab.gpus, el, switch_ports, switches),
        BomLine(key="cable.fiber_patch", count=links, scope="per_cluster", network=True),
        BomLine(key="fiber.smf_per_m", count=links * el.link_length, scope="per_cluster", network=True),
        *_switch_bom(el, planes * tree.switches_per_tier[0], switches))
    bom = (*([BomLine(key=domain.nvswitch, count=1, scope="per_gpu", network=True)]
             if domain.nvswitch != "none" else []),
           BomLine(key=el.nic, count=1, scope="per_gpu", network=True), *scale_out,
           *([BomLine(key=SERDES_BEYOND_RATING, count=beyond_w, scope="per_cluster", network=True, per="correction")]
             if beyond_w else []))
    leaf = (el.leaf_endpoints or leaf_ports(el.switch_radix, el.oversubscription)[0]) if tiers > 1 else per_plane
    pods = el.pod_gpus and el.pod_gpus < per_plane
    over = max(el.oversubscription, el.pod_oversubscription if pods else 1.0)
    details = ElectricalDetails(gpus_per_server=el.gpus_per_server, servers=servers, nvlink_bps=domain.nvlink_bps,
                                nic_bps=el.nic_bandwidth, rails=rails, tiers=tiers, switches=switches, links=links,
                                oversubscription=el.oversubscription, leaf_gpus=min(fab.gpus, leaf * rails),
                                network_step_s=el.network_latency + (2 * tiers - 1) * el.switch_hop_latency,
                                planes=el.planes, switch_ports=switch_ports,
                                pod_gpus=el.pod_gpus * rails if pods else 0,
                                pod_oversubscription=el.pod_oversubscription if pods else 1.0,
                                nic_channel=nic_channel, switch_channel=switch_channel,
                                leaf_switches=planes * tree.switches_per_tier[0],
                                nvls=el.in_network_reduction == "nvls" and domain.nvswitch not in NO_NVLS_SWITCHES)
    where = f"{rails} rail planes, each a " if rails > 1 else "a "
    shape = (f"{tiers}-tier fabric of {el.switch_radix}-port switches: pods of {el.pod_gpus} at "
             f"1:{el.pod_oversubscription:g} above" if pods else f"{tiers}-tier fat-tree of {el.switch_radix}-port "
             "switches")
    dual = f" ({el.planes} NIC ports per GPU, each on its own plane)" if el.planes > 1 else ""
    return FabricEstimate(
        design=design, kind="electrical", gpus=fab.gpus, job_gpus=design.job_gpus,
        per_gpu_bandwidth_bps=el.nic_bandwidth, useful_fraction=1.0, degree=fab.gpus - 1,
        bisection_bps=(0.0 if one_server else fab.gpus // 2 * el.nic_bandwidth / over)
        + split_server_gpus(fab.gpus, el.gpus_per_server) * domain.nvlink_bps,
        pod_gpus=fab.gpus, details=details, bom=bom, host_serdes_w=serdes_w,
        violations=() if one_server else tuple(_optics_violations(el, nic_channel, switch_channel)),
        notes=(f"one server: its {fab.gpus} GPUs are joined by NVLink; no scale-out switches, optics or cables are "
               "bought (its NICs come with the server)" if one_server else
               f"{where}{shape} ({switches} switches in all) for {fab.gpus} NICs{dual}",
               *([f"pods of {el.pod_gpus} hold a whole plane of {per_plane} NICs: nothing is oversubscribed above "
                  "them"] if el.pod_gpus and not pods else []), *_domain_notes(el, domain)))


def _one_server(gpus: int, per_server: int) -> bool:
    """A cluster of no more GPUs than one (multi-GPU) server holds: NVLink joins them, no scale-out network."""
    return gpus <= per_server and per_server > 1


def split_server_gpus(gpus: int, per_server: int) -> int:
    """GPUs whose NVLink a worst balanced cut of the cluster crosses: the cut puts ⌊N/2⌋ GPUs on one side, whole
    servers where their sizes allow (full servers of `per_server` and the last one's remainder), else splits one
    server, its NVSwitch carrying min(a, size − a) GPUs' NVLink across (a of its GPUs on the one side); the fewest
    such GPUs over the ways to make the side. 0 where whole servers make the halves (an even count of full ones)."""
    full, rest = divmod(gpus, per_server)
    half = gpus // 2
    crossing = []
    for last in {0, rest}:  # the last server's remainder on the far side, or whole on this one
        need = half - last
        if need >= 0:
            whole, a = divmod(need, per_server)
            if a == 0 or whole < full:  # the rest of this side from one more full server, split
                crossing.append(min(a, per_server - a))
    a = half - (half // per_server) * per_server  # whole full servers, the remainder's server split
    if half // per_server <= full and a <= rest:
        crossing.append(min(a, rest - a))
    return min(crossing)


def _members(block, p, s):
    """(whether each group of p ranks at stride s sits inside one block of `block` consecutive ranks — a server, a
    pod —, members of a group in one block)."""
    span = p * s
    inside = (span <= block) & divides(span, block)
    m = np.where(s >= block, 1.0, np.minimum(p, np.maximum(np.floor(block / s), 1.0)))
    return inside, np.where(inside, p, m)


def _layout(est: FabricEstimate, p, s):
    """(in_server, members per server m, servers spanned) of groups of p ranks at stride s; in a cluster of no more
    GPUs than a server holds, every group is inside its one server."""
    in_server, m = _members(est.details.gpus_per_server, p, s)
    if est.gpus <= est.details.gpus_per_server:
        in_server, m = np.ones_like(in_server, dtype=bool), np.broadcast_to(np.asarray(p, dtype=float), np.shape(m))
    return in_server, m, np.ceil(p / m)


def _pod_members(est: FabricEstimate, p, s):
    """(whether each group sits inside one pod, members of a group in one pod) of groups of p ranks at stride s;
    (True, p) without pods."""
    if not est.details.pod_gpus:
        return True, p
    return _members(float(est.details.pod_gpus), p, s)


def _pod_rate(est: FabricEstimate, p, s, bu):
    """The most bandwidth per rank a group's traffic out of its pod gets where its groups span pods (inf where a
    group sits in one pod): a pod's uplinks carry its NICs' rate over the oversubscription o, and each group with m'
    members in the pod sends one rank's bytes out of it (its ring leaves the pod once; every group runs at once), so
    a rank runs at m'·B_u/o, B_u the NIC's rate times the collective's share of the uplinks (`_shares`). A
    data-parallel group with one member per pod pays the whole 1:o."""
    in_pod, members = _pod_members(est, p, s)
    return np.where(in_pod, np.inf, members * bu / est.details.pod_oversubscription)


def _alltoall_split(est: FabricEstimate, p, m):
    """(share of a rank's all-to-all bytes to its own server, share of the rest leaving the leaf switch)."""
    det = est.details
    inside = np.where(p > 1, (m - 1) / np.maximum(p - 1, 1.0), 0.0)
    in_leaf = np.minimum(p, m * max(1.0, det.leaf_gpus / det.gpus_per_server))
    leaving = np.where(p > m, (p - in_leaf) / np.maximum(p - m, 1.0), 0.0)
    return inside, np.clip(leaving, 0.0, 1.0)


def _usage(est: FabricEstimate, c, n, p, s):
    """Bytes per GPU one call puts on (NVLink, NIC, its pod's uplinks)."""
    in_server, m, servers = _layout(est, p, s)
    in_pod, members = _pod_members(est, p, s)
    if c.op == "all_to_all":
        inside, _ = _alltoall_split(est, p, m)
        return n * inside, n * (1 - inside), np.where(in_pod, 0.0, n * (p - members) / np.maximum(p - 1, 1.0))
    if c.op == "p2p":
        # a stage boundary between pods: the m' members of a group in a pod share its way out (`_pod_rate`)
        return np.where(in_server, n, 0.0), np.where(in_server, 0.0, n), np.where(in_pod, 0.0, n / members)
    # NCCL's ring over the servers: of every m ring steps out of a server one crosses a NIC, the rest NVLink; of
    # every m' out of a pod one crosses its uplinks
    sent = bytes_sent_per_rank(c.op, n, p)
    return (np.where(in_server, sent, sent * (m - 1) / m), np.where(in_server, 0.0, sent / m),
            np.where(in_pod, 0.0, sent / members))


def _shares(est: FabricEstimate, collectives, arrays):
    """Each collective's share of its GPUs' NVLink, NIC and pod uplinks: in proportion to the bytes one call puts on
    each (a collective alone has them whole; one that leaves no pod leaves the uplinks to the others)."""
    if len(collectives) == 1:
        return [(1.0, 1.0, 1.0)]
    usage = []
    for c, (n, p, s) in zip(collectives, arrays):
        calls = np.asarray(c.calls, dtype=float)
        usage.append(tuple(u * calls for u in _usage(est, c, n, p, s)))
    return list(zip(*(proportional([u[k] for u in usage]) for k in range(3))))


def _price(est: FabricEstimate, c, n, p, s, share, seconds_only: bool = False) -> CollectiveTime:
    el, det = est.design.topology, est.details
    share_nv, share_nic, share_up = share
    bn = det.nvlink_bps * el.nvlink_efficiency * share_nv if det.nvlink_bps else np.inf  # 0: no NVLink domain
    be = det.nic_bps * el.nic_efficiency * share_nic
    bu = det.nic_bps * el.nic_efficiency * share_up
    a_n, a_e, r = el.nvlink_latency, det.network_step_s, det.oversubscription
    in_server, m, servers = _layout(est, p, s)
    pod_bps = _pod_rate(est, p, s, bu)
    rank_bps = np.where(in_server, bn, np.minimum(np.minimum(bn, m * be), pod_bps))
    bottleneck = np.where(in_server, share_nv, np.where(pod_bps < np.minimum(bn, m * be), share_up, share_nic))
    inf = np.inf
    if c.op in ("all_reduce", "reduce_scatter", "all_gather"):
        k = 2.0 if c.op == "all_reduce" else 1.0
        # the schedules of groups inside a server and of groups across servers, each priced where some group runs it
        inside, across = bool(np.any(in_server)), not np.all(in_server)
        nvlink_ring, nvlink_protocol, node_ring, node_protocol = inf, 0, inf, 0
        if inside:  # each ring under NCCL's fastest protocol for its size (LL, LL128, Simple)
            nvlink_ring, nvlink_protocol = _fastest_protocol(
                el, det, col.ring_half_s(n, p, bn, a_n, k),
                lambda bps, a_nv, a_net: col.ring_half_s(n, p, bps, a_nv, k), bn, el.ll_max_nvlink_bandwidth)
        if across:  # NCCL's ring over the servers: m ranks per server on m rail NICs, NIC- or NVLink-bound (F9)
            node_ring, node_protocol = _fastest_protocol(
                el, det, col.node_ring_half_s(n, p, servers, rank_bps, a_n, a_e, k),
                lambda bps, a_nv, a_net: col.node_ring_half_s(n, p, servers, bps, a_nv, a_net, k), rank_bps,
                el.ll_max_network_bandwidth)
        candidates = {"NVLink ring": np.where(in_server, nvlink_ring, inf),
                      "ring over the servers, rail-aligned": np.where(in_server, inf, node_ring)}
        tree_protocol = 0
        if c.op == "all_reduce":
            tree, chosen = inf, False
            if across:
                tree, chosen, tree_protocol = _nccl_tree(el, det, n, servers, m, bn, be, r, rank_bps, node_ring,
                                                               pod_bps)
            chosen = ~in_server & chosen
            candidates["double binary tree over the servers"] = np.where(chosen, tree, inf)
            candidates["ring over the servers, rail-aligned"] = np.where(in_server | chosen, inf, node_ring)
            if det.nvls:
                # never below the floor of in-switch reduction: each GPU sends its n bytes and receives the result
                sharp = el.nvls_latency + np.maximum(2 * (p - 1) / p / el.nvls_speedup, 1.0) * n * BITS_PER_BYTE / bn
                candidates["NVLink SHARP"] = np.where(in_server & (p > 1), sharp, inf)
        if seconds_only:
            return CollectiveTime(np.where(p > 1, fastest(list(candidates.values())), 0.0), None, bottleneck, None)
        # each candidate named with its protocol (NVLink SHARP has none): one index into the names of both
        seconds, which = pick_index(list(candidates.values()))
        protocol = np.choose(which, np.broadcast_arrays(*(nvlink_protocol, node_protocol, tree_protocol,
                                                          0)[:len(candidates)]))
        names = np.asarray([name + suffix for name in candidates for suffix in PROTOCOL_NAMES], dtype=object)
        schedule = names[which * len(PROTOCOL_NAMES) + protocol]
        return CollectiveTime(np.where(p > 1, seconds, 0.0), schedule, bottleneck, rank_bps)
    if c.op == "all_to_all":
        inside, leaving = _alltoall_split(est, p, m)
        alpha = np.where(in_server, a_n, a_e)
        bits = n * BITS_PER_BYTE
        in_pod, members = _pod_members(est, p, s)  # the bytes to peers in other pods share the pods' uplinks
        out_of_pod = np.where(in_pod, 0.0, (p - members) / np.maximum(p - 1, 1.0))
        t = (p - 1) * alpha + np.maximum(bits * inside / bn, np.maximum(
            bits / be * ((1 - inside) * np.maximum(1.0, leaving * r)),
            bits / bu * (out_of_pod * est.details.pod_oversubscription)))
        return CollectiveTime(np.where(p > 1, t, 0.0), np.where(in_server, "pairwise over NVLink",
                                                                "pairwise, NVLink inside the server + NICs"),
                              bottleneck, rank_bps)
    crossing = np.minimum(be, pod_bps)  # a stage boundary between pods shares the pods' uplinks
    t = np.where(in_server, col.point_to_point_s(n, bn, a_n), col.point_to_point_s(n, crossing, a_e))
    return CollectiveTime(t, np.where(in_server, "NVLink", "across servers, one NIC"), bottleneck,
                          np.where(in_server, bn, crossing))


def _seconds(est: FabricEstimate, c, n, p, s, share):
    """`_price`'s seconds alone (no schedule named)."""
    return _price(est, c, n, p, s, share, seconds_only=True).seconds


def _serve(est: FabricEstimate, flows):
    """Each GPU's NVLink (inside a server) and NIC (between servers, over the oversubscription) shared in
    proportion to demand on the send and receive side, the smaller share taken: a feasible fair share."""
    from fabric.traffic import Served, proportional_share

    det = est.details
    same = flows.src // det.gpus_per_server == flows.dst // det.gpus_per_server
    over = det.oversubscription
    if det.pod_gpus:  # a flow between pods crosses their uplinks too
        over = np.where(flows.src // det.pod_gpus == flows.dst // det.pod_gpus, over,
                        max(over, det.pod_oversubscription))
    link = np.where(same, det.nvlink_bps or det.nic_bps, det.nic_bps / over)  # a lone GPU's flows to itself
    return Served(proportional_share(flows, link, same), "proportional share of each GPU's links")


# --- the numbers as people read them: formulas (`sipml explain`) and figures ------------------------------------
def _bandwidth_formula(est: FabricEstimate):
    """B = the NIC's rate: what a GPU injects into the network."""
    from core.formulas import Formula, Terms

    t = Terms()
    return Formula("B", t(r"B_{\mathrm{NIC}}", est.design.topology.nic_bandwidth, "bit/s",
                          "[electrical] nic_bandwidth"), t.terms)


def _useful_formula(est: FabricEstimate):
    """u = 1: packet-switched."""
    from fabric.formulas import packet_switched_useful

    return packet_switched_useful(est)


def _degree_formula(est: FabricEstimate):
    """D = G − 1: the switches reach every GPU."""
    from fabric.formulas import every_peer_degree

    return every_peer_degree(est)


def _bisection_formula(est: FabricEstimate):
    """B_bis = ⌊G/2⌋ · B_NIC / o + n_split · B_NVLink: the fat-tree's cut, thinned by its oversubscription (the larger
    of the leaves' and, where pods are joined above them, the pods': a cut between pods crosses their uplinks), and
    the NVLink of the GPUs a balanced cut must split a server between (`split_server_gpus`); within one server, the
    NVLink alone."""
    import sympy as sp

    from core.formulas import Formula, Terms

    d, t = est.details, Terms()
    split = t(r"n_{\mathrm{split}}", split_server_gpus(est.gpus, d.gpus_per_server), "",
              "GPUs whose NVLink the cut crosses (a server split between the halves)") * t(
        r"B_{\mathrm{NVLink}}", d.nvlink_bps, "bit/s", "NVLink per GPU per direction")
    if _one_server(est.gpus, d.gpus_per_server):
        return Formula(r"B_{\mathrm{bis}}", split, t.terms)
    nics = (sp.floor(t("G", est.gpus, "", "GPUs") / 2) * t(r"B_{\mathrm{NIC}}", d.nic_bps, "bit/s", "NIC rate")
            / t("o", max(d.oversubscription, d.pod_oversubscription), "", "oversubscription"))
    return Formula(r"B_{\mathrm{bis}}", nics + split, t.terms)


def _figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    """The servers' and the fat-trees' own figures."""
    d = est.details
    return {"GPUs per server": (float(d.gpus_per_server), ""), "servers": (float(d.servers), ""),
            **({"NVLink per GPU": (d.nvlink_bps / 1e9, "Gbit/s")} if d.nvlink_bps else {}),
            "NIC per GPU": (d.nic_bps / 1e9, "Gbit/s"),
            "rail planes": (float(d.rails), ""), "fat-tree tiers per plane": (float(d.tiers), ""),
            "switches": (float(d.switches), ""),
            "links": (float(d.links), ""), "oversubscription": (d.oversubscription, ""),
            **({"NIC ports per GPU, one per plane": (float(d.planes), "")} if d.planes > 1 else {}),
            **({"GPUs per pod": (float(d.pod_gpus), ""),
                "oversubscription above the pods": (d.pod_oversubscription, "")} if d.pod_gpus else {}),
            "NIC host channel": (d.nic_channel.loss_db, "dB"),
            "NIC host SerDes": (d.nic_channel.energy_j_per_bit * 1e12, "pJ/bit"),
            "switch host channel": (d.switch_channel.loss_db, "dB"),
            "switch host SerDes": (d.switch_channel.energy_j_per_bit * 1e12, "pJ/bit")}


def _failure_domains(est: FabricEstimate) -> dict:
    """A NIC-side part (the NIC's module, its leaf switch, the leaf's downlink modules, the cable between) is
    single-homed: its failure stops the job — unless the NIC has a port in two planes, when the other plane carries
    it at half the bandwidth (dual-plane, fabrics-2026.md K17; reliability.md Y16). A part above the leaves (spine
    switches, uplink modules and cables) is routed around by ECMP. Where one catalog entry serves both, the share of
    its units on the NIC side stops the job. Co-packaged engines and laser modules come with every port of every
    switch, so their share in the leaves. What stops the job on one GPU's link (its NIC's module, the cable, the
    leaf's module or laser facing it) is `own`: a hot-spare GPU comes with a link of its own; a leaf switch is not."""
    from fabric.reliability import RIDES, Domain

    el, d, fab = est.design.topology, est.details, est.design.fabric
    if d.tiers < 1 or not d.switches:
        return {}
    dual = el.planes >= 2
    nic_ports = fab.gpus * el.planes
    leaf_share = d.leaf_switches / d.switches
    why_leaf = ("dual-plane: the other plane carries the NIC" if dual else "single-homed under its leaf: the job "
                "stops")

    def domain(share: float, what: str, own: bool = False) -> Domain:
        share = 0.0 if dual else share
        return Domain(share, "restart", None, f"{what}: {why_leaf if share or dual else RIDES}"
                      + (f" (the {share:.3g} of its units on the NIC side)" if 0 < share < 1 else ""), own=own)

    out = {}
    if el.optics == "cpo":
        out[el.switch_transceiver] = domain(leaf_share, "engines in every switch port; a failed engine takes its "
                                                        "switch")
        out[el.laser_module] = domain(nic_ports / max(d.switches * el.switch_radix, 1), "laser modules, swapped "
                                      "in the field, feed the ports they light: those facing NICs", own=True)
    else:
        switch_side = nic_ports / max(d.switch_ports, 1)
        out[el.switch_transceiver] = domain(switch_side, "switch-side modules", own=True)
    if el.transceiver == el.switch_transceiver and el.optics != "cpo":
        out[el.transceiver] = domain((2 * nic_ports) / (nic_ports + max(d.switch_ports, 1)), "modules at both ends",
                                     own=True)
    else:
        out[el.transceiver] = domain(1.0, "the NIC's module", own=True)
    if el.leaf_switch == "same":
        out[el.switch] = domain(leaf_share, "switches, leaves and spines alike")
    else:
        out[el.leaf_switch] = domain(1.0, "the leaf switch")
        out[el.switch] = Domain(0.0, "restart", None, f"spine and pod switches: ECMP routes around them, {RIDES}")
    out["cable.fiber_patch"] = domain(nic_ports / max(d.links, 1), "cables", own=True)
    return out


def _slots(est: FabricEstimate):
    """Whole servers; a job inside one pod where one has room, else across the roomiest pods."""
    from fabric.placement import Slots

    det = est.details
    g = det.gpus_per_server
    pods = det.pod_gpus // g if det.pod_gpus else 0
    rule = (f"whole servers of {g}; a job inside one pod of {det.pod_gpus} GPUs ({det.pod_gpus // det.rails} NIC "
            f"ports per plane × {det.rails} planes) where one has room (1:{det.pod_oversubscription:g} above the "
            "pods)" if pods else f"whole servers of {g}")
    return Slots(gpus=est.gpus, unit_gpus=g, unit="server", domain_units=pods, rule=rule)


def _chunks(det: ElectricalDetails, placed, block: int) -> dict[int, int]:
    """GPUs of one placed job in each block of `block` GPUs (a leaf's, a pod's) it touches."""
    out: dict[int, int] = {}
    for u in placed.units:
        k = u * det.gpus_per_server // block
        out[k] = out.get(k, 0) + det.gpus_per_server
    return out


def _shared_over(det: ElectricalDetails, placed, j: int, together: bool, block: int, over: float):
    """(the job's smallest share of a block, the oversubscription its traffic out of the blocks sees), or None for a
    job inside one block: a block's uplinks carry block·B_e/o for every job crossing them, so with c GPUs of crossing
    jobs in it a rank of a group with m′ members there runs at m′·B_e·block/(o·c) — oversubscription
    max(1, o·c/block) at the job's most loaded block. Alone, c is the job's own share (a job filling its blocks sees
    the design's 1:o); together every job spanning blocks adds its share of each, all taken to cross at once."""
    mine = _chunks(det, placed[j], block)
    if len(mine) == 1:
        return None
    load = dict(mine)
    if together:
        load = dict.fromkeys(mine, 0)
        for other in placed:
            chunks = _chunks(det, other, block)
            if len(chunks) > 1:
                for k in mine:
                    load[k] += chunks.get(k, 0)
    return min(mine.values()), max(1.0, max(over * load[k] / block for k in mine))


def _placed_view(est: FabricEstimate, placed, j: int, together: bool) -> FabricEstimate:
    """Job j where it was placed, alone or together (`_shared_over`), at both oversubscribed levels: the leaves and
    the pods, the job's view having leaves (pods) of its smallest share of one; a job inside one leaf never leaves
    it, one inside one pod never crosses the pods' uplinks."""
    import dataclasses

    det = est.details
    changes = {}
    leaf = _shared_over(det, placed, j, together, det.leaf_gpus, det.oversubscription)
    if leaf is None:
        changes.update(oversubscription=1.0, leaf_gpus=placed[j].allocated_gpus)
    else:
        changes.update(leaf_gpus=leaf[0], oversubscription=leaf[1])
    if det.pod_gpus:
        pod = _shared_over(det, placed, j, together, det.pod_gpus, det.pod_oversubscription)
        changes.update(pod_gpus=0) if pod is None else changes.update(pod_gpus=pod[0], pod_oversubscription=pod[1])
    return dataclasses.replace(est, details=dataclasses.replace(det, **changes))


ELECTRICAL = FabricKind(name="electrical", section="electrical", section_type=ElectricalSection, static=False,
                        evaluator=_evaluate, sharer=_shares, pricer=_price, seconds_of=_seconds, server=_serve,
                        formulas={"per_gpu_bandwidth_gbps": _bandwidth_formula,
                                  "useful_time_fraction": _useful_formula, "degree": _degree_formula,
                                  "bisection_gbps": _bisection_formula},
                        figures=_figures, failure_domains=_failure_domains, slots=_slots,
                        placed_view=_placed_view, servers=server_domain, server_notes=_server_notes,
                        with_servers=_with_servers)
