"""Expert-parallel all-to-alls under another microbatch's compute (DeepSeek-V3's DualPipe; Megatron-Core's
--overlap-moe-expert-parallel-comm): what shows of them is max(X − W, σ·X) per microbatch, X the all-to-alls'
seconds and W the microbatch's compute, σ the share compute's slowdown costs; and the bytes a token's dispatch
carries follow its precision."""

import dataclasses

import pytest

from sipml.design_files import load_design
from workloads import stacks
from workloads.models import zoo
from workloads.speedup import evaluate_model

MIXTRAL = zoo()["mixtral-8x7b"]
FIXED = {"tp": 1, "pp": 1, "microbatch": 1, "recompute": 2, "zero": 1, "ep": 8, "interleave": 1}


def _run(stack, batch=256):
    design = load_design("dgx-h100", ["fabric.gpus=64"])
    return evaluate_model(MIXTRAL, design, "d", batch, {**FIXED}, stack=stack).best.breakdown


def test_overlapped_all_to_alls_show_only_beyond_the_compute_or_sigma_of_themselves():
    shipped = stacks.get_stack("deepseek-v3")
    plain = dataclasses.replace(shipped, training=dataclasses.replace(shipped.training, ep_overlap="none"))
    on, off = _run(shipped), _run(plain)
    m = 256 // 64  # microbatches per GPU
    x, w = off["expert_parallel"] / m, off["compute"] / m
    sigma = shipped.training.hidden_share
    assert x > 0 and on["compute"] == pytest.approx(off["compute"])
    assert on["expert_parallel"] == pytest.approx(m * max(x - w, sigma * x), rel=1e-9)
    assert on["expert_parallel"] < off["expert_parallel"]


def test_the_dispatch_precision_sets_the_bytes_the_all_to_alls_move():
    """The all-to-alls' seconds are a fixed latency plus their bytes over the links: affine in the bytes per
    token, k·h·(dispatch + combine), so FP8 dispatch (1 + 4/128 B with its scales) sits on the line through BF16
    (2 B) and 0.5 B at its own bytes."""
    shipped = stacks.get_stack("deepseek-v3")
    plain = dataclasses.replace(shipped, training=dataclasses.replace(shipped.training, ep_overlap="none"))
    seconds = {b: _run(dataclasses.replace(plain, training=dataclasses.replace(plain.training, ep_dispatch_bytes=b)))
               ["expert_parallel"] for b in (0.5, 2.0)}
    fp8 = _run(plain)["expert_parallel"]
    on_line = seconds[0.5] + (seconds[2.0] - seconds[0.5]) * (1.03125 - 0.5) / (2.0 - 0.5)
    assert fp8 == pytest.approx(on_line, rel=1e-9)
    assert seconds[0.5] < fp8 < seconds[2.0]


def test_a_step_of_one_microbatch_has_no_other_to_hide_its_all_to_alls_under():
    shipped = stacks.get_stack("deepseek-v3")
    plain = dataclasses.replace(shipped, training=dataclasses.replace(shipped.training, ep_overlap="none"))
    assert _run(shipped, batch=64)["expert_parallel"] == _run(plain, batch=64)["expert_parallel"] > 0
