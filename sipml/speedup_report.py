"""`sipml speedup` and `sipml models`: what each fabric buys one model, against the baselines, as a report."""

from __future__ import annotations

import dataclasses
import math

from sipml.render import Report, Table

DEFAULT_DESIGNS = ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100")
DEFAULT_BASELINES = ("fattree-200", "dgx-a100")
SECONDS_PER_YEAR = 3.15576e7  # the Julian year (365.25 d), the registry's 'yr'
J_PER_KWH = 3.6e6


@dataclasses.dataclass
class Shared:
    """What the `run_speedup` calls of one command share, each done once for all of them: the designs loaded
    ({(name, *sets): design}), their optical links evaluated ({LinkDesign: LinkEstimate},
    `Evaluation.share_link`) and the design points with their fabrics, bills and trainings ({design: Evaluation},
    each under the catalog and GPU table it was made with). `sipml report` runs ~50 such calls over ~20 designs."""

    designs: dict = dataclasses.field(default_factory=dict)
    links: dict = dataclasses.field(default_factory=dict)
    points: dict = dataclasses.field(default_factory=dict)
    unshared: list = dataclasses.field(default_factory=list)  # points whose link was not evaluated when last asked

    def point(self, design, catalog, gpu_table):
        """The design's Evaluation under `catalog` and `gpu_table`: the one made before, or a new one kept. Its link
        is taken from an earlier point's of the same link design, or given to later ones once evaluated (never
        evaluated here: a design the fabric refuses is refused for that, not for its link)."""
        from workloads.evaluation import Evaluation

        for waiting in self.unshared:  # links evaluated since: given to the points made from now on
            waiting.share_link(self.links, evaluate=False)
        found = self.points.get(design)
        if found is None or found.catalog is not catalog or found.gpus is not gpu_table:
            found = Evaluation(design, catalog, gpu_table)
            found.share_link(self.links, evaluate=False)
            self.points[design] = found
        self.unshared = [p for p in dict.fromkeys([*self.unshared, found])
                         if p.link_design is not None and "link" not in p.__dict__]
        return found


def _load(name: str, overrides, gpus: int | None, designs: dict | None = None):
    """Design `name` with `overrides` at `gpus`; `designs`, those loaded before ({(name, sets): design}), which this
    one is taken from or added to."""
    from sipml.design_files import load_design

    sets = list(overrides or [])
    if gpus == 1:  # a cluster has at least two GPUs: a one-GPU job runs on one of the design's, charged its share
        sets.append("fabric.job_gpus=1")
    elif gpus is not None:
        sets.append(f"fabric.gpus={gpus}")
    if designs is None:
        return load_design(name, sets)
    key = (name, *sets)
    if key not in designs:
        designs[key] = load_design(name, sets)
    return designs[key]


def _check_sizes_given_once(overrides, gpus: int) -> None:
    """--gpus N (N ≥ 2) sets [fabric] gpus of every design compared: a --set of the size too (it took --gpus's,
    unsaid) or of the job's (a job on part of the clusters, which --gpus sizes to the job) is refused, saying how to
    ask; --gpus 1 sets the job's (one GPU of each cluster, which a --set may size)."""
    from core.errors import InputError

    sizes = ("fabric.job_gpus",) if gpus == 1 else ("fabric.gpus", "fabric.job_gpus")
    for item in overrides or []:
        key = item.partition("=")[0].rpartition(":")[2].strip()
        if key in sizes:
            raise InputError(f"--gpus sizes every cluster compared to the job: --set {item} beside it is refused; "
                             "for a job on part of a cluster, give no --gpus and --set fabric.gpus=N "
                             "--set fabric.job_gpus=M")


ALTERNATIVES = 2  # next-fastest strategies a row lists; the search keeps 5 (Evaluation.training's), as every section
# of `sipml report` asks, so each design's search runs once
MAX_TOKENS = 1e18  # [assumed] ~1000× the largest published training runs (Llama 3: 15.6e12 tokens)
ROW_KEYS = ("design", "feasible", "fabric", "model", "gpus", "cluster_gpus", "gpu", "batch", "strategy", "iteration_s",
            "stack", "precision", "breakdown", "memory_gb_per_gpu", "tflops_per_gpu", "mfu", "hardware_tflops_per_gpu", "hfu",
            "throughput", "throughput_unit", "candidates", "feasible_candidates", "cluster_cost_usd",
            "cluster_power_w", "per_gpu_bandwidth_gbps", "interruptions_per_day", "job_mtti_s", "checkpoint_interval_s",
            "restart_s", "ettr")
VERSUS = ("speedup", "speedup_per_dollar", "speedup_per_watt", "goodput_speedup", "goodput_speedup_per_dollar",
          "goodput_speedup_per_watt")
RUN_KEYS = ("run_time_s", "energy_kwh", "electricity_usd", "hardware_usd", "run_cost_usd", "goodput_run_time_s",
            "goodput_energy_kwh", "goodput_run_cost_usd")  # a row's training run, as `_row` adds them


def run_speedup(designs, model_name: str, gpus: int | None, batch: int | None, strategy: str | None, overrides,
                baselines, tokens: float | None, top: int = 5, catalog=None, gpu_table=None,
                shared: Shared | None = None, given: dict | None = None):
    """The rows of `sipml speedup`: one per design, each with its speedups over every baseline; `catalog` the one
    to price with (None: the shipped one, read here), `gpu_table` the GPUs to find each design's among (None: the
    shipped ones; `workloads.gpus.load_gpus` with a user's GPU files); `shared` what earlier calls loaded and
    evaluated (`Shared`), which this one reads and adds to; `given` the designs of `designs` a caller loaded
    ({name: ClusterDesign}: the Python API's, taken as they are)."""
    from core.errors import InfeasibleDesign, InputError
    from fabric.catalog import load_catalog
    from workloads.models import load_model
    from workloads.speedup import baseline_training, default_batch, gpu_of
    from workloads.strategy import parse_strategy

    if batch is not None:  # the API's too: one bound (workloads.strategy.MAX_BATCH)
        from workloads.strategy import check_batch

        batch = check_batch(batch)
    model = load_model(model_name)
    amount, amount_unit = _amount(model, tokens)
    fixed = parse_strategy(strategy)
    catalog = catalog or load_catalog()
    shared = shared or Shared()  # a baseline that is a design compared runs once
    names = list(dict.fromkeys([*(designs or DEFAULT_DESIGNS)]))
    base_names = list(baselines or DEFAULT_BASELINES)
    if gpus is not None:
        _check_sizes_given_once(overrides, gpus)
    # --set changes the designs compared, not the baselines they are measured against (a BASELINE:section.key=
    # override changes that baseline), whatever else is compared: a row's speedups do not depend on the other rows
    from sipml.design_files import scoped_overrides

    every = list(dict.fromkeys(names + base_names))
    scoped = [o for o in overrides or [] if ":" in o.partition("=")[0]]
    given = given or {}
    loaded = {name: given[name] if name in given else _load(name, scoped_overrides(name, overrides, every), gpus,
                                                            shared.designs) for name in names}
    jobs = {d.job_gpus for d in loaded.values()}
    base_gpus = gpus if gpus is not None or len(jobs) > 1 else next(iter(jobs))  # the baselines follow the job
    versions = {(b, name): measured_baseline(b, design, scoped_overrides(b, scoped, every), base_gpus, shared.designs)
                for name, design in loaded.items() for b in base_names}
    sizes = {d.job_gpus for d in [*loaded.values(), *versions.values()]}
    if len(sizes) > 1:
        fix = ("load every design with the same fabric.gpus (gpus= sizes designs given by name)" if given  # the API's
               else "give --gpus to compare them at one size")  # (it refuses gpus= beside a loaded design)
        raise InputError(f"the designs run jobs of different sizes ({', '.join(map(str, sorted(sizes)))} GPUs): {fix}")
    n = sizes.pop()
    batch_source = "--batch"
    if batch is None:
        batch, batch_source = default_batch(model, n)

    def point(design):
        return shared.point(design, catalog, gpu_table)

    results, failures = _trained(loaded, point, model, batch, fixed, top)
    measured = {}  # (baseline, design) → (Result, the parts of the fixed strategy it ran without) or None
    for (b, name), design in versions.items():
        if design == loaded.get(b) and b in failures:
            measured[(b, name)] = None  # the design of that name, refused above
            continue
        try:
            measured[(b, name)] = baseline_training(point(design), model, batch, fixed, name=b, top=top)
        except InfeasibleDesign as exc:
            measured[(b, name)] = None
            failures.setdefault(f"{b} on {gpu_of(design, gpu_table).name}", str(exc))
        except InputError as exc:  # what the baseline cannot be, named as a design's is (its own --set fixes it)
            raise InputError(f"baseline {b} (measured against {name}; '{b}:section.key=' sets it): {exc}") from None
    rows = [_refused_row(name, model.name, n, batch, failures[name], base_names[0], amount, amount_unit)
            if name in failures
            else _row(name, results[name], {b: measured[(b, name)] for b in base_names}, amount, amount_unit)
            for name in names]
    experts = model.experts if getattr(model, "is_moe", False) else 0
    for row in rows:
        row["experts"] = experts
        row["notes"] = _notes(row, loaded, versions, base_names, gpu_table, fixed)
        goodput = getattr(results.get(row["design"]), "goodput", None)  # a refused design's row has none
        row["notes"] += list(goodput.notes) if goodput is not None else []
    return rows, batch_source, failures


def _trained(loaded: dict, point, model, batch: int, fixed: dict, top: int) -> tuple[dict, dict]:
    """({name: Result}, {name: why it cannot train}) of the designs compared (`point(design)`: its Evaluation), the
    designs first: a strategy one of them cannot run is refused. What a design cannot be (its fabric, a catalog
    entry) is refused naming it, as `fabric` does; an option's refusal (`--strategy …`) names the option."""
    from core.errors import InfeasibleDesign, InputError

    results, failures = {}, {}
    for name, design in loaded.items():
        try:
            results[name] = point(design).training(model, batch, fixed, name=name, top=top)
        except InfeasibleDesign as exc:
            failures[name] = str(exc)
        except InputError as exc:
            if str(exc).startswith((name, "--")):
                raise
            raise InputError(f"{name}: {exc}") from None
    return results, failures


def _notes(row: dict, loaded: dict, versions: dict, base_names: list, gpu_table, fixed: dict) -> list[str]:
    """A row's notes: what its fabric and each baseline's were priced with where the GPU binds them
    (workloads.speedup), the design's servers where their NVLink is slower than its GPU's own or their NVLink
    domain other than asked (`FabricKind.notes_on_servers`), FP8 GEMMs run in 16 bits, MFU's count of causal
    attention where it matters."""
    from workloads.speedup import gpu_bound, gpu_bound_note, slower_nvlink_note

    def bound(design) -> str:
        return gpu_bound_note(design, gpu_bound(design, gpu_table))

    from fabric.registry import get_kind

    name = row["design"]  # a baseline's servers slower than the GPU it carries are the comparison, not said
    said = {"": bound(loaded[name]) or slower_nvlink_note(loaded[name], gpu_table),
            **{f"baseline {b}: ": bound(versions[(b, name)]) for b in base_names}}
    return ([who + note for who, note in said.items() if note]
            + list(get_kind(loaded[name].fabric.kind).notes_on_servers(gpu_bound(loaded[name], gpu_table)))
            + _precision_notes(row, fixed)
            + _attention_kernel_note(row, loaded[name], gpu_table) + _free_split_note(row)
            + _masked_attention_note(row))


def _free_split_note(row: dict) -> list[str]:
    """A model split data × model parallel whose model-parallel part moves nothing (a model file that declares no
    `model_parallel_traffic`): its split is priced free, so the search takes the widest one; said."""
    strategy = row.get("strategy") or {}
    if not row.get("feasible") or strategy.get("mp", 1) <= 1 or row["breakdown"].get("tensor_parallel", 0.0) > 0:
        return []
    return [f"mp={strategy['mp']} moves nothing: the model declares no model_parallel_traffic (0 B), so its "
            "model-parallel split is priced free; give the bytes a sample's split moves, or fix --strategy tp=1"]


def _attention_kernel_note(row: dict, design, gpu_table) -> list[str]:
    """A stack's fused attention on a GPU whose figures have no fused kernel at all runs unfused: said (a user's GPU
    file without an [attention] table; an older kernel where the GPU lacks the newest, FlashAttention-2 on an A100,
    is the GPU's own)."""
    from workloads.speedup import gpu_of
    from workloads.stacks import get_stack

    if not row.get("feasible") or "tp" not in (row.get("strategy") or {}):  # a transformer's strategy
        return []
    wanted = get_stack(row["stack"]).compute.attention
    gpu = gpu_of(design, gpu_table)
    if wanted == "unfused" or gpu.attention_kernel(wanted) != "unfused":
        return []
    return [f"stack {row['stack']!r} runs {wanted} attention where the GPU has it; {gpu.name}'s figures have no "
            "fused kernel, so it runs unfused (an [attention] table in its GPU file gives the kernels' rates)"]


def _precision_notes(row: dict, fixed: dict) -> list[str]:
    """A stack whose GEMMs run in FP8 (`gemm_precision`) on a GPU without FP8 tensor cores runs them in 16 bits:
    said."""
    from workloads.stacks import get_stack

    if not row.get("feasible") or "precision" in fixed or row["precision"] == "fp8":
        return []
    if get_stack(row["stack"]).compute.gemm_precision != "fp8":
        return []
    return [f"stack {row['stack']!r} runs its GEMMs in FP8 where the GPU can; {row['gpu']} has no FP8 tensor cores, "
            f"so they run in {row['precision']}"]


MASKED_SHARE_NOTED = 0.05  # MFU points above HFU from which a row says what causal attention's count does


def _masked_attention_note(row: dict) -> list[str]:
    """MFU counts causal attention's masked half, which no kernel runs (as Megatron-LM and PaLM count it); where that
    puts MFU well above what the GPUs executed (long causal sequences), said with the executed figures."""
    if not row.get("feasible") or row["mfu"] - row["hfu"] < MASKED_SHARE_NOTED:
        return []
    return [f"MFU {100 * row['mfu']:.1f} % counts the masked half of causal attention (as Megatron-LM and PaLM "
            f"count it); the GPUs executed {row['hardware_tflops_per_gpu']:.0f} TFLOP/s each (HFU "
            f"{100 * row['hfu']:.1f} %)"]


def _refused_row(name: str, model: str, gpus: int, batch: int, reason: str, baseline: str, amount: float,
                 amount_unit: str) -> dict:
    """The row of a design that cannot run the job: every key of a priced row (`_row`), in its order, those it has
    no value for null, and why."""
    row = {**dict.fromkeys(ROW_KEYS), "allocation": None, **dict.fromkeys(VERSUS), "baseline": baseline,
           "baselines": None, **dict.fromkeys(RUN_KEYS), "run_amount": amount, "run_amount_unit": amount_unit,
           "alternatives": None}
    row.update(design=name, model=model, gpus=gpus, batch=batch, feasible=False, reason=reason)
    return row


def _row(name: str, r, measured: dict, amount: float, amount_unit: str) -> dict:
    """One design's row: its result `r` against each baseline (`measured`: baseline → (Result, the dropped parts of
    the fixed strategy), or None where refused; the first sets `speedup`), and its run of `amount`."""
    from sipml.design_reports import reported
    from sipml.quantities import Reading, values

    base_names = list(measured)
    base = (measured[base_names[0]] or (None,))[0]
    reading = Reading(fabric=r.estimate, cost=r.cost, result=r, baseline=base)
    row = reported(reading, ROW_KEYS, {
        "design": name, "feasible": True, "fabric": r.estimate.kind, "model": r.model.name, "gpus": r.estimate.job_gpus,
        "cluster_gpus": r.estimate.gpus,
        "gpu": r.gpu.name, "batch": r.batch, "strategy": r.best.strategy, "stack": r.stack.name,
        "precision": r.precision, "breakdown": r.best.breakdown,
        "throughput_unit": r.throughput_unit, "candidates": r.candidates, "feasible_candidates": r.feasible})
    row["allocation"] = getattr(r.estimate.details, "allocation", None)  # SiP-Ring: how wavelengths followed
    versus = {b: _versus(r, b, *measured[b]) if measured[b] else None for b in base_names}
    row.update(values(reading, VERSUS) if base is not None else dict.fromkeys(VERSUS))
    row["baseline"] = base_names[0]
    row["baselines"] = versus
    run = r.run(amount)
    row.update({"run_" + k if k == "time_s" else k: v for k, v in run.items()})
    row.update({f"goodput_{'run_' if k == 'time_s' else ''}{k}": v for k, v in r.goodput_run(amount).items()})
    row["run_amount"], row["run_amount_unit"] = amount, amount_unit
    row["alternatives"] = [{"strategy": c.strategy, "iteration_s": c.iteration_s} for c in r.top[1:ALTERNATIVES + 1]]
    return row


def measured_baseline(name: str, design, sets: list[str], gpus: int | None, designs: dict | None = None):
    """Baseline `name` as it is measured against `design`: carrying the design's GPU and server host (`[fabric]
    gpu` and `host`), unless `sets` (the --set items that reach the baseline) give it a GPU of its own, and the
    design's `[reliability]` settings but its hot spares (how the job is run — its checkpoints, storage, restarts —
    not what is bought), unless `sets` give it reliability settings of its own; `designs` as `_load` reads them."""
    keys = [item.partition("=")[0].strip() for item in sets]
    own = _load(name, sets, gpus, designs)
    if "fabric.gpu" not in keys:
        carried = [f'fabric.{key}="{getattr(design.fabric, key)}"' for key in ("gpu", "host")
                   if getattr(own.fabric, key) != getattr(design.fabric, key)]
        own = _load(name, sets + carried, gpus, designs) if carried else own
        own = _with_servers_of(design, own)
    run = job_run(design, own, {key.partition(".")[2] for key in keys if key.startswith("reliability.")})
    return own if run == own.reliability else dataclasses.replace(own, reliability=run)


def _with_servers_of(design, baseline):
    """A baseline carrying the design's GPU and host, with the design's NVLink domain where its own servers take
    theirs from a server whose domain the calculator does not know (a catalog file's GPU or server) and the design
    has one: the same servers on every side. The baseline as it is where its domain is known or set by itself, or
    the design has none."""
    from core.errors import InputError
    from fabric.registry import get_kind

    kind = get_kind(baseline.fabric.kind)
    try:
        kind.nvlink_domain(baseline)
        return baseline
    except InputError:
        pass
    try:
        domain = get_kind(design.fabric.kind).nvlink_domain(design)
    except InputError:
        return baseline
    return baseline if domain is None else kind.with_servers(baseline, domain)


def job_run(design, baseline, given=frozenset()):
    """The baseline's `[reliability]` section as the design's job is run: the design's settings (checkpoints,
    storage, restarts), but the baseline's hot spares (its purchase) and whatever it sets itself — the keys
    `given` by --set, and those its file gives other than the default."""
    from core.fields import default_of
    from fabric.cluster_design import ReliabilitySection

    shipped, own = default_of(ReliabilitySection), baseline.reliability
    kept = {key for key in dataclasses.asdict(own) if key in given or getattr(own, key) != getattr(shipped, key)}
    return dataclasses.replace(design.reliability, spare_gpus=own.spare_gpus,
                               **{key: getattr(own, key) for key in kept - {"spare_gpus"}})


def run_key(design) -> tuple:
    """What a saved baseline depends on of the design it is measured against: its cluster and job size, GPU and
    server, and how its job is run (`job_run`: its [reliability] settings but its hot spares)."""
    return (design.fabric.gpus, design.job_gpus, design.fabric.gpu, design.fabric.server,
            dataclasses.replace(design.reliability, spare_gpus=0))


def _versus(result, name: str, baseline, dropped: dict) -> dict:
    """`result` against baseline `name` (its result `baseline`, run without the `dropped` parts of the fixed
    strategy): speedup, per $ and per W, the baseline's GPU and GEMM precision, and the fallback said in one line
    (None when it ran the whole strategy)."""
    from workloads.speedup import compare

    fallback = None
    if dropped:
        parts = "; ".join(f"{part}: {why}" for part, why in dropped.items())
        fallback = (f"{name} ({baseline.gpu.name}) cannot run {parts}; it runs its best strategy without "
                    f"{'it' if len(dropped) == 1 else 'them'} ({baseline.precision} GEMMs)")
    return {**compare(result, baseline), "gpu": baseline.gpu.name, "precision": baseline.precision,
            "fallback": fallback}


def _amount(model, tokens: float | None):
    import math

    from core.errors import InputError
    from workloads import kinds

    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, (int, float))
                               or not math.isfinite(tokens) or tokens < 1 or tokens > MAX_TOKENS
                               or tokens != math.floor(tokens)):
        shown = (int(tokens) if isinstance(tokens, float) and not isinstance(tokens, bool) and math.isfinite(tokens)
                 and tokens.is_integer() and abs(tokens) < 1e19 else repr(tokens))  # 0, not the 0.0 the option's
        # float type made of it; 1e+308, not its 309 digits
        raise InputError(f"--tokens {shown}: expected a whole count of tokens (or samples), at least 1 and at "
                         f"most {MAX_TOKENS:.0e} (300e9 is one)")
    kind = kinds.of(model)
    return (tokens if tokens is not None else kind.default_amount), kind.unit


def _x(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def speedup_report(rows, batch_source: str, failures: dict) -> Report:
    feasible = [r for r in rows if r["feasible"]]
    first = feasible[0] if feasible else rows[0]
    base = first.get("baseline", "")
    on_own_gpu = all((r["baselines"][base] or {}).get("gpu", r["gpu"]) == r["gpu"] for r in feasible)
    gpus = (f"{first['gpus']} GPUs" if first["gpus"] > 1 else
            "1 GPU of each design's cluster (charged its share; --gpus 2 and up size the clusters to the job)")
    summary = Table(f"{first['model']} on {gpus}, global batch {first['batch']} ({batch_source}): "
                    f"speedup over {base}" + (" on each design's GPU" if on_own_gpu else " (its GPU: see below)"),
                    ["design", "GPU", "iteration s", "TFLOP/s per GPU", "MFU %", "speedup", "per $", "per W",
                     "run days", "energy MWh", "run cost USD"],
                    [{"design": r["design"], "GPU": r["gpu"], "iteration s": f"{r['iteration_s']:.4g}",
                      "TFLOP/s per GPU": f"{r['tflops_per_gpu']:.1f}", "MFU %": f"{100 * r['mfu']:.1f}",
                      "speedup": _x(r["speedup"]), "per $": _x(r["speedup_per_dollar"]),
                      "per W": _x(r["speedup_per_watt"]), "run days": f"{r['run_time_s'] / 86400:.3g}",
                      "energy MWh": f"{r['energy_kwh'] / 1e3:.4g}", "run cost USD": f"{r['run_cost_usd']:,.0f}"}
                     for r in feasible])
    others = [b for b in first.get("baselines") or {} if b != base]  # a refused row's are null
    tables = [summary]
    if feasible and first.get("ettr") is not None:
        tables.append(Table(f"With interruptions: each job's failures, checkpoints and restarts (goodput over {base})",
                            ["design", "interruptions/day", "MTTI h", "checkpoint every", "restart min", "ETTR %",
                             "speedup", "per $", "per W", "run days", "energy MWh", "run cost USD"],
                            [{"design": r["design"], "interruptions/day": f"{r['interruptions_per_day']:.3g}",
                              "MTTI h": "–" if r["job_mtti_s"] is None else f"{r['job_mtti_s'] / 3600:.3g}",
                              "checkpoint every": "–" if r["checkpoint_interval_s"] is None
                              else _interval_text(r["checkpoint_interval_s"]),
                              "restart min": f"{r['restart_s'] / 60:.3g}", "ETTR %": f"{100 * r['ettr']:.1f}",
                              "speedup": _x(r["goodput_speedup"]), "per $": _x(r["goodput_speedup_per_dollar"]),
                              "per W": _x(r["goodput_speedup_per_watt"]),
                              "run days": f"{r['goodput_run_time_s'] / 86400:.3g}",
                              "energy MWh": f"{r['goodput_energy_kwh'] / 1e3:.4g}",
                              "run cost USD": f"{r['goodput_run_cost_usd']:,.0f}"} for r in feasible]))
    if others:
        tables.append(Table("Against the other baselines", ["design", *(f"{b} {k}" for b in others
                                                                        for k in ("speedup", "per $", "per W"))],
                            [{"design": r["design"], **{f"{b} {k}": _x((r["baselines"][b] or {}).get(key))
                                                       for b in others
                                                       for k, key in (("speedup", "speedup"),
                                                                      ("per $", "speedup_per_dollar"),
                                                                      ("per W", "speedup_per_watt"))}}
                             for r in feasible]))
    if not feasible:
        return Report({"rows": rows}, [], [f"{name}: {why}" for name, why in failures.items()], records=rows)
    tables.append(Table("Best strategy and where the iteration goes (seconds)",
                        ["design", "stack", "strategy", *first["breakdown"], "GB/GPU", "searched"],
                        [{"design": r["design"], "stack": r["stack"] + ("" if r["precision"] in ("bf16", "fp16")
                                                                        else f" {r['precision']}"),
                          "strategy": _strategy_text(r["strategy"]),
                          **{k: f"{v:.3g}" for k, v in r["breakdown"].items()},
                          "GB/GPU": f"{r['memory_gb_per_gpu']:.1f}",
                          "searched": f"{r['feasible_candidates']}/{r['candidates']}"} for r in feasible]))
    footer = [f"{name}: {why}" for name, why in failures.items()]
    footer += [f"{r['design']}: note: {note}" for r in rows for note in r.get("notes", ())]
    footer += _indivisible_batch(feasible)
    footer += _baseline_gpus(feasible)
    footer += list(dict.fromkeys(v["fallback"] for r in feasible for v in r["baselines"].values()
                                 if v and v["fallback"]))
    from fabric.registry import get_kind

    footer += [f"{r['design']}: {get_kind(r['fabric']).variant_note(r['allocation'])}" for r in feasible
               if r.get("allocation")]
    from workloads.speedup import DEFAULT_RUN

    run = DEFAULT_RUN
    footer += [f"run: {first['run_amount']:,.0f} {first['run_amount_unit']}; energy = nameplate × "
               f"{run.load_fraction:g} load × PUE; cost = hardware over a {run.life / SECONDS_PER_YEAR:g}-year life + "
               f"electricity at ${run.electricity * J_PER_KWH:.3g}/kWh (Epoch AI)",
               "speedup = baseline iteration time / this one; per $ and per W divide by the job's share of its "
               "cluster's cost and nameplate power (the whole cluster for a job on all of it)",
               "TFLOP/s per GPU counts the model's FLOPs (forward and backward, no recomputation: the same whatever is "
               "recomputed; causal attention whole); MFU divides them by the GPUs' dense 16-bit peak (Chowdhery et al. "
               "2022); JSON hardware_tflops_per_gpu and hfu count the FLOPs executed, recomputation included"]
    footer += _compute_model_notes(feasible)
    footer += [f"{kind}: a reference switch with no cost of its own (network $0), so its per-$ and per-W figures "
               "are upper bounds, not a design" for kind in dict.fromkeys(r["fabric"] for r in feasible)
               if not get_kind(kind).costed]
    return Report({"rows": rows}, tables, footer, records=rows)


def _indivisible_batch(rows) -> list[str]:
    """A line where the batch does not divide over the GPUs the way data parallelism needs: where data parallelism
    stopped at the largest divisor of both (the rest of the GPUs went to model parallelism the model may not want),
    or where the GPUs' odd factor does not divide the batch, so that model parallelism must take part of it (4,032
    GB200s of 56 NVL72 racks, 2^6 × 63, under a batch of 2,048: a pipeline of 63 stages), with a batch that is a
    multiple of it."""
    import math

    lines = []
    for r in rows:
        batch, gpus, strategy = r["batch"], r["gpus"], r["strategy"]
        shared = math.gcd(batch, gpus)
        odd = gpus >> ((gpus & -gpus).bit_length() - 1)  # the GPUs' odd part: what powers of two cannot split
        if batch % gpus and strategy.get("dp") == shared:
            lines.append(f"note: the global batch {batch} is not a multiple of the {gpus} GPUs, so data parallelism "
                         f"stops at their largest common divisor (dp = {strategy['dp']} on {r['design']}); --batch "
                         "sets one that divides")
        elif batch % odd:
            took = ", ".join(f"{k} = {v}" for k, v in strategy.items() if k != "dp" and isinstance(v, int)
                             and not isinstance(v, bool) and v > 1 and math.gcd(v, odd) > 1)
            nearest = min((odd << k for k in range(max(batch.bit_length(), 1) + 1)),
                          key=lambda b: (abs(b - batch), b))  # the batch nearest of that factor times a power of 2
            took = took or "the model-parallel split"
            lines.append(f"note: the {gpus} GPUs' odd factor {odd} does not divide the global batch {batch}: data "
                         f"parallelism cannot take all of it, so model parallelism does ({took} on {r['design']}); "
                         f"a batch that is a multiple of {odd} (--batch {nearest}) lets data parallelism take it")
    return list(dict.fromkeys(lines))


def _baseline_gpus(rows) -> list[str]:
    """One line per baseline: the GPU it ran against each design (the design's own unless --set gave it one)."""
    lines = []
    for b in rows[0]["baselines"] if rows else ():
        ran = [(r["design"], r["gpu"], r["baselines"][b]["gpu"]) for r in rows if r["baselines"][b]]
        if not ran:
            continue  # it ran nowhere: its failure is said above
        if all(own == theirs for _, own, theirs in ran):
            lines.append(f"baseline {b} runs each design's GPU and server host: "
                         + "; ".join(f"{gpu} against {', '.join(d for d, own, _ in ran if own == gpu)}"
                                     for gpu in dict.fromkeys(own for _, own, _ in ran)))
        else:
            lines.append(f"baseline {b} runs the GPU --set gives it: "
                         + "; ".join(f"{gpu} against {', '.join(d for d, _, theirs in ran if theirs == gpu)}"
                                     for gpu in dict.fromkeys(theirs for _, _, theirs in ran)))
    return lines


def _interval_text(seconds: float) -> str:
    """A checkpoint interval in the unit that reads it (a 1/1 000 s step's interval is tens of milliseconds, not
    0.000558 min: `sipml.render.duration_parts`)."""
    from sipml.render import duration_parts

    return " ".join(duration_parts(seconds))


def _compute_model_notes(feasible: list[dict]) -> list[str]:
    """What the validation says of the compute model where these rows lean on it: H100s, FP8, MoE."""
    notes = []
    if any(_architecture(r["gpu"]) == "hopper" for r in feasible):
        notes.append("hopper: the in-situ efficiency is fitted on NVIDIA's H100 runs priced as their sources "
                     "state them (DGX Cloud GPT-3 175B in BF16 and FP8, NeMo's Llama 3 8B to 405B in FP8), within "
                     "11 %: the small FP8 run slower, the largest faster than this model; a CNN step (MLPerf "
                     "ResNet-50) is 21 % faster than this model gives it (sipml validate, groups DGX Cloud GPT-3, "
                     "NeMo 25.11, ResNet-50)")
    if any(r.get("experts") for r in feasible):
        notes.append("moe: a mixture of experts' step is checked against published runs only for the reader: validate "
                     "shows its MoE rows (Qwen3 30B-A3B and 235B-A22B, DeepSeek-V3) beside their published figures "
                     "but judges none, so read its figures as estimates (sipml validate, groups NeMo 25.11, NeMo "
                     "26.x, DeepSeek-V3)")
    if any(r["precision"] == "fp8" for r in feasible):
        notes.append("fp8: MFU still divides by the 16-bit peak, so FP8 GEMMs can take it past 100 %; NVIDIA's FP8 "
                     "runs of Llama 3 on H100 reach 73–75 % of it, and the model is faster than NVIDIA's 405B run "
                     "at batch 512 by about 6 % (sipml validate, groups NeMo 25.11 and 26.x)")
    return notes


def _architecture(gpu_name: str) -> str | None:
    """The shipped GPU's generation (None for a GPU only a user's file defines)."""
    from workloads.gpus import shipped_gpus

    gpus = shipped_gpus()
    return gpus[gpu_name].architecture if gpu_name in gpus else None


def _strategy_text(strategy: dict) -> str:
    """The strategy as `--strategy` takes it (`sp=true`, never Python's `True`), its defaults left out."""
    skip = {"ep": 1, "cp": 1, "interleave": 1, "zero": 0, "sp": False, "order": "tp-dp-pp",
            "etp": strategy.get("tp")}  # experts split as the dense layers: Megatron-Core's default
    return " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in strategy.items()
                    if skip.get(k, object()) != v)


def models_report(catalog=None, gpus=None) -> Report:
    """The zoo, the GPUs (`gpus`: a GPU table with a user's files merged; the shipped ones without) priced from
    `catalog` (the shipped one without), and the software stacks."""
    from fabric.catalog import load_catalog
    from workloads.gpus import load_gpus
    from workloads import kinds
    from workloads.models import zoo
    from workloads.speedup import DEFAULT_BATCH

    rows = []
    for name, model in zoo().items():
        kind = kinds.of(model)
        params, shape = kind.parameters(model), kind.shape(model)
        batch = DEFAULT_BATCH.get(name, (None, ""))[0]
        rows.append({"model": name, "kind": model.info.kind, "parameters": params, "shape": shape,
                     "default_batch": batch, "source": model.info.source})
    gpus = [{"gpu": g.name, "catalog": g.catalog_key, "architecture": g.architecture, "sm_count": g.sm_count,
             "peak_tflops": {p: v / 1e12 for p, v in g.peak.items()},
             "mamf_tflops": {p: g.mamf_flops(p) / 1e12 for p in g.peak},
             "hbm_gb": g.hbm_bytes / 1e9, "hbm_gib": g.hbm_bytes / 2**30, "hbm_tb_s": g.hbm_bandwidth_bytes_per_s / 1e12,
             "nvlink_gbps": g.nvlink_bandwidth_bps / 1e9, "price_usd": g.price_usd, "tdp_w": g.tdp_w,
             "sources": dict(g.sources)}
            for g in (gpus if gpus is not None else load_gpus(catalog=catalog or load_catalog())).values()]
    tables = [Table("Models", ["model", "kind", "parameters", "shape", "default batch"],
                    [{"model": r["model"], "kind": r["kind"], "parameters": _count(r["parameters"]),
                      "shape": r["shape"], "default batch": "–" if r["default_batch"] is None
                      else str(r["default_batch"])} for r in rows]),
              Table("GPUs", ["gpu", "catalog", "dense TFLOP/s", "HBM GiB", "HBM GB", "HBM TB/s", "NVLink Gbit/s",
                             "price USD", "TDP W"],
                    [{"gpu": g["gpu"], "catalog": g["catalog"],
                      "dense TFLOP/s": ", ".join(f"{p} {v:g}" for p, v in g["peak_tflops"].items()),
                      "HBM GiB": f"{g['hbm_gib']:.1f}", "HBM GB": f"{g['hbm_gb']:.1f}",
                      "HBM TB/s": f"{g['hbm_tb_s']:.2f}",
                      "NVLink Gbit/s": f"{g['nvlink_gbps']:.0f}", "price USD": f"{g['price_usd']:,.0f}",
                      "TDP W": f"{g['tdp_w']:.0f}"} for g in gpus])]
    from workloads.stacks import DEFAULT_DATA_PARALLEL_STACK, DEFAULT_STACK, shipped_stacks

    stacks = [stack.summary() for stack in shipped_stacks().values()]
    defaults = {DEFAULT_STACK: "transformers", DEFAULT_DATA_PARALLEL_STACK: "models by totals, CNNs, DLRM"}
    tables.append(Table("Software stacks (--strategy stack=NAME)", ["stack", "default for", "attention",
                                                                    "gradient reduction", "what it runs"],
                        [{"stack": st["name"], "default for": defaults.get(st["name"], "–"),
                          "attention": _kernels_text(st["compute"]),
                          "gradient reduction": "overlapped in buckets" if st["training"]["dp_overlap"] == "backward"
                          else "after the backward",
                          "what it runs": _supports_text(st["supports"])} for st in stacks]))
    notes = ["HBM: the same capacity in GiB (2^30 bytes) and GB (10^9 bytes); a datasheet's '80 GB' is often 80 GiB "
             "(each GPU's source in -f json says which); HBM TB/s is 10^12 bytes/s"]
    return Report({"models": rows, "gpus": gpus, "stacks": stacks}, tables, notes)


def _supports_text(supports: dict) -> str:
    parts = [f"ZeRO {'/'.join(map(str, supports['zero']))}", f"recompute {'/'.join(supports['recompute'])}"]
    parts += [name.replace("_", " ") for name in ("sequence_parallel", "context_parallel", "uneven_pipeline", "fp8")
              if supports[name]]
    parts += [f"no {name.replace('_', ' ')}" for name in ("tensor_parallel", "pipeline_parallel", "expert_parallel")
              if not supports[name]]
    return ", ".join(parts)


def _kernels_text(compute: dict) -> str:
    """The attention kernel, and the layers' or the norm's kernels where they run op by op."""
    eager = [what for key, what in (("layer_kernels", "eager layers"), ("norm_kernel", "eager RMSNorm"))
             if compute[key] == "eager"]
    return ", ".join([compute["attention"], *eager])


def _count(n: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if n >= scale:
            return f"{n / scale:.3g}{suffix}"
    return f"{n:.0f}" if math.isfinite(n) else "–"
