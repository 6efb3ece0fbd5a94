"""The busiest GPU of a dropless expert group: each MoE layer waits for the GPU that received the most token
copies, whose excess over the mean is the sampling spread of a router balanced on average (workloads.moe)."""

import dataclasses
import json
import math

import numpy as np
import pytest
from workloads.compute import layer_times
from workloads.gpus import shipped_gpus
from workloads.models import load_model
from workloads.moe import busiest_expert_load, expected_max_of_normals
from tests.sipml.cli_run import run


def test_the_expected_largest_of_n_normals_has_its_closed_forms():
    # E[max of 2] = 1/√π, E[max of 3] = 3/(2√π) (order statistics of the standard normal); one draw: its mean, 0
    got = expected_max_of_normals([1, 2, 3])
    assert got == pytest.approx([0.0, 1.0 / math.sqrt(math.pi), 1.5 / math.sqrt(math.pi)], abs=1e-9)
    draws = np.random.default_rng(0).standard_normal((100_000, 8)).max(axis=1)
    assert float(expected_max_of_normals(8)) == pytest.approx(draws.mean(), abs=0.01)


@pytest.mark.parametrize("experts, top_k, tokens, ep", [(8, 2, 256, 8), (128, 8, 64, 8), (64, 6, 128, 16)])
def test_the_busiest_gpus_load_is_that_of_routing_drawn_at_random(experts, top_k, tokens, ep):
    """ep GPUs each route `tokens` tokens, each token to top_k distinct experts drawn uniformly: the largest GPU
    count over the mean, averaged over many layers, is the formula's within a tenth of its excess."""
    rng = np.random.default_rng(1)
    layers, routed = 400, ep * tokens
    picks = np.argsort(rng.random((layers, routed, experts)), axis=2)[:, :, :top_k]  # k distinct experts a token
    gpu = picks // (experts // ep)
    counts = np.stack([(gpu == g).sum(axis=(1, 2)) for g in range(ep)], axis=1)
    simulated = (counts.max(axis=1) / (tokens * top_k)).mean()
    formula = float(busiest_expert_load(experts, top_k, tokens, ep))
    assert formula > 1.0
    assert formula - 1.0 == pytest.approx(simulated - 1.0, rel=0.1)
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
