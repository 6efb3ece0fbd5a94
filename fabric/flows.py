"""Traffic as flows: (source GPU, destination GPU, demand in bit/s) arrays, so the work and memory of a traffic
pattern grow with its flows, not with the square of the GPU count.

Training patterns (SiP-ML [sim]): the data-parallel ring (GPU i → i+1) and all-to-all inside consecutive
model-parallel groups.
"""

from __future__ import annotations

import math

import numpy as np

from core.errors import InputError
from core.records import record


@record
class Flows:
    """Directed flows between the GPUs 0..gpus−1 of a fabric: one entry per (src, dst) pair with demand > 0.
    `period`: a shift of the GPU indices (mod gpus) that maps the pattern onto itself, as the patterns built here
    know it (a ring's 1, consecutive groups' size), 0 where none is known; a hint that a fabric may allocate one
    stretch of GPUs and repeat it (`fabric.allocation.ring_allocation_fast` checks it first)."""

    gpus: int
    src: np.ndarray  # int64
    dst: np.ndarray  # int64
    demand_bps: np.ndarray  # float, > 0
    period: int = 0

    def __post_init__(self):
        src, dst = np.asarray(self.src, dtype=np.int64), np.asarray(self.dst, dtype=np.int64)
        demand = np.asarray(self.demand_bps, dtype=float)
        if not (src.shape == dst.shape == demand.shape) or src.ndim != 1:
            raise InputError("flows need src, dst and demand_bps arrays of one shape")
        if self.gpus < 2:
            raise InputError(f"flows need at least 2 GPUs, got {self.gpus}")
        if src.size and (src.min() < 0 or dst.min() < 0 or max(src.max(), dst.max()) >= self.gpus):
            raise InputError(f"flow endpoints must be GPUs 0..{self.gpus - 1}")
        if np.any(src == dst):
            raise InputError("a flow must join two different GPUs (a GPU does not send to itself over the fabric)")
        if not np.all(np.isfinite(demand)) or np.any(demand <= 0):
            raise InputError("flow demands must be finite and > 0 bit/s")
        if isinstance(self.period, bool) or not isinstance(self.period, (int, np.integer)) or self.period < 0 \
                or (self.period and self.gpus % self.period):
            raise InputError(f"period must be 0 or an integer dividing the {self.gpus} GPUs, got {self.period!r}")
        object.__setattr__(self, "period", int(self.period))
        for name, value in (("src", src), ("dst", dst), ("demand_bps", demand)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def count(self) -> int:
        return int(self.src.size)

    @classmethod
    def from_matrix(cls, demand_bps) -> Flows:
        """Flows of an N × N demand matrix (bit/s from row to column, zero diagonal)."""
        demand = np.asarray(demand_bps, dtype=float)
        if demand.ndim != 2 or demand.shape[0] != demand.shape[1] or demand.shape[0] < 2:
            raise InputError(f"demand_bps must be a square N×N matrix with N ≥ 2, got shape {demand.shape}")
        if not np.all(np.isfinite(demand)) or np.any(demand < 0):
            raise InputError("demand_bps must hold finite values ≥ 0")
        if np.any(np.diag(demand) != 0):
            raise InputError("demand_bps must have a zero diagonal (a GPU does not send to itself over the fabric)")
        src, dst = np.nonzero(demand)
        return cls(demand.shape[0], src, dst, demand[src, dst])

    def matrix(self, values=None) -> np.ndarray:
        """An N × N matrix of `values` per flow (default: the demand), zero elsewhere — for small fabrics."""
        out = np.zeros((self.gpus, self.gpus))
        out[self.src, self.dst] = self.demand_bps if values is None else values
        return out

    def __add__(self, other: Flows) -> Flows:
        """The union of two patterns on one fabric; demands of a pair present in both add up."""
        if other.gpus != self.gpus:
            raise InputError(f"cannot add flows on {self.gpus} and {other.gpus} GPUs")
        key = np.concatenate((self.src, other.src)) * self.gpus + np.concatenate((self.dst, other.dst))
        unique, inverse = _distinct(key)
        demand = np.bincount(inverse, np.concatenate((self.demand_bps, other.demand_bps)), unique.size)
        period = math.lcm(self.period, other.period) if self.period and other.period else 0  # divides gpus
        return Flows(self.gpus, unique // self.gpus, unique % self.gpus, demand, period)


def _distinct(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(key, return_inverse=True), by a stable sort: two patterns each listed in (src, dst) order are two
    sorted runs, which it merges in one pass (np.unique's quicksort sorts them afresh: 4× slower at 8 M flows)."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    first = np.empty(key.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(key.size, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def _rate(value) -> float:
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise InputError(f"rate_bps must be a number > 0, got {value!r}") from None
    if not np.isfinite(rate) or rate <= 0:
        raise InputError(f"rate_bps must be a finite number > 0, got {value!r}")
    return rate


def ring_neighbour_flows(gpus: int, rate_bps: float, *, both_ways: bool = False) -> Flows:
    """A ring collective's traffic: GPU i sends rate_bps to i+1 (and to i−1 if `both_ways`)."""
    n = _count(gpus, "gpus", 2)
    rate = _rate(rate_bps)
    i = np.arange(n)
    flows = Flows(n, i, (i + 1) % n, np.full(n, rate), period=1)
    if both_ways and n > 2:
        flows = flows + Flows(n, i, (i - 1) % n, np.full(n, rate), period=1)
    elif both_ways:  # two GPUs: i+1 and i−1 are the same peer
        flows = Flows(n, i, (i + 1) % n, np.full(n, 2 * rate), period=1)
    return flows


def group_alltoall_flows(gpus: int, group_size: int, rate_bps: float) -> Flows:
    """All-to-all inside consecutive groups of g GPUs (0..g−1, g..2g−1, …): rate_bps per ordered pair."""
    n = _count(gpus, "gpus", 2)
    g = _count(group_size, "group_size", 1)
    if n % g:
        raise InputError(f"group_size ({g}) must divide gpus ({n})")
    rate = _rate(rate_bps)
    if g == 1:
        return Flows(n, np.zeros(0), np.zeros(0), np.zeros(0), period=1)
    src, dst = np.nonzero(~np.eye(g, dtype=bool))  # one group's ordered pairs, in (src, dst) order
    return _repeated(n, g, src, dst, np.full(src.size, rate))


def ring_and_group_flows(gpus: int, group_size: int, rate_bps: float) -> Flows:
    """`ring_neighbour_flows(gpus, rate_bps) + group_alltoall_flows(gpus, group_size, rate_bps)` (SiP-ML's training
    pattern; a pair in both carries both demands), the same flows in the same order, built from the sum on a ring
    of three groups, whose middle group's flows are every group's, repeated (no sort of millions of pairs)."""
    n = _count(gpus, "gpus", 2)
    g = _count(group_size, "group_size", 1)
    if n <= 3 * g or n % g:  # small, or refused with group_alltoall_flows's reason
        return ring_neighbour_flows(n, rate_bps) + group_alltoall_flows(n, g, rate_bps)
    small = ring_neighbour_flows(3 * g, rate_bps) + group_alltoall_flows(3 * g, g, rate_bps)
    middle = (small.src >= g) & (small.src < 2 * g)
    return _repeated(n, g, small.src[middle] - g, small.dst[middle] - g, small.demand_bps[middle])


def _repeated(gpus: int, period: int, src, dst, demand) -> Flows:
    """The flows of GPUs 0..period−1 (`src`, `dst` unreduced, in (src, dst) order) repeated every `period` GPUs round
    the ring, in (src, dst) order: the stretches whose destinations wrap past either end of the ring sorted anew."""
    stretches = gpus // period
    start = np.arange(0, gpus, period, dtype=np.int64)[:, None]
    all_src = (start + np.asarray(src, dtype=np.int64)).ravel()
    all_dst = (start + np.asarray(dst, dtype=np.int64)).ravel()
    all_demand = np.tile(np.asarray(demand, dtype=float), stretches)
    if src.size:
        low, high = int(np.min(dst)), int(np.max(dst))  # stretches j with j·period + low < 0 or + high ≥ gpus
        first = range(min(stretches, -(low // period)))  # -(low // period) = ⌈−low/period⌉
        last = range(max(len(first), -((high - gpus) // period)), stretches)  # j ≥ ⌈(gpus − high)/period⌉
        for j in (*first, *last):
            part = slice(j * src.size, (j + 1) * src.size)
            all_dst[part] %= gpus
            order = np.lexsort((all_dst[part], all_src[part]))
            all_src[part], all_dst[part], all_demand[part] = (a[part][order] for a in (all_src, all_dst, all_demand))
    return Flows(gpus, all_src, all_dst, all_demand, period=period)
