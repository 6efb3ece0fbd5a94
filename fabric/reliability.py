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
repaired ([reliability] spare_repair_time), a host's failure its HOST_GPUS of them at once, so the share of those
failures that find enough free follows Kaufman–Roberts' loss formula (Erlang's, for failures of one GPU alone) over
the loads λ·T_r (`spare_coverage`); the others are rescheduled, onto healthy parts taken to be there (a cluster's
idle or buffer GPUs). A failure the job rides through costs no restart here (its bandwidth loss until repair is not
modelled).
"""

from __future__ import annotations

import dataclasses
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
    return Rates(causes=tuple(_cause_of(name, _cause_values(f"{path}: [cause.{name}]", row, ()))
                              for name, row in data.get("cause", {}).items()))


def _cause_of(name: str, values: dict) -> Cause:
    """A cause from its checked values (`_cause_values`), the optional keys at their defaults."""
    return Cause(name=name, what=values["what"], applies=values["applies"], mtbf_s=values["mtbf"],
                 mtbf_percentages_s=values.get("mtbf_percentages"), source=values["source"],
                 derivation=values.get("derivation", ""), tag=values["tag"], reading=values.get("reading", ""),
                 recovery=values.get("recovery", ""))


CAUSE_KEYS = {"what": str, "applies": list, "mtbf": str, "mtbf_percentages": str, "source": str,
              "derivation": str, "tag": str, "reading": str, "recovery": str}
NEW_CAUSE_KEYS = ("what", "applies", "mtbf", "source", "tag")  # what a cause a catalog file adds must give


CAUSE_CHOICES = {"reading": ("", "counts", "percentages"), "recovery": ("", "in place")}
MTBF_FIELDS = {"mtbf": "mtbf_s", "mtbf_percentages": "mtbf_percentages_s"}


def merged_causes(rates: Rates, tables: dict, file: str, entries=()) -> tuple[Rates, list[tuple]]:
    """`rates` with a catalog file's `[cause.NAME]` tables (`tables`: {NAME: {key: value}}) laid over them: a key
    of a shipped cause replaced (an MTBF without a source of its own keeps the old source, saying which file changed
    it; a changed `mtbf` is both readings of Llama 3's Table 5 unless `mtbf_percentages` is given too), or a cause
    added whole (NEW_CAUSE_KEYS at least); `entries`, the catalog's keys, each prefix of `applies` must begin one
    of. Returns the rates and the changes, (cause, key, old, new) each."""
    from core.errors import InputError

    causes = {c.name: c for c in rates.causes}
    changes = []
    for name, table in tables.items():
        where = f"{file}: [cause.{name}]"
        values = _cause_values(where, table, entries)
        if name not in causes:
            missing = [k for k in NEW_CAUSE_KEYS if k not in table]
            if missing:
                raise InputError(f"{where}: a new cause needs {', '.join(missing)} (the shipped causes: "
                                 f"{', '.join(causes)})")
            causes[name] = _cause_of(name, values)
            changes.append((name, "added", None, values["what"]))
            continue
        old = causes[name]
        fields = {MTBF_FIELDS.get(k, k): v for k, v in values.items()}
        if "mtbf_percentages" not in values and fields.get("mtbf_s", old.mtbf_s) != old.mtbf_s:
            fields["mtbf_percentages_s"] = None  # a new MTBF for both readings
        new = dataclasses.replace(old, **fields)
        if (new.mtbf_s, new.mtbf_percentages_s) != (old.mtbf_s, old.mtbf_percentages_s) and "source" not in values:
            new = dataclasses.replace(new, source=f"{old.source}; MTBF overridden in {file}")
        changes += [(name, key, _shown_field(getattr(old, field)), _shown_field(getattr(new, field)))
                    for key, field in (*MTBF_FIELDS.items(), *((k, k) for k in CAUSE_KEYS if k not in MTBF_FIELDS
                                                               and k not in ("source", "derivation")))
                    if getattr(old, field) != getattr(new, field)]
        causes[name] = new
    return Rates(causes=tuple(causes.values())), changes


def _shown_field(value) -> object:
    """A cause's field as a change names it: a time in hours, a list of prefixes as written, 'none' for no
    percentages reading."""
    if isinstance(value, float):
        return f"{value / 3600:.6g} h"
    return "none" if value is None else list(value) if isinstance(value, tuple) else value


def _cause_values(where: str, table: dict, entries) -> dict:
    """A `[cause.NAME]` table's values, checked: known keys of their types, choices, tags, MTBFs above zero, and
    `applies` prefixes that begin a catalog entry."""
    from core.errors import InputError
    from core.toml_files import TAGS

    for key, value in table.items():
        if key not in CAUSE_KEYS:
            raise InputError(f"{where}: unknown key {key!r} (a cause takes {', '.join(CAUSE_KEYS)})")
        if not isinstance(value, CAUSE_KEYS[key]) or (key == "applies" and not all(
                isinstance(v, str) and v for v in value)):
            raise InputError(f"{where}: {key} = {value!r}: expected "
                             + ("a list of catalog key prefixes, e.g. [\"gpu.\"]" if key == "applies" else
                                "a quoted text" + (', e.g. "250000 h"' if key.startswith("mtbf") else "")))
        choices = TAGS if key == "tag" else CAUSE_CHOICES.get(key)
        if choices is not None and value not in choices:
            raise InputError(f"{where}: {key} = {value!r}: expected one of "
                             f"{', '.join(repr(c) for c in choices)}")
    if "applies" in table:
        stray = [v for v in table["applies"] if entries and not any(e.startswith(v) for e in entries)]
        if not table["applies"] or stray:
            raise InputError(f"{where}: applies = {table['applies']!r}: " + (
                f"{', '.join(map(repr, stray))} begins no catalog entry" if stray else "names no part") +
                " (give the prefixes of the entries it hits, e.g. [\"nvswitch.\"])")
    return {k: _cause_mtbf(where, k, v) if k.startswith("mtbf") else tuple(v) if k == "applies" else v
            for k, v in table.items()}


def _cause_mtbf(where: str, key: str, text: str) -> float:
    from core.errors import InputError

    try:
        value = parse_value(text, "s")
    except InputError as exc:
        raise InputError(f"{where}: {key} = {text!r}: {exc}") from None
    if not value > 0 or value == float("inf"):
        raise InputError(f"{where}: {key} = {text!r}: expected a time above zero")
    return value


@record
class Domain:
    """What a failure of one catalog entry's parts does to a job: the share of its failures that stop the job, how
    the job recovers from those ('restart' or 'spare'), the time to swap a spare in (None: [reliability]
    spare_swap_time), and why. `own`: the part belongs to one GPU's share of the network (a NIC's module), so a
    hot-spare GPU, which comes with its own, takes its failures over as it does the GPU's (SPARED). `pool`: the
    kind's own spares a 'spare' recovery takes one of until the failure is repaired (a torus pod's spare cubes)."""

    interrupts: float = 1.0
    recovery: str = "restart"
    swap_s: float | None = None
    why: str = "single-homed: synchronous training stops"
    own: bool = False
    pool: int = 0


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
    hot_spare: int = 0  # hot-spare GPUs one failure takes ([reliability] spare_gpus, while enough are free; 0: none)
    pool: int = 0  # the kind's own spares its 'spare' recovery draws one of, while one is free (0: none)

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
            domain, hot = domains.get(line.key, Domain()), 0
            if cause.recovery and domain.interrupts > 0:
                domain = Domain(domain.interrupts, cause.recovery, None, "no part fails: the job restarts where it ran")
            elif spares and domain.recovery == "restart" and domain.interrupts > 0 and (line.key.startswith(SPARED)
                                                                                      or domain.own):
                hot = HOST_GPUS if line.key.startswith("server.") else 1
                takes = f"; hot spares take over its {hot} GPUs" if hot > 1 else "; a hot spare takes over"
                domain = Domain(domain.interrupts, "spare", domain.swap_s,
                                domain.why + takes + " while enough are free, else the job is rescheduled")
            out.append(FailureLine(component=line.key, cause=cause.what, units=line.count_per_cluster * share,
                                   mtbf_s=cause.mtbf(reading), interrupts=domain.interrupts,
                                   recovery=domain.recovery, swap_s=domain.swap_s, why=domain.why,
                                   source=cause.source, tag=cause.tag, hot_spare=hot,
                                   pool=domain.pool if domain.recovery == "spare" and not hot else 0))
    return out


SPARED = ("gpu.", "server.", "nic.", "nvswitch.", "sip.", "laser.")  # a GPU's own parts: a hot spare brings its own
HOST_GPUS = 8  # GPUs a host's failure takes out, each replaced by a hot spare: the 8-GPU servers whose failures the
# host rates count (Llama 3 [L3] §3.3.1; reliability.toml's host causes, per GPU's share of a host) [inferred]


def check_hot_spares(design, kind) -> None:
    """InputError where the design buys hot-spare GPUs ([reliability] spare_gpus) on a fabric kind where no GPU can
    take a failed one's place (`fabric.kind.FabricKind.no_hot_spares`), with the kind's reason."""
    from core.errors import InputError

    spares = design.reliability.spare_gpus
    if spares and kind.no_hot_spares:
        raise InputError(f"[reliability] spare_gpus = {spares}: on {kind.name}, {kind.no_hot_spares}")


def spare_coverage(spares: int, offered: dict) -> dict:
    """The share of the failures a pool of `spares` spares (hot-spare GPUs, a pod's spare cubes) is asked to take
    over that find enough of them free, for each size of takeover: `offered` maps the GPUs one failure takes (1 for a GPU's part, HOST_GPUS for a
    host's) to its offered load a = (those failures per second) × (repair time). Kaufman–Roberts' recurrence for a
    loss system of s units shared by classes that hold b units each, j·q(j) = Σ_b a_b·b·q(j − b) for j ≤ s, a
    failure of class b blocked where more than s − b are in use (J. S. Kaufman, IEEE Trans. Commun. 29(10), 1981;
    J. W. Roberts, 1981); with one class of b = 1 it is Erlang's loss formula, and like it depends on the repair
    times only through their mean. A load may be an array over a sweep's grid; states past any the loads reach
    (beyond 40 standard deviations and 40 takeovers above their mean) are left out: there, every failure is
    covered."""
    import math

    import numpy as np

    loads = {b: np.asarray(a, dtype=float) for b, a in offered.items()}
    if not loads:
        return {}
    mean = sum(np.max(a) * b for b, a in loads.items())
    spread = math.sqrt(sum(np.max(a) * b * b for b, a in loads.items()))
    top = min(int(spares), math.ceil(mean + 40.0 * spread + 40.0 * max(loads)))
    if top < spares:  # the pool beyond what the loads ever hold: nothing blocked
        return {b: np.ones_like(a) if a.ndim else 1.0 for b, a in loads.items()}
    shape = np.broadcast_shapes(*(a.shape for a in loads.values()))
    q = np.zeros((top + 1, *shape))
    q[0] = 1.0
    for j in range(1, top + 1):
        q[j] = sum(a * b * q[j - b] for b, a in loads.items() if b <= j) / j
        peak = q[j].max() if q[j].size else 0.0
        if peak > 1e200:  # rescaled: each share below is a ratio of sums of q
            q[:j + 1] /= peak
    total = q.sum(axis=0)
    covered = {b: 1.0 - q[max(top - b + 1, 0):].sum(axis=0) / total for b in loads}  # b > s: always blocked
    return {b: float(c) if np.ndim(c) == 0 else c for b, c in covered.items()}
