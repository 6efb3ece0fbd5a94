"""Training software stacks as data: each loads with a source for every value it sets, limits what the strategy
search proposes (naming the rule it refuses), and changes what the same run costs; the strategy features the
current stack has (uneven pipeline stages, context parallelism, partial recomputation, FP8) behave as their
mechanisms say."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.errors import InputError
from fabric.evaluate import evaluate_fabric
from sipml.cli import main
from sipml.design_files import load_design
from workloads.gpus import get_gpu
from workloads.models import load_model, model_from_mapping
from workloads.speedup import evaluate_model, precision_of
from workloads.stacks import get_stack, shipped_stacks
from workloads.pipeline import stage_layers
from workloads.strategy import parse_strategy, transformer_strategies
from workloads.settings import TrainingSettings
from workloads.training import transformer_breakdown

GPT3 = load_model("gpt3-175b")
LLAMA = load_model("llama3-405b")
A100 = get_gpu("a100_sxm4_80gb")


def test_every_stack_sources_every_value_it_sets():
    for name, stack in shipped_stacks().items():
        assert stack.description and stack.source, name
        for key, text in stack.sources.items():
            assert any(tag in text for tag in ("[verbatim]", "[restated]", "[inferred]", "[assumed]")), (name, key)


def test_unknown_stack_and_repeated_keys_are_refused_by_name():
    with pytest.raises(InputError, match=r"unknown stack 'megatron-core-2'.*did you mean 'megatron-core'"):
        parse_strategy("stack=megatron-core-2")
    with pytest.raises(InputError, match="tp is given twice"):
        parse_strategy("tp=8,tp=4")


@pytest.mark.parametrize(("stack", "fixed", "message"), [
    ("megatron-2021", {"zero": 1}, r"stack 'megatron-2021' runs only ZeRO stage 0"),
    ("megatron-2021", {"sp": True}, r"stack 'megatron-2021' cannot run sp = True"),
    ("megatron-2021", {"recompute": 1}, r"runs only recomputation none, full"),
    ("pytorch-fsdp", {"tp": 2}, r"stack 'pytorch-fsdp' cannot run tp = 2"),
])
def test_a_stack_refuses_what_its_software_cannot_run(stack, fixed, message):
    with pytest.raises(InputError, match=message):
        transformer_strategies(GPT3, 1024, 1536, fixed, get_stack(stack))


def test_llama3_layout_runs_with_uneven_stages_and_is_refused_without_them():
    """126 layers on 16 stages: 7 + 14 × 8 + 7 (workloads-3.md §6)."""
    assert [x.item() for x in stage_layers(126, np.array([16]))] == [7, 8, 7]
    assert [x.item() for x in stage_layers(96, np.array([8]))] == [12, 12, 12]
    st = transformer_strategies(LLAMA, 8192, 2048, {"tp": 8, "pp": 16, "cp": 1}, get_stack("megatron-core"))
    assert len(st) and set(st.pp) == {16}
    with pytest.raises(InputError, match=r"pp must divide the 126 layers \(stack 'megatron-2022' has no uneven"):
        transformer_strategies(LLAMA, 8192, 2048, {"tp": 8, "pp": 16}, get_stack("megatron-2022"))


def test_no_valid_strategy_names_the_rule_that_failed():
    with pytest.raises(InputError, match="tp must divide the 96 heads"):
        transformer_strategies(GPT3, 1008, 1536, {"tp": 7})
    with pytest.raises(InputError, match=r"dp·microbatch must divide the batch of 7"):
        transformer_strategies(GPT3, 256, 7, {"tp": 8, "pp": 1})


def test_the_stack_changes_what_the_same_run_costs():
    design = load_design("dgx-a100", ["fabric.gpus=64", "fabric.gpu=gpu.a100_sxm4_80gb"])
    fixed = {"tp": 8, "pp": 8, "microbatch": 1, "recompute": 2, "sp": False, "zero": 0, "interleave": 1}
    old, new = (evaluate_model(GPT3, design, "d", 64, fixed, stack=s) for s in ("megatron-2021", "megatron-core"))
    assert old.best.iteration_s > 1.15 * new.best.iteration_s  # unfused attention, 2021 kernels, no overlap
    assert old.stack.name == "megatron-2021" and new.stack.name == "megatron-core"


def test_model_flops_per_gpu_do_not_depend_on_what_is_recomputed():
    """tflops_per_gpu counts the model's FLOPs (C22), the same whatever is recomputed; HFU counts what runs."""
    design = load_design("dgx-a100", ["fabric.gpus=64", "fabric.gpu=gpu.a100_sxm4_80gb"])
    base = {"tp": 8, "pp": 8, "microbatch": 1, "sp": True, "zero": 0, "interleave": 1}
    none, full = (evaluate_model(GPT3, design, "d", 64, {**base, "recompute": r}) for r in (0, 2))
    rate = lambda r: r.tflops_per_gpu * r.best.iteration_s  # noqa: E731 - model TFLOP per GPU per iteration
    assert rate(none) == pytest.approx(rate(full), rel=1e-12)
    assert full.hfu / full.mfu > none.hfu / none.mfu  # the recomputed forward runs, uncounted by MFU


def test_partial_recomputation_sits_between_none_and_full():
    est = evaluate_fabric(load_design("dgx-a100", ["fabric.gpus=64", "fabric.gpu=gpu.a100_sxm4_80gb"]))
    base = {"tp": 8, "pp": 8, "microbatch": 1, "sp": True, "zero": 0, "interleave": 1, "order": 0}
    times, memory = [], []
    for extra in ({"recompute": 0}, {"recompute": 2, "recompute_layers": 6}, {"recompute": 2}):
        st = transformer_strategies(GPT3, 64, 64, {**base, **extra})
        br = transformer_breakdown(GPT3, A100, est, 64, st)
        times.append(float(br.compute_s[0]))
        memory.append(float(br.memory_bytes[0]))
    assert times[0] < times[1] < times[2] and memory[0] > memory[1] > memory[2]
    # half of each stage's 12 layers rerun: half the extra forward
    assert times[1] - times[0] == pytest.approx((times[2] - times[0]) / 2, rel=1e-9)


def test_context_parallelism_splits_the_sequence():
    long = model_from_mapping(dict(layers=8, hidden=4096, heads=32, kv_heads=8, seq_len=32768, vocab=32000,
                                   mlp="swiglu", position="rotary", dropout="no"), "test", "long")
    est = evaluate_fabric(load_design("dgx-h100", ["fabric.gpus=16"]))
    gpu = get_gpu("h100_sxm5")
    out = {}
    for cp in (1, 4):
        st = transformer_strategies(long, 16, 16, {"tp": 4, "pp": 1, "cp": cp, "microbatch": 1, "recompute": 0,
                                                   "sp": True, "zero": 0})
        out[cp] = transformer_breakdown(long, gpu, est, 16, st)
    assert float(out[4].context_parallel_s[0]) > 0.0 == float(out[1].context_parallel_s[0])
    assert float(out[4].memory_bytes[0]) < float(out[1].memory_bytes[0])
    assert float(out[4].model_flops[0]) == float(out[1].model_flops[0])


def test_fp8_needs_the_hardware_and_the_stack_and_gains_less_than_the_gemm_ratio():
    a100 = load_design("dgx-a100", ["fabric.gpus=64"])
    with pytest.raises(InputError, match="has no fp8 tensor cores"):
        evaluate_model(GPT3, a100, "d", 64, {"precision": "fp8"})
    h100 = load_design("dgx-h100", ["fabric.gpus=64"])
    with pytest.raises(InputError, match="stack 'megatron-2022' cannot run precision = fp8"):
        evaluate_model(GPT3, h100, "d", 64, {"precision": "fp8", "stack": "megatron-2022"})
    fixed = {"tp": 8, "pp": 8, "microbatch": 1, "recompute": 0, "sp": True, "zero": 0, "interleave": 1}
    bf16, fp8 = (evaluate_model(GPT3, h100, "d", 64, {**fixed, **extra}) for extra in ({}, {"precision": "fp8"}))
    gain = bf16.best.iteration_s / fp8.best.iteration_s
    assert 1.0 < gain < 1402.6 / 794.5  # casts, attention and communication stay (workloads-3.md §4)
    assert fp8.precision == "fp8" and fp8.mfu > bf16.mfu  # MFU against the 16-bit peak


def test_an_overlapped_collective_costs_at_least_sigma_of_itself():
    t = TrainingSettings()
    sigma = 1 - 1 / 1.189
    assert t.overlapped(1.0, 10.0) == pytest.approx(sigma)
    assert t.overlapped(10.0, 1.0) == pytest.approx(9.0)  # beyond the window, the rest shows
    assert t.overlapped(1.0, 10.0, tail_s=0.2) == pytest.approx(0.2 + sigma * 0.8)  # the last bucket waits


def test_sipml_models_lists_the_stacks(capsys):
    assert main(["models", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [s["name"] for s in data["stacks"]]
    assert {"megatron-2021", "megatron-2022", "megatron-core", "nemo", "pytorch-ddp"} <= set(names)
    core = next(s for s in data["stacks"] if s["name"] == "megatron-core")
    assert core["compute"]["attention"] == "flash3" and core["supports"]["context_parallel"] is True


def test_a_stack_can_train_in_fp8_by_default_where_the_gpu_has_it():
    """deepseek-v3 trains its GEMMs in FP8 (DS3 §3.3) unless the strategy names a precision; on a GPU without FP8
    tensor cores it runs the 16-bit mode rather than refusing."""
    h100, a100 = get_gpu("h100_sxm5"), get_gpu("a100_sxm4_80gb")
    ds3, core = get_stack("deepseek-v3"), get_stack("megatron-core")
    assert precision_of(h100, ds3) == "fp8" and precision_of(a100, ds3) == "bf16"
    assert precision_of(h100, ds3, {"precision": "bf16"}) == "bf16"
    assert precision_of(h100, core) == "bf16"


def test_megatron_fsdp_holds_what_the_distributed_optimizer_must_recompute(capsys):
    """NeMo 25.11's Llama 3 8B on 8 H100 (FSDP 1): under `nemo` (ZeRO-1) the search must recompute layers to fit;
    under `nemo-fsdp` (parameters and gradients sharded too) it runs without, and faster, with the sharded
    state's gathers priced as data-parallel time; `nemo-fsdp` refuses a pipeline."""
    from sipml.validation import CASES_DIR

    base = ["speedup", "dgx-h100", "-m", str(CASES_DIR / "models" / "llama3-8b.toml"), "--gpus", "8", "--batch",
            "128", "--baseline", "dgx-h100", "-f", "json", "--strategy"]
    rows = {}
    for stack in ("nemo", "nemo-fsdp"):
        assert main([*base, f"stack={stack},precision=fp8,tp=1,pp=1,microbatch=1"]) == 0
        [rows[stack]] = json.loads(capsys.readouterr().out)["rows"]
    zero1, zero3 = rows["nemo"], rows["nemo-fsdp"]
    assert zero1["strategy"]["recompute"] == "full" and zero1["strategy"]["zero"] == 1
    assert zero3["strategy"]["recompute"] == "none" and zero3["strategy"]["zero"] == 3
    assert zero3["iteration_s"] < zero1["iteration_s"]
    assert zero3["breakdown"]["data_parallel"] > 10 * zero1["breakdown"]["data_parallel"]
    assert main([*base, "stack=nemo-fsdp,pp=2"]) == 2
    assert "nemo-fsdp" in capsys.readouterr().err


def test_a_fixed_tensor_size_must_divide_the_key_value_heads(capsys):
    """Llama 3 405B has 8 key/value heads (GQA): Megatron-Core splits the query groups over tp, so tp=16 cannot run
    (the search never offers it; a fixed tp=16 was priced, 43 GB and 5.1× over fattree-200)."""
    assert main(["speedup", "dgx-h100", "-m", "llama3-405b", "--gpus", "16384", "--strategy", "tp=16"]) == 2
    assert "the 8 key/value heads" in capsys.readouterr().err
    assert main(["speedup", "dgx-h100", "-m", "llama3-405b", "--gpus", "16384", "--strategy", "tp=8", "-f",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["strategy"]["tp"] == 8


def test_with_interleaving_a_stage_recomputes_a_multiple_of_its_chunks(capsys):
    """Megatron-Core's --recompute-num-layers counts each model chunk's layers: Llama 3 405B on pp=16 with v=8
    chunks of one layer recomputes 0 or 8 of a stage's 8 layers, never 2 (the search chose 2, 42.6 % MFU, a layout
    Megatron cannot build); 8 runs."""
    base = ["speedup", "dgx-h100", "-m", "llama3-405b", "--gpus", "16384", "--batch", "2048", "--strategy"]
    assert main([*base, "tp=8,pp=16,interleave=8,recompute=full,recompute_layers=2"]) == 2
    assert "recompute_layers must be a multiple of interleave" in capsys.readouterr().err
    assert main([*base, "tp=8,pp=16,interleave=8,recompute=full,recompute_layers=8", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["strategy"]["recompute_layers"] == 8
    assert main(["speedup", "dgx-h100", "-m", "llama3-405b", "--gpus", "16384", "--batch", "2048", "-f", "json"]) == 0
    best = json.loads(capsys.readouterr().out)["rows"][0]["strategy"]
    assert best["recompute"] == "none" or best["recompute_layers"] % best["interleave"] == 0


def test_a_pipeline_with_fewer_microbatches_than_stages_holds_fewer_in_flight(capsys):
    """1F1B's first stage holds min(p, m) microbatches' activations (Megatron's warm-up runs min(p − 1 − rank, m)
    forwards): GPT-3 175B on tp=8, pp=8 (12 layers a stage) at one microbatch holds one, not eight — 7/8 of the
    eight-microbatch activations fewer; at m ≥ p the memory is the same whatever the batch (it was at every m)."""
    def memory(batch):
        assert main(["speedup", "dgx-h100", "-m", "gpt3-175b", "--gpus", "64", "--batch", str(batch), "--strategy",
                     "tp=8,pp=8,microbatch=1,interleave=1,recompute=none", "-f", "json"]) == 0
        return json.loads(capsys.readouterr().out)["rows"][0]["memory_gb_per_gpu"]

    one, two, eight, many = memory(1), memory(2), memory(8), memory(64)
    assert eight == many and one < two < eight
    assert (eight - one) == pytest.approx(7 * (eight - two) / 6, rel=1e-6)  # linear in the microbatches held


def test_full_recomputation_reruns_the_forwards_expert_and_context_collectives(capsys):
    """A fully recomputed layer reruns its forward, the token dispatcher's dispatch and combine with it: 6
    all-to-alls a MoE layer and microbatch, not 4 (Mixtral 8x7B, ep=8: the expert-parallel time × 1.5); the context-
    parallel keys' and values' all-gather runs again too (3 + 1 calls a layer; both were as without recomputation)."""
    def breakdown(model, strategy, gpus):
        assert main(["speedup", "dgx-h100", "-m", model, "--gpus", str(gpus), "--strategy", strategy, "-f",
                     "json"]) == 0
        return json.loads(capsys.readouterr().out)["rows"][0]["breakdown"]

    moe = "tp=1,pp=2,ep=8,interleave=1,recompute="
    kept, rerun = (breakdown("mixtral-8x7b", moe + x, 256)["expert_parallel"] for x in ("none", "full"))
    assert rerun == pytest.approx(1.5 * kept, rel=1e-9)
    dense = "tp=8,pp=8,cp=2,microbatch=4,interleave=1,recompute="
    kept, rerun = (breakdown("gpt3-175b", dense + x, 256)["context_parallel"] for x in ("none", "full"))
    assert rerun > 1.3 * kept  # a fourth call a layer (and its exposure in the longer backward)


def test_selective_recomputation_reruns_the_fused_attention_forward(capsys):
    """Megatron-Core checkpoints the core attention under selective recomputation whatever its kernel: with
    FlashAttention it saves no memory (nothing of the scores is stored) and reruns the kernel's forward in the
    backward, so it is slower than none by that forward (GPT-3 175B on H100s: identical to 15 digits before)."""
    def row(recompute):
        assert main(["speedup", "dgx-h100", "-m", "gpt3-175b", "--strategy",
                     f"tp=8,pp=8,microbatch=1,interleave=1,recompute={recompute}", "-f", "json"]) == 0
        return json.loads(capsys.readouterr().out)["rows"][0]

    none, selective = row("none"), row("selective")
    assert selective["iteration_s"] > none["iteration_s"]
    assert selective["memory_gb_per_gpu"] == pytest.approx(none["memory_gb_per_gpu"])
    assert selective["hardware_tflops_per_gpu"] * selective["iteration_s"] > (
        none["hardware_tflops_per_gpu"] * none["iteration_s"])  # more FLOPs executed


def test_a_generic_models_free_model_parallel_split_is_said(capsys, tmp_path):
    """A model file that declares no model-parallel traffic (the default, 0 B) prices every mp split free, so the
    search takes mp = N with no communication at all: the row says so (it did not)."""
    path = tmp_path / "gen.toml"
    path.write_text('name = "gen"\nkind = "generic"\nparameters = 1e9\nforward_flops = "2 GFLOP"\n'
                    'activation_memory = "1 GB"\n')
    assert main(["speedup", "dgx-h100", "-m", str(path), "--gpus", "64", "-f", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["strategy"]["mp"] == 64 and any("moves nothing" in n for n in row["notes"])
    assert main(["speedup", "dgx-h100", "-m", "resnet-50", "-f", "json"]) == 0  # a CNN's split moves its bytes
    assert not any("moves nothing" in n for n in json.loads(capsys.readouterr().out)["rows"][0]["notes"])


def test_partial_recomputation_with_interleaving_offers_quarters_of_a_chunk(capsys):
    """With v chunks a stage's partial recomputation is a quarter-step of a chunk's layers in each chunk: GPT-3 175B
    on pp=8, v=4 (12 layers a stage, 3 a chunk) is offered 4, 8 and 12 layers (1, 2, 3 a chunk), not 12 alone; 8
    fits and is 8 % faster than recomputing all."""
    base = ["speedup", "fattree-200", "-m", "gpt3-175b", "--gpus", "128", "--batch", "1536", "--strategy"]
    assert main([*base, "tp=8,pp=8,interleave=4", "-f", "json"]) == 0
    best = json.loads(capsys.readouterr().out)["rows"][0]
    assert main([*base, "tp=8,pp=8,interleave=4,recompute=full,recompute_layers=12", "-f", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)["rows"][0]
    assert best["strategy"]["recompute_layers"] == 8 and best["iteration_s"] < 0.95 * whole["iteration_s"]


def test_a_mixture_of_experts_table_says_its_step_is_not_judged(capsys):
    """validate shows its MoE rows (Qwen3, DeepSeek-V3) but judges none: a MoE table says so, a dense one does not;
    the rows carry the model's routed experts."""
    assert main(["speedup", "dgx-h100", "-m", "mixtral-8x7b", "--gpus", "256"]) == 0
    assert "moe: a mixture of experts' step" in capsys.readouterr().out
    assert main(["speedup", "dgx-h100", "-m", "mixtral-8x7b", "--gpus", "256", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["experts"] == 8
    assert main(["speedup", "dgx-h100", "-m", "gpt2-355m"]) == 0
    assert "moe:" not in capsys.readouterr().out
