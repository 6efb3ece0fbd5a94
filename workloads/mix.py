"""Several training jobs sharing one cluster: a job mix, placed by the fabric's own rule and priced alone and
together.

A mix file (TOML) lists the jobs and how to place them:

    policy = "first-fit"            # or "best-fit" (fabric.placement)
    gpus = 4096                     # optional: the cluster every design is sized to ([fabric] gpus)
    gpu = "gpu.h100_sxm5"           # optional: the same GPU (and `host`) on every design
    [[job]]
    name = "pretrain"               # optional (the model's name, numbered if repeated)
    model = "gpt3-175b"             # a zoo model or a model file (beside the mix file)
    gpus = 2048
    batch = 1536                    # optional: the model's default
    strategy = "tp=8,pp=8"          # optional: fixed parts, the rest searched
    stack = "megatron-core"         # optional
    priority = 1                    # optional: higher is placed first
    at = "0-2047"                   # optional: the GPUs it runs on, fixed

Each job runs on the estimate of the design with [fabric] job_gpus set to its GPUs, seen where it was placed
(`fabric.kind.FabricKind.job_view`): alone (nothing else running: its iteration time as `sipml speedup` gives it
for that placement) and together (the fabric shared with the other jobs as the kind shares it). Each is searched
for its best strategy both ways: a job under contention may run another strategy.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from core.errors import InfeasibleDesign, InputError, did_you_mean, shown
from core.records import record

MIXES_DIR = Path(__file__).parent / "mixes"
MIX_KEYS = ("name", "policy", "gpus", "gpu", "host", "job")
JOB_KEYS = ("name", "model", "gpus", "batch", "strategy", "stack", "priority", "at")
MAX_JOBS = 256  # [assumed] beyond the jobs a scheduler places on one training cluster at once


@record
class Job:
    """One job of a mix: its model and GPUs, batch, strategy and stack, priority and fixed place."""
    name: str
    model: str
    gpus: int
    batch: int | None = None
    strategy: str = ""
    stack: str = ""
    priority: int = 0
    at: str = ""


@record
class Mix:
    """Several jobs sharing one cluster: the jobs, the placement policy, the cluster's GPUs, GPU and host."""
    name: str
    jobs: tuple[Job, ...]
    policy: str = "first-fit"
    gpus: int | None = None  # the cluster's GPUs for every design (None: each design's own)
    gpu: str = ""  # catalog GPU for every design ('' : each design's own)
    host: str = ""
    folder: str = ""  # where model files named by a relative path are found
    file: str = ""  # the mix file it was read from ('' for one built in Python): its jobs' errors start with it

    def with_job(self, name: str, **changes) -> Mix:
        """The mix with job `name` changed (a sweep over the mix's sizes); InputError for an unknown job."""
        names = [j.name for j in self.jobs]
        if name not in names:
            raise InputError(f"no job {name!r} in the mix{did_you_mean(name, names)}; jobs: {', '.join(names)}")
        return dataclasses.replace(self, jobs=tuple(dataclasses.replace(j, **changes) if j.name == name else j
                                                    for j in self.jobs))


def builtin_mixes() -> list[str]:
    return sorted(p.stem for p in MIXES_DIR.glob("*.toml"))


def load_mix(name_or_path) -> Mix:
    """A built-in mix by name, or a mix file; InputError with the reason for anything else."""
    from core.toml_files import read

    text = str(name_or_path)
    if not text.strip():
        raise InputError(f"{text!r}: an empty mix name; built-in: {', '.join(builtin_mixes())}, or a mix file")
    path = Path(text)
    if path.suffix != ".toml" and (MIXES_DIR / f"{text}.toml").exists():
        path = MIXES_DIR / f"{text}.toml"
    elif not path.exists():
        raise InputError(f"no mix {shown(text)}: not a file nor a built-in mix{did_you_mean(text, builtin_mixes())} "
                         f"(built-in: {', '.join(builtin_mixes())})")
    data = read(path, "mix file")
    try:
        return dataclasses.replace(mix_from_mapping(data, path.stem, str(path.parent)), file=str(path))
    except InputError as exc:  # named as a design file's problems are
        raise InputError(f"{path}: {exc}") from None


def mix_from_mapping(data: dict, name: str = "mix", folder: str = "") -> Mix:
    """A mix from its TOML mapping, every key and value checked (InputError naming the job and the key)."""
    from fabric.cluster_design import MAX_GPUS
    from fabric.placement import POLICIES
    from workloads.strategy import MAX_BATCH

    _known(data, MIX_KEYS, "the mix")
    raw = data.get("job")
    if not isinstance(raw, list) or not raw or not all(isinstance(j, dict) for j in raw):
        raise InputError("a mix lists its jobs as [[job]] tables (at least one)")
    if len(raw) > MAX_JOBS:
        raise InputError(f"a mix of {len(raw)} jobs: at most {MAX_JOBS}")
    policy = _text(data, "policy", "the mix", "first-fit")
    if policy not in POLICIES:
        raise InputError(f"the mix: policy {policy!r}: expected one of {', '.join(POLICIES)}"
                         f"{did_you_mean(policy, POLICIES)}")
    gpus = _whole(data, "gpus", "the mix", 2, MAX_GPUS)
    jobs, seen = [], {}
    for i, entry in enumerate(raw):
        where = f"job {i + 1}"
        _known(entry, JOB_KEYS, where)
        model = _text(entry, "model", where, None)
        if not model:
            raise InputError(f"{where}: give its model (a zoo name or a model file)")
        base = _text(entry, "name", where, "") or model
        seen[base] = seen.get(base, 0) + 1
        job_name = base if "name" in entry or seen[base] == 1 else f"{base}-{seen[base]}"
        where = f"job '{job_name}'"
        size = _whole(entry, "gpus", where, 1, MAX_GPUS)
        if size is None:
            raise InputError(f"{where}: give its GPUs (gpus = N)")
        jobs.append(Job(name=job_name, model=model, gpus=size, batch=_whole(entry, "batch", where, 1, MAX_BATCH),
                        strategy=_text(entry, "strategy", where, ""), stack=_text(entry, "stack", where, ""),
                        priority=_whole(entry, "priority", where, -1000, 1000) or 0, at=_text(entry, "at", where, "")))
    names = [j.name for j in jobs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"the mix names job {twice[0]!r} twice: each job needs its own name")
    return Mix(name=str(data.get("name", name)), jobs=tuple(jobs), policy=policy, gpus=gpus,
               gpu=_text(data, "gpu", "the mix", ""), host=_text(data, "host", "the mix", ""), folder=folder)


def _known(entry: dict, keys: tuple, where: str) -> None:
    for key in entry:
        if key not in keys:
            raise InputError(f"{where}: unknown key {key!r}{did_you_mean(key, keys)}; expected {', '.join(keys)}")


def _text(entry: dict, key: str, where: str, default):
    value = entry.get(key, default)
    if value is not None and not isinstance(value, str):
        raise InputError(f"{where}: {key} must be text, got {shown(value)}")
    return value


def _whole(entry: dict, key: str, where: str, lo: int, hi: int) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"{where}: {key} must be a whole number from {lo} to {hi}, got {shown(value)}")
    return value


@record(slots=False)
class JobRun:
    """One job of a mix on one design: where it ran and how fast, alone and together."""

    job: Job
    placed: object  # fabric.placement.Placed (None: it cannot run on the design, so holds no GPUs)
    alone: object = None  # workloads.speedup.Result (None: it cannot run; `reason` says why)
    together: object = None
    reason: str = ""

    @property
    def ran(self) -> bool:
        return self.together is not None

    @property
    def slowdown(self) -> float:
        return self.together.best.iteration_s / self.alone.best.iteration_s if self.ran else math.nan

    @property
    def model_flops_per_s(self) -> float:
        """Useful (model) FLOP/s of the job in the mix, whole job."""
        return self.together.model_flops / self.together.best.iteration_s if self.ran else 0.0


@record(slots=False)
class MixRun:
    """A mix on one design: each job's run, what the placement left, and the cluster's bill."""

    design: object  # ClusterDesign
    estimate: object  # the cluster's FabricEstimate
    slots: object  # fabric.placement.Slots
    jobs: tuple[JobRun, ...]
    leftover: object  # fabric.placement.Leftover
    cost: object  # fabric.cost.CostSummary of the whole cluster

    @property
    def feasible(self) -> bool:
        return all(j.ran for j in self.jobs)

    @property
    def cluster_cost_usd(self) -> float:
        return self.cost.cluster_cost_usd.typical

    @property
    def cluster_power_w(self) -> float:
        return self.cost.cluster_power_w.typical

    def cost_per_hour_usd(self, gpus: int) -> float:
        """What `gpus` GPUs' share of the cluster costs per hour (`workloads.speedup.holding_cost`: hardware amortised
        over its life, electricity at the training load and PUE)."""
        from workloads.speedup import holding_cost

        hour = holding_cost(self.cluster_cost_usd, self.cluster_power_w, self.design.fabric.pue, 3600.0)
        return hour["run_cost_usd"] * gpus / self.estimate.gpus


def run_mix(design, mix: Mix, catalog=None, top: int = 1, gpus=None) -> MixRun:
    """Place `mix` on `design` (its fabric kind's rule and the mix's policy) and train each job alone and
    together. InputError for a job that cannot be placed or read; InfeasibleDesign when the cluster's fabric does not
    work. A job the design cannot run (a size its fabric refuses, no strategy that runs it) is kept with the reason
    and holds no GPUs: the others are placed again without it, as a scheduler would leave it queued."""
    from fabric.placement import Request, check_fits, leftover, place
    from fabric.registry import get_kind
    from workloads.evaluation import Evaluation

    if not design.fabric.job_gpus:  # the cluster must run the mix's largest job as one, not a job of all its GPUs
        largest = min(design.fabric.gpus, max(j.gpus for j in mix.jobs))
        design = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, job_gpus=largest))
    point = Evaluation(design, catalog, gpus)
    est = point.fabric
    if not est.feasible:
        raise InfeasibleDesign(f"the {est.kind} fabric is infeasible ("
                               + "; ".join(f"{v.name}: {v.message}" for v in est.violations) + ")")
    kind = get_kind(est.kind)
    slots = kind.slots_of(est)
    requests = [Request(j.name, j.gpus, j.priority, j.at) for j in mix.jobs]
    check_fits(slots, requests)  # the mix as asked, whether or not each job can run here
    links: dict = {}
    views = [_job_point(point, job, links) for job in mix.jobs]
    runs = {i: JobRun(job=job, placed=None, reason=view) for i, (job, view) in enumerate(zip(mix.jobs, views))
            if isinstance(view, str)}  # sizes the fabric refuses: never placed
    while True:  # each round places the jobs not yet refused; one no strategy runs is refused and the rest re-placed
        going = [i for i in range(len(mix.jobs)) if i not in runs]
        placed = place(slots, [requests[i] for i in going], mix.policy)
        round_runs = {i: _run_job(point, views[i], kind, mix.jobs[i], placed, k, top, mix) for k, i in enumerate(going)}
        refused = {i: dataclasses.replace(r, placed=None) for i, r in round_runs.items() if not r.ran}
        runs.update(refused)
        if not refused:
            runs.update(round_runs)
            break
    return MixRun(design=design, estimate=est, slots=slots, jobs=tuple(runs[i] for i in range(len(mix.jobs))),
                  leftover=leftover(slots, placed), cost=point.cost)


def _job_point(point, job: Job, links: dict):
    """The Evaluation of `point`'s cluster running `job` alone at its size, or the reason its fabric refuses a job of
    that size (a slice of whole cubes)."""
    from workloads.evaluation import Evaluation

    design = point.cluster
    job_design = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, job_gpus=job.gpus))
    own = Evaluation(job_design, point.catalog, point.gpus)
    own.share_link(links)
    try:
        own.fabric
    except InputError as exc:
        return str(exc)
    return own


def _run_job(point, own, kind, job: Job, placed: list, i: int, top: int, mix: Mix) -> JobRun:
    from workloads.models import load_model
    from workloads.speedup import default_batch, evaluate_model
    from workloads.strategy import parse_strategy

    where = f"{mix.file + ': ' if mix.file else ''}job '{job.name}'"
    try:
        model = load_model(_model_path(job.model, mix.folder))
        fixed = parse_strategy(",".join(x for x in (job.strategy, f"stack={job.stack}" if job.stack else "") if x))
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    job_design, est = own.cluster, own.fabric
    batch = job.batch or default_batch(model, job.gpus)[0]
    alone_view = kind.job_view(est, placed, i, together=False)
    together_view = kind.job_view(est, placed, i, together=True)
    try:
        alone = evaluate_model(model, job_design, job.name, batch, fixed, catalog=point.catalog, top=top,
                               estimate=alone_view, cost=point.cost, gpus=point.gpus)
        together = alone if _same(together_view, alone_view) else evaluate_model(
            model, job_design, job.name, batch, fixed, catalog=point.catalog, top=top, estimate=together_view,
            cost=point.cost, gpus=point.gpus)
    except InfeasibleDesign as exc:
        return JobRun(job=job, placed=placed[i], reason=str(exc))
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    return JobRun(job=job, placed=placed[i], alone=alone, together=together)


def _model_path(model: str, folder: str) -> str:
    """A model file named relative to the mix file is found beside it; a zoo name is itself."""
    path = Path(model)
    if folder and path.suffix == ".toml" and not path.is_absolute() and (Path(folder) / path).exists():
        return str(Path(folder) / path)
    return model


def _same(a, b) -> bool:
    """Whether two estimates price alike (the view together is the view alone: nothing shared)."""
    try:
        return a is b or bool(a == b)
    except ValueError:  # arrays inside: not compared element by element here
        return False
