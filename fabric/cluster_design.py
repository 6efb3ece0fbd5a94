"""The fabric part of a design point: which kind of fabric, how many GPUs, and that kind's own settings.

`[fabric]` holds what every kind shares; each kind (fabric.registry) declares its own section (`[sip_ring]`,
`[sip_ocs]`, `[electrical]`, `[ideal]`) next to its model. A `ClusterDesign` carries the optical link, the `[fabric]`
section and the kind's own section as `topology`.
"""

from __future__ import annotations

from dataclasses import field
from typing import ClassVar

from core.errors import InputError, did_you_mean, shown
from core.fields import (Composite, FieldError, Section, Spec, default_of, default_part, non_negative, param, positive,
                         when)
from core.records import record
from fabric.registry import declared, get_kind
from photonics.link_design import MAX_CHANNELS, MAX_DB, MAX_FIBER_M, MAX_LATENCY_S, LinkDesign  # noqa: F401  (bounds the kinds use)

SIPML = "SiP-ML simulator (MLNetwork/rostam) [sim]"
NCCL = "NCCL src/graph/tuning.cc"
# Bounds of the design space, so the work a design causes is bounded.
KINDS = ("sip-ring", "sip-ocs", "ocs-torus", "electrical", "ideal")  # the built-in fabric kinds (fabric.registry)
MAX_GPUS = 1 << 20  # [assumed] frontier plans reach 10⁵–10⁶ GPUs; a 10⁶-GPU fabric with the training pattern takes seconds
MAX_SERVER_GPUS = 1024  # [assumed] beyond the 72–576 GPUs of the largest NVLink domains announced
MAX_SWITCH_RADIX = 4096  # [assumed] 8× the 512 ports of the largest switch ASICs (51.2 Tbps at 100G)
MAX_TRANSCEIVER_PORTS = 8  # [assumed] an OSFP module breaks out into at most 8 lanes (8 × 100G DR8)
MIN_RATE_BPS, MAX_RATE_BPS = 1e6, 1e15  # [assumed] 1 Mbit/s to 1 Pbit/s per GPU, around every interconnect
MAX_MESSAGE_BYTES = 1e15  # [assumed] 1 PB per rank, beyond any collective


class KindSpec(Spec):
    """[fabric] kind: a kind of `fabric.registry` (the built-in four, listed as `choices`, or one registered
    since)."""

    __slots__ = ()

    def range_text(self) -> str:
        """Every registered kind, the built-in ones first."""
        return " | ".join(entry.name for entry in declared())

    def parse(self, value):
        names = [entry.name for entry in declared()]
        if isinstance(value, str) and value in names:
            return value
        raise InputError(f"got {shown(value)}, expected one of {', '.join(names)}{did_you_mean(value, names)}")


@record(kw_only=True)
class FabricSection(Section):
    """The `[fabric]` section: the fabric kind, the cluster's and the job's GPUs, the catalog GPU and host, the
    collectives' launch latency and message size, the data hall's PUE."""

    section_name: ClassVar[str] = "fabric"

    kind: str = field(default="sip-ring", metadata={"spec": KindSpec(
        unit="choice", help="fabric kind", source="—", default_text="sip-ring", choices=KINDS)})
    gpus: int = param(1024, "1", "GPUs in the cluster", f"{SIPML}: 1024-GPU experiments", lo=2, hi=MAX_GPUS,
                      integer=True)
    gpu: str = param("gpu.a100_sxm4", "text", "catalog entry of the GPU", "[assumed] A100-class, as in "
                     "SiP-ML's era")
    host: str = param("gpu", "text", "catalog entry of the server share per GPU (host, chassis); 'gpu': the server "
                      "the GPU ships in (DGX-1, DGX A100, DGX H100, DGX B200, GB200 NVL72 rack); 'none' for none",
                      "[assumed] the GPU's own DGX-class server", choices=("gpu", "none"))
    job_gpus: int = param(0, "1", "GPUs of the largest job the cluster must run as one (0: the whole cluster); "
                          "collectives run over its ranks", "[assumed] one job on the whole cluster, as in SiP-ML's "
                          "experiments", lo=0, hi=MAX_GPUS, integer=True, at_most="gpus")
    launch_latency: float = non_negative("8.4 us", "s", "fixed cost of starting one collective (kernel launch "
                                         "and set-up), paid once per call", f"{NCCL} (v2.7–2.30): base latency "
                                         "8.4 µs for Ring/Tree Simple [verbatim]", hi=MAX_LATENCY_S)
    message_size: float = param("100 MB", "byte", "message size per rank for the collective times of `sipml fabric`",
                                "[assumed] gradient bucket scale", lo=1.0, hi=MAX_MESSAGE_BYTES)  # a byte at least
    pue: float = param(1.1, "1", "power usage effectiveness for cluster power", "Epoch AI, hyperscale "
                       "[verbatim]", lo=1.0, hi=3.0)

    def __post_init__(self):
        Section.__post_init__(self)
        if not self.gpu.startswith("gpu."):
            raise FieldError(self.section_name, f"gpu = {shown(self.gpu)}: not a GPU entry (gpu.…)")
        if self.host not in ("gpu", "none") and not self.host.startswith("server."):
            raise FieldError(self.section_name, f"host = {shown(self.host)}: not a server entry (server.…), "
                                                "'gpu' or 'none'")

    @property
    def server(self) -> str:
        """The catalog entry of the server share per GPU: `host`, or the GPU's own server where host = 'gpu' (a
        FieldError for a GPU the calculator knows no server for: `server_refusal`)."""
        refusal = self.server_refusal()
        if refusal is not None:
            raise refusal
        return SERVERS[self.gpu] if self.host == "gpu" else self.host

    def server_refusal(self) -> FieldError | None:
        """Why `server` has no entry to give (host = 'gpu' with a GPU the calculator knows no server for); None
        where it has one."""
        if self.host != "gpu" or self.gpu in SERVERS:
            return None
        return FieldError(self.section_name, f"host = 'gpu': {self.gpu} ships in no server the calculator knows "
                                             f"({', '.join(sorted(SERVERS))} do){did_you_mean(self.gpu, SERVERS)}; "
                                             "set host to a server.* catalog entry, or 'none' (and an electrical "
                                             "design's [electrical] nvlink_bandwidth and nvswitch for its servers)")


# The server each catalog GPU ships in, the host [fabric] host = 'gpu' takes: NVIDIA's DGX (or rack) product for
# that GPU [restated: costs-power.md (DGX-1, DGX A100, DGX H100), workloads-2.md §8 (DGX B200), fabrics-2026.md K19
# (GB200 NVL72)]; the H800 and H200 in the DGX H100's [assumed: DGX H800 and DGX H200 are that server with those
# GPUs, 8 per node at 700 W each, as the H100's].
SERVERS = {"gpu.v100_sxm2": "server.dgx1_v100_host", "gpu.a100_sxm4": "server.dgx_a100_host",
           "gpu.a100_sxm4_80gb": "server.dgx_a100_host", "gpu.h100_sxm5": "server.dgx_h100_host",
           "gpu.h800_sxm5": "server.dgx_h100_host", "gpu.h200_sxm": "server.dgx_h100_host",
           "gpu.b200_sxm": "server.dgx_b200_host", "gpu.gb200": "server.gb200_nvl72_host"}


@record
class ServerNvlink:
    """A server's NVLink domain: the NVLink each of its GPUs gets (bit/s a direction; 0: none), the catalog entry of
    its NVSwitch share per GPU ('none': no switch), its GPUs (the domain's size) and its name."""

    nvlink_bps: float
    nvswitch: str
    gpus: int = 8
    name: str = ""


# The NVLink domain of each server SERVERS names, what an [electrical] section takes with nvlink_bandwidth = 0 and
# nvswitch = 'server'. DGX A100: 600 GB/s a GPU, both directions (costs-power.md); DGX H100: 900 GB/s (workloads.md,
# workloads-2.md §6; an H800 in it moves its own 400, `workloads.speedup.gpu_bound`); DGX B200 and GB200 NVL72:
# 1.8 TB/s, NVLink 5 (workloads-2.md §6, fabrics-2026.md K19) [verbatim]; half of each per direction [inferred].
# Domains of 8 GPUs, the NVL72's of 72 (workloads-2.md §6) [restated]. DGX-1: 300 GB/s a V100 (workloads.md)
# [restated], over direct links without an NVSwitch (server.dgx1_v100_host's notes): taken as a crossbar at that
# rate [assumed].
SERVER_NVLINK = {
    "server.dgx1_v100_host": ServerNvlink(nvlink_bps=1.2e12, nvswitch="none", name="DGX-1"),
    "server.dgx_a100_host": ServerNvlink(nvlink_bps=2.4e12, nvswitch="nvswitch.a100_share", name="DGX A100"),
    "server.dgx_h100_host": ServerNvlink(nvlink_bps=3.6e12, nvswitch="nvswitch.h100_share", name="DGX H100"),
    "server.dgx_b200_host": ServerNvlink(nvlink_bps=7.2e12, nvswitch="nvswitch.b200_share", name="DGX B200"),
    "server.gb200_nvl72_host": ServerNvlink(nvlink_bps=7.2e12, nvswitch="nvswitch.gb200_share", gpus=72,
                                            name="GB200 NVL72")}
# NVSwitch shares whose switch does not reduce in the network: NCCL's NVLS efficiency is 0 before Hopper
# (fabric-photonics-3.md F4) [verbatim]; NVSwitch gen 3 (H100) and the NVLink 5 switch reduce (NVLink SHARP).
NO_NVLS_SWITCHES = ("none", "nvswitch.a100_share")


def server_nvlink(fabric: FabricSection, asked: str) -> ServerNvlink:
    """The NVLink domain `asked` (the settings that take it, as the user reads them) takes: that of the server
    `host` names where the calculator knows it, else that of the server the GPU ships in (`host` = 'none' prices no
    server, a catalog file's server has no domain the calculator knows: the GPU's own servers are still its NVLink);
    an InputError naming the settings where neither is known."""
    if fabric.host in SERVER_NVLINK:
        return SERVER_NVLINK[fabric.host]
    refusal = fabric.server_refusal()  # host = 'gpu' and a GPU of no known server: that first
    if refusal is not None:
        raise refusal
    if SERVERS.get(fabric.gpu) in SERVER_NVLINK:
        return SERVER_NVLINK[SERVERS[fabric.gpu]]
    two = " and " in asked
    raise InputError(f"{asked} take{'' if two else 's'} the NVLink domain of the GPU's server, and {fabric.gpu} "
                     f"ships in no server the calculator knows, nor is [fabric] host = {fabric.host!r} one "
                     f"({', '.join(sorted(SERVER_NVLINK))} are): set {'them' if two else 'it'} for its servers")


L3 = "Llama 3 (Grattafiori et al., arXiv 2407.21783) §3.3"


@record(kw_only=True)
class ReliabilitySection(Section):
    """What a job's interruptions cost (`fabric.reliability`, `workloads.goodput`): checkpoints, restarts, spares."""

    section_name: ClassVar[str] = "reliability"

    storage_write_bandwidth: float = positive("2 TB/s", "byte/s", "checkpoint storage write bandwidth, whole job "
                                              "(the training pause per checkpoint is its size over this)",
                                              f"{L3}.1: Tectonic, 2 TB/s sustained [verbatim]", lo=1e6, hi=1e15)
    storage_read_bandwidth: float = positive("7 TB/s", "byte/s", "checkpoint read bandwidth on restart, whole job",
                                             f"{L3}.1: Tectonic, 7 TB/s peak [verbatim]", lo=1e6, hi=1e15)
    storage_port_bandwidth: float = positive("12.5 GB/s", "byte/s", "per GPU, its share of the servers' storage "
                                             "network ports: a job writes and reads its checkpoint no faster than "
                                             "its GPUs' shares together, however fast the storage", "NVIDIA DGX "
                                             "BasePOD reference architecture: DGX H100/H200 and B200 reach storage "
                                             "over two 400 Gb/s ports per 8-GPU server [restated]; 800 Gb/s / 8 "
                                             "[inferred]; the same taken for every server [assumed]", lo=1e6, hi=1e13)
    checkpoint_bytes_per_parameter: float = positive(14.0, "1", "bytes of checkpoint per model parameter",
                                                     "bf16 weights (2) + fp32 master weights (4) + Adam's two fp32 "
                                                     "moments (8) (reliability.md Y6a) [inferred]", lo=0.5, hi=64.0)
    checkpoint_interval: float = non_negative("0 s", "s", "compute time between checkpoints (0: Daly's optimum for "
                                              "the job's interruption rate)", "Daly 2006 (reliability.md Y8)",
                                              hi=1e7)
    checkpoint_write: str = param("synchronous", "choice", "'synchronous': training pauses while the checkpoint is "
                                  "written to storage; 'asynchronous': it pauses only to copy the state to host "
                                  "memory, the write goes on behind training and must end before the next "
                                  "checkpoint (the interval is at least the write)", "reliability.md Y6b [inferred]",
                                  choices=("synchronous", "asynchronous"))
    host_copy_bandwidth: float = positive("25 GB/s", "byte/s", "per GPU, device-to-host copy of its share of the "
                                          "checkpoint (checkpoint_write = asynchronous)", "[assumed] about half of a "
                                          "PCIe Gen5 x16 link's 64 GB/s, shared with the rest of the host's traffic",
                                          lo=1e6, hi=1e13,
                                          applies_when=when("reliability", "checkpoint_write", "asynchronous"))
    detection_time: float = non_negative("120 s", "s", "time to notice a failure (watchdog or health-check "
                                         "timeout)", "not published for Llama 3 (reliability.md Y17a) [assumed]",
                                         hi=1e5)
    reschedule_time: float = non_negative("180 s", "s", "time to move the job onto healthy parts when no spare "
                                          "takes over (isolation, scheduling; healthy GPUs to move to, idle or "
                                          "buffer ones, are taken to be there)", "not published (reliability.md "
                                          "Y17a) [assumed]", hi=1e6)
    startup_time: float = non_negative("120 s", "s", "job start-up after a restart, before the checkpoint is read "
                                       "(process launch, collective initialisation)", "not published (reliability.md"
                                       " Y17a) [assumed]", hi=1e5)
    spare_gpus: int = param(0, "1", "hot-spare GPUs (each with its share of host and network) bought beside the "
                            "cluster for the job, at most as many as it has: a failure of a GPU or its server is "
                            "recovered by swapping a free one in, not by rescheduling; each stays in use until the "
                            "failed part is repaired (spare_repair_time)", "[assumed] none", lo=0, integer=True,
                            hi=MAX_GPUS)
    spare_repair_time: float = positive("24 h", "s", "time until a failure a spare took over (hot-spare GPUs, a "
                                        "torus pod's spare cube) is repaired and the spare is free again (a failure "
                                        "that finds too few free is rescheduled: a loss system's formula)",
                                        "[assumed] a failed server diagnosed and repaired, or its part replaced from "
                                        "stock, within a day; not published for Llama 3 (reliability.md Y17a)",
                                        lo=60.0, hi=1e8)
    spare_swap_time: float = non_negative("60 s", "s", "time to swap a hot spare in (a fabric that re-points "
                                          "circuits to its spare takes its own reconfiguration time instead)",
                                          "[assumed] NVIDIA's fault-tolerance launcher and GKE Hotswap restart onto "
                                          "spares in seconds to a minute (reliability.md Y17)", hi=1e5)
    planned_per_day: float = non_negative(0.87, "1", "planned interruptions per day (maintenance, firmware, "
                                          "configuration), each after a checkpoint: a restart, no lost work",
                                          f"{L3}.4: 47 in 54 days [verbatim]; 47/54 [inferred]", hi=100.0)
    table5_reading: str = param("counts", "choice", "which reading of Llama 3's inconsistent Table 5 the GPU rates "
                                "take: 'counts' (148 faulty-GPU events, the stated total of 419) or 'percentages' "
                                "(≈ 126 at the printed 30.1 %)", "reliability.md Y3, Y3a", choices=("counts",
                                                                                                  "percentages"))


@record(kw_only=True)
class ClusterDesign(Composite):
    """A full design point: one GPU's optical I/O (`link`), the shared `[fabric]` settings, and the fabric kind's
    own section (`topology`; its defaults when not given)."""

    link: LinkDesign = default_part(LinkDesign)
    fabric: FabricSection = default_part(FabricSection)
    topology: object = None
    reliability: ReliabilitySection = default_part(ReliabilitySection)
    has_fabric: bool = False  # the design file declared a [fabric]: checks then cover the fabric too
    # what it was loaded as (a file or a built-in name; None: built in Python): what a result names it; not compared,
    # and kept by dataclasses.replace (a loaded design changed in Python keeps its name)
    name: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        Composite.__post_init__(self)
        kind = get_kind(self.fabric.kind)
        if self.topology is None:
            if kind.section_type is not None:
                object.__setattr__(self, "topology", default_of(kind.section_type))
        elif kind.section_type is None or not isinstance(self.topology, kind.section_type):
            expected = f"a [{kind.section}] section" if kind.section else "no section of its own"
            raise InputError(f"[fabric] kind = '{kind.name}' takes {expected}, got {type(self.topology).__name__}")

    @property
    def job_gpus(self) -> int:
        """GPUs of the largest job: the ranks every collective runs over (`job_gpus`, or the whole cluster)."""
        return self.fabric.job_gpus or self.fabric.gpus
