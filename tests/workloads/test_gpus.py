"""GPUs as data: the shipped table is complete and sourced, its numbers are the reference ones, price and TDP
come from the fabric catalog, and bad or unknown input fails with one clear message."""

from __future__ import annotations

import re

import pytest

from core.errors import InputError
from fabric.catalog import load_catalog
from workloads.files import TAGS
from workloads.gpus import get_gpu, load_gpus, shipped_gpus

REQUIRED = ("v100_sxm2", "a100_sxm4_40gb", "a100_sxm4_80gb", "h100_sxm5", "h200_sxm", "b200_sxm")


def test_required_gpus_are_shipped():
    assert set(REQUIRED) <= set(shipped_gpus())


def test_every_number_has_a_tagged_source():
    for gpu in shipped_gpus().values():
        keys = ["sm_count", "hbm", "hbm_bandwidth", "nvlink_bandwidth", *(f"peak.{p}" for p in gpu.peak),
                *(f"mamf.{p}" for p in gpu.mamf), *(f"mamf_shape.{p}" for p in gpu.mamf_shape)]
        for key in keys:
            assert any(tag in gpu.sources[key] for tag in TAGS), (gpu.name, key)


@pytest.mark.parametrize(("gpu", "precision", "tflops", "reference"), [
    ("v100_sxm2", "fp16", 125, "workloads.md GPU table"),
    ("a100_sxm4_80gb", "bf16", 312, "workloads.md GPU table"),
    ("h100_sxm5", "bf16", 989, "workloads.md GPU table"),
    ("h200_sxm", "fp8", 1979, "workloads-2.md §6"),
    ("b200_sxm", "bf16", 2250, "workloads-2.md §6"),
    ("b200_sxm", "fp8", 4500, "workloads-2.md §6"),
    ("b200_sxm", "fp4", 9000, "workloads-2.md §6"),
])
def test_dense_peaks_are_the_reference_values(gpu, precision, tflops, reference):
    assert get_gpu(gpu).peak_flops(precision) == pytest.approx(tflops * 1e12), reference


@pytest.mark.parametrize(("gpu", "precision", "tflops", "fraction"), [
    ("a100_sxm4_80gb", "bf16", 271.2, 0.869),
    ("h100_sxm5", "bf16", 794.5, 0.803),
    ("b200_sxm", "bf16", 1745, 0.776),
    ("h200_sxm", "fp8", 1453.4, 0.734),
    ("b200_sxm", "fp8", 3432.5, 0.763),
])
def test_mamf_is_the_measured_value(gpu, precision, tflops, fraction):
    g = get_gpu(gpu)
    assert g.mamf_flops(precision) == pytest.approx(tflops * 1e12)  # workloads-2.md §7 (BK)
    assert g.mamf_flops(precision) / g.peak_flops(precision) == pytest.approx(fraction, abs=0.003)


@pytest.mark.parametrize(("gpu", "hbm_tb_s", "nvlink_gb_s_each_way"), [
    ("v100_sxm2", 0.9, 150), ("a100_sxm4_80gb", 2.039, 300), ("h100_sxm5", 3.35, 450), ("h200_sxm", 4.8, 450),
    ("b200_sxm", 7.7, 900),
])
def test_memory_and_nvlink(gpu, hbm_tb_s, nvlink_gb_s_each_way):
    g = get_gpu(gpu)
    assert g.hbm_bandwidth_bytes_per_s == pytest.approx(hbm_tb_s * 1e12)
    assert g.nvlink_bandwidth_bps == pytest.approx(nvlink_gb_s_each_way * 8e9)


def test_price_and_tdp_come_from_the_catalog_entry():
    catalog = load_catalog()
    priced = load_gpus(catalog=catalog)
    for gpu in priced.values():
        entry = catalog[gpu.catalog_key]
        assert gpu.price_usd_range == entry.price_usd and gpu.tdp_w_range == entry.power_w
    assert priced["h100_sxm5"].tdp_w == 700.0 and priced["b200_sxm"].tdp_w == 1000.0
    assert set(priced) == set(shipped_gpus())  # every shipped GPU names a catalog entry


def test_the_compute_model_s_gpus_read_no_catalog_and_say_so_when_asked_for_a_price():
    gpu = get_gpu("h100_sxm5")
    assert gpu.price_usd_range is None
    with pytest.raises(InputError, match="without a catalog"):
        gpu.price_usd


def test_a_catalog_override_reaches_the_gpu(tmp_path):
    user = tmp_path / "prices.toml"
    user.write_text('[gpu.h100_sxm5]\nprice_typical = "20000 USD"\nprice_low = "20000 USD"\n', encoding="utf-8")
    gpus = load_gpus(catalog=load_catalog(user))
    assert gpus["h100_sxm5"].price_usd == 20000.0


def test_a_precision_the_gpu_lacks_is_an_input_error():
    with pytest.raises(InputError, match="no bf16 peak.*fp32, fp16"):
        get_gpu("v100_sxm2").peak_flops("bf16")


def test_mamf_of_an_unmeasured_precision_scales_from_bf16_and_says_so():
    g = get_gpu("a100_sxm4_80gb")
    assert g.mamf_flops("tf32") == pytest.approx(156e12 * 271.2 / 312)
    assert "[assumed]" in g.mamf_source("tf32")


def test_unknown_gpu_lists_the_known_ones():
    with pytest.raises(InputError) as err:
        get_gpu("h100")
    assert "did you mean 'h100_" in str(err.value)
    assert all(name in str(err.value) for name in REQUIRED)


def test_catalog_key_finds_its_gpu():
    assert get_gpu("gpu.a100_sxm4").name == "a100_sxm4_40gb"


def _write(tmp_path, text):
    path = tmp_path / "gpus.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_user_file_overrides_a_key_and_marks_the_source(tmp_path):
    path = _write(tmp_path, '[h100_sxm5]\nhbm_bandwidth = "3 TB/s"\n')
    gpu = load_gpus(path)["h100_sxm5"]
    assert gpu.hbm_bandwidth_bytes_per_s == 3e12
    assert str(path) in gpu.sources["hbm_bandwidth"] and "[assumed]" in gpu.sources["hbm_bandwidth"]
    assert gpu.peak_flops("bf16") == 989e12  # the rest kept


@pytest.mark.parametrize(("text", "message"), [
    ('[h100_sxm5]\nhbm_bandwith = "3 TB/s"\n', r"unknown key 'hbm_bandwith' \(did you mean 'hbm_bandwidth'\?\)"),
    ('[h100_sxm5]\nhbm_bandwidth = "3 THz"\n', r"\[h100_sxm5\] hbm_bandwidth = '3 THz'"),
    ('[h100_sxm5]\nhbm_bandwidth = 3e12\n', r"bare number"),
    ('[h100_sxm5.peak]\nbf16 = "989 TB/s"\n', r"peak.bf16 = '989 TB/s'.*FLOP rate"),
    ('[h100_sxm5.peak]\nbf17 = "1 TFLOP/s"\n', r"unknown precision 'bf17'"),
    ('[h100_sxm5.mamf]\nbf16 = "1200 TFLOP/s"\n', r"exceeds the peak"),
    ('[new_gpu]\ndescription = "x"\n', r"\[new_gpu\] missing key\(s\): architecture, catalog, sm_count"),
    ('[h100_sxm5]\narchitecture = "kepler"\n', r"architecture = 'kepler'"),
    ('[h100_sxm5.attention]\nflash2 = [0.5]\n', r"attention.flash2 = \[0.5\]: expected \[forward, backward\]"),
    ('[h100_sxm5.attention]\nflash9 = [0.5, 0.5]\n', r"unknown kernel family 'flash9'"),
    ('[h100_sxm5]\ncatalog = "gpu.nope"\n', r"catalog = 'gpu.nope'.*no catalog entry"),
])
def test_bad_gpu_files_fail_naming_file_table_and_key(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=message) as err:
        load_gpus(path)
    assert str(path) in str(err.value)


def test_a_new_gpu_needs_a_source_for_every_number(tmp_path):
    base = ('[x]\narchitecture = "hopper"\ndescription = "x"\ncatalog = "gpu.h100_sxm5"\nsm_count = 1\nhbm = "1 GB"\n'
            'hbm_bandwidth = "1 TB/s"\nnvlink_bandwidth = "1 GB/s"\n[x.peak]\nbf16 = "1 TFLOP/s"\n'
            '[x.mamf]\nbf16 = "0.8 TFLOP/s"\n[x.sources]\n')
    sources = {k: f"{k} measured [verbatim]" for k in
               ("sm_count", "hbm", "hbm_bandwidth", "nvlink_bandwidth", "peak.bf16")}
    text = base + "".join(f'"{k}" = "{v}"\n' for k, v in sources.items())
    # a file of its own (`base`): beside the shipped GPUs it would share gpu.h100_sxm5 with the H100 (refused)
    with pytest.raises(InputError, match=r"no source for 'mamf.bf16'"):
        load_gpus(base=_write(tmp_path, text))
    gpu = load_gpus(base=_write(tmp_path, text + '"mamf.bf16" = "measured [verbatim]"\n'))["x"]
    assert gpu.mamf_flops("bf16") == 0.8e12 and gpu.mamf_best_shape("bf16") is None
    with pytest.raises(InputError, match="name its tag"):
        load_gpus(base=_write(tmp_path, text + '"mamf.bf16" = "measured"\n'))
    with pytest.raises(InputError, match=r"GPU \[h100_sxm5\] names it too"):
        load_gpus(_write(tmp_path, text + '"mamf.bf16" = "measured [verbatim]"\n'))


def test_shipped_sources_name_a_reference_or_say_why_not():
    for gpu in shipped_gpus().values():
        for key, text in gpu.sources.items():
            assert re.search(r"workloads|costs-power|BK|datasheet|whitepaper|product brief|\((?:19|20)\d\d\)|\[assumed\]|\[inferred\]", text), (gpu.name, key)


def test_default_training_precision_is_bf16_or_fp16():
    assert get_gpu("v100_sxm2").default_precision == "fp16"
    assert all(get_gpu(g).default_precision == "bf16" for g in REQUIRED[1:])


def test_each_shipped_gpu_read_alone_is_the_one_the_whole_file_gives():
    """`shipped_gpus()` reads a GPU's own tables when it is first asked for: every GPU so read equals
    `load_gpus()`'s, in the same order, and a design's GPU is found by its catalog entry without reading the rest."""
    from workloads.gpus import ShippedGpus, default_gpus_path

    whole = load_gpus()
    alone = ShippedGpus(default_gpus_path())
    assert list(alone) == list(whole)
    first = alone.with_catalog_key(whole["h100_sxm5"].catalog_key)
    assert _same(first, whole["h100_sxm5"]) and list(alone._made) == ["h100_sxm5"]
    assert all(_same(alone[name], gpu) for name, gpu in whole.items())
    assert alone.with_catalog_key("gpu.no_such_gpu") is None


def test_a_gpu_file_splits_into_its_gpus_tables():
    from core.toml_files import tables_by_name as gpu_tables

    text = '# a comment\n[a]\nx = 1\n[a.peak]\nbf16 = "1 TFLOP/s"\n\n[b] # the next\ny = 2\n[ b.sources ]\nz = "[q]"\n'
    assert gpu_tables(text) == {"a": '[a]\nx = 1\n[a.peak]\nbf16 = "1 TFLOP/s"\n\n',
                                "b": '[b] # the next\ny = 2\n[ b.sources ]\nz = "[q]"\n'}


def _same(a, b) -> bool:
    """Field by field (a Gpu compares by identity)."""
    import dataclasses

    return all(getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a))


def test_an_error_in_a_users_gpu_file_names_that_file_alone(tmp_path):
    """An override of a shipped GPU that breaks a rule names the user's file, not the shipped one beside it; a new
    GPU missing keys is told all of them at once, its MAMF and sources included."""
    import pytest

    from core.errors import InputError
    from workloads.gpus import default_gpus_path

    mine = tmp_path / "mine.toml"
    mine.write_text('[h100_sxm5.mamf]\nfp8 = "3000 TFLOP/s"\n[h100_sxm5.sources]\n"mamf.fp8" = "x [assumed]"\n')
    with pytest.raises(InputError) as raised:
        load_gpus(mine)
    assert str(raised.value).startswith(f"{mine}: [h100_sxm5] mamf.fp8") and str(default_gpus_path()) not in str(
        raised.value)
    new = tmp_path / "new.toml"
    new.write_text('[mygpu]\narchitecture = "hopper"\n')
    with pytest.raises(InputError, match=r"missing key\(s\): description, .*, peak, mamf, sources$"):
        load_gpus(new)
