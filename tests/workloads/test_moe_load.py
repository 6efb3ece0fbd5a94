"""A GPU's experts at work: each dropless MoE layer waits for the GPU of its expert group that received the most
token copies, whose excess over the mean is the sampling spread of a router balanced on average (workloads.moe);
Transformer Engine runs a GEMM per local expert, four at a time (ComputeSettings.expert_gemms)."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from workloads.compute import layer_times
from workloads.gpus import shipped_gpus
from workloads.models import load_model
from workloads.moe import busiest_expert_load
from workloads.models import load_model_file
from workloads.settings import DEFAULT_SETTINGS
from workloads.stacks import get_stack
from tests.sipml.cli_run import run


@pytest.mark.parametrize("experts, top_k, tokens, ep", [(8, 2, 256, 8), (128, 8, 16, 8), (64, 6, 16, 16)])
def test_the_busiest_gpus_load_is_that_of_routing_drawn_at_random(experts, top_k, tokens, ep):
    """ep GPUs each route `tokens` tokens, each token to top_k distinct experts drawn uniformly: the largest GPU
    count over the mean, averaged over many layers, is the formula's within a twentieth of its excess (the
    counts' fixed sum makes them negatively correlated: a formula of independent counts is 7 % low at 8 GPUs)."""
    rng = np.random.default_rng(1)
    layers, routed = 300, ep * tokens
    picks = np.argpartition(rng.random((layers, routed, experts)), top_k, axis=2)[:, :, :top_k]  # k distinct
    gpu = picks // (experts // ep)
    counts = np.stack([(gpu == g).sum(axis=(1, 2)) for g in range(ep)], axis=1)
    simulated = (counts.max(axis=1) / (tokens * top_k)).mean()
    formula = float(busiest_expert_load(experts, top_k, tokens, ep))
    assert formula > 1.0
    assert formula - 1.0 == pytest.approx(simulated - 1.0, rel=0.05)
    assert busiest_expert_load(experts, top_k, tokens, 1) == 1.0  # every expert on one GPU: nothing to wait for


def test_a_dropless_layers_gemms_take_as_long_as_one_padded_to_its_busiest_gpus_load_and_count_fewer_flops():
    mixtral = load_model("mixtral-8x7b")
    gpu = shipped_gpus()["h100_sxm5"]
    load = float(busiest_expert_load(mixtral.experts, mixtral.top_k, 4096 / 2, 8))
    padded = dataclasses.replace(mixtral, capacity_factor=load)
    args = dict(microbatch=1, tp=2, sequence_parallel=True, ep=8, etp=1, kind="moe")
    dropless, capped = layer_times(mixtral, gpu, **args), layer_times(padded, gpu, **args)
    assert float(dropless.gemm_forward_s) == pytest.approx(float(capped.gemm_forward_s), rel=1e-12)
    assert float(dropless.gemm_backward_s) == pytest.approx(float(capped.gemm_backward_s), rel=1e-12)
    # the FLOPs a GPU executes on average: the mean load, where the padded kernels execute the whole capacity
    assert float(dropless.forward_flops) < float(capped.forward_flops)


def test_mixtral_on_the_ideal_switch_stays_below_60_percent_mfu(capsys):
    """Mixtral 8x7B, the zoo's densest MoE pick on A100s (TP 2, EP 8 without recomputation, on a switch of no
    cost of its own), is below 60 % MFU with its layers waiting for their busiest GPU."""
    code, out, err = run(capsys, "speedup", "ideal", "--model", "mixtral-8x7b", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert row["strategy"]["ep"] > 1
    assert row["mfu"] < 0.60


QWEN30 = Path(__file__).resolve().parents[2] / "sipml" / "cases" / "models" / "qwen3-30b-a3b.toml"


def test_per_expert_gemms_four_at_a_time_cost_more_than_one_grouped_kernel_where_a_gpu_holds_more_than_four():
    qwen = load_model_file(QWEN30)  # 128 experts of width 768
    gpu = shipped_gpus()["h100_sxm5"]
    grouped = dataclasses.replace(DEFAULT_SETTINGS, expert_gemms="grouped")
    args = dict(microbatch=1, tp=1, kind="moe", precision="bf16")
    for ep, more in ((8, True), (32, False)):  # 16 local experts: four rounds of four; 4: one round
        each = layer_times(qwen, gpu, ep=ep, settings=DEFAULT_SETTINGS, **args)
        one = layer_times(qwen, gpu, ep=ep, settings=grouped, **args)
        if more:
            # at least three more kernels' fixed time for every one of the six expert GEMMs (two weights, three
            # products each)
            gap = float(each.gemm_forward_s + each.gemm_backward_s - one.gemm_forward_s - one.gemm_backward_s)
            assert gap >= 6 * 3 * DEFAULT_SETTINGS.gemm.kernel_time
        else:
            assert float(each.gemm_forward_s) == pytest.approx(float(one.gemm_forward_s), rel=1e-12)
        assert float(each.forward_flops) == pytest.approx(float(one.forward_flops), rel=1e-12)
    assert DEFAULT_SETTINGS.expert_gemms == "per-expert" and DEFAULT_SETTINGS.expert_gemm_streams == 4
    assert get_stack("deepseek-v3").compute.expert_gemms == "grouped"
