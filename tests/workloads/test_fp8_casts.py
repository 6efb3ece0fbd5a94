"""FP8 as Transformer Engine runs it: each GEMM's input and output gradient are cast every microbatch (after an amax
pass of their own under current scaling), its weight once a step (TE keeps the FP8 weights of the step's first
microbatch). Checked by hand on GPT-3 175B's layer at tensor-parallel 8 on an H100."""

import dataclasses

import pytest

from workloads.compute import layer_times
from workloads.gpus import get_gpu
from workloads.models import zoo
from workloads.settings import ComputeSettings
from workloads.speedup import evaluate_model
from sipml.design_files import load_design

GPT3 = zoo()["gpt3-175b"]
H100 = get_gpu("h100_sxm5")
DELAYED = ComputeSettings()
CURRENT = dataclasses.replace(DELAYED, fp8_scaling="current")
T = 8
TOKENS = 2048.0  # one sequence
H = 12288.0
# each weight's (K, N) on one GPU of 8: QKV and MLP-up split by columns, the projection and MLP-down by rows
WEIGHTS = [(H, 3 * H / T), (H / T, H), (H, 4 * H / T), (4 * H / T, H)]


def _bandwidth(settings):
    return H100.hbm_bandwidth_bytes_per_s * settings.gemm.hbm_efficiency * settings.software_efficiency


def _casts(elements, settings):
    """One cast-transpose kernel moving 4 B per element (+ an amax kernel reading 2 B under current scaling)."""
    kernel = settings.gemm.kernel_time
    delayed = kernel + 4.0 * elements / _bandwidth(settings)
    return delayed + (kernel + 2.0 * elements / _bandwidth(settings) if settings.fp8_scaling == "current" else 0.0)


def test_the_weights_are_cast_once_a_step_by_hand():
    lt = layer_times(GPT3, H100, microbatch=1, tp=T, sequence_parallel=True, precision="fp8", settings=DELAYED)
    assert float(lt.weight_cast_s) == pytest.approx(sum(_casts(k * n, DELAYED) for k, n in WEIGHTS), rel=1e-9)
    bf16 = layer_times(GPT3, H100, microbatch=1, tp=T, sequence_parallel=True, precision="bf16", settings=DELAYED)
    assert float(bf16.weight_cast_s) == 0.0


def test_current_scaling_reads_each_activation_once_more_before_its_cast():
    kw = dict(microbatch=1, tp=T, sequence_parallel=True, precision="fp8")
    delayed, current = (layer_times(GPT3, H100, settings=s, **kw) for s in (DELAYED, CURRENT))
    kernel, bandwidth = DELAYED.gemm.kernel_time, _bandwidth(DELAYED)
    inputs = sum(kernel + 2.0 * TOKENS * k / bandwidth for k, _ in WEIGHTS)  # the forward's inputs, TOKENS × K
    assert float(current.gemm_forward_s - delayed.gemm_forward_s) == pytest.approx(inputs, rel=1e-9)
    grads = sum(kernel + 2.0 * TOKENS * n / bandwidth for _, n in WEIGHTS)  # the output gradients, TOKENS × N
    assert float(current.gemm_backward_s - delayed.gemm_backward_s) == pytest.approx(grads, rel=1e-9)


def test_a_step_pays_the_weight_casts_once_whatever_its_microbatches():
    """Megatron's 18.4B on 64 H100 at a fixed strategy, batch 64 then 128 sequences (8 and 16 microbatches per
    pipeline of one stage): twice the microbatches cost twice the per-microbatch compute and the same weight casts,
    so 2·c₈ − c₁₆ is the step's casts: the model's layers × one layer's casts."""
    model = zoo()["megatron-18.4b"]
    design = load_design("dgx-h100", ["fabric.gpus=64"])
    fixed = {"tp": T, "pp": 1, "microbatch": 1, "recompute": 2, "sp": True, "zero": 1, "interleave": 1,
             "precision": "fp8", "stack": "megatron-core"}
    c8, c16 = (evaluate_model(model, design, "d", batch, fixed).best.breakdown["compute"] for batch in (64, 128))
    layer = layer_times(model, H100, microbatch=1, tp=T, sequence_parallel=True, precision="fp8", recompute="full")
    assert 2 * c8 - c16 == pytest.approx(model.layers * float(layer.weight_cast_s), rel=1e-6)
    assert float(layer.weight_cast_s) > 0
