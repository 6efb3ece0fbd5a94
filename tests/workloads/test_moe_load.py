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


@pytest.mark.parametrize("experts, top_k, tokens, ep", [(8, 2, 256, 8), (128, 8, 16, 8), (64, 6, 16, 16),
                                                           (32, 4, 64, 4)])
def test_the_busiest_gpus_load_is_that_of_routing_drawn_at_random(experts, top_k, tokens, ep):
    """ep GPUs each route `tokens` tokens, each token to top_k distinct experts drawn uniformly: the largest GPU
    count over the mean, averaged over many layers, is the formula's within a twentieth of its excess (the
    counts' fixed sum makes them negatively correlated: a formula of independent counts is 13 % low at 4 GPUs,
    7 % at 8)."""
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


def test_current_scaling_casts_each_experts_fp8_operands_with_kernels_of_its_own():
    """Transformer Engine fuses the local experts' FP8 casts into one kernel under delayed scaling only; under
    current scaling each expert's input is amax-read and cast by its own kernels: 16 local experts add at least
    15 × 2 kernels to the forward of each of the two expert weights."""
    qwen = load_model_file(QWEN30)
    gpu = shipped_gpus()["h100_sxm5"]
    args = dict(microbatch=1, tp=1, ep=8, kind="moe", precision="fp8")
    current = dataclasses.replace(DEFAULT_SETTINGS, fp8_scaling="current")
    delayed = dataclasses.replace(DEFAULT_SETTINGS, fp8_scaling="delayed")
    kernel = DEFAULT_SETTINGS.gemm.kernel_time
    moe_gap = float(layer_times(qwen, gpu, settings=current, **args).gemm_forward_s
                    - layer_times(qwen, gpu, settings=delayed, **args).gemm_forward_s)
    assert moe_gap >= 2 * 15 * 2 * kernel
    grouped = dataclasses.replace(current, expert_gemms="grouped")  # one grouped kernel: one cast for them all
    grouped_gap = float(layer_times(qwen, gpu, settings=grouped, **args).gemm_forward_s
                        - layer_times(qwen, gpu, settings=dataclasses.replace(grouped, fp8_scaling="delayed"),
                                      **args).gemm_forward_s)
    assert grouped_gap < moe_gap - 2 * 15 * 2 * kernel * 0.99


def test_the_all_to_alls_end_when_the_busiest_gpu_has_received_its_copies():
    """The expert-parallel all-to-alls of a dropless Mixtral take as long as those of one padded to its busiest
    GPU's load (the same copies received by the GPU that receives the most), and longer than a perfectly balanced
    exchange would."""
    from sipml.design_files import load_design
    from workloads.speedup import evaluate_model

    design = load_design("dgx-h100", ["fabric.gpus=64"])
    mixtral = load_model("mixtral-8x7b")
    fixed = {"tp": 2, "pp": 4, "microbatch": 1, "recompute": 0, "zero": 1, "ep": 8, "etp": 1, "sp": True,
             "interleave": 1}
    load = float(busiest_expert_load(mixtral.experts, mixtral.top_k, 4096 * 1 / 2, 8))

    def expert_s(model):
        return evaluate_model(model, design, "d", 256, fixed).best.breakdown["expert_parallel"]

    dropless, padded = expert_s(mixtral), expert_s(dataclasses.replace(mixtral, capacity_factor=load))
    assert dropless == pytest.approx(padded, rel=1e-9)
    assert dropless > expert_s(dataclasses.replace(mixtral, capacity_factor=1.0 + 1e-9)) * (1 + 0.5 * (load - 1))
