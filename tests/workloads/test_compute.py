"""The achieved-compute model: vectorised equals scalar, recomputation and parallelism change the time the way
the physics says, the executed FLOPs are the closed forms', and compute alone is a tight lower bound on the
published Megatron-LM iteration times."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.fields import specs
from workloads.compute import edge_times, layer_times, optimizer_step_s
from workloads.settings import DEFAULT_SETTINGS, ComputeSettings
from workloads.compute_totals import dlrm_compute, generic_compute
from workloads.files import TAGS
from workloads.gemm import GemmConstants
from workloads.gpus import get_gpu
from workloads.models import model_from_mapping, zoo
from workloads.stacks import get_stack
from workloads.transformer import megatron_flops_per_iteration

SHARE = DEFAULT_SETTINGS.ampere_efficiency  # the shared in-situ share on an Ampere GPU (fitted)

A100 = get_gpu("a100_sxm4_80gb")
GPT3 = zoo()["gpt3-175b"]
MEGATRON_2021 = get_stack("megatron-2021").compute_for(A100)
MEGATRON_2022 = get_stack("megatron-2022").compute_for(A100)


def gpt(layers, hidden, heads, name="gpt"):
    return model_from_mapping(dict(layers=layers, hidden=hidden, heads=heads, seq_len=2048, vocab=51200), "test", name)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 16), st.sampled_from([1, 2, 4, 8]), st.booleans(), st.integers(0, 2)),
                min_size=1, max_size=6),
       st.sampled_from([DEFAULT_SETTINGS, MEGATRON_2021]))
def test_vectorised_equals_scalar(cases, compute_settings):
    b, t, sp, rc = (np.array(x) for x in zip(*cases))
    together = layer_times(GPT3, A100, microbatch=b, tp=t, sequence_parallel=sp, recompute=rc,
                           settings=compute_settings)
    for i, case in enumerate(cases):
        alone = layer_times(GPT3, A100, microbatch=case[0], tp=case[1], sequence_parallel=case[2],
                            recompute=case[3], settings=compute_settings)
        assert together.forward_s[i] == pytest.approx(float(alone.forward_s), rel=1e-12)
        assert together.backward_s[i] == pytest.approx(float(alone.backward_s), rel=1e-12)


def test_result_has_the_broadcast_shape():
    out = layer_times(GPT3, A100, microbatch=np.array([1, 2, 4]), tp=np.array([[1], [8]]))
    assert out.forward_s.shape == out.backward_s.shape == (2, 3)


@pytest.mark.parametrize("compute_settings", [DEFAULT_SETTINGS, MEGATRON_2021])
def test_recomputation_adds_the_forward_it_reruns(compute_settings):
    kw = dict(microbatch=2, tp=8, settings=compute_settings)
    none, sel, full = (layer_times(GPT3, A100, recompute=r, **kw) for r in ("none", "selective", "full"))
    assert float(full.backward_s - none.backward_s) == pytest.approx(float(none.forward_s), rel=1e-12)
    assert none.backward_s <= sel.backward_s <= full.backward_s
    assert none.forward_s == sel.forward_s == full.forward_s


def test_backward_gemms_cost_about_twice_the_forward():
    out = layer_times(GPT3, A100, microbatch=1, tp=8)
    assert 1.8 <= float(out.gemm_backward_s / out.gemm_forward_s) <= 2.2


def test_executed_flops_are_the_closed_form_96_count():
    # unfused attention, full recomputation: N21's 96·B·s·l·h²·(1 + s/(6h) + V/(16lh)) is what runs
    m, b = zoo()["megatron-18.4b"], 2
    layer = layer_times(m, A100, microbatch=b, tp=8, recompute="full", settings=MEGATRON_2021)
    head = edge_times(m, A100, microbatch=b, tp=8, settings=MEGATRON_2021)
    total = 8 * (m.layers * layer.hardware_flops + 3 * head.head_flops)  # the 8 tensor-parallel ranks
    assert float(total) == pytest.approx(float(megatron_flops_per_iteration(b, m.layers, m.hidden, m.seq_len, m.vocab)),
                                         rel=1e-9)


def test_sequence_parallelism_shrinks_only_the_memory_bound_kernels():
    kw = dict(microbatch=1, tp=8, settings=MEGATRON_2021)
    plain, sp = layer_times(GPT3, A100, **kw), layer_times(GPT3, A100, sequence_parallel=True, **kw)
    assert sp.gemm_forward_s == plain.gemm_forward_s and sp.attention_forward_s == plain.attention_forward_s
    assert sp.elementwise_forward_s < plain.elementwise_forward_s


def test_fused_attention_beats_the_unfused_one_at_2048_tokens():
    unfused = layer_times(GPT3, A100, microbatch=1, tp=8, settings=MEGATRON_2021)
    flash = layer_times(GPT3, A100, microbatch=1, tp=8, settings=dataclasses.replace(MEGATRON_2021, attention="flash2"))
    assert flash.attention_forward_s < unfused.attention_forward_s
    assert flash.attention_backward_s < unfused.attention_backward_s


def test_causal_fused_attention_is_1_7_to_1_8_times_faster_not_twice():
    """FlashAttention-2 skips the tiles above the diagonal but runs the ones crossing it whole, and every query
    tile still pays its pipeline fill: ~1.7–1.8× over non-causal at 2k tokens (Dao 2023 §3.1.1), nearer 2× as
    the sequence grows."""
    flash2 = dataclasses.replace(MEGATRON_2022, attention="flash2")

    def ratio(seq_len):
        shape = dict(layers=1, hidden=4096, heads=32, seq_len=seq_len, vocab=51200)
        causal, full = (layer_times(model_from_mapping(dict(shape, attention_mask=mask), "test", mask), A100,
                                    microbatch=16, settings=flash2) for mask in ("causal", "bidirectional"))
        return [float(f / c) for f, c in ((full.attention_forward_s, causal.attention_forward_s),
                                          (full.attention_backward_s, causal.attention_backward_s))]

    assert all(1.7 <= r <= 1.8 for r in ratio(2048)), ratio(2048)
    assert all(1.9 <= r < 2.0 for r in ratio(16384)), ratio(16384)
    assert all(1.0 <= r for r in ratio(64)), ratio(64)  # shorter than a tile: the one tile runs whole, no slower


def test_separate_gradient_accumulation_costs_ten_bytes_per_parameter():
    out = layer_times(GPT3, A100, microbatch=1, tp=8, settings=MEGATRON_2021)
    expected = 5e-6 + 10 * float(out.parameters) / (A100.hbm_bandwidth_bytes_per_s * 0.85 * 0.837)  # at 2021's share
    assert float(out.grad_accumulation_s) == pytest.approx(expected)
    assert float(layer_times(GPT3, A100, microbatch=1, tp=8).grad_accumulation_s) == 0.0  # fused


def test_tensor_parallelism_divides_the_layer():
    one, eight = (layer_times(GPT3, A100, microbatch=4, tp=t) for t in (1, 8))
    assert float(one.parameters / eight.parameters) == pytest.approx(8, rel=0.001)
    assert 6.0 <= float(one.total_s / eight.total_s) <= 8.0  # smaller GEMMs, unsplit norms: a little less than 8


def test_faster_gpu_is_faster():
    times = [float(layer_times(GPT3, get_gpu(g), microbatch=1, tp=8).total_s)  # V100: fp16, the others bf16
             for g in ("v100_sxm2", "a100_sxm4_80gb", "h100_sxm5", "b200_sxm")]
    assert times == sorted(times, reverse=True)


def test_moe_layer_runs_its_active_experts_whatever_the_expert_parallelism():
    mixtral = zoo()["mixtral-8x7b"]
    per_ep = [layer_times(mixtral, A100, microbatch=1, ep=e, kind="moe") for e in (1, 2, 8)]
    flops = [float(x.forward_flops) for x in per_ep]
    assert flops == pytest.approx([flops[0]] * 3)  # k·T token slots per GPU, spread over fewer local experts
    expert = 3 * 4096 * 14336  # one SwiGLU expert
    assert [float(x.parameters) for x in per_ep] == pytest.approx(
        [float(per_ep[0].parameters) - (8 - 8 / e) * expert for e in (1, 2, 8)])
    # against the dense layer of the same shape: one more expert per token (top-2) and the router
    tokens = mixtral.seq_len
    extra = 2 * tokens * expert + 2 * tokens * 4096 * 8
    assert float(per_ep[0].forward_flops - layer_times(mixtral, A100, microbatch=1).forward_flops) == pytest.approx(
        extra, rel=1e-9)


def test_optimizer_step_is_bytes_over_bandwidth():
    assert optimizer_step_s(1e9, A100) == pytest.approx(34e9 / (2.039e12 * 0.85 * SHARE))  # the stack's share


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(microbatch=1, tp=7), r"heads = 96 is not divisible by tensor-parallel size\(s\) \[7\]"),
    (dict(microbatch=1.5), r"microbatch must be whole numbers"),
    (dict(microbatch=1, precision="fp12"), r"unknown precision 'fp12'"),
    (dict(microbatch=1, precision="fp8"), r"has no fp8 peak"),
    (dict(microbatch=1, kind="moe"), r"has no MoE layers"),
    (dict(microbatch=1, recompute="most"), r"recompute = 'most'"),
])
def test_bad_strategies_are_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        layer_times(GPT3, A100, **kwargs)


def test_models_known_by_totals_are_a_two_part_roofline():
    resnet = zoo()["resnet-50"]  # its totals, timed as a model known only by them
    one = generic_compute(resnet, A100, samples=256)
    assert float(one.math_s) == pytest.approx(256 * 3 * resnet.forward_flops / (271.2e12 * SHARE))  # MAMF × share
    assert float(one.memory_s) == pytest.approx(256 * 3 * resnet.activation_memory / (2.039e12 * 0.85 * SHARE))
    split = generic_compute(resnet, A100, samples=256, model_parallel=8)
    assert float(split.total_s) == pytest.approx(float(one.total_s) / 8)
    dlrm = zoo()["dlrm-dcnv2"]
    eight, sixteen = (dlrm_compute(dlrm, A100, global_batch=65536, gpus=n) for n in (8, 16))
    assert float(eight.total_s) == pytest.approx(2 * float(sixteen.total_s))
    assert float(eight.math_s) == pytest.approx(3 * 32.06e6 * 8192 / (271.2e12 * SHARE), rel=0.002)  # §5: 32.1 MFLOP


def test_every_numeric_constant_names_its_source_and_tag():
    for cls in (GemmConstants, ComputeSettings):
        for name, spec in specs(cls).items():
            if spec.unit not in ("choice", "text"):
                assert any(tag in spec.source for tag in TAGS), (cls.__name__, name)


def test_under_fp8_the_output_layer_stays_in_16_bits():
    """Megatron-Core's output layer is not a Transformer Engine module, so FP8 speeds the layers' GEMMs and not the
    logits (NVIDIA/Megatron-LM megatron/core/models/gpt/gpt_model.py)."""
    model, gpu = GPT3, get_gpu("h100_sxm5")
    fp8 = edge_times(model, gpu, microbatch=1, tp=8, precision="fp8")
    bf16 = edge_times(model, gpu, microbatch=1, tp=8, precision="bf16")
    assert float(fp8.head_forward_s) == pytest.approx(float(bf16.head_forward_s))
    assert float(fp8.head_backward_s) == pytest.approx(float(bf16.head_backward_s))
    layer8 = layer_times(model, gpu, microbatch=1, tp=8, precision="fp8")
    layer16 = layer_times(model, gpu, microbatch=1, tp=8, precision="bf16")
    assert float(layer8.gemm_forward_s) < float(layer16.gemm_forward_s)  # the layers' GEMMs do run in FP8


def test_the_cross_entropy_moves_what_its_stack_s_kernels_move():
    """Megatron-Core's unfused vocabulary-parallel cross entropy passes over the fp32 logits pass by pass (38 B a
    logit forward, 14 backward); NeMo's fused one (cross_entropy_loss_fusion) once a step (22 forward): the head's
    times differ by those bytes over the streaming bandwidth, and by nothing else."""
    gpu = get_gpu("h100_sxm5")
    core, nemo = (get_stack(name).compute_for(gpu) for name in ("megatron-core", "nemo"))
    assert (core.cross_entropy_forward_bytes, core.cross_entropy_backward_bytes) == (38.0, 14.0)
    assert (nemo.cross_entropy_forward_bytes, nemo.cross_entropy_backward_bytes) == (22.0, 14.0)
    nemo = dataclasses.replace(nemo, fp8_scaling=core.fp8_scaling)  # the stacks differ there too, not in 16 bits
    a, b = (edge_times(GPT3, gpu, microbatch=2, tp=8, precision="bf16", settings=s) for s in (core, nemo))
    logits = 2 * GPT3.tokens * GPT3.vocab / 8
    stream = gpu.hbm_bandwidth_bytes_per_s * core.gemm.hbm_efficiency * core.efficiency_on(gpu)
    assert float(a.head_forward_s - b.head_forward_s) == pytest.approx((38 - 22) * logits / stream)
    assert float(a.head_backward_s) == pytest.approx(float(b.head_backward_s))
