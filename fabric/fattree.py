"""Switch and link counts of a folded-Clos (fat-tree) network of k-port switches, for cost roll-ups.

Construction (tiers numbered 1 = leaf … t = top):
- a leaf switch gives d = ⌊k·r/(r+1)⌋ ports to endpoints and u = k − d ports up, r the oversubscription
  ratio (downlink : uplink bandwidth at the leaf, r ≥ 1; r = 1 is non-blocking); tiers above the leaf are
  non-blocking;
- a middle-tier switch has k/2 ports down and k/2 up; the top tier uses all k ports down;
- capacity: k endpoints with one tier, d·k·(k/2)^(t−2) with t ≥ 2 tiers (k³/4 for t = 3, r = 1).

For N below capacity the counts size each tier by ports: ⌈N/d⌉ leaves, each with its u uplinks provisioned,
then ⌈uplinks below / (k/2)⌉ middle switches, ⌈uplinks below / k⌉ top switches. This is exact for a full
tree and a port-count estimate for a partial one (a real partial build may round up to whole pods).

References
----------
- M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center Network Architecture",
  SIGCOMM 2008: the 3-tier k-ary fat-tree has k pods of k/2 edge + k/2 aggregation switches and (k/2)² core
  switches, 5k²/4 switches in all, for k³/4 hosts.
"""

from __future__ import annotations

import math
import numbers

from core.errors import InputError
from core.records import record


@record(kw_only=True)
class FatTree:
    """Switch and link counts per tier. `links_per_tier[0]` are endpoint–leaf links, `links_per_tier[i]` the
    links between tier i and tier i+1; `switches_per_tier[0]` is the leaf tier."""

    endpoints: int
    radix: int
    tiers: int
    oversubscription: float
    switches_per_tier: tuple[int, ...]
    links_per_tier: tuple[int, ...]
    max_endpoints: int

    @property
    def switches(self) -> int:
        return sum(self.switches_per_tier)

    @property
    def links(self) -> int:
        """All links, endpoint links included (each has two ends: two transceivers if optical)."""
        return sum(self.links_per_tier)

    @property
    def switch_links(self) -> int:
        """Links between switches only."""
        return sum(self.links_per_tier[1:])


def _check_shape(radix, tiers, oversubscription) -> None:
    if isinstance(radix, bool) or not isinstance(radix, numbers.Integral) or radix < 2:
        raise InputError(f"radix = {radix!r}: expected a whole number of switch ports ≥ 2")
    if isinstance(tiers, bool) or not isinstance(tiers, numbers.Integral) or tiers < 1:
        raise InputError(f"tiers = {tiers!r}: expected a whole number ≥ 1")
    if tiers >= 2 and radix % 2:
        raise InputError(f"radix = {radix}: a fat-tree with {tiers} tiers needs an even radix (k/2 up, k/2 down)")
    if not isinstance(oversubscription, numbers.Real) or isinstance(oversubscription, bool) \
            or not math.isfinite(oversubscription) or oversubscription < 1:
        raise InputError(f"oversubscription = {oversubscription!r}: expected a ratio ≥ 1 (1 = non-blocking)")


def leaf_ports(radix: int, oversubscription: float = 1.0) -> tuple[int, int]:
    """(down, up) ports of a leaf switch: d = ⌊k·r/(r+1)⌋, u = k − d."""
    down = math.floor(radix * oversubscription / (oversubscription + 1.0) + 1e-9)
    return down, radix - down


def fat_tree_max_endpoints(*, radix: int, tiers: int, oversubscription: float = 1.0) -> int:
    """Endpoints a full fat-tree holds: k (one tier), d·k·(k/2)^(t−2) (t ≥ 2). k³/4 for t = 3, r = 1
    (Al-Fares et al. 2008)."""
    _check_shape(radix, tiers, oversubscription)
    if tiers == 1:
        return radix
    down, _ = leaf_ports(radix, oversubscription)
    return down * radix * (radix // 2) ** (tiers - 2)


def min_fat_tree_tiers(endpoints: int, *, radix: int, oversubscription: float = 1.0, max_tiers: int = 8) -> int:
    """The fewest tiers that hold `endpoints`."""
    for tiers in range(1, max_tiers + 1):
        if tiers >= 2 and radix % 2:
            break
        if fat_tree_max_endpoints(radix=radix, tiers=tiers, oversubscription=oversubscription) >= endpoints:
            return tiers
    raise InputError(f"{endpoints} endpoints do not fit a fat-tree of {radix}-port switches within {max_tiers} tiers")


def fat_tree(endpoints: int, *, radix: int, tiers: int, oversubscription: float = 1.0) -> FatTree:
    """Switches and links per tier of a t-tier fat-tree of k-port switches connecting `endpoints`."""
    _check_shape(radix, tiers, oversubscription)
    if isinstance(endpoints, bool) or not isinstance(endpoints, numbers.Integral) or endpoints < 1:
        raise InputError(f"endpoints = {endpoints!r}: expected a whole number ≥ 1")
    endpoints, radix, tiers, oversubscription = int(endpoints), int(radix), int(tiers), float(oversubscription)
    capacity = fat_tree_max_endpoints(radix=radix, tiers=tiers, oversubscription=oversubscription)
    if endpoints > capacity:
        need = min_fat_tree_tiers(endpoints, radix=radix, oversubscription=oversubscription)
        raise InputError(
            f"endpoints = {endpoints}: a {tiers}-tier fat-tree of {radix}-port switches holds at most {capacity} "
            f"(oversubscription {oversubscription:g}); use {need} tiers or a larger radix"
        )
    if tiers == 1:
        return FatTree(endpoints=endpoints, radix=radix, tiers=1, oversubscription=float(oversubscription),
                       switches_per_tier=(1,), links_per_tier=(endpoints,), max_endpoints=capacity)

    down, up = leaf_ports(radix, oversubscription)
    half = radix // 2
    switches = [math.ceil(endpoints / down)]
    links = [endpoints, switches[0] * up]
    for _ in range(2, tiers):  # middle tiers
        count = math.ceil(links[-1] / half)
        switches.append(count)
        links.append(count * half)
    switches.append(math.ceil(links[-1] / radix))  # top tier: all ports face down
    return FatTree(
        endpoints=endpoints,
        radix=radix,
        tiers=tiers,
        oversubscription=float(oversubscription),
        switches_per_tier=tuple(switches),
        links_per_tier=tuple(links),
        max_endpoints=capacity,
    )


def pod_fat_tree(endpoints: int, *, radix: int, pod_endpoints: int, pod_oversubscription: float = 1.0,
                 leaf_endpoints: int = 0, oversubscription: float = 1.0, pod_tiers: int = 0) -> FatTree:
    """Pods of P endpoints joined at 1:o above them (Llama 3's 3,072-GPU full-bisection pods at 1:7, fabrics-2026.md
    K16): each pod a fat-tree whose top tier gives d = ⌊k·o/(o+1)⌋ ports down and k − d up, the pods' uplinks joined
    by one tier of k-port switches facing down. A leaf takes `leaf_endpoints` (0: as many as the radix and the leaf
    oversubscription r allow) with ⌈down/r⌉ ports up. A pod of t ≥ 2 tiers holds d_leaf·(k/2)^(t−2)·d endpoints; each
    tier is sized by ports as in `fat_tree` (the last pod may be partial). Tiers: the pod's (the fewest that hold
    P, or `pod_tiers`) and the aggregation tier (more pods than ports: a non-blocking fat-tree over their uplinks). A
    single pod (P ≥ the endpoints) is a fat-tree whose top tier faces down with all k ports."""
    _check_shape(radix, 2, oversubscription)
    _check_shape(radix, 2, pod_oversubscription)
    for value, what in ((endpoints, "endpoints"), (pod_endpoints, "pod size")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise InputError(f"{what} = {value!r}: expected a whole number ≥ 1")
    k, half = int(radix), int(radix) // 2
    if leaf_endpoints:
        if leaf_endpoints + math.ceil(leaf_endpoints / oversubscription) > k:
            raise InputError(f"a leaf of {leaf_endpoints} endpoints and {math.ceil(leaf_endpoints / oversubscription)}"
                             f" uplinks needs more than its {k} ports")
        leaf_down, leaf_up = int(leaf_endpoints), math.ceil(leaf_endpoints / oversubscription)
    else:
        leaf_down, leaf_up = leaf_ports(k, oversubscription)
    if pod_tiers == 1:
        raise InputError("a pod of one tier is a leaf: give it two tiers or more")
    if pod_endpoints < leaf_down:
        raise InputError(f"pods of {pod_endpoints} endpoints are smaller than one leaf's {leaf_down}")
    one = pod_endpoints >= endpoints  # a single pod: nothing above it, its top tier faces down with every port
    top_down = k if one else math.floor(k * pod_oversubscription / (pod_oversubscription + 1.0) + 1e-9)

    def capacity(tiers):
        return leaf_down * half ** (tiers - 2) * top_down

    tiers = pod_tiers or next((t for t in range(2, 9) if capacity(t) >= pod_endpoints), 0)
    if not tiers or capacity(tiers) < pod_endpoints:
        raise InputError(f"pods of {pod_endpoints} endpoints do not fit {pod_tiers or 8} tiers of {k}-port switches "
                         f"(at most {capacity(pod_tiers or 8)})")

    def one_pod(n):  # (switches per tier, links per tier, uplinks) of a pod of n endpoints
        switches = [math.ceil(n / leaf_down)]
        links = [n, switches[0] * leaf_up]
        for _ in range(2, tiers):
            switches.append(math.ceil(links[-1] / half))
            links.append(switches[-1] * half)
        switches.append(math.ceil(links[-1] / top_down))
        return switches, links, switches[-1] * (k - top_down)

    full, rest = divmod(int(endpoints), int(pod_endpoints))
    pods = full + (rest > 0)
    parts = [one_pod(pod_endpoints)] * full + ([one_pod(rest)] if rest else [])
    switches = [sum(p[0][i] for p in parts) for i in range(tiers)]
    links = [sum(p[1][i] for p in parts) for i in range(tiers)]
    uplinks = sum(p[2] for p in parts) if pods > 1 else 0
    if 1 < pods <= k:  # one tier facing down reaches every pod
        links.append(uplinks)
        switches.append(math.ceil(uplinks / k))
    elif pods > k:  # more pods than ports: a non-blocking fat-tree joins their uplinks
        above = fat_tree(uplinks, radix=k, tiers=min_fat_tree_tiers(uplinks, radix=k))
        links.extend(above.links_per_tier)
        switches.extend(above.switches_per_tier)
    return FatTree(endpoints=int(endpoints), radix=k, tiers=len(switches), oversubscription=float(oversubscription),
                   switches_per_tier=tuple(switches), links_per_tier=tuple(links),
                   max_endpoints=k * capacity(tiers))
