"""The model loader is as strict as design files: unknown keys, bad units, missing keys and keys without effect
fail with the file and the key; a transformer needs only its shape; every shipped model carries its source."""

from __future__ import annotations

import pytest

from core.errors import InputError
from workloads.files import TAGS
from workloads.models import (CnnModel, DlrmModel, TransformerModel, load_model, sipml_cases, zoo)

ZOO = ("gpt3-175b", "megatron-1.7b", "megatron-18.4b", "megatron-145.6b", "gpt2-355m", "bert-large",
       "transformer-big", "resnet-50", "vgg-16", "dlrm-dcnv2", "mixtral-8x7b", "deepseek-v3", "llama3-405b")
SHAPE = 'layers = 24\nhidden = 1024\nheads = 16\nseq_len = 1024\nvocab = 50257\n'


def _file(tmp_path, text, name="my-model.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_zoo_has_the_required_models():
    assert set(ZOO) <= set(zoo())
    assert isinstance(zoo()["resnet-50"], CnnModel) and isinstance(zoo()["dlrm-dcnv2"], DlrmModel)


def test_every_zoo_model_names_its_source_and_tag():
    for name, model in zoo().items():
        assert model.info.source.strip(), name
        assert model.info.tag in TAGS, name


def test_a_transformer_needs_only_its_shape(tmp_path):
    model = load_model(_file(tmp_path, SHAPE))
    assert isinstance(model, TransformerModel)
    assert model.name == "my-model"  # the file stem
    assert (model.ffn, model.kv, model.qk_head_dim, model.gated) == (4096, 16, 64, False)


def test_user_model_is_found_by_path_and_zoo_model_by_name(tmp_path):
    assert load_model("gpt3-175b").hidden == 12288
    assert load_model(str(_file(tmp_path, 'name = "mine"\n' + SHAPE))).name == "mine"


@pytest.mark.parametrize(("text", "message"), [
    (SHAPE + "hiden = 3\n", r"unknown key 'hiden' \(did you mean 'hidden'\?\)"),
    (SHAPE.replace("layers = 24\n", ""), r"missing key\(s\): layers"),
    (SHAPE + 'mlp = "relu"\n', r"mlp = 'relu'.*expected one of gelu, swiglu"),
    (SHAPE.replace("heads = 16", "heads = 16.5"), r"heads = 16.5.*whole number"),
    (SHAPE.replace("heads = 16", "heads = 0"), r"heads = 0.*out of range"),
    (SHAPE + "top_k = 2\n", r"top_k has no effect here: it applies only when experts > 0"),
    (SHAPE + "kv_lora_rank = 512\n", r"kv_lora_rank has no effect here: it applies only when attention = 'mla'"),
    (SHAPE + "experts = 8\ntop_k = 9\n", r"top_k = 9 exceeds experts = 8"),
    (SHAPE.replace("heads = 16", "heads = 15"), r"hidden = 1024 is not a multiple of heads = 15"),
    (SHAPE + "kv_heads = 3\n", r"heads = 16 is not a multiple of kv_heads = 3"),
    ('kind = "rnn"\n', r"kind = 'rnn': expected one of transformer, generic, cnn, dlrm"),
    ('kind = "cnn"\n', r"a resnet needs blocks"),
    ('kind = "cnn"\narchitecture = "vgg"\nblocks = [3]\n', r"blocks has no effect here"),
    ('kind = "cnn"\nblocks = [3, 4, 6, 3]\nimage_size = 8\n', r"pooled to nothing"),
    ('stack = "megatron-1999"\nlayers = 2\nhidden = 8\nheads = 2\nseq_len = 8\nvocab = 8\n',
     r"stack = 'megatron-1999': unknown stack"),
    ('kind = "generic"\nparameters = 1e6\nforward_flops = 4.1e9\nactivation_memory = "1 MB"\n',
     r"forward_flops = 4100000000.0.*FLOP count"),
    ('kind = "generic"\nparameters = 1e6\nforward_flops = "4 GFLOP"\nactivation_memory = "1 MHz"\n',
     r"activation_memory = '1 MHz'"),
    (SHAPE + 'tag = "[made up]"\n', r"tag = '\[made up\]'"),
    (SHAPE + '[sources]\nlayers = "a paper"\n', r"sources.layers = 'a paper': name its tag"),
    (SHAPE + '[sources]\nlayer = "a paper [verbatim]"\n', r"unknown key 'layer'"),
    ('kind = "dlrm"\nembedding_rows = [10, 20]\nembedding_dim = 16\nmulti_hot = [1]\ndense_features = 13\n'
     'bottom_mlp = [16]\ntop_mlp = [1]\n', r"multi_hot has 1 entries for 2 embedding tables"),
    ('kind = "dlrm"\nembedding_rows = [10, 0]\nembedding_dim = 16\nmulti_hot = [1, 1]\ndense_features = 13\n'
     'bottom_mlp = [16]\ntop_mlp = [1]\n', r"embedding_rows\[1\] = 0"),
])
def test_bad_model_files_fail_naming_file_and_key(tmp_path, text, message):
    path = _file(tmp_path, text)
    with pytest.raises(InputError, match=message) as err:
        load_model(path)
    assert str(path) in str(err.value)


def test_toml_booleans_are_accepted_for_yes_no_keys(tmp_path):
    assert load_model(_file(tmp_path, SHAPE + "biases = false\n")).biases == "no"


def test_unknown_model_lists_the_zoo():
    with pytest.raises(InputError) as err:
        load_model("gpt-3")
    assert "did you mean" in str(err.value) and all(name in str(err.value) for name in ZOO)


def test_missing_and_malformed_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_model(tmp_path / "nope.toml")
    with pytest.raises(InputError, match="malformed TOML"):
        load_model(_file(tmp_path, "layers = = 3\n"))


def test_sipml_cases_are_the_simulator_gradient_sizes():
    cases = sipml_cases()
    assert {name: c.gradient_bytes for name, c in cases.items()} == {
        "resnet-50": 250e6, "transformer-big": 700e6, "gpt2-355m": 6.8e9}  # sipml.md
    assert all(c.data_parallel * c.model_parallel == 1024 for c in cases.values())
    assert [cases[n].global_batch for n in ("resnet-50", "transformer-big", "gpt2-355m")] == [8192, 1024, 1024]
    assert all(c.model in zoo() for c in cases.values())
