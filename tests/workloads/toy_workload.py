"""A workload kind defined outside the package, as a plug-in would: a model trained data-parallel only, whose step
is its FLOPs at the GPU's dense peak and one all-reduce of its fp32 gradients, exposed in full. It declares its
model record (read from a model file with `kind = "toy-dp"`) and its kind, and touches nothing under `workloads/`
or `sipml/`; a test registers it (`workloads.kinds.register(TOY)`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.fields import param
from fabric.evaluate import price
from fabric.kind import Collective
from workloads.kinds import WorkloadKind
from workloads.models import ModelInfo
from workloads.training import Breakdown

GRADIENT_BYTES = 4.0  # fp32 gradients per parameter


@dataclass(frozen=True, kw_only=True, slots=True)
class ToyModel:
    """A model by its parameters and its training FLOPs per sample."""

    info: ModelInfo
    parameters: float = param(1e9, "1", "trainable parameters", "a test kind", lo=1.0)
    flops_per_sample: float = param(6e12, "1", "training FLOPs per sample (forward and backward)", "a test kind",
                                    lo=1.0)

    @property
    def name(self) -> str:
        return self.info.name

    def check_keys(self, data: dict, source: str) -> None:
        """Nothing contradicts itself."""


@dataclass(frozen=True)
class DataParallel:
    """The one strategy: every GPU a replica."""

    dp: np.ndarray

    def __len__(self) -> int:
        return int(self.dp.size)

    def take(self, index) -> DataParallel:
        return DataParallel(self.dp[index])

    def row(self, i: int) -> dict:
        return {"dp": int(self.dp[i])}


def step_parts(model: ToyModel, gpu, est, batch: int, precision: str) -> tuple[float, float]:
    """(compute, all-reduce) seconds of one iteration: the formula the test checks the search against."""
    n = est.job_gpus
    compute = batch / n * model.flops_per_sample / gpu.peak_flops(precision)
    [reduce] = price(est, [Collective("all_reduce", model.parameters * GRADIENT_BYTES, n, 1, name="dp")])
    return compute, float(reduce.seconds)


def toy_breakdown(model: ToyModel, gpu, est, batch: int, per_candidate: dict, *, stack, precision: str,
                  gradient_bytes=None) -> tuple:
    if set(per_candidate) - {"dp"} or per_candidate.get("dp", est.job_gpus) != est.job_gpus:
        raise InputError(f"--strategy {per_candidate}: a toy-dp model runs data-parallel on every GPU")
    st = DataParallel(np.array([est.job_gpus]))
    compute, reduce = step_parts(model, gpu, est, batch, precision)
    zero, flops = np.zeros(1), np.full(1, batch * model.flops_per_sample)
    return st, Breakdown(compute_s=np.full(1, compute), tensor_parallel_s=zero, context_parallel_s=zero,
                         pipeline_s=zero, expert_parallel_s=zero, bubble_s=zero, straggler_s=zero,
                         data_parallel_s=np.full(1, reduce), optimizer_s=zero,
                         memory_bytes=np.full(1, 16.0 * model.parameters), memory_limit_bytes=gpu.hbm_bytes,
                         hardware_flops=flops, model_flops=flops)


TOY = WorkloadKind(name="toy-dp", model=ToyModel, default_stack="pytorch-ddp", unit="samples",
                   per_iteration=lambda model, batch: batch, breakdown=toy_breakdown, default_amount=1e6,
                   amount_source="a test kind", parameters=lambda model: model.parameters,
                   shape=lambda model: "data-parallel only")

MODEL = '''
kind = "toy-dp"
name = "toy"
source = "a test kind"
tag = "[assumed]"
parameters = 2e9
flops_per_sample = 1.2e13
'''
