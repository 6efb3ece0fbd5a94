"""The fabric part of a design point: which kind of fabric, how many GPUs, and that kind's own settings.

`[fabric]` holds what every kind shares; each kind (fabric.registry) declares its own section (`[sip_ring]`,
`[sip_ocs]`, `[electrical]`, `[ideal]`) next to its model. A `ClusterDesign` carries the optical link, the `[fabric]`
section and the kind's own section as `topology`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import InputError
from core.fields import non_negative, param
from photonics.design import LinkDesign

SIPML = "SiP-ML simulator (MLNetwork/rostam) [sim]"
NCCL = "NCCL src/graph/tuning.cc"
MAX_GPUS = 1 << 18  # the fabric floor works on flows: 131 072 GPUs with the training pattern take ~1.6 s, ~0.35 GB


@dataclass(frozen=True, kw_only=True, slots=True)
class FabricSection:
    kind: str = param("sip-ring", "text", "fabric kind: sip-ring, sip-ocs, electrical or ideal", "—")
    gpus: int = param(1024, "1", "GPUs in the cluster", f"{SIPML}: 1024-GPU experiments", lo=2, hi=MAX_GPUS,
                      integer=True)
    gpu: str = param("gpu.a100_sxm4", "text", "catalog entry of the GPU", "[assumed] A100-class, as in "
                     "SiP-ML's era")
    host: str = param("server.dgx_a100_host", "text", "catalog entry of the server share per GPU (host, "
                      "chassis; 'none' for none)", "[assumed] DGX-class host")
    job_gpus: int = param(0, "1", "GPUs of the largest job the cluster must run as one (0: the whole cluster); "
                          "collectives run over its ranks", "[assumed] one job on the whole cluster, as in SiP-ML's "
                          "experiments", lo=0, hi=MAX_GPUS, integer=True)
    launch_latency: float = non_negative("8.4 us", "s", "fixed cost of starting one collective (kernel launch "
                                         "and set-up), paid once per call", f"{NCCL} (v2.7–2.30): base latency "
                                         "8.4 µs for Ring/Tree Simple [verbatim]")
    message_size: float = param("100 MB", "byte", "message size per rank for the collective times of `sipml fabric`",
                                "[assumed] gradient bucket scale", lo=0.0, lo_open=True)
    pue: float = param(1.1, "1", "power usage effectiveness for cluster power", "Epoch AI, hyperscale "
                       "[verbatim]", lo=1.0, hi=3.0)


@dataclass(frozen=True, kw_only=True, slots=True)
class ClusterDesign:
    """A full design point: one GPU's optical I/O (`link`), the shared `[fabric]` settings, and the fabric kind's
    own section (`topology`; its defaults when not given)."""

    link: LinkDesign = field(default_factory=LinkDesign)
    fabric: FabricSection = field(default_factory=FabricSection)
    topology: object = None
    has_fabric: bool = False  # the design file declared a [fabric]: checks then cover the fabric too

    def __post_init__(self):
        from fabric.registry import get_kind

        kind = get_kind(self.fabric.kind)
        if self.topology is None:
            if kind.section_type is not None:
                object.__setattr__(self, "topology", kind.section_type())
        elif kind.section_type is None or not isinstance(self.topology, kind.section_type):
            expected = f"a [{kind.section}] section" if kind.section else "no section of its own"
            raise InputError(f"[fabric] kind = '{kind.name}' takes {expected}, got {type(self.topology).__name__}")
        if self.fabric.job_gpus > self.fabric.gpus:
            raise InputError(f"[fabric] job_gpus = {self.fabric.job_gpus} is more than the cluster's gpus = "
                             f"{self.fabric.gpus}")

    @property
    def job_gpus(self) -> int:
        """GPUs of the largest job: the ranks every collective runs over (`job_gpus`, or the whole cluster)."""
        return self.fabric.job_gpus or self.fabric.gpus
