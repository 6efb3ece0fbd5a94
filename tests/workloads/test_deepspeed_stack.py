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


BLOOM = """name = "bloom-176b"
description = "BLOOM 176B's shape"
source = "bigscience-workshop/bigscience train/tr11-176B-ml/tr11-176B-ml.slurm [verbatim]"
tag = "[verbatim]"
layers = 70
hidden = 14336
heads = 112
seq_len = 2048
vocab = 250880
"""


def test_bloom_s_twelve_stages_of_seventy_layers_run_as_its_type_partition_splits_them(capsys, tmp_path):
    """BLOOM ran 70 layers on 12 pipeline stages under DeepSpeed's type partition (the two embeddings counted as
    layers: 5 transformer layers on the first and last stage, 6 on the ten others): accepted, where Megatron-LM
    of 2022 (stages of equal layers) refuses it."""
    path = tmp_path / "bloom.toml"
    path.write_text(BLOOM)
    strategy = "tp=4,pp=12,microbatch=2,recompute=full,zero=1"
    base = ["speedup", "dgx-a100", "-m", str(path), "--gpus", "384", "--batch", "2048", "--set",
            "fabric.gpu=gpu.a100_sxm4_80gb", "-f", "json", "--strategy"]
    assert main([*base, f"stack=megatron-deepspeed,{strategy}"]) == 0
    chosen = json.loads(capsys.readouterr()[0])["rows"][0]["strategy"]
    assert (chosen["tp"], chosen["pp"], chosen["microbatch"]) == (4, 12, 2)
    assert main([*base, f"stack=megatron-2022,{strategy}"]) == 2
    assert "pp must divide the 70 layers" in capsys.readouterr()[1]
