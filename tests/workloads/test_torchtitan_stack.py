"""torchtitan's FSDP2 as it ran in April 2024: its Llama layers op by op in eager PyTorch (rotary embedding and
SwiGLU chains of kernels through HBM, the attention output and grouped-query keys and values copied), its RMSNorm
fused (the 8B and 13B presets) or op by op (the 70B presets), and FSDP2's buffer copies around every all-gather
and reduce-scatter. Each derived by hand from the bytes the ops move; `sipml validate` (group "torchtitan FSDP2")
checks the stacks against torchtitan's published runs."""

import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

import sipml
import workloads.speedup as speedup
from workloads import stacks
from workloads.compute import layer_times
from workloads.gpus import get_gpu
from workloads.models import load_model
from workloads.transformer import parameters_per_gpu

CASES = Path(sipml.__file__).parent / "cases" / "models"
A100 = get_gpu("a100_sxm4_80gb")
TITAN = stacks.shipped_stacks()["torchtitan"].compute
TITAN_RMSNORM = stacks.shipped_stacks()["torchtitan-rmsnorm"].compute


def _bandwidth(settings):
    return A100.hbm_bandwidth_bytes_per_s * settings.gemm.hbm_efficiency * settings.ampere_efficiency


def test_an_eager_llama_layer_moves_the_bytes_its_ops_do():
    """Llama 2 13B, one 4,096-token sequence, no tensor parallelism: eager minus fused forward time is the
    extra bytes and kernels of SwiGLU, the rotary embedding of Q and K and the attention output's transpose,
    derived op by op (e = 2 bytes); the fused RMSNorm costs the same either way."""
    model = load_model(CASES / "llama2-13b.toml")
    fused = dataclasses.replace(TITAN, layer_kernels="fused")
    times = {mode: layer_times(model, A100, microbatch=1, settings=settings)
             for mode, settings in (("eager", TITAN), ("fused", fused))}
    s, h, f, e = 4096.0, 5120.0, 13824.0, 2.0
    kernel, bandwidth = TITAN.gemm.kernel_time, _bandwidth(TITAN)
    swiglu = 1 * kernel + (5 * e - 3 * e) * s * f / bandwidth
    rotary = 2 * kernel + ((2 * e + 16) - 2 * e) * s * 2 * h / bandwidth
    transpose = kernel + 2 * e * s * h / bandwidth
    extra = float(times["eager"].elementwise_forward_s - times["fused"].elementwise_forward_s)
    assert extra == pytest.approx(swiglu + rotary + transpose, rel=1e-9)
    assert times["eager"].gemm_forward_s == times["fused"].gemm_forward_s  # the GEMMs are the same kernels


def test_the_rmsnorm_module_op_by_op_moves_the_bytes_its_autograd_does():
    """Two RMSNorms per layer: forward 4e + 28 bytes per element in 8 kernels against the fused 2e in one;
    backward 8e + 76 in 16 against 3e in one."""
    model = load_model(CASES / "llama2-13b.toml")
    fused, eager = (layer_times(model, A100, microbatch=1, settings=st) for st in (TITAN, TITAN_RMSNORM))
    s, h, e = 4096.0, 5120.0, 2.0
    kernel, bandwidth = TITAN.gemm.kernel_time, _bandwidth(TITAN)
    forward = 2 * (7 * kernel + ((4 * e + 28) - 2 * e) * s * h / bandwidth)
    backward = 2 * (15 * kernel + ((8 * e + 76) - 3 * e) * s * h / bandwidth)
    assert float(eager.elementwise_forward_s - fused.elementwise_forward_s) == pytest.approx(forward, rel=1e-9)
    assert float(eager.elementwise_backward_s - fused.elementwise_backward_s) == pytest.approx(backward, rel=1e-9)


def test_grouped_query_attention_adds_the_repeated_keys_and_values_only_when_eager():
    """Llama 2 70B (64 heads, 8 key/value heads): eager code repeats K and V to every head — read 8 heads, write
    64, forward; sum them back, backward — where the same layer with 64 key/value heads repeats nothing (and
    rotates 56 more key heads)."""
    model = load_model(CASES / "llama2-70b.toml")
    fused = dataclasses.replace(TITAN, layer_kernels="fused")
    d, s, e = 128.0, 4096.0, 2.0
    mha = dataclasses.replace(model, kv_heads=64)
    eager_gap = (layer_times(model, A100, microbatch=1, settings=TITAN).elementwise_forward_s
                 - layer_times(mha, A100, microbatch=1, settings=TITAN).elementwise_forward_s)
    fused_gap = (layer_times(model, A100, microbatch=1, settings=fused).elementwise_forward_s
                 - layer_times(mha, A100, microbatch=1, settings=fused).elementwise_forward_s)
    bandwidth = _bandwidth(TITAN)
    repeat = TITAN.gemm.kernel_time + e * (64 + 8) * 2 * d * s / bandwidth
    rotary_k = (2 * e + 16) * s * (64 - 8) * d / bandwidth
    assert float(eager_gap) == pytest.approx(repeat - rotary_k, rel=1e-9)
    assert float(fused_gap) < 0  # fused: fewer key heads only save rotary bytes


def _row(strategy, shard_copy_bytes=None, monkeypatch=None):
    if shard_copy_bytes is not None:
        shipped = dict(stacks.shipped_stacks())
        shipped["torchtitan"] = dataclasses.replace(
            shipped["torchtitan"], compute=dataclasses.replace(TITAN, shard_copy_bytes_per_param=shard_copy_bytes))
        monkeypatch.setattr(stacks, "shipped_stacks", lambda: MappingProxyType(shipped))
        speedup._search.cache_clear()
    try:
        return sipml.speedup(["dgx-a100"], str(CASES / "llama2-13b.toml"), gpus=64, batch=128,
                             strategy=f"stack=torchtitan,{strategy}", baselines=("dgx-a100",),
                             sets=["fabric.gpu=gpu.a100_sxm4_80gb"])[0]
    finally:
        speedup._search.cache_clear()


def test_fsdp2_copies_every_gathered_parameter_and_every_gradient_once_per_microbatch(monkeypatch):
    """Llama 2 13B at local batch 2 (one microbatch): the step's compute grows by the whole model's parameters
    × 22 bytes (two copy-outs of 4, one fp32 copy-in of 6, its in-place division of 8) over the streaming
    bandwidth."""
    strategy = "recompute=none,microbatch=2"
    shipped = _row(strategy)
    without = _row(strategy, shard_copy_bytes=0.0, monkeypatch=monkeypatch)
    model = load_model(CASES / "llama2-13b.toml")
    expected = float(parameters_per_gpu(model)) * 22.0 / _bandwidth(TITAN)
    assert shipped["breakdown"]["compute"] - without["breakdown"]["compute"] == pytest.approx(expected, rel=1e-6)


def test_its_search_runs_no_expert_parallelism_and_a_fixed_one_is_refused():
    from core.errors import InputError

    with pytest.raises(InputError, match="cannot run ep = 2"):
        sipml.speedup(["dgx-h100"], "mixtral-8x7b", strategy="stack=torchtitan,ep=2", baselines=("dgx-h100",))
