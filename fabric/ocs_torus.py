"""OCS torus: chips in electrical cubes, the cubes' face links wired by optical circuit switches into the 3-D torus a
job runs on (Google's TPU v4 / v5p / Ironwood pods; fabrics-2026.md K21–K23).

A cube of a×b×c chips is wired inside by copper; each chip has six links (±x, ±y, ±z) at one rate. A link that
leaves the cube through a face goes through optics to an optical circuit switch: one OCS per dimension and face
position, joining that position's + and − faces of every cube (K21a), so a pod has bc + ca + ab switches, each
using 2 link-ends per cube (one per side with circulators, which carry both directions on one fibre and one port,
K21b). TPU v4: 4×4×4 cubes, 64 of them, 48 OCS of 136 ports with 128 used, 96 optical link-ends per cube, 6,144 in
all, 1.5 per chip.

A job gets a **slice**: whole cubes the OCSes wire into an X×Y×Z torus (each side a whole number of cube edges,
K21c), its wrap-around links closed through the switches. The design's [link] is the optics of one optical
link-end (one circuit per direction through one OCS pass, plus two circulator passes where fitted); its capacity is
the rate of every chip-to-chip link, copper ones included [assumed: ICI runs one rate over copper and optics].

Collectives. Job ranks fill the slice x fastest, then y, then z. A group of p ranks at stride s is a sub-grid of
g_d members a step of t_d chips apart in each dimension d; along a dimension it covers whole (g_d·t_d equal to the
side) it is a closed ring with both directions, 2r/t_d per chip (the t_d interleaved copies share every link),
otherwise a line, r/t_d. All-reduce, reduce-scatter and all-gather run dimension-ordered: the buffer split in as
many parts as the group has dimensions, part i taking the dimensions in rotated order, so in every phase each
dimension carries one part (each phase lasts its slowest part; a dimension of g members costs (g − 1) steps and
(g − 1)/g of its part's bytes) [inferred; the bucket algorithm of torus all-reduce]. All-to-all is bound by the
cut across each dimension: (P/2)² pairs' bytes over the links the cut crosses. Point-to-point on the first
dimension's link path. A group that is not a sub-grid runs one ring in rank order at r/s (conservative).
Collectives that run at once share a dimension's links by their bytes.

Circuits ([ocs_torus] circuits, `fabric.circuits`): 'fixed' wires the slice once per job — the shape the design
names, or with slice = 'auto' the fastest for the job of the shapes its cubes can form (sides within 4×: the job's
framework lays its groups on the slice it asks for); 'phased' re-wires the slice's cubes before each collective into
the shape that runs that collective fastest, paying the switch's reconfiguration time per call, priced as if the
job's ranks were laid out for each call's shape (the chips inside a cube do not move, so this bounds what re-wiring
buys from above) [inferred]; 'auto' runs each job the faster way.

References: fabrics-2026.md K21–K23 (TPU v4, v5p, Ironwood), K25 (Palomar), K30 (what reconfiguration costs),
fabric-photonics-3.md F18 (circulator passes).
"""

from __future__ import annotations

from typing import ClassVar

import dataclasses
import math
import re
from types import SimpleNamespace

import numpy as np

from core.errors import InputError
from core.fields import MIN_EFFICIENCY, Section, Spec, non_negative, param
from core.formulas import Formula, Terms
from core.records import record
from fabric import collectives as col
from fabric.bom import BomLine
from fabric.circuits import Schedule, with_wait
from fabric.cluster_design import MAX_DB, MAX_LATENCY_S, NCCL, ClusterDesign
from fabric.estimate import FabricEstimate
from fabric.kind import BITS_PER_BYTE, CollectiveTime, FabricKind, bytes_sent_per_rank, divides
from fabric.optical_io import fiber_delay_s, optical_io_bom
from photonics import link
from photonics.link import LinkEstimate, Violation
from photonics.fieldspecs import declare
from photonics.common_stages import sections

TPU = "fabrics-2026.md K21 (TPU v4: 4×4×4 cubes, 48 Palomar OCS of 136 ports)"
SHAPE = re.compile(r"^(\d{1,5})[xX×](\d{1,5})[xX×](\d{1,5})$")
LINKS_PER_CHIP = 6  # ±x, ±y, ±z


def parse_shape(text: str, what: str = "") -> tuple[int, int, int]:
    """'AxBxC' (x, X or ×) as three whole numbers ≥ 1; InputError naming `what` (where given) otherwise."""
    m = SHAPE.match(text)
    if not m or min(int(v) for v in m.groups()) < 1:
        said = f"{what} = {text!r}: " if what else ""  # a field's error names the field and the value itself
        raise InputError(f"{said}expected three whole numbers ≥ 1 as 'AxBxC', e.g. '4x4x4'")
    return tuple(int(v) for v in m.groups())


def _shape_text(shape, by: str = "×") -> str:
    return by.join(str(v) for v in shape)


class ShapeSpec(Spec):
    """Three whole numbers 'AxBxC' (chips along x, y and z), or one of the choices."""

    __slots__ = ()

    def range_text(self) -> str:
        return "'AxBxC', three whole numbers ≥ 1" + "".join(f" or '{c}'" for c in self.choices)

    def parse(self, value):
        if isinstance(value, str) and value in self.choices:
            return value
        if not isinstance(value, str):
            raise InputError(f"got {value!r}, expected 'AxBxC', e.g. '4x4x4'")
        return _shape_text(parse_shape(value), "x")


@record(kw_only=True)
class OcsTorusSection(Section):
    """The pod is [fabric] gpus chips in cubes; [link] is one optical link-end's optics."""

    section_name: ClassVar[str] = "ocs_torus"

    cube: str = declare(ShapeSpec, "4x4x4", "prose", "chips per electrical cube along x, y and z ('AxBxC')", TPU,
                        sweepable=False)
    slice: str = declare(ShapeSpec, "auto", "prose", "the job's torus in chips, 'XxYxZ', each side whole cubes "
                         "('auto': the most nearly cubic torus of whole cubes that holds the job)", "fabrics-2026.md "
                         "K21c, K22 (v5p's largest slice 16x16x24)", choices=("auto",), sweepable=False)
    switch: str = param("ocs.palomar_136", "text", "catalog entry of the OCS", "Google Palomar (Apollo), 136 × 136 "
                        "(K21, K25)")
    radix: int = param(136, "1", "ports per side of one OCS", "Palomar 136 × 136 (K25) [restated]", lo=2,
                       integer=True, hi=4096)
    fibers: str = param("duplex", "choice", "how a link-end reaches its switch: 'duplex' (a fibre and a port each "
                        "way) or 'circulators' (both directions on one fibre and one port, two circulator passes "
                        "per circuit)", "fabrics-2026.md K21b (Apollo uses circulators; TPU v4's choice is not "
                        "published)", choices=("duplex", "circulators"))
    circulator_loss: float = non_negative("1 dB", "dB", "insertion loss of one circulator pass",
                                          "[assumed] the upper end of 'typically less than 1 dB' for a three-port "
                                          "fibre circulator (vendor overviews)", hi=MAX_DB)
    wrap: str = param("plain", "choice", "the slice's wrap-around links: 'plain', or 'twisted' where the shape allows "
                      "(k×k×2k or k×2k×2k, sides multiples of the cube's): the short sides' wrap-around links shifted "
                      "by k along a long side, which doubles the cut across it", "Google Cloud TPU v4 documentation (twisted tori "
                      "for slices 2A = B = C or 2A = 2B = C) [restated]; the doubled cut [inferred]",
                      choices=("plain", "twisted"))
    copper: str = param("cable.ici_copper", "text", "catalog entry of one chip-to-chip copper link inside a cube",
                        "[assumed] (fabrics-2026.md K23: copper inside the cube)")
    circuits: str = param("fixed", "choice", "how the OCS circuits follow a job (fabric.circuits): 'fixed' (the "
                          "slice wired once per job), 'phased' (re-wired before each collective into the shape "
                          "that runs it fastest, one reconfiguration per call), 'auto' (the faster of the two)",
                          "TPU slices are fixed per job (K21); [inferred] phased (K31)",
                          choices=("fixed", "phased", "auto"))
    bring_up: float = non_negative("0 s", "s", "link bring-up and control after the switch moves (CDR lock, link "
                                   "training), added to the catalog's switching time per reconfiguration",
                                   "not published (fabrics-2026.md K30) [assumed] 0: set it", hi=1e3)
    setup_time: float = non_negative("10 s", "s", "time to set up a slice (scheduler, switch, bring-up), once per "
                                     "job", "TPU v4 re-wires a torus in about 10 s (K21) [restated]", hi=1e5)
    link_efficiency: float = param(0.94, "1", "share of a link's rate a collective reaches (its packets' headers, "
                                   "flow control and coding)", "[assumed] InfiniBand's: 46–48 GB/s of an NDR NIC's 50 "
                                   "(fabric-photonics-3.md, as [electrical] nic_efficiency); ICI's own is not "
                                   "published", lo=MIN_EFFICIENCY, hi=1.0)
    step_latency: float = non_negative("3.4 us", "s", "cost of one collective step over a chip-to-chip link",
                                       f"{NCCL} (~v2.7): Ring/Simple per-step latency over NVLink 3.4 µs "
                                       "[verbatim]; [assumed] an ICI-class link is driven alike", hi=MAX_LATENCY_S)
    switching_time: float = non_negative("1.2 ms", "s", "the OCS's device reconfiguration time (each ocs. entry of "
                                         "the catalog states its own: switching_time)", "Palomar median 1.2 ms "
                                         "(K25) [restated]", hi=1e3)


@record(kw_only=True)
class TorusDetails:
    """An optical-circuit torus's numbers: the cube, the slice's sides, the switches and the ports they use."""
    cube: tuple[int, int, int]
    cubes: int  # in the pod
    slice_x: int  # the slice's sides in chips, the fixed wiring's (three numbers, so a view joining the ways a job
    slice_y: int  # may run holds one per way: fabric.estimate.joined_points)
    slice_z: int
    slice_cubes: int
    ocs_count: int
    link_ends_per_ocs: int
    ports_used_per_side: int
    radix: int
    optical_link_ends: int  # in the pod
    copper_links: int  # in the pod
    link_bps: float  # one chip-to-chip link, per direction
    margin_db: float
    switch_s: float  # one reconfiguration: switching time + bring-up
    setup_s: float
    fiber_delay_s: float
    twisted: bool = False  # the slice's long sides wrap around twisted
    circuits: str = "fixed"  # how this estimate's circuits follow the job: fixed or phased
    allocation: str | None = None  # the circuits a job picked under circuits = 'auto'
    call_wait_s: float = 0.0

    @property
    def slice_shape(self) -> tuple:
        return (self.slice_x, self.slice_y, self.slice_z)


def cube_counts(cube: tuple[int, int, int], cubes: int, fibers: int = 1) -> dict[str, int]:
    """The pod's wiring (K21a): one OCS per dimension, face position and fibre of a link-end (bc + ca + ab for one
    fibre: each fibre needs a port of its own, so a link-end of f fibres each way takes f switch planes), 2
    link-ends per cube on each, one optical link-end per face chip and direction (2(ab + bc + ca) per cube) and the
    copper links inside the cubes ((a − 1)bc + a(b − 1)c + ab(c − 1) per cube)."""
    a, b, c = cube
    faces = b * c + c * a + a * b
    return {"ocs": faces * fibers, "link_ends_per_ocs": 2 * cubes, "optical_link_ends": 2 * faces * cubes,
            "copper_links": ((a - 1) * b * c + a * (b - 1) * c + a * b * (c - 1)) * cubes}


def slice_shapes(cube: tuple[int, int, int], slice_cubes: int) -> list[tuple[int, int, int]]:
    """Every X×Y×Z torus of `slice_cubes` whole cubes (sides in chips), most nearly cubic first."""
    out = []
    for cx in range(1, slice_cubes + 1):
        if slice_cubes % cx:
            continue
        for cy in range(1, slice_cubes // cx + 1):
            if (slice_cubes // cx) % cy:
                continue
            cz = slice_cubes // cx // cy
            out.append((cx * cube[0], cy * cube[1], cz * cube[2]))
    return sorted(out, key=lambda s: (max(s) / min(s), s[::-1]))


def twistable(shape) -> bool:
    """Whether a slice may wrap around twisted: k×k×2k or k×2k×2k in some order (TPU v4's rule)."""
    a, b, c = sorted(shape)
    return (a == b and c == 2 * a) or (b == c and b == 2 * a)


def bisection_bps(shape, rate: float, twisted: bool) -> float:
    """Per direction, across the slice's worst cut: two planes of P/L links across its longest side L (the wrap
    closes each ring), r each; twisted, the short sides' wrap-around links, shifted by k along the long side,
    cross that cut too, so the worst cut is across a short side k: 2P/k [inferred] (Cámara et al., twisted tori)."""
    side = min(shape) if twisted else max(shape)
    return 2 * math.prod(shape) / side * rate


def job_slice(design: ClusterDesign, cube: tuple[int, int, int]) -> tuple[int, int, int]:
    """The job's slice: the design's, checked (whole cubes, the job's chips), or the most nearly cubic torus of whole
    cubes holding the job."""
    tor, chips = design.topology, math.prod(cube)
    job = design.job_gpus
    if tor.slice != "auto":
        shape = parse_shape(tor.slice, "[ocs_torus] slice")
        bad = [f"{axis} = {side} is not a whole number of {edge}-chip cube edges"
               for axis, side, edge in zip("xyz", shape, cube) if side % edge]
        if bad:
            raise InputError(f"[ocs_torus] slice {_shape_text(shape)} cannot be formed of whole {_shape_text(cube)} "
                             f"cubes: {'; '.join(bad)}")
        pod_cubes = design.fabric.gpus // chips
        if math.prod(shape) // chips > pod_cubes:
            raise InputError(f"[ocs_torus] slice {_shape_text(shape)} needs {math.prod(shape) // chips} cubes; the "
                             f"pod has {pod_cubes} ([fabric] gpus = {design.fabric.gpus})")
        if design.topology.wrap == "twisted" and not twistable(shape):
            raise InputError(f"[ocs_torus] wrap = 'twisted': a slice {_shape_text(shape)} cannot be twisted (only "
                             "k×k×2k and k×2k×2k can)")
        if math.prod(shape) != job:
            raise InputError(f"[ocs_torus] slice {_shape_text(shape)} holds {math.prod(shape)} chips but the job runs "
                             f"on {job} ([fabric] job_gpus, 0 for the whole pod): set job_gpus = {math.prod(shape)}")
        return shape
    if job % chips:
        raise InputError(f"a slice is whole cubes: the job's {job} chips ([fabric] job_gpus, or speedup --gpus 1) are "
                         f"not a multiple of the {chips} chips of a {_shape_text(cube)} cube; a job inside one cube "
                         "uses no optical circuit")
    return slice_shapes(cube, job // chips)[0]


def torus_link(design: ClusterDesign):
    """One circuit's optical link: the design's [link] through one OCS pass and its connectors, and two circulator
    passes where fitted (F18)."""
    d, tor = design.link, design.topology
    loss = dataclasses.replace(d.loss, switch_ports=d.loss.switch_ports + 1)
    if tor.fibers == "circulators":
        extra = f"circulators (2 passes): {2 * tor.circulator_loss:g} dB"
        loss = dataclasses.replace(loss, extra_losses="; ".join(v for v in (loss.extra_losses, extra) if v))
    return dataclasses.replace(d, loss=loss)


def switch_s(tor: OcsTorusSection) -> float:
    """One reconfiguration: the switch's own time and the links' bring-up after it (K30)."""
    return tor.switching_time + tor.bring_up


def _evaluate(design: ClusterDesign, est: LinkEstimate) -> FabricEstimate:
    fab, tor = design.fabric, design.topology
    cube = parse_shape(tor.cube, "[ocs_torus] cube")
    chips = math.prod(cube)
    if fab.gpus % chips:
        raise InputError(f"[fabric] gpus = {fab.gpus} is not a whole number of {_shape_text(cube)} cubes "
                         f"({chips} chips each)")
    cubes = fab.gpus // chips
    shape = job_slice(design, cube)
    counts = cube_counts(cube, cubes, design.link.link.fibers_per_direction)
    ends_per_side = counts["link_ends_per_ocs"] // (2 if tor.fibers == "circulators" else 1)
    inputs, s = link.fabric_inputs(est), sections(est.design)
    rate = inputs.capacity_bps
    slice_cubes = math.prod(shape) // chips
    violations = [*est.violations]
    if ends_per_side > tor.radix:
        violations.append(Violation("ocs_radix", f"each OCS joins a face position of all {cubes} cubes: "
                                                 f"{counts['link_ends_per_ocs']} link-ends, {ends_per_side} ports per "
                                                 f"side; {tor.switch} has {tor.radix} (use circulators, a larger "
                                                 "switch, or fewer cubes per pod)"))
    lk = s["link"]
    fibers_per_end = lk.fibers_per_direction * (1 if tor.fibers == "circulators" else 2)
    ends = counts["optical_link_ends"]
    optics = [dataclasses.replace(line, count=line.count * ends, scope="per_cluster")
              for line in optical_io_bom(SimpleNamespace(**s))]
    bom = (*optics,
           BomLine(key=tor.switch, count=counts["ocs"] * tor.radix, scope="per_cluster", network=True),
           BomLine(key="fiber.smf_per_m", count=ends * fibers_per_end * s["loss"].fiber_length / 2,
                   scope="per_cluster", network=True),
           BomLine(key="cable.fiber_patch", count=ends * fibers_per_end, scope="per_cluster", network=True),
           BomLine(key=tor.copper, count=counts["copper_links"], scope="per_cluster", network=True))
    if tor.fibers == "circulators":
        bom = (*bom, BomLine(key="passive.circulator", count=ends * lk.fibers_per_direction, scope="per_cluster",
                             network=True))
    policy = "fixed" if tor.circuits == "auto" else tor.circuits
    schedule = Schedule(policy, switch_s(tor))
    twisted = tor.wrap == "twisted" and twistable(shape)
    details = TorusDetails(cube=cube, cubes=cubes, slice_x=shape[0], slice_y=shape[1], slice_z=shape[2], twisted=twisted,
                           slice_cubes=slice_cubes, ocs_count=counts["ocs"],
                           link_ends_per_ocs=counts["link_ends_per_ocs"], ports_used_per_side=ends_per_side,
                           radix=tor.radix, optical_link_ends=ends, copper_links=counts["copper_links"],
                           link_bps=rate, margin_db=inputs.margin_db, switch_s=schedule.switch_s,
                           setup_s=tor.setup_time, fiber_delay_s=fiber_delay_s(s["loss"].fiber_length),
                           circuits=policy, call_wait_s=schedule.call_wait_s)
    fibers = design.link.link.fibers_per_direction
    per_dimension = " + ".join(str(v * fibers) for v in (cube[1] * cube[2], cube[2] * cube[0], cube[0] * cube[1]))
    planes = f", {fibers} fibres per link-end each way, a switch plane each" if fibers > 1 else ""
    notes = [f"{cubes} cube{'s' if cubes != 1 else ''} of {_shape_text(cube)} chips; {counts['ocs']} OCS "
             f"({per_dimension} per dimension{planes}), each joining {counts['link_ends_per_ocs']} link-ends: "
             f"{ends_per_side} of its {tor.radix} ports per side used ({tor.fibers}"
             f"{': one port per link-end, on either side' if tor.fibers == 'circulators' else ''})",
             f"{ends} optical link-ends ({ends / fab.gpus:g} per chip) and {counts['copper_links']} copper links "
             f"inside the cubes, every link at {rate / 1e9:.4g} Gbit/s per direction",
             f"the job's slice: a {_shape_text(shape)} torus of {slice_cubes} cube{'s' if slice_cubes != 1 else ''}, "
             f"set up in {tor.setup_time:g} s "
             "once per job"]
    if tor.circuits == "auto" or tor.slice == "auto":
        notes.append("a job runs on the fastest of the slice shapes (sides within 4× of each other) and circuit "
                     "schedules allowed: the collective times here are the most nearly cubic slice's, wired once")
    built = FabricEstimate(
        design=design, kind="ocs-torus", gpus=fab.gpus, job_gpus=design.job_gpus,
        per_gpu_bandwidth_bps=LINKS_PER_CHIP * rate, useful_fraction=1.0, degree=LINKS_PER_CHIP,
        bisection_bps=bisection_bps(shape, rate, twisted), pod_gpus=math.prod(shape), details=details, bom=bom,
        static=False)
    return dataclasses.replace(built, link=est, violations=tuple(violations), notes=tuple(notes))


SLICE_ASPECT = 4.0  # [assumed] the slice shapes a job is offered keep their sides within 4× of each other (v5p's
# largest, 16×16×24, is within 1.5×): a bound on the search, which may leave out a longer shape that some job runs
# faster on (set [ocs_torus] slice to try one)


def slice_options(cube: tuple[int, int, int], slice_cubes: int) -> list[tuple[int, int, int]]:
    """The tori of whole cubes a job may be given: every shape within `SLICE_ASPECT`, most nearly cubic first (the
    most nearly cubic alone when none is)."""
    shapes = slice_shapes(cube, slice_cubes)
    return [s for s in shapes if max(s) / min(s) <= SLICE_ASPECT] or shapes[:1]


def circuit_variants(est: FabricEstimate) -> tuple[FabricEstimate, ...]:
    """The ways a job may run: with [ocs_torus] slice = 'auto', each slice shape it may be given (`slice_options`:
    the job's framework lays its parallel groups on the shape that runs it fastest), wired once; with circuits =
    'auto', re-wired per call as well. The estimate alone when there is one way."""
    tor, det = est.design.topology, est.details
    shapes = slice_options(det.cube, det.slice_cubes) if tor.slice == "auto" else [det.slice_shape]
    policies = ("fixed", "phased") if tor.circuits == "auto" else (det.circuits,)
    if len(shapes) == 1 and len(policies) == 1:
        return (est,)
    out = []
    for policy in policies:
        schedule = Schedule(policy, det.switch_s)
        for shape in shapes if policy == "fixed" else [det.slice_shape]:  # phased: every call its own shape
            label = f"fixed {_shape_text(shape, 'x')}" if policy == "fixed" else "phased"
            twisted = tor.wrap == "twisted" and twistable(shape)
            out.append(dataclasses.replace(est, bisection_bps=bisection_bps(shape, det.link_bps, twisted),
                                           details=dataclasses.replace(det, slice_x=shape[0], slice_y=shape[1],
                                                                       slice_z=shape[2], twisted=twisted,
                                                                       circuits=policy,
                                                                       allocation=label,
                                                                       call_wait_s=schedule.call_wait_s)))
    return tuple(out)


# --- collectives ----------------------------------------------------------------------------------------------
@record
class Grid:
    """A group's place in the slice, per dimension (arrays of shape (3, …)): members g, step t in chips, and whether
    it closes the dimension's ring (g·t = the side); `grid` False where the group is not a sub-grid."""

    g: np.ndarray
    t: np.ndarray
    closed: np.ndarray
    grid: np.ndarray


def group_grid(p, s, shape) -> Grid:
    """Where a group of p ranks at stride s sits on an X×Y×Z slice filled x fastest: dimension by dimension, a
    stride of whole sides skips the dimension; a smaller one takes side/s members (or the group's remaining
    members, which must then divide them) at step s. Elementwise over arrays of (p, s) and of the sides."""
    p, s, *sides = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (p, s, *shape)))
    left_p, left_s, grid = p.copy(), s.copy(), np.ones(p.shape, dtype=bool)
    g, t, closed = [], [], []
    for side in sides:
        active = left_p > 1
        skip = active & (left_s >= side)
        grid &= ~skip | divides(side, left_s)
        span = np.where(skip | ~active, 1.0, side / left_s)
        grid &= ~(active & ~skip) | divides(left_s, side)
        whole = active & ~skip & (left_p >= span)
        grid &= ~whole | divides(span, left_p)
        part = active & ~skip & ~whole
        grid &= ~part | divides(left_p, span)
        members = np.where(whole, span, np.where(part, left_p, 1.0))
        g.append(members)
        t.append(np.where(active & ~skip, left_s, 1.0))
        closed.append(whole)
        left_p = np.where(members > 1, left_p / members, left_p)
        left_s = np.where(skip, left_s / side, np.where(active, 1.0, left_s))
    grid &= left_p <= 1
    return Grid(np.stack(g), np.stack(t), np.stack(closed), grid)


def _dimension_bps(grid: Grid, rate):
    """Each dimension's bandwidth per member (3, …): 2r/t on a closed ring, r/t on a line."""
    return np.where(grid.closed, 2.0, 1.0) * rate / grid.t


def dimension_ordered_s(n, g, bps, alpha):
    """Reduce-scatter (or all-gather) of n bytes per rank over dimensions of g members at bps each (arrays (3, …)):
    the buffer in m parts for the group's m dimensions (those with g > 1), part i taking them in the order rotated
    by i; each phase lasts its slowest part, a dimension of g members (g − 1) steps of α and (g − 1)/g of the
    part's bytes, pipelined (`fabric.collectives.pipelined_s`)."""
    g = np.asarray(g, dtype=float)
    order = np.argsort(g <= 1, axis=0, kind="stable")  # the group's dimensions first, in x, y, z order
    g = np.take_along_axis(g, order, axis=0)
    bps = np.take_along_axis(np.broadcast_to(bps, g.shape), order, axis=0)
    m = (g > 1).sum(axis=0)
    out = np.zeros(np.broadcast(np.asarray(n, dtype=float), g[0]).shape)
    for parts in (1, 2, 3):
        total = 0.0
        for phase in range(parts):
            slowest = 0.0
            for i in range(parts):
                dims = [(i + k) % parts for k in range(phase + 1)]
                done = np.prod([g[d] for d in dims[:-1]], axis=0) if phase else 1.0
                d = dims[-1]
                bits = n / parts / done * BITS_PER_BYTE
                transfer = (g[d] - 1) / g[d] * bits / np.where(bps[d] > 0, bps[d], 1.0)
                step = np.where(g[d] > 1, col.pipelined_s((g[d] - 1) * alpha, transfer, g[d] - 1, alpha), 0.0)
                slowest = np.maximum(slowest, step)
            total = total + slowest
        out = np.where(m == parts, total, out)
    return out


def all_to_all_s(n, p, grid: Grid, rate, alpha, twisted=False):
    """All-to-all of n bytes per rank (n/(p − 1) to each peer) bound by the busiest cut: across dimension d, (p/2)²
    pairs' bytes each way over the links the cut crosses (2p/g_d on a closed ring, p/g_d on a line, each r/t_d
    shared by the t_d interleaved copies; twice that across a long side of a twisted slice, for a group that is the
    whole slice); one α per hop of the diameter."""
    per_pair = n / np.maximum(p - 1, 1) * BITS_PER_BYTE
    crossing = (p / 2) ** 2 * per_pair
    whole = grid.closed.all(axis=0) & (grid.t == 1).all(axis=0)
    long = grid.g > np.min(grid.g, axis=0)
    doubled = np.where(np.asarray(twisted, dtype=bool) & whole & long, 2.0, 1.0)
    links = doubled * np.where(grid.closed, 2.0, 1.0) * p / grid.g * rate / grid.t
    cut = np.where(grid.g > 1, crossing / np.where(links > 0, links, 1.0), 0.0)
    hops = np.where(grid.closed, np.floor(grid.g / 2), grid.g - 1).sum(axis=0)
    return np.where(p > 1, cut.max(axis=0) + hops * alpha, 0.0)


def shape_seconds(op: str, n, p, s, shape, rate, alpha, twisted=False):
    """(seconds, bandwidth per rank, grid) of one call on a slice of `shape` at `rate` per link and direction
    (arrays broadcast; the grid's dimension axis comes first)."""
    n, p, s, rate, *shape = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (n, p, s, rate, *shape)))
    grid = group_grid(p, s, shape)
    if np.any(twisted):  # a short side's wrap-around lands k along the long side: its ring closes only for a group
        sides = np.stack(shape)  # that spans the long side(s) too
        long = sides == sides.max(axis=0)
        spans_long = np.where(long, grid.closed, True).all(axis=0)
        closed = np.where(np.asarray(twisted, dtype=bool), grid.closed & (long | spans_long), grid.closed)
        grid = dataclasses.replace(grid, closed=closed)
    bps = _dimension_bps(grid, rate)
    k = 2.0 if op == "all_reduce" else 1.0
    if op in ("all_reduce", "reduce_scatter", "all_gather"):
        seconds = k * dimension_ordered_s(n, grid.g, bps, alpha)
        fallback = col.ring_half_s(n, p, rate / s, alpha, k)
        rank_bps = np.where(grid.g > 1, bps, 0.0).sum(axis=0)
    elif op == "all_to_all":
        seconds = all_to_all_s(n, p, grid, rate, alpha, twisted)
        fallback = np.where(p > 1, (p - 1) * alpha + n * BITS_PER_BYTE / (rate / s) * p / 4, 0.0)
        rank_bps = np.where(grid.g > 1, bps, 0.0).sum(axis=0)
    else:  # point-to-point: the path to the next member along the first dimension the group spans
        first = np.argmax(grid.g > 1, axis=0)
        step = np.take_along_axis(grid.t, first[None], axis=0)[0]
        rank_bps = rate / step
        seconds = np.where(p > 1, alpha * step + n * BITS_PER_BYTE / rank_bps, 0.0)
        fallback = np.where(p > 1, alpha * s + n * BITS_PER_BYTE / (rate / s), 0.0)
    return np.where(grid.grid, seconds, fallback), np.where(grid.grid, rank_bps, rate / s), grid


def _shares(est: FabricEstimate, collectives, arrays):
    """Collectives that run at once share each dimension's links by their bytes: each gets the least share of the
    dimensions its groups use."""
    shape = est.details.slice_shape
    volume, uses = [], []
    for c, (n, p, s) in zip(collectives, arrays):
        volume.append(bytes_sent_per_rank(c.op, n, p) * np.asarray(c.calls, dtype=float))
        uses.append(group_grid(p, s, shape).g > 1)
    out = []
    for v, u in zip(volume, uses):
        share = 1.0
        for d in range(3):
            total = sum(np.where(other[d], w, 0.0) for other, w in zip(uses, volume))
            share = np.minimum(share, np.where(u[d] & (v > 0), v / np.where(total > 0, total, 1.0), 1.0))
        out.append(share)
    return out


def _price(est: FabricEstimate, c, n, p, s, share) -> CollectiveTime:
    det = est.details
    rate = det.link_bps * est.design.topology.link_efficiency * est.useful_fraction * share
    alpha = est.design.topology.step_latency + det.fiber_delay_s
    safe = np.where(rate > 0, rate, 1.0)
    seconds, rank_bps, _ = shape_seconds(c.op, n, p, s, det.slice_shape, safe, alpha, det.twisted)
    schedule = "dimension-ordered on the slice" if c.op != "p2p" else "the path to the next member"
    phased = np.asarray(det.circuits == "phased")  # an array over the points of a joined view
    if np.any(phased):  # every shape the slice's cubes can form, the fastest for this call
        best, best_bps = seconds, rank_bps
        for shape in slice_shapes(det.cube, det.slice_cubes):
            twist = est.design.topology.wrap == "twisted" and twistable(shape)
            other, other_bps, _ = shape_seconds(c.op, n, p, s, shape, safe, alpha, twist)
            better = other < best
            best, best_bps = np.where(better, other, best), np.where(better, other_bps, best_bps)
        seconds, rank_bps = np.where(phased, best, seconds), np.where(phased, best_bps, rank_bps)
        schedule = np.where(phased, "re-wired for the call, " + schedule, schedule)
    seconds = np.where(rate > 0, seconds, np.where(p > 1, np.inf, 0.0))
    return CollectiveTime(with_wait(seconds, det.call_wait_s, p), schedule, share, rank_bps)


# --- the numbers as people read them ----------------------------------------------------------------------------
def _bandwidth_formula(est: FabricEstimate):
    """B = 6·r: a chip's six links (±x, ±y, ±z), each at one optical link-end's capacity."""
    t = Terms()
    return Formula("B", t(r"n_{\mathrm{links}}", LINKS_PER_CHIP, "", "links per chip (±x, ±y, ±z)")
                   * t("r", est.details.link_bps, "bit/s", "one link's capacity ([link])"), t.terms)


def _bisection_formula(est: FabricEstimate):
    """B_bis = 2·(P/L)·r: the worst cut crosses two planes of P/L links (wrap-around), L the slice's longest side
    (its shortest when the long sides wrap around twisted, `bisection_bps`)."""
    t = Terms()
    d = est.details
    shape = d.slice_shape
    side = t("L", min(shape) if d.twisted else max(shape), "", "the slice's shortest side (twisted wrap-around)"
             if d.twisted else "the slice's longest side")
    return Formula(r"B_{\mathrm{bis}}", 2 * t("P", math.prod(shape), "", "chips in the slice") / side
                   * t("r", d.link_bps, "bit/s", "one link's capacity"), t.terms)


def _figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    d = est.details
    return {"cubes": (float(d.cubes), ""),
            "slice": (float(math.prod(d.slice_shape)), f"chips ({_shape_text(d.slice_shape)}, {d.slice_cubes} cubes"
                      f"{', twisted' if d.twisted else ''})"),
            "OCS count": (float(d.ocs_count), ""),
            "OCS ports used per side": (float(d.ports_used_per_side), f"of {d.radix}"),
            "optical link-ends": (float(d.optical_link_ends), ""),
            "optical link-ends per chip": (d.optical_link_ends / est.gpus, ""),
            "copper links in the cubes": (float(d.copper_links), ""),
            "per-link bandwidth": (d.link_bps / 1e9, "Gbit/s"),
            "margin through the switch": (d.margin_db, "dB"),
            "reconfiguration time": (d.switch_s * 1e3, "ms"),
            "slice set-up time": (d.setup_s, "s")}


def _failure_domains(est: FabricEstimate) -> dict:
    """A failed chip, host, copper link or optics in a cube (a link-end's chiplet and laser lines) takes its cube out:
    where the pod has cubes beyond the slice, the OCSes wire a spare cube in its place (the slice's set-up time)
    while one is free (each held until its failure is repaired: `fabric.reliability.spare_coverage`), else the job
    waits to be rescheduled; either way it restarts from its checkpoint. The passive path between a
    cube face and its switch (fibre, circulator) and the OCS port carry one link of one face position, which the
    torus routes around or runs degraded (reliability.md Y16: "chip, host or optics in a cube" against "one
    OCS")."""
    from fabric.reliability import RIDES, Domain

    tor, d, fab = est.design.topology, est.details, est.design.fabric
    spares = d.cubes - d.slice_cubes
    recovery = "spare" if spares > 0 else "restart"
    why = (f"its cube is out: one of the pod's {spares} spare cubes is wired in while one is free, else the job is "
           "rescheduled" if spares else "its cube is out and the pod has no spare cube: the job is rescheduled")
    cube = Domain(1.0, recovery, tor.setup_time, why, pool=spares)
    face = Domain(0.0, "restart", None, f"one link of one cube face: {RIDES}")
    return {**{k: cube for k in (fab.gpu, fab.server, tor.copper, "sip.optical_io_chiplet", "laser.comb_line")},
            **{k: face for k in (tor.switch, "cable.fiber_patch", "passive.circulator")}}


CIRCUITS = {"fixed": "the slice wired once for the job", "phased": "re-wired before each collective into the "
            "shape that runs it fastest, one reconfiguration per call"}


def _circuits_text(allocation: str) -> str:
    """How a job ran: 'fixed AxBxC' (the slice shape it was given) or 'phased'."""
    policy, _, shape = allocation.partition(" ")
    on = f" on a {shape.replace('x', '×')} slice" if shape else ""
    return (f"circuits {policy}{on} ({CIRCUITS[policy]}; the job takes the fastest of the slice shapes and circuit "
            "schedules its [ocs_torus] slice and circuits allow)")


def _slots(est: FabricEstimate):
    """Whole cubes, any of them: the OCSes wire whichever cubes a job gets into its own torus, so slices share no
    link and need no neighbouring cubes."""
    from fabric.placement import Slots

    chips = math.prod(est.details.cube)
    return Slots(gpus=est.gpus, unit_gpus=chips, unit="cube", rule=f"whole cubes of {chips} chips, any of them "
                 "(the OCSes wire each slice into its own torus: slices share no link)")


OCS_TORUS = FabricKind(name="ocs-torus", section="ocs_torus", section_type=OcsTorusSection, static=False,
                       optical=True, evaluator=_evaluate, sharer=_shares, pricer=_price,
                       link_of=torus_link, variants=circuit_variants,
                       formulas={"per_gpu_bandwidth_gbps": _bandwidth_formula, "bisection_gbps": _bisection_formula},
                       figures=_figures, variant_text=_circuits_text, failure_domains=_failure_domains,
                       no_hot_spares="a failed chip, host or link end takes its whole cube out: the spares are the "
                       "pod's cubes beyond the job's slice ([ocs_torus] cubes), wired in by the OCSes, not GPUs "
                       "(reliability.md Y16)", slots=_slots)
