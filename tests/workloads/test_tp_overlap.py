"""Megatron's asynchronous tensor-parallel backward (LinearWithGradAccumulationAndAsyncCommunication): each
column-parallel layer's (QKV, MLP-up) input-gradient all-reduce runs under its weight-gradient GEMM. K22's 22B run
(TP 8, no sequence parallelism, full recomputation) all-reduces 6 times a layer: after the two row-parallel layers in
the forward and again in its rerun, and the two column-parallel layers' input gradients in the backward. Those last
2 hide: what shows is 4/6 of the whole plus σ of the other 2/6 (σ = 1 − 1/1.189, compute slowed while it
overlaps)."""

import dataclasses

import pytest

from sipml.design_files import load_design
from workloads import stacks
from workloads.models import load_model
from workloads.speedup import evaluate_model

STRATEGY = {"tp": 8, "pp": 1, "microbatch": 4, "interleave": 1, "zero": 0, "recompute": 2, "sp": False}


def _tensor(stack, **changed):
    from pathlib import Path

    import sipml

    model = load_model(Path(sipml.__file__).parent / "cases" / "models" / "k22-22b.toml")
    design = load_design("dgx-a100", ["fabric.gpus=8", "fabric.gpu=gpu.a100_sxm4_80gb"])
    best = evaluate_model(model, design, "d", 4, {**STRATEGY, **changed}, stack=stack).best
    return best.breakdown["tensor_parallel"]


def test_the_column_parallel_backward_all_reduces_hide_under_the_weight_gradient_gemms():
    shipped = stacks.get_stack("megatron-2022")
    assert shipped.training.tp_overlap == "backward"
    exposed = dataclasses.replace(shipped, training=dataclasses.replace(shipped.training, tp_overlap="none"))
    hidden, whole = _tensor(shipped), _tensor(exposed)
    sigma = shipped.training.hidden_share
    assert hidden == pytest.approx(whole * (4 / 6 + sigma * 2 / 6), rel=1e-9)


def test_with_sequence_parallelism_the_regathers_and_reduce_scatters_hide_and_the_rest_shows():
    """K22's 22B with sequence parallelism and selective recomputation: a layer reduce-scatters 4 times and
    all-gathers 6 (4 as the all-reduces split, 2 re-gathers of the column-parallel inputs for their weight
    gradients); the 2 re-gathers and the 2 column-parallel input-gradient reduce-scatters hide, so 6 of the 10
    show whole and 4 at σ (reduce-scatter and all-gather of one size take the same time here)."""
    shipped = stacks.get_stack("megatron-2022")
    exposed = dataclasses.replace(shipped, training=dataclasses.replace(shipped.training, tp_overlap="none"))
    hidden, whole = (_tensor(st, sp=True, recompute=1) for st in (shipped, exposed))
    sigma = shipped.training.hidden_share
    assert hidden == pytest.approx(whole * (6 + 4 * sigma) / 10, rel=1e-9)


def test_user_buffer_overlap_runs_its_gemms_in_tp_chunks():
    """Under Transformer Engine's user-buffer overlap (tp_overlap = 'gemm') each GEMM pipelined with a
    tensor-parallel collective runs as tp GEMMs of M/tp rows: the forward of every projection and the data
    gradient of the row-parallel ones; the weight gradients stay whole. A short sequence at TP 8 (256-row chunks)
    loses more than a long one at TP 2."""
    from workloads.compute import layer_times
    from workloads.gpus import shipped_gpus
    from workloads.models import zoo

    gpu = shipped_gpus()["h100_sxm5"]
    model = zoo()["gpt3-175b"]

    def times(tp, split, sp=True, microbatch=1):
        return layer_times(model, gpu, microbatch=microbatch, tp=tp, sequence_parallel=sp, split_tp_gemms=split)

    short = times(8, True).gemm_forward_s / times(8, False).gemm_forward_s
    long = times(2, True, microbatch=4).gemm_forward_s / times(2, False, microbatch=4).gemm_forward_s
    assert short > long > 1.0
    assert times(8, True).gemm_backward_s > times(8, False).gemm_backward_s
    assert times(1, True).gemm_forward_s == times(1, False).gemm_forward_s  # no tensor parallelism, no split
    assert times(8, True, sp=False).gemm_forward_s == times(8, False, sp=False).gemm_forward_s  # needs SP
    whole, chunked = times(8, False), times(8, True)
    assert float(chunked.forward_flops) == float(whole.forward_flops)  # the same work, in smaller GEMMs


def test_user_buffer_overlap_needs_sequence_parallelism():
    """Megatron-LM refuses --tp-comm-overlap without sequence parallelism: under the nemo stack a strategy
    without it is priced with the asynchronous backward (megatron-core's), not the user-buffer overlap."""
    design = load_design("dgx-h100", ["fabric.gpus=128"])
    model = load_model("gpt3-175b")
    fixed = {"tp": 8, "pp": 8, "microbatch": 1, "interleave": 1, "zero": 1, "recompute": 2, "sp": False}
    nemo = evaluate_model(model, design, "d", 128, fixed, stack=stacks.get_stack("nemo")).best.breakdown
    core = evaluate_model(model, design, "d", 128, fixed, stack=stacks.get_stack("megatron-core")).best.breakdown
    assert nemo["tensor_parallel"] == pytest.approx(core["tensor_parallel"], rel=1e-9) and nemo["tensor_parallel"] > 0
