"""SiP-Ring: GPUs on a fiber ring, micro-rings add and drop wavelengths, wavelengths reused on disjoint arcs.

The optical reach — how many GPUs a wavelength can travel — comes from the photonics budget with the real loss
of passing one GPU (its input and output couplers, the rings it passes off resonance, its waveguide, the hop's
connectors and fiber). Optional amplifiers every k hops restore the power; the ASE they add limits the reach
through the OSNR (photonics.amplifier). Traffic beyond the reach is relayed: an intermediate GPU receives it and
sends it on, costing a relay latency but no extra segment capacity (each segment is still crossed once).

Collectives. Job ranks sit on consecutive GPUs. A group of p ranks at stride s is a *line* (an arc of the ring:
its ring schedule runs the chain one way and returns from the last member to the first on the other direction's
fibers, so a rank sends at one direction's capacity C) unless it spans the whole ring (p·s = N), when it is
*closed* and runs one ring per direction (2C per rank). The s interleaved copies of a strided group share every
segment s ways. Schedules: the flat ring; two levels — lines of h ≤ reach consecutive members, then rings of
members h apart, each on its n/h shard [inferred]; for all-reduce on a line, a chain that reduces one way and
broadcasts back the other, pipelined (~n/C where a ring at C takes 2(p−1)/p·n/C) [inferred]; all-to-all bounded by the busiest segment under shortest-arc
routing; point-to-point on one direction's fibers. Wavelengths follow a job's traffic one of three ways
([sip_ring] allocation): static — split once per job in proportion to its traffic (SiP-ML's max-min objective), so
collective types share each segment by their bytes whether or not the others run, and the rings never retune;
periodic — re-allocated every decision interval to what runs then, idle while they retune (SiP-ML's simulator), a
call waiting on average half an interval and a retune for its wavelengths;
phased — re-tuned when the running collective changes, which then has every wavelength and pays one retune per call.
'auto' prices the job all three ways and keeps the fastest (workloads.speedup).

References: SiP-ML simulator (MLNetwork/rostam) [sim] for the ring (2 directions × 5 fibers, N_λ/(2·5) per
fiber), the 20 µs retune every 100 µs (useful time 100/120) and the 16-GPU placement locality.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import contextlib
import dataclasses
import math
from dataclasses import field
from types import SimpleNamespace

import numpy as np

from core.errors import InputError
from core.formulas import Formula, Terms
from core.fields import Section, all_of, non_negative, param, positive, when, when_above
from fabric import collectives as col
from fabric.cluster_design import MAX_DB, MAX_GPUS, MAX_LATENCY_S, NCCL, SIPML, ClusterDesign
from fabric.estimate import FabricEstimate, Floor
from fabric.kind import (BITS_PER_BYTE, CollectiveTime, FabricKind, bytes_sent_per_rank, fastest, pick,
                         proportional)
from photonics import amplifier, budget, link, microring, receiver
from photonics.link import FabricInputs, LinkEstimate, Violation
from photonics.common_stages import sections
from core.records import record
from core.units import db_to_lin, dbm_to_w

if TYPE_CHECKING:  # the bill and the schedules are read where a ring is priced: a link command imports neither
    from fabric.circuits import Schedule

_AMPLIFIED = when_above("sip_ring", "amplifier_every", 0)  # the amplifier keys matter only with amplifiers
_CLAMPED = all_of(_AMPLIFIED, when("sip_ring", "loop_control", "gain-clamp"))


@record(kw_only=True)
class SipRingSection(Section):
    """The ring hop between neighbouring GPUs is the design's [link]/[loss]: its fiber_length and connectors."""

    section_name: ClassVar[str] = "sip_ring"

    directions: int = param(2, "1", "ring directions (the link's fibers are split evenly over them)",
                            f"{SIPML}: 2 directions × 5 fibers", lo=1, hi=2, integer=True)
    allocation: str = param("auto", "choice", "how wavelengths follow a job's traffic: 'static' (split once per "
                            "job by its bytes, never re-tuned), 'periodic' (re-allocated to the traffic running "
                            "every decision interval, idle while the rings retune: SiP-ML's simulator), 'phased' "
                            "(re-tuned when the collective running changes: it gets every wavelength and pays one "
                            "retune per call), 'auto' (the fastest of the three for each job)", f"{SIPML} for "
                            "'periodic'; [inferred] the others", choices=("auto", "static", "periodic", "phased"))
    decision_interval: float = positive("100 us", "s", "time between wavelength re-allocations ('periodic')",
                                        f"{SIPML}", lo=1e-9, hi=1e3)
    retune_time: float = non_negative("20 us", "s", "time to retune a ring to a new wavelength (idle that long every "
                                      "decision interval, 'periodic', or before each call, 'phased')", SIPML, hi=1.0)
    locality: int = param(16, "1", "ring distance within which model-parallel partitions are placed",
                          f"{SIPML}: 16 GPUs", lo=1, integer=True, hi=MAX_GPUS)
    amplifier_every: int = param(0, "1", "an optical amplifier every this many hops (0: none)", "[assumed] "
                                 "none", lo=0, integer=True, hi=MAX_GPUS)
    amplifier: str = param("amplifier.soa", "text", "catalog entry of the amplifier", "[assumed] O-band SOA",
                           applies_when=_AMPLIFIED)
    amplifier_gain: float = non_negative("20 dB", "dB", "small-signal gain per amplifier",
                                         "[assumed] O-band SOA class", applies_when=_AMPLIFIED, hi=MAX_DB)
    amplifier_noise_figure: float = non_negative("7 dB", "dB", "amplifier noise figure",
                                                 "[assumed] O-band SOA class", applies_when=_AMPLIFIED, hi=MAX_DB)
    loop_control: str = param("none", "choice", "what keeps a closed ring of amplifiers from lasing: 'none' (the "
                              "design is refused: amplifiers that restore every span give unit round-trip gain "
                              "between the channels, where no drop filter takes the light out), 'gain-clamp' (each "
                              "amplifier's gain pinned by a deliberate lasing line outside the data band, through a "
                              "filter at its input)", "Ramaswami–Sivarajan–Sasaki §5.6 (lasing loops); Karásek et "
                              "al., JLT 18(3) 2000 (gain-clamped amplifiers) (fabric-photonics-3.md F20, B3) "
                              "[restated]", choices=("none", "gain-clamp"))
    clamp: str = param("filter.gain_clamp", "text", "catalog entry of one amplifier's gain-clamp filter",
                       "[assumed] FBG reflector + WDM coupler", applies_when=_CLAMPED)
    clamp_loss: float = non_negative("1 dB", "dB", "insertion loss of the gain-clamp filter at the amplifier's input",
                                     "[assumed] FBG + WDM coupler, 0.5–1 dB class", applies_when=_CLAMPED, hi=MAX_DB)
    step_latency: float = non_negative("3.4 us", "s", "cost of one collective step between two GPUs (protocol and "
                                       "synchronisation; the optical path adds its own delay)", f"{NCCL} (~v2.7): "
                                       "Ring/Simple per-step latency over NVLink 3.4 µs [verbatim]; [assumed] the "
                                       "chiplet is driven like an NVLink-class GPU-to-GPU path", hi=MAX_LATENCY_S)
    relay_latency: float = non_negative("3.4 us", "s", "cost of relaying through an intermediate GPU (received, "
                                        "stored and sent on) for traffic beyond the optical reach",
                                        "[assumed] one more collective step", hi=MAX_LATENCY_S)


@record(kw_only=True)
class AmplifiedReach:
    """The reach of an amplified ring: OSNR and Q after one amplifier, the amplifiers a signal passes."""
    osnr_db: float  # after one amplifier, in the drop filter's bandwidth
    osnr_bandwidth_hz: float
    q: float  # at the worst-placed destination after one amplifier
    q_needed: float
    amplifiers_passable: int
    amplifier_input_dbm: float  # average, per channel


@record(kw_only=True)
class RingDetails:
    """A SiP-Ring fabric's numbers: wavelengths and fibers per direction, the reach in hops, the amplifiers."""
    wavelengths_per_fiber: int
    fibers_per_direction: int  # per ring direction
    directions: int
    # informational (reported, not read by the collective pricing, so left out of equality: pricing_view)
    pass_loss_db: float = field(compare=False)  # passing one intermediate GPU
    neighbour_margin_db: float = field(compare=False)
    unamplified_reach_hops: int
    amplifiers: int
    amplified: AmplifiedReach | None
    segment_capacity_bps: float  # one direction of one segment, with the useful-time fraction
    hop_delay_s: float  # fiber and chiplets of one hop
    allocation: str = "static"  # how this estimate's wavelengths follow the traffic: static, periodic or phased
    retune_s: float = 0.0  # paid before each call: its retune ('phased'), or the wait for a decision point and its
    # retune ('periodic')


def unamplified_reach_hops(link: FabricInputs):
    """Hops a wavelength can travel with no amplifier: `photonics.budget.hop_reach` (1 + the intermediate GPUs the
    neighbour's margin pays for at the loss of passing one; 0 when even the neighbour does not close)."""
    return budget.hop_reach(link.launch_dbm, link.sensitivity_dbm, link.penalty_db, link.ledger_db,
                            link.pass_loss_db, link.system_margin_db)


@record(kw_only=True)
class RingFloor(Floor):
    """The ring's figures for one design point or a grid of them (arrays over its link's fields)."""

    reach_hops: object
    unamplified_reach_hops: object
    amplifiers: object  # in the cluster
    amplified: AmplifiedReach | None  # its figures (arrays over a grid), with amplifiers


def ring_floor(design: ClusterDesign, s: dict, link: FabricInputs) -> RingFloor:
    """The ring's figures built on `link` (what the fabric reads of it), `s` the link's sections
    (`photonics.common_stages.sections`): numbers for one design point, or arrays over a grid of its link's fields."""
    from fabric.bom import BomLine
    from fabric.optical_io import optical_io_bom

    fab, ring, lk = design.fabric, design.topology, s["link"]
    every = ring.amplifier_every
    unamplified = unamplified_reach_hops(link)
    reach, amplified, amps = unamplified, None, 0
    bom = [*optical_io_bom(SimpleNamespace(**s)),
           BomLine(key="fiber.smf_per_m", count=s["loss"].fiber_length * lk.fibers_per_direction, scope="per_gpu",
                   network=True),
           BomLine(key="cable.fiber_patch", count=lk.fibers_per_direction, scope="per_gpu", network=True)]
    if every:
        closes = unamplified >= every  # each amplified section closes on its own: noise sets the reach
        if np.any(closes):
            # over a grid, the points whose sections do not close (a signal of 0 W) are computed and left out
            with np.errstate(divide="ignore", invalid="ignore") if np.ndim(closes) else contextlib.nullcontext():
                amplified_reach, amplified = amplified_reach_hops(design, s, link, every)
            reach = np.where(closes, amplified_reach, unamplified)
        amps = math.ceil(fab.gpus / every) * lk.fibers_per_direction
        bom.append(BomLine(key=ring.amplifier, count=amps, scope="per_cluster", network=True))
        if ring.loop_control == "gain-clamp":
            bom.append(BomLine(key=ring.clamp, count=amps, scope="per_cluster", network=True))
    reach = np.minimum(reach, fab.gpus - 1)
    allocation = "static" if ring.allocation == "auto" else ring.allocation
    useful = ring_schedule(ring, allocation).useful_fraction
    broken = {"modulator_kind": design.link.modulator.kind != "add-drop",
              "amplifier_gain": bool(every) and ring.amplifier_gain < amplified_section_db(ring, link.pass_loss_db),
              "amplifier_loop": bool(every) and ring.loop_control == "none",
              "amplifier_spacing": bool(every) and unamplified < every,
              "ring_reach": reach < min(ring.locality, fab.gpus - 1)}
    # per direction: traffic from one half to the other leaves on the clockwise fibers at one cut point and on the
    # counter-clockwise fibers at the other, together the whole capacity of one GPU's fibers
    return RingFloor(per_gpu_bandwidth_bps=link.capacity_bps, useful_fraction=useful,
                     degree=np.minimum(np.minimum(lk.wavelengths_per_fiber * lk.fibers_per_direction,
                                                  ring.directions * reach), fab.gpus - 1),  # a small ring: its peers
                     bisection_bps=link.capacity_bps, reach_hops=reach, unamplified_reach_hops=unamplified,
                     amplifiers=amps, amplified=amplified, broken=broken, bom=tuple(bom))


def amplified_reach_hops(design: ClusterDesign, s: dict, link: FabricInputs, every: int):
    """Reach with an amplifier every `every` hops, each restoring the fiber-launch level. The worst destination sits
    `every` hops past the last amplifier it passed; its Q combines the receiver's own noise (from its sensitivity
    and the extinction ratio that sensitivity assumes), the signal–ASE beat on both levels at the link's extinction
    ratio and the ASE–ASE beat of n amplifiers (photonics.amplifier); crosstalk and the reserved margin are taken off
    the signal (the extinction ratio is in the levels, not a penalty here). A wavelength may pass the largest n with
    Q ≥ Q(BER) (Q falls as n grows: the ASE adds up, found by bisection over 1 … the GPU count). The worst-placed
    source sits one hop before an amplifier: reach = 1 + every·n hops. The levels are NRZ's two; a PAM4 link is
    judged by the same formula on its eye's Q (an approximation). `s`, `link`: the link's sections and what the fabric
    reads of it, numbers for one point or arrays over a grid. Returns (reach, AmplifiedReach)."""
    ring, gpus = design.topology, design.fabric.gpus
    responsivity = s["receiver"].responsivity
    f0 = microring.frequency_hz(s["link"].wavelength)
    b_o = link.filter_fwhm_hz  # the drop ring is the optical filter in front of the detector
    b_e = receiver.NOISE_BANDWIDTH_FRACTION * link.symbol_rate_baud  # the receiver's noise bandwidth (E16)
    q_need = link.eye_q  # the Q the receiver needs at the target BER (FEC threshold where a code runs)
    er = db_to_lin(s["modulator"].extinction_ratio)
    fiber_launch_dbm = link.launch_dbm - link.transmit_loss_db  # average power per wavelength in the fiber
    amp_in_dbm = fiber_launch_dbm - every * link.pass_loss_db - _clamp_loss_db(ring)
    rx_dbm = (link.launch_dbm - link.ledger_db) - (every - 1) * link.pass_loss_db
    p_eff_w = dbm_to_w(rx_dbm - (link.penalty_after_er_db + link.system_margin_db))
    sigma_th = amplifier.thermal_sigma_a(link.sensitivity_w, link.reference_extinction_ratio, responsivity, q_need)

    def q_after(amps):
        osnr = amplifier.chain_osnr_db(amp_in_dbm, ring.amplifier_noise_figure, amps, f0, b_o)
        ase = amplifier.ase_psd_w_per_hz(dbm_to_w(rx_dbm), osnr, b_o)
        return osnr, amplifier.q_amplified(p_eff_w, er, responsivity, sigma_th, ase, b_o, b_e)

    shape = np.broadcast_shapes(*(np.shape(v) for v in (amp_in_dbm, rx_dbm, p_eff_w, sigma_th, er, b_o, b_e, q_need)))
    passable, beyond = np.zeros(shape, dtype=np.int64), np.full(shape, gpus + 1, dtype=np.int64)
    while np.any(open_ := beyond - passable > 1):  # Q(passable) ≥ Q(BER) > Q(beyond); n = 0 is the plain link
        mid = (passable + beyond) // 2
        ok = q_after(mid)[1] >= q_need
        passable, beyond = np.where(open_ & ok, mid, passable), np.where(open_ & ~ok, mid, beyond)
    osnr_1, q_1 = q_after(1.0)
    reach = np.minimum(gpus - 1, 1 + every * passable)
    return reach, AmplifiedReach(osnr_db=osnr_1, osnr_bandwidth_hz=b_o, q=q_1, q_needed=q_need,
                                 amplifiers_passable=passable, amplifier_input_dbm=amp_in_dbm)


def _clamp_loss_db(ring: SipRingSection) -> float:
    """Loss in front of each amplifier: the gain clamp's filter, when the loop is controlled by one."""
    return ring.clamp_loss if ring.amplifier_every and ring.loop_control == "gain-clamp" else 0.0


def amplified_section_db(ring: SipRingSection, pass_loss_db):
    """Loss one amplifier must make up: its hops and the gain clamp's filter."""
    return ring.amplifier_every * pass_loss_db + _clamp_loss_db(ring)


def _evaluate(design: ClusterDesign, est: LinkEstimate) -> FabricEstimate:
    ring, lk = design.topology, design.link.link
    if lk.fibers_per_direction % ring.directions:
        raise InputError(f"[sip_ring] directions = {ring.directions} must divide [link] fibers_per_direction = "
                         f"{lk.fibers_per_direction}")
    inputs, s = link.fabric_inputs(est), sections(est.design)
    floor = ring_floor(design, s, inputs)
    built = ring_estimate(design, s, floor, inputs)
    unamplified, reach = built.details.unamplified_reach_hops, built.reach_hops
    violations = [*est.violations, *(Violation(name, _broken_text(name, design, est, inputs.pass_loss_db, unamplified,
                                                                  reach))
                                     for name, broken in floor.broken.items() if broken)]
    notes = [f"each hop: {design.link.loss.fiber_length:g} m of fiber, {design.link.loss.connectors} connectors"]
    if ring.amplifier_every and ring.loop_control == "gain-clamp":
        notes.append(f"each amplifier gain-clamped by a lasing line outside the data band (the loop's lasing is the "
                     f"clamp), {ring.clamp_loss:g} dB of filter at its input")
    if ring.allocation == "auto":
        notes.append("wavelengths follow each job the fastest way (static, periodic or phased): the collective times "
                     "here are the static allocation's")
    return dataclasses.replace(built, link=est, violations=tuple(violations), notes=tuple(notes))


def ring_estimate(design: ClusterDesign, s: dict, floor: RingFloor, link: FabricInputs) -> FabricEstimate:
    """The estimate's figures built on the ring's floor, `s` the link's sections and `link` what the floor read of
    it (`_evaluate` adds the link's record, the violations and the notes): numbers for one design point, arrays over
    a grid of them (which a sweep prices collectives on, `fabric.estimate.over_points`)."""
    from fabric.optical_io import CHIPLET_LATENCY_S, fiber_delay_s

    fab, ring, lk, loss = design.fabric, design.topology, s["link"], s["loss"]
    one = all(np.ndim(x) == 0 for x in (floor.reach_hops, floor.unamplified_reach_hops, floor.degree))  # one point
    whole = int if one else np.asarray
    unamplified, reach = whole(floor.unamplified_reach_hops), whole(floor.reach_hops)
    amplified, a = None, floor.amplified
    if a is not None and not one:
        amplified = a
    elif a is not None and unamplified >= ring.amplifier_every:
        amplified = AmplifiedReach(osnr_db=float(a.osnr_db), osnr_bandwidth_hz=float(a.osnr_bandwidth_hz),
                                   q=float(a.q), q_needed=float(a.q_needed),
                                   amplifiers_passable=int(a.amplifiers_passable),
                                   amplifier_input_dbm=float(a.amplifier_input_dbm))
    allocation = "static" if ring.allocation == "auto" else ring.allocation
    details = RingDetails(wavelengths_per_fiber=lk.wavelengths_per_fiber,
                          fibers_per_direction=lk.fibers_per_direction // ring.directions, directions=ring.directions,
                          pass_loss_db=link.pass_loss_db, neighbour_margin_db=link.margin_db,
                          unamplified_reach_hops=unamplified, amplifiers=floor.amplifiers, amplified=amplified,
                          segment_capacity_bps=floor.per_gpu_bandwidth_bps * floor.useful_fraction / ring.directions,
                          hop_delay_s=fiber_delay_s(loss.fiber_length) + 2 * CHIPLET_LATENCY_S,
                          allocation=allocation, retune_s=ring_schedule(ring, allocation).call_wait_s)
    return FabricEstimate(
        design=design, kind="sip-ring", gpus=fab.gpus, job_gpus=design.job_gpus,
        per_gpu_bandwidth_bps=floor.per_gpu_bandwidth_bps, useful_fraction=floor.useful_fraction,
        degree=whole(floor.degree), bisection_bps=floor.bisection_bps, pod_gpus=fab.gpus, reach_hops=reach,
        details=details, bom=floor.bom, static=allocation == "static")


def _broken_text(name: str, design: ClusterDesign, est: LinkEstimate, pass_loss: float, unamplified: int,
                 reach: int) -> str:
    """What a broken limit of `RingFloor.broken` means, with the numbers that show it."""
    ring = design.topology
    if name == "modulator_kind":
        return ("all-pass modulators put every local laser line on the ring fiber, on top of the wavelengths passing "
                "through: wavelength reuse needs add-drop modulators ([modulator] kind = 'add-drop')")
    if name == "amplifier_gain":
        clamp = f" and the gain clamp's {ring.clamp_loss:g} dB" if _clamp_loss_db(ring) else ""
        return (f"amplifier gain {ring.amplifier_gain:g} dB < loss of {ring.amplifier_every} hops{clamp} "
                f"{amplified_section_db(ring, pass_loss):.2f} dB")
    if name == "amplifier_loop":
        return ("a closed ring of amplifiers that restore every span has unit round-trip gain between the channels, "
                "where no drop filter takes the light out: it lases and the lasing mode takes the channels' power "
                "(F20); set [sip_ring] loop_control = 'gain-clamp'")
    if name == "amplifier_spacing":
        return f"an amplifier every {ring.amplifier_every} hops, but the unamplified reach is {unamplified} hops"
    if est.margin_db < 0:
        why = f"the link to the neighbouring GPU does not close (margin {est.margin_db:.2f} dB)"
    elif not ring.amplifier_every:
        why = (f"passing a GPU costs {pass_loss:.2f} dB against a {est.margin_db:.2f} dB neighbour margin "
               "(add amplifiers: [sip_ring] amplifier_every)")
    elif reach < ring.amplifier_every:
        why = f"an amplified section of {ring.amplifier_every} hops does not close"
    else:
        worst = max(est.penalties, key=lambda p: p.value_db, default=None)
        largest = f" ({worst.name} {worst.value_db:.2f} dB)" if worst and worst.value_db > 1.0 else ""
        why = ("the Q at the destination limits it: the amplifiers' noise on a link that already spends "
               f"{est.budget.penalty_db:.2f} dB on penalties{largest} (lower the penalties, raise the launch "
               "power, lower the noise figure or amplify more often)")
    return (f"a wavelength reaches {reach} GPU(s) but SiP-ML places model-parallel partitions within "
            f"{ring.locality} GPUs: {why}")


ALLOCATION_POLICY = {"static": "fixed", "periodic": "periodic", "phased": "phased"}  # fabric.circuits' names


def ring_schedule(ring: SipRingSection, allocation: str) -> Schedule:
    """An allocation as the circuits schedule it (`fabric.circuits`): static is fixed; periodic re-tunes to what runs
    every decision interval [sim] (a call waits half an interval and a retune); phased retunes before each call."""
    from fabric.circuits import Schedule

    return Schedule(ALLOCATION_POLICY[allocation], ring.retune_time, ring.decision_interval, follows_running=True)


def allocations(est: FabricEstimate) -> tuple[FabricEstimate, ...]:
    """The estimate under each wavelength allocation a job may pick ([sip_ring] allocation = 'auto'): static (split
    by the job's bytes, no re-tuning), periodic (every decision interval to what runs, at its useful-time fraction)
    and phased (the running collective takes every wavelength, one retune per call); otherwise the estimate alone."""
    ring = est.design.topology
    if ring.allocation != "auto":
        return (est,)
    out = []
    for allocation in ("static", "periodic", "phased"):
        schedule = ring_schedule(ring, allocation)
        useful = schedule.useful_fraction
        details = dataclasses.replace(est.details, allocation=allocation,
                                      segment_capacity_bps=est.per_gpu_bandwidth_bps * useful / est.details.directions,
                                      retune_s=schedule.call_wait_s)
        out.append(dataclasses.replace(est, details=details, useful_fraction=useful, static=allocation == "static"))
    return tuple(out)


# --- collectives ----------------------------------------------------------------------------------------------
def _step_s(est: FabricEstimate, span):
    """Cost of one step whose longest transfer spans `span` segments: the protocol step, a relay at every reach
    boundary crossed, and the path's delay. Infinite when no wavelength reaches the neighbour."""
    ring, det = est.design.topology, est.details
    reach = _reach(est)
    if np.ndim(reach) and 1 <= np.max(span, initial=0) <= np.min(reach):
        reach = np.min(reach)  # a batched view whose points all reach every span: no relay anywhere, their steps alike
    if np.all(reach < 1):
        return np.full(np.shape(span), np.inf)
    relays = np.maximum(np.ceil(span / np.maximum(reach, 1)) - 1.0, 0.0)
    step = ring.step_latency + relays * ring.relay_latency + span * det.hop_delay_s
    return step if np.ndim(reach) == 0 else np.where(reach >= 1, step, np.inf)


def _reach(est: FabricEstimate):
    """The reach in hops (0 where none is known): a number, or an array over the points of a batched view."""
    return 0 if est.reach_hops is None else est.reach_hops


def _geometry(est: FabricEstimate, p, s):
    """(closed, rank bandwidth factor): a group spanning the whole ring closes it and, with two directions, runs
    one ring per direction; its s interleaved copies share each segment."""
    closed = p * s == est.gpus
    both = closed & (est.details.directions == 2)
    return closed, np.where(both, 2.0, 1.0) / s


def _segment_load(est: FabricEstimate, op: str, n, p, s):
    """Bytes one call puts on the busiest segment in one direction (for the demand-proportional share)."""
    closed, factor = _geometry(est, p, s)
    crowd = _crowd(est, p * s, closed)  # one direction: the other groups' ways back on this group's segments
    if op == "all_to_all":  # pairs crossing the busiest segment, n/(p−1) bytes each
        if est.details.directions == 1:  # every pair one way: of i → j and j → i, one crosses each segment
            pairs = p * (p - 1) / 2.0 * crowd
        else:  # shortest arcs, ties split; a line's middle segment carries the two halves' pairs
            pairs = np.where(closed, np.floor(p * p / 4.0) / 2.0, np.floor(p / 2.0) * np.ceil(p / 2.0))
        return s * pairs * n / np.maximum(p - 1.0, 1.0)
    return bytes_sent_per_rank(op, n, p) / factor * crowd


def _closing_span(est, members, spacing, around):
    """Hops of a ring's longest step, over `members` ranks `spacing` hops apart: one spacing where they go `around`
    the fiber ring (its last step back to the first is no longer); else the way back from the last to the first,
    (members − 1)·spacing hops on the other direction's fibers, or with one direction the rest of the ring forward,
    GPUs − (members − 1)·spacing hops."""
    span = (members - 1) * spacing
    back = span if est.details.directions == 2 else est.gpus - span
    return np.where(around, spacing, back)


def _crowd(est, arc, around):
    """Flows sharing a segment per ring laid over an `arc` of hops: 1 where the rings go around or come back on the
    other direction's fibers; with one direction, every other arc's way back crosses each segment of this one, so
    the job's GPUs / arc rings laid side by side share it [derived for rings of equal arcs tiling the job: each
    other ring's way back crosses the arc once; the busiest segment's flows counted one by one in
    tests/fabric/test_topologies.py]."""
    if est.details.directions == 2:
        return 1.0
    return np.where(around, 1.0, np.maximum(est.job_gpus / arc, 1.0))


def _half_s(est, n, p, s, cap, times: float = 1.0):
    """Reduce-scatter / all-gather schedules, flat ring and two levels (each level a ring of its own), `times` over
    (an all-reduce: 2) in one pipeline, on a segment capacity `cap` (a view's at a collective's share): the rings of
    `fabric.collectives`, each rank sending at cap·factor (the flat ring) or the levels' shares of cap, shared with
    the ways back of the rings beside it on a one-direction ring (`_crowd`); each step as slow as its longest
    transfer (`_closing_span`)."""
    closed, factor = _geometry(est, p, s)
    flat = col.ring_half_s(n, p, cap * factor / _crowd(est, p * s, closed), _step_s(est, _closing_span(est, p, s,
                                                                                                       closed)), times)
    reach = np.maximum(_reach(est), 1)
    if np.ndim(reach) and np.all(np.floor(np.min(reach) / s) >= np.ceil(np.sqrt(p))):
        reach = np.min(reach)  # a batched view whose points all hold every group's inner hops: their levels alike
    h = np.clip(np.minimum(np.ceil(np.sqrt(p)), np.floor(reach / s)), 1.0, p)  # inner and outer hops within reach
    outer = np.ceil(p / h)
    outer_factor = np.where(closed & (est.details.directions == 2), 2.0, 1.0) / (h * s)
    two = np.where((h > 1) & (outer > 1),
                   col.two_level_half_s(n, h, outer, cap / s / _crowd(est, h * s, h * s == est.gpus),
                                        cap * outer_factor / _crowd(est, p * s, closed),
                                        _step_s(est, _closing_span(est, h, s, h * s == est.gpus)),
                                        _step_s(est, _closing_span(est, outer, h * s, closed)), times), np.inf)
    return {"ring": flat, "two-level ring": two}


def _price(est: FabricEstimate, c, n, p, s, share, seconds_only: bool = False) -> CollectiveTime:
    t = _schedule(est, c, n, p, s, share, seconds_only)
    if np.any(est.details.retune_s):  # phased or periodic: the rings are re-tuned to this collective before it runs
        from fabric.circuits import with_wait

        return dataclasses.replace(t, seconds=with_wait(t.seconds, est.details.retune_s, p))
    return t


def _seconds(est: FabricEstimate, c, n, p, s, share):
    """`_price`'s seconds alone (no schedule named)."""
    return _price(est, c, n, p, s, share, seconds_only=True).seconds


NO_REACH = "none: no wavelength reaches the neighbour"


def _schedule(est: FabricEstimate, c, n, p, s, share, seconds_only: bool = False) -> CollectiveTime:
    dead = (est.details.segment_capacity_bps <= 0) | (_reach(est) < 1)
    if np.all(dead):
        return CollectiveTime(np.where(p > 1, np.inf, 0.0) * np.ones_like(n), NO_REACH, share, 0.0)
    if not np.any(dead):
        return _alive_schedule(est, c, n, p, s, share, seconds_only)
    with np.errstate(divide="ignore", invalid="ignore"):  # the dead points' figures are replaced below
        t = _alive_schedule(est, c, n, p, s, share, seconds_only)
    # a batched view (fabric.estimate.over_points) with some points that reach no neighbour
    seconds = np.where(dead, np.where(p > 1, np.inf, 0.0), t.seconds)
    if seconds_only:
        return CollectiveTime(seconds, None, share, None)
    return CollectiveTime(seconds, np.where(dead, NO_REACH, t.schedule), share, np.where(dead, 0.0, t.bandwidth_bps))


def _alive_schedule(est: FabricEstimate, c, n, p, s, share, seconds_only: bool = False) -> CollectiveTime:
    cap = est.details.segment_capacity_bps * share
    closed, factor = _geometry(est, p, s)
    if c.op in ("reduce_scatter", "all_gather", "all_reduce"):
        times = _half_s(est, n, p, s, cap, 2.0 if c.op == "all_reduce" else 1.0)
        if c.op == "all_reduce":
            # on an arc, a chain reduces one way and broadcasts back the other, both pipelined: every segment of the
            # arc carries n once per direction, and the first chunk crosses 2(p − 1) hops [inferred]
            chain = 2 * (p - 1) * _step_s(est, s) + (n * BITS_PER_BYTE * s) / cap
            times["chain: reduce one way, broadcast back"] = np.where(~closed & (est.details.directions == 2)
                                                                      & (p > 1), chain, np.inf)
        if seconds_only:
            return CollectiveTime(fastest(list(times.values())), None, share, None)
        seconds, schedule = pick(times)
        return CollectiveTime(seconds, schedule, share, cap * factor / _crowd(est, p * s, closed))
    if c.op == "all_to_all":
        # one message per peer; the farthest one's relays and path delay are paid once (the messages overlap)
        load = _segment_load(est, "all_to_all", n, p, s)
        shortest_arcs = closed & (est.details.directions == 2)
        one_way = est.gpus - s if est.details.directions == 1 else (p - 1) * s  # to the member behind: round
        farthest = _step_s(est, np.where(shortest_arcs, np.floor(p / 2) * s, one_way))
        t = np.where(p > 1, (p - 2) * est.design.topology.step_latency + farthest + load * BITS_PER_BYTE / cap, 0.0)
        return CollectiveTime(t, "shortest arc, busiest segment", share, cap * factor)
    # a pipeline sends both ways (activations on, gradients back): with one direction the way back goes round the
    # ring, sharing its segments with the other pairs' ways back
    back = _closing_span(est, 2, s, False)
    rate = cap / s / _crowd(est, 2 * s, False)
    return CollectiveTime(col.point_to_point_s(n, rate, _step_s(est, back)), "one direction's fibers", share, rate)


def _shares(est: FabricEstimate, collectives, arrays):
    loads = []
    for c, (n, p, s) in zip(collectives, arrays):
        loads.append(_segment_load(est, c.op, n, p, s) * np.asarray(c.calls, dtype=float))
    return proportional(loads)


def _serve(est: FabricEstimate, flows):
    """Wavelengths per flow by `allocation.ring_allocation_fast` (its optimality bound is not asked for: the served
    bandwidth is the answer); flows beyond the reach are relayed. A wavelength carries its share of the segment
    capacity the collectives are priced on (`wavelength_bps`: the link's capacity after the FEC overhead, with the
    useful-time fraction), not the line rate: serving and pricing read the same number."""
    from fabric import allocation
    from fabric.traffic import Served, ring_distance

    det = est.details
    relayed = int(np.sum(ring_distance(flows, est.gpus) > (est.reach_hops or 0)))
    if det.segment_capacity_bps <= 0 or not est.reach_hops:
        return Served(np.zeros(flows.count), NO_REACH, relayed=0)
    alloc = allocation.ring_allocation_fast(flows, directions=det.directions, fibers=det.fibers_per_direction,
                                            wavelengths_per_fiber=det.wavelengths_per_fiber,
                                            wavelength_rate_bps=wavelength_bps(det), bound_iterations=0)
    return Served(alloc.bandwidth_bps, alloc.method, relayed=relayed)


def wavelength_bps(det: RingDetails) -> float:
    """What one wavelength of one fiber carries when served: one direction's segment capacity (the link's capacity
    after the FEC overhead, with the useful-time fraction: `RingDetails.segment_capacity_bps`, which the collectives
    are priced on) over the wavelengths of that direction's fibers."""
    return det.segment_capacity_bps / (det.fibers_per_direction * det.wavelengths_per_fiber)


def _grid_floor(design: ClusterDesign):
    """`ring_floor` over a grid of the design's link, and the points whose fibers do not split over the directions."""
    ring = design.topology
    return lambda s, inputs: (ring_floor(design, s, inputs), s["link"].fibers_per_direction % ring.directions != 0)


def _ring_link(design: ClusterDesign):
    """The neighbour-to-neighbour link: the design's own (passes through GPUs are priced by the reach)."""
    return design.link


# --- the numbers as people read them: formulas (`sipml explain`) and figures ------------------------------------
def _bandwidth_formula(est: FabricEstimate):
    """B = C: a GPU injects its link's capacity into the ring."""
    t = Terms()
    return Formula("B", t("C", est.link.capacity_bps, "bit/s", "the GPU's link capacity"), t.terms)


def _useful_formula(est: FabricEstimate):
    """u = T_d / (T_d + T_r) when periodic (idle while the rings retune) [sim]; 1 when static or phased."""
    t, ring = Terms(), est.design.topology
    if est.details.allocation != "periodic":
        return Formula("u", t(r"\mathbb{1}", 1.0, "", f"{est.details.allocation} allocation: no periodic retune"),
                       t.terms)
    interval = t(r"T_{\mathrm{d}}", ring.decision_interval, "s", "decision interval")
    return Formula("u", interval / (interval + t(r"T_{\mathrm{r}}", ring.retune_time, "s", "retune time")), t.terms)


def _degree_formula(est: FabricEstimate):
    """D = min(N·F, d·h, P): a GPU's wavelengths, the GPUs its directions reach within the optical reach, or the
    P = G − 1 other GPUs of a small ring."""
    import sympy as sp

    t, ring, lk = Terms(), est.design.topology, est.design.link.link
    return Formula("D", sp.Min(t(r"N \cdot F", lk.wavelengths_per_fiber * lk.fibers_per_direction, "",
                                 "wavelengths of the GPU"),
                               t("d", ring.directions, "", "ring directions") * t("h", est.reach_hops, "hops",
                                                                                  "optical reach"),
                               t("P", est.gpus - 1, "", "the ring's other GPUs (G − 1)")), t.terms)


def _bisection_formula(est: FabricEstimate):
    """B_bis = C: traffic from one half to the other leaves on the clockwise fibers at one cut point and on the
    counter-clockwise fibers at the other, together the capacity of one GPU's fibers."""
    t = Terms()
    return Formula(r"B_{\mathrm{bis}}", t("C", est.link.capacity_bps, "bit/s", "one GPU's capacity"), t.terms)


def _reach_formula(est: FabricEstimate):
    """h = min(1 + a·k, G − 1) with amplifiers every a hops, k of them passable; unamplified
    h = min(1 + ⌊m_neighbour / L_pass⌋, G − 1) (`photonics.budget.hop_reach`)."""
    import sympy as sp

    if est.reach_hops is None:
        return None
    t, d = Terms(), est.details
    hops = (t(r"h_{\mathrm{amp}}", 1 + est.design.topology.amplifier_every * d.amplified.amplifiers_passable, "hops",
              "1 + amplifier spacing × amplifiers a wavelength may pass") if d.amplified is not None
            else 1 + sp.floor(t(r"m_{\mathrm{neighbour}}", d.neighbour_margin_db, "dB", "the neighbour's margin")
                              / t(r"L_{\mathrm{pass}}", d.pass_loss_db, "dB", "loss of passing one GPU")
                              * (1 + t(r"\epsilon", 1e-12, "", "the floor's rounding tolerance (a ratio rounded "
                                                                   "just short of a whole number counts it)"))))
    return Formula("h", sp.Min(hops, t("G", est.gpus, "", "GPUs") - 1), t.terms)


def _figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    """The ring's own figures: wavelengths and fibers, the pass loss and margin that set the reach, the amplifiers."""
    d = est.details
    out = {"wavelengths per fiber": (float(d.wavelengths_per_fiber), ""),
           "fibers per ring direction": (float(d.fibers_per_direction), ""),
           "loss of passing one GPU": (d.pass_loss_db, "dB"),
           "neighbour margin": (d.neighbour_margin_db, "dB"),
           "unamplified reach": (float(d.unamplified_reach_hops), "hops")}
    if d.amplified is not None:
        a = d.amplified
        out.update({"OSNR after one amplifier": (a.osnr_db, f"dB in {a.osnr_bandwidth_hz / 1e9:.0f} GHz"),
                    "Q after one amplifier": (a.q, ""), "Q needed": (a.q_needed, ""),
                    "amplifiers a wavelength may pass": (float(a.amplifiers_passable), ""),
                    "amplifier input per channel": (a.amplifier_input_dbm, "dBm average")})
    out["optical reach"] = (float(est.reach_hops), "hops")
    out["amplifiers"] = (float(d.amplifiers), "")
    return out


ALLOCATIONS = {"static": "split once by the job's bytes, never re-tuned",
               "periodic": "re-allocated every decision interval, idle while the rings retune",
               "phased": "re-tuned when the running collective changes, one retune per call"}


def _allocation_text(allocation: str) -> str:
    return (f"wavelengths {allocation} ({ALLOCATIONS[allocation]}; [sip_ring] allocation 'auto' runs each job the "
            "fastest of static, periodic and phased)")


def _slots(est: FabricEstimate):
    """One unbroken arc per job: its ranks on consecutive positions, where its wavelengths are added and dropped."""
    from fabric.placement import Slots

    crossing = ("each job's traffic stays on its arc, the other direction carrying its return" if
                est.details.directions == 2 else "one direction: each job's return crosses the other jobs' arcs")
    return Slots(gpus=est.gpus, unit_gpus=1, unit="GPU", contiguous=True,
                 rule=f"one unbroken arc of consecutive GPUs per job, wavelengths reused on disjoint arcs ({crossing})")


def _arc_flows(placed, directions: int) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) of a placed job's ring as a line prices it: each rank to the next along its arc, and the return
    from the last to the first — back along the arc on the other direction's fibers (one hop per segment, the load
    of one return flow), or on a one-direction ring forward round the rest of the ring."""
    pos = np.asarray(placed.units[:placed.gpus], dtype=np.int64)
    if pos.size < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if directions == 2:
        return np.concatenate([pos[:-1], pos[1:]]), np.concatenate([pos[1:], pos[:-1]])
    return pos, np.roll(pos, -1)


def _ring_min_bps(est: FabricEstimate, jobs: list) -> list[float]:
    """Each job's slowest ring flow when the wavelengths are allocated to the rings of `jobs` together (SiP-ML's
    max-min allocation on shortest arcs, `allocation.ring_allocation_fast`): inf for a job of one GPU."""
    from fabric import allocation
    from fabric.flows import Flows

    parts = [_arc_flows(p, est.details.directions) for p in jobs]
    src = np.concatenate([a for a, _ in parts])
    if not src.size:
        return [math.inf] * len(jobs)
    det = est.details
    flows = Flows(gpus=est.gpus, src=src, dst=np.concatenate([b for _, b in parts]), demand_bps=np.ones(src.size))
    served = allocation.ring_allocation_fast(flows, directions=det.directions, fibers=det.fibers_per_direction,
                                             wavelengths_per_fiber=det.wavelengths_per_fiber,
                                             wavelength_rate_bps=wavelength_bps(det), bound_iterations=0).bandwidth_bps
    out, start = [], 0
    for a, _ in parts:
        out.append(float(served[start:start + a.size].min()) if a.size else math.inf)
        start += a.size
    return out


def _placed_view(est: FabricEstimate, placed, j: int, together: bool) -> FabricEstimate:
    """Job j on its arc (a line of the ring: the estimate of the design with the job's GPUs already prices it so).
    Together, the wavelengths are allocated to every job's ring at once, all demanding alike (their collectives
    aligned: an upper bound on the slowdown): on a one-direction ring every job's return crosses the other jobs'
    arcs, their segments split, and the job's capacity scales by its slowest flow together over alone; with two
    directions each job's traffic stays on its own arc and nothing is shared."""
    if not together or len(placed) < 2:
        return est
    alone = _ring_min_bps(est, [placed[j]])[0]
    shared = _ring_min_bps(est, placed)[j]
    if not math.isfinite(alone) or shared >= alone:
        return est
    factor = shared / alone
    details = dataclasses.replace(est.details, segment_capacity_bps=est.details.segment_capacity_bps * factor)
    return dataclasses.replace(est, per_gpu_bandwidth_bps=est.per_gpu_bandwidth_bps * factor, details=details)


def _failure_domains(est: FabricEstimate) -> dict:
    """A part of one fiber — an amplifier on it, the comb source lighting its lines, the patch cable to the next
    GPU — cuts that fiber's ring at one node: the ring's other fibers carry the job, which rides through with one
    fiber fewer on that segment until repair (not modelled), as SiP-OCS rides through one port [inferred:
    reliability.md Y16's "one OCS" row read for one fiber of the ring; with a single fiber the job stops]. A GPU's
    own parts (the GPU, its host share, its optical I/O chiplet) stop the job: a ring node has no spare (no optical
    bypass: `no_hot_spares`)."""
    from fabric.reliability import RIDES, Domain

    fibers = est.details.fibers_per_direction * est.details.directions  # an array over a sweep's grid
    if np.ndim(fibers):
        one = Domain(np.where(fibers >= 2, 0.0, 1.0), "restart", None, "one of the node's fibers: the others carry "
                     f"the ring, {RIDES} (a ring of one fiber stops)")
    elif fibers < 2:
        return {}
    else:
        one = Domain(0.0, "restart", None, f"one of the node's {fibers} fibers: the others carry the ring, {RIDES}")
    ring = est.design.topology
    return {ring.amplifier: one, ring.clamp: one, "laser.comb_line": one, "cable.fiber_patch": one}


SIP_RING = FabricKind(name="sip-ring", section="sip_ring", section_type=SipRingSection, static=True, optical=True,
                      evaluator=_evaluate, sharer=_shares, pricer=_price, seconds_of=_seconds, server=_serve,
                      link_of=_ring_link, variants=allocations, grid_floor=_grid_floor, floor_estimate=ring_estimate,
                      formulas={"per_gpu_bandwidth_gbps": _bandwidth_formula, "useful_time_fraction": _useful_formula,
                                "degree": _degree_formula, "bisection_gbps": _bisection_formula,
                                "optical_reach": _reach_formula},
                      figures=_figures, variant_text=_allocation_text, failure_domains=_failure_domains,
                      slots=_slots, placed_view=_placed_view,
                      no_hot_spares="each GPU is a node of the fiber ring: a spare cannot take a failed GPU's place "
                      "without an optical bypass of the node, which the design does not have (reliability.md Y16)")
