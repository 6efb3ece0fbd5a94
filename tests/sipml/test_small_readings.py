"""Issue 42's smaller readings, each through the real entry point: `models` labels HBM in the unit its number is
in; `validate` shows each error and tolerance in its own unit, rounded; `speedup`'s strategy text is what
`--strategy` takes; `--plot` takes a quantity's bare key; a mistyped model suggests the model meant."""

import json
import re

import pytest

from tests.sipml.cli_run import run


def _table(out: str, title: str) -> list[dict]:
    """The rows of the text table called `title`, cut at the columns its dashed rule marks."""
    block = out.split(f"{title}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    spans = [m.span() for m in re.finditer(r"-+", block[1])]
    spans[-1] = (spans[-1][0], None)  # the last column runs to the end of the line

    def cells(line):
        return [line[a:b].strip() for a, b in spans]

    return [dict(zip(cells(block[0]), cells(line))) for line in block[2:]]


def test_models_shows_hbm_in_gib_and_gb_each_converted_from_the_bytes(capsys):
    """Both columns come from the GPU's bytes: GiB × 2^30 = GB × 10^9 (to their rounding); the A100 40 GB of the
    datasheet is 40 GiB in gpus.toml, so 42.9 GB — the label says which unit each number is in."""
    from workloads.gpus import load_gpus

    code, out, _ = run(capsys, "models")
    assert code == 0
    rows = {r["gpu"]: r for r in _table(out, "GPUs")}
    for name, gpu in load_gpus().items():
        assert float(rows[name]["HBM GiB"]) == pytest.approx(gpu.hbm_bytes / 2**30, abs=0.05)
        assert float(rows[name]["HBM GB"]) == pytest.approx(gpu.hbm_bytes / 1e9, abs=0.05)
    assert (rows["a100_sxm4_40gb"]["HBM GiB"], rows["a100_sxm4_40gb"]["HBM GB"]) == ("40.0", "42.9")
    code, out, _ = run(capsys, "models", "-f", "json")
    a100 = next(g for g in json.loads(out)["gpus"] if g["gpu"] == "a100_sxm4_40gb")
    assert a100["hbm_gib"] == pytest.approx(40.0) and "40 GB" in a100["sources"]["hbm"]


def test_validate_shows_each_error_and_tolerance_in_its_own_unit(capsys):
    """A relative case in % (ppm or ppb for a tiny tolerance: never '±1e-07 %'), an absolute one in the case's
    unit, rounded one digit finer than its tolerance (float noise reads 0); a range says so."""
    from sipml.validation import all_cases

    code, out, _ = run(capsys, "validate")
    assert code == 0
    rows = _table(out, "Validation against published numbers")
    cases = {c.name: c for c in all_cases()}
    assert len(rows) == len(cases)
    for row in rows:
        case = cases[row["case"]]
        assert "e-" not in row["tolerance"] and "e-" not in row["error"], row
        if case.informational:  # shown for the reader: it claims no tolerance, so none reads as a pass
            assert row["tolerance"] == "not judged", row
        elif case.high is not None:
            assert row["tolerance"].startswith(("range ±", "in range")) and (row["error"] == "–"
                                                                            or row["error"].endswith(" %"))
        elif case.rel:
            unit = row["tolerance"].rsplit(" ", 1)[1]
            assert unit in ("%", "ppm", "ppb") and row["error"].endswith(f" {unit}"), row
        else:
            assert row["tolerance"] == "exact" or row["tolerance"].endswith(f" {case.unit}".rstrip()), row
            assert row["error"].endswith(case.unit), row
    by_name = {r["case"]: r for r in rows}
    assert by_name["R2 TeraPHY capacity per direction"]["tolerance"] == "±1 ppb"
    assert by_name["R2 TeraPHY I/O power at 4.96 pJ/bit"]["tolerance"] == "±0.005 W"
    # a dB case whose error is float noise (5e-16 dB) reads as zero at the tolerance's resolution
    noise = [r for r in rows if r["case"].startswith("400GBASE-DR4") and r["case"].endswith("margin")]
    assert noise and noise[0]["error"] == "0.00 dB"
    # figures written out to four digits (13860, not 1.386e+04); a throughput in what its model counts
    assert not [r for r in rows if "e+" in r["published"] + r["ours"]]
    nemo = by_name["Llama 3 8B, 8 H100, FP8, tokens/s per GPU"]
    assert nemo["unit"] == "tokens/s per GPU" and re.fullmatch(r"1\d{3}0", nemo["ours"]), nemo
    assert by_name["H100 SXM, MLPerf v3.0, 8 GPUs × 400 images, images/s per GPU"]["unit"] == "samples/s per GPU"


def test_a_value_listed_twice_on_an_axis_is_refused(capsys):
    """`--vary fabric.gpus=64,64` wrote every row twice; a value written twice in other units is the same value."""
    for vary, said in (("fabric.gpus=64,64", "64 is listed twice"),
                       ("laser.power_per_line=1 mW,0.001 W", "1 mW and 0.001 W are one value")):
        code, out, err = run(capsys, "sweep", "--vary", vary, "-q", "-o", "-")
        assert code == 2 and not out and said in err and err.count("\n") == 1, err


def test_a_plot_error_lists_each_column_once(capsys):
    code, _, err = run(capsys, "sweep", "--vary", "fabric.gpus=64,128", "--plot", "fabric.gpus,nope", "-q",
                       "-o", "-")
    columns = err.split("columns: ", 1)[1].strip().split(", ")
    assert code == 2 and len(columns) == len(set(columns)) and "fabric.gpus" in columns, err


def test_speedup_strategy_text_is_what_strategy_takes(capsys):
    """`sp=true`, not Python's `sp=True`; and the printed strategy, given back to --strategy, runs the same
    iteration."""
    argv = ("speedup", "sip-ring", "-m", "gpt2-355m", "--baseline", "fattree-200")
    code, out, _ = run(capsys, *argv, "--strategy", "tp=2,sp=true")
    assert code == 0 and "True" not in out and "False" not in out
    text = _table(out, "Best strategy and where the iteration goes (seconds)")[0]["strategy"]
    assert "sp=true" in text.split()
    code, out, _ = run(capsys, *argv, "--strategy", "tp=2,sp=true", "-f", "json")
    first = json.loads(out)["rows"][0]["iteration_s"]
    code, out, err = run(capsys, *argv, "--strategy", ",".join(text.split()), "-f", "json")
    assert code == 0, err
    assert json.loads(out)["rows"][0]["iteration_s"] == pytest.approx(first, rel=1e-12)


def test_plot_takes_a_quantity_by_its_bare_key(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "margin.png"
    argv = ["sweep", "--vary", "link.channel_spacing=100GHz:300GHz:3", "--quiet", "-o", str(tmp_path / "s.csv"),
            "--plot-file", str(figure)]
    code, _, err = run(capsys, *argv, "--plot", "link.channel_spacing,margin_db")
    assert code == 0, err
    assert figure.read_bytes().startswith(b"\x89PNG")
    code, _, err = run(capsys, *argv, "--plot", "link.channel_spacing,margin_dbx")
    assert code == 2 and "no column 'margin_dbx'" in err


@pytest.mark.parametrize("typed, meant", [("gpt-3", "gpt3-175b"), ("GPT3", "gpt3-175b"), ("gpt2", "gpt2-355m"),
                                          ("resnet50", "resnet-50"), ("llama-3", "llama3-405b")])
def test_a_mistyped_model_suggests_the_model_meant(capsys, typed, meant):
    code, out, err = run(capsys, "speedup", "-m", typed)
    assert code == 2 and out == "" and f"(did you mean '{meant}'?)" in err


def test_close_matches_still_catch_a_typo():
    from core.errors import closest

    assert closest("margin_dbb", ["margin_db", "capacity_gbps"]) == "margin_db"
    assert closest("wavelenghts_per_fiber", ["wavelengths_per_fiber", "fibers_per_direction"]) \
        == "wavelengths_per_fiber"
    assert closest("zzz", ["margin_db", "capacity_gbps"]) is None


@pytest.mark.parametrize("argv, said", [
    (["speedup", "dgx-h100", "--strategy", "ep=2"], "gpt3-175b has none"),
    (["sweep", "--vary", "link.data_rate=10 Gbit/s:50 Gbit/s:3", "--plot", "link.data_rate,binding_limit", "-q",
      "-o", "-"], "binding_limit holds text"),
    (["sweep", "--vary", "link.data_rate=25 Gbit/s:25 Gbit/s:3", "-q", "-o", "-"], "the range repeats values"),
])
def test_inputs_that_changed_nothing_or_drew_nothing_are_refused(capsys, argv, said):
    """Expert parallelism on a dense model ran as if ep = 1; a text column on a plot's axis drew an empty figure; a
    range of one value wrote the same row three times."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out and said in err and err.count("\n") == 1, err


def test_a_text_column_may_still_colour_a_plot(capsys, tmp_path):
    code, _, err = run(capsys, "sweep", "--vary", "link.data_rate=10 Gbit/s:50 Gbit/s:3", "--plot",
                       "link.data_rate,margin_db,binding_limit", "--plot-file", str(tmp_path / "p.png"), "-q", "-o",
                       str(tmp_path / "s.csv"))
    assert code == 0 and (tmp_path / "p.png").stat().st_size > 1000, err
