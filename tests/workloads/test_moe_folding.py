"""MoE parallel folding (Megatron-Core's expert_tensor_parallel_size; Liu et al. 2025, arXiv 2504.14960): each
expert's matrices split over etp GPUs, fewer than the attention's tp, the expert-parallel group of ep GPUs laid
over the tensor-, context- and data-parallel GPUs (ep·etp dividing tp·cp·dp) next to each expert's etp GPUs; and
a MoE layer's stored activations in the memory a strategy needs."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from sipml.design_files import load_design
from workloads.compute import layer_times
from workloads.gpus import shipped_gpus
from workloads.models import load_model, zoo
from workloads.speedup import evaluate_model
from workloads.strategy import transformer_strategies
from workloads.stacks import get_stack
from tests.sipml.cli_run import refused, run

CASES = Path(__file__).resolve().parents[2] / "sipml" / "cases" / "models"
QWEN235 = str(CASES / "qwen3-235b-a22b.toml")
# NVIDIA's Qwen3 235B-A22B layout on 256 H100 (Megatron-Bridge perf recipe): tp 2, pp 8, so dp 16 and ep 32
NEMO = "precision=fp8,tp=2,pp=8,interleave=4,cp=1,ep=32,sp=true,microbatch=1,recompute=none"


ARGS = ("speedup", "dgx-h100", "--model", QWEN235, "--gpus", "256", "--batch", "8192", "--baseline", "dgx-h100")


def test_an_expert_group_wider_than_dp_runs_only_folded_over_the_tensor_parallel_gpus(capsys):
    code, out, err = run(capsys, *ARGS, "--strategy", f"stack=nemo-moe,{NEMO},etp=1", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert row["strategy"]["etp"] == 1 and row["strategy"]["ep"] == 32 and row["strategy"]["dp"] == 16
    refused(capsys, *ARGS, "--strategy", f"stack=nemo-moe,{NEMO},etp=2",
            fragment="ep·etp must divide the tp·cp·dp GPUs")
    refused(capsys, *ARGS, "--strategy", f"stack=nemo-2023,{NEMO},etp=1", fragment="cannot fold its experts")


def test_folding_needs_sequence_parallelism_and_an_etp_dividing_tp(capsys):
    refused(capsys, *ARGS, "--strategy", f"stack=nemo-moe,{NEMO.replace('sp=true', 'sp=false')},etp=1",
            fragment="etp < tp needs sequence parallelism")
    refused(capsys, *ARGS, "--strategy", f"stack=nemo-moe,{NEMO},etp=4", fragment="etp must divide tp")


def test_a_gpu_holds_and_computes_the_same_expert_work_folded_or_not():
    """ep·etp GPUs share each layer's experts either way: 4 GPUs of halves (etp = tp = 2, ep = 4) or 8 of whole
    experts (etp = 1, ep = 8) hold the same parameters and run the same FLOPs; the all-to-all groups differ."""
    model = zoo()["mixtral-8x7b"]
    gpu = shipped_gpus()["h100_sxm5"]
    split = layer_times(model, gpu, microbatch=1, tp=2, sequence_parallel=True, ep=4, kind="moe")
    whole = layer_times(model, gpu, microbatch=1, tp=2, sequence_parallel=True, ep=8, etp=1, kind="moe")
    assert float(whole.parameters) == pytest.approx(float(split.parameters), rel=1e-12)
    assert float(whole.forward_flops) == pytest.approx(float(split.forward_flops), rel=1e-12)


def test_the_folded_expert_group_is_next_to_each_experts_gpus():
    model = load_model(QWEN235)
    st = transformer_strategies(model, 256, 8192, {"tp": 2, "pp": 8, "cp": 1, "ep": 32, "etp": 1, "sp": True,
                                                   "microbatch": 1, "interleave": 4, "recompute": 0, "zero": 1},
                                get_stack("nemo-moe"))
    assert set(st.etp.tolist()) == {1} and set(st.strides()["ep"].tolist()) == {1}
    mixtral = transformer_strategies(zoo()["mixtral-8x7b"], 64, 256, {"tp": 2, "pp": 1, "ep": 4},
                                     get_stack("megatron-core"))
    unfolded = mixtral.etp == mixtral.tp
    assert unfolded.any() and (~unfolded).any()  # the search holds both
    assert np.all(mixtral.strides()["ep"][unfolded] == 2) and np.all(mixtral.strides()["ep"][~unfolded] == 1)


def test_the_search_takes_the_faster_of_split_and_whole_experts():
    design = load_design("dgx-h100", ["fabric.gpus=64"])
    mixtral = zoo()["mixtral-8x7b"]
    fixed = {"tp": 2, "pp": 4, "microbatch": 1, "recompute": 0, "zero": 1, "ep": 4, "sp": True, "interleave": 1}
    best = evaluate_model(mixtral, design, "d", 256, fixed).best.iteration_s
    each = [evaluate_model(mixtral, design, "d", 256, {**fixed, "etp": e}).best.iteration_s for e in (1, 2)]
    assert best == pytest.approx(min(each), rel=1e-12) and each[0] != pytest.approx(each[1], rel=1e-6)


def test_a_moe_layer_stores_its_routed_copies_in_the_memory_a_strategy_needs():
    """A strategy's memory counts each MoE layer's dispatched copies and expert activations (top_k of them a
    token): more experts a token leaves more bytes, where a dense layer's MLP would not change."""
    design = load_design("dgx-h100", ["fabric.gpus=64"])
    mixtral = zoo()["mixtral-8x7b"]
    fixed = {"tp": 2, "pp": 4, "microbatch": 1, "recompute": 0, "zero": 1, "ep": 4, "sp": True, "interleave": 1,
             "etp": 2}
    memory = [evaluate_model(dataclasses.replace(mixtral, top_k=k), design, "d", 256, fixed).best.memory_bytes
              for k in (1, 2)]
    assert memory[1] > memory[0] * 1.05


def test_a_folded_moe_layer_stores_its_own_share_of_the_dispatched_copies():
    """Folded (etp = 1 < tp), each GPU dispatches its sequence-parallel share of the tokens: the stored copies
    shrink by etp/tp; the expert activations (top_k slots of width ffn/etp over tp times fewer tokens) do not."""
    from workloads.memory import model_activation_bytes_per_layer

    model = zoo()["mixtral-8x7b"]
    kw = dict(tp=4, sequence_parallel=True, flash_attention=True, moe=True)
    split = float(model_activation_bytes_per_layer(model, 1, etp=4, **kw))
    whole = float(model_activation_bytes_per_layer(model, 1, etp=1, **kw))
    copies = model.top_k * model.capacity_factor * model.tokens * 2.0 * model.hidden
    assert split - whole == pytest.approx(copies * (1 - 1 / 4), rel=1e-12)


def test_the_experts_optimizer_state_is_sharded_over_the_gpus_holding_the_same_experts():
    """Megatron-Core shards an expert's optimizer state over the expert data-parallel group, tp·cp·dp/(ep·etp)
    GPUs, not over dp: at dp = 16, ep = 8 halves a GPU's experts against ep = 4 but shards their state over 2
    replicas, not 4, so the optimizer state of the experts is the same and only their weights and gradients
    shrink (sharded over dp, the state would shrink too)."""
    from workloads.transformer import expert_parameters_per_gpu

    design = load_design("dgx-h100", ["fabric.gpus=64"])
    mixtral = zoo()["mixtral-8x7b"]
    base = {"tp": 1, "pp": 4, "microbatch": 1, "recompute": 0, "zero": 1, "interleave": 1}
    wide = evaluate_model(mixtral, design, "d", 256, {**base, "ep": 8}).best.memory_bytes  # dp 16: 2 replicas
    narrow = evaluate_model(mixtral, design, "d", 256, {**base, "ep": 4}).best.memory_bytes  # 4 replicas
    experts = {e: float(expert_parameters_per_gpu(mixtral, 1, 4, e)) for e in (4, 8)}
    # 12 B of optimizer state per expert parameter over 16/ep replicas (the rest of the state is alike)
    expected = 12.0 * (experts[8] / 2 - experts[4] / 4) + 6.0 * (experts[8] - experts[4])
    assert wide - narrow == pytest.approx(expected, rel=1e-9)


def test_the_dispatcher_sorts_the_copies_by_local_expert_where_a_gpu_holds_several():
    """Megatron-Core's all-to-all dispatcher passes over the dispatched copies twice more each way (the sort by
    local expert and its undoing) where a GPU holds several experts: a MoE layer's memory-bound time grows by two
    passes over the copies under 'sorted', and not with one expert a GPU."""
    from workloads.settings import DEFAULT_SETTINGS

    model = zoo()["mixtral-8x7b"]
    gpu = shipped_gpus()["h100_sxm5"]
    direct = dataclasses.replace(DEFAULT_SETTINGS, moe_dispatch="direct")

    def elementwise(ep, settings):
        lt = layer_times(model, gpu, microbatch=1, tp=1, ep=ep, kind="moe", settings=settings)
        return float(lt.elementwise_forward_s), float(lt.elementwise_backward_s)

    sorted_f, sorted_b = elementwise(2, DEFAULT_SETTINGS)
    direct_f, direct_b = elementwise(2, direct)
    assert sorted_f > direct_f and sorted_b - direct_b == pytest.approx(sorted_f - direct_f, rel=1e-12)
    assert elementwise(8, DEFAULT_SETTINGS) == elementwise(8, direct)  # one expert a GPU: nothing to sort


def test_a_dense_model_takes_no_etp_but_its_own_rows(capsys):
    """A model without experts has nothing for etp to split: fixing it is refused, not turned into tp = etp; a
    speedup row of it (etp = tp, as its JSON strategy says) is taken back as it is."""
    refused(capsys, "speedup", "dgx-h100", "-m", "gpt3-175b", "--strategy", "etp=1", fragment="has none")
    code, out, err = run(capsys, "speedup", "dgx-h100", "-m", "gpt3-175b", "--strategy", "tp=8,etp=8", "-f", "json")
    assert code == 0 and json.loads(out)["rows"][0]["strategy"]["tp"] == 8, err


def test_the_experts_reduce_their_gradients_even_without_data_parallelism():
    """Folded over tp = 8 with ep = 4, each expert lives on 2 GPUs of a stage though dp = 1: their gradients
    reduce over those 2 (the expert data-parallel group), which a dp of one does not make free."""
    design = load_design("dgx-h100", ["fabric.gpus=32"])
    mixtral = zoo()["mixtral-8x7b"]
    fixed = {"tp": 8, "etp": 1, "ep": 4, "pp": 4, "sp": True, "microbatch": 1, "recompute": 0, "zero": 0,
             "interleave": 1}
    assert evaluate_model(mixtral, design, "d", 64, fixed).best.breakdown["data_parallel"] > 0


def test_a_moe_layers_tensor_parallel_collectives_carry_its_experts_tokens():
    """Megatron-Core's all-to-all dispatcher gathers the dispatched copies over the tensor-parallel GPUs where the
    experts are split over them (top_k times a dense MLP's message for Mixtral's 2 experts a token), none where
    they are folded; a shared expert gathers and scatters its input on the tensor-parallel group either way."""
    from workloads.training import _tp_layers

    mixtral = zoo()["mixtral-8x7b"]
    fullest = 32.0
    for etp, layers in ((1, 16.0), (2, 48.0)):  # attention's half, plus none or the top_k = 2 copies' half
        st = transformer_strategies(mixtral, 64, 256, {"tp": 2, "pp": 1, "ep": 8, "etp": etp, "sp": True},
                                    get_stack("megatron-core"))
        assert np.all(_tp_layers(mixtral, st, np.full(len(st), fullest)) == layers)
    shared = dataclasses.replace(mixtral, shared_experts=1)
    st = transformer_strategies(mixtral, 64, 256, {"tp": 2, "pp": 1, "ep": 8, "etp": 1, "sp": True},
                                get_stack("megatron-core"))
    assert np.all(_tp_layers(shared, st, np.full(len(st), fullest)) == 32.0)


def test_a_folded_layer_runs_the_same_expert_activations_as_a_split_one():
    """Folded, a GPU routes tp/etp times fewer tokens to experts tp/etp times wider: the SwiGLU between the expert
    GEMMs works on as many elements, so with nothing to sort (direct dispatch) and a fixed expert capacity (dropless,
    the busiest GPU's excess differs with the group: tests/workloads/test_moe_load.py) the memory-bound kernels of
    the two layers take the same time."""
    from workloads.settings import DEFAULT_SETTINGS

    model = dataclasses.replace(zoo()["mixtral-8x7b"], capacity_factor=1.25)
    gpu = shipped_gpus()["h100_sxm5"]
    direct = dataclasses.replace(DEFAULT_SETTINGS, moe_dispatch="direct")
    kw = dict(microbatch=1, tp=2, sequence_parallel=True, kind="moe", settings=direct)
    split = layer_times(model, gpu, ep=4, **kw)
    folded = layer_times(model, gpu, ep=8, etp=1, **kw)
    assert float(folded.elementwise_forward_s) == pytest.approx(float(split.elementwise_forward_s), rel=1e-12)
    assert float(folded.elementwise_backward_s) == pytest.approx(float(split.elementwise_backward_s), rel=1e-12)


def test_an_expert_group_that_does_not_divide_the_experts_is_refused_for_that_reason(capsys):
    refused(capsys, "speedup", "dgx-h100", "--model", "mixtral-8x7b", "--baseline", "dgx-h100", "--strategy",
            "ep=2048", fragment="ep must divide the 8 experts")
