"""Bill-of-materials roll-ups: cost and power of a cluster from catalog entries and counts.

A BOM is a list of lines `(component_key, count, scope)` — optionally a fourth item, `network` (True/False),
that overrides the catalog entry's role. `scope` is "per_gpu" (count per GPU: 1 GPU, 1 NIC, 0.75 NVSwitch …)
or "per_cluster" (count for the whole cluster: 130 switches, 6528 OCS ports …). Counts may be fractional, and
arrays (one count per design point of a sweep: every total is then an array of that shape).

Every total is a `Range` (low, typical, high): the sum with every price (or power) at its low end, at its
typical value, and at its high end. Shares are computed at the typical values unless a Range of shares is
asked for (then low/typical/high are each scenario's own share).

Power is nameplate (TDP) power; `facility_power_w` applies the load fraction during training and the PUE.

References
----------
- Epoch AI cost model: server draw during training ≈ 0.75 × TDP; PUE 1.1 (hyperscale) to 1.25; cluster
  interconnect ≈ 19 % of hardware cost.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Iterable, Sequence

import numpy as np

from fabric.catalog import Catalog
from core.errors import InputError
from core.records import record

SCOPES = ("per_gpu", "per_cluster")
PER = ("item", "bit/s", "bit/s whole", "correction")  # what a line's count counts (BomLine.per)


@record
class Range:
    """A quantity at its low, typical and high values (e.g. cost in USD, power in W)."""

    low: float
    typical: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Range:
        return cls(*(_number(v) for v in values))

    @classmethod
    def zero(cls) -> Range:
        return cls(0.0, 0.0, 0.0)

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.low, self.typical, self.high)

    def __add__(self, other: Range) -> Range:
        return Range(self.low + other.low, self.typical + other.typical, self.high + other.high)

    def scaled(self, factor: float) -> Range:
        return Range(self.low * factor, self.typical * factor, self.high * factor)

    def ratio(self, other: Range) -> Range:
        """Element-wise self / other (0 where other is 0): each scenario's own share."""
        return Range(*(share(a, b) for a, b in zip(self.as_tuple(), other.as_tuple())))


def share(part, whole):
    """part / whole, 0 where the whole is 0 (numbers, or arrays over design points)."""
    if isinstance(part, np.ndarray) or isinstance(whole, np.ndarray):
        whole = np.asarray(whole, dtype=float)
        with np.errstate(invalid="ignore"):  # an infinite part of an infinite whole (an infeasible point): undefined
            return np.where(whole != 0, part / np.where(whole != 0, whole, 1.0), 0.0)
    return part / whole if whole else 0.0


def _number(value):
    """A float, or a float array for an array (a count or power per design point)."""
    return np.asarray(value, dtype=float) if isinstance(value, np.ndarray) else float(value)


@record(kw_only=True)
class BomLine:
    """One line of a bill of materials. `network=None` takes the catalog entry's role."""

    key: str
    count: float
    scope: str = "per_gpu"
    network: bool | None = None
    per: str = "item"  # what `count` counts: items; "bit/s", a bit rate served by items of the entry's port_rate
    # (fractional items: engine capacity); "bit/s whole", the same in whole items (laser modules); "correction",
    # items of an unpriced entry that correct other lines' ratings, counted with either sign (the host SerDes power
    # the switches' and NICs' ratings leave out or count beyond the design's need)
    drive: str | None = None  # the drive a pluggable module must have here ("retimed", "linear"; None: any)


@record(kw_only=True)
class LineResult:
    """One component's contribution to the cluster (lines with the same key and side are merged)."""

    key: str
    description: str
    unit: str
    network: bool
    count_per_cluster: float
    count_per_gpu: float
    cost_usd: Range  # whole cluster
    power_w: Range  # whole cluster, nameplate
    cost_share: float  # of the cluster's typical cost
    power_share: float  # of the cluster's typical power
    source: str
    date: str
    tag: str
    boundary: str = ""  # what the entry's power includes (fabric.catalog.BOUNDARIES); "" for non-optics
    host_serdes_w: float | None = None  # whole cluster: the host SerDes part of a whole-port (B2) figure, taken
    # out of `power_w` (counted where the switches and NICs are); None where the entry declares none
    port_rate_bps: float | None = None  # the port rate one item serves (optics entries)

    @property
    def j_per_bit(self):
        """Energy per bit of the optics of this line at its boundary: its power over the bit rate its items serve
        (None for an entry without a port rate)."""
        if not self.port_rate_bps:
            return None
        return share(self.power_w.typical, self.count_per_cluster * self.port_rate_bps)


@record(kw_only=True)
class BomResult:
    """Cost and power of a cluster: totals, per GPU, the network/compute split and the breakdown."""

    gpus: int
    lines: tuple[LineResult, ...]  # in order of first appearance
    cost_per_cluster_usd: Range
    cost_per_gpu_usd: Range
    power_per_cluster_w: Range
    power_per_gpu_w: Range
    network_cost_usd: Range
    compute_cost_usd: Range
    network_power_w: Range
    compute_power_w: Range

    @property
    def network_cost_share(self) -> Range:
        """Network cost / total cost in each scenario (all-low, all-typical, all-high prices)."""
        return self.network_cost_usd.ratio(self.cost_per_cluster_usd)

    @property
    def network_power_share(self) -> Range:
        return self.network_power_w.ratio(self.power_per_cluster_w)

    def line(self, key: str) -> LineResult:
        """The breakdown line of `key` (the first, if it appears on both sides)."""
        for line in self.lines:
            if line.key == key:
                return line
        raise InputError(f"{key!r} is not in this bill of materials{_close(key, [l.key for l in self.lines])}")

    def lines_by_cost(self) -> tuple[LineResult, ...]:
        """The breakdown sorted by typical cost, largest first: which entries drove the total."""
        return tuple(sorted(self.lines, key=lambda l: l.cost_usd.typical, reverse=True))


# --- roll-up ------------------------------------------------------------------------------------------------
def as_line(item) -> BomLine:
    """A BomLine from a BomLine or a tuple (key, count, scope[, network])."""
    if isinstance(item, BomLine):
        line = item
    elif isinstance(item, (tuple, list)) and len(item) in (3, 4):
        line = BomLine(key=item[0], count=item[1], scope=item[2], network=item[3] if len(item) == 4 else None)
    else:
        raise InputError(f"BOM line {item!r}: expected (component_key, count, scope) or (…, network)")
    if not isinstance(line.key, str):
        raise InputError(f"BOM line {item!r}: component key {line.key!r} is not a string")
    signed = line.per == "correction"
    if isinstance(line.count, np.ndarray):
        if line.count.dtype.kind not in "iuf" or not np.all(np.isfinite(line.count)) or (
                not signed and np.any(line.count < 0)):
            raise InputError(f"BOM line {line.key!r}: counts must be finite numbers ≥ 0")
    elif isinstance(line.count, bool) or not isinstance(line.count, numbers.Real) \
            or not math.isfinite(line.count) or (line.count < 0 and not signed):
        raise InputError(f"BOM line {line.key!r}: count = {line.count!r}: expected a finite number ≥ 0")
    if line.scope not in SCOPES:
        raise InputError(
            f"BOM line {line.key!r}: scope = {line.scope!r}: expected one of {', '.join(SCOPES)}"
            f"{_close(str(line.scope), SCOPES)}"
        )
    if line.per not in PER:
        raise InputError(f"BOM line {line.key!r}: per = {line.per!r}: expected one of {', '.join(PER)}")
    if line.network is not None and not isinstance(line.network, bool):
        raise InputError(f"BOM line {line.key!r}: network = {line.network!r}: expected True, False or None")
    return line


def roll_up(lines: Iterable, catalog: Catalog, gpus: int) -> BomResult:
    """Cost and power of a cluster of `gpus` GPUs built from `lines` priced from `catalog`."""
    if isinstance(gpus, bool) or not isinstance(gpus, numbers.Integral) or gpus < 1:
        raise InputError(f"gpus = {gpus!r}: expected a whole number ≥ 1")
    gpus = int(gpus)

    merged: dict[tuple[str, bool], list] = {}  # (key, network) → [component, count per cluster]
    for item in lines:
        line = as_line(item)
        component = catalog.get(line.key)
        if line.drive and component.drive != line.drive:
            what = f"a {component.drive} module" if component.drive else "not a pluggable module"
            raise InputError(f"catalog entry {line.key!r} is {what}, but the design's optics need a {line.drive} "
                             "one here (catalog key drive: 'retimed', a DSP in the module; 'linear', LPO)")
        if line.per == "correction" and any(component.price_usd):
            raise InputError(f"catalog entry {line.key!r} corrects other lines' power: it must be priced 0 USD")
        network = component.is_network if line.network is None else line.network
        count = _number(line.count) * gpus if line.scope == "per_gpu" else _number(line.count)
        if line.per not in ("item", "correction"):
            if not component.port_rate_bps:
                raise InputError(f"catalog entry {line.key!r} has no port_rate: the design counts it by the bit rate "
                                 "it serves")
            count = count / component.port_rate_bps
            count = np.ceil(count - 1e-9) if line.per == "bit/s whole" else count
        slot = merged.setdefault((line.key, network), [component, 0.0])
        slot[1] += count

    costs = {k: Range.of(c.price_usd).scaled(n) for k, (c, n) in merged.items()}
    # a whole-port (B2) figure counts its optics alone: its host SerDes are in the switch's or NIC's own power
    powers = {k: Range.of([w - (c.host_serdes_w or 0.0) for w in c.power_w]).scaled(n) for k, (c, n) in merged.items()}
    total_cost = sum(costs.values(), Range.zero())
    total_power = sum(powers.values(), Range.zero())

    results = []
    for (key, network), (component, count) in merged.items():
        cost, power = costs[(key, network)], powers[(key, network)]
        results.append(LineResult(
            key=key,
            description=component.description,
            unit=component.unit,
            network=network,
            count_per_cluster=count,
            count_per_gpu=count / gpus,
            cost_usd=cost,
            power_w=power,
            cost_share=share(cost.typical, total_cost.typical),
            power_share=share(power.typical, total_power.typical),
            source=component.source,
            date=component.date,
            tag=component.tag,
            boundary=component.boundary,
            host_serdes_w=None if component.host_serdes_w is None else component.host_serdes_w * count,
            port_rate_bps=component.port_rate_bps,
        ))

    network_cost = sum((costs[k] for k in costs if k[1]), Range.zero())
    network_power = sum((powers[k] for k in powers if k[1]), Range.zero())
    compute_cost = sum((costs[k] for k in costs if not k[1]), Range.zero())
    compute_power = sum((powers[k] for k in powers if not k[1]), Range.zero())
    return BomResult(
        gpus=gpus,
        lines=tuple(results),
        cost_per_cluster_usd=total_cost,
        cost_per_gpu_usd=total_cost.scaled(1.0 / gpus),
        power_per_cluster_w=total_power,
        power_per_gpu_w=total_power.scaled(1.0 / gpus),
        network_cost_usd=network_cost,
        compute_cost_usd=compute_cost,
        network_power_w=network_power,
        compute_power_w=compute_power,
    )


# --- helpers ------------------------------------------------------------------------------------------------
def facility_power_w(it_power_w, *, pue: float, load_fraction: float = 1.0):
    """Power drawn from the grid: IT nameplate power × load fraction × PUE. Takes a float or a Range.

    Epoch AI: load_fraction ≈ 0.75 of TDP during training; PUE 1.1 hyperscale, 1.25 otherwise."""
    if isinstance(pue, bool) or not isinstance(pue, (int, float)) or not math.isfinite(pue) or pue < 1:
        raise InputError(f"pue = {pue!r}: expected a number ≥ 1 (facility power / IT power)")
    if isinstance(load_fraction, bool) or not isinstance(load_fraction, (int, float)) \
            or not 0 < load_fraction <= 1:
        raise InputError(f"load_fraction = {load_fraction!r}: expected a number in (0, 1]")
    factor = pue * load_fraction
    if isinstance(it_power_w, Range):
        return it_power_w.scaled(factor)
    return _number(it_power_w) * factor


def interconnect_cost_share(result: BomResult) -> float:
    """Network cost / total cost at typical prices (Epoch AI reports ≈ 0.19 for GPU clusters)."""
    return result.network_cost_share.typical


def component_share(result: BomResult, prefixes: Iterable[str], *, what: str = "cost") -> Range:
    """Share of total cost (or power, what="power") taken by lines whose key starts with any of `prefixes`
    ("ocs." → every OCS entry), in each scenario."""
    prefixes = tuple(prefixes)
    if what not in ("cost", "power"):
        raise InputError(f"what = {what!r}: expected 'cost' or 'power'")
    pick = (lambda l: l.cost_usd) if what == "cost" else (lambda l: l.power_w)
    part = sum((pick(l) for l in result.lines if l.key.startswith(prefixes)), Range.zero())
    total = result.cost_per_cluster_usd if what == "cost" else result.power_per_cluster_w
    return part.ratio(total)


def _close(value: str, choices) -> str:
    close = difflib.get_close_matches(value, list(choices), n=3, cutoff=0.5)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
