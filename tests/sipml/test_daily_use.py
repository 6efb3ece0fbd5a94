"""Daily use: a sweep axis shown in the unit it was written in, a progress bar that knows its total, and
`cost --set` with no design named."""

import csv
import io
import json

from sipml.cli import main


def test_a_byte_axis_written_in_megabytes_reads_back_in_megabytes(capsys):
    assert main(["sweep", "--vary", "fabric.message_size=1MB,2MB", "-f", "csv", "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [float(r["fabric.message_size [MB]"]) for r in rows] == [1.0, 2.0]
    assert [float(r["fabric.message_size [byte]"]) for r in rows] == [1e6, 2e6]


def test_a_sweeps_progress_knows_its_total_before_the_first_point_ends():
    """The progress bar shows `0/N`, not `0/?`, from its start."""
    from sipml.sweep_run import run_sweep

    calls = []
    run_sweep(None, [], ["laser.power_per_line=1mW:3mW:3"], progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, calls[-1][1]) and calls[-1][0] == calls[-1][1] > 0


def test_cost_with_no_design_named_leaves_out_the_designs_a_set_does_not_fit(capsys):
    """`sipml cost --set link.…`: the optical designs compared, the electrical ones left out and named; a design
    named explicitly still refuses a --set it does not take."""
    import json

    assert main(["cost", "--set", "link.data_rate=32 Gbit/s", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    assert [d["design"] for d in json.loads(out)["designs"]] == ["sip-ring", "sip-ocs", "sip-ocs-384"]
    assert err.startswith("sipml: left out of the comparison: dgx-a100") and err.count("\n") == 1
    assert main(["cost", "dgx-a100", "--set", "link.data_rate=32 Gbit/s"]) == 2


def test_speedup_says_when_the_batch_stops_data_parallelism(capsys):
    """ResNet-50's 8,192 samples over 1,000 GPUs: data parallelism stops at 8 (their largest common divisor) and the
    other 125 ways go to model parallelism; a footer says so, and says nothing where the batch divides."""
    assert main(["speedup", "sip-ring", "-m", "resnet-50", "--gpus", "1000"]) == 0
    assert "not a multiple of the 1000 GPUs" in capsys.readouterr().out
    assert main(["speedup", "sip-ring", "-m", "resnet-50", "--gpus", "1024"]) == 0
    assert "not a multiple" not in capsys.readouterr().out


def test_speedup_says_when_the_gpus_have_a_factor_the_batch_lacks(capsys):
    """56 GB200 NVL72 racks (4,032 GPUs, 2^6 × 63) under Llama 3's batch of 2,048: data parallelism cannot take the
    63, so a 63-stage pipeline does, 1.6× slower than at a batch of 2,016 (a multiple of 63); a footer says so and
    names that batch, and says nothing at 2,016. A batch with part of the 63 (1,344 = 2^6 × 21) is named a multiple
    of the whole (1,008; it was named 1,536, which lacks the 3 and 7 both)."""
    args = ["speedup", "gb200-nvl72", "-m", "llama3-405b", "--gpus", "4032", "-f", "json"]
    assert main(args) == 0
    [odd] = json.loads(capsys.readouterr().out)["rows"]
    assert main(args + ["--batch", "2016"]) == 0
    [even] = json.loads(capsys.readouterr().out)["rows"]
    assert odd["strategy"]["pp"] == 63 and odd["iteration_s"] > 1.5 * even["iteration_s"]
    assert main(args[:-2]) == 0
    out = capsys.readouterr().out
    assert ("the 4032 GPUs' odd factor 63 does not divide the global batch 2048: data parallelism cannot take all "
            "of it, so model parallelism does (pp = 63 on gb200-nvl72); a batch that is a multiple of 63 (--batch "
            "2016)") in out
    assert main(args[:-2] + ["--batch", "2016"]) == 0
    assert "factor 63" not in capsys.readouterr().out
    assert main(args[:-2] + ["--batch", "1344"]) == 0  # 2^6 × 21: it lacks a 3, and the batch named is 63's
    assert "(--batch 1008)" in capsys.readouterr().out


def test_a_key_an_edit_leaves_without_effect_is_refused_saying_how_to_mend_it(capsys, tmp_path):
    """`sipml init` writes every key that applies, `ber` among them under fec = 'none'; `--set link.fec=kp4` then
    leaves it without effect: refused (exit 2), now saying to remove the key or set the condition."""
    path = tmp_path / "oci.toml"
    assert main(["init", str(path), "intel-oci"]) == 0
    capsys.readouterr()
    assert main(["budget", str(path), "--set", "link.fec=kp4"]) == 2
    err = capsys.readouterr().err
    assert "[link] ber has no effect here: it applies only when [link] fec = 'none' (remove it, or set that)" in err


def test_init_says_when_the_file_it_writes_is_refused_as_it_stands(capsys, tmp_path):
    """sip-ocs taking intel-oci's optical I/O has 8 fibers for 20 switches: `init` writes the file (to edit) and
    says at once that its fabric is refused, and why; a working design's file gets no such note."""
    assert main(["init", str(tmp_path / "a.toml"), "sip-ocs", "--set", "optical_io.design=intel-oci"]) == 0
    err = capsys.readouterr().err
    assert "note: as written, its fabric is refused ([sip_ocs] switches = 20" in err and (tmp_path / "a.toml").exists()
    assert main(["init", str(tmp_path / "b.toml"), "sip-ocs"]) == 0
    assert "note:" not in capsys.readouterr().err
