"""The fabric part of a design point: which kind of fabric, how many GPUs, and that kind's own settings.

`[fabric]` holds what every kind shares; each kind (fabric.registry) declares its own section (`[sip_ring]`,
`[sip_ocs]`, `[electrical]`, `[ideal]`) next to its model. A `ClusterDesign` carries the optical link, the `[fabric]`
section and the kind's own section as `topology`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from core.errors import InputError, did_you_mean, shown
from core.fields import Composite, Section, Spec, default_of, default_part, non_negative, param
from fabric.registry import declared, get_kind
from photonics.design import MAX_CHANNELS, MAX_DB, MAX_FIBER_M, MAX_LATENCY_S, LinkDesign  # noqa: F401  (bounds the kinds use)

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


@dataclass(frozen=True, kw_only=True, slots=True)
class FabricSection(Section):
    section_name: ClassVar[str] = "fabric"

    kind: str = field(default="sip-ring", metadata={"spec": KindSpec(
        unit="choice", help="fabric kind", source="—", default_text="sip-ring", choices=KINDS)})
    gpus: int = param(1024, "1", "GPUs in the cluster", f"{SIPML}: 1024-GPU experiments", lo=2, hi=MAX_GPUS,
                      integer=True)
    gpu: str = param("gpu.a100_sxm4", "text", "catalog entry of the GPU", "[assumed] A100-class, as in "
                     "SiP-ML's era")
    host: str = param("server.dgx_a100_host", "text", "catalog entry of the server share per GPU (host, "
                      "chassis; 'none' for none)", "[assumed] DGX-class host", choices=("none",))
    job_gpus: int = param(0, "1", "GPUs of the largest job the cluster must run as one (0: the whole cluster); "
                          "collectives run over its ranks", "[assumed] one job on the whole cluster, as in SiP-ML's "
                          "experiments", lo=0, hi=MAX_GPUS, integer=True, at_most="gpus")
    launch_latency: float = non_negative("8.4 us", "s", "fixed cost of starting one collective (kernel launch "
                                         "and set-up), paid once per call", f"{NCCL} (v2.7–2.30): base latency "
                                         "8.4 µs for Ring/Tree Simple [verbatim]", hi=MAX_LATENCY_S)
    message_size: float = param("100 MB", "byte", "message size per rank for the collective times of `sipml fabric`",
                                "[assumed] gradient bucket scale", lo=0.0, lo_open=True, hi=MAX_MESSAGE_BYTES)
    pue: float = param(1.1, "1", "power usage effectiveness for cluster power", "Epoch AI, hyperscale "
                       "[verbatim]", lo=1.0, hi=3.0)


@dataclass(frozen=True, kw_only=True, slots=True)
class ClusterDesign(Composite):
    """A full design point: one GPU's optical I/O (`link`), the shared `[fabric]` settings, and the fabric kind's
    own section (`topology`; its defaults when not given)."""

    link: LinkDesign = default_part(LinkDesign)
    fabric: FabricSection = default_part(FabricSection)
    topology: object = None
    has_fabric: bool = False  # the design file declared a [fabric]: checks then cover the fabric too

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
