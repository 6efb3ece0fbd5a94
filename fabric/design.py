"""Fabric settings of a design point: which topology, how many GPUs, and each topology's own parameters.

Sections: `[fabric]` for every design, and one section per topology kind (`[sip_ring]`, `[sip_ocs]`,
`[electrical]`); a section that does not apply to the chosen kind is an input error, never silently ignored.
Defaults follow the SiP-ML simulator [sim] (Khani et al., SIGCOMM 2021; MLNetwork/rostam) and the component
numbers of shared/reference/costs-power.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from photonics.design import LinkDesign
from core.fields import non_negative, param, positive

_SIPML = "SiP-ML simulator (MLNetwork/rostam) [sim]"
KINDS = ("sip-ring", "sip-ocs", "electrical", "ideal")


@dataclass(frozen=True, kw_only=True, slots=True)
class FabricSection:
    kind: str = param("sip-ring", "choice", "topology", "—", choices=KINDS)
    gpus: int = param(1024, "1", "GPUs in the cluster", f"{_SIPML}: 1024-GPU experiments", lo=2, integer=True)
    gpu: str = param("gpu.a100_sxm4", "text", "catalog entry of the GPU", "[assumed] A100-class, as in "
                     "SiP-ML's era")
    host: str = param("server.dgx_a100_host", "text", "catalog entry of the server share per GPU (host, "
                      "chassis; 'none' for none)", "[assumed] DGX-class host")
    job_gpus: int = param(0, "1", "GPUs of the largest job the cluster must run as one (0: the whole cluster); "
                          "collective times use it", "[assumed] one job on the whole cluster, as in SiP-ML's "
                          "experiments", lo=0, integer=True)
    latency: float = non_negative("1 us", "s", "per-message latency α of a collective step", "[assumed] SiP "
                                  "chiplet ~5 ns + fiber + protocol; NCCL-like α is µs-scale")
    message_size: float = positive("100 MB", "bit", "message size for the collective times of `sipml fabric`",
                                   "[assumed] gradient bucket scale")
    pue: float = param(1.1, "1", "power usage effectiveness for cluster power", "Epoch AI, hyperscale "
                       "[verbatim]", lo=1.0, hi=3.0)


@dataclass(frozen=True, kw_only=True, slots=True)
class SipRingSection:
    """The ring hop between neighbouring GPUs is the design's [link]/[loss]: its fiber_length and connectors."""

    directions: int = param(2, "1", "ring directions (the link's fibers are split evenly over them)",
                            f"{_SIPML}: 2 directions × 5 fibers", lo=1, hi=2, integer=True)
    decision_interval: float = positive("100 us", "s", "time between wavelength re-allocations",
                                        f"{_SIPML}")
    locality: int = param(16, "1", "ring distance within which model-parallel partitions are placed",
                          f"{_SIPML}: 16 GPUs", lo=1, integer=True)
    amplifier_every: int = param(0, "1", "an optical amplifier every this many hops (0: none)", "[assumed] "
                                 "none", lo=0, integer=True)
    amplifier: str = param("amplifier.soa", "text", "catalog entry of the amplifier", "[assumed] O-band SOA")
    amplifier_gain: float = non_negative("20 dB", "dB", "small-signal gain per amplifier",
                                         "[assumed] O-band SOA class")
    amplifier_noise_figure: float = non_negative("7 dB", "dB", "amplifier noise figure",
                                                 "[assumed] O-band SOA class")


@dataclass(frozen=True, kw_only=True, slots=True)
class SipOcsSection:
    switches: int = param(20, "1", "optical circuit switches (= ports per GPU, the GPU degree)",
                          f"{_SIPML}: 20 OCSes", lo=1, integer=True)
    switch: str = param("ocs.polatis_384", "text", "catalog entry of the OCS", "Polatis 7000, 384 ports "
                        "[verbatim]")
    radix: int = param(384, "1", "ports per OCS", "Polatis 7000 (384 × 384) [verbatim]", lo=2, integer=True)
    topology: str = param("single", "choice", "how GPUs beyond one switch's radix are served: 'single' (one "
                          "layer, needs radix ≥ GPUs), 'partitioned' (independent pods of ≤ radix GPUs), 'clos' "
                          "(3-stage folded Clos, 3 switch passes)", "—", choices=("single", "partitioned", "clos"))
    reconfiguration_time: float = non_negative("30 ms", "s", "time to set a new circuit configuration",
                                               f"{_SIPML} default; 10 ms in a paper summary")
    shots: str = param("single", "choice", "'single': configured once per job; 'multi': reconfigured every "
                       "5 × reconfiguration time", f"{_SIPML}", choices=("single", "multi"))


@dataclass(frozen=True, kw_only=True, slots=True)
class ElectricalSection:
    gpus_per_server: int = param(8, "1", "GPUs per server on the NVSwitch (g)", "DGX A100/H100 [verbatim]",
                                 lo=1, integer=True)
    nvlink_bandwidth: float = positive("2400 Gbit/s", "bit/s", "NVLink bandwidth per GPU per direction (B_n)",
                                       "A100: 600 GB/s bidirectional = 300 GB/s per direction [verbatim]")
    nic_bandwidth: float = positive("200 Gbit/s", "bit/s", "scale-out NIC bandwidth per GPU (B_e)",
                                    "DGX A100: one ConnectX-6 HDR 200 Gb/s per GPU [verbatim]")
    nic: str = param("nic.connectx6_hdr_200g", "text", "catalog entry of the NIC", "MLPerf v1.0 [verbatim]")
    transceiver: str = param("transceiver.hdr_200g_qsfp56", "text", "catalog entry of the NIC-end transceiver",
                             "[assumed] HDR optics")
    switch_transceiver: str = param("transceiver.hdr_200g_qsfp56", "text", "catalog entry of a switch-port "
                                    "transceiver", "[assumed] HDR optics")
    switch_transceiver_ports: int = param(1, "1", "switch ports one switch-side transceiver serves (2: twin-port "
                                          "OSFP)", "[assumed] one", lo=1, integer=True)
    switch: str = param("switch.ib_hdr_40p", "text", "catalog entry of the fat-tree switch", "[assumed] HDR "
                        "40-port class (QM8700)")
    switch_radix: int = param(40, "1", "ports per fat-tree switch (k)", "QM8700, 40 × 200G [verbatim]", lo=2,
                              integer=True)
    link_length: float = non_negative("15 m", "m", "average fiber length of a fat-tree link (one patch cable each)",
                                      "[assumed] within a row of racks")
    oversubscription: float = param(1.0, "1", "fat-tree oversubscription (down/up at the leaves)",
                                    "[assumed] non-blocking", lo=1.0)
    nvswitch: str = param("nvswitch.a100_share", "text", "catalog entry of the NVSwitch share per GPU",
                          "[assumed] DGX A100")
    ideal_bandwidth: float = positive("2000 Gbit/s", "bit/s", "per-GPU rate of the ideal non-blocking switch "
                                      "(kind = ideal)", f"{_SIPML}: swept 128–8192 Gbps; 2 Tbps matches the SiP designs")


FABRIC_SECTIONS: dict[str, type] = {
    "fabric": FabricSection,
    "sip_ring": SipRingSection,
    "sip_ocs": SipOcsSection,
    "electrical": ElectricalSection,
}
SECTION_FOR_KIND = {"sip-ring": "sip_ring", "sip-ocs": "sip_ocs", "electrical": "electrical", "ideal": "electrical"}


def job_size(fabric: FabricSection) -> int:
    """GPUs of the largest job: `job_gpus`, or the whole cluster when 0."""
    return fabric.job_gpus or fabric.gpus


@dataclass(frozen=True, kw_only=True, slots=True)
class ClusterDesign:
    """A full design point: one GPU's optical I/O (`link`) and the fabric that connects the GPUs."""

    link: LinkDesign = field(default_factory=LinkDesign)
    fabric: FabricSection = field(default_factory=FabricSection)
    sip_ring: SipRingSection = field(default_factory=SipRingSection)
    sip_ocs: SipOcsSection = field(default_factory=SipOcsSection)
    electrical: ElectricalSection = field(default_factory=ElectricalSection)
    has_fabric: bool = False  # the design file declared a [fabric]: checks then cover the fabric too
