"""Compute time of the models the zoo knows only by their totals (the `generic` kind) and of DLRM: no layer
shapes, so a two-part roofline — the FLOPs at the GPU's best achievable matmul rate (MAMF), plus the memory-bound
passes over the activations or embedding rows at the streaming HBM bandwidth, one after the other as separate
kernels do. Both parts use the constants of `workloads.settings.ComputeSettings`; nothing is per model.

These are optimistic: a network's convolutions or small MLP layers run below the MAMF of large square GEMMs.
Broadcasts over arrays of sample counts.
"""

from __future__ import annotations

import numpy as np

from core.records import record
from workloads.settings import DEFAULT_SETTINGS, ComputeSettings
from workloads.dlrm import forward_flops_per_sample, lookup_bytes_per_sample
from workloads.gpus import Gpu
from workloads.models import CnnModel, DlrmModel, GenericModel

@record(kw_only=True)
class TotalsTimes:
    """Seconds of one training step's compute on one GPU, by part."""

    math_s: np.ndarray  # FLOPs at the MAMF
    memory_s: np.ndarray  # activation or embedding passes at the streaming bandwidth

    @property
    def total_s(self):
        return self.math_s + self.memory_s


def generic_compute(model: GenericModel, gpu: Gpu, *, samples, model_parallel=1, precision=None,
                    settings: ComputeSettings = DEFAULT_SETTINGS) -> TotalsTimes:
    """Forward + backward of `samples` samples on one GPU that holds 1/`model_parallel` of the model (its
    share of the FLOPs and of the activations)."""
    n, mp = (np.asarray(x, dtype=float) for x in (samples, model_parallel))
    flops = n * model.forward_flops * (1.0 + model.backward_to_forward) / mp
    moved = settings.activation_passes * n * model.activation_memory / mp
    bandwidth = gpu.hbm_bandwidth_bytes_per_s * settings.gemm.hbm_efficiency
    eff = settings.efficiency_on(gpu)
    return TotalsTimes(math_s=flops / (gpu.mamf_flops(precision or gpu.default_precision) * eff),
                       memory_s=moved / (bandwidth * eff))


def cnn_compute(model: CnnModel, gpu: Gpu, *, samples, model_parallel=1, precision=None,
                settings: ComputeSettings = DEFAULT_SETTINGS) -> TotalsTimes:
    """Forward + backward of `samples` images on one GPU holding 1/`model_parallel` of every layer's output
    channels, layer by layer (workloads.cnn): convolutions as implicit GEMMs at the GPU's MAMF-based ceiling,
    BatchNorm, ReLU, adds and pools at the streaming HBM bandwidth, both at the stack's share of them."""
    from workloads import cnn
    from workloads.gemm import ceiling_flops

    precision = precision or gpu.default_precision
    eff = settings.efficiency_on(gpu)
    times = cnn.step_times(model.layers, samples, model_parallel=model_parallel,
                           ceiling_flops_per_s=ceiling_flops(gpu, precision, settings.gemm) * eff,
                           sm_count=gpu.sm_count,
                           stream_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s * settings.gemm.hbm_efficiency * eff,
                           hbm_bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s, constants=settings.gemm,
                           norm_fusion=settings.norm_fusion, nchw=settings.conv_layout == "nchw")
    return TotalsTimes(math_s=times.gemm_s, memory_s=times.memory_s)


def dlrm_compute(model: DlrmModel, gpu: Gpu, *, global_batch, gpus, precision=None, embedding_bytes=4.0,
                 settings: ComputeSettings = DEFAULT_SETTINGS) -> TotalsTimes:
    """One step of a DLRM on one of `gpus` GPUs: the dense MLPs on global_batch/gpus samples (data parallel)
    and the lookups of its share of the tables for the whole batch (tables spread evenly over the GPUs)."""
    batch, n = (np.asarray(x, dtype=float) for x in (global_batch, gpus))
    dense_flops = 3.0 * sum(forward_flops_per_sample(model).values()) * batch / n
    moved = settings.embedding_passes * lookup_bytes_per_sample(model, embedding_bytes) * batch / n
    bandwidth = gpu.hbm_bandwidth_bytes_per_s * settings.gemm.hbm_efficiency
    eff = settings.efficiency_on(gpu)
    return TotalsTimes(math_s=dense_flops / (gpu.mamf_flops(precision or gpu.default_precision) * eff),
                       memory_s=moved / (bandwidth * eff))
