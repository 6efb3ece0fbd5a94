"""The zoo's numbers against their published counts: Megatron's parameter formula reproduces the SC21 rows,
the shapes reproduce the parameter counts of GPT-3, Llama 3, BERT, Transformer-big, Mixtral and DeepSeek-V3, the
CNN entries follow from their architectures counted layer by layer, and DLRM's derived sizes are §5's."""

from __future__ import annotations

import pytest

from workloads import dlrm
from workloads.models import zoo
from workloads.moe import six_n_flops_per_token
from workloads.transformer import megatron_parameter_count, parameter_count

# N21 Table 1: (billions, layers, hidden) — V = 51200, s = 2048 (workloads.md)
MEGATRON_ROWS = [("megatron-1.7b", 1.7), ("megatron-3.6b", 3.6), ("megatron-7.5b", 7.5),
                 ("megatron-18.4b", 18.4), ("megatron-39.1b", 39.1), ("megatron-76.1b", 76.1),
                 ("megatron-145.6b", 145.6), ("megatron-310.1b", 310.1), ("megatron-529.6b", 529.6),
                 ("megatron-1008b", 1008.0)]


@pytest.mark.parametrize(("name", "billions"), MEGATRON_ROWS)
def test_megatron_formula_reproduces_the_sc21_rows(name, billions):
    m = zoo()[name]
    # workloads.md: P = 12lh²(1 + 13/(12h) + (V + s)/(12lh)); the table rounds to 0.1B
    assert round(float(megatron_parameter_count(m.layers, m.hidden, m.vocab, m.seq_len)) / 1e9, 1) == billions


@pytest.mark.parametrize(("name", "_"), MEGATRON_ROWS)
def test_shape_count_is_the_formula_plus_the_final_layernorm(name, _):
    m = zoo()[name]
    expected = megatron_parameter_count(m.layers, m.hidden, m.vocab, m.seq_len) + 2 * m.hidden
    assert parameter_count(m) == pytest.approx(float(expected), rel=1e-12)


def test_formula_broadcasts_over_arrays():
    p = megatron_parameter_count([24, 40, 80], [2304, 6144, 12288], 51200, 2048)
    assert [round(x / 1e9, 1) for x in p] == [1.7, 18.4, 145.6]


@pytest.mark.parametrize(("name", "total", "active", "rel", "reference"), [
    ("gpt3-175b", 175e9, 175e9, 0.005, "Brown et al. 2020: 175B"),
    ("llama3-405b", 405e9, 405e9, 0.005, "Llama 3: 405B"),
    ("gpt2-355m", 355e6, 355e6, 0.005, "workloads.md: GPT-2 355M"),
    ("bert-large", 340e6, 340e6, 0.03, "workloads.md: BERT-large 340 M (pooler and MLM head left out)"),
    ("transformer-big", 213e6, 213e6, 0.01, "workloads.md: Transformer-big ~213 M"),
    ("mixtral-8x7b", 47e9, 13e9, 0.02, "workloads-2.md §4 (J24): '47B parameters … 13B active'"),
    ("deepseek-v3", 671e9, 37e9, 0.02, "workloads-2.md §4 (DS3): 671B total, 37B active"),
])
def test_shapes_reproduce_published_parameter_counts(name, total, active, rel, reference):
    m = zoo()[name]
    assert parameter_count(m) == pytest.approx(total, rel=rel), reference
    assert parameter_count(m, active=True) == pytest.approx(active, rel=max(rel, 0.02)), reference


@pytest.mark.parametrize(("name", "gflop", "reference"), [
    ("mixtral-8x7b", 77, "workloads-2.md §4: ≈ 77 GFLOP per training token"),
    ("deepseek-v3", 222, "workloads-2.md §4: ≈ 222 GFLOP per training token"),
])
def test_moe_training_flops_per_token_from_active_parameters(name, gflop, reference):
    assert six_n_flops_per_token(zoo()[name]) / 1e9 == pytest.approx(gflop, rel=0.02), reference


def test_moe_layer_counts():
    ds3, mixtral = zoo()["deepseek-v3"], zoo()["mixtral-8x7b"]
    assert (ds3.moe_layers, ds3.dense_mlp_layers) == (58, 3)  # 61 layers, first 3 dense
    assert (mixtral.moe_layers, mixtral.dense_mlp_layers) == (32, 0)


# --- CNNs, counted layer by layer (torchvision layouts) ---------------------------------------------------------
def _conv(c_in, c_out, k, hw_out, bias=False):
    return c_in * c_out * k * k + (c_out if bias else 0), c_in * c_out * k * k * hw_out ** 2, c_out * hw_out ** 2


def resnet50():
    """(parameters, multiply–accumulates, conv-output elements, pool and classifier input elements) per 224×224
    image."""
    params = macs = outputs = 0

    def add(layer, bn_channels):
        nonlocal params, macs, outputs
        params += layer[0] + 2 * bn_channels  # BatchNorm scale and shift
        macs += layer[1]
        outputs += layer[2]

    add(_conv(3, 64, 7, 112), 64)
    c_in = 64
    for width, blocks, hw in ((64, 3, 56), (128, 4, 28), (256, 6, 14), (512, 3, 7)):
        for block in range(blocks):
            first_hw = hw if block or width == 64 else 2 * hw  # the stride sits in the 3×3 convolution
            add(_conv(c_in, width, 1, first_hw), width)
            add(_conv(width, width, 3, hw), width)
            add(_conv(width, 4 * width, 1, hw), 4 * width)
            if block == 0:
                add(_conv(c_in, 4 * width, 1, hw), 4 * width)  # projection shortcut
            c_in = 4 * width
    pooled = 64 * 112 ** 2 + 2048 * 7 ** 2 + 2048  # max-pool, average-pool and classifier inputs
    return params + 2048 * 1000 + 1000, macs + 2048 * 1000, outputs, pooled


def vgg16():
    params = macs = outputs = 0
    pooled = sum(c * hw ** 2 for c, hw in ((64, 224), (128, 112), (256, 56), (512, 28), (512, 14)))  # max-pool inputs
    pooled += 512 * 7 * 7 + 4096 + 4096  # the fully connected layers' inputs
    for c_in, c_out, hw in ((3, 64, 224), (64, 64, 224), (64, 128, 112), (128, 128, 112), (128, 256, 56),
                            (256, 256, 56), (256, 256, 56), (256, 512, 28), (512, 512, 28), (512, 512, 28),
                            (512, 512, 14), (512, 512, 14), (512, 512, 14)):
        p, m, o = _conv(c_in, c_out, 3, hw, bias=True)
        params, macs, outputs = params + p, macs + m, outputs + o
    for f_in, f_out in ((512 * 7 * 7, 4096), (4096, 4096), (4096, 1000)):
        params, macs, outputs = params + f_in * f_out + f_out, macs + f_in * f_out, outputs + f_out
    return params, macs, outputs, pooled


def test_resnet50_entry_follows_from_its_architecture():
    params, macs, outputs, pooled = resnet50()
    assert params == 25_557_032  # torchvision's count; workloads.md: 25.6 M
    assert macs / 1e9 == pytest.approx(4.1, abs=0.02)  # workloads.md's "~4.1 G" is this MAC count
    m = zoo()["resnet-50"]
    assert m.parameters == params
    assert m.forward_flops == pytest.approx(2 * macs, rel=0.001)
    # two 16-bit tensors per conv output (the BatchNorm and the ReLU inputs), the pools' and classifier's inputs
    assert m.activation_memory == pytest.approx(2 * (2 * outputs + pooled), rel=0.001)
    assert m.model_parallel_traffic == pytest.approx(2 * 2 * outputs, rel=0.001)


def test_vgg16_entry_follows_from_its_architecture():
    params, macs, outputs, pooled = vgg16()
    assert params == 138_357_544  # workloads.md: 138 M
    assert macs / 1e9 == pytest.approx(15.5, abs=0.05)  # workloads.md's "~15.5 G"
    m = zoo()["vgg-16"]
    assert m.parameters == params
    assert m.forward_flops == pytest.approx(2 * macs, rel=0.001)
    convs = outputs - 4096 - 4096 - 1000  # outputs counted the fully connected layers too
    assert m.activation_memory == pytest.approx(2 * (convs + pooled), rel=0.002)
    assert m.model_parallel_traffic == pytest.approx(2 * 2 * outputs, rel=0.002)


# --- DLRM (workloads-2.md §5) -------------------------------------------------------------------------------------
def test_dlrm_derived_sizes():
    m = zoo()["dlrm-dcnv2"]
    assert sum(m.embedding_rows) == 204_184_588
    assert dlrm.embedding_parameters(m) / 1e9 == pytest.approx(26.1, abs=0.05)
    assert dlrm.embedding_parameters(m) * 4 / 1e9 == pytest.approx(104.5, abs=0.05)  # GB in fp32
    assert dlrm.lookups_per_sample(m) == 214
    assert dlrm.lookup_bytes_per_sample(m) / 1e3 == pytest.approx(110, abs=0.5)  # KB in fp32
    assert dlrm.dense_parameters(m) / 1e6 == pytest.approx(16.0, abs=0.05)
    assert dlrm.dense_parameters(m) * 4 / 1e6 == pytest.approx(64, abs=0.5)  # MB all-reduced per step
    assert dlrm.interaction_width(m) == 3456


def test_dlrm_flops_and_traffic():
    m = zoo()["dlrm-dcnv2"]
    flops = dlrm.forward_flops_per_sample(m)
    assert flops["bottom"] / 1e6 == pytest.approx(0.34, abs=0.005)
    assert flops["interaction"] / 1e6 == pytest.approx(21.2, abs=0.05)
    assert flops["top"] / 1e6 == pytest.approx(10.5, abs=0.05)
    assert sum(flops.values()) / 1e6 == pytest.approx(32.1, abs=0.05)
    assert dlrm.training_flops_per_sample(m) / 1e6 == pytest.approx(96, abs=0.5)
    batch = 65_536  # MLPerf reference global batch
    assert dlrm.all_to_all_bytes_per_sample(m) * batch / 1e6 == pytest.approx(872, abs=1)  # fp32, each way
    assert dlrm.all_to_all_bytes_per_sample(m, 2.0) * batch / 1e6 == pytest.approx(436, abs=1)
    assert dlrm.index_bytes_per_sample(m) * batch / 1e6 == pytest.approx(112, abs=0.5)  # int64 indices


# Each GPU's built-in designs with the fastest networks: a scan of every zoo model on all 19 built-in designs puts
# each GPU's highest MFU on one of these (A100: ideal 59.4 %, dgx-a100 58.9 %; H100: cpo-800g 51.4 %, as dsp-800g
# and lpo-800g, dgx-h100 51.3 %; GB200: gb200-nvl72 46.3 %), and the ideal switch is a lower bound on every fabric
# of its rate and step latency.
FASTEST = ("ideal", "dgx-a100", "cpo-800g", "dgx-h100", "gb200-nvl72")


@pytest.mark.parametrize("design", FASTEST)
def test_no_zoo_model_runs_above_60_percent_mfu(design):
    """No published dense or MoE training run reaches 60 % MFU on these GPUs; a model above it misses a cost."""
    from core.errors import InputError
    from sipml.api import speedup

    checked = 0
    for name in zoo():
        try:
            row = speedup(design, name, baselines=[design])[0]
        except InputError:  # a batch no split of this design's GPUs divides (DLRM on 1,152 GPUs)
            continue
        assert row["feasible"] and row["mfu"] is not None, (name, design, row.get("reason"))
        assert row["mfu"] <= 0.60, (name, design, row["strategy"], row["mfu"])
        checked += 1
    assert checked >= 15


def test_the_zoo_reads_a_model_s_file_when_it_is_asked_for_and_names_it_as_its_file(tmp_path, monkeypatch):
    """A command that trains one model read all twenty files; a zoo file naming its model otherwise is refused (two
    files could name one model)."""
    import shutil

    import pytest

    from core.errors import InputError
    from workloads import models

    read = []
    real = models.load_model_file
    monkeypatch.setattr(models, "load_model_file", lambda path: read.append(path) or real(path))
    shelf = models.zoo_models(models.ZOO_DIR)
    assert shelf["resnet-50"].name == "resnet-50" and len(read) == 1
    assert len(shelf) == len(list(models.ZOO_DIR.glob("*.toml"))) and len(read) == 1
    shutil.copy(models.ZOO_DIR / "resnet-50.toml", tmp_path / "resnet-51.toml")
    with pytest.raises(InputError, match="'resnet-50' is named as its file, 'resnet-51'"):
        models.zoo_models(tmp_path)["resnet-51"]


def test_each_shipped_stack_read_alone_is_the_one_the_whole_file_gives():
    """A command reads the stack it trains under (and the one it extends) from that stack's own tables; each is
    what parsing the whole file gives."""
    from workloads import stacks
    from workloads.files import read_toml

    path = stacks.stacks_path()
    whole = read_toml(path)
    shelf = stacks.ShippedStacks(path)
    assert list(shelf) == list(whole)
    shelf["nemo-moe"]
    chain, name = [], "nemo-moe"
    while name:  # the stack and those it extends, in turn
        chain.append(name)
        name = whole[name].get("extends")
    assert set(shelf._parsed._made) == set(chain) and len(chain) < len(whole)
    import dataclasses

    for name in whole:  # a Stack compares by identity: field by field
        alone, from_whole = shelf[name], stacks._stack(f"{path}: [{name}]", name, stacks._merged(path, name, whole))
        assert all(getattr(alone, f.name) == getattr(from_whole, f.name) for f in dataclasses.fields(alone)), name
