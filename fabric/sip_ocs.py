"""SiP-OCS: each GPU splits its optical I/O into one port per optical circuit switch (degree = switches).

The switch's insertion loss (and the patch connectors at its ports) is fed back into the link budget: a
design can fail here. When the cluster has more GPUs than a switch has ports, the design must say how it copes:
'single' is then infeasible, 'partitioned' serves independent pods of ≤ radix GPUs (no circuit between pods),
'clos' builds each switch plane with the fewest passes that hold the GPUs (`switch_network`): one switch up to R,
3 passes up to R² (a folded or an unfolded 3-stage Clos, the one with fewer switches: 147 456 GPUs of 384 ports),
then a folded Clos of t tiers and 2t − 1 passes.

Collectives. Circuits are set once per job (single shot): one circuit graph of degree d, its bandwidth split among
the job's collective types in proportion to the bytes each sends per iteration (SiP-ML's demand-proportional
objective) — a type with share σ sends at σ·d·b. Schedules: a ring (every circuit of the share to the next
member); a 2-D torus, half the share per dimension, the two halves of the buffer run in opposite dimension orders
so every port is busy in every phase — the ring's bandwidth term with 2(√p − 1) steps instead of p − 1 [inferred];
all-to-all over direct circuits when d ≥ p − 1, otherwise relayed over the degree-d graph, each byte crossing its
mean distance (fabric.collectives.expander_mean_distance) and paying a relay per extra hop; point-to-point on
the pair's circuits.

References: SiP-ML simulator (MLNetwork/rostam) [sim]: per-port rate N_λ·R_λ/N_ocs, 20 OCSes, single-shot
configuration, multi-shot every 5 × reconfiguration delay (useful 5/6). Folded-Clos counts: C. Clos, Bell
Syst. Tech. J. 1953; leaves of R/2 down- and R/2 up-ports; an n-tier folded Clos holds 2(R/2)^n endpoints and a
path crosses up to 2n − 1 switches (fabric-photonics-3.md F14).
"""

from __future__ import annotations

from typing import ClassVar

import dataclasses
import math
from dataclasses import field
from types import SimpleNamespace

import numpy as np

from core.errors import InputError
from core.formulas import Formula, Terms
from core.fields import Section, non_negative, param
from core.records import record
from fabric import collectives as col
from fabric.bom import BomLine
from fabric.circuits import Schedule, with_wait
from fabric.cluster_design import MAX_CHANNELS, MAX_GPUS, MAX_LATENCY_S, NCCL, SIPML, ClusterDesign
from fabric.estimate import FabricEstimate, Floor
from fabric.fattree import fat_tree, fat_tree_max_endpoints, min_fat_tree_tiers
from fabric.kind import BITS_PER_BYTE, CollectiveTime, FabricKind, bytes_sent_per_rank, fastest, pick
from fabric.optical_io import CHIPLET_LATENCY_S, fiber_delay_s, optical_io_bom
from photonics import link
from photonics.link import FabricInputs, LinkEstimate, Violation
from photonics.common_stages import sections

MULTI_SHOT_PERIOD = 5.0  # reconfigure every 5 × the reconfiguration time [sim]


@record(kw_only=True)
class SipOcsSection(Section):
    """The `[sip_ocs]` section: the optical circuit switches (count, catalog entry, radix, topology), their
    reconfiguration and shots, the step and relay latencies."""

    section_name: ClassVar[str] = "sip_ocs"

    switches: int = param(20, "1", "optical circuit switches, one per plane (= the OCS ports facing each GPU, the "
                          "GPU degree; a Clos plane buys more ports per GPU)",
                          f"{SIPML}: 20 OCSes", lo=1, integer=True, hi=MAX_CHANNELS)
    switch: str = param("ocs.polatis_384", "text", "catalog entry of the OCS", "Polatis 7000, 384 ports "
                        "[verbatim]")
    radix: int = param(384, "1", "ports per OCS", "Polatis 7000 (384 × 384) [verbatim]", lo=2, integer=True,
                       hi=MAX_GPUS)
    topology: str = param("single", "choice", "how GPUs beyond one switch's radix are served: 'single' (one "
                          "layer, needs radix ≥ GPUs), 'partitioned' (independent pods of ≤ radix GPUs), 'clos' "
                          "(folded Clos of as few tiers t as hold the GPUs, 2t − 1 switch passes)", "—",
                          choices=("single", "partitioned", "clos"))
    reconfiguration_time: float = non_negative("30 ms", "s", "time to set a new circuit configuration",
                                               f"{SIPML} default; 10 ms in a paper summary", hi=1e3)
    shots: str = param("single", "choice", "how circuits follow a job (fabric.circuits): 'single' (configured once "
                       "per job for its whole traffic), 'multi' (reconfigured every 5 × reconfiguration time, dark "
                       "while it switches), 'phased' (re-pointed to each collective before it runs: it has every "
                       "circuit and pays one reconfiguration per call), 'auto' (single or phased, whichever runs "
                       "the job faster)", f"{SIPML} for 'single' and 'multi'; [inferred] the others (photonic rails, "
                       "fabrics-2026.md K31)", choices=("single", "multi", "phased", "auto"))
    step_latency: float = non_negative("3.4 us", "s", "cost of one collective step over a circuit (protocol and "
                                       "synchronisation; the fiber path adds its own delay)", f"{NCCL} (~v2.7): "
                                       "Ring/Simple per-step latency over NVLink 3.4 µs [verbatim]; [assumed] the "
                                       "chiplet is driven like an NVLink-class GPU-to-GPU path", hi=MAX_LATENCY_S)
    relay_latency: float = non_negative("3.4 us", "s", "cost of relaying through an intermediate GPU (received, "
                                        "stored and sent on its circuits)", "[assumed] one more collective step",
                                        hi=MAX_LATENCY_S)


@record(kw_only=True)
class OcsDetails:
    """A SiP-OCS fabric's numbers: switch passes and tiers, fibers per port, switches, pods, reconfiguration, the
    circuits' allocation and waits."""
    switch_passes: int
    tiers: int
    fibers_per_port: int
    port_bps: float  # one circuit, per direction
    ocs_count: int
    pods: int
    ports_bought_per_gpu: float  # every port of every switch over the GPUs: the bill's OCS line per GPU
    margin_db: float = field(compare=False)  # of the link through the switch passes (informational: pricing_view)
    reconfiguration_s: float
    circuit_delay_s: float  # fiber to the switch and back, and the two chiplets
    shots: str = "single"  # how this estimate's circuits follow the job: single, multi or phased
    allocation: str | None = None  # the shots a job picked under shots = 'auto' (None: the design fixed them)
    call_wait_s: float = 0.0  # paid before each call: one reconfiguration when phased


@record
class SwitchNetwork:
    """One switch plane: its levels of switches, the switches a circuit passes, its switches per level (the GPUs'
    side first) and how it is built."""

    tiers: int
    passes: int
    switches_per_tier: tuple[int, ...]
    construction: str = "one switch"

    @property
    def switches(self) -> int:
        return sum(self.switches_per_tier)


def three_stage_clos(gpus: int, radix: int) -> tuple[int, int, int]:
    """(ingress, middle, egress) R×R switches of the cheapest rearrangeably non-blocking 3-stage Clos C(n, m = n, r)
    for N ≤ R² GPUs: r = ⌈N/n⌉ ingress switches of n GPU inputs each (r ≤ R), n middle switches of r × r (m ≥ n:
    Slepian–Duguid), r egress; n chosen in [⌈N/R⌉, R] for the fewest switches, 2⌈N/n⌉ + n (F17–F18). An OCS has
    separate input and output sides, so a GPU's transmit fiber enters an ingress switch and its receive fiber leaves
    an egress switch: R² GPUs at 3 passes (R = 384: 147 456)."""
    best = min(range(max(1, math.ceil(gpus / radix)), radix + 1), key=lambda n: (2 * math.ceil(gpus / n) + n, n))
    r = math.ceil(gpus / best)
    return r, best, r


def switch_network(topology: str, gpus: int, radix: int) -> SwitchNetwork:
    """The switch plane a topology builds for `gpus` GPUs of R-port switches: one switch ('single', and 'partitioned'
    per pod: a circuit passes one). 'clos' builds the fewest passes that hold the GPUs, then the fewest switches: one
    switch up to R GPUs (1 pass); up to R² GPUs 3 passes, as a folded Clos (leaves of R/2 GPU and R/2 spine ports,
    fabric.fattree: 2(R/2)² GPUs) or an unfolded 3-stage Clos (`three_stage_clos`: R²), whichever needs fewer
    switches; beyond, a folded Clos of the fewest tiers t that hold them, 2t − 1 passes (F14). An odd radix leaves
    one port unused in a folded Clos."""
    if topology != "clos" or gpus <= radix:
        return SwitchNetwork(tiers=1, passes=1, switches_per_tier=(1,))
    even = radix - radix % 2
    options = []
    if gpus <= radix * radix:
        ingress, middle, egress = three_stage_clos(gpus, radix)
        options.append(SwitchNetwork(tiers=3, passes=3, switches_per_tier=(ingress, middle, egress),
                                     construction="3-stage Clos"))
    if even >= 2 and fat_tree_max_endpoints(radix=even, tiers=16) >= gpus:
        tiers = max(2, min_fat_tree_tiers(gpus, radix=even, max_tiers=16))
        options.append(SwitchNetwork(tiers=tiers, passes=2 * tiers - 1,
                                     switches_per_tier=fat_tree(gpus, radix=even, tiers=tiers).switches_per_tier,
                                     construction="folded Clos"))
    if not options:
        raise InputError(f"[sip_ocs] radix = {radix}: a Clos of {radix}-port switches cannot hold {gpus} GPUs "
                         "(within 16 tiers; use switches with more ports)")
    return min(options, key=lambda net: (net.passes, net.switches))


def ocs_link(design: ClusterDesign):
    """The GPU-to-GPU link through the fabric: the design's link plus the switch passes and their connectors."""
    d, ocs = design.link, design.topology
    passes = switch_network(ocs.topology, design.fabric.gpus, ocs.radix).passes
    loss = dataclasses.replace(d.loss, switch_ports=d.loss.switch_ports + passes)
    return dataclasses.replace(d, loss=loss)


SHOT_POLICY = {"single": "fixed", "multi": "periodic", "phased": "phased"}  # fabric.circuits' names


def shot_schedule(ocs: SipOcsSection, shots: str) -> Schedule:
    """Shots as the circuits schedule them (`fabric.circuits`): single-shot is fixed; multi-shot re-configures
    every 5 × the delay for the job's traffic, so 5/6 of the time carries traffic [sim] and no call waits; phased
    re-points the circuits before each call."""
    return Schedule(SHOT_POLICY[shots], ocs.reconfiguration_time, MULTI_SHOT_PERIOD * ocs.reconfiguration_time)


def floor_shots(ocs: SipOcsSection) -> str:
    """The shots a design's own figures are given at: its `shots`, single-shot for 'auto'."""
    return "single" if ocs.shots == "auto" else ocs.shots


@record(kw_only=True)
class OcsFloor(Floor):
    """The switch fabric's figures for one design point or a grid of them (arrays over its link's fields)."""

    pod_gpus: int
    pods: int
    ocs_count: int
    network: SwitchNetwork
    ocs_ports: int  # ports bought: every port of every switch, the bill's OCS line
    reach_hops: None = None  # every pair is one circuit


def ocs_floor(design: ClusterDesign, s: dict, link: FabricInputs) -> OcsFloor:
    """The switch fabric built on `link` (what the fabric reads of it), `s` the link's sections
    (`photonics.common_stages.sections`): numbers for one design point, or arrays over a grid of its link's fields."""
    fab, ocs, lk = design.fabric, design.topology, s["link"]
    network = switch_network(ocs.topology, fab.gpus, ocs.radix)
    pods, pod_size = 1, fab.gpus
    if ocs.topology == "single":
        per_plane = 1
    elif ocs.topology == "partitioned":
        pods = math.ceil(fab.gpus / ocs.radix)
        pod_size = math.ceil(fab.gpus / pods)
        per_plane = pods
    else:
        per_plane = network.switches
    # an OCS port switches one fiber: a GPU's fibers to one switch plane (its circuit to one peer) each run through a
    # switch of their own, the plane built that many times over and configured alike
    ocs_count = ocs.switches * fibers_per_port(ocs, lk.fibers_per_direction) * per_plane
    capacity = link.capacity_bps
    ocs_ports = ocs_count * ocs.radix  # the catalog prices an OCS per port
    # each transmit fiber runs GPU → switch and each receive fiber switch → GPU; `fiber_length` is the whole path
    bom = (*optical_io_bom(SimpleNamespace(**s)),
           BomLine(key=ocs.switch, count=ocs_ports, scope="per_cluster", network=True),
           BomLine(key="fiber.smf_per_m", count=lk.fibers_per_direction * s["loss"].fiber_length, scope="per_gpu",
                   network=True),
           BomLine(key="cable.fiber_patch", count=2 * lk.fibers_per_direction * network.passes, scope="per_gpu",
                   network=True))
    broken = {"ocs_radix": ocs.topology == "single" and fab.gpus > ocs.radix,
              "pod_size": ocs.topology == "partitioned" and design.job_gpus > pod_size}
    # bisection: a single layer or a rearrangeably non-blocking Clos carries half the GPUs' capacity across any cut;
    # independent pods have no circuit between them, so a cut between pods carries nothing
    return OcsFloor(per_gpu_bandwidth_bps=capacity, useful_fraction=shot_schedule(ocs, floor_shots(ocs)).useful_fraction,
                    degree=ocs.switches,
                    bisection_bps=0.0 * capacity if pods > 1 else fab.gpus / 2 * capacity, pod_gpus=pod_size,
                    pods=pods, ocs_count=ocs_count, network=network, ocs_ports=ocs_ports, broken=broken, bom=bom)


def _evaluate(design: ClusterDesign, est: LinkEstimate) -> FabricEstimate:
    fab, ocs, lk = design.fabric, design.topology, design.link.link
    _check_fibers(ocs, lk.fibers_per_direction, lk.wavelengths_per_fiber)
    inputs, s = link.fabric_inputs(est), sections(est.design)
    floor = ocs_floor(design, s, inputs)
    texts = {"ocs_radix": f"{fab.gpus} GPUs need {fab.gpus}-port switches for one layer; {ocs.switch} has "
                          f"{ocs.radix} ports (use [sip_ocs] topology = 'partitioned' for jobs of ≤ {ocs.radix} GPUs "
                          "each, or 'clos' for one across them, whose extra switch passes the link must close)",
             "pod_size": f"a {design.job_gpus}-GPU job spans {floor.pods} independent pods of ≤ {floor.pod_gpus} "
                         "GPUs with no circuit between them (set [fabric] job_gpus to the largest job, or use "
                         "topology = 'clos')"}
    violations = [*est.violations, *(Violation(name, texts[name]) for name, broken in floor.broken.items() if broken)]
    network, passes, ls = floor.network, floor.network.passes, design.link.loss
    fibers = fibers_per_port(ocs, lk.fibers_per_direction)
    plane = (f"; each of the {ocs.switches} planes a {network.construction} of "
             f"{' + '.join(str(c) for c in network.switches_per_tier)} switches"
             + (f", built {fibers} times (one per fiber)" if fibers > 1 else "") if ocs.topology == "clos" else "")
    notes = [f"{floor.ocs_count} switches of {ocs.radix} ports{plane}, {passes} pass(es) of {ls.switch_loss:g} dB + "
             f"{ls.switch_connectors} × {ls.connector_loss:g} dB connectors each"]
    if ocs.shots == "auto":
        notes.append("circuits follow each job the faster way (single-shot or phased): the collective times here are "
                     "single-shot's")
    if floor.pods > 1:
        notes.append(f"{floor.pods} independent pods of ≤ {floor.pod_gpus} GPUs: jobs must fit in a pod")
    fabric_estimate = ocs_estimate(design, s, floor, inputs)
    notes.append(ports_note(fabric_estimate))
    return dataclasses.replace(fabric_estimate, link=est, violations=tuple(violations), notes=tuple(notes))


def ports_note(est: FabricEstimate) -> str:
    """The OCS ports per GPU, read from the estimate's details as the bill's OCS line counts them: the ports bought
    (every port of every switch, over the GPUs) and, of those, the ones facing a GPU (one per switch plane, its
    degree); the rest are a Clos's inner stages and ports left unused."""
    ocs, det = est.design.topology, est.details
    bought, facing = det.ports_bought_per_gpu, est.degree * det.fibers_per_port
    rest = bought - facing
    what = "the Clos's inner stages and ports left unused" if ocs.topology == "clos" else "ports left unused"
    per_fiber = (f"one per fiber: {det.fibers_per_port} fibers to each of its {est.degree} switch planes"
                 if det.fibers_per_port > 1 else "one per switch plane, its degree")
    split = f"; {facing} face the GPU ({per_fiber})" + (f", the other {rest:.4g} are {what}" if rest > 1e-9 else "")
    return (f"{bought:.4g} OCS ports bought per GPU (the bill's {ocs.switch} line: {det.ocs_count} switches × "
            f"{ocs.radix} ports / {est.gpus} GPUs){split}; for scale, TPU v4's 48 OCSes for 4096 chips are < 5 % of "
            "its system cost")


def ocs_estimate(design: ClusterDesign, s: dict, floor: OcsFloor, link: FabricInputs) -> FabricEstimate:
    """The estimate's figures built on the switch fabric's floor, `s` the link's sections and `link` what the floor
    read of it (`_evaluate` adds the link's record, the violations and the notes): numbers for one design point,
    arrays over a grid of them (which a sweep prices collectives on, `fabric.estimate.over_points`)."""
    fab, ocs = design.fabric, design.topology
    network, capacity = floor.network, floor.per_gpu_bandwidth_bps
    details = OcsDetails(switch_passes=network.passes, tiers=network.tiers,
                         fibers_per_port=fibers_per_port(ocs, s["link"].fibers_per_direction),
                         port_bps=capacity / ocs.switches, ocs_count=floor.ocs_count, pods=floor.pods,
                         ports_bought_per_gpu=floor.ocs_ports / fab.gpus,
                         margin_db=link.margin_db, reconfiguration_s=ocs.reconfiguration_time,
                         circuit_delay_s=fiber_delay_s(s["loss"].fiber_length) + 2 * CHIPLET_LATENCY_S,
                         shots=floor_shots(ocs), call_wait_s=shot_schedule(ocs, floor_shots(ocs)).call_wait_s)
    return FabricEstimate(
        design=design, kind="sip-ocs", gpus=fab.gpus, job_gpus=design.job_gpus, per_gpu_bandwidth_bps=capacity,
        useful_fraction=floor.useful_fraction, degree=floor.degree, bisection_bps=floor.bisection_bps,
        pod_gpus=floor.pod_gpus, details=details, bom=floor.bom, static=shot_schedule(ocs, floor_shots(ocs)).static)


def shot_variants(est: FabricEstimate) -> tuple[FabricEstimate, ...]:
    """The estimate under each way a job may run its circuits ([sip_ocs] shots = 'auto': single-shot and phased;
    multi-shot splits the circuits as single-shot does with less time carrying traffic, so it never runs a job
    faster); otherwise the estimate alone."""
    ocs = est.design.topology
    if ocs.shots != "auto":
        return (est,)
    out = []
    for shots in ("single", "phased"):
        schedule = shot_schedule(ocs, shots)
        details = dataclasses.replace(est.details, shots=shots, allocation=shots, call_wait_s=schedule.call_wait_s)
        out.append(dataclasses.replace(est, details=details, useful_fraction=schedule.useful_fraction,
                                       static=schedule.static))
    return tuple(out)


def fibers_per_port(ocs, fibers):
    """A GPU's fibers per direction on each switch plane (whole: `_check_fibers`), each through a port of its own."""
    return fibers // ocs.switches


def _check_fibers(ocs, fibers: int, wavelengths: int) -> None:
    """Each GPU needs whole fibers per OCS port: InputError otherwise."""
    if fibers % ocs.switches:
        raise InputError(f"[sip_ocs] switches = {ocs.switches}: each GPU needs whole fibers per OCS port, so [link] "
                         f"fibers_per_direction must be a multiple of {ocs.switches}; it is {fibers} "
                         f"(e.g. link.fibers_per_direction={ocs.switches} with link.wavelengths_per_fiber="
                         f"{max(1, wavelengths * fibers // ocs.switches)}, or start from the built-in sip-ocs)")


def _grid_floor(design: ClusterDesign):
    """`ocs_floor` over a grid of the design's link, and the points whose fibers do not split over the switches."""
    ocs = design.topology
    return lambda s, inputs: (ocs_floor(design, s, inputs), s["link"].fibers_per_direction % ocs.switches != 0)


# --- collectives ----------------------------------------------------------------------------------------------
def _shares(est: FabricEstimate, collectives, arrays):
    """Each collective type's share of the d circuits, in whole circuits: d·(its bytes / all bytes) apportioned by
    `whole_circuits`; a type that sends nothing keeps share 1 (it competes for nothing)."""
    volume = []
    for c, (n, p, _) in zip(collectives, arrays):
        volume.append(bytes_sent_per_rank(c.op, n, p) * np.asarray(c.calls, dtype=float))
    circuits = whole_circuits(est.degree, volume)
    return [np.where(v > 0, k / est.degree, 1.0) for v, k in zip(volume, circuits)]


def whole_circuits(degree: int, volumes):
    """Whole circuits per collective type out of `degree`, in proportion to `volumes` (arrays that broadcast): every
    type with traffic gets one circuit first (while there are circuits: with fewer circuits than types, the types
    beyond get none and cannot run in a single-shot configuration), the rest by largest remainder of each type's
    proportional excess over that one (Hamilton's method) [inferred]."""
    stack = np.stack(np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in volumes]))
    used = stack > 0
    total = stack.sum(axis=0)
    target = np.where(used, degree * stack / np.where(total > 0, total, 1.0), 0.0)
    # one circuit each, largest volume first, while circuits last
    order = np.argsort(-stack, axis=0, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(stack.shape[0]).reshape((-1,) + (1,) * (stack.ndim - 1))
                      * np.ones_like(order), axis=0)
    base = (used & (rank < degree)).astype(float)
    spare = degree - base.sum(axis=0)
    excess = np.maximum(target - base, 0.0) * used
    weight = excess.sum(axis=0)
    quota = np.where(weight > 0, spare * excess / np.where(weight > 0, weight, 1.0), 0.0)
    extra = np.floor(quota + 1e-9)
    left = spare - extra.sum(axis=0)  # < number of types: handed out by largest remainder
    by_remainder = np.argsort(-(quota - extra), axis=0, kind="stable")
    position = np.empty_like(by_remainder)
    np.put_along_axis(position, by_remainder, np.arange(stack.shape[0]).reshape((-1,) + (1,) * (stack.ndim - 1))
                      * np.ones_like(by_remainder), axis=0)
    extra += (position < left) & (excess > 0)
    return list(base + extra)


def _price(est: FabricEstimate, c, n, p, s, share, seconds_only: bool = False) -> CollectiveTime:
    ocs, det = est.design.topology, est.details
    ports = est.degree * share  # circuits this collective type holds per GPU
    circuit = det.port_bps * est.useful_fraction
    rank_bps = ports * circuit
    alpha = ocs.step_latency + det.circuit_delay_s
    usable = (rank_bps > 0) & (p * s <= est.pod_gpus)
    if c.op in ("all_reduce", "reduce_scatter", "all_gather"):
        k = 2.0 if c.op == "all_reduce" else 1.0
        safe = np.where(usable, rank_bps, 1.0)
        ring = col.ring_half_s(n, p, safe, alpha, k)
        # a complete rows × cols torus (no holes), each dimension on ⌊ports/2⌋ whole circuits
        rows = col.torus_rows(p)
        cols = p / rows
        torus_bps = 2 * np.floor(ports / 2) * circuit
        steps = k * (rows - 1 + cols - 1)
        torus = np.where(p > 1, col.pipelined_s(steps * alpha, k * (p - 1) / p * n * BITS_PER_BYTE
                                                / np.where(torus_bps > 0, torus_bps, 1.0), steps, alpha), 0.0)
        schedules = {"ring over the circuits": ring,
                     "2-D torus of circuits, both dimension orders": np.where((torus_bps > 0) & (rows > 1), torus,
                                                                             np.inf)}
        if seconds_only:  # no schedule named, so no bandwidth picked by it
            seconds, schedule = fastest(list(schedules.values())), None
        else:
            seconds, schedule = pick(schedules)
            rank_bps = np.where(schedule == "2-D torus of circuits, both dimension orders", torus_bps, rank_bps)
    elif c.op == "all_to_all":  # over the job's one circuit graph of degree d, at this collective's share
        hops = col.expander_mean_distance(est.degree, p)
        direct = est.degree >= p - 1
        hops = np.where(direct, 1.0, hops)
        safe = np.where(usable, rank_bps, 1.0)
        seconds = np.where(p > 1, (p - 1) * alpha + (hops - 1) * ocs.relay_latency
                           + n * hops * BITS_PER_BYTE / safe, 0.0)
        schedule = np.where(direct, "direct circuits", "relayed over the circuits")
    else:
        seconds = col.point_to_point_s(n, np.where(usable, rank_bps, 1.0), alpha)
        schedule = "the pair's circuits"
    seconds = np.where(usable | (p <= 1), seconds, np.inf)
    return CollectiveTime(with_wait(seconds, det.call_wait_s, p), schedule, share, rank_bps)


def _seconds(est: FabricEstimate, c, n, p, s, share):
    """`_price`'s seconds alone (no schedule named)."""
    return _price(est, c, n, p, s, share, seconds_only=True).seconds


def _serve(est: FabricEstimate, flows):
    """Circuits by `allocation.ocs_assignment` (exact for the single-shot objective); flows between independent pods
    get nothing."""
    from fabric import allocation
    from fabric.flows import Flows
    from fabric.traffic import Served

    served = (flows.src // est.pod_gpus) == (flows.dst // est.pod_gpus)
    bandwidth = np.zeros(flows.count)
    if served.any() and est.per_gpu_bandwidth_bps > 0:
        inside = Flows(flows.gpus, flows.src[served], flows.dst[served], flows.demand_bps[served])
        alloc = allocation.ocs_assignment(inside, n_ocs=est.degree, circuit_bps=est.details.port_bps,
                                          permutations=False)
        bandwidth[served] = alloc.bandwidth_bps * est.useful_fraction
        return Served(bandwidth, alloc.method)
    return Served(bandwidth, "")


# --- the numbers as people read them: formulas (`sipml explain`) and figures ------------------------------------
def _bandwidth_formula(est: FabricEstimate):
    """B = C: a GPU's link capacity, split over its ports."""
    t = Terms()
    return Formula("B", t("C", est.link.capacity_bps, "bit/s", "the GPU's link capacity"), t.terms)


def _useful_formula(est: FabricEstimate):
    """u = 1 single-shot; multi-shot u = P / (P + 1), reconfigured every P delays [sim] (`useful_fraction`)."""
    t = Terms()
    if est.details.shots != "multi":
        said = "single shot: configured once per job" if est.details.shots == "single" else \
            "phased: re-pointed per call, each call pays its reconfiguration"
        return Formula("u", t(r"\mathbb{1}", 1.0, "", said), t.terms)
    period = t(r"T_{\mathrm{period}}", MULTI_SHOT_PERIOD, "", "reconfiguration period in delays")
    return Formula("u", period / (period + t(r"T_{\mathrm{r}}", 1.0, "", "one reconfiguration delay")), t.terms)


def _degree_formula(est: FabricEstimate):
    """D = n_OCS: one port, so one circuit, per switch."""
    t = Terms()
    return Formula("D", t(r"n_{\mathrm{OCS}}", est.design.topology.switches, "", "[sip_ocs] switches"), t.terms)


def _bisection_formula(est: FabricEstimate):
    """B_bis = 1_{one pod} · G/2 · C: a single layer or a rearrangeably non-blocking Clos carries half the GPUs'
    capacity across any cut; independent pods have no circuit between them."""
    t = Terms()
    return Formula(r"B_{\mathrm{bis}}", t(r"\mathbb{1}_{\mathrm{one\ pod}}", float(est.details.pods == 1), "",
                                          "one pod")
                   * t("G", est.gpus, "", "GPUs") / 2 * t("C", est.link.capacity_bps, "bit/s", "capacity"), t.terms)


def _figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    """The switch network's own figures: tiers and passes, ports, switches, pods, the margin through it."""
    d = est.details
    return {"switch tiers per plane": (float(d.tiers), ""),
            "switch passes per circuit": (float(d.switch_passes), ""),
            "fibers per switch plane": (float(d.fibers_per_port), ""),  # each on a port of its own
            "per-circuit bandwidth": (d.port_bps / 1e9, "Gbit/s"),
            "OCS count": (float(d.ocs_count), ""),
            "OCS ports bought per GPU": (d.ports_bought_per_gpu, ""),
            "pods": (float(d.pods), ""),
            "GPUs per pod": (float(est.pod_gpus), ""),
            "margin through the switch": (d.margin_db, "dB"),
            "reconfiguration time": (d.reconfiguration_s * 1e3, "ms")}


def _failure_domains(est: FabricEstimate) -> dict:
    """An OCS port, a GPU's cable to it or the laser source of that port's fibre fails: the GPU keeps its other ports
    and the job rides through (on fewer circuits until repair); a GPU's own parts (the GPU, its host share, its
    chiplets) stop the job, and with [reliability] spare_gpus a spare cabled into the same switches is brought in by
    re-pointing circuits, one reconfiguration (reliability.md Y16)."""
    from fabric.reliability import RIDES, Domain

    ocs = est.design.topology
    swap = Domain(1.0, "restart", ocs.reconfiguration_time, "the GPU's own part: the job stops (with hot spares, one "
                  "cabled into the switches is brought in by re-pointing circuits)")
    port = Domain(0.0, "restart", None, f"one port of the GPU's {est.degree * est.details.fibers_per_port}: {RIDES}")
    return {ocs.switch: port, "cable.fiber_patch": port, "laser.comb_line": port,
            est.design.fabric.gpu: swap, est.design.fabric.server: swap, "sip.optical_io_chiplet": swap}


SHOTS = {"single": "configured once for the job's whole traffic",
         "multi": "reconfigured every 5 reconfiguration times for the job's traffic, dark while switching",
         "phased": "re-pointed to each collective before it runs, one reconfiguration per call"}


def _shots_text(shots: str) -> str:
    return f"circuits {shots} ({SHOTS[shots]}; [sip_ocs] shots 'auto' runs each job the faster of single and phased)"


def _slots(est: FabricEstimate):
    """Any GPUs: each GPU's ports are its own and a job's circuits join only its GPUs (private circuits, nothing
    shared); partitioned switches keep a job inside one pod."""
    from fabric.placement import Slots

    pods = est.details.pods > 1
    rule = (f"any GPUs inside one of {est.details.pods} independent pods of ≤ {est.pod_gpus}" if pods else
            "any GPUs: each job's circuits on its GPUs' own ports")
    return Slots(gpus=est.gpus, unit_gpus=1, unit="GPU", domain_units=est.pod_gpus if pods else 0, strict=pods,
                 rule=rule + f", {est.details.switch_passes} switch pass(es) per circuit")


SIP_OCS = FabricKind(name="sip-ocs", section="sip_ocs", section_type=SipOcsSection, static=True, optical=True,
                     evaluator=_evaluate, sharer=_shares, pricer=_price, seconds_of=_seconds, server=_serve,
                     link_of=ocs_link, grid_floor=_grid_floor, floor_estimate=ocs_estimate,
                     formulas={"per_gpu_bandwidth_gbps": _bandwidth_formula, "useful_time_fraction": _useful_formula,
                               "degree": _degree_formula, "bisection_gbps": _bisection_formula},
                     figures=_figures, variants=shot_variants, variant_text=_shots_text,
                     failure_domains=_failure_domains, slots=_slots)
