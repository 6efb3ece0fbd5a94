"""What fails in a cluster and what each failure does to a training job: the failure rates of its parts
(`fabric/catalog/reliability.toml`), counted from the design's bill of materials, and each fabric kind's failure
domains (`fabric.kind.FabricKind.failure_domains`).

A job of G ranks is exposed to the parts of its GPUs (every per-GPU line of the bill times G) and its share of the
shared parts (a per-cluster line times G/N, N the cluster's GPUs) [assumed: a job spread evenly over the fabric's
switches]. A part of kind i, n_i of them, fails at λ_i = 1/MTBF_i; a share p_i of its failures stops the job (1 for
a single-homed part under synchronous training; 0 where the fabric rides through: a spine switch ECMP routes
around, an OCS port whose GPU keeps its other ports); so the job's interruption rate is Σ n_i·λ_i·p_i and its mean
time to interruption M = 1/Σ n_i·λ_i·p_i (reliability.md Y11). Each interrupting failure is recovered one of two
ways: rescheduled onto healthy parts ('restart'), or a spare swapped in ('spare': a hot-spare GPU, a spare cube the
OCSes wire in) at the kind's swap time; a software failure restarts where it ran ('in place'). A pool of hot spares
covers a failure only while one of them is free: each failure it covers takes a spare out until the failed part is
repaired ([reliability] spare_repair_time), so the share of those failures that find one free is 1 − B(s, λ·T_r),
Erlang's loss formula for s spares offered λ·T_r spare-days of repairs (`spare_coverage`); the others are
rescheduled. A failure the job rides through costs no restart here (its bandwidth loss until repair is not
modelled).
"""

from __future__ import annotations

from pathlib import Path

from core import toml_files
from core.records import record
from core.units import parse_value

RATES_FILE = Path(__file__).parent / "catalog" / "reliability.toml"
DAY_S = 86400.0


@record
class Cause:
    """One failure cause: the catalog entries it applies to (key prefixes), its MTBF per unit of their bill lines
    (both readings of Llama 3's Table 5 where they differ), and where the figure comes from."""

    name: str
    what: str
    applies: tuple[str, ...]
    mtbf_s: float
    mtbf_percentages_s: float | None
    source: str
    derivation: str
    tag: str
    reading: str = ""  # the reading of Llama 3's Table 5 it belongs to alone ("": both)
    recovery: str = ""  # how the job recovers from it whatever the part ("in place": restarted where it ran)

    def mtbf(self, reading: str) -> float:
        return self.mtbf_percentages_s if reading == "percentages" and self.mtbf_percentages_s else self.mtbf_s


@record
class Rates:
    """The failure causes of a rates file, each with what it hits, its MTBF, source and recovery."""
    causes: tuple[Cause, ...]


def load_rates(path: Path = RATES_FILE) -> Rates:
    """The failure causes of the rates file (checked: each has its keys, an MTBF above zero)."""
    data = toml_files.read(path, "failure-rates file")
    causes = []
    for name, row in data.get("cause", {}).items():
        mtbf = parse_value(row["mtbf"], "s")
        other = parse_value(row["mtbf_percentages"], "s") if "mtbf_percentages" in row else None
        if not mtbf > 0 or (other is not None and not other > 0):
            raise ValueError(f"{path}: [cause.{name}] mtbf must be above zero")
        causes.append(Cause(name=name, what=row["what"], applies=tuple(row["applies"]), mtbf_s=mtbf,
                            mtbf_percentages_s=other, source=row["source"], derivation=row["derivation"],
                            tag=row["tag"], reading=row.get("reading", ""), recovery=row.get("recovery", "")))
    return Rates(causes=tuple(causes))


@record
class Domain:
    """What a failure of one catalog entry's parts does to a job: the share of its failures that stop the job, how
    the job recovers from those ('restart' or 'spare'), the time to swap a spare in (None: [reliability]
    spare_swap_time), and why. `own`: the part belongs to one GPU's share of the network (a NIC's module), so a
    hot-spare GPU, which comes with its own, takes its failures over as it does the GPU's (SPARED)."""

    interrupts: float = 1.0
    recovery: str = "restart"
    swap_s: float | None = None
    why: str = "single-homed: synchronous training stops"
    own: bool = False


RIDES = "the job rides through"


@record
class FailureLine:
    """One cause on one entry of the job's parts: how many units the job is exposed to, their MTBF, the share of
    failures that stop the job and how it recovers; `per_s` the interruptions it causes per second."""

    component: str
    cause: str
    units: float
    mtbf_s: float
    interrupts: float
    recovery: str
    swap_s: float | None
    why: str
    source: str
    tag: str
    hot_spare: bool = False  # recovered by the design's hot-spare GPUs ([reliability] spare_gpus), while one is free

    @property
    def failures_per_s(self) -> float:
        return self.units / self.mtbf_s

    @property
    def per_s(self) -> float:
        return self.failures_per_s * self.interrupts


def cause_of(key: str, causes) -> list[Cause]:
    """The causes that apply to catalog entry `key` (a prefix match)."""
    return [c for c in causes if key.startswith(c.applies)]


def failure_lines(bom, design, domains: dict, job_gpus: int, rates: Rates | None = None) -> list[FailureLine]:
    """Every cause on every line of the priced bill `bom` (fabric.bom.BomResult) that the job is exposed to: per-GPU
    lines (the GPU, its host share, NIC) times the job's GPUs, shared ones times its share of the cluster (a line
    no cause applies to, such as an NVSwitch share, adds none). `domains`: catalog key → Domain (the kind's; a key
    it leaves out stops the job and restarts)."""
    rates = rates or load_rates()
    reading = design.reliability.table5_reading
    share = job_gpus / bom.gpus
    spares = design.reliability.spare_gpus > 0
    out = []
    for line in bom.lines:
        for cause in cause_of(line.key, rates.causes):
            if cause.reading and cause.reading != reading:
                continue
            domain, hot = domains.get(line.key, Domain()), False
            if cause.recovery and domain.interrupts > 0:
                domain = Domain(domain.interrupts, cause.recovery, None, "no part fails: the job restarts where it ran")
            elif spares and domain.recovery == "restart" and domain.interrupts > 0 and (line.key.startswith(SPARED)
                                                                                      or domain.own):
                domain, hot = Domain(domain.interrupts, "spare", domain.swap_s, domain.why + "; a hot spare takes "
                                     "over while one is free, else the job is rescheduled"), True
            out.append(FailureLine(component=line.key, cause=cause.what, units=line.count_per_cluster * share,
                                   mtbf_s=cause.mtbf(reading), interrupts=domain.interrupts,
                                   recovery=domain.recovery, swap_s=domain.swap_s, why=domain.why,
                                   source=cause.source, tag=cause.tag, hot_spare=hot))
    return out


SPARED = ("gpu.", "server.", "nic.", "nvswitch.", "sip.", "laser.")  # a GPU's own parts: a hot spare brings its own


def spare_coverage(spares: int, offered):
    """The share of the failures a pool of `spares` hot spares is asked for that find one free: 1 − B(s, a), B
    Erlang's loss formula for s servers offered a = (failures per second) × (repair time), by its recurrence
    B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)); B does not depend on how repair times are spread, only on their mean
    (A. K. Erlang 1917; L. Kleinrock, Queueing Systems I, 1975, §3.10). `offered` may be an array over a sweep's
    grid; past the spares the load needs (B below 1e-17), the rest of the pool leaves 1 unchanged."""
    import numpy as np

    a = np.asarray(offered, dtype=float)
    blocked = np.ones_like(a)
    for k in range(1, int(spares) + 1):
        blocked = a * blocked / (k + a * blocked)
        if np.all(blocked < 1e-17):
            break
    covered = 1.0 - blocked
    return float(covered) if covered.ndim == 0 else covered
