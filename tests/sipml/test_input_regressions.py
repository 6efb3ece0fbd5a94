"""Bad input on the newer surface (sweep, optimize, explain, speedup, model files, the Python API): one test per
reported failure, named for it, and fuzzers that try the rule in general. Bad input is exit 2 with one line naming
what was wrong; exit 70 is kept for bugs; nothing is written before the input is known to be good."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sipml
from core.errors import InputError
from tests.sipml.cli_run import refused, run

FUZZ = settings(max_examples=int(os.environ.get("SIPML_FUZZ_EXAMPLES", "60")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# 1. a sweep's size is bounded before any work
def test_a_sweep_of_a_billion_values_on_one_axis_is_refused_at_once(capsys):
    refused(capsys, "sweep", "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:1000000000", "-o", "-",
            fragment="values on one axis")


def test_a_count_of_ten_to_the_thirty_is_refused_not_an_internal_error(capsys):
    refused(capsys, "sweep", "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:" + "1" + "0" * 30, "-o", "-")


def test_a_grid_whose_product_is_too_large_names_the_axes_and_the_limit(capsys):
    err = refused(capsys, "sweep", "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:1000", "--vary",
                  "loss.fiber_length=1 m:2 m:1000", "-o", "-", fragment="1,000,000 points")
    assert "link.data_rate" in err and "loss.fiber_length" in err and "200,000" in err


def test_optimize_refuses_a_huge_grid_before_enumerating_it(capsys):
    refused(capsys, "optimize", "--maximize", "margin_db", *(x for k in ("link.data_rate=10 Gbit/s:20 Gbit/s:100000",
            "loss.fiber_length=1 m:2 m:100000") for x in ("--vary", k)), fragment="points")


# 2. exit 70 never for input
@pytest.mark.parametrize("address, fragment", [("foo://x", "SCHEME://HOST:PORT"), ("tcp://host", "HOST:PORT"),
                                               ("tcp://h:0", "HOST:PORT"), ("127.0.0.1:8786", "SCHEME")])
def test_a_scheduler_address_no_scheduler_can_have_is_refused_at_once(capsys, address, fragment):
    refused(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--scheduler", address, "-o", "-",
            fragment=fragment)


def test_a_model_file_with_a_4000_digit_count_is_exit_2_with_the_number_summarised(capsys, tmp_path):
    text = (Path(__file__).resolve().parents[2] / "workloads" / "zoo" / "gpt2-355m.toml").read_text()
    path = tmp_path / "m.toml"
    path.write_text(re.sub(r"vocab = .*", "vocab = " + "9" * 4000, text))
    err = refused(capsys, "speedup", "sip-ocs", "-m", str(path), fragment="vocab")
    assert len(err) < 300


def test_a_4000_digit_count_in_a_design_file_is_exit_2(capsys, tmp_path):
    path = tmp_path / "d.toml"
    path.write_text("[link]\nwavelengths_per_fiber = " + "9" * 4000 + "\n")
    refused(capsys, "check", str(path), fragment="wavelengths_per_fiber")


# 3. absurd values
@pytest.mark.parametrize("tokens", ["-1", "0", "nan", "1e400", "inf"])
def test_speedup_tokens_must_be_positive_and_finite(capsys, tokens):
    refused(capsys, "speedup", "sip-ocs", "-m", "gpt2-355m", "--tokens", tokens, fragment="--tokens")


def test_a_rin_of_plus_inf_is_refused_while_minus_inf_means_none(capsys):
    refused(capsys, "check", "--set", "laser.rin=inf dB/Hz", fragment="rin")
    code, _, _ = run(capsys, "check", "--set", "laser.rin=-inf dB/Hz")
    assert code in (0, 1)


def test_a_constraint_bound_beyond_float_range_is_refused(capsys):
    refused(capsys, "optimize", "--vary", "link.wavelengths_per_fiber=4,8", "--maximize", "margin_db",
            "--subject-to", "margin_db>=1e400", fragment="finite")


# 4. contradictions and no-ops
def test_a_strategy_key_given_twice_is_refused(capsys):
    refused(capsys, "speedup", "sip-ocs", "-m", "gpt2-355m", "--strategy", "tp=8,tp=4", fragment="twice")


def test_a_sweep_axis_without_effect_is_refused_as_the_same_set_is(capsys):
    """Refused as a --set of the key is, saying the value came from --vary (and --set, where one was given)."""
    refused(capsys, "sweep", "dgx-h100", "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:2", "-o", "-",
            fragment="dgx-h100 (with --vary): section [link] (data_rate) does not apply")
    refused(capsys, "sweep", "dgx-h100", "--set", "fabric.gpus=512", "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:2",
            "-o", "-", fragment="dgx-h100 (with --set and --vary): section [link] (data_rate) does not apply")
    refused(capsys, "sweep", "--vary", "receiver.noise_density=1 pA/Hz**0.5:2 pA/Hz**0.5:2", "-o", "-")


def test_an_empty_item_in_a_value_list_is_refused(capsys):
    refused(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=4,,8", "-o", "-", fragment="empty value")


# 5. input files that are not regular files
@pytest.mark.parametrize("argv", [["check", "{f}"], ["speedup", "sip-ocs", "-m", "{f}"],
                                  ["cost", "sip-ring", "--catalog", "{f}"]])
def test_a_fifo_as_an_input_file_is_refused_without_waiting(capsys, tmp_path, argv):
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    err = refused(capsys, *(a.format(f=fifo) for a in argv), fragment="not a regular file")
    assert f"{fifo}: not a regular file" in err and err.count(str(fifo)) == 1  # once, as written (no repr around)


def test_a_report_or_speedup_design_the_fabric_refuses_is_named(capsys, tmp_path):
    """`report --design FILE` and `speedup FILE` with a point-to-point link design: refused naming the file, as
    `fabric FILE` is."""
    link = tmp_path / "p2p.toml"
    link.write_text('[link]\nkind = "point-to-point"\n')
    refused(capsys, "report", "--design", str(link), "-o", str(tmp_path / "r.txt"),
            fragment=f"{link}: [fabric] kind = 'sip-ring' is built from ring-wdm chiplets")
    assert not (tmp_path / "r.txt").exists()
    refused(capsys, "speedup", str(link), "-m", "gpt2-355m",
            fragment=f"{link}: [fabric] kind = 'sip-ring' is built from ring-wdm chiplets")


# 6. outputs checked before any work
def test_a_symlinked_plot_file_is_refused_before_the_csv_is_written(capsys, tmp_path):
    (tmp_path / "link.png").symlink_to(tmp_path / "nowhere")
    out = tmp_path / "rows.csv"
    refused(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-o", str(out), "--plot",
            "link.wavelengths_per_fiber,margin_db [dB]", "--plot-file", str(tmp_path / "link.png"),
            fragment="symbolic link")
    assert not out.exists()


def test_every_command_checks_its_output_before_working(capsys, tmp_path):
    (tmp_path / "x.json").symlink_to(tmp_path / "nowhere")
    for command in (["budget"], ["fabric"], ["speedup", "sip-ocs", "-m", "gpt2-355m"], ["explain", "margin_db"]):
        refused(capsys, *command, "-o", str(tmp_path / "x.json"), fragment="-o")


# 7. the Python API
@pytest.mark.parametrize("call", [
    lambda: sipml.cost([]), lambda: sipml.load_design(5), lambda: sipml.fabric(5), lambda: sipml.sweep("sip-ring", None),
    lambda: sipml.load_design("sip-ring", [list]), lambda: sipml.speedup([]),
    lambda: sipml.sweep("sip-ring", "link.data_rate=10 Gbit/s:20 Gbit/s:10000000000000"),
    lambda: sipml.budget(object()), lambda: sipml.speedup("sip-ocs", gpus=2.5), lambda: sipml.sweep(vary=[3]),
    lambda: sipml.load_design("sip-ring", {5: 1}), lambda: sipml.cost("sip-ring", catalog_files=[5]),
])
def test_the_api_raises_input_error_for_wrong_types_and_values(call):
    with pytest.raises(InputError):
        call()


def test_a_numpy_integer_is_a_count():
    design = sipml.load_design("sip-ring", {"link.wavelengths_per_fiber": np.int64(4)})
    assert design.link.link.wavelengths_per_fiber == 4


def test_a_float_of_a_whole_value_is_a_count_as_design_changes_take_it():
    """`speedup(gpus=512.0)` was refused where `changes={"fabric.gpus": np.float64(512.0)}` was read; 2.5 is not a
    count, nor a text."""
    assert sipml.speedup("sip-ring", "resnet-50", gpus=np.float64(512.0)).to_dict() == \
        sipml.speedup("sip-ring", "resnet-50", gpus=512).to_dict()
    for bad in (2.5, "512", float("nan")):
        with pytest.raises(InputError, match="expected a whole number"):
            sipml.speedup("sip-ring", "resnet-50", gpus=bad)


# 8. errors name the design
def test_explain_of_a_link_quantity_on_an_electrical_fabric_names_the_design(capsys):
    refused(capsys, "explain", "margin_db", "dgx-h100", fragment="dgx-h100")


def test_explain_of_a_quantity_the_design_does_not_have_is_refused_not_nan(capsys):
    refused(capsys, "explain", "optical_reach", "dgx-h100", fragment="not defined")


def test_explain_of_a_point_to_point_file_names_it(capsys, tmp_path):
    path = tmp_path / "p2p.toml"
    path.write_text('[link]\nkind = "point-to-point"\n[laser]\nkind = "dfb"\n')
    refused(capsys, "explain", "optical_reach", str(path), fragment=str(path))


def test_a_strategy_value_out_of_range_names_the_option(capsys):
    refused(capsys, "speedup", "sip-ocs", "-m", "gpt2-355m", "--strategy", "zero=7", fragment="--strategy")


# 9. the byte-order mark
def test_a_utf8_byte_order_mark_is_ignored_as_documented(capsys, tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf[link]\nwavelengths_per_fiber = 4\n")
    code, _, _ = run(capsys, "check", str(path))
    assert code in (0, 1)


# the rule in general ------------------------------------------------------------------------------------------
SWEEP_ITEM = st.one_of(
    st.builds(lambda a, b, n: f"link.wavelengths_per_fiber={a}:{b}:{n}", st.integers(-5, 40), st.integers(-5, 40),
              st.one_of(st.integers(-3, 50), st.just(10 ** 40))),
    st.builds(lambda xs: "link.data_rate=" + ",".join(xs), st.lists(st.sampled_from(
        ["10 Gbit/s", "", "25", "nan Gbit/s", "1e400 Gbit/s", "-5 Gbit/s", "25 Gbit/s", "x"]), max_size=4)),
    st.sampled_from(["nosuch.key=1,2", "link=1", "link.kind=ring-wdm,point-to-point", "fabric.gpus=8:4096:3:log",
                     "laser.power_per_line=0 dBm:10 dBm:3", "ring.filter_q=3000:30000:0"]),
)


@FUZZ
@given(items=st.lists(SWEEP_ITEM, min_size=0, max_size=3), extra=st.sampled_from(
    [[], ["--link-only"], ["--model", "gpt2-355m"], ["--scheduler", "nope"], ["--workers", "0"]]))
def test_fuzzed_sweeps_are_exit_0_or_2_never_a_traceback(capsys, items, extra):
    argv = ["sweep", *(x for item in items for x in ("--vary", item)), *extra, "-o", "-"]
    code, _, err = run(capsys, *argv)
    assert code in (0, 2), (argv, err)
    assert "internal error" not in err and "Traceback" not in err


@FUZZ
@given(objective=st.sampled_from(["margin_db", "target_ber", "nosuch", "speedup"]),
       bound=st.sampled_from(["1", "-1e300", "1e400", "nan", "x", ""]), op=st.sampled_from([">=", "<", "=", "=>"]))
def test_fuzzed_optimize_constraints(capsys, objective, bound, op):
    code, _, err = run(capsys, "optimize", "--vary", "link.wavelengths_per_fiber=4,8", "--maximize", "margin_db",
                       "--subject-to", f"{objective}{op}{bound}")
    assert code in (0, 1, 2) and "internal error" not in err


@FUZZ
@given(tokens=st.one_of(st.floats(), st.sampled_from(["x", "1e400", "-0"])), gpus=st.sampled_from(
    ["1", "2", "0", "-4", "1e3", "1048576"]), strategy=st.sampled_from(["", "tp=8", "tp=8,tp=4", "zero=7", "foo=1",
                                                                        "stack=nosuch", "tp=x", "precision=fp8"]))
def test_fuzzed_speedup_options(capsys, tokens, gpus, strategy):
    argv = ["speedup", "sip-ocs", "-m", "gpt2-355m", "--tokens", str(tokens), "--gpus", gpus,
            *(["--strategy", strategy] if strategy else [])]
    code, _, err = run(capsys, *argv)
    assert code in (0, 2), (argv, err)
    assert "internal error" not in err


WRONG = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=8), st.lists(st.integers(), max_size=2),
                  st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.just(object()),
                  st.just(np.int64(3)), st.just(b"sip-ring"), st.just(math.nan))


@FUZZ
@given(function=st.sampled_from(["load_design", "budget", "fabric", "cost", "evaluate"]), arg=WRONG, arg2=WRONG)
def test_fuzzed_api_arguments_raise_input_error_or_nothing(function, arg, arg2):
    try:
        getattr(sipml, function)(arg, arg2) if function in ("load_design", "cost", "evaluate") else \
            getattr(sipml, function)(arg)
    except InputError:
        pass


@FUZZ
@given(designs=WRONG, model=WRONG, gpus=WRONG, tokens=WRONG)
def test_fuzzed_speedup_api_arguments(designs, model, gpus, tokens):
    try:
        sipml.speedup(designs, model, gpus=gpus, tokens=tokens)
    except InputError:
        pass


@FUZZ
@given(vary=WRONG, model=WRONG, workers=WRONG, link_only=WRONG)
def test_fuzzed_sweep_api_arguments(vary, model, workers, link_only):
    try:
        sipml.sweep("sip-ring", vary, model=model, workers=workers, link_only=link_only)
    except InputError:
        pass


# 7. an empty path or name is refused, not read as the working folder
@pytest.mark.parametrize("argv", [("report", "--plots", ""), ("report", "--plots="), ("budget", "-o", " "),
                                  ("fabric", "--catalog", ""), ("speedup", "sip-ring", "-m", "gpt2-355m",
                                                                "--gpu-file", ""),
                                  ("sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-o", "rows.csv", "--plot",
                                   "margin_db", "--plot-file", "")])
def test_an_empty_path_is_refused_and_nothing_is_written_in_the_working_folder(capsys, tmp_path, monkeypatch, argv):
    """pathlib reads '' as '.': `report --plots ''` filled the working folder with figures, `-o ''` was refused
    as 'is a directory' naming '.'."""
    monkeypatch.chdir(tmp_path)
    refused(capsys, *argv, fragment="an empty path")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["fabric", "speedup", "mix"])
def test_an_empty_design_name_is_refused_as_empty(capsys, command):
    refused(capsys, command, "", fragment="'': an empty design name; built-in: ")


@pytest.mark.parametrize("argv, fragment", [(("init", ""), "'': an empty path"),
                                            (("init", "--force", ""), "'': an empty path"),
                                            (("speedup", "sip-ring", "-m", ""), "'': an empty model name; zoo: "),
                                            (("mix", "sip-ring", "-j", ""), "'': an empty mix name; built-in: "),
                                            (("sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-o", "s.json"),
                                             "a sweep writes JSON as JSON lines")])
def test_an_empty_model_mix_or_init_file_is_refused_not_read_as_a_folder(capsys, tmp_path, monkeypatch, argv,
                                                                          fragment):
    """`init ''` and `-m ''` named '.', `mix -j ''` ran the default mix; a sweep's `.json` said only 'not a sweep
    format' where the help names .json."""
    monkeypatch.chdir(tmp_path)
    refused(capsys, *argv, fragment=fragment)
    assert list(tmp_path.iterdir()) == []



@pytest.mark.parametrize("argv", [("budget", "--set", "laser.power_per_line=1e30 dBm"),
                                  ("sweep", "--link-only", "--vary", "laser.power_per_line=1e30 dBm,3 dBm", "-o", "-")])
def test_a_power_in_dbm_beyond_a_float_is_refused_in_one_line_as_such(capsys, argv):
    """1e30 dBm overflowed to inf W: numpy's overflow warning printed, then 'got an infinite value' for a finite
    input."""
    refused(capsys, *argv, fragment="beyond any power a number holds")


@pytest.mark.parametrize("size, fragment", [("1 b", "0.125 byte is out of range, expected ≥ 1 byte"),
                                            ("1e30 B", "1e+30 byte is out of range"), ("0 B", "out of range")])
def test_a_message_size_is_bounded_as_the_designs(capsys, size, fragment):
    """`fabric --message-size '1 b'` ran as '125 mB per rank', '1e30 B' as an all-reduce of 1e21 ms: the option reads
    as `[fabric] message_size` does (a byte to a petabyte)."""
    refused(capsys, "fabric", "--message-size", size, fragment=fragment)
    refused(capsys, "fabric", "--set", f"fabric.message_size={size}", fragment=fragment)


def test_init_into_a_folder_says_it_is_a_folder_not_to_use_force(capsys, tmp_path):
    """`init adir` said 'already exists (use --force to overwrite)', and with --force 'is a directory'."""
    for force in ((), ("--force",)):
        refused(capsys, "init", str(tmp_path), *force, fragment="is a directory, expected a file name")


def test_a_key_set_twice_is_refused_not_silently_the_last(capsys):
    """`--set k=a --set k=b` kept b without a word, where --vary, --strategy and --groups refuse a repeat; a key
    scoped to one design (`sip-ring:k=…`) is another key."""
    refused(capsys, "budget", "--set", "link.data_rate=25 Gbit/s", "--set", "link.data_rate=50 Gbit/s",
            fragment="--set link.data_rate is given twice")
    code, _, err = run(capsys, "cost", "sip-ring", "sip-ocs", "--set", "sip-ring:fabric.gpus=512", "--set",
                       "fabric.gpus=512")
    assert code == 0, err


def test_report_with_a_design_that_cannot_be_built_shows_it_unpriced(capsys, tmp_path):
    """`report --design` of an infeasible design: its fabric row says NO with no prices ('–'; JSON null, as `cost`
    gives), not an internal error formatting a price that is not there."""
    import json

    path = tmp_path / "dim.toml"
    path.write_text('[laser]\npower_per_line = "0.1 mW"\n')
    code, out, err = run(capsys, "report", "--design", str(path), "-f", "json")
    assert code == 0, err
    mine = next(f for f in json.loads(out)["fabrics"] if f["design"] == str(path))
    assert mine["feasible"] is False and mine["network_cost_usd_per_gpu"] is None and mine["cluster_cost_usd"] is None


@pytest.mark.parametrize("name, start", [("b.json", '{\n  "design"'), ("b.csv", "design,feasible"),
                                         ("b.md", "### Summary"), ("b.html", "<!DOCTYPE html>"), ("b.txt", "Summary"),
                                         ("b.out", "Summary")])
def test_the_output_file_s_suffix_names_its_format(capsys, tmp_path, name, start):
    """`budget -o out.csv` wrote the terminal table into it; a suffix the formats do not know keeps the table."""
    code, _, err = run(capsys, "budget", "-o", str(tmp_path / name))
    assert code == 0, err
    assert (tmp_path / name).read_text().startswith(start)


def test_a_format_the_output_suffix_contradicts_is_refused_in_either_order(capsys, tmp_path):
    for argv in (("-f", "json", "-o", str(tmp_path / "b.csv")), ("-o", str(tmp_path / "b.csv"), "-f", "json")):
        refused(capsys, "budget", *argv, fragment="a .csv name, but --format json")
    assert not list(tmp_path.iterdir())
    code, _, _ = run(capsys, "budget", "-f", "csv-long", "-o", str(tmp_path / "long.csv"))
    assert code == 0 and (tmp_path / "long.csv").read_text().startswith("key,value")


def test_optimize_refuses_an_axis_varied_twice_as_sweep_does(capsys):
    refused(capsys, "optimize", "--maximize", "margin_db", "--vary", "laser.power_per_line=5mW,6mW", "--vary",
            "laser.power_per_line=7mW", fragment="--vary laser.power_per_line is given twice")



def test_a_design_scoped_set_on_a_one_design_command_says_where_it_applies(capsys):
    """`DESIGN:section.key=value` scopes a --set to one design of those compared; `budget` compares none, and its
    help no longer offers the form: the refusal says which commands take it (it read as an unknown section
    [sip-ring:link], 'did you mean sip_ring')."""
    refused(capsys, "budget", "--set", "sip-ring:link.data_rate=50 Gbit/s",
            fragment="DESIGN:section.key=value changes one design of those compared (cost, speedup, mix)")
    code, out, err = run(capsys, "budget", "--help")
    assert code == 0 and "DESIGN:section.key" not in out
    code, out, err = run(capsys, "cost", "--help")
    assert code == 0 and "DESIGN:section.key=value" in out


def test_a_sweep_over_a_named_choice_that_reads_like_a_length(capsys):
    """`--vary receiver.node=45nm,22nm`: the node is a name, not 45 nanometres; the sweep ran into an internal error
    giving it a second column 'as written' in nm."""
    code, out, err = run(capsys, "sweep", "--link-only", "--set", "receiver.energy_model=circuit", "--vary",
                         "receiver.node=45nm,22nm", "-o", "-")
    assert code == 0, err
    header, first, second = out.splitlines()[:3]
    assert header.split(",")[0] == "receiver.node" and "[nm]" not in header
    assert first.startswith("45nm,") and second.startswith("22nm,")


def test_a_refused_token_count_is_echoed_as_typed(capsys):
    """`--tokens 0` said '--tokens 0.0' (the option's float type); a whole number is shown whole."""
    refused(capsys, "speedup", "sip-ring", "--tokens", "0", fragment="--tokens 0: expected a whole count")
    refused(capsys, "speedup", "sip-ring", "--tokens", "1.5", fragment="--tokens 1.5: expected a whole count")


def test_a_checkpoint_interval_reads_in_its_own_unit(capsys):
    """GPT-2 355M's steps are tens of milliseconds, so Daly's interval is under a minute: the goodput table shows
    seconds ('29.6 s', it showed '0.493 min'; at 1/1 000 s steps '0.000558 min'); GPT-3 175B's reads in minutes."""
    from sipml.speedup_report import _interval_text

    assert (_interval_text(0.0335), _interval_text(29.6), _interval_text(329.4), _interval_text(7200.0)) == (
        "0.0335 s", "29.6 s", "5.49 min", "2 h")
    code, out, err = run(capsys, "speedup", "dgx-h100", "-m", "gpt2-355m")
    assert code == 0 and "checkpoint every" in out
    row = next(line for line in out.split("With interruptions")[1].splitlines() if line.startswith("dgx-h100"))
    assert " s " in row and " min " not in row
