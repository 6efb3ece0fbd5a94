"""Sweep figures as a reader needs them: units on the axes, in the unit the values were written in, log scales where
asked, numeric groups in numeric order (on a colour scale when there are many), infeasible points marked."""

import importlib.util

import pytest

from sipml.design_files import ALL_SECTIONS
from sipml.plotting import label, sweep_figure
from sipml.sweep_run import figure_spec, parse_axis, run_sweep

# found, not imported: matplotlib is imported by the tests that draw (sipml.plotting imports it when asked)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")


def rows(groups):
    return [{"laser.power_per_line [W]": p, "margin_db [dB]": 10 * p / 1e-3 - 5, "link.wavelengths_per_fiber": g,
             "link_feasible": p > 1e-3} for g in groups for p in (5e-4, 2e-3, 8e-3)]


def test_labels_carry_the_unit_once():
    assert label("margin_db [dB]") == "margin (dB)"
    assert label("network_cost_usd_per_gpu [USD]") == "network cost per GPU (USD)"
    assert label("link.wavelengths_per_fiber") == "link.wavelengths_per_fiber"


def test_numeric_groups_in_numeric_order_and_infeasible_points_marked():
    """Groups 1, 2, 10 (not 1, 10, 2 as text); points with a failed check drawn once, hollow, as 'infeasible'."""
    fig = sweep_figure(rows([10, 2, 1]), ["laser.power_per_line [W]", "margin_db [dB]", "link.wavelengths_per_fiber"])
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == [f"link.wavelengths_per_fiber = {g}" for g in (1, 2, 10)] + ["infeasible (a check fails)"]


def test_points_without_the_plotted_number_are_counted_and_marked_where_the_sweep_went():
    """A sweep's points with no y (a price of a design that cannot be built, a training no strategy runs) were left
    out unsaid, the x axis ending at the last drawn point: they are counted in the legend and marked on the x
    axis."""
    table = [{"x [GHz]": float(x), "y [USD]": (10.0 if x == 200 else None), "fabric_feasible": x == 200}
             for x in (100, 200, 300, 400)]
    from sipml.rows import Table

    fig = sweep_figure(Table.from_rows(table), ["x [GHz]", "y [USD]"])  # a sweep's rows, made anew at each pass
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["3 of 4 points have no y (USD) (marked on the x axis)"]
    lo, hi = ax.get_xlim()
    assert lo <= 100 and hi >= 400


def test_many_numeric_groups_go_on_a_colour_scale_and_log_axes_are_kept():
    """16 groups are more colours than a reader tells apart: one colour bar instead of a 16-entry legend; the
    ':log' range the user asked for keeps its log axis, and an axis written in mW is shown in mW."""
    vary = ["laser.power_per_line=0.5mW:16mW:3:log", "link.wavelengths_per_fiber=" + ",".join(map(str, range(1, 17)))]
    axis = parse_axis(vary[0], ALL_SECTIONS)
    assert axis.log and axis.written_unit == "mW" and axis.written_factor == pytest.approx(1e-3)
    _, table = run_sweep(None, None, vary, link_only=True)
    names, log, order = figure_spec(table, "laser.power_per_line,margin_db [dB],link.wavelengths_per_fiber", vary)
    assert names[0] == "laser.power_per_line [mW]" and "laser.power_per_line [mW]" in log
    as_named, _, _ = figure_spec(table, "laser.power_per_line [W],margin_db [dB]", vary)
    assert as_named[0] == "laser.power_per_line [W]"  # a unit the user names is kept
    fig = sweep_figure(list(table), names, log, order)
    ax = fig.axes[0]
    assert len(fig.axes) == 2  # the plot and its colour bar
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "laser.power_per_line (mW)"
    assert max(max(line.get_xdata()) for line in ax.get_lines() if len(line.get_xdata())) == pytest.approx(16.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["infeasible (a check fails); 24 more off the scale"]


def test_a_dbm_axis_is_shown_in_dbm():
    vary = ["laser.power_per_line=-3dBm:9dBm:3"]
    _, table = run_sweep(None, None, vary, link_only=True)
    names, log, order = figure_spec(table, "laser.power_per_line,margin_db [dB]", vary)
    fig = sweep_figure(list(table), names, log, order)
    ax = fig.axes[0]
    assert ax.get_xscale() == "linear" and ax.get_xlabel() == "laser.power_per_line (dBm)"
    xs = sorted(x for line in ax.get_lines() for x in line.get_xdata())
    assert xs == pytest.approx([-3.0, 3.0, 9.0], rel=1e-9)


def test_tables_fit_the_terminal_and_stay_plain_when_piped():
    """A table wider than the terminal wraps its widest columns; one with too many columns to wrap folds into one
    'column  value' block per row; with no width (piped) nothing changes."""
    from sipml.render import Report, Table, render

    long = "word " * 60
    narrow = Report({}, [Table("t", ["name", "text"], [{"name": "a", "text": long}])], ["footer " * 30])
    wrapped = render(narrow, "table", width=60)
    assert max(len(line) for line in wrapped.splitlines()) <= 60 and wrapped.count("word") == 60
    assert render(narrow, "table") == render(narrow, "table", width=None)
    assert max(len(line) for line in render(narrow, "table").splitlines()) > 250
    wide = Report({}, [Table("t", [f"column{i}" for i in range(12)], [{f"column{i}": long[:40] for i in range(12)}])])
    folded = render(wide, "table", width=80)
    assert max(len(line) for line in folded.splitlines()) <= 80
    assert "column11  word word" in folded


def test_shell_completion_offers_design_model_and_key_names():
    """Completion names the built-in designs, the zoo's models and the design-file keys of --set and --vary, not
    only the subcommands."""
    import os
    import subprocess
    import sys

    def complete(words, cword):
        env = {**os.environ, "_SIPML_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
        return subprocess.run([sys.executable, "-m", "sipml"], env=env, capture_output=True, text=True).stdout.split()

    assert {"sip-ring", "sip-ocs", "sip-ocs-384"} <= set(complete("sipml check sip-", 2))
    assert set(complete("sipml speedup -m gpt", 3)) == {"gpt2-355m", "gpt3-175b"}
    assert complete("sipml budget --set link.data", 3) == ["link.data_rate="]
    assert {"electrical.optics=", "electrical.optics_reach="} == set(complete("sipml sweep dsp-800g --vary "
                                                                              "electrical.optics", 4))


def test_sweep_takes_the_format_option_every_command_takes(capsys):
    from sipml.cli import main

    assert main(["sweep", "--vary", "laser.power_per_line=1mW,2mW", "-f", "jsonl", "--quiet"]) == 0
    assert capsys.readouterr().out.count("\n") == 2
    assert main(["sweep", "--vary", "laser.power_per_line=1mW,2mW", "--format", "xlsx", "--quiet"]) == 2
    assert "a sweep writes csv, jsonl (or json), parquet, table, markdown or html" in capsys.readouterr().err
    assert main(["sweep", "--vary", "laser.power_per_line=1mW,2mW", "-f", "json", "--quiet"]) == 0
    assert capsys.readouterr().out.count("\n") == 2  # json is the sweep's JSON lines
    assert main(["sweep", "--vary", "laser.power_per_line=1mW,2mW", "--plot-file", "x.png", "--quiet"]) == 2
    assert "give --plot" in capsys.readouterr().err
    assert main(["sweep", "--vary", "laser.power_per_line=-3dBm:10mW:5", "--link-only", "--quiet"]) == 2
    assert "in one unit" in capsys.readouterr().err


def test_a_sweeps_figure_says_how_it_was_made(capsys, tmp_path):
    """The PNG of `--plot` carries its title, the version, date and command line, as the report's figures do."""
    from PIL import Image

    from sipml import __version__
    from sipml.cli import main

    png = tmp_path / "m.png"
    assert main(["sweep", "--vary", "laser.power_per_line=1mW,2mW", "--link-only", "--plot",
                 "laser.power_per_line,margin_db", "--plot-file", str(png), "-o", str(tmp_path / "s.csv"),
                 "--quiet"]) == 0
    capsys.readouterr()
    with Image.open(png) as image:
        info = dict(image.info)
    assert info["Software"] == f"sipml {__version__}" and info["Title"].startswith("sweep: margin_db")
    assert info["Source"].startswith("sipml sweep") and "--plot-file" in info["Source"] and info["Creation Time"]


def test_a_training_sweeps_figure_names_the_design_the_model_and_the_speedups_baseline(capsys, tmp_path):
    """A speedup on an axis is a ratio to something: the figure says the model trained and the baseline (fattree-200
    on the same GPUs, as the sweep measures it), in its title and its metadata."""
    from PIL import Image

    from sipml.cli import main

    png = tmp_path / "t.png"
    assert main(["sweep", "cpo-800g", "--vary", "fabric.gpus=512,1024", "--model", "gpt2-355m", "--plot",
                 "fabric.gpus,speedup_per_dollar", "--plot-file", str(png), "-o", str(tmp_path / "t.csv"),
                 "--quiet"]) == 0
    capsys.readouterr()
    with Image.open(png) as image:
        title = dict(image.info)["Title"]
    assert title == ("sweep: speedup_per_dollar against fabric.gpus (cpo-800g, gpt2-355m; speedups over fattree-200 "
                     "on the same GPUs)")


def test_sweep_tables_show_the_axes_as_written_and_round(capsys, tmp_path):
    """CSV keeps the SI column and every digit, with the axis as written beside it; a table to read shows only the
    written unit and four significant digits."""
    from sipml.cli import main

    vary = ["--vary", "laser.power_per_line=-3dBm:9dBm:3", "--vary", "link.channel_spacing=100GHz,200GHz"]
    assert main(["sweep", *vary, "--link-only", "--quiet"]) == 0
    header, first, *_ = capsys.readouterr().out.splitlines()
    names = header.split(",")
    assert names[:4] == ["laser.power_per_line [W]", "laser.power_per_line [dBm]", "link.channel_spacing [Hz]",
                         "link.channel_spacing [GHz]"]
    cells = dict(zip(names, first.split(",")))
    assert cells["laser.power_per_line [dBm]"] == "-3.0" and cells["link.channel_spacing [GHz]"] == "100.0"
    assert float(cells["laser.power_per_line [W]"]) == pytest.approx(10 ** -0.3 * 1e-3, rel=1e-5)
    assert len(cells["margin_db [dB]"].split(".")[1]) > 6  # every digit
    assert main(["sweep", *vary, "--link-only", "--quiet", "-f", "table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:4] == ["laser.power_per_line", "[dBm]", "link.channel_spacing", "[GHz]"]
    assert "[W]" not in lines[1] and "[Hz]" not in lines[1] and "error" not in lines[1]
    margins = [line.split()[4] for line in lines[3:]]
    assert len(margins) == 6 and all(len(m.lstrip("-").replace(".", "").replace(",", "")) <= 4 for m in margins)
    assert [line.split()[0] for line in lines[3:]] == ["-3", "-3", "3", "3", "9", "9"]
    out = tmp_path / "sweep.md"
    assert main(["sweep", *vary, "--link-only", "--quiet", "-o", str(out)]) == 0
    assert "| laser.power_per_line [dBm] |" in out.read_text().replace("  ", " ")


def test_a_far_cliff_of_infeasible_points_does_not_set_the_scale():
    """Feasible margins 0–10 dB beside infeasible ones at −50 dB: those are counted in the legend, not drawn, and
    a group with no feasible point is named as such."""
    good = [{"x": x, "y": float(x), "g": 1, "link_feasible": True} for x in range(11)]
    near = [{"x": x, "y": -1.0 - x, "g": 1, "link_feasible": False} for x in range(3)]
    cliff = [{"x": x, "y": -50.0, "g": 2, "link_feasible": False} for x in range(5)]
    fig = sweep_figure(good + near + cliff, ["x", "y", "g"])
    ax = fig.axes[0]
    assert ax.get_ylim()[0] > -20
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts == ["g = 1", "g = 2: none feasible", "infeasible (a check fails); 5 more off the scale"]


def test_a_piped_table_wraps_to_columns_when_the_user_sets_it(monkeypatch):
    """Piped output keeps its full width unless COLUMNS says otherwise (`COLUMNS=100 sipml fields | less`)."""
    from sipml.render import terminal_width

    monkeypatch.setattr("sys.stdout.isatty", lambda: False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width() is None
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width() == 100
    monkeypatch.setenv("COLUMNS", "１００")  # not ASCII digits: ignored, as every number the tool reads
    assert terminal_width() is None
