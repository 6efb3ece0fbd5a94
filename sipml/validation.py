"""`sipml validate`: every published case the project reproduces — published value, ours, error, tolerance.

Cases come from the physical layer (photonics reference R1–R7; the IEEE 802.3 link model's budgets of
`cases/link_budgets.toml`, each design file run as `sipml budget` runs it), SiP-ML (its interface, fabric cases and the
1.3–9.1× headline), NCCL measurements on one server, and published training runs (`cases/training_runs.toml`:
Megatron-LM SC21 and K22, MegaScale, Llama 3, MLPerf GPT-3, CNN and BERT throughput), each computed by the function
`sipml speedup` runs, with the run's own settings (its software stack included) written out in the case table.
"""

from __future__ import annotations

import math
from pathlib import Path

from core.records import record
from sipml.render import Report, Table


@record(slots=False)
class Case:
    """One published number and ours: the source, the unit, the tolerance, and a published range's high end."""
    group: str
    name: str
    source: str
    published: float  # for a range: its low end (high in `high`)
    ours: float
    unit: str
    tolerance: float  # relative (rel=True) or absolute
    rel: bool = True
    high: float | None = None  # a published range [published, high] instead of a value
    note: str = ""
    informational: bool = False  # shown for the reader, not judged


    @property
    def error(self) -> float:
        if self.high is not None:
            return 0.0 if self.published <= self.ours <= self.high else (
                self.ours / self.published - 1 if self.ours < self.published else self.ours / self.high - 1)
        return (self.ours / self.published - 1) if self.rel else (self.ours - self.published)

    @property
    def passed(self) -> bool:
        if self.informational:
            return True
        if not math.isfinite(self.ours):
            return False
        return bool(abs(self.error) <= self.tolerance + 1e-12)


def _photonics_cases() -> list[Case]:
    import numpy as np

    from photonics import budget, crosstalk, microring, packaging, receiver
    from photonics.link_design import LaserSection, LinkDesign, LinkSection
    from photonics.link import evaluate

    src = "docs/references.md, reference cases R1–R7"
    out = [Case("physics", "R1 Gigabit-Ethernet reach", "Introduction to Information Optics, Table 12.3",
                10.0, budget.max_length_m(-8.0, -22.0, 0.0, 2.0, 0.6e-3, system_margin_db=6.0) / 1e3, "km", 1e-6)]
    teraphy = evaluate(LinkDesign(link=LinkSection(data_rate=16e9, wavelengths_per_fiber=8, fibers_per_direction=8),
                                  laser=LaserSection(kind="dfb", power_per_line=10e-3, flatness=0.0)))
    out.append(Case("physics", "R2 TeraPHY capacity per direction", "TeraPHY, OFC 2021", 1.024,
                    teraphy.capacity_bps / 1e12, "Tbit/s", 1e-9))
    out.append(Case("physics", "R2 TeraPHY I/O power at 4.96 pJ/bit", "TeraPHY, OFC 2021", 5.08,
                    packaging.io_power_w(1.024e12, 4.96e-12), "W", 0.005, rel=False))
    out.append(Case("physics", "R4 FSR of a 5 µm ring", src, 18.2, microring.fsr_wavelength_m(
        1550e-9, 4.2, microring.circumference_m(5e-6)) * 1e9, "nm", 0.05, rel=False))
    f0 = microring.frequency_hz(1550e-9)
    fwhm = microring.fwhm_hz(f0, 1000.0)
    q_ber = receiver.q_from_ber(1e-9)
    ks = np.array([-4, -3, -2, -1, 1, 2, 3, 4])
    for spacing_nm, expected in ((0.32, 11.96), (0.96, 7.42), (3.2, 1.95)):
        spacing_hz = f0 * spacing_nm * 1e-9 / 1550e-9
        leak = crosstalk.aggressor_leakage(ks * spacing_hz, fwhm, 10e9).sum()
        out.append(Case("physics", f"R5 crosstalk penalty at {spacing_nm} nm", f"{src} (Bahadori JLT 2016 model)",
                        expected, float(crosstalk.penalty_db(leak, q_ber, 13.0)), "dB", 0.01, rel=False))
    out.append(Case("physics", "R6 wavelengths that fit", "PhoenixSim / Hendry HOTI 2014", 64,
                    float(budget.max_wavelengths_closed_form(20.0, -13.1, 7.5, 7.5)), "λ", 0.0, rel=False))
    out.append(Case("physics", "R7 nearest-channel tuning power", "DSENT", 7.95,
                    microring.tuning_power_nearest_channel_w(3.976e12, 1e15 / 1e-3 * 1e-3, 2) * 1e3, "mW", 0.005,
                    rel=False))
    return out


LINK_TOLERANCE_DB = 0.3  # the physical-layer issue's bound on the IEEE link model's penalty allocations


def _link_budget_cases() -> list[Case]:
    """Published link budgets (`cases/link_budgets.toml`), each design file loaded and evaluated as `sipml budget`
    does."""
    from core import toml_files
    from photonics.link import evaluate
    from sipml.design_files import load_design

    here = Path(__file__).parent / "cases"
    out = []
    for table in toml_files.read(here / "link_budgets.toml").get("case", []):
        src = table.get("source", "IEEE 802.3ae link model 10GEPBud3_1_16a")
        est = evaluate(load_design(str(here / table["design"])).link)
        out += [Case("physics", f"{table['name']}: link penalties", src, table["penalties_db"],
                     sum(p.value_db for p in est.penalties), "dB", LINK_TOLERANCE_DB, rel=False),
                Case("physics", f"{table['name']}: margin", src, table["margin_db"], est.margin_db, "dB",
                     LINK_TOLERANCE_DB, rel=False)]
    return out


def _optical_io_cases() -> list[Case]:
    """The optical I/O of 2026 (`cases/optical_io.toml`), each built-in design evaluated as `sipml budget` does: its
    capacity per direction (or per fibre), that its budget closes, and its energy per bit where published."""
    from core import toml_files
    from photonics.link import evaluate
    from sipml.design_files import load_design

    out = []
    for table in toml_files.read(Path(__file__).parent / "cases" / "optical_io.toml").get("case", []):
        design = load_design(table["design"])
        est = evaluate(design.link)
        name, src, lk = table["name"], table["source"], design.link.link
        if "per_fibre_tbps" in table:
            out.append(Case("optical I/O", f"{name}: capacity per fibre per direction", src, table["per_fibre_tbps"],
                            est.capacity_bps / lk.fibers_per_direction / 1e12, "Tbit/s", table["tolerance"]))
        else:
            out.append(Case("optical I/O", f"{name}: capacity per direction", src, table["capacity_tbps"],
                            est.capacity_bps / 1e12, "Tbit/s", table["tolerance"]))
        out.append(Case("optical I/O", f"{name}: margin at {lk.data_rate / 1e9:g} Gbit/s × {lk.wavelengths_per_fiber} λ",
                        f"{table['design']} design", 0.0, est.margin_db, "dB", 0.0, rel=False,
                        note="the budget must close (margin ≥ 0 dB)", high=math.inf))
        if "energy_pj_per_bit" in table:
            out.append(Case("optical I/O", f"{name}: energy per bit ({table['energy_boundary']})", src,
                            table["energy_pj_per_bit"], est.energy.total_j_per_bit * 1e12, "pJ/bit", 0.2,
                            informational=not table.get("energy_judged", True), note=table.get("energy_note", "")))
    return out


def _torus_cases() -> list[Case]:
    """The TPU-v4-shaped pod (`ocs-torus-v4`, its 16×16×16 slice of 400 Gbit/s links) against Google's published
    pod figures, as `sipml fabric` computes them."""
    from fabric.kind import Collective
    from fabric.registry import get_kind
    from sipml.design_files import load_design

    src = "Google Cloud TPU v4 documentation [GC-TPU4]"
    design = load_design("ocs-torus-v4", ["fabric.message_size=1 GB"])
    kind = get_kind(design.fabric.kind)
    est = kind.evaluate(design)
    c = Collective("all_reduce", 1e9, est.job_gpus)
    t = kind.price(est, [c], mix=[c])[0].seconds
    bus = 2 * (est.job_gpus - 1) / est.job_gpus * 1e9 / t  # bytes per second per chip (nccl-tests' bus bandwidth)
    note = "at the '400G' per ICI link and direction of K21"
    return [Case("OCS torus", "TPU v4 pod bisection, per direction", src, 24.0, est.bisection_bps / 8e12, "TB/s", 0.1,
                 note=note),
            Case("OCS torus", "TPU v4 pod all-reduce bandwidth (bus bandwidth × chips, 1 GB)", src, 1.1,
                 bus * est.job_gpus / 1e15, "PB/s", 0.1, note=note)]


def _reliability_cases() -> list[Case]:
    """Llama 3 405B's interruption record (`sipml reliability llama3-24k --model llama3-405b`, the job on 16,384 of
    its GPUs) and Daly's test cases of his optimum interval."""
    from sipml.design_files import load_design
    from sipml.reliability_report import reliability_reading
    from workloads.goodput import daly_interval_s
    from workloads.models import load_model

    src = "Llama 3 (Grattafiori et al., arXiv 2407.21783) §3.3.4"
    _, g = reliability_reading(load_design("llama3-24k", ["fabric.job_gpus=16384"]), load_model("llama3-405b"))
    out = [Case("reliability", "Llama 3 405B on 16,384 H100: unexpected interruptions per day", src, 419 / 54,
                g.interruptions_per_day, "1/day", 0.15, note="part rates × counts; GPUs and hosts from Table 5's "
                "counts reading, the network from its parts' own rates"),
           Case("reliability", "Llama 3 405B: effective training time ratio", src + " ('higher than 90 %')", 0.90,
                g.ettr, "", 0.0, rel=False, high=1.0)]
    daly = "Daly 2006, figures 3–5 (δ = 5 min) [DALY]"
    for mtti_min, published in ((24 * 60, 117.0), (6 * 60, 57.0), (15, 9.1)):
        out.append(Case("reliability", f"Daly's optimum interval at M = {mtti_min:g} min", daly, published,
                        daly_interval_s(300.0, mtti_min * 60.0) / 60, "min", 0.5, rel=False))
    return out


def _sipml_cases() -> list[Case]:
    from fabric import collectives
    from fabric.estimate import useful_time_fraction

    src = "SiP-ML (Khani et al., SIGCOMM 2021), simulator MLNetwork/rostam [sim]"
    return [
        Case("SiP-ML", "ring useful-time fraction (20 µs every 100 µs)", src, 0.8333,
             useful_time_fraction(100e-6, 20e-6), "", 5e-5, rel=False),
        Case("SiP-ML", "ResNet-50 all-reduce term at 200 Gbit/s", src, 20.0,
             2 * float(collectives.ring_half_s(250e6, 1024, 200e9, 0.0)) * 1e3, "ms", 0.005),
        Case("SiP-ML", "GPT-2 355M all-reduce term at 400 Gbit/s", src, 272.0,
             2 * float(collectives.ring_half_s(6.8e9, 1024, 400e9, 0.0)) * 1e3, "ms", 0.005),
    ]


# nccl-tests all-reduce bus bandwidth, large messages: (design, --set overrides, label, GB/s, source). Each is what
# `sipml fabric DESIGN --set … --message-size '8 GB'` prints for all_reduce (converted to GB/s).
_NCCL = (
    ("dgx-a100", ["fabric.gpus=8"], "8 × A100 NVSwitch all-reduce busbw", 230.0, "nccl-tests issues (workloads.md)"),
    ("dgx-h100", ["fabric.gpus=8"], "8 × H100 NVLink SHARP all-reduce busbw", 478.0, "NVIDIA/nccl issue 1455"),
    ("dgx-h100", ["fabric.gpus=8", "electrical.in_network_reduction=none"], "8 × H100 ring all-reduce busbw", 367.0,
     "NVIDIA/nccl issue 1455"),
    ("dgx-a100", ["fabric.gpus=16"], "2 × DGX A100, 8 × HDR: all-reduce busbw", 192.0,
     "NVIDIA/nccl issue 812 (maintainer's measurement, 8 × 200 Gb/s IB)"),
    ("dgx-a100", ["fabric.gpus=16", "electrical.nic_bandwidth=100 Gbit/s", "electrical.rails=4"],
     "2 × HGX A100, 4 × HDR (a NIC per 2 GPUs): all-reduce busbw", 91.0, "NVIDIA/nccl-tests issue 100"),
    ("dgx-h100", ["fabric.gpus=16"], "2 × DGX H100, 8 × NDR: all-reduce busbw", 380.0,
     "NVIDIA/nccl-tests issue 309 (NVIDIA's multi-host figure, low confidence)"),
    ("dgx-h100", ["fabric.gpus=128"], "16 × DGX H100, 8 × NDR: all-reduce busbw", 376.0,
     "NVIDIA/nccl-tests issues 290, 267 (46–48 GB/s per NDR NIC × 8)"),
)


def _nccl_cases() -> list[Case]:
    from fabric.collectives import busbw_bps
    from fabric.evaluate import evaluate_fabric, job_collective
    from sipml.design_files import load_design

    n = 8e9
    out = []
    for name, sets, label, measured, source in _NCCL:
        est = evaluate_fabric(load_design(name, sets))
        t = job_collective(est, "all_reduce", n).seconds
        out.append(Case("NCCL", label, source, measured, float(busbw_bps("all_reduce", n, est.job_gpus, t)) / 8e9,
                        "GB/s", 0.10))
    return out


# Vendors' optics power per port at their stated boundaries (fabrics-2026.md K1, K5–K11), against the energy per bit
# of the optics lines of each design's bill (`sipml cost DESIGN -f json`, breakdown pj_per_bit): (design, the catalog
# entries that make up one switch port's optics at B1).
_SWITCH_PORT_OPTICS = {"cpo-800g": ("cpo.engine_1p6t", "els.cpo_laser_module"),
                       "dsp-800g": ("transceiver.osfp_800g_dr8",), "lpo-800g": ("transceiver.osfp_800g_dr8_lpo",)}


def switch_port_pj_per_bit(design: str, catalog=None) -> float:
    """Energy per bit (pJ/bit, B1) of one switch port's optics in `design`'s bill: its optics lines' power over the
    bit rate they serve, summed over the entries a port is made of (a co-packaged port: its engine and its share of
    a laser module)."""
    from sipml.design_files import load_design
    from sipml.design_reports import cost_data
    from workloads.evaluation import Evaluation

    point = Evaluation(load_design(design), catalog)
    lines = {b["key"]: b for b in cost_data(design, point.fabric, point.cost)["breakdown"]}
    return sum(lines[key]["pj_per_bit"] for key in _SWITCH_PORT_OPTICS[design])


def _optics_cases() -> list[Case]:
    cpo, dsp, lpo = (switch_port_pj_per_bit(d) for d in ("cpo-800g", "dsp-800g", "lpo-800g"))
    return [
        Case("optics", "CPO switch port optics (engine + laser share), B1", "NVIDIA GTC 2025: ≈ 9 W per 1.6 Tb/s CPO "
             "port (fabrics-2026.md K5, K5a, K6; low authority)", 9.0 / 1.6, cpo, "pJ/bit", 0.05, informational=True,
             note="the catalog's engine and laser figures are this claim's split (K6): shown, not judged"),
        Case("optics", "800G pluggable with DSP, module (B1)", "Broadcom: 14–16 W per 800G pluggable "
             "(photonics-2.md §8 [LFW]; fabrics-2026.md K11)", 14.0 / 0.8, dsp, "pJ/bit", 0.10, high=16.0 / 0.8,
             note="the catalog's 17 W is NVIDIA's Class 8 cage figure"),
        Case("optics", "pluggable ÷ CPO optics power per port, B1", "NVIDIA: '3.5×' lower power than pluggable "
             "transceivers (NVIDIA technical blog; fabrics-2026.md K5) [verbatim]", 3.5, dsp / cpo, "×", 0.15),
        Case("optics", "CPO optics power saving per port, B1", "Broadcom TH6-Davisson: '70 %' less power than "
             "pluggables (fabrics-2026.md K9) [verbatim]", 70.0, 100 * (1 - cpo / dsp), "%", 0.10),
        Case("optics", "64 × 800G ports: DSP minus LPO modules", "vendor blog: '> 500 W' more per 64-port switch "
             "with DSP modules; 64 × (14–16 − 8–9 W) = 320–512 W (fabrics-2026.md K11, low authority)", 320.0,
             64 * 0.8 * (dsp - lpo), "W", 0.10, high=512.0),
    ]


CASES_DIR = Path(__file__).with_name("cases")
METRICS = ("iteration_s", "mfu", "throughput_per_gpu", "sequences_per_gpu", "n21_tflops_per_gpu")
_CASE_KEYS = ("group", "name", "source", "design", "set", "model", "gpus", "batch", "strategy", "metric", "published",
              "tolerance")
_OPTIONAL_KEYS = ("judged", "note")
_METRIC_UNITS = {"iteration_s": "s", "mfu": "", "sequences_per_gpu": "sequences/s per GPU",
                 "n21_tflops_per_gpu": "TFLOP/s per GPU"}  # throughput_per_gpu: the model kind's own unit


@record(slots=False)
class TrainingCase:
    """One published training run as the inputs of a `sipml speedup` command (cases/training_runs.toml)."""

    group: str
    name: str
    source: str
    design: str
    sets: tuple[str, ...]
    model: str  # a zoo name or a path
    gpus: int
    batch: int
    strategy: str
    metric: str
    published: float
    tolerance: float
    judged: bool = True
    note: str = ""

    def argv(self) -> list[str]:
        """The `sipml speedup` command line of the case (its row is the case's result)."""
        out = ["speedup", self.design, "-m", self.model, "--gpus", str(self.gpus), "--batch", str(self.batch),
               "--strategy", self.strategy, "--baseline", self.design]
        for item in self.sets:
            out += ["--set", item]
        return out


def training_cases() -> list[TrainingCase]:
    """The published training runs of `cases/training_runs.toml`, model files resolved beside it."""
    from core import toml_files
    from core.errors import InputError

    path = CASES_DIR / "training_runs.toml"
    out = []
    for i, table in enumerate(toml_files.read(path).get("case", [])):
        where = f"{path}: case {i + 1}"
        unknown = set(table) - set(_CASE_KEYS) - set(_OPTIONAL_KEYS)
        missing = set(_CASE_KEYS) - set(table)
        if unknown or missing:
            raise InputError(f"{where}: unknown keys {sorted(unknown)}, missing {sorted(missing)}")
        if table["metric"] not in METRICS:
            raise InputError(f"{where}: metric {table['metric']!r}: expected one of {', '.join(METRICS)}")
        model = table["model"]
        if model.endswith(".toml"):
            model = str(CASES_DIR / model)
        out.append(TrainingCase(group=table["group"], name=table["name"], source=table["source"],
                                design=table["design"], sets=tuple(table["set"]), model=model, gpus=table["gpus"],
                                batch=table["batch"], strategy=table["strategy"], metric=table["metric"],
                                published=float(table["published"]), tolerance=float(table["tolerance"]),
                                judged=bool(table.get("judged", True)), note=table.get("note", "")))
    return out


def training_case_row(case: TrainingCase, catalog=None, shared=None) -> dict:
    """The `sipml speedup` row of the case, computed by the function the command runs (priced with `catalog`, None:
    the shipped one; `shared`, what the cases before it loaded and evaluated: `sipml.speedup_report.Shared`)."""
    from sipml.speedup_report import run_speedup

    rows, _, failures = run_speedup([case.design], case.model, case.gpus, case.batch, case.strategy,
                                    list(case.sets), [case.design], None, catalog=catalog, shared=shared)
    return rows[0]


def case_value(case: TrainingCase, row: dict) -> float:
    """The number of `row` the case's published value is compared with."""
    if not row.get("feasible"):
        return math.nan
    if case.metric == "throughput_per_gpu":
        return row["throughput"] / row["gpus"]
    if case.metric == "sequences_per_gpu":
        from workloads.models import load_model

        return row["throughput"] / row["gpus"] / load_model(case.model).tokens
    if case.metric == "n21_tflops_per_gpu":
        from workloads.models import load_model
        from workloads.transformer import megatron_flops_per_iteration

        m = load_model(case.model)
        return float(megatron_flops_per_iteration(row["batch"], m.layers, m.hidden, m.seq_len, m.vocab)
                     / (row["gpus"] * row["iteration_s"]) / 1e12)
    return row[case.metric]


def case_unit(case: TrainingCase) -> str:
    """The unit of the case's value: a throughput per GPU in what the model's kind counts (tokens/s, images/s)."""
    if case.metric == "throughput_per_gpu":
        from workloads import kinds
        from workloads.models import load_model

        return f"{kinds.of(load_model(case.model)).throughput_unit} per GPU"
    return _METRIC_UNITS[case.metric]


def _training_cases(judged_only: bool = False) -> list[Case]:
    from fabric.catalog import load_catalog
    from sipml.speedup_report import Shared

    out, catalog, shared = [], load_catalog(), Shared()  # one catalog for every case, each design evaluated once
    for case in training_cases():
        if judged_only and not case.judged:
            continue
        row = training_case_row(case, catalog, shared)
        note = case.note if row.get("feasible") else row.get("reason", "")
        out.append(Case(case.group, case.name, case.source, case.published, case_value(case, row),
                        case_unit(case), case.tolerance, note=note, informational=not case.judged))
    return out


def sipml_speedup_cases() -> list[Case]:
    """SiP-ML's setup: 1024 GPUs, its three models, SiP-Ring and SiP-OCS at 0.5–8 Tbps per GPU (25 Gbps per λ),
    against the 200 and 400 Gbps fat-trees: each speedup should fall inside the paper's 1.3–9.1×. Each design point
    gets a ring whose FSR holds its channels, a comb line per channel, and the laser power its budget needs (1 dB
    over the minimum). A speedup outside the range says why: the ideal switch at the same per-GPU bandwidth shows
    whether bandwidth could have bought it (then the fabric's topology — ring arcs, shared circuits, step
    latency — did not) or whether the job is compute-bound at this batch."""
    from core.errors import InfeasibleDesign, InputError
    from fabric.catalog import load_catalog
    from sipml.design_files import load_design
    from workloads.evaluation import Evaluation
    from workloads.models import load_model
    from workloads.speedup import default_batch

    catalog = load_catalog()
    points: dict = {}  # each design evaluated once (its link, fabric and bill) for the three models

    def point(name: str, sets=()):
        key = (name, *sets)
        if key not in points:
            points[key] = Evaluation(load_design(name, list(sets)), catalog)
        return points[key]

    out = []
    for model_name in ("resnet-50", "transformer-big", "gpt2-355m"):
        model = load_model(model_name)
        batch, _ = default_batch(model, 1024)
        bases = {b: point(b).training(model, batch, name=b) for b in ("fattree-200", "fattree-400")}
        for tbps in (0.5, 2.0, 8.0):
            ideal = point("ideal", [f'ideal.bandwidth="{tbps * 1e3:g} Gbit/s"']).training(model, batch, name="ideal")
            for kind, fibers in (("sip-ring", 10), ("sip-ocs", 20)):
                per_fiber = int(round(tbps * 1e12 / 25e9 / fibers))
                sets = [f"link.wavelengths_per_fiber={per_fiber}", f"laser.lines={per_fiber}",
                        f'ring.radius="{_matched_radius_um(per_fiber):.6f} um"']
                label = f"{model_name} on {kind} at {tbps:g} Tbit/s"
                try:
                    first = point(kind, sets)
                    least = first.link.min_laser_power_per_line_dbm  # NaN: no power closes
                    own = 10 * math.log10(first.design.link.laser.power_per_line / 1e-3)
                    needed = max(least + 1.0, own) if math.isfinite(least) else own
                    result = point(kind, [*sets, f'laser.power_per_line="{needed:.3f} dBm"']).training(model, batch,
                                                                                                        name=kind)
                except (InfeasibleDesign, InputError) as exc:
                    out.append(Case("SiP-ML sweep", label, "SiP-ML abstract: 1.3×–9.1×", 1.3, math.nan, "×",
                                    0.0, high=9.1, note=f"not evaluated: {exc}", informational=True))
                    continue
                for base, base_result in bases.items():
                    speedup = base_result.best.iteration_s / result.best.iteration_s
                    bound = base_result.best.iteration_s / ideal.best.iteration_s
                    why = ""
                    if not 1.3 <= speedup <= 9.1:
                        why = (f"an ideal switch at {tbps:g} Tbit/s gives {bound:.2f}×: "
                               + ("the job is compute-bound at this batch" if bound < 1.3 else
                                  "the fabric's topology (ring arcs, shared circuits, step latency) costs the rest"
                                  if speedup < 1.3 else "more than the paper's upper end"))
                    out.append(Case("SiP-ML sweep", f"{label} vs {base}", "SiP-ML abstract: 1.3×–9.1×", 1.3,
                                    speedup, "×", 0.0, high=9.1, note=why, informational=True))
        sweep = [c for c in out if c.name.startswith(model_name) and c.name.endswith("fattree-200")
                 and math.isfinite(c.ours)]
        best = max(sweep, key=lambda c: c.ours) if sweep else None
        out.append(Case("SiP-ML speedup", f"{model_name}: best SiP fabric over the 200 Gbit/s fat-tree",
                        "SiP-ML abstract: 1.3×–9.1× over electrical networks", 1.3,
                        best.ours if best else math.nan, "×", 0.0, high=9.1,
                        note=best.name if best else "no SiP design point was feasible"))
    return out


def _matched_radius_um(channels: int) -> float:
    """Ring radius whose FSR holds `channels` channels at 200 GHz (n_g 4): R = c/(n_g·2π·N·200 GHz)."""
    return 299_792_458.0 / (4.0 * 2 * math.pi * max(channels, 1) * 200e9) * 1e6 * (1 - 1e-4)  # FSR just above


def all_cases(judged_only: bool = False) -> list[Case]:
    """Every validation case; `judged_only`: the published training runs shown for the reader, not judged, are
    left out (not computed)."""
    return [*_photonics_cases(), *_link_budget_cases(), *_optical_io_cases(), *_torus_cases(), *_reliability_cases(),
            *_sipml_cases(), *_nccl_cases(), *_optics_cases(),
            *_training_cases(judged_only), *sipml_speedup_cases()]


def validation_report(cases: list[Case]) -> Report:
    rows = [{"group": c.group, "case": c.name, "published": _published(c), "ours": _num(c.ours), "unit": c.unit,
             **_error_and_tolerance(c),
             "ok": "info" if c.informational else ("yes" if c.passed else "NO"), "source": c.source,
             "note": c.note} for c in cases]
    data = {"cases": [{"group": c.group, "case": c.name, "published": c.published, "published_high": c.high,
                       "ours": c.ours, "unit": c.unit, "error": c.error, "tolerance": c.tolerance,
                       "relative": c.rel, "judged": not c.informational,
                       "passed": None if c.informational else bool(c.passed), "source": c.source, "note": c.note}
                      for c in cases]}
    judged = [c for c in cases if not c.informational]
    failed = [c for c in judged if not c.passed]
    data.update(judged=len(judged), passed=len(judged) - len(failed), failed=len(failed),
                informational=len(cases) - len(judged))
    footer = [f"{data['passed']} of {len(judged)} judged cases inside their tolerance; {data['informational']} more "
              "rows are shown for the reader (ok = info), not judged; the sources' short keys (K22, L3, BK, …) are "
              "listed in docs/references.md"]
    footer += [f"outside: {c.group}: {c.name}: ours {_num(c.ours)} {c.unit} vs {_published(c)}"
               + (f" — {c.note}" if c.note else "") for c in failed]
    footer += [f"note: {c.name}: {c.note}" for c in cases if c.note]  # judged or not: what a reader weighs it by
    return Report(data, [Table("Validation against published numbers",
                               ["group", "case", "published", "ours", "unit", "error", "tolerance", "ok"], rows)],
                  footer)


def _num(x: float) -> str:
    """Four significant digits, written out (13,860 as 13860, not 1.386e+04) from 10⁻³ to 10⁹."""
    if not math.isfinite(x):
        return "–"
    if x and 1e4 <= abs(x) < 1e9:
        return f"{round(x, 3 - math.floor(math.log10(abs(x)))):.0f}"
    return f"{x:.4g}"


# a relative error and its tolerance in the unit that keeps the tolerance a plain number: %, then ppm, then ppb
_RELATIVE_UNITS = ((1e-3, 100.0, "%"), (1e-6, 1e6, "ppm"), (0.0, 1e9, "ppb"))


def _decimals(tolerance: float) -> int:
    """Decimals that show a tolerance whole and an error one digit finer (0.3 → 2, 0.005 → 4, 7 → 1)."""
    return max(0, -math.floor(math.log10(tolerance))) + 1 if tolerance > 0 else 0


def _error_and_tolerance(c: Case) -> dict[str, str]:
    """The `error` and `tolerance` cells of a case, each in its own unit: a relative case's in % (ppm or ppb for a
    tolerance below 0.1 % or 1 ppm), an absolute case's in the case's unit, a published range's relative to its
    nearer end; the error rounded one digit finer than the tolerance, so float noise reads as 0."""
    relative = c.rel or c.high is not None
    if relative:  # a range judged with no tolerance beyond it: its error in % of the nearer end
        scale, unit = next((s, u) for floor, s, u in _RELATIVE_UNITS if c.tolerance >= floor or c.tolerance == 0)
    else:
        scale, unit = 1.0, c.unit
    tolerance = c.tolerance * scale
    decimals = _decimals(tolerance) if tolerance > 0 or not relative else 1
    suffix = f" {unit}" if unit else ""
    shown_tolerance = ("exact" if tolerance == 0 else f"±{tolerance:.{max(decimals - 1, 0)}f}{suffix}")
    if c.high is not None:
        shown_tolerance = "in range" if tolerance == 0 else f"range {shown_tolerance}"
    if c.informational:  # shown for the reader: no tolerance is claimed
        shown_tolerance = "not judged"
    if not math.isfinite(c.ours):
        return {"error": "–", "tolerance": shown_tolerance}
    error = round(c.error * scale, decimals)
    shown_error = f"{error:+.{decimals}f}" if error != 0 else f"{0:.{decimals}f}"
    return {"error": shown_error + suffix, "tolerance": shown_tolerance}


def _published(c: Case) -> str:
    return f"{c.published:g}–{c.high:g}" if c.high is not None else f"{c.published:g}"
