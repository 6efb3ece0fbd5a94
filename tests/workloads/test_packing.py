"""Unpadded or packed sequences (`mean_tokens` in a model file): the layers run on the real tokens and attention on
sequences of their mean length, so a batch of BERT's phase-2 sequences half of whose tokens are padding (Krell et
al. 2021) trains about twice as fast unpadded — through `sipml speedup` with the model file."""

import json

import pytest

from sipml.cli import main

BERT = """name = "bert-{name}"
description = "BERT-large, phase 2"
source = "Devlin et al. 2019"
tag = "[restated]"
layers = 24
hidden = 1024
heads = 16
seq_len = 512
vocab = 30522
attention_mask = "bidirectional"
predicted_tokens = 0.15
{extra}
"""


def trained(capsys, tmp_path, name, extra=""):
    path = tmp_path / f"{name}.toml"
    path.write_text(BERT.format(name=name, extra=extra))
    code = main(["speedup", "dgx-a100", "-m", str(path), "--gpus", "8", "--batch", "4096", "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    return (data["rows"] if isinstance(data, dict) else data)[0]


def test_a_packed_bert_is_faster_than_a_padded_one_by_the_token_ratio(capsys, tmp_path):
    padded = trained(capsys, tmp_path, "padded")
    packed = trained(capsys, tmp_path, "packed", "mean_tokens = 256")
    ratio = padded["iteration_s"] / packed["iteration_s"]
    # half the tokens: the layers' work halves, attention's (quadratic in the length) falls to a quarter, and the
    # smaller GEMMs run a little less efficiently
    assert 1.85 < ratio < 2.3
    # tokens/s counts real tokens: about the same rate of them either way
    assert packed["throughput"] == pytest.approx(padded["throughput"], rel=0.1)
    assert packed["throughput_unit"] == "tokens/s"


def test_mean_tokens_above_the_sequence_length_is_refused(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BERT.format(name="bad", extra="mean_tokens = 600"))
    code = main(["speedup", "dgx-a100", "-m", str(path), "--gpus", "8"])
    _, err = capsys.readouterr()
    assert code == 2 and "mean_tokens" in err and "Traceback" not in err
