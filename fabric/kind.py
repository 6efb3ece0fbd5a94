"""What a fabric kind is: one object that evaluates a design of its kind and prices collectives on it.

A collective runs in **groups of ranks**: `size` ranks `stride` job ranks apart (members b, b+s, …, b+(p−1)s), and
every copy of that group that tiles the job runs at the same time — the tensor-, pipeline- and data-parallel groups
of a training job (tensor groups consecutive, stride 1; data-parallel groups strided by the tensor size; pipeline
groups by tensor × data). Job ranks sit on consecutive GPUs: consecutive positions on a ring, consecutive GPUs of
consecutive servers, one pod.

`price(estimate, running, mix)` returns the time of each collective in `running` when they run together. A kind whose
circuits or wavelengths are set once per job (`static = True`: SiP-OCS, SiP-Ring) splits its resources by the job's
whole traffic `mix` (bytes per iteration of every collective the job runs, SiP-ML's demand-proportional objective),
whether or not the others are running at that moment; a packet-switched kind shares only among `running`. On a
static kind a collective's time does not grow with its share (more of the fabric is never slower): a strategy
search prices the model-parallel collectives alone for a floor no strategy's iteration is below
(`workloads.training.transformer_floor`; a packet-switched kind prices them alone in the iteration too, so there
the floor is theirs exactly — NCCL's choice of tree or ring by its own model is not monotone in the share).
Every argument broadcasts over numpy arrays, so a strategy search prices all its candidates in one call.

Message sizes, per rank: all_reduce, the buffer every rank holds; reduce_scatter, each rank's input; all_gather, the
gathered result (nccl-tests' size S); all_to_all, the bytes one rank sends to the others; p2p, the bytes each member
sends to the next member of its group (a pipeline stage boundary).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping
from dataclasses import field

import numpy as np

from core import speed_knobs
from core.distinct import distinct_columns
from core.errors import InputError
from core.records import record

OPS = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "p2p")
BITS_PER_BYTE = 8.0


@record
class Collective:
    """One collective: its operation, bytes per rank, group size and stride (arrays broadcast), and how often it
    runs per iteration (with the bytes, its weight in a static fabric's configuration)."""

    op: str
    message_bytes: object
    size: object
    stride: object = 1
    calls: object = 1.0
    name: str = ""


@record
class CollectiveTime:
    """Seconds of one call, the schedule it runs (a name, or an array of names), the share of the contended
    resource its group gets (1: alone), and the bandwidth per rank the schedule's bottleneck step runs at."""

    seconds: object
    schedule: object
    share: object
    bandwidth_bps: object


def check_op(op: str) -> None:
    if op not in OPS:
        close = difflib.get_close_matches(str(op), OPS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown collective {op!r}, expected one of {', '.join(OPS)}{hint}")


def group_arrays(c: Collective, job_gpus: int):
    """(n, p, s) as float arrays, checked: p ≥ 1 and s ≥ 1 whole numbers whose groups tile the job
    (p·s divides the job's ranks)."""
    check_op(c.op)
    n = checked_bytes(c)
    p = np.asarray(c.size, dtype=float)
    s = np.asarray(c.stride, dtype=float)
    for value, what in ((p, "group size"), (s, "stride")):
        if not ((value >= 1) & (value < np.inf) & (value == np.floor(value))).all():  # NaN compares false
            raise InputError(f"{c.op}: {what} must be a whole number ≥ 1, got {value.tolist()!r}")
    span = p * s
    if not ((span <= job_gpus) & divides(span, job_gpus)).all():
        raise InputError(f"{c.op}: groups of {p.tolist()!r} ranks at stride {s.tolist()!r} do not tile a "
                         f"{job_gpus}-rank job (size × stride must divide it)")
    return n, p, s


def divides(d, n):
    """Whether the whole numbers d ≥ 1 divide n (floats or arrays of them, below 2^52): the quotient's floor
    times d is n exactly where d divides n and below it elsewhere (a float remainder costs 4–5× as much)."""
    return np.floor(n / d) * d == n


def checked_bytes(c: Collective) -> np.ndarray:
    """The collective's message bytes as a float array, checked: finite and ≥ 0."""
    n = np.asarray(c.message_bytes, dtype=float)
    if not ((n >= 0) & (n < np.inf)).all():  # NaN compares false
        raise InputError(f"{c.op}: message size must be a finite number of bytes ≥ 0, got {c.message_bytes!r}")
    return n


def bytes_sent_per_rank(op: str, n, p):
    """Bytes one rank sends in one call of a bandwidth-optimal schedule (what a static fabric provisions for)."""
    if op in ("all_to_all", "p2p"):
        return n * np.ones_like(np.asarray(p, dtype=float))
    sent = (p - 1.0) / p * n  # reduce-scatter, all-gather; an all-reduce is both
    return 2.0 * sent if op == "all_reduce" else sent


def proportional(volumes):
    """Each volume's share of their sum: how a resource is split in proportion to demand. A collective that puts
    nothing on the resource does not compete for it (share 1)."""
    total = sum(volumes)
    total = np.where(total > 0, total, 1.0)
    return [np.where(v > 0, v / total, 1.0) for v in volumes]


def pick(candidates: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise fastest of several schedules: (seconds, schedule names), the first of equals named."""
    names = list(candidates)
    seconds, which = pick_index(list(candidates.values()))
    return seconds, names[int(which)] if seconds.ndim == 0 else np.asarray(names, dtype=object)[which]


def fastest(times: list) -> np.ndarray:
    """Elementwise fastest of several schedules' seconds (NaN where one is NaN): `pick_index`'s seconds."""
    values = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in times))
    seconds = values[0]
    for v in values[1:]:
        seconds = np.minimum(seconds, v)
    return seconds


def pick_index(times: list) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise fastest of several schedules' seconds: (seconds, the index of the first of the fastest; where
    all are NaN, the last, or the first for one number)."""
    values = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in times))
    seconds = fastest(values)
    which = np.zeros(seconds.shape, dtype=np.intp)  # how many schedules before the first of the fastest
    slower = np.ones(seconds.shape, dtype=bool)
    for v in values[:-1]:
        slower &= v != seconds
        which += slower
    if seconds.ndim == 0 and seconds != seconds:
        which = np.zeros((), dtype=np.intp)
    return seconds, which


def scalar(value):
    """A 0-d array as a Python scalar; arrays unchanged."""
    arr = np.asarray(value)
    return arr.item() if arr.ndim == 0 else arr


REQUIRED = ("name", "evaluator", "sharer", "pricer")  # what every command reads of a kind


@record(slots=False)
class FabricKind:
    """A fabric kind: how designs of one kind are read, evaluated and priced, and the numbers it owns.

    Required (`REQUIRED`; `fabric.registry.register` refuses a kind without them): `name` (the [fabric] kind a
    design names), and its model as functions: `evaluator(design)` → FabricEstimate (`evaluator(design, link)` with
    the estimate of `link_of(design)` for a kind with an optical link), `sharer(est, collectives, arrays)` → one
    share per collective (`arrays`: each one's checked (n, p, s)), `pricer(est, c, n, p, s, share)` →
    CollectiveTime, elementwise in the arrays (n, p, s, share) and reading nothing of `c` but its operation: a
    search prices one column for the strategies that repeat it, and a collective alone once for every round.

    Optional, the design: `section`, `section_type` (its design-file section and that section's dataclass; None:
    none), `static` (configured once per job), `optical` (its GPUs have the optical I/O of [link] … [package]),
    `link_of(design)` → the optical link the budget must close (None: no optical link).

    Optional, the model: `server(est, flows)` → fabric.traffic.Served, the bandwidth each flow of a traffic pattern
    gets (without it, `sipml fabric --pattern` says the kind serves none); `seconds_of(est, c, n, p, s, share)` →
    `pricer`'s seconds alone (all a strategy search reads; faster where naming the schedules costs); `variants(est)` → the estimates of each way it can run a job,
    for the workload to pick the fastest; `grid_floor(design)` → None, or a function `(sections, inputs)` → (the
    kind's floor record, the points its estimate refuses) over a grid of the design's link
    (`photonics.common_stages.sections` with arrays in place, `photonics.link_records.FabricInputs` of arrays): the figures its
    estimate reports, for a sweep to read at once, and `floor_estimate(design, sections, floor, inputs)` → the
    estimate's figures built on that floor (arrays over the grid: what a sweep prices collectives on,
    `fabric.estimate.over_points`).

    Optional, its numbers as people read them: `formulas`, reported quantity key (`sipml.quantities`: e.g.
    "per_gpu_bandwidth_gbps", "useful_time_fraction", "degree", "bisection_gbps", "optical_reach") → a function
    of the estimate returning the `core.formulas.Formula` of that number (None: the number has no formula on this
    estimate); a key the kind leaves out gets the application's formula, which reads the estimate's own figure.
    `figures(est)` → {name: (value, unit)}, the kind's own display figures in reading order (None: each number of
    the estimate's `details` record, by its field name). `costed` (False: a reference point whose network has no
    price, so its per-$ and per-W figures are upper bounds). `variant_text(allocation)` → a sentence on how a job
    ran, for the estimate's `details.allocation` (the variant a workload picked).

    Optional, its failure domains: `failure_domains(est)` → {catalog key: fabric.reliability.Domain}, what a failure
    of that entry's parts does to a job on it (the share that stops the job, and whether a spare recovers it); an
    entry it leaves out stops the job and is recovered by rescheduling. `no_hot_spares`: why a hot-spare GPU cannot
    take a failed GPU's place on the fabric ('' where it can: [reliability] spare_gpus is refused, with this
    reason, where it cannot).

    Optional, its servers' NVLink domain: `servers(design)` → fabric.cluster_design.ServerNvlink (NVLink per GPU,
    NVSwitch entry, GPUs; an InputError where the design takes it from a server the calculator does not know);
    `server_notes(design)` → what its servers do otherwise than the design asks (sentences); `with_servers(design,
    domain)` → the design whose servers have `domain` (a baseline carrying another design's GPU and servers). A
    kind without them has no NVLink domain.

    Optional, several jobs on it (`fabric.placement`): `slots(est)` → Slots, how it hands GPUs to jobs (without it:
    any free GPUs); `placed_view(est, placed, j, together)` → the estimate job j runs on where `placed` (a list of
    fabric.placement.Placed, one per job) puts it: alone (`together` False) or sharing the fabric with the others
    (True); `est` is the estimate of the design with [fabric] job_gpus set to the job's GPUs. Without it, a job's
    estimate is that one, alone and together: its jobs share nothing."""

    name: str = ""
    section: str | None = None
    section_type: type | None = None
    static: bool = False
    optical: bool = False
    evaluator: Callable | None = None
    sharer: Callable | None = None
    pricer: Callable | None = None
    seconds_of: Callable | None = None
    server: Callable | None = None
    link_of: Callable | None = None
    variants: Callable | None = None
    grid_floor: Callable | None = None
    floor_estimate: Callable | None = None
    formulas: Mapping[str, Callable] = field(default_factory=dict, hash=False)
    figures: Callable | None = None
    costed: bool = True
    variant_text: Callable | None = None
    failure_domains: Callable | None = None
    no_hot_spares: str = ""
    slots: Callable | None = None
    placed_view: Callable | None = None
    servers: Callable | None = None
    server_notes: Callable | None = None
    with_servers: Callable | None = None

    def missing(self) -> list[str]:
        """The required attributes (`REQUIRED`) the kind lacks."""
        return [name for name in REQUIRED if not getattr(self, name)]

    def optical_link(self, design):
        """The GPU-to-GPU optical link the budget must close (with any switch passes), or None."""
        return self.link_of(design) if self.link_of is not None else None

    def evaluate(self, design, link=None):
        """The fabric of `design`; a kind with an optical link reads `link`, the estimate of `optical_link(design)`
        (evaluated here when the caller has none to hand over)."""
        if self.link_of is None:
            return self.evaluator(design)
        if link is None:
            from photonics.link import evaluate

            link = evaluate(self.optical_link(design))
        return self.evaluator(design, link)

    def alternatives(self, est) -> tuple:
        """The ways the fabric can run one job (e.g. SiP-Ring's wavelength allocations), as estimates to choose
        from per job: `variants(est)`, or the estimate alone."""
        return tuple(self.variants(est)) if self.variants is not None else (est,)

    def nvlink_domain(self, design):
        """fabric.cluster_design.ServerNvlink of the design's servers (`servers`), or None where the kind has no
        NVLink domain."""
        return self.servers(design) if self.servers is not None else None

    def notes_on_servers(self, design) -> tuple:
        """`server_notes(design)`, or none."""
        return tuple(self.server_notes(design)) if self.server_notes is not None else ()

    def domains(self, est) -> dict:
        """{catalog key: fabric.reliability.Domain} of the parts whose failures the kind treats its own way."""
        return dict(self.failure_domains(est)) if self.failure_domains is not None else {}

    def slots_of(self, est):
        """fabric.placement.Slots: how the fabric of `est` hands GPUs to jobs."""
        from fabric.placement import any_gpu

        return self.slots(est) if self.slots is not None else any_gpu(est.gpus)

    def job_view(self, est, placed, j: int, together: bool):
        """The estimate job j of `placed` runs on, alone or together with the others (`placed_view`)."""
        return self.placed_view(est, placed, j, together) if self.placed_view is not None else est

    def variant_note(self, allocation: str) -> str:
        """How a job ran on the variant `allocation` (an estimate's `details.allocation`): `variant_text`'s
        sentence, or the variant named."""
        return self.variant_text(allocation) if self.variant_text is not None else f"ran as '{allocation}'"

    def shares(self, est, collectives, arrays=None):
        """One share per collective: the part of each contended resource its groups get. `arrays`: each one's
        checked (n, p, s) (`group_arrays`), when the caller has them."""
        if arrays is None:
            arrays = [group_arrays(c, est.job_gpus) for c in collectives]
        return self.sharer(est, collectives, arrays)

    def time(self, est, c: Collective, n, p, s, share) -> CollectiveTime:
        return self.pricer(est, c, n, p, s, share)

    def seconds(self, est, c: Collective, n, p, s, share):
        """`time`'s seconds."""
        if self.seconds_of is None:
            return self.pricer(est, c, n, p, s, share).seconds
        return self.seconds_of(est, c, n, p, s, share)

    def serve(self, est, flows):
        """Bandwidth per flow for a traffic pattern (fabric.traffic.Flows) → fabric.traffic.Served."""
        if self.server is None:
            raise InputError(f"[fabric] kind = '{self.name}' serves no traffic pattern (the kind has no server)")
        return self.server(est, flows)

    def price(self, est, running, mix=None, first_only: bool = False) -> list[CollectiveTime]:
        """Times of the collectives in `running` when they run together (see the module docstring); with
        `first_only`, the time of the first alone (the others still take their shares)."""
        return MixPricing(self, est, mix).price(running, first_only)


def configured_once(kind: FabricKind, est):
    """Whether the fabric of `est` is configured once per job: as the estimate says (a joined view: per point, an
    array), or as its kind is."""
    return kind.static if getattr(est, "static", None) is None else est.static


class MixPricing:
    """Prices collectives of one job's traffic `mix` on one fabric estimate, as often as a strategy search asks:
    the mix's shares of a static fabric are found once, and each collective's group arrays (checked) once."""

    def __init__(self, kind: FabricKind, est, mix=None, arrays=None):
        """`arrays`: the group arrays of each collective of `mix`, in its order, when the caller has them checked
        (`group_arrays` with the job's ranks)."""
        self.kind, self.est = kind, est
        self.points = np.size(est.per_gpu_bandwidth_bps)  # a batched view's (`fabric.estimate.over_points`) many
        self.mix = None if mix is None else tuple(mix)
        self._mix_shares = None
        self._arrays: dict[int, tuple] = {}  # id of a collective of the mix → its (n, p, s)
        self._one_call: dict[int, Collective] = {}  # id of a collective of the mix → it with one call
        if arrays is not None:
            self._arrays = {id(c): a for c, a in zip(self.mix, arrays)}

    def _group_arrays(self, c: Collective):
        for m in self.mix or ():
            if m is c:
                if id(c) not in self._arrays:
                    self._arrays[id(c)] = group_arrays(c, self.est.job_gpus)
                return self._arrays[id(c)]
        for m in self.mix or ():  # one of the mix's on other bytes (a gradient bucket): its groups checked there
            if m.op == c.op and m.size is c.size and m.stride is c.stride:
                return (checked_bytes(c), *self._group_arrays(m)[1:])
        return group_arrays(c, self.est.job_gpus)

    def _with_one_call(self, c: Collective) -> Collective:
        if not any(m is c for m in self.mix or ()):
            return dataclasses.replace(c, calls=1.0)
        if id(c) not in self._one_call:
            self._one_call[id(c)] = dataclasses.replace(c, calls=1.0)
        return self._one_call[id(c)]

    def shares_by_running(self) -> bool:
        """Whether every point shares the fabric only among the collectives running (none configured once per
        job): there a collective priced alone gets the share it gets alone in any iteration."""
        return not np.any(configured_once(self.kind, self.est))

    def _shares(self, running: list) -> list:
        static = configured_once(self.kind, self.est)
        if np.any(static) and not np.all(static):  # a joined view (fabric.estimate.joined_points), partly static
            return [np.where(static, once, each)
                    for once, each in zip(self._shares_once(running), self._shares_running(running))]
        return self._shares_once(running) if np.all(static) else self._shares_running(running)

    def _shares_running(self, running: list) -> list:
        """A packet-switched or re-tuned fabric shares among what runs at once, by one call's bytes."""
        return self.kind.shares(self.est, [self._with_one_call(c) for c in running],
                                [self._group_arrays(c) for c in running])

    def _shares_once(self, running: list) -> list:
        """A fabric configured once per job splits by the job's whole traffic (the mix, or what runs)."""
        kind, est = self.kind, self.est
        if self.mix is None:
            return kind.shares(est, running, [self._group_arrays(c) for c in running])
        if self._mix_shares is None:
            self._mix_shares = kind.shares(est, list(self.mix), [self._group_arrays(c) for c in self.mix])
        return [self._mix_shares[_index(self.mix, c)] for c in running]  # each running collective in the mix

    def price(self, running, first_only: bool = False) -> list[CollectiveTime]:
        """Each collective of `running` (the first alone with `first_only`) at its share of the fabric while they
        run."""
        out = []
        for c, (n, p, s), share in self._inputs(running, first_only):
            t = self._time(c, n, p, s, share)
            seconds = t.seconds + self._launch(p)
            shape = np.shape(seconds)
            out.append(CollectiveTime(
                seconds=scalar(seconds), schedule=scalar(np.broadcast_to(np.asarray(t.schedule, dtype=object), shape)),
                share=scalar(np.broadcast_to(t.share, shape)), bandwidth_bps=scalar(np.broadcast_to(t.bandwidth_bps,
                                                                                                     shape))))
        return out

    def seconds(self, running, first_only: bool = False) -> list:
        """`price`'s seconds alone (all a strategy search reads of them)."""
        return [scalar(self._time(c, n, p, s, share, seconds_only=True) + self._launch(p))
                for c, (n, p, s), share in self._inputs(running, first_only)]

    def price_first(self, running) -> CollectiveTime:
        return self.price(running, first_only=True)[0]

    def _inputs(self, running, first_only: bool):
        """(collective, its checked (n, p, s), its share) of each collective priced."""
        running = list(running)
        priced = running[:1] if first_only else running
        return zip(priced, [self._group_arrays(c) for c in priced], self._shares(running))

    def _launch(self, p):
        return np.where(p > 1, self.est.design.fabric.launch_latency, 0.0)

    def _time(self, c: Collective, n, p, s, share, seconds_only: bool = False):
        """`kind.time` at each distinct column of (n, p, s, share) once, spread back over the columns: the
        candidates of a strategy search repeat a collective's bytes, groups and share (their microbatch, memory
        and recompute choices leave them alone), and the pricer is elementwise, so every column's figures are
        the ones it gets priced alone. Pricings of fewer than `distinct_from` figures, of fewer than
        `distinct_points` points (core.speed_knobs: one design's ways to run a job, whose columns repeat too little
        to pay for finding them), or with few repeats, are priced as they are. With `seconds_only`, the seconds
        alone."""
        parts = share if isinstance(share, tuple) else (share,)  # a kind's share may be one per resource
        inputs = np.broadcast_arrays(n, p, s, *parts)
        knobs = speed_knobs.KNOBS
        few = (not inputs[0].ndim or self.points < knobs.distinct_points
               or inputs[0].size * self.points < knobs.distinct_from)
        if not few:
            k = inputs[0].shape[-1]
            first, inverse = distinct_columns(np.concatenate([np.reshape(a, (-1, k)) for a in inputs]))
        if few or len(first) > k // 2:
            return (self.kind.seconds if seconds_only else self.kind.time)(self.est, c, n, p, s, share)
        picked = [_columns(np.asarray(a), first, k) for a in (n, p, s, *parts)]
        args = (self.est, c, *picked[:3], tuple(picked[3:]) if isinstance(share, tuple) else picked[3])
        spread = (lambda a: _columns(np.asarray(a), inverse, len(first)))
        if seconds_only:
            return spread(self.kind.seconds(*args))
        t = self.kind.time(*args)
        return CollectiveTime(seconds=spread(t.seconds), schedule=spread(np.asarray(t.schedule, dtype=object)),
                              share=spread(t.share), bandwidth_bps=spread(t.bandwidth_bps))


def _columns(a: np.ndarray, index, k: int) -> np.ndarray:
    """The columns `index` of an array whose last axis has `k` entries; one that broadcasts along it unchanged."""
    return np.take(a, index, axis=-1) if a.ndim and a.shape[-1] == k else a


def _index(mix, c) -> int:
    """Where the running collective `c` sits in the mix: the same object, or the one of the same name."""
    for i, m in enumerate(mix):
        if m is c:
            return i
    named = [i for i, m in enumerate(mix) if c.name and m.name == c.name]
    if len(named) == 1:
        return named[0]
    raise InputError(f"collective {c.name or c.op!r} runs but is not (or not once) in the job's traffic mix")
