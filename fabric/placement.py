"""Several jobs on one fabric: where each runs, and what is left over.

A fabric kind hands its GPUs out in **units** (`Slots`): whole servers on an electrical fabric, whole cubes on a
torus of cubes, single GPUs on an optical circuit switch or a ring. A ring's job takes one unbroken arc of
consecutive positions (its wavelengths are added and dropped along it); a fabric built of pods prefers a job inside
one pod and lets it span pods where none holds it (`strict`: a partitioned switch has no circuit between its pods,
so a job never spans them).

Policy (the order and the choice, `place`): jobs whose GPUs the user fixed (`at`) first, checked; the others by
priority (highest first), then in the order given. Each takes ⌈GPUs / unit⌉ units:
- **first fit**: the first free arc that holds it (a ring), or the first pod with room, else the pods with the
  most room first (fewest pods spanned), lowest units first;
- **best fit**: the shortest free arc that holds it, or the pod with the least room that holds it (a large hole
  kept for a large job), else as first fit.
A job with nowhere to go makes the placement infeasible on that fabric (its name and the room that was left); a mix
asking more GPUs than the cluster has, or fixed GPUs that break the rule or overlap, is refused as bad input.

Fragmentation (`Leftover`): GPUs no job runs on (idle), GPUs inside a job's units it does not use (stranded: a
1,000-GPU job on 64-GPU cubes strands 24), and the largest job that would still fit (one arc on a ring, one pod of a
partitioned switch, every free unit elsewhere).
"""

from __future__ import annotations

import math

from core.errors import InfeasibleDesign, InputError
from core.records import record

POLICIES = ("first-fit", "best-fit")


@record
class Slots:
    """How a fabric kind hands its GPUs to jobs."""

    gpus: int  # in the cluster
    unit_gpus: int  # GPUs per unit (a server, a cube, a GPU)
    unit: str  # what a unit is called
    contiguous: bool = False  # a job takes one unbroken run of units (on a ring, wrapping round)
    domain_units: int = 0  # units per pod (0: no pods)
    domain: str = "pod"
    strict: bool = False  # a job may not span pods
    rule: str = ""  # the kind's rule in one sentence

    @property
    def units(self) -> int:
        return self.gpus // self.unit_gpus

    def domain_of(self, unit: int) -> int:
        return unit // self.domain_units if self.domain_units else 0

    @property
    def domains(self) -> int:
        return math.ceil(self.units / self.domain_units) if self.domain_units else 1


def any_gpu(gpus: int) -> Slots:
    """A fabric with no rule of its own: any free GPUs, lowest first."""
    return Slots(gpus=gpus, unit_gpus=1, unit="GPU", rule="any free GPUs")


@record
class Request:
    """A job to place: its name, its GPUs, its priority and the GPUs the user fixed (ranges, or '')."""

    name: str
    gpus: int
    priority: int = 0
    at: str = ""


@record
class Placed:
    """Where one job runs: its units (in rank order) and what that leaves of them."""

    name: str
    gpus: int
    units: tuple[int, ...]
    unit_gpus: int

    @property
    def allocated_gpus(self) -> int:
        return len(self.units) * self.unit_gpus

    @property
    def stranded_gpus(self) -> int:
        return self.allocated_gpus - self.gpus

    def gpu_ranges(self) -> str:
        """The GPUs it holds as ranges, '0-1023,2048-2559'."""
        return ranges_text([u * self.unit_gpus for u in self.units], self.unit_gpus)


@record
class Leftover:
    """What a placement leaves: idle GPUs, GPUs stranded in jobs' units, the largest job that still fits."""
    idle_gpus: int  # in no job's units
    stranded_gpus: int  # in a job's units, not used by it
    largest_fit_gpus: int  # the largest job that would still fit


class MixTooLarge(InputError):
    """A mix that asks more GPUs than the cluster has (whole units)."""


def check_fits(slots: Slots, requests: list[Request]) -> None:
    """MixTooLarge where the requests ask more GPUs, in whole units, than the cluster has."""
    asked = sum(math.ceil(r.gpus / slots.unit_gpus) * slots.unit_gpus for r in requests)
    if asked > slots.gpus:
        jobs = ", ".join(f"'{r.name}' {r.gpus}" for r in requests)
        raise MixTooLarge(f"the mix does not fit: its jobs ({jobs}) ask {asked} GPUs (whole {slots.unit}s) of the "
                          f"cluster's {slots.gpus}")


def place(slots: Slots, requests: list[Request], policy: str = "first-fit") -> list[Placed]:
    """Each request's units, in the order of `requests`. MixTooLarge for a mix larger than the cluster (`check_fits`:
    every job's GPUs named), InputError for a fixed placement that breaks the kind's rule or overlaps another;
    InfeasibleDesign naming a job the kind's rule leaves nowhere to go."""
    if policy not in POLICIES:
        raise InputError(f"placement policy {policy!r}: expected one of {', '.join(POLICIES)}")
    check_fits(slots, requests)
    owner: list[str | None] = [None] * slots.units
    out: dict[str, Placed] = {}
    for r in requests:
        if r.at:
            units = _fixed_units(slots, r)
            for u in units:
                if owner[u] is not None:
                    shared = [v for v in units if owner[v] == owner[u]]
                    raise InputError(f"job '{r.name}': its fixed GPUs {r.at} overlap job '{owner[u]}' on GPUs "
                                     f"{ranges_text([v * slots.unit_gpus for v in shared], slots.unit_gpus)}")
            for u in units:
                owner[u] = r.name
            out[r.name] = Placed(r.name, r.gpus, tuple(units), slots.unit_gpus)
    order = sorted((r for r in requests if not r.at), key=lambda r: -r.priority)  # stable: file order kept
    for r in order:
        need = math.ceil(r.gpus / slots.unit_gpus)
        units = _choose(slots, owner, need, policy)
        if units is None:
            raise InfeasibleDesign(f"job '{r.name}' ({r.gpus} GPUs) cannot be placed: "
                                   f"{_room_text(slots, owner, need)}")
        for u in units:
            owner[u] = r.name
        out[r.name] = Placed(r.name, r.gpus, tuple(units), slots.unit_gpus)
    return [out[r.name] for r in requests]


def leftover(slots: Slots, placed: list[Placed]) -> Leftover:
    """What `placed` leaves of the cluster; the GPUs past its last whole unit (4 096 GPUs in servers of 72: 64)
    are in no unit a job can take, so idle."""
    owner = _owners(slots, placed)
    free = sum(o is None for o in owner)
    partial = slots.gpus - slots.units * slots.unit_gpus
    return Leftover(idle_gpus=free * slots.unit_gpus + partial, stranded_gpus=sum(p.stranded_gpus for p in placed),
                    largest_fit_gpus=_largest(slots, owner) * slots.unit_gpus)


def _owners(slots: Slots, placed: list[Placed]) -> list:
    owner: list[str | None] = [None] * slots.units
    for p in placed:
        for u in p.units:
            owner[u] = p.name
    return owner


def _largest(slots: Slots, owner: list) -> int:
    """Units of the largest job that would still fit."""
    if slots.contiguous:
        return max((length for _, length in _free_runs(owner, cyclic=True)), default=0)
    if slots.strict and slots.domain_units:
        return max(_domain_free(slots, owner).values(), default=0)
    return sum(o is None for o in owner)


def _choose(slots: Slots, owner: list, need: int, policy: str) -> list[int] | None:
    if need > slots.units:
        return None
    if slots.contiguous:
        runs = [(start, length) for start, length in _free_runs(owner, cyclic=True) if length >= need]
        if not runs:
            return None
        start, _ = min(runs, key=lambda run: run[1]) if policy == "best-fit" else runs[0]
        return [(start + i) % slots.units for i in range(need)]
    free = _domain_free(slots, owner)
    inside = [d for d, room in free.items() if room >= need]
    if inside:
        d = min(inside, key=lambda d: (free[d], d)) if policy == "best-fit" else inside[0]
        return _free_in(slots, owner, d)[:need]
    if slots.strict and slots.domain_units:
        return None
    units: list[int] = []
    for d in sorted(free, key=lambda d: (-free[d], d)):  # fewest pods: the roomiest first
        units += _free_in(slots, owner, d)[:need - len(units)]
        if len(units) == need:
            return sorted(units)
    return None


def _domain_free(slots: Slots, owner: list) -> dict[int, int]:
    free = {d: 0 for d in range(slots.domains)}
    for u, o in enumerate(owner):
        if o is None:
            free[slots.domain_of(u)] += 1
    return free


def _free_in(slots: Slots, owner: list, domain: int) -> list[int]:
    size = slots.domain_units or slots.units
    return [u for u in range(domain * size, min((domain + 1) * size, slots.units)) if owner[u] is None]


def _free_runs(owner: list, cyclic: bool) -> list[tuple[int, int]]:
    """(start, length) of each maximal run of free units, in order of start; on a ring a run may wrap round."""
    n = len(owner)
    if all(o is None for o in owner):
        return [(0, n)]
    runs, start = [], None
    for u in range(n):
        if owner[u] is None and start is None:
            start = u
        if owner[u] is not None and start is not None:
            runs.append((start, u - start))
            start = None
    if start is not None:
        runs.append((start, n - start))
    if cyclic and len(runs) > 1 and runs[0][0] == 0 and runs[-1][0] + runs[-1][1] == n:
        last = runs.pop()
        runs[0] = (last[0], last[1] + runs[0][1])
        runs.sort()
    return runs


def _room_text(slots: Slots, owner: list, need: int) -> str:
    free = sum(o is None for o in owner) * slots.unit_gpus
    wanted = (f"{need} GPU{'s' if need != 1 else ''}" if slots.unit_gpus == 1 else  # not '512 GPUs of 1 GPU'
              f"{need} {slots.unit}{'s' if need != 1 else ''} of {slots.unit_gpus} GPUs")
    if need * slots.unit_gpus > slots.gpus:
        return f"it needs {wanted}, more than the cluster's {slots.gpus} GPUs"
    if slots.contiguous:
        return (f"it needs one unbroken arc of {need * slots.unit_gpus} GPUs; the longest free arc is "
                f"{_largest(slots, owner) * slots.unit_gpus} of {free} free GPUs")
    if slots.strict and slots.domain_units:
        return (f"it needs {wanted} inside one {slots.domain} of {slots.domain_units * slots.unit_gpus} GPUs; the "
                f"roomiest {slots.domain} has {_largest(slots, owner) * slots.unit_gpus} free")
    return f"it needs {wanted}; {free} GPUs are free"


def parse_ranges(text: str) -> list[int]:
    """GPU indices of '0-1023,2048-2559' (inclusive ranges and single numbers, in the order written)."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        lo, dash, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi) if dash else int(lo)
        except ValueError:
            raise InputError(f"GPU ranges {text!r}: {part!r} is not a number or a range 'A-B'") from None
        if first < 0 or last < first:
            raise InputError(f"GPU ranges {text!r}: {part!r} must be whole numbers A ≤ B, A ≥ 0")
        out += range(first, last + 1)
    return out


def ranges_text(starts: list[int], width: int) -> str:
    """'A-B,C-D' of the blocks of `width` GPUs starting at `starts` (in order), adjacent blocks joined."""
    spans: list[list[int]] = []
    for s in starts:
        if spans and spans[-1][1] + 1 == s:
            spans[-1][1] = s + width - 1
        else:
            spans.append([s, s + width - 1])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in spans)


def _fixed_units(slots: Slots, r: Request) -> list[int]:
    where = f"job '{r.name}': fixed GPUs {r.at}"
    try:
        gpus = parse_ranges(r.at)
    except InputError as exc:
        raise InputError(f"job '{r.name}': {exc}") from None
    if len(set(gpus)) != len(gpus):
        raise InputError(f"{where} name a GPU twice")
    if max(gpus) >= slots.gpus:
        raise InputError(f"{where} reach GPU {max(gpus)}; the cluster has {slots.gpus} (0-{slots.gpus - 1})")
    need = math.ceil(r.gpus / slots.unit_gpus) * slots.unit_gpus
    if len(gpus) != need:
        whole = f" (whole {slots.unit}s of {slots.unit_gpus})" if slots.unit_gpus > 1 else ""
        raise InputError(f"{where} are {len(gpus)} GPUs; a job of {r.gpus} GPUs takes {need}{whole}: change "
                         "its gpus or its at together")
    units = []
    for i in range(0, len(gpus), slots.unit_gpus):
        block = gpus[i:i + slots.unit_gpus]
        if block[0] % slots.unit_gpus or block != list(range(block[0], block[0] + slots.unit_gpus)):
            raise InputError(f"{where} split a {slots.unit} of {slots.unit_gpus} GPUs (a job takes whole "
                             f"{slots.unit}s)")
        units.append(block[0] // slots.unit_gpus)
    if slots.contiguous and any((b - a) % slots.units != 1 for a, b in zip(units, units[1:])):
        raise InputError(f"{where} are not one unbroken arc of the ring (a job's wavelengths are added and dropped "
                         "along one arc)")
    if slots.strict and slots.domain_units and len({slots.domain_of(u) for u in units}) > 1:
        raise InputError(f"{where} span {slots.domain}s of {slots.domain_units * slots.unit_gpus} GPUs with no "
                         f"circuit between them")
    return units
