"""Goodput: a training job's interruptions (`fabric.reliability`), checkpoints and restarts turned into its effective
training time ratio (ETTR) — the share of wall time spent on training that is kept.

Symbols (reliability.md §B): M, the job's mean time to interruption (1 / Σ n_i·λ_i·p_i); δ, the training pause per
checkpoint (its size over the job's write bandwidth when synchronous — the storage's, or the job's storage ports'
where fewer, `storage_bandwidths`; when asynchronous, each GPU's copy of its share to host memory, the write running
behind training and ending before the next checkpoint); R, the restart time after an interruption —
detection + rescheduling (or a spare swapped in) + start-up + reading the checkpoint back — averaged over the
causes by their rates; τ, the compute time between checkpoints, Daly's optimum unless fixed:

    τ_D = √(2δM)·[1 + ⅓·√(δ/2M) + (1/9)·(δ/2M)] − δ   (δ < 2M; τ_D = M otherwise)        Daly 2006 (Y8)

and the wall time per unit of training time under Poisson interruptions (Daly's complete model, Y9):

    T_w / T_s = M·e^(R/M)·(e^((τ+δ)/M) − 1) / τ

With asynchronous checkpoints a checkpoint is safe only once its write W has ended: a failure while it is written
sends the job back to the one before: after a restart its checkpoints are safe at R + W + k·(τ + δ), which is
Daly's model with the restart R + W (W ≤ τ) [derived; a Poisson simulation of the schedule agrees, in the tests].

Planned interruptions (maintenance) come after a checkpoint: each costs a restart (start-up and read; with an
asynchronous checkpoint, its write first) and no lost work, ρ_p·R_p of the wall time. ETTR = T_s / T_w over both:
1 / ((T_w/T_s)·(1 + ρ_p·R_p)). Goodput is the failure-free throughput × ETTR; a run takes its failure-free time /
ETTR, and its energy and cost grow with it (the cluster is held, and powered, while it restarts and redoes work).

References: J. W. Young, CACM 17(9), 1974 [YOUNG]; J. T. Daly, Future Generation Computer Systems 22(3), 2006
[DALY]; reliability.md Y7–Y12.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from core.errors import InputError
from core.records import record
from core.sums import in_order
from fabric.reliability import DAY_S, FailureLine, check_hot_spares, failure_lines, spare_coverage
from workloads import kinds


@record(kw_only=True)
class Goodput:
    """A job's interruptions and what they cost: its failure lines, rates, checkpoint and restart, and ETTR."""

    lines: tuple[FailureLine, ...]
    interruptions_per_s: float  # unexpected ones that stop the job
    planned_per_s: float
    checkpoint_bytes: float
    pause_s: float  # δ
    interval_s: float  # τ (inf: no interruption, no checkpoint needed)
    restart_s: float  # R, mean over the causes by rate
    planned_restart_s: float
    read_s: float
    ettr: float
    spares_cost_usd: float  # the hot spares' price (their share of the cluster)
    spare_coverage: float = 1.0  # share of the failures hot spares take over that find enough free, by their rates
    covered_by_size: dict = dataclasses.field(default_factory=dict)  # GPUs a takeover needs ("pool": one of the
    # kind's own spares) → the share of those failures covered
    rework_s: float = 0.0  # work redone per failure beyond the interval's: an asynchronous checkpoint's write W
    notes: tuple[str, ...] = ()  # what the model changed of what it was given (an interval shorter than the write)
    write_bps: float = 0.0  # the job's checkpoint write and read bandwidths (`storage_bandwidths`)
    read_bps: float = 0.0

    @property
    def mtti_s(self):
        """1/λ (inf where nothing interrupts); an array over a sweep's grid."""
        rate = np.asarray(self.interruptions_per_s, dtype=float)
        mtti = np.where(rate > 0, 1.0 / np.where(rate > 0, rate, 1.0), np.inf)
        return float(mtti) if mtti.ndim == 0 else mtti

    @property
    def interruptions_per_day(self) -> float:
        return self.interruptions_per_s * DAY_S

    def covered(self, line: FailureLine):
        """The share of `line`'s failures that spares take over: hot-spare GPUs, or the kind's own pool (1 where
        none is asked for)."""
        return self.covered_by_size.get(_pool_of(line), 1.0)


def _raised_interval_notes(interval, write, given: float) -> tuple[str, ...]:
    """What raising an asynchronous checkpoint's interval to its write changes, said: the user's interval
    (`given`), or Daly's optimum (`given` 0), shorter than the write (arrays over a sweep's grid: at how many
    points)."""
    short = np.asarray(interval) < np.asarray(write)
    if not short.any():
        return ()
    what = (f"[reliability] checkpoint_interval = {given / 60:.3g} min" if given else
            "Daly's optimum interval" + (f" ({float(interval) / 60:.3g} min)" if short.ndim == 0 else ""))
    at = (f" ({float(write) / 60:.3g} min)" if np.ndim(write) == 0 else "") + (
        f" at {int(short.sum())} of {short.size} points" if short.ndim else "")
    return (f"{what} is shorter than the asynchronous write{at}: each checkpoint waits for the last one's write, so "
            "one is taken as each write ends",)


def storage_bandwidths(rel, job_gpus):
    """(write, read) bandwidth of a job's checkpoint: the storage's, or its GPUs' shares of the servers' storage
    ports where those are fewer (a small job cannot take a 2 TB/s file system's whole rate: 8 GPUs reach it at
    100 GB/s) [inferred]."""
    ports = job_gpus * rel.storage_port_bandwidth
    return np.minimum(rel.storage_write_bandwidth, ports), np.minimum(rel.storage_read_bandwidth, ports)


def daly_interval_s(pause_s: float, mtti_s: float) -> float:
    """Daly's higher-order optimum checkpoint interval τ_D (Y8); M itself when δ ≥ 2M."""
    if pause_s >= 2 * mtti_s:
        return mtti_s
    x = pause_s / (2 * mtti_s)
    return math.sqrt(2 * pause_s * mtti_s) * (1 + math.sqrt(x) / 3 + x / 9) - pause_s


def wall_per_training(interval_s: float, pause_s: float, mtti_s: float, restart_s: float) -> float:
    """T_w / T_s, Daly's complete model (Y9): M·e^(R/M)·(e^((τ+δ)/M) − 1) / τ, summed in logs (an interval or a
    restart many times M gives a wall time beyond float range: infinite, no training kept)."""
    x = (interval_s + pause_s) / mtti_s
    log_expm1 = x + math.log1p(-math.exp(-x)) if x > 30 else math.log(math.expm1(x))
    log_wall = math.log(mtti_s) + restart_s / mtti_s + log_expm1 - math.log(interval_s)
    return math.exp(log_wall) if log_wall < 700 else math.inf


def ettr(interval_s: float, pause_s: float, mtti_s: float, restart_s: float, planned_per_s: float = 0.0,
         planned_restart_s: float = 0.0) -> float:
    """Effective training time ratio: T_s / T_w with the planned interruptions' restarts on top."""
    if math.isinf(mtti_s):  # nothing interrupts: only the checkpoints' pauses, if any are taken
        wall = (interval_s + pause_s) / interval_s if math.isfinite(interval_s) else 1.0
    else:
        wall = wall_per_training(interval_s, pause_s, mtti_s, restart_s)
    return 1.0 / (wall * (1.0 + planned_per_s * planned_restart_s))


def bring_s(line: FailureLine, rel, covered=1.0) -> float:
    """Time to bring the job back onto working parts after `line`'s failure: rescheduling ('restart'), a spare's swap
    (the kind's, or [reliability] spare_swap_time) for the share `covered` of the failures that find a hot spare
    free and rescheduling for the rest, none ('in place')."""
    if line.recovery == "in place":
        return 0.0
    if line.recovery == "restart":
        return rel.reschedule_time
    swap = line.swap_s if line.swap_s is not None else rel.spare_swap_time
    return covered * swap + (1.0 - covered) * rel.reschedule_time if line.hot_spare or line.pool else swap


def restart_s(line: FailureLine, rel, read_s: float, covered=1.0) -> float:
    """R of one cause: detection, bringing the job back (`bring_s`), start-up and reading the checkpoint back."""
    return rel.detection_time + bring_s(line, rel, covered) + rel.startup_time + read_s


def _each(function, *args):
    """`function` of each point's values: of the values themselves where every one is a number (one design point),
    elementwise over a sweep's grid otherwise."""
    if all(np.ndim(a) == 0 for a in args):
        return function(*(float(a) for a in args))
    return np.vectorize(function)(*args)


def _pool_of(line: FailureLine):
    """The pool of spares `line`'s failures draw on: the hot-spare GPUs by the GPUs one takes (an int), the kind's
    own spares ("pool"), or none (0)."""
    return "pool" if line.pool and not line.hot_spare else line.hot_spare


def job_goodput(model, est, bom, kind, cluster_cost_usd: float, rates=None) -> Goodput:
    """The goodput of `model` trained on the fabric `est` (its job's GPUs), its parts priced in `bom`
    (fabric.bom.BomResult), their failure domains the kind's (`fabric.kind.FabricKind.domains`) and their rates
    `rates` (None: the shipped file's, `fabric.reliability.load_rates`)."""
    design = est.design
    rel = design.reliability
    if rel.spare_gpus > est.gpus:
        raise InputError(f"[reliability] spare_gpus = {rel.spare_gpus}: more hot spares than the cluster's "
                         f"{est.gpus} GPUs")
    check_hot_spares(design, kind)
    lines = tuple(failure_lines(bom, design, kind.domains(est), est.job_gpus, rates))
    size = kinds.of(model).parameters(model) * rel.checkpoint_bytes_per_parameter  # every weight, all experts
    write_bps, read_bps = storage_bandwidths(rel, est.job_gpus)
    write, read = size / write_bps, size / read_bps
    asynchronous = rel.checkpoint_write == "asynchronous"
    # asynchronous: the pause is each GPU's copy of its share to host memory, the write goes on behind training
    pause = size / est.job_gpus / rel.host_copy_bandwidth if asynchronous else write
    rate = np.asarray(in_order(line.per_s for line in lines), dtype=float)  # an array over a sweep's grid

    # the hot-spare GPUs' pool: the failures it is asked to take over, each holding its GPUs' spares until repaired;
    # the kind's own pool (a pod's spare cubes), one spare a failure
    asked = {takes: np.asarray(in_order(line.per_s for line in lines if line.hot_spare == takes), dtype=float)
             for takes in sorted({line.hot_spare for line in lines} - {0})}
    covered = spare_coverage(rel.spare_gpus, {takes: a * rel.spare_repair_time for takes, a in asked.items()})
    pool = max((line.pool for line in lines if _pool_of(line) == "pool"), default=0)
    if pool:
        asked["pool"] = np.asarray(in_order(line.per_s for line in lines if _pool_of(line) == "pool"), dtype=float)
        covered["pool"] = spare_coverage(pool, {1: asked["pool"] * rel.spare_repair_time})[1]
    share = (in_order(asked[key] * covered[key] for key in asked) / in_order(asked.values())
             if asked and np.all(in_order(asked.values()) > 0) else 1.0)
    some = rate > 0
    per = np.where(some, rate, 1.0)
    mean_restart = np.where(some, in_order(line.per_s * restart_s(line, rel, read, covered.get(_pool_of(line), 1.0))
                                           for line in lines) / per, 0.0)
    mtti = np.where(some, 1.0 / per, np.inf)
    interval = (np.full(rate.shape, float(rel.checkpoint_interval)) if rel.checkpoint_interval
                else _each(lambda m: daly_interval_s(pause, m) if math.isfinite(m) else math.inf, mtti))
    notes = ()
    if asynchronous:  # the next checkpoint waits for the write to end
        notes = _raised_interval_notes(interval, write, rel.checkpoint_interval)
        interval = np.maximum(interval, write)
    rework = write if asynchronous else 0.0  # a failure during the write goes back to the checkpoint before
    # a planned stop comes after a checkpoint: once it is written (the write's time, idle or redone), then a restart
    planned, planned_restart = rel.planned_per_day / DAY_S, rel.startup_time + read + rework
    kept = _each(ettr, interval, pause, mtti, mean_restart + rework, planned, planned_restart)
    spares = rel.spare_gpus * cluster_cost_usd / est.gpus
    scalar = (lambda a: float(a)) if rate.ndim == 0 else (lambda a: a)
    return Goodput(lines=lines, interruptions_per_s=scalar(rate), planned_per_s=planned, checkpoint_bytes=size,
                   pause_s=pause, interval_s=scalar(interval), restart_s=scalar(mean_restart),
                   planned_restart_s=planned_restart, read_s=read, ettr=scalar(kept), spares_cost_usd=spares,
                   spare_coverage=scalar(np.asarray(share, dtype=float)), covered_by_size=covered, rework_s=rework,
                   notes=notes, write_bps=write_bps, read_bps=read_bps)
