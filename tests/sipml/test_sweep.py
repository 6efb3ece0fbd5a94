"""`sipml sweep`: rows equal point-by-point evaluation, the Dask run equals the local one, bad axes are one line."""

import csv
import io
import json
import math
import os
import time

import pytest

from core.allocator import keep_freed_memory

from sipml.cli import main
from sipml.sweep_run import run_sweep


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_rows_equal_point_by_point_evaluation():
    from photonics.link import evaluate
    from sipml.design_files import load_design

    axes, rows = run_sweep(None, [], ["link.wavelengths_per_fiber=4,8", "laser.power_per_line=3 mW:6 mW:2"])
    assert [a.column for a in axes] == ["link.wavelengths_per_fiber", "laser.power_per_line [W]"]
    assert len(rows) == 4
    for row in rows:
        design = load_design(None, [f"link.wavelengths_per_fiber={row['link.wavelengths_per_fiber']}",
                                    f'laser.power_per_line="{row["laser.power_per_line [W]"] * 1e3:g} mW"'])
        est = evaluate(design.link)
        assert row["margin_db [dB]"] == est.margin_db and row["capacity_gbps [Gbit/s]"] == est.capacity_bps / 1e9
        assert row["binding_limit"] == est.binding_limit


def test_infeasible_points_stay_with_their_binding_limit():
    _, rows = run_sweep(None, [], ["link.wavelengths_per_fiber=8,24"])
    far = rows[1]
    assert far["link_feasible"] is False and "fsr_channels" in far["link_violations"]


def test_dask_cluster_equals_the_local_run():
    distributed = pytest.importorskip("distributed")
    specs = ["link.wavelengths_per_fiber=2:8:4", "loss.fiber_length=1 m:10 m:40"]  # 160 points, 3 chunks
    _, local = run_sweep(None, [], specs, workers=1)
    # its HTTP server on a free port: the other Dask test may hold the default one (the suite runs in parallel)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        _, remote = run_sweep(None, [], specs, scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:  # each worker's memory as a local run's process's
            kept = client.run(_kept)
    assert len(remote) == len(local) == 160
    assert remote == local  # bit for bit, in grid order
    glibc = keep_freed_memory()  # whether this platform can: then every worker does
    huge = bool(int(os.environ.get("NUMPY_MADVISE_HUGEPAGE", "0")))  # off unless the user turned it on
    assert len(kept) == 2 and all(k == [glibc, huge] for k in kept.values())


def _kept() -> list:
    """Whether this worker keeps freed memory, and whether numpy advises huge pages in it."""
    from core import allocator

    before = allocator.advise_huge_pages(False)
    allocator.advise_huge_pages(bool(before))
    return [allocator.kept, bool(before)]


def test_a_cluster_gets_no_round_of_grid_tasks_where_no_fabric_has_a_floor(monkeypatch):
    """On an electrical fabric (no floor over a grid) a sweep sent to a scheduler maps only the per-point chunks; with
    a [fabric] kind axis that reaches SiP-Ring the grid's tasks go out first. Rows as a local run's, in grid order."""
    from sipml import sweep_run as sweeps

    mapped = []

    def local_map(fn, calls, scheduler, workers, progress):  # the cluster's map, run here
        mapped.append(fn.__name__)
        return [fn(*call) for call in calls]

    specs = ["electrical.nic_bandwidth=200 Gbit/s:800 Gbit/s:4", "fabric.gpus=64,256"]
    _, alone = run_sweep("dgx-h100", [], specs, workers=1)
    monkeypatch.setattr(sweeps, "_map", local_map)
    _, sent = run_sweep("dgx-h100", [], specs, scheduler="tcp://127.0.0.1:8786")
    assert sent == alone and len(sent) == 8 and mapped == ["evaluate_chunk"]
    mapped.clear()
    run_sweep(None, [], ["fabric.kind=sip-ring,electrical", "fabric.gpus=64,256"], scheduler="tcp://127.0.0.1:8786")
    assert mapped[0] == "link_chunk"


def test_a_model_sweep_sent_to_a_cluster_splits_where_local_processes_do(monkeypatch):
    """With --model, the tasks sent to a scheduler split the grid along its first fabric axis (here the second), as
    local processes do: each task holds every link value of its share of that axis, so no fabric group is searched
    by two tasks. Rows as one process's, in grid order."""
    from sipml import sweep_run as sweeps

    sent_axes = []

    def local_map(fn, calls, scheduler, workers, progress):  # the cluster's map, run here
        sent_axes.extend(call[2] for call in calls)
        return [fn(*call) for call in calls]

    specs = ["link.data_rate=20 Gbit/s:40 Gbit/s:3", "fabric.gpus=64,128"]
    _, alone = run_sweep(None, [], specs, model="gpt2-355m", workers=1)
    monkeypatch.setattr(sweeps, "_map", local_map)
    _, sent = run_sweep(None, [], specs, model="gpt2-355m", scheduler="tcp://127.0.0.1:8786")
    assert sent == alone and len(sent) == 6
    assert len(sent_axes) == 2 and all(len(axes[0].values) == 3 and len(axes[1].values) == 1 for axes in sent_axes)


def test_a_model_sweep_on_local_processes_equals_one_process():
    """With --workers, a model sweep's grid is split between processes along its first fabric axis (here the
    second): the rows are the one-process rows, in grid order."""
    specs = ["link.data_rate=20 Gbit/s:40 Gbit/s:3", "fabric.gpus=64,128,704"]  # 704: no strategy (row errors)
    _, alone = run_sweep(None, [], specs, model="gpt2-355m", workers=1)
    _, split = run_sweep(None, [], specs, model="gpt2-355m", workers=2)
    assert len(split) == len(alone) == 9 and split == alone
    assert [r["fabric.gpus"] for r in split][:3] == [64, 128, 704]
    # a name axis alone: each process gets a grid of one point (one the fabric path takes, one it leaves)
    _, alone = run_sweep(None, [], ["link.kind=ring-wdm,point-to-point"], model="gpt2-355m", workers=1)
    _, split = run_sweep(None, [], ["link.kind=ring-wdm,point-to-point"], model="gpt2-355m", workers=2)
    assert split == alone and alone[0]["training_feasible"] is True and "does not fit" in alone[1]["error"]


def test_csv_jsonl_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "m.png"
    code, out, _ = run(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=2,4,8", "--quiet", "--plot",
                       "link.wavelengths_per_fiber,margin_db [dB]", "--plot-file", str(png))
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["link.wavelengths_per_fiber"] for r in rows] == ["2", "4", "8"]
    assert rows[0]["link_feasible"] in ("true", "false")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    target = tmp_path / "s.jsonl"
    code, _, _ = run(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=2,4", "-o", str(target), "--quiet")
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert code == 0 and [r["link.wavelengths_per_fiber"] for r in lines] == [2, 4]


@pytest.mark.parametrize("axis, message", [
    ("link.no_such_key=1,2", "no key"),
    ("nowhere.key=1,2", "unknown section"),
    ("link.data_rate=10 GHz:20 GHz:3", "data_rate"),
    ("link.wavelengths_per_fiber=2:8:0", "count"),
    ("link.wavelengths_per_fiber", "expected"),
])
def test_bad_axes_are_one_line_exit_2_and_nothing_written(capsys, tmp_path, axis, message):
    target = tmp_path / "out.csv"
    code, _, err = run(capsys, "sweep", "--vary", axis, "-o", str(target), "--quiet")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not target.exists()


def test_plot_of_an_unknown_column_is_refused(capsys, tmp_path):
    code, _, err = run(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=2,4", "--quiet", "--plot",
                       "link.wavelengths_per_fiber,nope", "--plot-file", str(tmp_path / "x.png"))
    assert code == 2 and "nope" in err


@pytest.mark.parametrize("argv, message", [
    (["sweep", "nope", "--vary", "link.wavelengths_per_fiber=4,8"], "no such file"),
    (["sweep", "--set", "link.nope=1", "--vary", "link.wavelengths_per_fiber=4,8"], "nope"),
    (["sweep", "fattree-200", "--link-only", "--vary", "link.wavelengths_per_fiber=4,8"], "no optical link"),
    (["sweep", "--link-only", "--vary", "fabric.gpus=64,128"], "does not change the link"),
    (["sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--vary", "link.wavelengths_per_fiber=16"], "twice"),
    (["sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-o", "rows.xlsx"], "suffix .xlsx"),
    (["sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--table", "parquet", "-o", "-"], "not -o -"),
    (["sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-o", "no/such/folder/x.csv"], "folder does not exist"),
])
def test_input_no_point_could_use_is_refused_before_any_point(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, "--quiet")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and not out
    assert not list(tmp_path.iterdir())


def test_a_bad_plot_column_is_refused_before_the_sweep_writes(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "rows.csv"
    code, _, err = run(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-o", str(target), "--quiet",
                       "--plot", "link.wavelengths_per_fiber,margin", "--plot-file", str(tmp_path / "p.png"))
    assert code == 2 and "no column 'margin'" in err and not target.exists()


def test_output_without_suffix_is_csv(capsys, tmp_path):
    target = tmp_path / "rows"
    code, _, _ = run(capsys, "sweep", "--link-only", "--vary", "link.wavelengths_per_fiber=4,8", "-o", str(target),
                     "--quiet")
    assert code == 0 and target.read_text().startswith("link.wavelengths_per_fiber,link_feasible")


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet", "md", "html", "txt"])
def test_every_suffix_the_output_help_names_is_written_and_json_is_not_named(capsys, tmp_path, suffix):
    """sweep's -o help names the suffixes a sweep writes (the other commands' help names .json, which a sweep
    refuses: its JSON is JSON lines); each one it names is written."""
    _, out, _ = run(capsys, "sweep", "--help")
    text = " ".join(out.split())
    named = text[text.index("-o, --output"):].split("unless --format")[0]
    assert f".{suffix}" in named and ".json," not in named and ".json)" not in named
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    target = tmp_path / f"rows.{suffix}"
    code, _, err = run(capsys, "sweep", "--link-only", "--vary", "link.wavelengths_per_fiber=4,8", "-o",
                       str(target), "--quiet")
    assert code == 0 and target.stat().st_size > 0, err


def test_ranges_in_dbm_step_in_dbm_and_counts_keep_their_order():
    from sipml.design_files import ALL_SECTIONS
    from sipml.sweep_run import parse_axis

    axis = parse_axis("laser.power_per_line=0 dBm:10 dBm:3", ALL_SECTIONS)
    # each value as a design file writes it, to 6 significant digits: 3.16228 mW is 5.000003 dBm
    assert [10 * math.log10(v / 1e-3) for v in axis.values] == pytest.approx([0.0, 5.0, 10.0], abs=1e-5)
    assert parse_axis("link.wavelengths_per_fiber=8:1:8", ALL_SECTIONS).values == (8, 7, 6, 5, 4, 3, 2, 1)
    axis = parse_axis("laser.power_per_line=1 mW:2 mW:7", ALL_SECTIONS)
    assert [repr(v) for v in axis.values] == ["0.001", "0.00116667", "0.00133333", "0.0015", "0.00166667",
                                              "0.00183333", "0.002"]  # no conversion noise


def test_a_set_the_axes_resolve_is_left_to_the_rows():
    """t_min above the default t_max is refused alone, but the axes move t_max and the temperature above it."""
    _, rows = run_sweep(None, ['tuning.strategy="full-thermal"', 'tuning.t_min="390 K"'],
                        ["tuning.t_max=400 K,420 K", "tuning.temperature=395 K"], link_only=True)
    assert len(rows) == 2 and all(r["error"] == "" for r in rows)


def test_a_plot_without_matplotlib_is_refused_in_one_line(cli, monkeypatch, tmp_path):
    """Without matplotlib, `--plot` and `--plots` each say so in one line (exit 2) before any point is computed."""
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    out = tmp_path / "s.csv"
    code, _, err = cli("sweep", "--link-only", "--vary", "link.channel_spacing=50 GHz:400 GHz:3", "-o", str(out),
                       "--plot", "link.channel_spacing,margin_db [dB]")
    assert code == 2 and "--plot needs matplotlib: pip install 'sipml[plots]'" in err and not out.exists()
    assert len(err.strip().splitlines()) == 1
    folder = tmp_path / "plots"
    code, out_text, err = cli("report", "--plots", str(folder))
    assert code == 2 and err.strip() == "sipml: error: --plots needs matplotlib: pip install 'sipml[plots]'"
    assert not out_text


def test_a_sweep_s_speedup_is_the_one_speedup_reports_against_the_design_s_gpu(capsys):
    """An H100 design's sweep measures it against fattree-200 carrying its H100s, as `sipml speedup` does (each grid
    point at its own cluster size), not against the baseline's own A100s."""
    from sipml.cli import main

    assert main(["sweep", "dgx-h100", "--vary", "fabric.gpus=64,128", "--model", "megatron-1.7b", "-f", "json"]) == 0
    swept = {row["fabric.gpus"]: row for row in map(json.loads, capsys.readouterr().out.splitlines())}
    for gpus in (64, 128):
        assert main(["speedup", "dgx-h100", "-m", "megatron-1.7b", "--gpus", str(gpus), "--baseline", "fattree-200",
                     "-f", "json"]) == 0
        row = json.loads(capsys.readouterr().out)["rows"][0]
        assert swept[gpus]["speedup"] == row["speedup"]
        assert swept[gpus]["speedup_per_dollar"] == row["speedup_per_dollar"]


def test_a_scheduler_without_workers_is_refused_not_waited_on(monkeypatch, cli):
    """A Dask scheduler no worker has joined would hold the tasks for ever: refused, one line, exit 2, within the
    command's scheduler timeout (shortened here)."""
    distributed = pytest.importorskip("distributed")
    from sipml import sweep_run

    monkeypatch.setattr(sweep_run, "SCHEDULER_TIMEOUT_S", 3.0)
    monkeypatch.setattr(sweep_run, "SCHEDULER_STARTUP_S", 0.5)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster:
        start = time.monotonic()
        code, out, err = cli("sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--scheduler",
                             cluster.scheduler_address, "-q", "-o", "-")
        seconds = time.monotonic() - start
    assert code == 2 and out == "" and err.strip().endswith("the Dask scheduler has no workers (none joined within "
                                                            "3.0 s of the command's start)"), err
    assert err.count("\n") == 1 and seconds < 6


@pytest.mark.parametrize("axes", [["link.channel_spacing=100GHz:400GHz:4", "laser.power_per_line=2mW:8mW:2"],
                                  ["fabric.gpus=64,1024", "sip_ring.amplifier_every=1,2"]],
                         ids=["over the link's grid", "point by point"])
def test_a_point_that_cannot_be_built_is_not_priced_as_cost_does_not_price_it(axes):
    """The sweep priced points whose fabric is infeasible (10,260 USD per GPU beside fabric_feasible = false) where
    `cost` refuses to: its price, power and share columns are empty there, on the grid's path and point by point."""
    from sipml.quantities import PRICED_KEYS, QUANTITIES

    _, rows = run_sweep(None, [], axes)
    priced = [QUANTITIES[k].column for k in PRICED_KEYS if k in QUANTITIES and QUANTITIES[k].column in rows[0]]
    assert len(priced) >= 4 and {r["fabric_feasible"] for r in rows} == {True, False}
    for row in rows:
        assert all(math.isnan(row[c]) != row["fabric_feasible"] for c in priced), row
        assert row["effective_bandwidth_gbps [Gbit/s]"] > 0  # what is not a price stays


def test_a_key_that_is_no_design_axis_takes_a_list_and_the_fields_note_says_so(capsys):
    """`sipml fields` said its sweep column is whether a sweep may vary a key, but a sweep varies any key over a
    list: the column is whether it steps over a range (and explain moves it)."""
    code, _, err = run(capsys, "sweep", "--link-only", "--vary", "laser.eye_safety_limit=10 mW:20 mW:2", "-q")
    assert code == 2 and "not a design axis; list the values" in err
    code, _, _ = run(capsys, "sweep", "--link-only", "--vary", "laser.eye_safety_limit=10 mW,20 mW", "-q")
    assert code == 0
    code, out, _ = run(capsys, "fields", "laser")
    assert code == 0 and "a sweep varies any other key over a list of values" in " ".join(out.split())


def test_a_sweep_table_writes_figures_as_the_other_tables_do(capsys):
    """`sweep -f table` wrote 1.026e+04 and 3.398e+07 where `cost` writes 10,260 and 33,981,440."""
    code, out, _ = run(capsys, "sweep", "--vary", "link.wavelengths_per_fiber=4,8", "-f", "table", "-q")
    assert code == 0 and "e+0" not in out and "10,260" in out


def test_whether_a_sweep_is_refused_does_not_depend_on_the_order_of_its_values(cli):
    """`--set fabric.job_gpus=4096` over `fabric.gpus=1024,8192`: the 8,192-GPU point can use it, so the sweep runs
    whichever value is listed first (it was refused when 1,024 came first), the 1,024 row saying why it cannot."""
    rows = {}
    for values in ("1024,8192", "8192,1024"):
        code, out, err = cli("sweep", "sip-ring", "--vary", f"fabric.gpus={values}", "--set", "fabric.job_gpus=4096",
                             "-f", "jsonl")
        assert code == 0, err
        rows[values] = {r["fabric.gpus"]: r for r in map(json.loads, out.splitlines())}
    assert rows["1024,8192"] == rows["8192,1024"]
    assert rows["1024,8192"][1024]["error"] and not rows["1024,8192"][8192]["error"]


@pytest.mark.parametrize("link_only", [True, False])
def test_a_set_the_link_s_rules_refuse_at_every_point_is_refused_before_any_row(cli, link_only):
    """PAM4 under the NRZ photodiode fit: no data rate of the axis changes that, so the sweep is refused (exit 2,
    one line naming the design) instead of writing a row of that error per point; an axis that can change it (the
    receiver model) leaves it to the rows."""
    only = ["--link-only"] if link_only else []
    code, out, err = cli("sweep", *only, "--vary", "link.data_rate=20 Gbit/s,25 Gbit/s", "--set",
                         "link.modulation=pam4", "-f", "jsonl")
    assert code == 2 and out == "" and err.startswith("sipml: error: sip-ring (with --set): [receiver] model = "
                                                      "'ge-photodiode'") and err.count("\n") == 1, err
    code, out, err = cli("sweep", *only, "--vary", "receiver.model=ge-photodiode,thermal-noise", "--set",
                         "link.modulation=pam4", "-f", "jsonl")
    assert code == 0, err
    errors = [json.loads(line)["error"] for line in out.splitlines()]
    assert errors[0].startswith("[receiver] model = 'ge-photodiode'") and errors[1] == ""


def test_a_point_no_strategy_trains_keeps_its_design_columns_and_says_why_in_training_error(cli, tmp_path):
    """dgx-h100 at 1,032 GPUs passes its checks but no strategy splits GPT-3's batch of 1,536 over them: the row
    keeps its fabric and cost columns, `training_feasible` false and `training_error` why (it was the row's
    `error`, its design columns dropped), and the figure draws it as such, not as a design that fails a check."""
    pytest.importorskip("matplotlib")
    code, out, err = cli("sweep", "dgx-h100", "--vary", "fabric.gpus=1024,1032", "--model", "gpt3-175b", "-f",
                         "jsonl")
    assert code == 0, err
    rows = {r["fabric.gpus"]: r for r in map(json.loads, out.splitlines())}
    odd = rows[1032]
    assert odd["error"] == "" and odd["fabric_feasible"] and odd["training_feasible"] is False
    assert odd["training_error"].startswith("no valid strategy for gpt3-175b on 1032 GPUs")
    assert odd["network_cost_usd_per_gpu [USD]"] > 0 and rows[1024]["training_feasible"]
    from sipml.plotting import sweep_figure

    fig = sweep_figure(list(rows.values()), ["fabric.gpus", "network_cost_usd_per_gpu [USD]"])
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["no strategy trains there (the checks pass)"]


def test_a_set_key_another_axis_makes_apply_is_the_rows_not_a_refusal(cli):
    """`--set link.fec_target=post-fec --vary link.fec=kr4,kp4 --vary link.data_rate=…`: every point has a FEC the
    target applies to, so the sweep runs (the data-rate axis, tried with the design's own FEC, was blamed for the
    --set key's lack of effect); an axis whose own key has no effect is still refused."""
    code, out, err = cli("sweep", "--set", "link.fec_target=post-fec", "--vary", "link.fec=kr4,kp4", "--vary",
                         "link.data_rate=25 Gbit/s,50 Gbit/s", "-f", "jsonl")
    assert code == 0 and len(out.splitlines()) == 4, err
    code, _, err = cli("sweep", "--vary", "link.fec_target=post-fec,frame-error")
    assert code == 2 and "[link] fec_target has no effect here" in err


def test_hot_spares_a_ring_cannot_use_stop_only_a_sweep_that_trains(cli):
    """`--set reliability.spare_gpus=8` on SiP-Ring: the link, fabric and cost columns do not read hot spares, so
    a sweep without --model runs (it was refused before any row); with --model, whose goodput they would enter,
    it is refused, the reason named."""
    args = ["sweep", "sip-ring", "--set", "reliability.spare_gpus=8", "--vary", "link.data_rate=20Gbit/s,25Gbit/s"]
    for only in (["--link-only"], []):
        code, out, err = cli(*args, *only, "-f", "jsonl")
        assert code == 0 and all(json.loads(line)["error"] == "" for line in out.splitlines()), err
    code, _, err = cli(*args, "--model", "gpt2-355m", "-f", "jsonl")
    assert code == 2 and "spare_gpus = 8: on sip-ring" in err and err.count("\n") == 1


def test_a_figure_is_written_in_the_format_its_name_says(capsys, tmp_path):
    """`--plot-file p.svg` wrote PNG bytes under an .svg name; now SVG and PDF are written as such, with the
    figure's title in their metadata, and a name of no figure format is refused before any work (exit 2)."""
    args = ["sweep", "--link-only", "--vary", "laser.power_per_line=1 mW:10 mW:3", "-q", "-o", str(tmp_path / "r.csv"),
            "--plot", "laser.power_per_line,margin_db"]
    heads = {".svg": b"<?xml", ".pdf": b"%PDF", ".png": b"\x89PNG"}
    for suffix, head in heads.items():
        figure = tmp_path / f"p{suffix}"
        code, _, err = run(capsys, *args, "--plot-file", str(figure))
        assert code == 0, err
        data = figure.read_bytes()
        assert data.startswith(head), suffix
        assert (b"/Title (sweep: margin_db" if suffix == ".pdf" else b"margin_db") in data  # the title
    for name in ("p.txt", "p"):
        code, _, err = run(capsys, *args, "--plot-file", str(tmp_path / name))
        assert code == 2 and "a figure is written as .png, .svg, .pdf" in err
        assert not (tmp_path / name).exists()


@pytest.mark.parametrize("axis, workers", [("link.data_rate=20Gbit/s,25Gbit/s", "1"),  # the grid's batched search
                                           ("fabric.gpus=512,1024", "1"),  # point by point (a fabric axis)
                                           ("link.data_rate=20Gbit/s,25Gbit/s", "2")])
def test_a_sweeps_speedups_are_over_the_baseline_it_names(capsys, axis, workers):
    """`sweep --model M --baseline B` measures each point as `speedup --baseline B` does (it was fattree-200 alone):
    the 25 Gbit/s, 1 024-GPU point over cpo-800g is speedup's figure to the digit, on every path; refused without
    --model or for a design that does not exist."""
    code, out, err = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "--baseline", "cpo-800g", "-f", "json")
    assert code == 0, err
    [want] = json.loads(out)["rows"]
    code, out, err = run(capsys, "sweep", "sip-ring", "-m", "gpt2-355m", "--vary", axis, "--baseline", "cpo-800g",
                         "--workers", workers, "-q", "-f", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    [row] = [r for r in rows if r.get("link.data_rate [Gbit/s]", 25.0) == 25.0 and r.get("fabric.gpus", 1024) == 1024]
    assert row["speedup"] == want["speedup"] and row["speedup_per_dollar"] == want["speedup_per_dollar"]
    assert run(capsys, "sweep", "sip-ring", "--vary", axis, "--baseline", "cpo-800g", "-q")[0] == 2
    code, _, err = run(capsys, "sweep", "sip-ring", "-m", "gpt2-355m", "--vary", axis, "--baseline", "no-such", "-q")
    assert code == 2 and "--baseline no-such: no-such: no such file or built-in design" in err
