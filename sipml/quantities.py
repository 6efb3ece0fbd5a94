"""Every number the calculator reports, declared once: its JSON key, unit and scale, the record it is read from,
its formula (the sympy form `explain` shows, with this design's numbers as its terms), its help text, and whether
`optimize` may target it. Every command's JSON, the sweep's columns (`key [unit]`), `explain`, `optimize` and the
README read this table; `LABELS` lists the JSON keys that are not numbers (names, verdicts, nested records).

A `Reading` is what a report has of one design point: its link estimate, fabric estimate, priced bill, and a
training result with its baseline. `QUANTITIES[key].value(reading)` is the number in the reported unit (None where
the point has no such number, e.g. a ring's reach on an electrical fabric). `formula(reading)` gives the
`core.formulas.Formula`: its right-hand side evaluated with its terms is the model's value in SI units (tests
check every one). A fabric quantity's formula is the fabric kind's own where it declares one
(`fabric.kind.FabricKind.formulas`, keyed by the quantity's key); otherwise it reads the estimate's figure.
"""

from __future__ import annotations

import math

import numpy as np
from typing import Callable

from core.formulas import Formula, Terms, sum_terms
from core.records import record
from sipml.figures_text import figure_text


@record(slots=False)
class Reading:
    """What is known of one design point (each part None when the report does not have it)."""

    link: object = None  # photonics.link_records.LinkEstimate
    fabric: object = None  # fabric.estimate.FabricEstimate
    cost: object = None  # fabric.cost.CostSummary
    result: object = None  # workloads.speedup.Result
    baseline: object = None  # the baseline's workloads.speedup.Result

    @classmethod
    def of(cls, point, result=None, baseline=None) -> Reading:
        """The reading of a `workloads.evaluation.Evaluation` (its stages computed as they are read)."""
        return _PointReading(point, result, baseline)


class _PointReading(Reading):
    def __init__(self, point, result, baseline):
        object.__setattr__(self, "_point", point)
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "baseline", baseline)

    @property
    def link(self):
        return self._point.link

    @property
    def fabric(self):
        return self._point.fabric

    @property
    def cost(self):
        return self._point.cost


def _no_bits(r) -> str:
    """Why a link has no energy per bit: its budget closes no wavelength, so it carries no bits."""
    if np.ndim(r.link.capacity_bps) == 0 and not r.link.capacity_bps > 0:
        return ("the link's budget closes no wavelength (capacity 0: no bits to share its power); `sipml check` "
                "says what binds")
    return ""


@record(slots=False)
class Quantity:
    """A reported quantity, declared once: its JSON key, unit and scale, the record it is read from, its help."""
    key: str  # the JSON key (and the sweep column `key [unit]`)
    unit: str  # of the reported number ('' for counts and ratios)
    scale: float  # reported = SI value × scale
    stage: str  # the record it is read from: link, fabric, cost, training
    read: Callable  # Reading → SI value (None where it does not apply)
    help: str
    formula: Callable | None = None  # Reading → Formula
    target: bool = True  # `optimize` may maximise, minimise or bound it
    undefined: Callable | None = None  # Reading → why the point has no such number ('' when it has one)

    def value(self, reading: Reading):
        """The reported number, None where the reading has no such number (no link on an electrical fabric; a
        price or bill of a design that cannot be built, which is not priced: NaN at such points of a grid)."""
        if getattr(reading, _RECORD[self.stage]) is None:
            return None
        si = self.read(reading)
        if si is not None and self.key in PRICED_KEYS:  # a grid's floor has no feasibility of its own: the sweep
            si = priced_only(si, getattr(reading.fabric, "feasible", True))  # masks its columns (`priced_only`)
        if si is not None and self.key in NETWORK_PRICED_KEYS and not network_costed(reading.fabric):
            return None
        return None if si is None else self.scaled(si)

    def why_undefined(self, reading: Reading) -> str:
        """Why the reading has no such number ('' where it has one or no reason is known)."""
        if self.key in PRICED_KEYS and np.ndim(reading.fabric.feasible) == 0 and not reading.fabric.feasible:
            return (f"the design cannot be built (violated: {', '.join(v.name for v in reading.fabric.violations)}),"
                    " and what cannot be built is not priced (`sipml check` says why)")
        if self.key in NETWORK_PRICED_KEYS and not network_costed(reading.fabric):
            return f"the {reading.fabric.kind} fabric is a reference switch: its network is not costed"
        return self.undefined(reading) if self.undefined is not None else ""

    def scaled(self, si):
        """An SI value (or array of them) in the reported unit: divided by 10^k for a scale 10^−k, as written."""
        if self.scale == 1.0:
            return si
        return si / round(1.0 / self.scale) if self.scale < 1.0 else si * self.scale

    @property
    def column(self) -> str:
        """The sweep's column: the JSON key with the unit."""
        return unit_column(self.key, self.unit)


# what an infeasible design does not get: a design that cannot be built is not priced (JSON null, '–' in tables,
# NaN in a sweep's columns); the `_range` keys and the breakdown are `sipml cost`'s JSON
PRICED_KEYS = ("network_cost_usd_per_gpu", "network_cost_usd_per_gpu_range", "network_power_w_per_gpu",
               "optics_power_w_per_gpu", "optics_power_w_per_gpu_range", "port_power_w_per_gpu",
               "port_power_w_per_gpu_range", "optics_cost_usd_per_gpu", "optics_cost_usd_per_gpu_range",
               "network_power_w_per_gpu_range", "cluster_cost_usd", "cluster_cost_usd_range", "cluster_power_w",
               "cluster_power_w_range", "facility_power_w", "network_cost_share", "scale_out_cost_share",
               "network_power_share", "gpu_cost_share", "breakdown")


# the network's share of those, by the names the JSON keys and a CostSummary's fields both begin with: what a
# reference switch (a kind not `costed`, the ideal fabric) has none of — its network is not costed, not free
NETWORK_PREFIXES = ("network_", "optics_", "port_", "scale_out_")
NETWORK_PRICED_KEYS = tuple(key for key in PRICED_KEYS if key.startswith(NETWORK_PREFIXES))


def network_costed(fabric) -> bool:
    """Whether the fabric's kind prices its network (a reference switch does not; a grid's floor is a costed kind's)."""
    from fabric.registry import get_kind

    kind = getattr(fabric, "kind", None)
    return kind is None or get_kind(kind).costed


def priced_only(value, feasible):
    """A price or bill figure where the design can be built (`feasible`, a bool or an array over a grid's points):
    None for one point that cannot, NaN at such points of a grid — what cannot be built is not priced, as `sipml
    cost` says."""
    if not isinstance(value, np.ndarray) and not isinstance(feasible, np.ndarray):  # one point's numbers
        return value if feasible else None
    return np.where(feasible, value, math.nan)


def unit_column(name: str, unit: str) -> str:
    """A table column named with its unit, `name [unit]` (the name alone for a count, a ratio or a text): the sweep's
    columns and the wide CSV rows of every command."""
    return f"{name} [{unit}]" if unit else name


# --- the link --------------------------------------------------------------------------------------------------
def _margin(r):
    est, t = r.link, Terms()
    rhs = sum_terms([t(r"P_{\mathrm{launch}}", est.launch_dbm, "dBm", "the worst wavelength's launch power"),
                -t(r"\Sigma IL", sum(i.value_db for i in est.ledger), "dB", "the ledger's losses"),
                -t("S", est.sensitivity_dbm, "dBm", "receiver sensitivity (average power)"),
                -t(r"\Sigma PP", est.budget.penalty_db, "dB", "penalties"),
                -t(r"M_{\mathrm{sys}}", est.design.link.system_margin, "dB", "reserved system margin")])
    return Formula(r"\mathrm{margin}", rhs, t.terms)


def _rate_terms(t, est):
    """R_run: the payload rate a wavelength (lane) carries (the rings' linewidths cost margin, not rate)."""
    payload = est.design.link.data_rate * est.signal.fec.payload_fraction
    return t(r"R_{\mathrm{payload}}", payload, "bit/s", "line rate × k/n of the FEC")


def _capacity(r):
    import sympy as sp

    est, t = r.link, Terms()
    n = est.capacity.wavelength_limits
    if est.ring is None:  # point-to-point: the smallest of its limits
        rhs = sp.Min(*(t(rf"C_{{\mathrm{{{k.replace('_', ' ')}}}}}", v, "bit/s", k)
                       for k, v in est.capacity.limits_bps.items()))
        return Formula("C", rhs, t.terms)
    lk = est.design.link
    counts = sp.Min(t(r"N_{\mathrm{FSR}}", n["fsr_channels"], "", "channels per FSR"),
                    t(r"N_{\mathrm{lines}}", n["laser_lines"], "", "laser lines"),
                    t(r"N_{\mathrm{budget}}", n["power_budget"], "", "wavelengths the budget closes"),
                    t(r"N_{\mathrm{req}}", n["requested"], "", "wavelengths requested"))
    fibers = sp.Min(t("F", lk.fibers_per_direction, "", "fibers per direction"),
                    t(r"F_{\mathrm{escape}}", est.escape_fibers_per_direction, "", "fibers the package escapes"))
    return Formula("C", counts * _rate_terms(t, est) * fibers, t.terms)


def _max_capacity(r):
    est, t = r.link, Terms()
    if est.ring is None:
        return Formula(r"C_{\max}", t("C", est.capacity_bps, "bit/s", "the capacity (nothing to lift)"), t.terms)
    rhs = (t(r"N_{\max}", est.max_wavelengths_per_fiber, "", "max wavelengths per fiber") * _rate_terms(t, est)
           * t(r"F_{\mathrm{escape}}", est.escape_fibers_per_direction, "", "fibers the package escapes"))
    return Formula(r"C_{\max}", rhs, t.terms)


def _max_wavelengths(r):
    import sympy as sp

    est, t = r.link, Terms()
    n = est.capacity.wavelength_limits
    if est.ring is None:
        rhs = (t(r"N_{\mathrm{budget}}", n["power_budget"], "", "1 when the lane closes")
               * t(r"\mathbb{1}_{C>0}", float(est.capacity_bps > 0), "", "1 when the lane carries data"))
        return Formula(r"N_{\max}", rhs, t.terms)
    return Formula(r"N_{\max}", sp.Min(t(r"N_{\mathrm{FSR}}", n["fsr_channels"], "", "channels per FSR"),
                                       t(r"N_{\mathrm{lines}}", n["laser_lines"], "", "laser lines"),
                                       t(r"N_{\mathrm{budget}}", n["power_budget"], "", "the budget closes")),
                   t.terms)


def _symbol_rate(r):
    import sympy as sp

    est, t = r.link, Terms()
    rhs = t("R", est.design.link.data_rate, "bit/s", "line rate") / sp.log(t("M", est.signal.levels, "", "levels"), 2)
    return Formula(r"R_{s}", rhs, t.terms)


def _dbm_of(name, watts, what):
    def formula(r):
        import sympy as sp

        t = Terms()
        return Formula(name, 10 * sp.log(t("P", watts(r), "W", what) / t(r"P_{\mathrm{ref}}", 1e-3, "W", "1 mW"),
                                         10), t.terms)
    return formula


def _line_watts(r):
    est = r.link
    if est.ring is None:
        from photonics.point_to_point import launch_average_w

        return float(launch_average_w(est.design, est.design.transmitter))
    return est.design.laser.power_per_line


def _target_ber(r):
    from photonics import fec

    est, t = r.link, Terms()
    lk = est.design.link
    if lk.fec == "none":
        return Formula(r"BER_{\mathrm{target}}", t(r"BER_{\mathrm{link}}", lk.ber, "", "[link] ber"), t.terms)
    threshold = lk.fec_threshold if lk.fec == "given" else fec.CODES[lk.fec].threshold_ber
    return Formula(r"BER_{\mathrm{target}}", t(r"BER_{\mathrm{FEC}}", threshold, "", "the code's pre-FEC threshold"),
                   t.terms)


def _min_line(r):
    """P_min = S + ΣIL + IL_source + ΣPP + M (E9), where the aggregate cap's share of the line in the bus reaches
    S + ΣIL + ΣPP + M (E10); no formula where it does not (no line power closes: `LinkEstimate.no_power_closes`)."""
    import sympy as sp

    est, t = r.link, Terms()
    if not math.isfinite(est.min_laser_power_per_line_dbm):
        return None
    need = [t("S", est.sensitivity_dbm, "dBm", "sensitivity"),
            t(r"\Sigma IL", sum(i.value_db for i in est.ledger), "dB", "the ledger's losses"),
            t(r"\Sigma PP", est.budget.penalty_db, "dB", "penalties"),
            t(r"M_{\mathrm{sys}}", est.design.link.system_margin, "dB", "reserved system margin")]
    rhs = sum_terms([*need, t(r"IL_{\mathrm{source}}", est.budget.source_to_launch_db, "dB",
                              "coupling, split and comb envelope")])
    if not math.isfinite(est.budget.cap_share_dbm):  # no aggregate cap (point-to-point)
        return Formula(r"P_{\min}", rhs, t.terms)
    cap = t(r"P_{\mathrm{cap}}", est.budget.cap_share_dbm, "dBm", "the aggregate cap's share of the weakest line "
            f"entering the bus, P_max − 10·log10 N_bus − the comb's envelope ({est.budget.lines_in_bus} lines, E10)")
    return Formula(r"P_{\min}", sp.Piecewise((rhs, cap >= sum_terms(need)), (sp.nan, True)), t.terms)


def _received(r):
    est, t = r.link, Terms()
    return Formula(r"P_{\mathrm{rx}}", t(r"P_{\mathrm{launch}}", est.launch_dbm, "dBm", "launch power")
                   - t(r"\Sigma IL", sum(i.value_db for i in est.ledger), "dB", "the ledger's losses"), t.terms)


def _fiber_length(r):
    est, t = r.link, Terms()
    d = est.design
    length = est.max_fiber_length_m
    if not math.isfinite(length):
        return None
    from photonics.link import length_penalties
    from photonics.common_stages import sections

    groups = length_penalties(d, sections(d), est.signal)
    growing = {key for keys, _ in groups.values() for key in keys}
    fiber_db = next(i.value_db for i in est.ledger if i.key == "fiber")
    headroom = sum_terms([t(r"P_{\mathrm{launch}}", est.launch_dbm, "dBm", "launch power"),
                     -t(r"\Sigma IL_{0}", sum(i.value_db for i in est.ledger) - fiber_db, "dB", "losses but the fiber"),
                     -t("S", est.sensitivity_dbm, "dBm", "sensitivity"),
                     -t(r"\Sigma PP_{0}", sum(p.value_db for p in est.penalties if p.key not in growing), "dB",
                        "penalties that do not grow with length"),
                     -t(r"M_{\mathrm{sys}}", d.link.system_margin, "dB", "reserved system margin")])
    at_length = sum(float(f(length)) for _, f in groups.values())
    rhs = ((headroom - t(r"PP_{L}(L_{\max})", at_length, "dB", "dispersion and channel penalties at L_max"))
           / t(r"\alpha", d.loss.fiber_loss, "dB/m", "fiber loss"))
    return Formula(r"L_{\max}", rhs, t.terms)


def _switch_passes(r):
    import sympy as sp

    est, t = r.link, Terms()
    ls = est.design.loss
    per_pass = ls.switch_loss + ls.switch_connectors * ls.connector_loss
    if est.max_switch_passes is None or per_pass <= 0:
        return None
    total = sum(i.value_db for i in est.ledger)
    headroom = sum_terms([t(r"P_{\mathrm{launch}}", est.launch_dbm, "dBm", "launch power"),
                     -t("S", est.sensitivity_dbm, "dBm", "sensitivity"),
                     -t(r"\Sigma PP", est.budget.penalty_db, "dB", "penalties"),
                     -t(r"\Sigma IL_{\mathrm{other}}", total - ls.switch_ports * per_pass, "dB", "losses but the "
                        "switch passes"),
                     -t(r"M_{\mathrm{sys}}", est.design.link.system_margin, "dB", "reserved system margin")])
    return Formula("k", sp.floor(headroom / t(r"IL_{\mathrm{pass}}", per_pass, "dB", "one switch pass")
                                 * (1 + sp.Rational(1, 10**12))), t.terms)


def _optical_parts(t, est):
    return [t(rf"P_{{\mathrm{{{part}}}}}", watts, "W", f"{part} power") for part, watts in est.power_w.items()]


def _energy(r):
    est, t = r.link, Terms()
    return Formula("E", sum_terms(_optical_parts(t, est)) / t("C", est.capacity_bps, "bit/s", "capacity"), t.terms)


def _per_bit_extras(t, est):
    energy = est.energy
    return ([t(rf"E_{{\mathrm{{{k.replace('_', ' ')}}}}}", v, "J/bit", k) for k, v in energy.electrical_j_per_bit.items()]
            + [t(rf"E_{{\mathrm{{fabric\ {k}}}}}", v, "J/bit", k) for k, v in energy.fabric_j_per_bit.items()])


def _total_energy(r):
    est, t = r.link, Terms()
    optical = sum_terms(_optical_parts(t, est)) / t("C", est.capacity_bps, "bit/s", "capacity")
    return Formula(r"E_{\mathrm{total}}", sum_terms([optical, *_per_bit_extras(t, est)]), t.terms)


def _io_power(r):
    est, t = r.link, Terms()
    return Formula(r"P_{\mathrm{io}}", sum_terms(_optical_parts(t, est)), t.terms)


def _total_io_power(r):
    est, t = r.link, Terms()
    rhs = sum_terms([*_optical_parts(t, est),
                     t("C", est.capacity_bps, "bit/s", "capacity") * sum_terms(_per_bit_extras(t, est))])
    return Formula(r"P_{\mathrm{io,total}}", rhs, t.terms)


def _escape(r):
    import sympy as sp

    est, t = r.link, Terms()
    pk = est.design.package
    if est.ring is None:
        return None
    edge = t(r"w_{\mathrm{edge}}", pk.chiplet_fiber_edge, "m", "fiber edge per chiplet")
    per_edge = sp.floor(edge / t(r"\Lambda", pk.fiber_pitch, "m", "fiber pitch") * (1 + sp.Rational(1, 10**12)))
    perimeter = t("P", 2 * (pk.width + pk.height), "m", "package perimeter, 2(W + H)")
    fitting = sp.Min(t(r"n_{\mathrm{chiplets}}", pk.chiplets, "", "chiplets"),
                     sp.floor(perimeter / edge * (1 + sp.Rational(1, 10**12))))
    return Formula(r"F_{\mathrm{escape}}", sp.floor(fitting * per_edge / 2), t.terms)


def _shoreline(r):
    est, t = r.link, Terms()
    pk = est.design.package
    if est.ring is None:
        return None
    return Formula(r"\rho", t("C", est.capacity_bps, "bit/s", "capacity")
                   / (t(r"n_{\mathrm{chiplets}}", pk.chiplets, "", "chiplets")
                      * t(r"w_{\mathrm{edge}}", pk.chiplet_fiber_edge, "m", "fiber edge per chiplet")), t.terms)


# --- the fabric ------------------------------------------------------------------------------------------------
def _kind_formula(key: str, generic: Callable) -> Callable:
    """The formula of the fabric quantity `key`: the fabric kind's own (`fabric.kind.FabricKind.formulas`: a
    function of the estimate), or `generic` (a function of the reading) where the kind declares none."""
    def formula(r):
        from fabric.registry import get_kind

        own = get_kind(r.fabric.kind).formulas.get(key)
        return own(r.fabric) if own is not None else generic(r)
    return formula


def _as_reported(lhs: str, name: str, value, unit: str, what: str, fab):
    """lhs = the estimate's own figure, for a kind that gives no formula of it."""
    t = Terms()
    return Formula(lhs, t(name, value, unit, f"{what} as the {fab.kind} kind reports it (no formula of its own)"),
                   t.terms)


def _bandwidth(r):
    fab = r.fabric
    return _as_reported("B", r"B_{\mathrm{GPU}}", fab.per_gpu_bandwidth_bps, "bit/s", "per-GPU bandwidth", fab)


def _useful(r):
    fab = r.fabric
    return _as_reported("u", r"u_{\mathrm{kind}}", fab.useful_fraction, "", "useful-time fraction", fab)


def _effective(r):
    fab, t = r.fabric, Terms()
    return Formula(r"B_{\mathrm{eff}}", t("B", fab.per_gpu_bandwidth_bps, "bit/s", "per-GPU bandwidth")
                   * t("u", fab.useful_fraction, "", "useful-time fraction"), t.terms)


def _degree(r):
    fab = r.fabric
    return _as_reported("D", r"D_{\mathrm{kind}}", fab.degree, "", "degree", fab)


def _bisection(r):
    fab = r.fabric
    return _as_reported(r"B_{\mathrm{bis}}", r"B_{\mathrm{cut}}", fab.bisection_bps, "bit/s", "bisection", fab)


def _reach(r):
    fab = r.fabric
    return None if fab.reach_hops is None else _as_reported("h", r"h_{\mathrm{kind}}", fab.reach_hops, "hops",
                                                            "optical reach", fab)


def _all_reduce_time(r):
    fab = r.fabric
    return _all_reduce(fab).seconds


def _all_reduce(fab):
    from fabric.evaluate import job_collective

    return job_collective(fab, "all_reduce", fab.design.fabric.message_size)


def _all_reduce_formula(r):
    fab, t = r.fabric, Terms()
    time = _all_reduce(fab)
    launch = fab.design.fabric.launch_latency
    return Formula(r"T_{\mathrm{AR}}", t(r"t_{\mathrm{launch}}", launch, "s", "[fabric] launch_latency")
                   + t(r"t_{\mathrm{" + str(time.schedule).replace(" ", r"\ ") + "}}", float(time.seconds) - launch,
                       "s", f"the kind's {time.schedule} schedule"), t.terms)


# --- the bill ---------------------------------------------------------------------------------------------------
def _lines(t, summary, unit, network_only, power=False, per_gpu=True):
    g = summary.gpus
    out = []
    for line in summary.bom.lines_by_cost():
        if network_only and not line.network:
            continue
        value = (line.power_w if power else line.cost_usd).typical / (g if per_gpu else 1)
        count = line.count_per_gpu if per_gpu else line.count_per_cluster
        out.append(t(rf"{'P' if power else 'c'}_{{\mathrm{{{line.key}}}}}", value, unit,
                     f"{'a GPU: ' if per_gpu else ''}{figure_text(count, 6)} × {figure_text(value / count, 6)} {unit} "
                     f"per {line.unit}, {line.description}" if count else line.description))
    return out


def _network_cost(r):
    t = Terms()
    return Formula(r"c_{\mathrm{net}}", sum_terms(_lines(t, r.cost, "USD", True)), t.terms)


def _network_power(r):
    t = Terms()
    return Formula(r"P_{\mathrm{net}}", sum_terms(_lines(t, r.cost, "W", True, power=True)), t.terms)


def _optics_terms(t, summary, power=True):
    """One term per optics line of the bill (its entry states a power boundary), per GPU."""
    g = summary.gpus
    return [t(rf"{'P' if power else 'c'}_{{\mathrm{{{line.key}}}}}", (line.power_w if power else line.cost_usd).typical
              / g, "W" if power else "USD", f"{line.description} ({line.boundary})")
            for line in summary.bom.lines_by_cost() if line.boundary]


def _optics_power(r):
    t = Terms()
    return Formula(r"P_{\mathrm{B1}}", sum_terms(_optics_terms(t, r.cost)), t.terms)


def _port_power(r):
    t = Terms()
    serdes = r.cost.port_power_per_gpu_w.typical - r.cost.optics_power_per_gpu_w.typical
    return Formula(r"P_{\mathrm{B2}}", sum_terms([*_optics_terms(t, r.cost), t(r"P_{\mathrm{SerDes}}", serdes, "W",
                                                                            "host SerDes driving the optics")]),
                   t.terms)


def _optics_cost(r):
    t = Terms()
    return Formula(r"c_{\mathrm{optics}}", sum_terms(_optics_terms(t, r.cost, power=False)), t.terms)


def _cluster_cost(r):
    t = Terms()
    return Formula(r"\$_{\mathrm{cluster}}", sum_terms(_lines(t, r.cost, "USD", False, per_gpu=False)), t.terms)


def _cluster_power(r):
    t = Terms()
    return Formula(r"W_{\mathrm{cluster}}", sum_terms(_lines(t, r.cost, "W", False, power=True, per_gpu=False)),
                   t.terms)


def _facility(r):
    t = Terms()
    return Formula(r"W_{\mathrm{facility}}", t(r"W_{\mathrm{cluster}}", r.cost.cluster_power_w.typical, "W",
                                              "nameplate power") * t("PUE", r.fabric.design.fabric.pue, "", "[fabric] pue"),
                   t.terms)


def _share(name, part, whole):
    def formula(r):
        t = Terms()
        return Formula(name, t("x", part(r), "", "the part") / t("X", whole(r), "", "the whole"), t.terms)
    return formula


def _scale_out_part(r):
    from fabric.cost import SCALE_UP

    return sum(l.cost_usd.typical for l in r.cost.bom.lines if l.network and not l.key.startswith(SCALE_UP))


def _busbw(r):
    fab, t = r.fabric, Terms()
    p = fab.job_gpus
    return Formula(r"busbw", 2 * (t("p", p, "", "ranks") - 1) / t("p", p, "", "ranks")
                   * t("n", fab.design.fabric.message_size * 8, "bit", "[fabric] message_size")
                   / t(r"T_{\mathrm{AR}}", _all_reduce_time(r), "s", "all-reduce time"), t.terms)


# --- training ---------------------------------------------------------------------------------------------------
def _iteration(r):
    t = Terms()
    phases = r.result.best.breakdown
    return Formula("T", sum_terms([t(rf"T_{{\mathrm{{{k.replace('_', ' ')}}}}}", v, "s", k)
                                   for k, v in phases.items()]), t.terms)


def _memory(r):
    t = Terms()
    return Formula("M", t(r"M_{\mathrm{GPU}}", r.result.best.memory_bytes, "B", "the best strategy's weights, gradients, optimizer "
                          "states and stored activations on its fullest GPU (workloads.memory)"), t.terms)


def _flops_rate(name, attr, peak):
    def formula(r):
        t = Terms()
        res = r.result
        rhs = t(r"F", getattr(res, attr), "FLOP", "per iteration, whole job") / (
            t("G", res.estimate.job_gpus, "", "GPUs of the job") * t("T", res.best.iteration_s, "s", "iteration"))
        if peak:
            rhs = rhs / t(r"F_{\mathrm{peak}}", res.peak_flops, "FLOP/s", "one GPU's dense peak")
        return Formula(name, rhs, t.terms)
    return formula


def _flops_per_gpu(attr):
    return lambda r: getattr(r.result, attr) / (r.result.estimate.job_gpus * r.result.best.iteration_s)


def _throughput(r):
    from workloads import kinds

    t, res = Terms(), r.result
    per_iteration = kinds.of(res.model).per_iteration(res.model, res.batch)
    return Formula("X", t("b", per_iteration, res.throughput_unit.split("/")[0], "per iteration")
                   / t("T", res.best.iteration_s, "s", "iteration"), t.terms)


def _speedup_terms(t, r):
    return (t(r"T_{\mathrm{baseline}}", r.baseline.best.iteration_s, "s", "the baseline's iteration")
            / t("T", r.result.best.iteration_s, "s", "this design's iteration"))


def _speedup(r):
    t = Terms()
    return Formula("s", _speedup_terms(t, r), t.terms)


def _speedup_per(name, attr, unit):
    """s × the baseline's over this design's `attr`: the job's share of its cluster's cost or power."""
    def formula(r):
        t = Terms()
        return Formula(name, _speedup_terms(t, r) * t(r"\$_{\mathrm{baseline}}" if unit == "USD" else
                                                      r"W_{\mathrm{baseline}}", getattr(r.baseline, attr), unit,
                                                      "the baseline job's share of its cluster")
                       / t(r"\$" if unit == "USD" else "W", getattr(r.result, attr), unit,
                           "this job's share of the design's cluster"), t.terms)
    return formula


def _goodput_of(read):
    """A goodput figure of the reading's result (None where its interruptions are not known)."""
    return lambda r: None if r.result.goodput is None else read(r.result.goodput)


def _where_finite(value):
    """`value` where finite: None for one point's infinity, NaN at a grid's infinite points (nothing interrupts:
    no mean time to interruption, no checkpoint interval)."""
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return float(arr) if math.isfinite(arr) else None
    return np.where(np.isfinite(arr), arr, np.nan)


def _rate_formula(r):
    """1/M = Σ n·p/MTBF over the job's parts (fabric.reliability)."""
    t = Terms()
    lines = [l for l in r.result.goodput.lines if l.per_s > 0]
    parts = [t(f"n_{{{i}}}", l.units, "", f"{l.component}: {l.cause}") * t(f"p_{{{i}}}", l.interrupts, "",
                                                                             "share that stops the job")
             / t(rf"\mathrm{{MTBF}}_{{{i}}}", l.mtbf_s, "s", l.source) for i, l in enumerate(lines)]
    return Formula(r"\lambda", sum_terms(parts), t.terms)


def _mtti_formula(r):
    t = Terms()
    return Formula("M", 1 / t(r"\lambda", r.result.goodput.interruptions_per_s, "1/s", "interruptions that stop "
                                                                                       "the job"), t.terms)


def _interval_formula(r):
    """τ = Daly's optimum, or the design's interval."""
    import sympy as sp

    t, g = Terms(), r.result.goodput
    rel = r.result.estimate.design.reliability
    write = g.checkpoint_bytes / g.write_bps
    if rel.checkpoint_write == "asynchronous" and g.interval_s == write:  # the write, not Daly, sets it
        return Formula(r"\tau", t("S", g.checkpoint_bytes, "B", "checkpoint") / t(
            r"B_{\mathrm{write}}", g.write_bps, "B/s", "checkpoint write bandwidth (the storage's, or the job's "
                                                        "storage ports where fewer)"), t.terms)
    if rel.checkpoint_interval or g.interruptions_per_s == 0:
        return Formula(r"\tau", t(r"\tau_{\mathrm{set}}", g.interval_s, "s", "[reliability] checkpoint_interval"),
                       t.terms)
    d, m = t(r"\delta", g.pause_s, "s", "pause per checkpoint"), t("M", g.mtti_s, "s", "mean time to interruption")
    if g.pause_s >= 2 * g.mtti_s:
        return Formula(r"\tau", m, t.terms)
    x = d / (2 * m)
    return Formula(r"\tau", sp.sqrt(2 * d * m) * (1 + sp.sqrt(x) / 3 + x / 9) - d, t.terms)


def _restart_formula(r):
    """R = Σ λ_i·R_i / Σ λ_i: each cause's restart weighted by its rate."""
    t, g = Terms(), r.result.goodput
    rel = r.result.estimate.design.reliability
    lines = [l for l in g.lines if l.per_s > 0]
    if not lines:
        return Formula("R", t("R_0", 0.0, "s", "nothing interrupts"), t.terms)
    from workloads.goodput import restart_s

    num = sum_terms([t(rf"\lambda_{{{i}}}", l.per_s, "1/s", f"{l.component}: {l.cause}")
                     * t(rf"R_{{{i}}}", restart_s(l, rel, g.read_s, g.covered(l)), "s",
                         f"detection + {l.recovery} + start-up + read")
                     for i, l in enumerate(lines)])
    return Formula("R", num / t(r"\lambda", g.interruptions_per_s, "1/s", "all of them"), t.terms)


def _ettr_formula(r):
    """ETTR = τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)·(1 + ρ_p·R_p)) (Daly's complete model, Y9), R + W with an
    asynchronous checkpoint's write W."""
    import sympy as sp

    t, g = Terms(), r.result.goodput
    planned = 1 + t(r"\rho_{p}", g.planned_per_s, "1/s", "planned interruptions") * t(
        "R_{p}", g.planned_restart_s, "s", "restart after a planned one")
    tau, d = t(r"\tau", g.interval_s, "s", "checkpoint interval"), t(r"\delta", g.pause_s, "s", "pause")
    if g.interruptions_per_s == 0:
        wall = (tau + d) / tau if math.isfinite(g.interval_s) else sp.Integer(1)
        if not math.isfinite(g.interval_s):
            t.terms.pop(r"\tau"), t.terms.pop(r"\delta")
        return Formula(r"\mathrm{ETTR}", 1 / (wall * planned), t.terms)
    m, rr = t("M", g.mtti_s, "s", "mean time to interruption"), t("R", g.restart_s, "s", "restart")
    if g.rework_s:  # an asynchronous checkpoint is safe once written: a failure redoes its write too
        rr = rr + t("W", g.rework_s, "s", "the checkpoint's write, redone")
    return Formula(r"\mathrm{ETTR}", tau / (m * sp.exp(rr / m) * (sp.exp((tau + d) / m) - 1) * planned), t.terms)


def _goodput_speedup(kind):
    def formula(r):
        t = Terms()
        rhs = _speedup_terms(t, r) * t(r"\mathrm{ETTR}", r.result.ettr, "", "this design's") / t(
            r"\mathrm{ETTR}_{\mathrm{baseline}}", r.baseline.ettr, "", "the baseline's")
        if kind == "dollar":
            rhs = rhs * t(r"\$_{\mathrm{baseline}}", r.baseline.goodput_cost_usd, "USD", "the baseline's, with "
                          "spares") / t(r"\$", r.result.goodput_cost_usd, "USD", "this design's, with spares")
        elif kind == "watt":
            rhs = rhs * t(r"W_{\mathrm{baseline}}", r.baseline.goodput_power_w, "W", "the baseline job's share, with "
                          "spares") / t("W", r.result.goodput_power_w, "W", "this job's share, with spares")
        return Formula({"": r"s_{g}", "dollar": r"s_{g,\$}", "watt": r"s_{g,W}"}[kind], rhs, t.terms)
    return formula


def _versus(key):
    def read(r):
        from workloads.speedup import compare

        return compare(r.result, r.baseline)[key]
    return read


def _link_ring(read):
    return lambda r: None if r.link.ring is None else read(r.link)


LINK, FABRIC, COST, TRAINING = "link", "fabric", "cost", "training"
_RECORD = {LINK: "link", FABRIC: "fabric", COST: "cost", TRAINING: "result"}  # the reading's part a stage reads
_Q = Quantity


def _fabric_q(key: str, unit: str, scale: float, read: Callable, help: str, generic: Callable) -> Quantity:
    """A fabric quantity: its formula the fabric kind's own for `key`, `generic` where the kind gives none."""
    return Quantity(key, unit, scale, FABRIC, read, help, _kind_formula(key, generic))


QUANTITY_LIST = (
    # the link (sipml budget, check; the sweep's link columns)
    _Q("margin_db", "dB", 1.0, LINK, lambda r: r.link.margin_db, "margin of the worst wavelength (E9–E10)", _margin),
    _Q("capacity_gbps", "Gbit/s", 1e-9, LINK, lambda r: r.link.capacity_bps, "the link's capacity per GPU per "
       "direction (payload after FEC, E14)", _capacity),
    _Q("max_capacity_gbps", "Gbit/s", 1e-9, LINK, lambda r: r.link.max_capacity_bps, "capacity with the design's own "
       "wavelength and fiber counts lifted", _max_capacity),
    _Q("max_wavelengths_per_fiber", "", 1.0, LINK, lambda r: r.link.max_wavelengths_per_fiber, "most wavelengths per "
       "fiber the FSR, the laser and the budget allow (E10)", _max_wavelengths),
    _Q("symbol_rate_gbd", "GBd", 1e-9, LINK, lambda r: r.link.signal.symbol_rate_baud, "symbols per second per "
       "wavelength: line rate / log2(levels)", _symbol_rate),
    _Q("target_ber", "", 1.0, LINK, lambda r: r.link.signal.target_ber, "the BER the receiver must reach (the FEC's "
       "threshold when a code runs, E27)", _target_ber, target=False),
    _Q("laser_power_per_line_dbm", "dBm", 1.0, LINK, lambda r: r.link.laser_line_dbm, "mean laser power per line "
       "(point-to-point: the average launch power)", _dbm_of(r"P_{\mathrm{line}}", _line_watts, "power per line")),
    _Q("min_laser_power_per_line_dbm", "dBm", 1.0, LINK, lambda r: r.link.min_laser_power_per_line_dbm, "least laser "
       "power per line that closes the budget, with the aggregate waveguide power cap applied (E9, E10); null where "
       "the cap binds and no line power closes", _min_line, undefined=lambda r: r.link.no_power_closes),
    _Q("received_power_dbm", "dBm", 1.0, LINK, lambda r: r.link.received_dbm, "average power of the worst wavelength "
       "at the detector", _received),
    _Q("sensitivity_dbm", "dBm", 1.0, LINK, lambda r: r.link.sensitivity_dbm, "average-power sensitivity at the "
       "target BER (E16, E17, E22, E24)", _dbm_of("S", lambda r: r.link.receiver.sensitivity_w, "sensitivity")),
    _Q("quantum_limit_dbm", "dBm", 1.0, LINK, lambda r: r.link.quantum_limit_dbm, "the quantum limit at the target "
       "BER (E17)", _dbm_of(r"S_{\mathrm{QL}}", lambda r: r.link.receiver.quantum_limit_w, "quantum limit"),
       target=False),
    _Q("max_fiber_length_m", "m", 1.0, LINK, lambda r: r.link.max_fiber_length_m, "longest fiber the budget closes "
       "(attenuation and dispersion together, E28–E29, within the modal reach)", _fiber_length),
    _Q("max_switch_passes", "", 1.0, LINK, lambda r: r.link.max_switch_passes, "most optical-switch passes the "
       "budget pays for", _switch_passes),
    _Q("energy_pj_per_bit", "pJ/bit", 1e12, LINK, lambda r: r.link.total_energy_j_per_bit, "optical energy per bit: "
       "lasers, modulators, receivers, heaters (E32)", _energy, undefined=_no_bits),
    _Q("total_energy_pj_per_bit", "pJ/bit", 1e12, LINK, lambda r: r.link.energy.total_j_per_bit, "optical link + "
       "electrical side + what the fabric adds, per bit", _total_energy, undefined=_no_bits),
    _Q("io_power_w", "W", 1.0, LINK, lambda r: sum(r.link.power_w.values()), "optical I/O power of one GPU",
       _io_power),
    _Q("total_io_power_w", "W", 1.0, LINK, lambda r: r.link.energy.total_power_w, "I/O power with the electrical "
       "side and the fabric's adders", _total_io_power),
    _Q("escape_fibers_per_direction", "", 1.0, LINK, _link_ring(lambda est: est.escape_fibers_per_direction),
       "fibers per direction the package edge escapes (ring-wdm)", _escape),
    _Q("shoreline_tbps_per_mm", "Tbit/s/mm", 1e-15, LINK, _link_ring(lambda est: est.shoreline_bps_per_m),
       "capacity per mm of package edge used by optics (ring-wdm)", _shoreline),
    # the fabric (sipml fabric, check, cost; the sweep's fabric columns): a kind may give the formula of each
    _fabric_q("per_gpu_bandwidth_gbps", "Gbit/s", 1e-9, lambda r: r.fabric.per_gpu_bandwidth_bps, "injection per "
              "GPU per direction while the fabric carries traffic", _bandwidth),
    _fabric_q("effective_bandwidth_gbps", "Gbit/s", 1e-9, lambda r: r.fabric.effective_bandwidth_bps, "per-GPU "
              "bandwidth × useful-time fraction", _effective),
    _fabric_q("useful_time_fraction", "", 1.0, lambda r: r.fabric.useful_fraction, "share of time the fabric "
              "carries traffic (retuning, reconfiguration)", _useful),
    _fabric_q("degree", "", 1.0, lambda r: r.fabric.degree, "peers one GPU reaches directly at once", _degree),
    _fabric_q("bisection_gbps", "Gbit/s", 1e-9, lambda r: r.fabric.bisection_bps, "bandwidth across the worst "
              "bisection, per direction", _bisection),
    _fabric_q("optical_reach", "hops", 1.0, lambda r: r.fabric.reach_hops, "GPUs one wavelength travels on a ring "
              "(null where every pair is one circuit)", _reach),
    _fabric_q("all_reduce_s", "s", 1.0, _all_reduce_time, "all-reduce of [fabric] message_size over the job's "
              "ranks, alone on the fabric (`fabric`'s collective_times_s.all_reduce)", _all_reduce_formula),
    # the bill (sipml cost; the sweep's cost columns)
    _Q("network_cost_usd_per_gpu", "USD", 1.0, COST, lambda r: r.cost.network_cost_per_gpu_usd.typical, "network "
       "cost per GPU, typical prices", _network_cost),
    _Q("network_power_w_per_gpu", "W", 1.0, COST, lambda r: r.cost.network_power_per_gpu_w.typical, "network "
       "nameplate power per GPU (the boxes' host SerDes at the class the design's channels need)", _network_power),
    _Q("optics_power_w_per_gpu", "W", 1.0, COST, lambda r: r.cost.optics_power_per_gpu_w.typical, "optics power "
       "per GPU at boundary B1 (every port's module or engine with its laser)", _optics_power),
    _Q("port_power_w_per_gpu", "W", 1.0, COST, lambda r: (None if r.cost.port_power_per_gpu_w is None
                                                         else r.cost.port_power_per_gpu_w.typical),
       "optics power per GPU at boundary B2 (B1 and the host SerDes that drive the optics)", _port_power),
    _Q("optics_cost_usd_per_gpu", "USD", 1.0, COST, lambda r: r.cost.optics_cost_per_gpu_usd.typical, "optics cost "
       "per GPU, typical prices", _optics_cost),
    _Q("cluster_cost_usd", "USD", 1.0, COST, lambda r: r.cost.cluster_cost_usd.typical, "the whole cluster, typical "
       "prices", _cluster_cost),
    _Q("cluster_power_w", "W", 1.0, COST, lambda r: r.cost.cluster_power_w.typical, "the whole cluster, nameplate",
       _cluster_power),
    _Q("facility_power_w", "W", 1.0, COST, lambda r: r.cost.facility_power_w, "nameplate power × PUE", _facility),
    _Q("network_cost_share", "", 1.0, COST, lambda r: r.cost.network_cost_share, "network share of the cluster's "
       "cost", _share(r"s_{\mathrm{net}}", lambda r: r.cost.bom.network_cost_usd.typical,
                      lambda r: r.cost.cluster_cost_usd.typical)),
    _Q("scale_out_cost_share", "", 1.0, COST, lambda r: r.cost.scale_out_cost_share, "share in interconnect outside "
       "the servers (Epoch AI's 'interconnect share')", _share(r"s_{\mathrm{out}}", _scale_out_part,
                                                              lambda r: r.cost.cluster_cost_usd.typical)),
    _Q("network_power_share", "", 1.0, COST, lambda r: r.cost.network_power_share, "network share of the cluster's "
       "power", _share(r"s_{\mathrm{net,W}}", lambda r: r.cost.bom.network_power_w.typical,
                       lambda r: r.cost.cluster_power_w.typical)),
    _Q("gpu_cost_share", "", 1.0, COST, lambda r: r.cost.gpu_cost_share, "GPU share of the cluster's cost",
       _share(r"s_{\mathrm{GPU}}", lambda r: sum(l.cost_usd.typical for l in r.cost.bom.lines
                                                 if l.key == r.fabric.design.fabric.gpu),
              lambda r: r.cost.cluster_cost_usd.typical)),
    _Q("all_reduce_busbw_gbps", "Gbit/s", 1e-9, COST, lambda r: r.cost.all_reduce_busbw_bps, "bus bandwidth of that "
       "all-reduce (nccl-tests)", _busbw),
    # training (sipml speedup; the sweep's training columns)
    _Q("iteration_s", "s", 1.0, TRAINING, lambda r: r.result.best.iteration_s, "one training iteration at the best "
       "strategy: its phases", _iteration),
    _Q("memory_gb_per_gpu", "GB", 1e-9, TRAINING, lambda r: r.result.best.memory_bytes, "memory of the best "
       "strategy per GPU (weights, gradients, optimizer states, activations)", _memory, target=False),
    _Q("tflops_per_gpu", "TFLOP/s", 1e-12, TRAINING, _flops_per_gpu("model_flops"), "model FLOP/s per GPU "
       "(no recomputation)", _flops_rate(r"\mathrm{FLOP/s}", "model_flops", False)),
    _Q("hardware_tflops_per_gpu", "TFLOP/s", 1e-12, TRAINING, _flops_per_gpu("hardware_flops"),
       "executed FLOP/s per GPU (recomputation included)", _flops_rate(r"\mathrm{FLOP/s}_{hw}", "hardware_flops",
                                                                        False)),
    _Q("mfu", "", 1.0, TRAINING, lambda r: r.result.mfu, "model FLOPs utilisation",
       _flops_rate("MFU", "model_flops", True)),
    _Q("hfu", "", 1.0, TRAINING, lambda r: r.result.hfu, "hardware FLOPs utilisation",
       _flops_rate("HFU", "hardware_flops", True)),
    _Q("throughput", "", 1.0, TRAINING, lambda r: r.result.throughput, "tokens (or samples) per second; its unit is "
       "`throughput_unit`", _throughput),
    _Q("speedup", "", 1.0, TRAINING, _versus("speedup"), "the baseline's iteration over this design's", _speedup),
    _Q("speedup_per_dollar", "", 1.0, TRAINING, _versus("speedup_per_dollar"), "throughput per dollar of the job's "
       "share of the cluster over the baseline's", _speedup_per(r"s_{\$}", "job_cost_usd", "USD")),
    _Q("speedup_per_watt", "", 1.0, TRAINING, _versus("speedup_per_watt"), "throughput per nameplate watt of the "
       "job's share of the cluster over the baseline's", _speedup_per(r"s_{W}", "job_power_w", "W")),
    # goodput (sipml speedup, sipml reliability): the job's interruptions, checkpoints and restarts
    _Q("interruptions_per_day", "1/day", 86400.0, TRAINING, _goodput_of(lambda g: g.interruptions_per_s), "unexpected "
       "interruptions of the job per day: its parts' failures that stop it", _rate_formula),
    _Q("job_mtti_s", "s", 1.0, TRAINING, _goodput_of(lambda g: _where_finite(g.mtti_s)),
       "the job's mean time to interruption", _mtti_formula),
    _Q("checkpoint_interval_s", "s", 1.0, TRAINING, _goodput_of(lambda g: _where_finite(g.interval_s)),
       "compute time between checkpoints (Daly's optimum unless set)", _interval_formula),
    _Q("restart_s", "s", 1.0, TRAINING, _goodput_of(lambda g: g.restart_s), "mean restart after an interruption: "
       "detection, rescheduling or a spare, start-up, reading the checkpoint", _restart_formula),
    _Q("ettr", "", 1.0, TRAINING, _goodput_of(lambda g: g.ettr), "effective training time ratio: training kept over "
       "wall time (checkpoint pauses, lost work and restarts taken out)", _ettr_formula),
    _Q("goodput_speedup", "", 1.0, TRAINING, _versus("goodput_speedup"), "speedup with each one's interruptions "
       "(× ETTR over the baseline's)", _goodput_speedup("")),
    _Q("goodput_speedup_per_dollar", "", 1.0, TRAINING, _versus("goodput_speedup_per_dollar"), "goodput per "
       "cluster dollar (hot spares included) over the baseline's", _goodput_speedup("dollar")),
    _Q("goodput_speedup_per_watt", "", 1.0, TRAINING, _versus("goodput_speedup_per_watt"), "goodput per nameplate "
       "watt over the baseline's", _goodput_speedup("watt")),
)
QUANTITIES = {q.key: q for q in QUANTITY_LIST}

# JSON keys that are not numbers with a formula: names, verdicts, counts the reports restate from the design,
# nested records (their keys documented in the README) and the sweep's verdict columns.
LABELS = {
    "design": "the design's file or built-in name", "feasible": "no constraint violated",
    "link_kind": "[link] kind", "binding_limit": "the limit(s) that set the capacity, '+'-joined",
    "limits_gbps": "every capacity limit at the design's counts", "lifted_limits_gbps": "every capacity limit with "
    "the design's wavelength and fiber counts lifted", "max_binding_limit": "the limits that bind the lifted "
    "capacity, '+'-joined: the tightest wavelength limit and the package (read from lifted_limits_gbps)",
    "no_power_closes": "why no laser power per line closes (a closed eye, or the aggregate cap); null where one does",
    "wavelength_limits": "every wavelength-count limit", "modulation": "[link] modulation", "fec": "the FEC's figures",
    "fiber_reach_m": "each length limit alone", "energy_breakdown_pj_per_bit": "optical energy by part",
    "electrical_energy_breakdown_pj_per_bit": "electrical energy by part",
    "fabric_energy_breakdown_pj_per_bit": "what the fabric adds per bit", "ring": "the ring figures",
    "ring_yield": "ring lock yield (full-thermal, athermal-untrimmed)", "ledger": "the budget line by line",
    "violations": "violated constraints (name, message)", "warnings": "models used outside their range",
    "min_channel_spacing_ghz": "with --min-spacing: the root of margin(spacing) = 0 (Brent)",
    "fabric": "[fabric] kind", "gpus": "[fabric] gpus", "job_gpus": "GPUs of the largest job",
    "cluster_gpus": "GPUs of the cluster the job runs on ([fabric] gpus)", "figures": "the kind's "
    "own figures", "message_bytes": "bytes per rank of the collective times", "collective_times_s": "each collective "
    "alone", "collective_busbw_gbps": "each collective's bus bandwidth (NCCL's busbw, Gbit/s; null for p2p)",
    "collective_algorithms": "the schedule each collective takes", "notes": "the model's notes",
    "traffic": "with --pattern", "groups": "with --groups", "gpu": "[fabric] gpu",
    "allocation": "SiP-Ring: how the job's wavelengths followed its traffic (static, periodic, phased; null elsewhere)",
    "network_cost_usd_per_gpu_range": "low, typical, high", "network_power_w_per_gpu_range": "low, typical, high",
    "cluster_cost_usd_range": "low, typical, high", "cluster_power_w_range": "low, typical, high",
    "optics_power_w_per_gpu_range": "low, typical, high", "port_power_w_per_gpu_range": "low, typical, high",
    "optics_cost_usd_per_gpu_range": "low, typical, high", "optics_power_boundary": "what B1 includes",
    "port_power_boundary": "what B2 includes",
    "breakdown": "by component (cost) or by phase (speedup)", "model": "the model's name", "batch": "global batch",
    "strategy": "the best strategy", "stack": "the software stack", "precision": "of the GEMMs",
    "throughput_unit": "tokens/s or samples/s", "candidates": "strategies evaluated", "feasible_candidates": "of "
    "which fit", "baseline": "the first baseline", "baselines": "speedups over each baseline",
    "run_time_s": "a run of run_amount: run_amount / throughput", "energy_kwh": "the run's energy: the job's share of "
    "the cluster's power × load × PUE × time", "electricity_usd": "the run's electricity", "hardware_usd": "the "
    "job's share of the hardware amortised over the run", "run_cost_usd": "hardware + electricity",
    "run_amount": "tokens or samples of the run",
    "run_amount_unit": "tokens or samples",
    "experts": "the model's routed experts per MoE layer (0: a dense model)",
    "goodput_run_time_s": "the run with its interruptions: run_time_s / ETTR",
    "goodput_energy_kwh": "its energy: energy_kwh / ETTR (the cluster powered while it restarts and redoes work)",
    "goodput_run_cost_usd": "its cost: hardware (hot spares included) over the longer run + electricity", "alternatives": "the next fastest strategies", "reason": "why a design "
    "cannot train", "link_feasible": "the link closes", "link_violations": "';'-joined", "fabric_feasible": "the fabric "
    "works", "fabric_violations": "';'-joined", "training_feasible": "a strategy fits", "training_error": "why not",
    "error": "the design rules' refusal of the point", "designs": "`sipml cost`: one entry per design",
    "rows": "`sipml speedup`: one row per design",
}


def check_quantity(name: str) -> None:
    """InputError for a key that is not an explainable quantity."""
    from core.errors import InputError, did_you_mean

    if name not in QUANTITIES:
        raise InputError(f"unknown quantity {name!r}{did_you_mean(name, QUANTITIES)}; known: {', '.join(QUANTITIES)}")


def values(reading: Reading, keys) -> dict:
    """{key: reported value} of the quantities `keys` for one reading."""
    return {key: QUANTITIES[key].value(reading) for key in keys}


SWEEP = {  # the sweep's columns of each stage, in order: quantities (written `key [unit]`) and labels
    LINK: ("link_feasible", "margin_db", "capacity_gbps", "binding_limit", "max_wavelengths_per_fiber",
           "energy_pj_per_bit", "min_laser_power_per_line_dbm", "link_violations"),
    FABRIC: ("fabric_feasible", "effective_bandwidth_gbps", "optical_reach", "network_cost_usd_per_gpu",
             "network_power_w_per_gpu", "optics_power_w_per_gpu", "cluster_cost_usd", "fabric_violations"),
    TRAINING: ("training_feasible", "iteration_s", "tflops_per_gpu", "speedup", "speedup_per_dollar",
               "speedup_per_watt", "interruptions_per_day", "ettr", "goodput_speedup", "goodput_speedup_per_dollar",
               "goodput_speedup_per_watt", "training_error"),
}


def column(key: str) -> str:
    """A sweep column's name: a quantity's `key [unit]`, a label's key."""
    return QUANTITIES[key].column if key in QUANTITIES else key


# A JSON key that is not a quantity names its unit by its ending (`run_time_s`, `limits_gbps`, `fec.latency_s`), as
# the README's JSON sections document; a test checks each ending against the quantities that carry it. Longest
# first: `_w_per_gpu` before `_w`.
UNIT_ENDINGS = (("pj_per_bit", "pJ/bit"), ("tbps_per_mm", "Tbit/s/mm"), ("tflops_per_gpu", "TFLOP/s"),
                ("gb_per_gpu", "GB"), ("usd_per_gpu", "USD"), ("w_per_gpu", "W"), ("gbps", "Gbit/s"),
                ("gbd", "GBd"), ("ghz", "GHz"), ("nm", "nm"), ("dbm", "dBm"), ("db", "dB"), ("kwh", "kWh"),
                ("usd", "USD"), ("bytes_per_s", "B/s"), ("bytes", "B"), ("s_per_day", "s/day"), ("per_day", "1/day"), ("w", "W"), ("m", "m"),
                ("s", "s"))
NESTED_UNITS = {"breakdown": "s"}  # a record of numbers whose key has no unit: `sipml speedup`'s exposed seconds


def key_unit(key: str, parent: str = "") -> str:
    """The unit of the number under JSON key `key` (in the record under `parent`): a quantity's declared unit, else
    the key's ending, else the parent's (a record of numbers in one unit: `limits_gbps`, `collective_times_s`);
    '' for a count, a ratio or a text."""
    if key in QUANTITIES:
        return QUANTITIES[key].unit
    for name in (key, parent):
        for ending, unit in UNIT_ENDINGS:
            if name == ending or name.endswith("_" + ending):
                return unit
    return NESTED_UNITS.get(parent, "") if parent != key else ""  # the record's numbers, not the record itself


def sweep_columns(stage: str) -> tuple[str, ...]:
    return tuple(column(k) for k in SWEEP[stage])
