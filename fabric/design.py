"""Fabric settings of a design point: which topology, how many GPUs, and each topology's own parameters.

Sections: `[fabric]` for every design, and one section per topology kind (`[sip_ring]`, `[sip_ocs]`,
`[electrical]`); a section that does not apply to the chosen kind is an input error, never silently ignored.
Defaults follow the SiP-ML simulator [sim] (Khani et al., SIGCOMM 2021; MLNetwork/rostam) and the component
numbers of shared/reference/costs-power.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from core.fields import Composite, Section, non_negative, param, positive, when, when_above
from photonics.design import MAX_CHANNELS, MAX_DB, MAX_FIBER_M, LinkDesign

_SIPML = "SiP-ML simulator (MLNetwork/rostam) [sim]"
KINDS = ("sip-ring", "sip-ocs", "electrical", "ideal")
OPTICAL_KINDS = ("sip-ring", "sip-ocs")  # the kinds whose GPUs have the optical I/O of [link] … [package]

# Bounds of the design space on counts, so the work a design causes is bounded.
MAX_GPUS = 1 << 20  # [assumed] 1 048 576: 8× the 131 072-GPU clusters the fabric models are sized for
MAX_SERVER_GPUS = 1024  # [assumed] beyond the 72–576 GPUs of the largest NVLink domains announced
MAX_SWITCH_RADIX = 4096  # [assumed] 8× the 512 ports of the largest switch ASICs (51.2 Tbps at 100G)
MAX_TRANSCEIVER_PORTS = 8  # [assumed] an OSFP module breaks out into at most 8 lanes (8 × 100G DR8)
MIN_RATE_BPS, MAX_RATE_BPS = 1e6, 1e15  # [assumed] 1 Mbit/s to 1 Pbit/s per GPU, around every interconnect
MAX_MESSAGE_BITS = 8e15  # [assumed] 1 PB per rank, beyond any collective
_ELECTRICAL = when("fabric", "kind", "electrical")
_AMPLIFIED = when_above("sip_ring", "amplifier_every", 0)


@dataclass(frozen=True, kw_only=True, slots=True)
class FabricSection(Section):
    section_name: ClassVar[str] = "fabric"

    kind: str = param("sip-ring", "choice", "topology", "—", choices=KINDS)
    gpus: int = param(1024, "1", "GPUs in the cluster (up to 2^20 = 1 048 576)", f"{_SIPML}: 1024-GPU experiments",
                      lo=2, hi=MAX_GPUS, integer=True)
    gpu: str = param("gpu.a100_sxm4", "text", "catalog entry of the GPU", "[assumed] A100-class, as in "
                     "SiP-ML's era")
    host: str = param("server.dgx_a100_host", "text", "catalog entry of the server share per GPU (host, "
                      "chassis; 'none' for none)", "[assumed] DGX-class host", choices=("none",))
    job_gpus: int = param(0, "1", "GPUs of the largest job the cluster must run as one (0: the whole cluster); "
                          "collective times use it", "[assumed] one job on the whole cluster, as in SiP-ML's "
                          "experiments", lo=0, hi=MAX_GPUS, integer=True, at_most="gpus")
    latency: float = non_negative("1 us", "s", "per-message latency α of a collective step", "[assumed] SiP "
                                  "chiplet ~5 ns + fiber + protocol; NCCL-like α is µs-scale", hi=1.0)
    message_size: float = positive("100 MB", "bit", "message size for the collective times of `sipml fabric`",
                                   "[assumed] gradient bucket scale", hi=MAX_MESSAGE_BITS)
    pue: float = param(1.1, "1", "power usage effectiveness for cluster power", "Epoch AI, hyperscale "
                       "[verbatim]", lo=1.0, hi=3.0)


@dataclass(frozen=True, kw_only=True, slots=True)
class SipRingSection(Section):
    """The ring hop between neighbouring GPUs is the design's [link]/[loss]: its fiber_length and connectors."""

    section_name: ClassVar[str] = "sip_ring"

    directions: int = param(2, "1", "ring directions (the link's fibers are split evenly over them)",
                            f"{_SIPML}: 2 directions × 5 fibers", lo=1, hi=2, integer=True)
    decision_interval: float = param("100 us", "s", "time between wavelength re-allocations",
                                     f"{_SIPML}", lo=1e-9, hi=1e3)
    locality: int = param(16, "1", "ring distance within which model-parallel partitions are placed",
                          f"{_SIPML}: 16 GPUs", lo=1, hi=MAX_GPUS, integer=True)
    amplifier_every: int = param(0, "1", "an optical amplifier every this many hops (0: none)", "[assumed] "
                                 "none", lo=0, hi=MAX_GPUS, integer=True)
    amplifier: str = param("amplifier.soa", "text", "catalog entry of the amplifier", "[assumed] O-band SOA",
                           applies_when=_AMPLIFIED)
    amplifier_gain: float = non_negative("20 dB", "dB", "small-signal gain per amplifier",
                                         "[assumed] O-band SOA class", applies_when=_AMPLIFIED, hi=MAX_DB)
    amplifier_noise_figure: float = non_negative("7 dB", "dB", "amplifier noise figure",
                                                 "[assumed] O-band SOA class", applies_when=_AMPLIFIED, hi=MAX_DB)


@dataclass(frozen=True, kw_only=True, slots=True)
class SipOcsSection(Section):
    section_name: ClassVar[str] = "sip_ocs"

    switches: int = param(20, "1", "optical circuit switches (= ports per GPU, the GPU degree)",
                          f"{_SIPML}: 20 OCSes", lo=1, hi=MAX_CHANNELS, integer=True)
    switch: str = param("ocs.polatis_384", "text", "catalog entry of the OCS", "Polatis 7000, 384 ports "
                        "[verbatim]")
    radix: int = param(384, "1", "ports per OCS", "Polatis 7000 (384 × 384) [verbatim]", lo=2, hi=MAX_GPUS,
                       integer=True)
    topology: str = param("single", "choice", "how GPUs beyond one switch's radix are served: 'single' (one "
                          "layer, needs radix ≥ GPUs), 'partitioned' (independent pods of ≤ radix GPUs), 'clos' "
                          "(3-stage folded Clos, 3 switch passes)", "—", choices=("single", "partitioned", "clos"))
    reconfiguration_time: float = non_negative("30 ms", "s", "time to set a new circuit configuration",
                                               f"{_SIPML} default; 10 ms in a paper summary", hi=1e3)
    shots: str = param("single", "choice", "'single': configured once per job; 'multi': reconfigured every "
                       "5 × reconfiguration time", f"{_SIPML}", choices=("single", "multi"))


@dataclass(frozen=True, kw_only=True, slots=True)
class ElectricalSection(Section):
    """Every key but `ideal_bandwidth` describes kind = 'electrical'; `ideal_bandwidth` is kind = 'ideal'."""

    section_name: ClassVar[str] = "electrical"

    gpus_per_server: int = param(8, "1", "GPUs per server on the NVSwitch (g)", "DGX A100/H100 [verbatim]",
                                 lo=1, hi=MAX_SERVER_GPUS, integer=True, applies_when=_ELECTRICAL)
    nvlink_bandwidth: float = param("2400 Gbit/s", "bit/s", "NVLink bandwidth per GPU per direction (B_n)",
                                    "A100: 600 GB/s bidirectional = 300 GB/s per direction [verbatim]",
                                    applies_when=_ELECTRICAL, lo=MIN_RATE_BPS, hi=MAX_RATE_BPS)
    nic_bandwidth: float = param("200 Gbit/s", "bit/s", "scale-out NIC bandwidth per GPU (B_e)",
                                 "DGX A100: one ConnectX-6 HDR 200 Gb/s per GPU [verbatim]",
                                 applies_when=_ELECTRICAL, lo=MIN_RATE_BPS, hi=MAX_RATE_BPS)
    nic: str = param("nic.connectx6_hdr_200g", "text", "catalog entry of the NIC", "MLPerf v1.0 [verbatim]",
                     applies_when=_ELECTRICAL)
    transceiver: str = param("transceiver.hdr_200g_qsfp56", "text", "catalog entry of the NIC-end transceiver",
                             "[assumed] HDR optics", applies_when=_ELECTRICAL)
    switch_transceiver: str = param("transceiver.hdr_200g_qsfp56", "text", "catalog entry of a switch-port "
                                    "transceiver", "[assumed] HDR optics", applies_when=_ELECTRICAL)
    switch_transceiver_ports: int = param(1, "1", "switch ports one switch-side transceiver serves (2: twin-port "
                                          "OSFP)", "[assumed] one", lo=1, hi=MAX_TRANSCEIVER_PORTS, integer=True,
                                          applies_when=_ELECTRICAL)
    switch: str = param("switch.ib_hdr_40p", "text", "catalog entry of the fat-tree switch", "[assumed] HDR "
                        "40-port class (QM8700)", applies_when=_ELECTRICAL)
    switch_radix: int = param(40, "1", "ports per fat-tree switch (k)", "QM8700, 40 × 200G [verbatim]", lo=2,
                              hi=MAX_SWITCH_RADIX, integer=True, applies_when=_ELECTRICAL)
    link_length: float = non_negative("15 m", "m", "average fiber length of a fat-tree link (one patch cable each)",
                                      "[assumed] within a row of racks", applies_when=_ELECTRICAL, hi=MAX_FIBER_M)
    oversubscription: float = param(1.0, "1", "fat-tree oversubscription (down/up at the leaves)",
                                    "[assumed] non-blocking", lo=1.0, applies_when=_ELECTRICAL, hi=1000.0)
    nvswitch: str = param("nvswitch.a100_share", "text", "catalog entry of the NVSwitch share per GPU",
                          "[assumed] DGX A100", applies_when=_ELECTRICAL)
    ideal_bandwidth: float = param("2000 Gbit/s", "bit/s", "per-GPU rate of the ideal non-blocking switch "
                                   "(kind = ideal)",
                                   f"{_SIPML}: swept 128–8192 Gbps; 2 Tbps matches the SiP designs",
                                   applies_when=when("fabric", "kind", "ideal"), lo=MIN_RATE_BPS,
                                   hi=MAX_RATE_BPS)


FABRIC_SECTIONS: dict[str, type] = {
    "fabric": FabricSection,
    "sip_ring": SipRingSection,
    "sip_ocs": SipOcsSection,
    "electrical": ElectricalSection,
}


def job_size(fabric: FabricSection) -> int:
    """GPUs of the largest job: `job_gpus`, or the whole cluster when 0."""
    return fabric.job_gpus or fabric.gpus


def _part(cls, applies_when=None):
    """A section of a design, with the condition under which its keys have an effect."""
    return field(default_factory=cls, metadata={"applies_when": applies_when} if applies_when else {})


@dataclass(frozen=True, kw_only=True, slots=True)
class ClusterDesign(Composite):
    """A full design point: one GPU's optical I/O (`link`) and the fabric that connects the GPUs. Each part's
    metadata says when its keys have an effect: the optical sections for the SiP kinds, each kind's own section
    for that kind."""

    link: LinkDesign = _part(LinkDesign, when("fabric", "kind", *OPTICAL_KINDS))
    fabric: FabricSection = _part(FabricSection)
    sip_ring: SipRingSection = _part(SipRingSection, when("fabric", "kind", "sip-ring"))
    sip_ocs: SipOcsSection = _part(SipOcsSection, when("fabric", "kind", "sip-ocs"))
    electrical: ElectricalSection = _part(ElectricalSection, when("fabric", "kind", "electrical", "ideal"))
