"""Iteration time of models given by their totals (ResNet-50, VGG-16, any `generic` model) and of DLRM.

Generic models run data parallel × model parallel (dp·mp = N): each GPU computes 1/(dp·mp) of the batch's samples
(SiP-ML splits every operation along the batch into mp parts [sim]); the model-parallel traffic the model declares
moves inside consecutive groups of mp GPUs on the critical path; gradients are all-reduced over the dp replicas
(stride mp), overlapped with the backward pass (`TrainingSettings.dp_overlap`).

DLRM (Naumov et al. 2019): the embedding tables are sharded over every GPU, so each iteration has two all-to-alls
over the whole job (pooled embeddings forward, their gradients backward); the dense MLPs are data parallel.

Compute per GPU is workloads.compute_totals' two-part roofline (FLOPs at the MAMF, then the activation or
embedding passes at the streaming HBM bandwidth).
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from core.records import record
from fabric.estimate import FabricEstimate
from fabric.evaluate import mix_pricing
from fabric.kind import Collective
from workloads import dlrm
from workloads.settings import DEFAULT_SETTINGS, ComputeSettings
from workloads.compute_totals import cnn_compute, dlrm_compute, generic_compute
from workloads.gpus import Gpu
from workloads.kinds import WorkloadKind
from workloads.models import CnnModel, DlrmModel, GenericModel
from workloads.settings import DEFAULT_TRAINING, TrainingSettings
from workloads.stacks import DEFAULT_DATA_PARALLEL_STACK
from workloads.training import Breakdown

STATE_BYTES_PER_PARAMETER = 16.0  # weights, gradients, Adam states in mixed precision (R20 §3.1) [verbatim]
OPERATIONS = {"all-gather": "all_gather", "all-reduce": "all_reduce", "all-to-all": "all_to_all",
              "point-to-point": "p2p"}


@record(slots=False)
class SplitStrategies:
    """Data-parallel × model-parallel splits of a generic model (arrays of one length)."""

    dp: np.ndarray
    mp: np.ndarray

    def __len__(self) -> int:
        return int(self.dp.size)

    def take(self, index) -> SplitStrategies:
        return SplitStrategies(self.dp[index], self.mp[index])

    def row(self, i: int) -> dict:
        return {"dp": int(self.dp[i]), "mp": int(self.mp[i])}


def split_strategies(gpus: int, batch: int, fixed: dict | None = None) -> SplitStrategies:
    """dp × mp = gpus with the batch divisible by dp·… (each GPU gets whole samples); keys of `fixed` held."""
    fixed = dict(fixed or {})
    unknown = set(fixed) - {"dp", "mp", "tp"}
    if unknown:
        raise InputError(f"--strategy {', '.join(sorted(unknown))}: this model splits only as dp × mp (data × model "
                         "parallelism; tp is taken as mp)")
    mps = [m for m in range(1, gpus + 1) if gpus % m == 0 and batch % (gpus // m) == 0]
    mp = np.array([m for m in mps if m == fixed.get("mp", fixed.get("tp", m)) and gpus // m == fixed.get("dp",
                                                                                                         gpus // m)])
    if mp.size == 0:
        raise InputError(f"no dp × mp split of {gpus} GPUs divides the batch of {batch} samples"
                         + (" with " + ", ".join(f"{k}={v}" for k, v in fixed.items()) if fixed else ""))
    return SplitStrategies(dp=gpus // mp, mp=mp)


def _reduce_exposed(reduce_s, bucket_s, window_s, training: TrainingSettings):
    """The gradient all-reduce in buckets under the backward (its last bucket exposed), or after it."""
    return training.overlapped(reduce_s, window_s, bucket_s) if training.dp_overlap == "backward" else reduce_s


def _bucket(parameters, grad_bytes: float, training: TrainingSettings, dp):
    return np.minimum(np.maximum(training.bucket_parameters, training.bucket_parameters_per_replica * dp),
                      parameters) * grad_bytes


def generic_breakdown(model: GenericModel | CnnModel, gpu: Gpu, est: FabricEstimate, batch: int, st: SplitStrategies, *,
                      gradient_bytes: float | None = None, compute: ComputeSettings = DEFAULT_SETTINGS,
                      training: TrainingSettings = DEFAULT_TRAINING, timed=generic_compute) -> Breakdown:
    """`gradient_bytes` overrides the data-parallel all-reduce size (SiP-ML's cases); default fp32 gradients.
    `timed` the compute model of the kind (workloads.compute_totals: by totals, or a CNN layer by layer)."""
    d, mp = st.dp.astype(float), st.mp.astype(float)
    samples = batch / (d * mp)  # per GPU
    fwd_share = 1.0 / (1.0 + model.backward_to_forward)
    compute_s = timed(model, gpu, samples=batch / d, model_parallel=st.mp, settings=compute).total_s
    parameters = model.parameters  # read once: a CNN's totals walk its layer table
    grads = gradient_bytes if gradient_bytes is not None else parameters * training.grad_reduce_bytes
    per_parameter = grads / parameters
    mp_msg = model.model_parallel_traffic * batch / d / mp
    mp_c = Collective(OPERATIONS[model.model_parallel_collective], mp_msg, st.mp, 1, name="mp")
    dp_c = Collective("all_reduce", np.full(len(st), float(grads)), st.dp, st.mp, name="dp")
    pricing = mix_pricing(est, (mp_c, dp_c))
    mp_t = np.where(mp_msg > 0, pricing.price([mp_c])[0].seconds, 0.0)
    dp_t = pricing.price([dp_c])[0].seconds
    bucket = _bucket(parameters / mp, per_parameter, training, st.dp)
    bucket_t = pricing.price([Collective("all_reduce", bucket, st.dp, st.mp, name="dp")])[0].seconds
    memory = parameters / mp * STATE_BYTES_PER_PARAMETER + samples * model.activation_memory
    zero = np.zeros(len(st))
    flops = np.full(len(st), batch * model.forward_flops * (1 + model.backward_to_forward))
    return Breakdown(compute_s=compute_s, tensor_parallel_s=mp_t, context_parallel_s=zero, pipeline_s=zero,
                     expert_parallel_s=zero, bubble_s=zero,
                     straggler_s=training.straggler_s(compute_s, np.max(st.dp * st.mp, initial=1)),
                     data_parallel_s=_reduce_exposed(dp_t, bucket_t, compute_s * (1 - fwd_share), training),
                     optimizer_s=zero, memory_bytes=memory, memory_limit_bytes=gpu.hbm_bytes * training.usable_memory,
                     hardware_flops=flops, model_flops=flops)


def dlrm_breakdown(model: DlrmModel, gpu: Gpu, est: FabricEstimate, batch: int, st: SplitStrategies, *,
                   compute: ComputeSettings = DEFAULT_SETTINGS,
                   training: TrainingSettings = DEFAULT_TRAINING) -> Breakdown:
    """Tables sharded over every GPU of the job (st: dp = N, mp = 1 — the dense part data parallel)."""
    n = float(est.job_gpus)
    samples = batch / n
    compute_s = dlrm_compute(model, gpu, global_batch=batch, gpus=n, settings=compute).total_s * np.ones(len(st))
    exchange = samples * dlrm.all_to_all_bytes_per_sample(model) * (n - 1) / n
    a2a = Collective("all_to_all", np.full(len(st), exchange), np.full(len(st), n), 1, calls=2.0, name="embeddings")
    dense = Collective("all_reduce", np.full(len(st), dlrm.dense_parameters(model) * training.grad_reduce_bytes),
                       np.full(len(st), n), 1, name="dp")
    pricing = mix_pricing(est, (a2a, dense))
    a2a_t = pricing.price([a2a])[0].seconds
    dense_t = pricing.price([dense])[0].seconds
    bucket = _bucket(dlrm.dense_parameters(model), training.grad_reduce_bytes, training, n)
    bucket_t = pricing.price([Collective("all_reduce", np.full(len(st), bucket), np.full(len(st), n), 1,
                                         name="dp")])[0].seconds
    tables = dlrm.embedding_parameters(model) * 4.0 / n  # fp32 rows, sharded
    memory = tables + dlrm.dense_parameters(model) * STATE_BYTES_PER_PARAMETER + samples * (
        dlrm.lookup_bytes_per_sample(model))
    zero = np.zeros(len(st))
    total_flops = np.full(len(st), batch * dlrm.training_flops_per_sample(model))
    return Breakdown(compute_s=compute_s, tensor_parallel_s=zero, context_parallel_s=zero, pipeline_s=zero,
                     expert_parallel_s=2.0 * a2a_t, bubble_s=zero, straggler_s=training.straggler_s(compute_s, n),
                     data_parallel_s=_reduce_exposed(dense_t, bucket_t, compute_s * 2 / 3, training),
                     optimizer_s=zero, memory_bytes=memory * np.ones(len(st)),
                     memory_limit_bytes=gpu.hbm_bytes * training.usable_memory, hardware_flops=total_flops,
                     model_flops=total_flops)


# --- the workload kinds of this module (workloads.kinds) ---------------------------------------------------------
def _split_kind(timed):
    def run(model, gpu: Gpu, est: FabricEstimate, batch: int, per_candidate: dict, *, stack, precision: str,
            gradient_bytes=None) -> tuple:
        st = split_strategies(est.job_gpus, batch, per_candidate)
        return st, generic_breakdown(model, gpu, est, batch, st, gradient_bytes=gradient_bytes,
                                     compute=stack.compute_for(gpu), training=stack.training, timed=timed)
    return run


def _dlrm_kind(model, gpu: Gpu, est: FabricEstimate, batch: int, per_candidate: dict, *, stack, precision: str,
               gradient_bytes=None) -> tuple:
    given = {k: v for k, v in per_candidate.items() if (k, v) not in (("dp", est.job_gpus), ("mp", 1), ("tp", 1))}
    if given:  # the split it runs (dp = every GPU, mp = 1) may be named, no other
        raise InputError(f"--strategy {', '.join(f'{k}={v}' for k, v in sorted(given.items()))}: a DLRM runs data "
                         f"parallel over all {est.job_gpus:,} GPUs, its embedding tables sharded over them: no split "
                         "to choose")
    st = split_strategies(est.job_gpus, batch, {"dp": est.job_gpus, **per_candidate})
    return st, dlrm_breakdown(model, gpu, est, batch, st, compute=stack.compute_for(gpu), training=stack.training)


def _samples(model, batch: int) -> float:
    return batch


_EPOCHS = dict(unit="samples", per_iteration=_samples, default_stack=DEFAULT_DATA_PARALLEL_STACK,
               default_amount=90 * 1.281e6, amount_source="90 ImageNet epochs of 1.281M images")


def _cnn_shape(model: CnnModel) -> str:
    return (f"{model.architecture}, blocks {', '.join(map(str, model.blocks))}" if model.architecture == "resnet"
            else f"vgg, {sum(1 for c in model.channels if c)} convolutions") + f", {model.image_size} px"


GENERIC_KIND = WorkloadKind(name="generic", model=GenericModel, breakdown=_split_kind(generic_compute),
                            parameters=lambda m: m.parameters, shape=lambda m: "totals per sample", ways=True,
                            **_EPOCHS)
CNN_KIND = WorkloadKind(name="cnn", model=CnnModel, breakdown=_split_kind(cnn_compute),
                        parameters=lambda m: m.parameters, shape=_cnn_shape, ways=True, **_EPOCHS)
DLRM_KIND = WorkloadKind(name="dlrm", model=DlrmModel, breakdown=_dlrm_kind, ways=True,
                         parameters=lambda m: dlrm.embedding_parameters(m) + dlrm.dense_parameters(m),  # tables, MLPs
                         shape=lambda m: f"{m.tables} tables × {m.embedding_dim}", **_EPOCHS)
