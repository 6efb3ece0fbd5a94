"""`sipml fabric --pattern`: what a pattern asks that the tool cannot do is refused in one line before any work, and
a stack runs only the parallelism its software has."""

import json
import time

import numpy as np
import pytest
from core.errors import InputError
from fabric.traffic import pattern_flows
from tests.sipml.cli_run import refused, run


def test_a_default_group_that_does_not_divide_the_ring_names_the_option(capsys):
    refused(capsys, "fabric", "sip-ring", "--pattern", "training", "--set", "fabric.gpus=12",
            fragment="--group-size 8 (the default): the 'training' pattern's groups must divide the 12 GPUs")
    refused(capsys, "fabric", "sip-ring", "--pattern", "groups", "--group-size", "5", "--set", "fabric.gpus=12",
            fragment="--group-size 5: the 'groups' pattern's groups must divide")
    code, out, err = run(capsys, "fabric", "sip-ring", "--pattern", "ring", "--set", "fabric.gpus=12")
    assert code == 0, err
    assert "Traffic 'ring', equal demand" in out  # a ring has no groups to name
    code, out, err = run(capsys, "fabric", "sip-ring", "--pattern", "ring", "--set", "fabric.gpus=12", "-f", "json")
    assert code == 0 and json.loads(out)["traffic"]["group_size"] is None


def test_a_pattern_too_large_to_allocate_is_refused_at_once_not_run_out_of_memory(capsys):
    started = time.monotonic()
    refused(capsys, "fabric", "sip-ring", "--pattern", "groups", "--group-size", "65536", "--set",
            "fabric.gpus=65536", fragment="4,294,901,760 pairs or more")
    assert time.monotonic() - started < 5.0
    with pytest.raises(InputError, match="above the 33,554,432 an allocation holds"):  # numpy integers too
        pattern_flows("groups", np.int64(65536), np.int64(65536))


def test_a_data_parallel_stack_runs_no_expert_or_tensor_parallelism(capsys):
    refused(capsys, "speedup", "dgx-h100", "--model", "mixtral-8x7b", "--baseline", "dgx-h100", "--strategy",
            "stack=pytorch-ddp,ep=8", fragment="stack 'pytorch-ddp' cannot run ep = 8")
    refused(capsys, "speedup", "dgx-h100", "--model", "mixtral-8x7b", "--baseline", "dgx-h100", "--strategy",
            "stack=megatron-2021,ep=4", fragment="stack 'megatron-2021' cannot run ep = 4")
    refused(capsys, "speedup", "dgx-h100", "--model", "gpt3-175b", "--baseline", "dgx-h100", "--strategy",
            "stack=mxnet,tp=8", fragment="stack 'mxnet' cannot run tp = 8")


def test_an_fp8_stack_on_a_gpu_without_fp8_says_its_gemms_run_in_16_bits(capsys):
    code, out, err = run(capsys, "speedup", "sip-ring", "--model", "deepseek-v3", "--gpus", "2048", "--strategy",
                         "stack=deepseek-v3", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert row["precision"] == "bf16"
    assert any("no FP8 tensor cores, so they run in bf16" in note for note in row["notes"])
