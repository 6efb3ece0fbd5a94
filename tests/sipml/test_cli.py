"""The `sipml` command line end to end: exit codes, every output format, error messages, output files."""

import csv
import io
import json
import os
import subprocess
import sys
import tomllib

import pytest

from sipml.cli import main

BUDGET_KEYS = {"feasible", "margin_db", "capacity_gbps", "binding_limit", "max_wavelengths_per_fiber",
               "laser_power_per_line_dbm", "energy_pj_per_bit", "ledger"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, text, name="design.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_budget_json_has_the_documented_keys(capsys):
    code, out, _ = run(capsys, "budget", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert BUDGET_KEYS <= data.keys()
    assert data["feasible"] is True
    assert data["capacity_gbps"] == pytest.approx(2000.0)
    assert all({"name", "value", "unit"} <= row.keys() for row in data["ledger"])
    # the ledger adds up: weakest launched line − losses = received power
    rows = {r["name"]: r for r in data["ledger"]}
    losses = sum(r["value"] for r in data["ledger"] if r["unit"] == "dB" and not r["name"].startswith(
        ("penalty", "margin", "system")))
    assert rows["weakest line entering the bus"]["value"] + losses == pytest.approx(rows["received power"]["value"])
    penalties = sum(r["value"] for r in data["ledger"] if r["name"].startswith("penalty"))
    assert rows["received power"]["value"] - rows["sensitivity"]["value"] + penalties == pytest.approx(
        data["margin_db"])


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown"])
def test_budget_other_formats(capsys, fmt):
    code, out, _ = run(capsys, "budget", "-f", fmt)
    assert code == 0
    assert "margin" in out and "received power" in out
    if fmt == "csv":  # one row: a column per quantity, with its unit
        header, values = list(csv.reader(io.StringIO(out)))
        values = dict(zip(header, values))
        assert float(values["margin_db [dB]"]) == pytest.approx(json.loads(run(capsys, "budget", "-f", "json")[1])[
            "margin_db"])
    if fmt == "markdown":
        assert "| item | value | unit | detail |" in out


def test_check_feasible_and_infeasible(capsys, tmp_path):
    code, out, _ = run(capsys, "check")
    assert code == 0 and "feasible" in out
    bad = write(tmp_path, '[link]\nwavelengths_per_fiber = 30\n')
    code, out, _ = run(capsys, "check", bad)
    assert code == 1
    assert "fsr_channels" in out and "30 wavelengths per fiber > 19 channels per FSR" in out
    assert "laser_lines" in out and "INFEASIBLE" in out


def test_check_reports_switch_loss_failure(capsys):
    code, out, _ = run(capsys, "check", "--set", "loss.switch_ports=2", "-f", "json")
    data = json.loads(out)
    assert code == 1 and not data["feasible"]
    assert "power_budget" in [v["name"] for v in data["violations"]]


@pytest.mark.parametrize("text, fragment", [
    ('[link]\ndata_rate = "25 GHz"\n', "[link] data_rate = '25 GHz'"),
    ('[link]\ndata_rat = "25 Gbit/s"\n', "did you mean 'data_rate'"),
    ('[link\n', "malformed TOML"),
    ('[laser]\nwall_plug_efficiency = 1.5\n', "[laser] wall_plug_efficiency = 1.5"),
    ('[ring]\nfilter_q = 0\n', "[ring] filter_q = 0"),
    ('[loss]\nfiber_length = "-3 m"\n', "out of range"),
    ('[loss]\nfiber_length = "nan m"\n', "NaN"),
    ('[loss]\nfiber_length = "inf m"\n', "infinite"),
    ('[loss]\nfiber_length = 10\n', "bare number"),
    ('[rng]\nradius = "3 um"\n', "did you mean 'ring'"),
    ('[link]\nwavelengths_per_fiber = 2.5\n', "whole number"),
    ('[receiver]\nmodel = "given"\nsensitivity = "-60 dBm"\n', "quantum limit"),
    ('[tuning]\nt_min = "400 K"\n', "t_min"),
    ('[laser]\nkind = "vcsel"\n', "[laser] kind = 'vcsel' is directly modulated"),
])
def test_bad_input_is_one_clear_line_and_exit_2(capsys, tmp_path, text, fragment):
    path = write(tmp_path, text)
    code, out, err = run(capsys, "budget", path)
    assert code == 2
    assert out == ""
    assert fragment in err
    assert path in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "budget", str(tmp_path / "nope.toml"))
    assert code == 2 and "no such file" in err


def test_bad_set_override(capsys):
    code, _, err = run(capsys, "budget", "--set", "link.data_rate")
    assert code == 2 and "section.key=value" in err


def test_set_override_changes_the_design(capsys):
    code, out, _ = run(capsys, "budget", "-f", "json", "--set", "link.wavelengths_per_fiber=4")
    assert code == 0 and json.loads(out)["capacity_gbps"] == pytest.approx(1000.0)


def test_output_file_is_written_atomically(capsys, tmp_path):
    target = tmp_path / "out.json"
    code, out, err = run(capsys, "budget", "-f", "json", "-o", str(target))
    assert code == 0 and out == "" and "wrote" in err
    assert json.loads(target.read_text())["feasible"] is True
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_failed_run_keeps_the_existing_output(capsys, tmp_path):
    target = tmp_path / "out.json"
    target.write_text("previous")
    code, _, _ = run(capsys, "budget", write(tmp_path, "[link\n", "bad.toml"), "-o", str(target))
    assert code == 2 and target.read_text() == "previous"


def test_unknown_format_is_a_usage_error(capsys):
    code, _, _ = run(capsys, "budget", "--format", "xml")
    assert code == 2


def test_fields_lists_every_field_with_unit_and_source(capsys):
    code, out, _ = run(capsys, "fields", "-f", "json")
    data = json.loads(out)
    assert code == 0
    assert data["link"]["data_rate"]["unit"] == "bit/s"
    assert all(entry["source"] for section in data.values() for entry in section.values())


def test_init_writes_a_design_that_loads_back(capsys, tmp_path):
    from sipml.design_files import load_design

    target = tmp_path / "mine.toml"
    assert run(capsys, "init", str(target))[0] == 0
    tomllib.loads(target.read_text())
    assert load_design(str(target)) == load_design(None)  # every value round-trips through its text
    assert run(capsys, "init", str(target))[0] == 2  # refuses to overwrite


def test_explain_prints_the_closed_forms(capsys):
    code, out, _ = run(capsys, "explain")
    assert code == 0 and "N = " in out and "max_hops" in out


def test_real_entry_point_bad_unit_no_traceback(tmp_path):
    path = write(tmp_path, '[link]\ndata_rate = "25 GHz"\n')
    proc = subprocess.run([sys.executable, "-m", "sipml", "check", path], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("sipml: error:") and "Traceback" not in proc.stderr


def test_real_entry_point_budget():
    proc = subprocess.run([sys.executable, "-m", "sipml", "budget", "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["binding_limit"] == "requested"


_THREADS = ("import contextlib, io, os, sys; from sipml.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): code = main(['budget'])\n"
            "assert 'numpy' in sys.modules\n"
            "print(code, os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads counted in /proc")
def test_a_command_runs_numpy_on_one_thread_unless_the_user_says_otherwise():
    """No BLAS worker threads spinning beside a command (its numpy work is elementwise); a user's setting kept, a
    Python caller's environment left as it was."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, env=env).stdout.split()
    assert out == ["0", "None", "1"]  # one thread; the caller's environment as it was once the command returned
    mine = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True,
                          env={**env, "OMP_NUM_THREADS": "2"}).stdout.split()
    assert mine[:2] == ["0", "None"]


def test_default_design_is_the_builtin_sip_ring(capsys):
    """No design, the built-in name, and the file `init` writes all give the same answers."""
    import pathlib
    import tempfile

    _, plain, _ = run(capsys, "budget", "-f", "json")
    _, named, _ = run(capsys, "budget", "sip-ring", "-f", "json")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(pathlib.Path(tmp) / "d.toml")
        run(capsys, "init", path)
        _, written, _ = run(capsys, "budget", path, "-f", "json")
        assert run(capsys, "check", path)[0] == 0
    strip = lambda text: {k: v for k, v in json.loads(text).items() if k != "design"}  # noqa: E731
    assert strip(plain) == strip(named) == strip(written)
    assert run(capsys, "check")[0] == 0 and run(capsys, "check", "--set", "fabric.gpus=1024")[0] == 0


def test_a_key_without_effect_is_an_error(capsys):
    code, _, err = run(capsys, "budget", "--set", 'receiver.sensitivity="-12 dBm"')
    assert code == 2 and "applies only when [receiver] model = 'given'" in err
    assert run(capsys, "budget", "--set", "receiver.model=given", "--set", 'receiver.sensitivity="-12 dBm"')[0] == 0


@pytest.mark.parametrize("command", ["budget", "sweep", "speedup", "explain"])
def test_a_run_converts_only_its_command_and_reads_the_same(capsys, command):
    """`main` has typer convert only the command it runs: its help (options, defaults, usage line) is the one the
    group of every command prints, and the root's help and a misspelt command still see them all."""
    from sipml.cli import _COMMANDS, _click_app, _invoked

    assert _invoked([command, "--help"]) == command and list(_click_app(command).commands) == [command]
    assert _invoked(["--help", command]) is None and _invoked([command[:-1] + "x"]) is None
    _click_app(None).main([command, "--help"], prog_name="sipml", standalone_mode=False)
    whole, _ = capsys.readouterr()
    code, alone, _ = run(capsys, command, "--help")
    assert code == 0 and alone == whole and f"Usage: sipml {command} [OPTIONS]" in alone
    code, out, _ = run(capsys, "--help")
    assert code == 0 and all(name in out for name in _COMMANDS)
    code, _, err = run(capsys, command[:-1] + "x")
    assert code == 2 and "No such command" in err


def test_a_process_converts_a_command_once_and_each_run_reads_only_its_own_arguments(capsys):
    """The click group of a command is made once per process; a run's options do not reach the next run."""
    from sipml.cli import _click_app

    first = run(capsys, "budget", "-f", "json")
    changed = run(capsys, "budget", "-f", "json", "--set", "link.wavelengths_per_fiber=16")
    again = run(capsys, "budget", "-f", "json")
    assert first == again and first[0] == changed[0] == 0 and changed[1] != first[1]
    assert _click_app("budget") is _click_app("budget") and _click_app(None) is _click_app(None)


@pytest.mark.parametrize("argv", [["budget", "--set", "link.data_rate=25", "Gbit/s"],
                                  ["budget", "sip-ring", "--set", "loss.coupler=2", "dB"],
                                  ["check", "--set=link.channel_spacing=100", "GHz"],
                                  ["speedup", "sip-ring", "-m", "gpt2-355m", "--set", "link.data_rate=25", "Gbit/s"]])
def test_a_value_the_shell_split_in_two_is_shown_quoted(capsys, argv):
    """An unquoted `--set key=25 Gbit/s` reaches the command as a number and a word: the one-line error (exit 2)
    says how to quote it; other errors get no such hint."""
    code, _, err = run(capsys, *argv)
    item = next(a[len("--set="):] if a.startswith("--set=") else b for a, b in zip(argv, argv[1:])
                if a.startswith("--set"))
    assert code == 2 and err.count("\n") == 1
    assert f"write --set '{item} {argv[-1]}'" in err
    code, _, err = run(capsys, "budget", "nosuch", "--set", "link.data_rate=25 Gbit/s")
    assert code == 2 and "shell split" not in err
    code, _, err = run(capsys, "budget", "sip-ring", "--set", "link.data_rate=25", "km**400")  # no float: no unit
    assert code == 2 and err.count("\n") == 1 and "shell split" not in err


@pytest.mark.parametrize("command", ["cost", "explain", "reliability", "fabric"])
def test_gpus_where_a_command_has_no_such_option_names_the_field_that_sizes_the_cluster(capsys, command):
    """`cost cpo-800g --gpus 4096` (speedup's option) was answered 'Possible options: --gpu-file'."""
    assert main([command, "--gpus", "4096"]) == 2
    err = capsys.readouterr().err
    assert "No such option: --gpus (this command takes the cluster's size as --set fabric.gpus=N)" in err
    assert err.count("\n") == 1


def test_an_option_that_only_begins_with_gpus_gets_no_gpus_hint(capsys):
    assert main(["cost", "--gpusx", "4"]) == 2
    assert "fabric.gpus" not in capsys.readouterr().err
