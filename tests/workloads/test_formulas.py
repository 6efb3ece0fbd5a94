"""Closed-form training formulas against the reference numbers (K22, N21, R20, workloads-2.md §1–§4), and their
properties: they broadcast, and more recomputation, sharding or parallelism never stores more."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloads.memory import (activation_bytes_per_layer, embedding_activation_bytes, first_stage_activation_bytes,
                              model_activation_bytes_per_layer, model_state_bytes)
from workloads.models import zoo
from workloads.moe import all_to_all_bytes_per_token, model_all_to_all_bytes_per_token, node_limited_dispatch_bytes
from workloads.pipeline import bubble_fraction, bubble_share_of_iteration
from workloads.transformer import (hardware_flops_per_iteration, megatron_flops_per_iteration,
                                   model_flops_per_iteration, parameter_count, parameters_per_gpu,
                                   pipeline_message_bytes, tensor_parallel_collectives_per_layer,
                                   tensor_parallel_message_bytes, training_flops_per_token)

KIB, MIB = 1024.0, 1024.0 ** 2


# --- FLOPs ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "h", "l", "overhead"), [(96, 12288, 96, 0.027), (128, 20480, 105, 0.016)])
def test_selective_recompute_overhead_is_k22s(a, h, l, overhead):
    # K22 §5: 2.7 % extra FLOPs for GPT-3, 1.6 % for MT-NLG (s = 2048, V = 51200); the quoted figures truncate
    ratio = hardware_flops_per_iteration(1, l, h, 2048, 51200, "selective") / model_flops_per_iteration(1, l, h, 2048, 51200)
    assert float(ratio - 1) == pytest.approx(overhead, abs=0.001)


def test_full_recompute_is_the_96_against_72_of_workloads_md():
    full = hardware_flops_per_iteration(512, 24, 2304, 2048, 51200, "full")
    assert full == pytest.approx(96 * 512 * 2048 * 24 * 2304 ** 2 * (1 + 2048 / (6 * 2304) + 51200 / (16 * 24 * 2304)))
    assert full == megatron_flops_per_iteration(512, 24, 2304, 2048, 51200)
    # the layers' share of the ratio is exactly 4/3 (one extra forward); the logits are not recomputed
    layers_only = hardware_flops_per_iteration(1, 24, 2304, 2048, 0, "full") / model_flops_per_iteration(1, 24, 2304, 2048, 0)
    assert float(layers_only) == pytest.approx(4 / 3)


@pytest.mark.parametrize("name", ["megatron-1.7b", "megatron-145.6b", "gpt3-175b"])
def test_shape_derived_flops_equal_k22_eq7(name):
    m = zoo()[name]
    tokens = 64 * m.seq_len
    assert training_flops_per_token(m) * tokens == pytest.approx(
        float(model_flops_per_iteration(64, m.layers, m.hidden, m.seq_len, m.vocab)), rel=1e-12)


def test_flops_broadcast_over_strategy_arrays():
    batches = np.array([256, 512, 1024])
    modes = np.array(["none", "selective", "full"])
    out = hardware_flops_per_iteration(batches, 24, 2304, 2048, 51200, modes)
    scalar = [hardware_flops_per_iteration(b, 24, 2304, 2048, 51200, r) for b, r in zip(batches, modes)]
    assert np.allclose(out, scalar)


# --- activation memory (K22) ------------------------------------------------------------------------------------
shape = st.tuples(st.sampled_from([512, 1024, 2048, 4096]), st.integers(1, 16), st.sampled_from([1024, 4096, 12288]),
                  st.sampled_from([16, 32, 96]), st.sampled_from([1, 2, 4, 8]))


@settings(max_examples=40, deadline=None)
@given(shape)
def test_activation_memory_is_k22_table_2(case):
    s, b, h, a, t = case
    sbh = s * b * h
    expect = {  # K22 Eq. 1, 2, 4, Tab. 2 and §5
        ("none", False): sbh * (10 + 24 / t + 5 * a * s / (h * t)),
        ("none", True): sbh / t * (34 + 5 * a * s / h),
        ("selective", False): sbh * (10 + 24 / t),
        ("selective", True): 34 * sbh / t,
        ("full", False): 2 * sbh,
    }
    for (recompute, sp), value in expect.items():
        got = activation_bytes_per_layer(s, b, h, a, tp=t, sequence_parallel=sp, recompute=recompute)
        assert float(got) == pytest.approx(value, rel=1e-12), (recompute, sp)
    assert float(activation_bytes_per_layer(s, b, h, a)) == pytest.approx(sbh * (34 + 5 * a * s / h))  # Eq. 1


@pytest.mark.parametrize(("a", "h", "saving"), [(96, 12288, 0.70), (128, 20480, 0.65)])
def test_selective_recompute_saves_k22s_share(a, h, saving):
    # K22 §5: selective recomputation saves 70 % (GPT-3) and 65 % (MT-NLG) of the activation memory
    none = activation_bytes_per_layer(2048, 1, h, a, tp=8, sequence_parallel=True)
    selective = activation_bytes_per_layer(2048, 1, h, a, tp=8, sequence_parallel=True, recompute="selective")
    assert float(1 - selective / none) == pytest.approx(saving, abs=0.005)


@settings(max_examples=40, deadline=None)
@given(shape, st.booleans())
def test_more_recomputation_or_sequence_parallelism_never_stores_more(case, flash):
    s, b, h, a, t = case
    kw = dict(tp=t, flash_attention=flash)
    none, sel, full = (activation_bytes_per_layer(s, b, h, a, recompute=r, **kw) for r in ("none", "selective", "full"))
    assert full <= sel <= none
    assert activation_bytes_per_layer(s, b, h, a, sequence_parallel=True, **kw) <= none


def test_activation_memory_broadcasts():
    b = np.array([1, 2, 4])
    t = np.array([[1], [8]])
    out = activation_bytes_per_layer(2048, b, 12288, 96, tp=t, recompute="selective")
    assert out.shape == (2, 3)
    assert out[1, 2] == activation_bytes_per_layer(2048, 4, 12288, 96, tp=8, recompute="selective")


def test_generalised_widths_reduce_to_k22_and_shrink_with_grouped_queries():
    gpt = zoo()["gpt3-175b"]
    assert model_activation_bytes_per_layer(gpt, 1, tp=8) == activation_bytes_per_layer(2048, 1, 12288, 96, tp=8)
    llama = zoo()["llama3-405b"]
    mha = activation_bytes_per_layer(8192, 1, 16384, 128, tp=8, ffn_hidden=53248, gated=True, dropout=False)
    assert model_activation_bytes_per_layer(llama, 1, tp=8) < mha  # 8 KV heads store less than 128


def test_first_stage_holds_l_layers_whatever_p_and_more_when_interleaved():
    per_layer = activation_bytes_per_layer(2048, 1, 12288, 96, tp=8, sequence_parallel=True, recompute="selective")
    for p in (1, 4, 16):
        assert first_stage_activation_bytes(per_layer, 96, p) == pytest.approx(96 * per_layer)  # K22 Eq. 5
    assert first_stage_activation_bytes(per_layer, 96, 8, interleave=3) == pytest.approx(
        96 * per_layer * (1 + 7 / 24))  # K22 §4.2.3
    assert first_stage_activation_bytes(per_layer, 96, 8, schedule="gpipe", microbatches=64) == pytest.approx(
        64 * 12 * per_layer)


def test_embedding_activations_are_k22_section_4_3():
    s, b, h, v, t = 2048, 1, 6144, 51200, 8
    assert embedding_activation_bytes(s, b, h, v, tp=t, pp=1) == pytest.approx(s * b * h / t * (1 + 4 * (1 + v / h)))
    assert embedding_activation_bytes(s, b, h, v, tp=t, pp=4) == pytest.approx(s * b * h / t * 4)


# --- ZeRO (R20) --------------------------------------------------------------------------------------------------
def test_zero_worked_example():
    # R20 Fig. 1: Ψ = 7.5B, N_d = 64, K = 12 → 120 / 31.4 / 16.6 / 1.9 GB
    gb = model_state_bytes(7.5e9, 64, np.array([0, 1, 2, 3])) / 1e9
    assert np.allclose(gb, [120, 31.4, 16.6, 1.9], atol=0.06)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e6, 1e12), st.integers(1, 4096))
def test_zero_stages_never_hold_more(psi, dp):
    states = model_state_bytes(psi, dp, np.array([0, 1, 2, 3]))
    assert np.all(np.diff(states) <= 1e-6 * states[0])
    assert model_state_bytes(psi, 1, 3) == pytest.approx(16 * psi)  # one rank holds everything


# --- pipeline bubble (N21) ------------------------------------------------------------------------------------------
def test_bubble_fractions():
    assert bubble_fraction(8, 64) == pytest.approx(7 / 64)  # (p − 1)/m
    assert bubble_fraction(8, 64, 3) == pytest.approx(7 / 192)  # (p − 1)/(v·m)
    assert bubble_share_of_iteration(8, 64, 3) == pytest.approx(7 / 199)
    assert bubble_fraction(1, 16) == 0.0
    assert np.allclose(bubble_fraction(np.array([2, 4]), np.array([[8], [16]])), [[1 / 8, 3 / 8], [1 / 16, 3 / 16]])


# --- MoE traffic (workloads-2.md §4) -------------------------------------------------------------------------------
def test_mixtral_all_to_all_bytes():
    m = zoo()["mixtral-8x7b"]
    assert all_to_all_bytes_per_token(m.hidden, m.top_k) == 32 * KIB  # bf16 dispatch + combine, forward
    assert all_to_all_bytes_per_token(m.hidden, m.top_k, backward=True) == 64 * KIB
    assert model_all_to_all_bytes_per_token(m) == 2 * MIB  # × 32 layers


def test_deepseek_v3_all_to_all_bytes():
    m = zoo()["deepseek-v3"]
    # dispatch in FP8 (1 B), combine in BF16 (2 B): 8 · 7168 · 3 B = 168 KiB per token per MoE layer
    assert all_to_all_bytes_per_token(m.hidden, m.top_k, dispatch_bytes=1, combine_bytes=2) == 168 * KIB
    assert node_limited_dispatch_bytes(m.hidden, 4, 1) == 28 * KIB  # ≤ 4 nodes, one copy each, on IB


def test_all_to_all_share_leaving_the_gpu_and_padding():
    full = all_to_all_bytes_per_token(4096, 2)
    assert all_to_all_bytes_per_token(4096, 2, ep=8) == pytest.approx(full * 7 / 8)
    assert all_to_all_bytes_per_token(4096, 2, capacity_factor=1.25, padded=True) == pytest.approx(1.25 * full)
    assert all_to_all_bytes_per_token(4096, 2, ep=1) == 0.0


# --- what one GPU holds, what tensor and pipeline parallelism move --------------------------------------------------
@pytest.mark.parametrize("name", ["gpt3-175b", "mixtral-8x7b", "deepseek-v3", "llama3-405b", "transformer-big"])
def test_one_gpu_holds_the_whole_model(name):
    m = zoo()[name]
    assert float(parameters_per_gpu(m)) == pytest.approx(parameter_count(m), rel=1e-12)


def test_parameters_per_gpu_under_tensor_pipeline_and_expert_parallelism():
    gpt = zoo()["gpt3-175b"]
    h, v = gpt.hidden, gpt.vocab
    layer = 12 * h * h / 8 + (3 * h / 8 + h + 4 * h / 8 + h) + 4 * h  # weights, biases (row-parallel ones whole), LNs
    first = v * h / 8 + gpt.seq_len * h
    assert float(parameters_per_gpu(gpt, tp=8, pp=8)) == pytest.approx(96 / 8 * layer + first, rel=1e-12)
    mixtral = zoo()["mixtral-8x7b"]
    expert = 3 * 4096 * 14336
    assert float(parameters_per_gpu(mixtral, ep=8) - parameters_per_gpu(mixtral, ep=1)) == pytest.approx(
        -32 * 7 * expert)
    assert parameters_per_gpu(gpt, tp=np.array([1, 8]), pp=np.array([[1], [8]])).shape == (2, 2)


def test_tensor_and_pipeline_traffic_are_workloads_md():
    gpt = zoo()["gpt3-175b"]
    assert tensor_parallel_message_bytes(gpt, 2) == 2 * 2048 * 12288 * 2  # b·s·h elements in 16 bits
    plain = tensor_parallel_collectives_per_layer()
    assert int(plain["all_reduce"]) == 4 and int(plain["all_gather"]) == 0  # 2 forward + 2 backward
    assert int(tensor_parallel_collectives_per_layer("full")["all_reduce"]) == 6
    assert int(tensor_parallel_collectives_per_layer("selective")["all_reduce"]) == 4
    sp = tensor_parallel_collectives_per_layer("none", True)
    # each all-reduce a reduce-scatter and an all-gather, and the 2 column-parallel inputs gathered again backward
    assert (int(sp["all_reduce"]), int(sp["reduce_scatter"]), int(sp["all_gather"])) == (0, 4, 6)
    assert pipeline_message_bytes(gpt, 1, tp=8) == 2048 * 12288 * 2 / 8  # scatter/gather: b·s·h/t
    assert pipeline_message_bytes(gpt, 1, tp=8, scatter_gather=False) == 2048 * 12288 * 2


def test_moe_layer_stores_its_routed_token_copies_and_expert_activations():
    m = zoo()["mixtral-8x7b"]
    s, h, f = m.seq_len, m.hidden, m.expert_ffn
    dense = model_activation_bytes_per_layer(m, 1)
    moe = model_activation_bytes_per_layer(m, 1, moe=True)
    # top-2: two 2h token copies and two SwiGLU experts' 6·f, in place of one dense MLP's 6·f
    assert float(moe - dense) == pytest.approx(s * (2 * (2 * h + 6 * f) - 6 * f))
    assert model_activation_bytes_per_layer(m, 1, moe=True, recompute="full") == 2 * s * h
