"""The Megatron-DeepSpeed lineage as a stack of its own: DeepSpeed's pipeline engine runs 1F1B without virtual
stages and its BF16 optimizer adds every microbatch's gradients into fp32 copies in a pass of their own — so the
same shape trains slower than under Megatron-LM of the same year, and interleaving is refused. Through
`sipml speedup`, as users run it."""

import json

from sipml.cli import main

SHAPE = "tp=8,pp=8,microbatch=1,recompute=full,interleave=1,sp=false"


def row(capsys, strategy):
    code = main(["speedup", "dgx-a100", "-m", "megatron-145.6b", "--strategy", strategy, "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    return (data["rows"] if isinstance(data, dict) else data)[0]


def test_the_same_shape_is_slower_under_megatron_deepspeed(capsys):
    deepspeed = row(capsys, f"stack=megatron-deepspeed,{SHAPE}")
    megatron = row(capsys, f"stack=megatron-2022,{SHAPE}")
    assert deepspeed["stack"] == "megatron-deepspeed"
    assert deepspeed["iteration_s"] > megatron["iteration_s"]


def test_its_search_never_interleaves_and_a_fixed_interleave_is_refused(capsys):
    assert row(capsys, "stack=megatron-deepspeed")["strategy"]["interleave"] == 1
    code = main(["speedup", "dgx-a100", "-m", "megatron-145.6b", "--strategy", "stack=megatron-deepspeed,interleave=2"])
    _, err = capsys.readouterr()
    assert code == 2 and "interleave" in err
