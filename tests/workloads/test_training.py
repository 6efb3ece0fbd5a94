"""The iteration model and the strategy search on fabrics: hand calculations of the communication it charges,
and the properties a search must have."""

import dataclasses as dc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InfeasibleDesign, InputError
from fabric.evaluate import evaluate_fabric, price
from fabric.kind import Collective
from sipml.design_files import load_design
from workloads.gpus import get_gpu
from workloads.models import load_model
from workloads.speedup import evaluate_model
from workloads.stacks import get_stack
from workloads.strategy import parse_strategy, transformer_strategies
from workloads.settings import TrainingSettings
from workloads.training import transformer_breakdown

A100 = get_gpu("a100_sxm4_80gb")
GPT = load_model("megatron-18.4b")


def dgx(gpus=256, **topology):
    d = load_design("dgx-a100", [f"fabric.gpus={gpus}", "fabric.gpu=gpu.a100_sxm4_80gb"])
    return evaluate_fabric(dc.replace(d, topology=dc.replace(d.topology, **topology)) if topology else d)


def one(model, est, batch, **fixed):
    st = transformer_strategies(model, est.job_gpus, batch, fixed)
    assert len(st) == 1, st
    return st, transformer_breakdown(model, A100, est, batch, st)


def test_tensor_parallel_time_is_four_all_reduces_per_layer_per_microbatch():
    """t = 8 inside a server, no recomputation: per microbatch and layer Megatron runs 2 all-reduces of b·s·h
    16-bit values forward and 2 backward, so the exposed tensor-parallel time is m·L·4·AR(2·b·s·h bytes, 8 ranks);
    full recomputation replays the forward and adds 2 more."""
    est = dgx()
    b, batch = 1, 1024
    for recompute, calls in ((0, 4), (2, 6)):
        st, br = one(GPT, est, batch, tp=8, pp=1, microbatch=b, recompute=recompute, sp=False, zero=0, interleave=1)
        m = batch / (32 * b)
        ar = price(est, [Collective("all_reduce", b * GPT.seq_len * GPT.hidden * 2.0, 8)])[0].seconds
        assert br.tensor_parallel_s[0] == pytest.approx(m * GPT.layers * calls * ar, rel=1e-9)
        assert br.pipeline_s[0] == 0.0 and br.bubble_s[0] == 0.0


def test_pipeline_bubble_and_sends():
    """p = 4 stages: the bubble is (p − 1)/v stage times, each stage time including its two sends per microbatch
    (activations forward, gradients backward: b·s·h/t 16-bit values each, v times when interleaved). In the
    steady state the sends are on the critical path without interleaving; with it (Megatron-Core's
    overlap_p2p_comm) only σ of them shows: max(X − C, σ·X) with σ = 1 − 1/1.189."""
    est = dgx()
    batch = 1024
    sigma = 1 - 1 / 1.189
    for v in (1, 2):
        st, br = one(GPT, est, batch, tp=8, pp=4, microbatch=2, recompute=2, sp=False, zero=0, interleave=v,
                     order=0)
        m = batch / (8 * 2)
        send = price(est, [Collective("p2p", 2 * GPT.seq_len * GPT.hidden * 2.0 / 8, 4, 8 * 8)])[0].seconds
        sends = 2 * v * send
        assert br.pipeline_s[0] / m == pytest.approx(sends if v == 1 else sigma * sends, rel=1e-6)
        stage = (br.compute_s[0] + br.tensor_parallel_s[0]) / m + sends
        assert br.bubble_s[0] == pytest.approx(3 / v * stage, rel=1e-6)


def test_data_parallel_reduction_overlaps_the_last_backward():
    """ZeRO-0: the gradients (fp32, the stage's parameters per GPU) are all-reduced once over dp, hidden behind
    the last microbatch's backward except at least one layer's bucket; with no overlap all of it shows."""
    est = dgx()
    kw = dict(tp=8, pp=1, microbatch=1, recompute=2, sp=False, zero=0, interleave=1)
    _, overlapped = one(GPT, est, 1024, **kw)
    st = transformer_strategies(GPT, 256, 1024, kw)
    none = transformer_breakdown(GPT, A100, est, 1024, st, training=TrainingSettings(dp_overlap="none"))
    assert none.data_parallel_s[0] > overlapped.data_parallel_s[0] > 0
    assert overlapped.data_parallel_s[0] >= none.data_parallel_s[0] / GPT.layers * (1 - 1e-9)


def test_zero_shards_memory_and_the_search_refuses_what_does_not_fit():
    """ZeRO-1 shards the optimizer state over dp (R20): less memory per GPU than ZeRO-0; a strategy over the
    usable HBM is never chosen."""
    est = dgx()
    kw = dict(tp=8, pp=1, microbatch=1, recompute=2, sp=False, interleave=1)
    _, z0 = one(GPT, est, 1024, zero=0, **kw)
    _, z1 = one(GPT, est, 1024, zero=1, **kw)
    assert z1.memory_bytes[0] < z0.memory_bytes[0]
    model = load_model("gpt3-175b")
    d = load_design("dgx-a100", ["fabric.gpus=64", "fabric.gpu=gpu.a100_sxm4_80gb"])
    with pytest.raises(InfeasibleDesign, match="memory"):
        evaluate_model(model, d, "dgx-a100", 128, {"tp": 1, "pp": 1, "zero": 0})


def test_the_search_returns_the_fastest_feasible_strategy():
    est = dgx()
    model = load_model("megatron-7.5b")
    st = transformer_strategies(model, 256, 512)
    stack = get_stack("megatron-core")  # the stack the search runs a zoo transformer under
    br = transformer_breakdown(model, A100, est, 512, st, compute=stack.compute_for(A100), training=stack.training)
    d = load_design("dgx-a100", ["fabric.gpus=256", "fabric.gpu=gpu.a100_sxm4_80gb"])
    result = evaluate_model(model, d, "dgx-a100", 512, top=3, estimate=est)
    feasible = br.iteration_s[br.fits]
    assert result.best.iteration_s == pytest.approx(feasible.min(), rel=1e-12)
    assert result.best.memory_bytes <= br.memory_limit_bytes
    assert [c.iteration_s for c in result.top] == sorted(c.iteration_s for c in result.top)
    assert result.candidates == len(st) and result.feasible == int(br.fits.sum())


def test_vectorised_iteration_equals_one_strategy_at_a_time():
    est = evaluate_fabric(load_design("sip-ocs"))
    model = load_model("gpt2-355m")
    st = transformer_strategies(model, 1024, 1024)
    br = transformer_breakdown(model, A100, est, 1024, st)
    for i in np.linspace(0, len(st) - 1, 7).astype(int):
        row = st.row(int(i))
        fixed = parse_strategy(",".join(f"{k}={v}" for k, v in row.items()))
        single = transformer_breakdown(model, A100, est, 1024, transformer_strategies(model, 1024, 1024, fixed))
        assert single.iteration_s[0] == pytest.approx(br.iteration_s[i], rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(factor=st.floats(1.0, 8.0), index=st.integers(0, 10_000))
def test_more_bandwidth_never_slows_a_fixed_strategy(factor, index):
    """A DGX with faster NICs (same everything else) runs every strategy at least as fast."""
    model = load_model("megatron-3.6b")
    slow, fast = dgx(64), dgx(64, nic_bandwidth=200e9 * factor)
    st = transformer_strategies(model, 64, 512)
    st = st.take(np.array([index % len(st)]))
    t_slow = transformer_breakdown(model, A100, slow, 512, st).iteration_s[0]
    t_fast = transformer_breakdown(model, A100, fast, 512, st).iteration_s[0]
    assert t_fast <= t_slow * (1 + 1e-12)


def test_strategy_text_and_bad_strategies():
    assert parse_strategy("tp=8,pp=4,microbatch=1,recompute=full,sp=true,order=tp-pp-dp") == {
        "tp": 8, "pp": 4, "microbatch": 1, "recompute": 2, "sp": True, "order": 1}
    for bad in ("tp=eight", "tq=8", "recompute=some", "tp"):
        with pytest.raises(InputError):
            parse_strategy(bad)
    with pytest.raises(InputError, match="no valid strategy"):
        transformer_strategies(GPT, 256, 1024, {"tp": 3})
    with pytest.raises(InputError, match="no valid strategy"):
        transformer_strategies(GPT, 256, 7)  # no dp·microbatch divides 7 with dp·tp·pp = 256


def test_a_collective_that_never_ends_makes_the_iteration_endless_without_a_warning():
    """A group no circuit or wavelength serves takes forever: the exposed time is infinite (its last bucket too,
    inf − inf), a one-stage pipeline has no bubble (0 × inf), and nothing warns (warnings are errors here)."""
    import numpy as np

    from core.errors import InfeasibleDesign
    from workloads.settings import DEFAULT_TRAINING
    from sipml.design_files import load_design
    from workloads import speedup
    from workloads.models import load_model

    assert DEFAULT_TRAINING.overlapped(np.inf, 1.0, np.inf) == np.inf
    assert DEFAULT_TRAINING.overlapped(np.array([np.inf, 3.0]), 1.0, np.array([np.inf, 0.5]))[0] == np.inf
    d = load_design("sip-ocs", ["fabric.gpus=512", "sip_ocs.switches=1"])  # one circuit per GPU for the whole mix
    with pytest.raises(InfeasibleDesign, match="fits in .* memory runs on this fabric: each has a collective"):
        speedup.evaluate_model(load_model("gpt3-175b"), d, "sip-ocs", 1536, estimate=speedup.evaluate_fabric(d))


def test_interleaving_splits_every_stage_into_whole_chunks():
    """Megatron-Core refuses uneven stages whose layers the virtual stages do not divide (transformer_config.py),
    but lets an end stage hold one layer less where the embedding or the loss takes a layer's slot: Llama 3.1
    405B's 126 layers run 8 stages of 16 slots in 8 chunks each (NeMo's preset), where megatron-76.1b's 60 layers
    on 8 stages (6, 8 … 8, 6) cannot run 8 chunks, only 2."""
    from workloads.models import zoo

    st = transformer_strategies(zoo()["llama3-405b"], 1024, 512, {"tp": 8, "pp": 8, "cp": 2, "interleave": 8})
    assert len(st) > 0
    m76 = zoo()["megatron-76.1b"]
    with pytest.raises(InputError, match="v dividing the layers of every stage"):
        transformer_strategies(m76, 1024, 1792, {"tp": 4, "pp": 8, "interleave": 8})
    assert set(transformer_strategies(m76, 1024, 1792, {"tp": 4, "pp": 8}).interleave.tolist()) == {1, 2}


def test_each_step_passes_over_the_gradient_buffer_as_its_stack_does():
    """Megatron-LM's defaults zero the fp32 gradient buffer, take its norm for the NaN check and scale it by 1/dp in
    place (2 + 2 passes of 4 B); NeMo's recipes average in the collective over a bf16 buffer (2 passes of 2 B); the
    optimizer's 34 B per parameter go over the 1/dp shard it updates."""
    from sipml.api import speedup

    def optimizer_s(stack, gpus):
        zero = ",zero=1" if gpus > 1 else ""  # the optimizer sharded over the data-parallel GPUs
        row = speedup("ideal", "gpt2-355m", gpus=gpus, strategy=f"stack={stack},tp=1,pp=1{zero}",
                      baselines=["ideal"])[0]
        assert row["strategy"]["dp"] == gpus
        return row["breakdown"]["optimizer"]

    core, nemo = optimizer_s("megatron-core", 1), optimizer_s("nemo", 1)
    assert core / nemo == pytest.approx((34 + 2 * 4) / (34 + 2 * 2))  # one GPU: nothing to scale
    assert optimizer_s("megatron-core", 1024) / core == pytest.approx((34 / 1024 + 4 * 4) / (34 + 2 * 4))
    assert optimizer_s("nemo", 1024) / nemo == pytest.approx((34 / 1024 + 2 * 2) / (34 + 2 * 2))
    # context parallelism shares the reduction, so its 1/(dp·cp) scale is a pass of its own even at dp = 1
    row = speedup("ideal", "gpt2-355m", gpus=2, strategy="stack=megatron-core,tp=1,pp=1,cp=2,zero=0",
                  baselines=["ideal"])[0]
    assert row["strategy"]["dp"] == 1
    assert row["breakdown"]["optimizer"] / core == pytest.approx((34 + 4 * 4) / (34 + 2 * 4))


def test_the_experts_gradients_are_scaled_where_their_group_is_not_the_dense_one():
    """Averaging in the collective still scales the routed experts' buffer by expert-dp/(dp·cp) in place where the
    two groups differ (Megatron-Core's DistributedDataParallel); in place, each part by its own 1/group."""
    from types import SimpleNamespace

    from workloads.settings import TrainingSettings
    from workloads.stacks import get_stack
    from workloads.training import _gradient_buffer_s

    compute = get_stack("nemo").compute_for(A100)

    def runs(expert_group, grad_group):
        return SimpleNamespace(stage_params=np.array([10.0]), expert_params=np.array([6.0]),
                               grad_group=np.array([grad_group]), expert_group=np.array([expert_group]))

    one = TrainingSettings(grad_buffer_passes=1.0, grad_reduce_bytes=4.0)  # one pass over 10 elements, nothing scaled
    element = _gradient_buffer_s(runs(1.0, 1.0), np.array([10.0]), A100, compute, one)[0] / 10

    def passes(average, expert_group, grad_group=8.0):
        r = runs(expert_group, grad_group)
        training = TrainingSettings(grad_buffer_passes=2.0, grad_average=average, grad_reduce_bytes=4.0)
        return _gradient_buffer_s(r, r.stage_params, A100, compute, training)[0] / element

    assert passes("collective", 8.0) == pytest.approx(2 * 10)  # zeroed and checked
    assert passes("collective", 2.0) == pytest.approx(2 * 10 + 2 * 6)  # the experts' part scaled too
    assert passes("in-place", 2.0) == pytest.approx(2 * 10 + 2 * 10)  # each part by its own group
    assert passes("in-place", 1.0, grad_group=1.0) == pytest.approx(2 * 10)  # one GPU: nothing to scale


def test_an_odd_sequence_runs_without_context_parallelism():
    """Only context parallelism cuts the sequence (into 2·cp chunks): an odd length runs at cp = 1."""
    from workloads.models import model_from_mapping

    model = model_from_mapping(dict(layers=4, hidden=1024, heads=16, seq_len=1023, vocab=51200), "test", "odd")
    st = transformer_strategies(model, 64, 256)
    assert len(st) > 0 and set(st.cp.tolist()) == {1}
    with pytest.raises(InputError, match="2·cp equal chunks"):
        transformer_strategies(model, 64, 256, fixed={"cp": 2})


def test_a_zoo_name_with_other_numbers_does_not_take_the_zoo_s_batch():
    """The zoo's default batch belongs to its numbers: a copy of a zoo file trains at it wherever it lies, a file
    that keeps the name and changes the sequence does not (its tokens per batch would be the zoo's no longer)."""
    import dataclasses as dc

    from workloads.models import zoo
    from workloads.speedup import default_batch

    shipped = zoo()["gpt3-175b"]
    copy = dc.replace(shipped, info=dc.replace(shipped.info, file="/elsewhere/gpt3-175b.toml"))
    assert default_batch(copy, 1024) == default_batch(shipped, 1024) and default_batch(shipped, 1024)[0] == 1536
    longer = dc.replace(copy, seq_len=8192)
    assert default_batch(longer, 1024) == (2048, "[assumed] two samples per GPU (a model not in the zoo as shipped: "
                                                 "give --batch)")


def test_zero_shards_over_the_data_and_context_parallel_gpus():
    """Megatron-Core's distributed optimizer shards over the gradients' group, dp·cp: one data-parallel replica
    split two ways by context parallelism still shards it; one GPU of each refuses it with the rule named."""
    from workloads.models import zoo

    model = zoo()["gpt2-355m"]
    st = transformer_strategies(model, 2, 16, fixed={"cp": 2, "zero": 1, "tp": 1, "pp": 1})
    assert len(st) > 0 and set(st.dp.tolist()) == {1}
    with pytest.raises(InputError, match=r"ZeRO needs dp·cp > 1"):
        transformer_strategies(model, 2, 16, fixed={"cp": 1, "zero": 1, "tp": 2, "pp": 1})
