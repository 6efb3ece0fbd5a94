"""Bandwidth allocation for a traffic matrix on SiP-Ring (wavelengths on ring segments) and SiP-OCS (circuits).

Both fabrics use SiP-ML's objective: maximise the minimum, over GPU pairs with demand, of allocated bandwidth /
demand [sim]. Demand is a set of flows (`fabric.flows.Flows`: source, destination, bit/s), or for small cases an
N × N matrix; only its proportions steer the allocation, and with demand in bit/s a ratio ≥ 1 means every demand is
served. Results hold one entry per flow, in the order of `flows`.

SiP-Ring model [sim]
    N GPUs on a fiber ring, ``directions`` (1 or 2) × ``fibers`` per direction, W ``wavelengths_per_fiber``.
    Segment s joins GPU s and GPU s+1 (mod N). A flow i→j runs clockwise (i, i+1, …, j: segments i … j−1) or,
    with two directions, counter-clockwise (i, i−1, …, j: segments j … i−1), and gets an integer number of
    wavelengths on its whole arc; a wavelength is reused on segments that do not overlap.
    [sim]'s constraint: on every (direction, fiber, segment) the wavelengths of the flows covering it sum to ≤ W.

    Pooling assumption. The methods here pool the fibers of a direction: per (direction, segment) the flows'
    wavelengths sum to ≤ fibers·W. Any per-fiber allocation satisfies the pooled constraint, so the pooled optimum
    is an upper bound on [sim]'s. It is exact when fibers = 1, and for any fiber count whenever each direction
    has an idle segment: the arcs then lie on a line, interval graphs are perfect, so unit arcs of load ≤ fibers·W
    can be coloured with fibers·W colours and colours grouped W to a fiber. On a fully loaded circle it can be
    optimistic: three arcs of two segments on a 3-GPU ring overlap pairwise (load 2 everywhere) yet need three
    single-wavelength fibers. Wavelength continuity (a channel keeps its fiber and its wavelength along the arc,
    as micro-ring add/drop cannot convert) raises the same circular-arc colouring question even for one fiber:
    [sim]'s per-segment count, and so this model, does not capture it. Per-GPU transceiver counts need no extra
    constraint: a GPU's transmitters in one direction are bounded by its outgoing segment's capacity.

SiP-OCS model [sim]
    n_ocs switches, each realising one (partial) permutation: every GPU has one egress and one ingress port per
    OCS; a circuit carries ``circuit_bps``; no circuit i→i; a pair may get several circuits (on different OCSes).
    A circuit count matrix c ≥ 0 with zero diagonal is realisable on n_ocs OCSes iff every row and column sums to
    ≤ n_ocs (König's edge-colouring theorem for bipartite multigraphs), so the permutation choice reduces to
    choosing c, which the fast method does exactly.

Methods
    ``ring_allocation_fast`` and ``ocs_assignment`` share one kernel, integer progressive filling: raise a common
    level t, give every unfrozen flow ceil(t · weight) units, and when the next step would overflow a resource
    freeze every flow on it [Bertsekas & Gallager, *Data Networks*, §6.5.2, max-min fairness by progressive
    filling; integer version: this project]. Its first level is the largest t at which every flow can get
    ceil(t·weight) units, i.e. the exact integer optimum of the min ratio for fixed routes.
    ``ring_allocation_milp`` / ``ocs_assignment_milp`` solve the integer programs with HiGHS for small instances,
    ``ring_allocation_lp_bound`` the LP relaxation.

Size limits of the exact methods (raise DomainError above them): see ``RING_MILP_MAX_GPUS``,
``RING_MILP_MAX_FLOWS``, ``RING_LP_MAX_GPUS``, ``OCS_MILP_MAX_GPUS``, ``OCS_MILP_MAX_BINARIES`` and
``MILP_TIME_LIMIT_S``.

scipy is imported inside the functions that need it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.errors import DomainError, InputError
from core.integers import divisors
from core.records import record
from fabric.flows import Flows

RING_MILP_MAX_GPUS = 24  # exact ring method: at most this many GPUs … (random all-to-all: ≤ 3.5 s measured)
RING_MILP_MAX_FLOWS = 24 * 23  # … and this many pairs with demand (one 0/1 variable each per routing program)
RING_LP_MAX_GPUS = 64  # LP relaxation: at most this many GPUs (≤ 4032 flows)
OCS_MILP_MAX_GPUS = 8  # exact OCS MILP: at most this many GPUs … (N = 10 with 6 OCSes took 19 s)
OCS_MILP_MAX_BINARIES = 600  # … and n_ocs · N · (N − 1) binaries (N = 8 with 10 OCSes: 560, ≤ 2 s measured)
MILP_TIME_LIMIT_S = 30.0  # HiGHS wall-clock limit; hitting it raises DomainError
_BISECTION_REL_TOL = 1e-12


# --- results ------------------------------------------------------------------------------------------
@record(kw_only=True, slots=False)
class RingAllocation:
    """Wavelengths per flow on a SiP-Ring. Arrays are per flow and read-only."""

    flows: Flows
    wavelengths: np.ndarray  # integer wavelengths of each flow
    clockwise: np.ndarray  # True: i→j runs i, i+1, …; False: i, i−1, …
    bandwidth_bps: np.ndarray  # wavelengths × wavelength_rate_bps
    min_ratio: float  # min over pairs with demand of bandwidth_bps / demand_bps (achieved)
    upper_bound: float  # proven upper bound on the optimal min ratio of the pooled model
    exact: bool  # min_ratio reaches upper_bound: optimal for the pooled model
    method: str

    def matrix(self, field: str = "bandwidth_bps") -> np.ndarray:
        """An N × N matrix of one per-flow field (zero where no flow), for small fabrics."""
        return self.flows.matrix(getattr(self, field))


@record(kw_only=True, slots=False)
class OcsAssignment:
    """Circuits per flow on SiP-OCS, and (when asked for) the permutation each OCS realises."""

    flows: Flows
    circuits: np.ndarray  # integer circuits of each flow
    permutations: np.ndarray | None  # (n_ocs, N): destination of GPU i's egress port on OCS k, −1 if dark
    bandwidth_bps: np.ndarray  # circuits × circuit_bps
    min_ratio: float  # min over pairs with demand of bandwidth_bps / demand_bps (achieved)
    upper_bound: float  # proven upper bound on the optimal min ratio
    exact: bool
    method: str

    def matrix(self, field: str = "bandwidth_bps") -> np.ndarray:
        """An N × N matrix of one per-flow field (zero where no flow), for small fabrics."""
        return self.flows.matrix(getattr(self, field))


def _frozen(array) -> np.ndarray:
    out = np.asarray(array)  # callers pass arrays they own
    out.setflags(write=False)
    return out


# --- validation ---------------------------------------------------------------------------------------
def _count(value, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def _positive_float(value, name: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be a number > 0, got {value!r}") from exc
    if not np.isfinite(out) or out <= 0:
        raise InputError(f"{name} must be a finite number > 0, got {value!r}")
    return out


def as_flows(demand) -> Flows:
    """`demand` as Flows (a Flows, or an N × N matrix of bit/s)."""
    return demand if isinstance(demand, Flows) else Flows.from_matrix(demand)


def _flows(demand):
    """(N, src, dst, demand, flows) of the pairs with demand; InputError for malformed input."""
    flows = as_flows(demand)
    if flows.count == 0:
        raise InputError("the demand has no pair with demand; the min ratio is undefined")
    return flows.gpus, flows.src, flows.dst, flows.demand_bps, flows


def _ring_capacity(directions, fibers, wavelengths_per_fiber) -> tuple[int, int]:
    if directions not in (1, 2) or isinstance(directions, bool):
        raise InputError(f"directions must be 1 or 2, got {directions!r}")
    f = _count(fibers, "fibers", minimum=1)
    w = _count(wavelengths_per_fiber, "wavelengths_per_fiber", minimum=1)
    return int(directions), f * w


# --- integer progressive filling (shared kernel) ------------------------------------------------------
def _progressive_fill(weight, capacity, load, touches, *, fill=True, members=None, priority=None, load_at=None,
                      arcs=None):
    """Integer weighted max-min allocation by progressive filling.

    weight (F,) > 0; capacity (R,) integer units per resource; load(units (F,)) → (R,) units used;
    touches(mask (R,) bool) → (F,) bool, the flows that use a masked resource. Every flow must use ≥ 1 resource.
    Active flows hold ceil(t·weight) units as the level t rises; when the next breakpoint would overflow a
    resource, the flows stepping up at that breakpoint on an overflowing resource are frozen (ties share the
    refusal), the others keep rising. Each level is found by bisection on t, stopped once [lo, hi) holds a
    single breakpoint k/weight_f (or hi − lo ≤ 1e-12·hi). With `members` (flow → its resource indices) and
    `priority` (F,), a refused first unit is not lost: flows that would be frozen with nothing take it one by one,
    lowest priority value first, while their resources have room — when not every pair across a full segment can
    have a wavelength, as many as fit get one, shortest first, and no wavelength stays dark that an unserved pair
    could use. (Later refusals still share the tie: every flow there already has a unit.)
    Returns (units (F,) int64, first-level units): the first level is the largest common t such that every flow
    can have ceil(t·weight) units, the exact optimum of min(units/weight) for these routes. `fill` False stops
    there (units = first level). `load_at(flows, per_flow)` (optional): `load` of `per_flow` at the flows
    `flows` (a mask) alone, so that a level's per-class loads are the last level's less the flows frozen since
    (`_ClassLoads`).
    `arcs` (optional, with `members`): the flows' resources as ring arcs (`_Arcs`), for `_admit`'s rounds."""
    units = np.zeros(weight.size)
    active = np.ones(weight.size, dtype=bool)
    level, first = 0.0, None

    def at(t):
        out = np.multiply(t, weight)
        np.ceil(out, out=out)
        np.maximum(out, units, out=out)
        if not everyone:
            np.copyto(out, units, where=~active)
        return out

    def one_breakpoint(lo, hi, w):
        jumps = np.ceil(lo * w) / w  # flow f's units grow once t passes jumps[f]
        first_jump = jumps.min()
        second = np.where(jumps <= first_jump * (1 + _BISECTION_REL_TOL), jumps + 1.0 / w, jumps).min()
        return second >= hi  # allocation is constant on (first_jump, hi): at(lo) is the level's answer

    distinct = _few_values(weight, WEIGHT_CLASSES)  # weight classes, found once (None: too many)
    kept = None  # the last level's class loads (_ClassLoads)
    ahead = np.zeros(0, dtype=np.int64)  # flows given a first unit ahead of their level: the only ones that can be
    while active.any():
        everyone = bool(active.all())
        kept = None if distinct is None else _ClassLoads.at(weight, distinct, units, active, level, load, load_at,
                                                              kept, ahead)
        classes = None if kept is None else kept.classes()
        if classes is None:  # every probe loads each flow
            w = weight if everyone else weight[active]

            def fits(t):
                return bool(np.all(load(at(t)) <= capacity))
        else:  # a probe loads each weight class: resources × classes, not flows
            w, frozen, per_class = classes

            def fits(t):
                return bool(np.all(frozen + np.ceil(t * w) @ per_class <= capacity))
        lo, hi = level, (capacity.max() + 1.0) / weight[active].min()  # at(hi) overflows any resource
        if lo == 0.0:
            probe = 0.5 / weight[active].max()  # ceil(probe·w) = 1 for every active flow
            lo, hi = (probe, hi) if fits(probe) else (0.0, probe)
        while lo > 0.0 and hi - lo > _BISECTION_REL_TOL * hi and not one_breakpoint(lo, hi, w):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        units, step = at(lo), at(hi)
        first = units.copy() if first is None else first
        if not fill:
            break
        freeze = (step > units) & touches(load(step) > capacity)  # flows whose next unit does not fit
        if not freeze.any():  # cannot happen: only flows that stepped up can overflow a resource
            raise DomainError("progressive filling made no progress")
        waiting = np.flatnonzero(freeze & (units == 0)) if members is not None else ()  # refused a first unit
        if len(waiting):  # every step taken but the refused flows'
            admitted = _admit(waiting, units, step, load(np.where(freeze, units, step)), capacity, members, priority,
                              arcs)
            units[admitted] = step[admitted]
            freeze[admitted] = False
            ahead = np.union1d(ahead, admitted)
        active &= ~freeze
        level = lo
    return units.astype(np.int64), first.astype(np.int64)


WEIGHT_CLASSES = 16  # distinct weights of the active flows up to which a level's probes load each weight class
# once (a training pattern has two or three: ring neighbours and group peers) instead of every flow [assumed]


def _few_values(values: np.ndarray, most: int):
    """The distinct values of `values` when there are at most `most` of them (one pass over the rest per value, so
    a pattern of two or three demands costs a few comparisons per flow, not a sort), else None."""
    found, rest = [], values
    while rest.size:
        if len(found) == most:
            return None
        found.append(rest[0])
        rest = rest[rest != rest[0]]
    return np.asarray(found)


@dataclass
class _ClassLoads:
    """At a level of progressive filling: the frozen flows' load per resource and each weight class's active flows
    per resource (classes × resources), so that a probe at t ≥ level loads frozen + Σ_c ceil(t·w_c)·count_c. Loads
    are sums of whole units, exact in floating point, so a level's are the last level's with the flows frozen since
    moved from their class to the frozen load, the same numbers as loading every flow again."""

    active: np.ndarray  # the flows active at this level
    weights: np.ndarray  # every weight class, in the order found
    members: np.ndarray  # the active flows in each class
    frozen: np.ndarray
    per_class: np.ndarray

    @classmethod
    def at(cls, weight, distinct, units, active, level, load, load_at, last, ahead):
        """The loads at the flows `active`, from the last level's (`last`, whose arrays are updated in place and
        must not be read again) where `load_at` loads a few flows; None where an active flow already holds more
        than its level's units (a first unit admitted ahead of its level), whose probes load each flow. `ahead`: the
        flows admitted so far, the only ones that can (an index)."""
        if np.any((units[ahead] > np.ceil(level * weight[ahead])) & active[ahead]):
            return None
        if last is None or load_at is None:
            masks = [active & (weight == w) for w in distinct]
            return cls(active.copy(), distinct, np.asarray([np.count_nonzero(m) for m in masks]),
                       load(np.where(active, 0.0, units)), np.stack([load(m.astype(float)) for m in masks]))
        since = last.active & ~active  # frozen since the last level
        per_class, members, frozen = last.per_class, last.members.copy(), last.frozen  # `last` is used up
        for c, w in enumerate(distinct):
            moved = since & (weight == w)
            if moved.any():
                per_class[c] -= load_at(moved, 1.0)
                members[c] -= np.count_nonzero(moved)
        frozen += load_at(since, units)
        return cls(active.copy(), distinct, members, frozen, per_class)

    def classes(self) -> tuple:
        """(the weights of the classes with active flows, the frozen load, those classes' loads)."""
        some = self.members > 0
        if some.all():  # the loads as they are, not a copy held beside them
            return self.weights, self.frozen, self.per_class
        return self.weights[some], self.frozen, self.per_class[some]


def _admit(candidates, units, step, taken, capacity, members, priority, arcs=None) -> np.ndarray:
    """Of the refused flows still at zero (`candidates`), those that can take their step, greedily by priority,
    with every other stepping flow's step counted as taken (`taken`: the load with every flow at its step but the
    refused ones at their units; so what is admitted never crowds out a flow that was not in conflict). With
    `arcs` (`_Arcs`: the flows' resources as ring arcs), in rounds of ADMIT_ROUND candidates, doubling up to
    ADMIT_ROUND_MOST, the same flows admitted: of a round, those that no longer fit are dropped in bulk (room only
    shrinks: each would be refused at its turn), those crossing no resource the round's steps together overfill are
    admitted in bulk (each fits at its turn whatever the others do, and takes nothing another needs where it is
    short), the rest one by one in order."""
    used = np.array(taken, dtype=float)
    admitted = []
    order = candidates[np.lexsort((candidates, priority[candidates]))]
    need = step - units
    if arcs is None or order.size * ADMIT_RING_SHARE < arcs.n:  # few on a long ring: one by one is cheaper
        _admit_each(order, ([members(f)] for f in order), need, used, capacity, admitted)
        return np.sort(np.asarray(admitted, dtype=np.int64))
    size = ADMIT_ROUND
    while order.size:
        batch, order = order[:size], order[size:]
        batch = batch[~arcs.blocked(batch, capacity - used, need[batch])]
        # where the batch's steps all fit, its flows are admitted whatever their order; the others one by one
        over = used + arcs.load_of(batch, need[batch]) > capacity
        crossing = arcs.sums_at(batch, over) > 0
        alone, rest = batch[~crossing], batch[crossing]
        used += arcs.load_of(alone, need[alone])
        admitted.extend(alone.tolist())
        _admit_each(rest.tolist(), arcs.spans(rest), need, used, capacity, admitted)
        size = min(2 * size, ADMIT_ROUND_MOST)
    return np.sort(np.asarray(admitted, dtype=np.int64))


def _admit_each(order, places, need, used, capacity, admitted) -> None:
    """`_admit`'s greedy, flow by flow in `order`: each that fits takes its `need` (`used` and `admitted` updated);
    `places`: each flow's resources, as a list of index arrays or slices."""
    for f, where in zip(order, places):
        extra = need[f]
        if all((capacity[w] - used[w]).min() >= extra for w in where):
            for w in where:
                used[w] += extra
            admitted.append(f)


ADMIT_ROUND = 256  # the first round's refused first units [assumed: a round costs a pass over the ring's resources
# besides its flows; rounds that double from a few hundred keep that small where few are refused]
ADMIT_ROUND_MOST = 1 << 16  # the largest round [assumed: its crossing flows' arcs are listed as Python objects]
ADMIT_RING_SHARE = 16  # rounds (passes over the ring's 2n resources each) only for more refused flows than n/16
# [measured: on 2^20 GPUs 10^4 refused flows took 57 ms one by one against 330 ms in rounds; 10^5 broke even]


# --- ring geometry ------------------------------------------------------------------------------------
@record(slots=False)
class _Arcs:
    """Arcs of F flows on an n-segment ring over resources (direction, segment), as positions in a layout of
    direction·(n+1) + position (position n of each direction is a sink): flow f covers [begin_f, end_f), and a flow
    that wraps past segment n − 1 also covers [wrap_begin, wrap_end) for its entry in `wrapped`."""

    n: int
    begin: np.ndarray
    end: np.ndarray
    wrapped: np.ndarray
    wrap_begin: np.ndarray
    wrap_end: np.ndarray

    def load(self, values):
        """Per-resource sum of `values` over the arcs, shape (2n,), index direction·n + segment (a difference array
        summed along each direction)."""
        size = 2 * (self.n + 1)
        diff = np.bincount(self.begin, values, size) - np.bincount(self.end, values, size)
        if self.wrapped.size:
            extra = values[self.wrapped]
            diff += np.bincount(self.wrap_begin, extra, size) - np.bincount(self.wrap_end, extra, size)
        return np.cumsum(diff.reshape(2, self.n + 1), axis=1)[:, : self.n].ravel()

    def load_at(self, flows, per_flow):
        """`load` of `per_flow` (one value per flow, or one for all) at the flows `flows` (a mask) alone: the same
        sums (of whole units, exact), a new array; where they are under a quarter of all flows, in work of their
        count (and a search among the few flows that wrap)."""
        count = np.count_nonzero(flows)
        if 4 * count >= self.begin.size:
            return self.load(np.where(flows, per_flow, 0.0))
        flows = np.flatnonzero(flows)
        return self.load_of(flows, np.full(count, per_flow) if np.ndim(per_flow) == 0 else per_flow[flows])

    def _wrapping(self, flows):
        """(which of the flows `flows` (indices) wrap, each of those one's entry in `wrapped`)."""
        if not (self.wrapped.size and flows.size):
            return np.zeros(flows.size, dtype=bool), np.zeros(0, dtype=np.intp)
        at = np.minimum(np.searchsorted(self.wrapped, flows), self.wrapped.size - 1)
        hit = self.wrapped[at] == flows
        return hit, at[hit]

    def _prefix(self, per_resource):
        """Prefix sums of `per_resource` (2n,) along each direction, in the arcs' layout (position n a sink)."""
        prefix = np.zeros((2, self.n + 1))
        np.cumsum(np.asarray(per_resource, dtype=float).reshape(2, self.n), axis=1, out=prefix[:, 1:])
        return prefix.ravel()

    def sums_at(self, flows, per_resource):
        """`sums` at the flows `flows` (indices) alone."""
        flat = self._prefix(per_resource)
        out = flat[self.end[flows]] - flat[self.begin[flows]]
        hit, entry = self._wrapping(flows)
        out[hit] += flat[self.wrap_end[entry]] - flat[self.wrap_begin[entry]]
        return out

    def spans(self, flows):
        """Each flow's resources (direction·n + segment) as slices: one, two where its arc wraps."""
        width = self.n + 1
        shift = self.begin[flows] // width  # the direction: layout position − direction = resource index
        out = [[slice(a, b)] for a, b in zip((self.begin[flows] - shift).tolist(), (self.end[flows] - shift).tolist())]
        hit, entry = self._wrapping(flows)
        for k, w in zip(np.flatnonzero(hit).tolist(), entry.tolist()):
            begin, end = int(self.wrap_begin[w]), int(self.wrap_end[w])
            out[k].append(slice(begin - begin // width, end - begin // width))
        return out

    def load_of(self, flows, per_flow):
        """`load` of `per_flow` (one value per flow of `flows`, indices) at those flows alone, in work of their count
        (and a search among the few flows that wrap)."""
        size = 2 * (self.n + 1)
        values = np.asarray(per_flow, dtype=float)
        diff = np.bincount(self.begin[flows], values, size) - np.bincount(self.end[flows], values, size)
        hit, entry = self._wrapping(flows)
        if entry.size:
            diff += np.bincount(self.wrap_begin[entry], values[hit], size) - np.bincount(self.wrap_end[entry],
                                                                                           values[hit], size)
        return np.cumsum(diff.reshape(2, self.n + 1), axis=1)[:, : self.n].ravel()

    def blocked(self, flows, room, need):
        """Whether each of the flows `flows` crosses a resource with less `room` than its `need` (a few distinct
        needs, each one pass)."""
        out = np.zeros(flows.size, dtype=bool)
        values = _few_values(need, WEIGHT_CLASSES)
        for value in np.unique(need) if values is None else values:
            mine = need == value
            out[mine] = self.sums_at(flows[mine], room < value) > 0
        return out

    def sums(self, per_resource):
        """Sum of `per_resource` (2n,) over each arc, shape (F,): differences of its prefix sums."""
        flat = self._prefix(per_resource)
        out = flat[self.end] - flat[self.begin]
        if self.wrapped.size:
            out[self.wrapped] += flat[self.wrap_end] - flat[self.wrap_begin]
        return out


def _ring_arcs(n, src, dst, clockwise) -> _Arcs:
    """Flow i→j clockwise covers segments i … j−1 (direction 0); counter-clockwise j … i−1 (direction 1)."""
    start = np.where(clockwise, src, dst)
    end = start + np.where(clockwise, (dst - src) % n, (src - dst) % n)
    offset = np.where(clockwise, 0, n + 1)
    wrapped = np.flatnonzero(end > n)
    return _Arcs(n, start + offset, np.minimum(end, n) + offset, wrapped, offset[wrapped], end[wrapped] - n
                 + offset[wrapped])


def _shortest_clockwise(n, src, dst, directions):
    """Shortest-arc direction; ties (distance n/2) go clockwise when src < dst, so i→j and j→i split."""
    if directions == 1:
        return np.ones(src.size, dtype=bool)
    twice_ahead = dst - src  # twice the arc ahead against the ring's n, in place (millions of flows)
    twice_ahead %= n
    twice_ahead *= 2
    tie = twice_ahead == n
    tie &= src < dst
    return (twice_ahead < n) | tie


def _snap_to_breakpoint(bound, weight):
    """The optimal min ratio is some units_f / weight_f = k / weight_f: lower an upper bound to the largest such
    value ≤ bound (with 1e-9 slack against rounding)."""
    unique = np.unique(weight)
    return float(np.max(np.floor(bound * unique * (1 + 1e-9)) / unique))


def _ring_dual_bound(n, src, dst, weight, capacity, iterations, achieved=0.0):
    """Upper bound on the LP optimum t (units per weight), two directions, by LP duality: for resource prices
    y ≥ 0, t ≤ C·Σy / Σ_f weight_f · (price of f's cheaper arc). Prices start uniform (the volume bound) and are
    updated multiplicatively towards loaded resources (Garg & Könemann, FOCS 1998, style); the best is kept.
    Stops early once the bound, lowered to the breakpoint below it, meets `achieved`: optimality is proven."""
    cw = _ring_arcs(n, src, dst, np.ones(src.size, dtype=bool))
    ccw = _ring_arcs(n, src, dst, np.zeros(src.size, dtype=bool))
    prices = np.ones(2 * n)
    best = np.inf
    for step in range(iterations):
        cost_cw, cost_ccw = cw.sums(prices), ccw.sums(prices)
        go_cw = cost_cw <= cost_ccw
        denominator = float(weight @ np.where(go_cw, cost_cw, cost_ccw))
        if denominator > 0:
            best = min(best, capacity * prices.sum() / denominator)
            if _snap_to_breakpoint(best, weight) <= achieved * (1 + 1e-12):
                break
        load = cw.load(np.where(go_cw, weight, 0.0)) + ccw.load(np.where(go_cw, 0.0, weight))
        prices = prices * np.exp(2.0 / np.sqrt(step + 1.0) * load / load.max())  # step size 2/√k
        prices /= prices.max()
    return best


def _ring_result(flows, demand, units, clockwise, rate, upper_bound_units, method):
    bandwidth = units * rate
    ratio = float(np.min(bandwidth / demand))
    bound = upper_bound_units * rate / demand.max()
    return RingAllocation(flows=flows, wavelengths=_frozen(units.astype(np.int64, copy=False)),
                          clockwise=_frozen(np.asarray(clockwise, dtype=bool)),
                          bandwidth_bps=_frozen(bandwidth), min_ratio=ratio,
                          upper_bound=float(bound), exact=bool(ratio >= bound * (1 - 1e-9)), method=method)


# --- SiP-Ring: fast method ----------------------------------------------------------------------------
def ring_allocation_fast(demand_bps, *, directions, fibers, wavelengths_per_fiber, wavelength_rate_bps,
                         fill: bool = True, bound_iterations: int = 40) -> RingAllocation:
    """SiP-Ring wavelengths by shortest-arc routing and integer max-min progressive filling [sim objective].

    For the fixed shortest-arc routes the min ratio is the exact integer optimum; routes are the only freedom
    left, so with ``directions = 1`` the result is optimal (``exact`` True, pooled model). With two directions,
    ``upper_bound`` is an LP-duality bound over all routings (``bound_iterations`` price updates; 0: no bound,
    ``upper_bound`` NaN and ``exact`` False) and ``exact`` says whether it was reached. Shortest arcs suit the patterns training produces (ring neighbours, all-to-all
    in groups of consecutive GPUs); a pattern that needs long arcs to balance load gets a lower ratio, and the
    gap to ``upper_bound`` shows it. Pure numpy: O((flows + N) · (bisection steps + bound_iterations)).
    Integer wavelengths: when a segment must carry more flows than it has wavelengths, some pair gets none and
    the min ratio is 0 (the optimum too, if ``exact``).
    ``fill`` False returns the first level only, ceil(t*·weight) wavelengths per flow: then more wavelengths per
    fiber never lower any pair's allocation (t* cannot fall). With ``fill`` True (spare capacity handed out) only
    the min ratio is monotone: integer max-min filling can move a unit between pairs when W grows."""
    n, src, dst, demand, flows = _flows(demand_bps)
    directions, capacity = _ring_capacity(directions, fibers, wavelengths_per_fiber)
    rate = _positive_float(wavelength_rate_bps, "wavelength_rate_bps")
    weight = demand / demand.max()
    clockwise = _shortest_clockwise(n, src, dst, directions)
    length = (dst - src) % n  # the arc ahead, then the other way round (n − ahead, src ≠ dst) where not clockwise
    np.subtract(n, length, out=length, where=~clockwise)
    found = _stretch_fill(flows, clockwise, length, weight, capacity, directions, fill)
    units, first = found if found is not None else _ring_fill(n, src, dst, clockwise, length, weight, capacity, fill)
    del found, length  # per-flow arrays no longer needed: the result's own come next
    if directions == 1:
        bound = float(np.min(first / weight))  # one route per flow: the first level is optimal
    else:
        iterations = _count(bound_iterations, "bound_iterations", minimum=0)
        bound = math.nan if iterations == 0 else _snap_to_breakpoint(
            _ring_dual_bound(n, src, dst, weight, capacity, iterations, achieved=float(np.min(first / weight))), weight)
    del weight, first
    return _ring_result(flows, demand, units, clockwise, rate, bound, "shortest-arc progressive filling")


def _ring_fill(n, src, dst, clockwise, length, weight, capacity, fill):
    """(units, first level) of the progressive filling of the flows' arcs on the whole ring of n GPUs."""
    arcs = _ring_arcs(n, src, dst, clockwise)
    start = np.where(clockwise, src, dst)
    first_resource = np.where(clockwise, 0, n)  # resource index direction·n + segment

    def members(f):
        return first_resource[f] + (start[f] + np.arange(length[f])) % n

    return _progressive_fill(weight, np.full(2 * n, float(capacity)), arcs.load, lambda mask: arcs.sums(mask) > 0,
                             fill=fill, members=members, priority=length, load_at=arcs.load_at, arcs=arcs)


def _stretch_fill(flows: Flows, clockwise, length, weight, capacity, directions, fill):
    """(units, first level) of `ring_allocation_fast`'s progressive filling from a ring of m < n GPUs, or None.

    A pattern that a shift of `flows.period` GPUs maps onto itself, whose arcs (of `length` segments) are shorter
    than half a stretch of m GPUs (shorter than m with one direction; m a multiple of the period dividing n),
    loads every stretch of m segments alike: on a ring of m GPUs carrying one stretch's flows, each resource's
    load is that of its copies on the whole ring at every level, so every bisection step, level and freeze is the
    same, and each flow's units are its image's there. Checked, not assumed: every flow must be a copy of one of
    the first stretch's, each of those once in every stretch with its demand; and, filling past the first level,
    no flow may end without a unit (a refused first unit is admitted by priority in flow order, which a ring of m
    GPUs would break differently). None otherwise: the caller fills the whole ring."""
    n, period = flows.gpus, flows.period
    if not period:
        return None
    longest = int(length.max())
    shortest_stretch = max(longest + 1 if directions == 1 else 2 * longest + 1, 2)
    m = next((period * d for d in divisors(n // period) if period * d >= shortest_stretch), n)
    if 2 * m > n:  # no stretch shorter than half the ring holds the arcs
        return None
    src, dst, demand = flows.src, flows.dst, flows.demand_bps
    key = src % m  # each flow's image on a ring of m GPUs: (src mod m)·m + dst mod m, in place (millions of flows)
    key *= m
    key += dst % m
    first_stretch = np.flatnonzero(src < m)
    order = np.argsort(key[first_stretch], kind="stable")
    image, images = first_stretch[order], key[first_stretch][order]
    if flows.count != (n // m) * image.size or np.any(images[1:] == images[:-1]):
        return None
    at = np.searchsorted(images, key)
    np.minimum(at, image.size - 1, out=at)
    if not np.array_equal(images[at], key):
        return None
    del key
    copies = n // m  # each image once in every stretch (a pair listed twice is not a copy)
    stretch_copy = at * copies
    stretch_copy += src // m
    if not (np.array_equal(demand[image][at], demand)
            and np.all(np.bincount(stretch_copy, minlength=flows.count) == 1)):
        return None
    del stretch_copy
    arcs = _ring_arcs(m, src[image], dst[image] % m, clockwise[image])
    units, first = _progressive_fill(weight[image], np.full(2 * m, float(capacity)), arcs.load,
                                     lambda mask: arcs.sums(mask) > 0, fill=fill, load_at=arcs.load_at)
    if fill and units.min() == 0:  # the whole ring would admit refused first units one by one, in flow order
        return None
    return units[at], first[at]


# --- SiP-Ring: exact integer program and its LP relaxation --------------------------------------------
def _arc_incidence(n, start, length, per_flow=None):
    """(n, F) sparse matrix: entry (s, f) is per_flow[f] (default 1) where segment s is on the arc of flow f."""
    from scipy.sparse import csr_array

    flow = np.repeat(np.arange(start.size), length)
    offset = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    segment = (np.repeat(start, length) + offset) % n
    values = np.ones(flow.size) if per_flow is None else np.asarray(per_flow, dtype=float)[flow]
    return csr_array((values, (segment, flow)), shape=(n, start.size))


def _ring_program(n, src, dst, weight, directions, capacity):
    """The SiP-Ring integer program: variables [t, a_cw (F), a_ccw (F), z (F)] (one direction: [t, a (F)]),
    maximise t subject to segment capacities, a_cw + a_ccw ≥ t·weight, a_cw ≤ C·z, a_ccw ≤ C·(1 − z), with a
    integer and z binary (one direction per flow). Returns (objective, constraint, bounds, integrality)."""
    from scipy.optimize import Bounds, LinearConstraint
    from scipy.sparse import csr_array, hstack, identity, vstack

    flows = src.size
    eye = identity(flows, format="csr")
    weight_column = csr_array(weight[:, None])
    cw = _arc_incidence(n, src, (dst - src) % n)
    if directions == 1:
        matrix = vstack([hstack([csr_array((n, 1)), cw]), hstack([weight_column, -eye])])
        upper = np.concatenate((np.full(n, float(capacity)), np.zeros(flows)))
        lower, top = np.zeros(1 + flows), np.concatenate(([np.inf], np.full(flows, float(capacity))))
        integrality = np.concatenate(([0], np.ones(flows)))
    else:
        ccw = _arc_incidence(n, dst, (src - dst) % n)
        zero_n, zero_f, zero_col = csr_array((n, flows)), csr_array((flows, flows)), csr_array((flows, 1))
        matrix = vstack([
            hstack([csr_array((n, 1)), cw, zero_n, zero_n]),
            hstack([csr_array((n, 1)), zero_n, ccw, zero_n]),
            hstack([weight_column, -eye, -eye, zero_f]),
            hstack([zero_col, eye, zero_f, -capacity * eye]),
            hstack([zero_col, zero_f, eye, capacity * eye]),
        ])
        upper = np.concatenate((np.full(2 * n, float(capacity)), np.zeros(2 * flows), np.full(flows, float(capacity))))
        lower = np.zeros(1 + 3 * flows)
        top = np.concatenate(([np.inf], np.full(2 * flows, float(capacity)), np.ones(flows)))
        integrality = np.concatenate(([0], np.ones(3 * flows)))
    objective = np.zeros(matrix.shape[1])
    objective[0] = -1.0
    constraint = LinearConstraint(matrix.tocsr(), -np.inf, upper)
    return objective, constraint, Bounds(lower, top), integrality


def _check_ring_size(n, flows, max_gpus, max_flows, what):
    if n > max_gpus or flows > max_flows:
        raise DomainError(f"{what} is limited to {max_gpus} GPUs and {max_flows} pairs with demand "
                          f"(got {n} GPUs, {flows} pairs); use ring_allocation_fast")


def _lp_optimum(n, src, dst, weight, directions, capacity) -> float:
    """Optimal t (units per weight) of the LP relaxation of ``_ring_program``."""
    from scipy.optimize import milp

    objective, constraint, bounds, integrality = _ring_program(n, src, dst, weight, directions, capacity)
    result = milp(objective, constraints=constraint, bounds=bounds, integrality=np.zeros_like(integrality))
    if result.status != 0:
        raise DomainError(f"ring LP relaxation failed: {result.message}")
    return -float(result.fun)


def _breakpoints(weight, above, at_most):
    """Sorted values k/weight_f (k integer) in (above, at_most]: the only values the optimal t can take."""
    unique = np.unique(weight)
    first = np.floor(above * unique) + 1
    last = np.floor(at_most * unique * (1 + 1e-9))
    values = [np.arange(f, l + 1) / w for w, f, l in zip(unique, first, last) if l >= f]
    return np.unique(np.concatenate(values)) if values else np.zeros(0)


def _routes_for(n, src, dst, need, capacity, time_limit_s):
    """Directions (True = clockwise) under which flows needing `need` wavelengths fit, or None if none exist:
    a 0/1 integer program over one direction variable per flow [scipy.optimize.milp / HiGHS]."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import vstack

    if np.any(need > capacity):
        return None
    cw = _arc_incidence(n, src, (dst - src) % n, need)  # z_f = 1: flow f clockwise
    ccw = _arc_incidence(n, dst, (src - dst) % n, need)  # z_f = 0: counter-clockwise
    constraint = LinearConstraint(vstack([cw, -ccw]).tocsr(), -np.inf,
                                  np.concatenate((np.full(n, float(capacity)), capacity - ccw.sum(axis=1))))
    result = milp(np.zeros(src.size), constraints=constraint, bounds=Bounds(0, 1), integrality=np.ones(src.size),
                  options={"time_limit": time_limit_s})
    if result.status == 2:
        return None
    if result.status != 0 or result.x is None:
        raise DomainError(f"ring routing program did not finish: {result.message}")
    return result.x > 0.5


def ring_allocation_milp(demand_bps, *, directions, fibers, wavelengths_per_fiber, wavelength_rate_bps,
                         time_limit_s: float = MILP_TIME_LIMIT_S) -> RingAllocation:
    """Exact SiP-Ring allocation for the pooled model: one direction and an integer wavelength count per flow,
    maximising the min ratio [sim objective], solved by integer programming (scipy.optimize.milp / HiGHS).

    The optimal t is a breakpoint k/weight_f, so instead of one big program with a continuous t (whose big-M
    relaxation proved slow: 8 GPUs all-to-all took seconds, 10 GPUs timed out) this bisects over the
    breakpoints between the fast method's value (feasible) and the LP bound, deciding each with a 0/1 routing
    program in which every flow needs ceil(t·weight) wavelengths. The routes found are then progressively
    filled. One direction: routes are fixed and the fast method is already optimal.
    Limited to RING_MILP_MAX_GPUS GPUs and RING_MILP_MAX_FLOWS pairs with demand, and to `time_limit_s` in total
    (DomainError beyond either)."""
    import time

    n, src, dst, demand, flows = _flows(demand_bps)
    directions, capacity = _ring_capacity(directions, fibers, wavelengths_per_fiber)
    rate = _positive_float(wavelength_rate_bps, "wavelength_rate_bps")
    deadline = time.monotonic() + _positive_float(time_limit_s, "time_limit_s")
    _check_ring_size(n, src.size, RING_MILP_MAX_GPUS, RING_MILP_MAX_FLOWS, "the ring MILP")
    weight = demand / demand.max()
    clockwise = _shortest_clockwise(n, src, dst, directions)
    arcs = _ring_arcs(n, src, dst, clockwise)
    _, first = _progressive_fill(weight, np.full(2 * n, float(capacity)), arcs.load, lambda mask: arcs.sums(mask) > 0)
    best = float(np.min(first / weight))
    if directions == 2:
        ceiling = _snap_to_breakpoint(_lp_optimum(n, src, dst, weight, directions, capacity), weight)
        candidates = _breakpoints(weight, best * (1 + 1e-9), ceiling)
        low, high = -1, candidates.size  # candidates[low] feasible (−1: `best`), candidates[high] infeasible
        while high - low > 1:
            middle = (low + high) // 2
            need = np.ceil(candidates[middle] * weight * (1 - 1e-9))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DomainError(f"ring MILP exceeded its time limit of {time_limit_s} s")
            routes = _routes_for(n, src, dst, need, capacity, remaining)
            if routes is None:
                high = middle
            else:
                low, clockwise = middle, routes
        best = float(candidates[low]) if low >= 0 else best
    arcs = _ring_arcs(n, src, dst, clockwise)
    units, _ = _progressive_fill(weight, np.full(2 * n, float(capacity)), arcs.load, lambda mask: arcs.sums(mask) > 0)
    return _ring_result(flows, demand, units, clockwise, rate, best, "breakpoint bisection + 0/1 MILP (HiGHS)")


def ring_allocation_lp_bound(demand_bps, *, directions, fibers, wavelengths_per_fiber, wavelength_rate_bps) -> float:
    """Upper bound on the SiP-Ring min ratio: the LP relaxation of the integer program (fractional wavelengths,
    a flow may split across directions). Limited to RING_LP_MAX_GPUS GPUs (DomainError above)."""
    n, src, dst, demand, flows = _flows(demand_bps)
    directions, capacity = _ring_capacity(directions, fibers, wavelengths_per_fiber)
    rate = _positive_float(wavelength_rate_bps, "wavelength_rate_bps")
    _check_ring_size(n, src.size, RING_LP_MAX_GPUS, RING_LP_MAX_GPUS * (RING_LP_MAX_GPUS - 1), "the ring LP")
    return _lp_optimum(n, src, dst, demand / demand.max(), directions, capacity) * rate / demand.max()


# --- SiP-OCS ------------------------------------------------------------------------------------------
def _ocs_args(demand_bps, n_ocs, circuit_bps):
    n, src, dst, demand, flows = _flows(demand_bps)
    return n, src, dst, demand, flows, _count(n_ocs, "n_ocs", minimum=1), _positive_float(circuit_bps, "circuit_bps")


def _ocs_result(flows, demand, circuits, permutations, rate, upper_bound, method):
    """`circuits` per flow."""
    circuits = np.asarray(circuits, dtype=np.int64)
    ratio = float(np.min(circuits * rate / demand))
    return OcsAssignment(flows=flows, circuits=_frozen(circuits),
                         permutations=None if permutations is None else _frozen(permutations),
                         bandwidth_bps=_frozen(circuits * rate), min_ratio=ratio,
                         upper_bound=float(upper_bound), exact=bool(ratio >= upper_bound * (1 - 1e-9)),
                         method=method)


def _northwest_corner(row_deficit, column_deficit):
    """(rows, cols, amount) of a non-negative integer matrix with the given row and column sums (equal totals)."""
    row_end, column_end = np.cumsum(row_deficit), np.cumsum(column_deficit)
    cuts = np.union1d(row_end, column_end)
    starts = np.concatenate(([0], cuts[:-1]))
    amount = cuts - starts
    keep = amount > 0
    rows = np.searchsorted(row_end, starts[keep], side="right")
    cols = np.searchsorted(column_end, starts[keep], side="right")
    return rows, cols, amount[keep]


def decompose_circuits(src, dst, circuits, gpus: int, n_ocs: int) -> np.ndarray:
    """Split circuit counts per (src, dst) pair (no pair repeated, src ≠ dst, each GPU's egress and ingress sums
    ≤ n_ocs) into n_ocs partial permutations (König's edge-colouring theorem; Birkhoff–von Neumann style): pad to
    an n_ocs-regular bipartite multigraph, then peel off n_ocs perfect matchings (Hopcroft–Karp,
    scipy.sparse.csgraph.maximum_bipartite_matching). Returns (n_ocs, N): destination of GPU i on OCS k, −1 where
    the port carries no circuit."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_bipartite_matching

    k = _count(n_ocs, "n_ocs", minimum=1)
    n = _count(gpus, "gpus", minimum=1)
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    counts = np.asarray(circuits)
    if np.any(counts < 0) or np.any(counts != np.round(counts)) or counts.shape != src.shape:
        raise InputError("circuits must be non-negative integers, one per (src, dst) pair")
    counts = counts.astype(np.int64)
    egress, ingress = np.bincount(src, counts, n), np.bincount(dst, counts, n)
    if np.any(src == dst) or np.any(egress > k) or np.any(ingress > k):
        raise InputError(f"circuits need src ≠ dst and egress/ingress sums ≤ n_ocs = {k}")
    keep = counts > 0
    real_rows, real_cols, counts = src[keep], dst[keep], counts[keep]
    pad_rows, pad_cols, pad_amount = _northwest_corner(k - egress.astype(np.int64), k - ingress.astype(np.int64))
    keys, inverse = np.unique(np.concatenate((real_rows * n + real_cols, pad_rows * n + pad_cols)),
                              return_inverse=True)
    real = np.bincount(inverse[:real_rows.size], counts, keys.size).astype(np.int64)
    pad = np.bincount(inverse[real_rows.size:], pad_amount, keys.size).astype(np.int64)
    rows, cols = keys // n, keys % n
    permutations = np.full((k, n), -1, dtype=np.int64)
    for layer in range(k):
        alive = real + pad > 0
        graph = csr_array((np.ones(alive.sum()), (rows[alive], cols[alive])), shape=(n, n))
        match = maximum_bipartite_matching(graph, perm_type="column")  # column matched to each row
        if np.any(match < 0):  # cannot happen: a regular bipartite multigraph has a perfect matching
            raise DomainError("circuit decomposition found no perfect matching")
        entry = np.searchsorted(keys, np.arange(n) * n + match)
        use_real = real[entry] > 0
        permutations[layer] = np.where(use_real, match, -1)
        real[entry] -= use_real
        pad[entry] -= ~use_real
    return permutations


def ocs_assignment(demand_bps, *, n_ocs, circuit_bps, fill: bool = True, permutations: bool = True) -> OcsAssignment:
    """SiP-OCS single-shot circuits [sim objective]: integer progressive filling over GPU egress and ingress ports
    (n_ocs each) gives circuit counts whose min ratio is the exact optimum (first level; König makes any counts
    with row/column sums ≤ n_ocs realisable), spare ports go to pairs not at the bottleneck (``fill``), and
    ``decompose_circuits`` turns the counts into one permutation per OCS (``permutations`` False skips that step: the
counts alone give every bandwidth). Monotonicity in n_ocs as for
    ``ring_allocation_fast``: per pair only with ``fill`` False, the min ratio always."""
    n, src, dst, demand, flows, k, rate = _ocs_args(demand_bps, n_ocs, circuit_bps)
    weight = demand / demand.max()

    def load(units):
        return np.concatenate((np.bincount(src, units, n), np.bincount(dst, units, n)))

    def touches(mask):
        return mask[src] | mask[n + dst]

    units, first = _progressive_fill(weight, np.full(2 * n, float(k)), load, touches, fill=fill)
    bound = float(np.min(first / weight)) * rate / demand.max()
    layers = decompose_circuits(src, dst, units, n, k) if permutations else None
    method = "progressive filling + König decomposition" if permutations else "progressive filling (König: realisable)"
    return _ocs_result(flows, demand, units, layers, rate, bound, method)


def ocs_assignment_milp(demand_bps, *, n_ocs, circuit_bps, time_limit_s: float = MILP_TIME_LIMIT_S) -> OcsAssignment:
    """Exact SiP-OCS assignment by a MILP over the permutations themselves [sim objective; scipy.optimize.milp]:
    binary x[k, i, j] (circuit i→j on OCS k, i ≠ j), ≤ 1 egress and ≤ 1 ingress per GPU per OCS, maximise the min
    ratio. Independent of the König reduction used by ``ocs_assignment``; ports the objective does not need may
    stay dark. Limited to OCS_MILP_MAX_GPUS GPUs and n_ocs·N·(N−1) ≤ OCS_MILP_MAX_BINARIES (DomainError above,
    or on the time limit)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_array, vstack

    n, src, dst, demand, flows, k, rate = _ocs_args(demand_bps, n_ocs, circuit_bps)
    pair_i, pair_j = np.nonzero(~np.eye(n, dtype=bool))
    pairs = pair_i.size
    if n > OCS_MILP_MAX_GPUS or k * pairs > OCS_MILP_MAX_BINARIES:
        raise DomainError(f"the OCS MILP is limited to {OCS_MILP_MAX_GPUS} GPUs and n_ocs·N·(N−1) ≤ "
                          f"{OCS_MILP_MAX_BINARIES} binaries (got {n} GPUs, {k * pairs}); use ocs_assignment")
    weight = demand / demand.max()
    layer = np.repeat(np.arange(k), pairs)  # variable 1 + v is x[layer[v], pair_i[v % pairs], pair_j[…]]
    var_i, var_j = np.tile(pair_i, k), np.tile(pair_j, k)
    column = 1 + np.arange(k * pairs)
    egress = csr_array((np.ones(k * pairs), (layer * n + var_i, column)), shape=(k * n, 1 + k * pairs))
    ingress = csr_array((np.ones(k * pairs), (layer * n + var_j, column)), shape=(k * n, 1 + k * pairs))
    demand_pair = src * (n - 1) + np.where(dst < src, dst, dst - 1)  # row-major index among off-diagonal pairs
    serve_rows = np.concatenate((np.arange(src.size), np.repeat(np.arange(src.size), k)))
    serve_cols = np.concatenate((np.zeros(src.size, dtype=np.int64),
                                 1 + (np.arange(k)[None, :] * pairs + demand_pair[:, None]).ravel()))
    serve_vals = np.concatenate((weight, -np.ones(src.size * k)))
    serve = csr_array((serve_vals, (serve_rows, serve_cols)), shape=(src.size, 1 + k * pairs))
    constraint = LinearConstraint(vstack([egress, ingress, serve]).tocsr(), -np.inf,
                                  np.concatenate((np.ones(2 * k * n), np.zeros(src.size))))
    objective = np.zeros(1 + k * pairs)
    objective[0] = -1.0
    bounds = Bounds(np.zeros(1 + k * pairs), np.concatenate(([np.inf], np.ones(k * pairs))))
    integrality = np.concatenate(([0], np.ones(k * pairs)))
    result = milp(objective, constraints=constraint, bounds=bounds, integrality=integrality,
                  options={"time_limit": _positive_float(time_limit_s, "time_limit_s"), "mip_rel_gap": 1e-9})
    if result.status != 0 or result.x is None:
        raise DomainError(f"OCS MILP did not reach an optimum: {result.message}")
    chosen = result.x[1:].reshape(k, pairs) > 0.5
    permutations = np.full((k, n), -1, dtype=np.int64)
    circuits = np.zeros((n, n), dtype=np.int64)
    for layer_index in range(k):
        on = chosen[layer_index]
        permutations[layer_index, pair_i[on]] = pair_j[on]
        np.add.at(circuits, (pair_i[on], pair_j[on]), 1)
    bound = -float(result.mip_dual_bound) if np.isfinite(result.mip_dual_bound) else -float(result.fun)
    bound = _snap_to_breakpoint(bound, weight)
    return _ocs_result(flows, demand, circuits[src, dst], permutations, rate, bound * rate / demand.max(),
                       "MILP (HiGHS)")
