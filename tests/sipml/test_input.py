"""Input you can trust (issue 8): one regression test per reported case, each named after what it guards."""

import csv
import io
import json
import os
import re
import signal
import stat
import time
import tomllib

import pytest

from sipml.design_files import builtin_designs, load_design

BUILTINS = sorted(builtin_designs())


def write(tmp_path, text, name="design.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def one_error_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("sipml: error: ") and "Traceback" not in err, err
    return err


# --- silent wrong values ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["link.data_rate=2,5 Gbit/s", "laser.power_per_line=1,5 mW"])
def test_decimal_comma_is_refused(cli, setting):
    code, out, err = cli("budget", "--set", setting)
    assert code == 2 and out == ""
    assert setting.split("=")[1] in one_error_line(err) and setting.split(".")[1].split("=")[0] in err


def test_double_dot_is_refused(cli):
    code, _, err = cli("budget", "--set", "ring.radius=1.5.2 mm")
    assert code == 2 and "[ring] radius = '1.5.2 mm'" in one_error_line(err)


def test_a_unit_alone_is_refused(cli):
    code, _, err = cli("budget", "--set", "link.data_rate=Gbit/s")
    assert code == 2 and "[link] data_rate = 'Gbit/s'" in one_error_line(err)


def test_a_stray_quote_is_refused(cli):
    code, _, err = cli("budget", "--set", "link.data_rate='50 Gbit/s")
    assert code == 2 and "stray quote" in one_error_line(err) and "link.data_rate" in err


def test_a_stray_quote_in_a_file_is_refused(cli, tmp_path):
    path = write(tmp_path, "[link]\ndata_rate = \"'50 Gbit/s\"\n")
    code, _, err = cli("budget", path)
    assert code == 2 and path in one_error_line(err) and "data_rate" in err


@pytest.mark.parametrize("text", ["10**10**10 Gbit/s", "2*3 Gbit/s", "(25 Gbit/s + 25 Gbit/s) / 2"])
def test_expressions_are_never_evaluated(cli, text):
    cli("budget", "--set", "link.data_rate=25 Gbit/s")  # what a first run imports is not timed
    start = time.perf_counter()
    code, _, err = cli("budget", "--set", f"link.data_rate={text}")
    assert code == 2 and "no arithmetic" in one_error_line(err)
    assert time.perf_counter() - start < 2.0


def test_shipped_catalog_has_no_arithmetic_and_keeps_it_in_notes():
    from fabric.catalog import PRICE_KEYS, POWER_RANGE_KEYS, default_catalog_path
    from core.units import split_quantity

    raw = tomllib.loads(default_catalog_path().read_text(encoding="utf-8"))
    for category in raw.values():
        for entry in category.values():
            for key in (*PRICE_KEYS, "power", *POWER_RANGE_KEYS):
                if key in entry:
                    split_quantity(entry[key])  # raises on anything but one number and a unit
    assert "Arithmetic behind the values: price_low = 0.8 * 15000 USD" in raw["gpu"]["a100_sxm4"]["notes"]


def test_arithmetic_in_a_user_catalog_is_refused_naming_file_entry_and_key(cli, tmp_path):
    prices = write(tmp_path, '[gpu.a100_sxm4]\nprice_typical = "0.9 * 15000 USD"\n', "prices.toml")
    code, _, err = cli("cost", "sip-ring", "--catalog", prices)
    assert code == 2 and prices in one_error_line(err)
    assert "[gpu.a100_sxm4] price_typical" in err and "no arithmetic" in err


# --- hangs and runaway work -------------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["laser.lines=100000", "laser.lines=1000000", "link.fibers_per_direction=10000",
                                     "loss.bends=1000000000000"])
def test_counts_that_would_run_away_are_refused_at_once(cli, setting):
    cli("budget", "--set", "laser.lines=8")  # what a first run imports is not timed
    start = time.perf_counter()
    code, _, err = cli("budget", "--set", setting)
    assert code == 2 and "out of range" in one_error_line(err)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("gpus", ["100000000", "1e12"])
def test_gpus_beyond_the_documented_bound_are_refused(cli, gpus):
    code, _, err = cli("fabric", "--set", f"fabric.gpus={gpus}")
    assert code == 2 and "[fabric] gpus" in one_error_line(err) and "≤ 1048576" in err


def test_frontier_scale_gpus_are_allowed(cli):
    code, out, _ = cli("check", "--set", "fabric.gpus=131072", "-f", "json")
    assert code == 0 and json.loads(out)["feasible"] is True


def test_a_traffic_pattern_at_scale_is_allocated_on_flows_not_dense_matrices(cli):
    # 32768 GPUs as N × N matrices would be 8.6 GB; the pattern's flows are a few per GPU
    code, out, err = cli("fabric", "--set", "fabric.gpus=32768", "--pattern", "training", "-f", "json")
    traffic = json.loads(out)["traffic"]
    assert code == 0 and err == ""
    assert 32768 < traffic["pairs"] < 10 * 32768 and traffic["unserved_pairs"] == 0


# --- tracebacks -------------------------------------------------------------------------------------------------
def test_a_5000_digit_integer_in_a_file_is_one_line_exit_2(cli, tmp_path):
    path = write(tmp_path, "[fabric]\ngpus = " + "7" * 5000 + "\n")
    code, _, err = cli("check", path)
    assert code == 2 and path in one_error_line(err) and "4300 digits" in err


def test_a_4000_digit_integer_in_a_file_is_out_of_range(cli, tmp_path):
    path = write(tmp_path, "[fabric]\ngpus = " + "7" * 4000 + "\n")
    code, _, err = cli("check", path)
    assert code == 2 and "[fabric] gpus = a 4000-digit number" in one_error_line(err) and len(err) < 300


def test_a_5000_digit_integer_in_set_is_one_line_exit_2(cli):
    code, _, err = cli("check", "--set", "fabric.gpus=" + "7" * 5000)
    assert code == 2 and "fabric.gpus" in one_error_line(err) and len(err) < 300


def test_set_into_a_key_that_is_not_a_section_is_one_line_exit_2(cli, tmp_path):
    path = write(tmp_path, "link = 5\n")
    code, _, err = cli("budget", path, "--set", "link.data_rate=1")
    assert code == 2 and path in one_error_line(err) and "'link' must be a [section] table" in err


def test_deeply_nested_toml_is_one_line_exit_2(cli, tmp_path):
    path = write(tmp_path, "[link]\ndata_rate = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = cli("budget", path)
    assert code == 2 and "nested too deeply" in one_error_line(err)


def test_output_into_a_read_only_folder_is_one_line_exit_2(cli, tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if os.geteuid() == 0:  # root writes anywhere: make the folder refuse as it would refuse a user
        import tempfile

        def refuse(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(tempfile, "mkstemp", refuse)
    code, _, err = cli("check", "-o", str(folder / "out.txt"))
    folder.chmod(stat.S_IRWXU)
    assert code == 2 and "cannot write (Permission denied)" in one_error_line(err)
    assert list(folder.iterdir()) == []


def test_out_of_memory_is_one_line_exit_70(cli, monkeypatch):
    import fabric.evaluate

    def exhausted(design, link=None):
        raise MemoryError

    monkeypatch.setattr(fabric.evaluate, "evaluate_fabric", exhausted)
    code, out, err = cli("fabric")
    assert code == 70 and out == ""
    assert err.count("\n") == 1 and "out of memory while evaluating the fabric of sip-ring" in err


def test_an_unexpected_error_is_one_line_exit_70_and_debug_shows_the_traceback(cli, monkeypatch):
    import fabric.evaluate

    def broken(design, link=None):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(fabric.evaluate, "evaluate_fabric", broken)
    code, _, err = cli("check", "dgx-a100")
    assert code == 70 and err.count("\n") == 1 and "Traceback" not in err
    assert "internal error while evaluating the fabric of dgx-a100: ZeroDivisionError" in err and "report" in err
    code, _, err = cli("check", "dgx-a100", "--debug")
    assert code == 70 and "Traceback" in err and err.rstrip().splitlines()[-1].startswith("sipml: internal error")


def test_a_recursion_error_is_one_line_exit_70(cli, monkeypatch):
    import fabric.evaluate

    def deep(design, link=None):
        return deep(design)

    monkeypatch.setattr(fabric.evaluate, "evaluate_fabric", deep)
    code, _, err = cli("check")
    assert code == 70 and err.count("\n") == 1 and "RecursionError" in err


def test_usage_errors_are_one_line_exit_2(cli):
    code, _, err = cli("check", "--no-such-option")
    assert code == 2 and "No such option" in one_error_line(err) and "sipml check --help" in err


# --- promises the README makes ----------------------------------------------------------------------------------
def test_optical_keys_of_an_electrical_design_are_refused_all_at_once(cli):
    code, _, err = cli("check", "dgx-h100", "--set", "link.data_rate=50 Gbit/s", "--set",
                       "ring.radius=1 mm")
    assert code == 2 and "dgx-h100" in one_error_line(err)
    assert "[link] (data_rate)" in err and "[ring] (radius)" in err and "kind = 'sip-ring' or 'sip-ocs'" in err


def test_every_key_without_effect_is_reported_at_once(cli, tmp_path):
    path = write(tmp_path, '[receiver]\nsensitivity = "-12 dBm"\nnoise_density = "10 pA/Hz**0.5"\n'
                           '[laser]\nkind = "dfb"\nflatness = "1 dB"\n[sip_ocs]\nswitches = 4\n')
    code, _, err = cli("check", path)
    assert code == 2 and "4 settings have no effect" in one_error_line(err)
    for key in ("[receiver] sensitivity", "[receiver] noise_density", "[laser] flatness", "[sip_ocs] (switches)"):
        assert key in err


def test_cost_set_without_effect_in_a_compared_design_is_refused(cli):
    code, out, err = cli("cost", "sip-ring", "dgx-a100", "ideal", "--set", "link.data_rate=50 Gbit/s")
    assert code == 2 and out == ""
    assert "dgx-a100 (with --set)" in one_error_line(err) and "ideal (with --set)" in err
    assert "sip-ring" not in err.split(":")[1]  # the SiP design takes the key
    assert cli("cost", "sip-ring", "sip-ocs", "--set", "link.data_rate=50 Gbit/s")[0] == 0


def _verdicts(cli, design):
    check = cli("check", design)[0]
    fab = cli("fabric", design)[0]
    code, out, _ = cli("cost", design, "-f", "json")
    assert code == 0
    return check, fab, json.loads(out)["designs"][0]["feasible"]


@pytest.mark.parametrize("design", [*BUILTINS, "<empty file>", "<link only>"])
def test_check_fabric_and_cost_give_one_verdict(cli, tmp_path, design):
    if design == "<empty file>":
        design = write(tmp_path, "")
    elif design == "<link only>":
        design = write(tmp_path, "[link]\nwavelengths_per_fiber = 8\n")
    check, fab, feasible = _verdicts(cli, design)
    assert check in (0, 1) and check == fab == (0 if feasible else 1)


def test_a_feasible_link_in_an_infeasible_default_fabric_gets_one_verdict(cli, tmp_path):
    # the built-in sip-ring's link without its [fabric] and [sip_ring]: the link closes, but the default fabric's
    # unamplified ring does not reach SiP-ML's locality, and every command says so
    import tomllib

    from sipml.design_files import builtin_designs

    data = tomllib.loads(builtin_designs()["sip-ring"].read_text())
    text = "".join(f"[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())
                   for name, values in data.items() if name not in ("fabric", "sip_ring"))
    design = write(tmp_path, text)
    assert json.loads(cli("budget", design, "-f", "json")[1])["feasible"] is True
    check, fab, feasible = _verdicts(cli, design)
    assert feasible is False and check == fab == 1


def test_an_empty_file_is_the_library_defaults():
    import tempfile
    from pathlib import Path

    from fabric.cluster_design import ClusterDesign

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "empty.toml"
        path.write_text("")
        assert load_design(str(path)) == ClusterDesign()
    assert load_design(None) == load_design("sip-ring") != ClusterDesign()


def test_fields_shows_the_library_default_and_the_builtin_value_labelled(cli):
    code, out, _ = cli("fields", "-f", "json")
    ring = json.loads(out)["ring"]["radius"]
    assert code == 0 and ring["default"] == "3 um" and ring["sip_ring"] == "7.45 µm"
    fields = json.loads(out)
    assert fields["laser"]["lines"]["default"] == "16" and fields["laser"]["lines"]["sip_ring"] == "8"
    assert fields["loss"]["fiber_length"]["sip_ring"] == "2 m"
    assert fields["sip_ring"]["amplifier_every"]["default"] == "0"
    assert fields["sip_ring"]["amplifier_every"]["sip_ring"] == "1"
    assert fields["receiver"]["sensitivity"]["applies_when"] == "[receiver] model = 'given'"
    _, table, _ = cli("fields")
    assert "sip-ring" in table.splitlines()[1] and "default" in table.splitlines()[1]
    assert "used when no DESIGN is named" in table


@pytest.mark.parametrize("design", BUILTINS)
def test_init_writes_any_builtin_as_valid_toml_that_loads_back(cli, tmp_path, design):
    target = tmp_path / "mine.toml"
    assert cli("init", str(target), design)[0] == 0
    text = target.read_text(encoding="utf-8")
    tomllib.loads(text)
    assert load_design(str(target)) == load_design(design)
    optional = [i for i, line in enumerate(text.splitlines()) if re.match(r"# \w+ = ", line)]
    lines = text.splitlines()
    for i in optional:  # uncommenting an optional line gives valid TOML
        tomllib.loads("\n".join([*lines[:i], lines[i][2:], *lines[i + 1:]]))


def test_init_optional_line_uncommented_takes_effect_when_its_condition_holds(cli, tmp_path):
    target = tmp_path / "mine.toml"
    cli("init", str(target))
    text = target.read_text(encoding="utf-8")
    text = text.replace('model = "ge-photodiode"', 'model = "given"').replace('# sensitivity = ', 'sensitivity = ')
    target.write_text(text, encoding="utf-8")
    code, _, err = cli("check", str(target))  # the photodiode's dark current now has no effect: said
    assert code == 2 and "[receiver] dark_current has no effect here" in one_error_line(err)
    target.write_text(text.replace("dark_current = ", "# dark_current = "), encoding="utf-8")
    design = load_design(str(target))
    assert design.link.receiver.model == "given" and design.link.receiver.sensitivity == pytest.approx(
        10 ** -0.97 * 1e-3)


def test_init_to_stdout(cli):
    code, out, _ = cli("init", "-", "dgx-a100")
    assert code == 0 and tomllib.loads(out)["fabric"]["kind"] == "electrical" and "\n[link]" not in out


def test_job_gpus_above_gpus_is_refused(cli):
    code, _, err = cli("fabric", "--set", "fabric.job_gpus=2048")
    assert code == 2 and "[fabric] job_gpus = 2048 is above gpus = 1024" in one_error_line(err)


def test_temperature_outside_its_operating_range_is_refused(cli):
    code, _, err = cli("check", "--set", "tuning.strategy=full-thermal", "--set", "tuning.temperature=400 K")
    assert code == 2 and "[tuning] temperature = 400 K is above t_max = 380 K" in one_error_line(err)


@pytest.mark.parametrize("command", ["check", "fabric", "cost"])
def test_an_unknown_catalog_entry_is_refused_naming_the_key(cli, command):
    code, _, err = cli(command, "sip-ring", "--set", "fabric.gpu=gpu.b200")
    assert code == 2 and "[fabric] gpu = 'gpu.b200': no catalog entry" in one_error_line(err)
    assert "components.toml" in err


def test_a_catalog_entry_added_by_a_user_file_is_known_to_check(cli, tmp_path):
    extra = write(tmp_path, '[gpu.b200]\ndescription = "B200"\nunit = "GPU"\nrole = "compute"\nprice_low = '
                            '"30000 USD"\nprice_typical = "35000 USD"\nprice_high = "40000 USD"\npower = "1000 W"\n'
                            'source = "quote"\ndate = "2025"\ntag = "[assumed]"\nnotes = "[assumed] a quote"\n',
                  "extra.toml")
    assert cli("check", "--set", "fabric.gpu=gpu.b200", "--catalog", extra)[0] == 0
    code, _, err = cli("cost", "--set", "fabric.gpu=gpu.b200", "--catalog", extra)  # pricing needs its server
    refusal = err.splitlines()[-1]  # after the catalog's "adds [gpu.b200]" line
    assert code == 2 and refusal.startswith("sipml: error:") and "host = 'gpu': gpu.b200 ships in no server" in refusal
    assert cli("cost", "--set", "fabric.gpu=gpu.b200", "--set", "fabric.host=server.dgx_h100_host", "--catalog",
               extra)[0] == 0


# --- outputs ----------------------------------------------------------------------------------------------------
def test_sigterm_during_an_output_write_leaves_no_temporary_file(cli, tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    real_fsync = os.fsync

    def terminated_while_writing(fd):
        os.kill(os.getpid(), signal.SIGTERM)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", terminated_while_writing)
    code, _, err = cli("check", "-f", "json", "-o", str(target))
    assert code == 143 and err == "sipml: terminated\n"
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL or callable(signal.getsignal(signal.SIGTERM))


def test_output_dash_is_stdout(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("check", "-f", "json", "-o", "-")
    assert code == 0 and json.loads(out)["feasible"] is True and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["symlink", "fifo", "device"])
def test_non_regular_output_targets_are_refused(cli, tmp_path, kind):
    if kind == "symlink":
        real = tmp_path / "real.txt"
        real.write_text("keep")
        target = tmp_path / "link.txt"
        target.symlink_to(real)
    elif kind == "fifo":
        target = tmp_path / "fifo"
        os.mkfifo(target)
    else:
        target = "/dev/null"
    code, _, err = cli("check", "-o", str(target))
    assert code == 2 and "refusing to replace it" in one_error_line(err)
    if kind == "symlink":
        assert target.is_symlink() and (tmp_path / "real.txt").read_text() == "keep"


def test_csv_booleans_are_true_and_false(cli):
    _, out, _ = cli("check", "-f", "csv")
    values = dict(zip(*csv.reader(io.StringIO(out))))  # one row per design: header, values
    assert values["feasible"] == "true"
    _, out, _ = cli("check", "-f", "csv", "--set", "link.wavelengths_per_fiber=24")
    assert dict(zip(*csv.reader(io.StringIO(out))))["feasible"] == "false"
    _, out, _ = cli("check", "-f", "csv-long")  # the JSON's key,value rows
    assert dict(list(csv.reader(io.StringIO(out)))[1:])["feasible"] == "true"


def test_no_negative_zero_in_tables_or_json(cli):
    _, out, _ = cli("budget")
    assert "-0.00" not in out and "crossings" in out
    _, out, _ = cli("budget", "-f", "json")
    assert "-0.0," not in out and "-0.0\n" not in out


def test_counts_are_integers_in_tables(cli):
    _, out, _ = cli("fabric")
    assert re.search(r"^amplifiers\s+10240\s", out, re.MULTILINE) and "e+0" not in out
    _, out, _ = cli("cost", "sip-ring")
    assert "e+0" not in out


def test_version(cli):
    """`--version` prints the package's version, the one pyproject.toml installs (and the README's changelog names
    first)."""
    import tomllib
    from pathlib import Path

    from sipml import __version__

    code, out, _ = cli("--version")
    assert code == 0 and out == f"sipml {__version__}\n"
    root = Path(__file__).resolve().parents[2]
    assert tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"] == __version__
    changelog = (root / "README.md").read_text(encoding="utf-8").split("## Changelog", 1)[1]
    assert changelog.lstrip().startswith(f"- {__version__} ")


def test_shell_completion_is_advertised_in_help(cli):
    code, out, _ = cli("--help")
    assert code == 0 and "--install-completion" in out and "--show-completion" in out


@pytest.mark.parametrize("command", ["budget", "check", "fabric", "cost", "fields", "init", "explain"])
def test_help_has_no_python_type_names(cli, command):
    code, out, _ = cli(command, "--help")
    assert code == 0 and not re.search(r"<(list|str|int|float|Path|path)\b", out), out


def test_no_arguments_prints_the_help_and_exits_2(cli):
    """A command line without a command is bad usage (click 8.2's no_args_is_help says so too); `--help` is 0."""
    code, out, _ = cli()
    assert code == 2 and "Commands" in out and "budget" in out
    code, out, _ = cli("--help")
    assert code == 0 and "Commands" in out


def test_a_warning_is_one_line_without_its_source_line(cli, monkeypatch):
    import warnings

    import numpy as np

    import fabric.evaluate

    evaluate = fabric.evaluate.evaluate_fabric

    def overflowing(design, link=None):
        np.float64(1e308) * 10
        return evaluate(design, link)

    monkeypatch.setattr(fabric.evaluate, "evaluate_fabric", overflowing)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        code, _, err = cli("check")
    assert code == 0 and err.count("\n") == 1
    assert err.startswith("sipml: warning: RuntimeWarning: overflow") and "while evaluating the fabric" in err


def test_every_unknown_section_and_key_is_reported_at_once(cli, tmp_path):
    path = write(tmp_path, '[link]\ndata_rat = "25 Gbit/s"\nwavelenghts_per_fiber = 8\n[rng]\nradius = "5 um"\n')
    code, _, err = cli("check", path)
    line = one_error_line(err)
    assert code == 2 and "3 unknown names" in line
    for fragment in ("did you mean 'data_rate'", "did you mean 'wavelengths_per_fiber'", "unknown section [rng]"):
        assert fragment in line


def test_fields_can_show_one_section(cli):
    code, out, _ = cli("fields", "sip_ocs", "-f", "json")
    assert code == 0 and list(json.loads(out)) == ["sip_ocs"]
    code, _, err = cli("fields", "rng")
    assert code == 2 and "did you mean 'ring'" in one_error_line(err)
    code, _, err = cli("fields", "optical_io")  # documented, but not a section of fields: what it holds is said
    assert code == 2 and "[optical_io] has one key, design = NAME" in one_error_line(err)
