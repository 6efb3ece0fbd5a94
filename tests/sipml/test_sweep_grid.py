"""`sipml sweep --link-only` evaluates the grid in one vectorised pass: its rows equal the per-point path's, column
order and refused points included, and its CSV equals what the csv module writes for those rows."""

from __future__ import annotations

import csv
import io
import math

import pytest

from sipml.design_files import ALL_SECTIONS
from sipml.rows import Table, _cell, columns, to_csv
from sipml.sweep_point_rows import evaluate_chunk
from sipml.sweep_run import _with_written_columns, grid_points, parse_axis, run_sweep
from sipml.sweep_grid_columns import link_table

CASES = {
    "power × spacing × count": (None, (), ["laser.power_per_line=0.5 mW:20 mW:4:log",
                                           "link.channel_spacing=50 GHz:400 GHz:3", "link.wavelengths_per_fiber=1,16,48"]),
    "a name axis": (None, (), ["modulator.kind=add-drop,all-pass", "ring.filter_q=3000,9000",
                               "laser.lines=16,64"]),
    "SiP-OCS adds its switch passes": ("sip-ocs", (), ["loss.switch_ports=0,2", "loss.coupler=1 dB:3 dB:3"]),
    "refused points: band and temperature order": (None, ('tuning.strategy="full-thermal"',),
                                                   ["link.wavelength=1250 nm,1310 nm,1700 nm",
                                                    "tuning.t_min=280 K,390 K", "tuning.t_max=300 K,400 K"]),
    "wavelength spans enter in Hz": (None, (), ["link.channel_spacing=0.4 nm,0.8 nm",
                                                         "laser.power_per_line=1 mW,4 mW"]),
    "a key with no effect is refused at every point": (None, (), ["ring.propagation_loss=5 dB/cm,7 dB/cm"]),
}


def per_point(design, overrides, specs):
    axes = tuple(parse_axis(s, ALL_SECTIONS) for s in specs)
    rows = evaluate_chunk(design, tuple(overrides), axes, tuple(grid_points(list(axes))), None, True)
    return list(_with_written_columns(Table.from_rows(rows), axes))  # the axes in their written unit, as run_sweep


def same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) for k in a)


@pytest.mark.parametrize("case", CASES)
def test_link_only_rows_equal_the_per_point_path(case):
    design, overrides, specs = CASES[case]
    _, table = run_sweep(design, list(overrides), specs, link_only=True)
    want = per_point(design, overrides, specs)
    assert isinstance(table, Table) and len(table) == len(want)
    assert table.names == columns(want)
    for got, expected in zip(table, want):
        assert same(got, expected), (got, expected)


def test_regular_points_never_take_the_per_point_path(monkeypatch):
    """The speed is the kernel's: a grid of link axes sends no point to the per-point path, a refused point only
    itself."""
    import sipml.sweep_point_rows as sweep_module

    sent = []
    real = sweep_module.evaluate_chunk
    monkeypatch.setattr(sweep_module, "evaluate_chunk", lambda *args: sent.append(args[3]) or real(*args))
    for case in ("power × spacing × count", "a name axis", "SiP-OCS adds its switch passes",
                 "wavelength spans enter in Hz"):
        design, overrides, specs = CASES[case]
        run_sweep(design, list(overrides), specs, link_only=True)
        assert sent == [], case
    design, overrides, specs = CASES["refused points: band and temperature order"]
    run_sweep(design, list(overrides), specs, link_only=True)
    assert len(sent) == 1 and len(sent[0]) == 10


def test_the_cases_exercise_the_kernel_and_the_per_point_path():
    """The grid kernel evaluates the regular points; refused ones and spans come back with the per-point rows."""
    design, overrides, specs = CASES["refused points: band and temperature order"]
    axes = tuple(parse_axis(s, ALL_SECTIONS) for s in specs)
    table = link_table(design, overrides, axes)
    errors = [r["error"] for r in table]
    assert sum(1 for e in errors if e) == 10 and sum(1 for e in errors if not e) == 2
    design, overrides, specs = CASES["power × spacing × count"]
    rows = list(run_sweep(design, list(overrides), specs, link_only=True)[1])
    assert {r["link_feasible"] for r in rows} == {True, False}
    assert not any(r["error"] for r in rows)


def reference_csv(rows: list[dict]) -> str:
    """What csv.DictWriter writes for the rows, a cell's text by the sweep's rule (`_cell`): the column writer must
    produce the same text and quoting."""
    names = columns(rows)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({c: _cell(r.get(c)) for c in names})
    return buf.getvalue()


def test_csv_equals_the_csv_module_on_every_kind_of_cell():
    rows = [{"a": 1.5, "b": True, "c": 'says "hi", twice', "d": 3, "e": float("nan")},
            {"a": -0.0, "b": False, "c": "line\nbreak", "e": float("inf")},
            {"a": 1e-300, "c": "", "d": -7, "f": None}]
    assert to_csv(Table.from_rows(rows)) == reference_csv(rows)
    design, overrides, specs = CASES["refused points: band and temperature order"]
    _, table = run_sweep(design, list(overrides), specs, link_only=True)
    assert to_csv(table) == reference_csv(per_point(design, overrides, specs))
    design, overrides, specs = CASES["power × spacing × count"]
    _, table = run_sweep(design, list(overrides), specs, link_only=True)
    assert to_csv(table) == reference_csv(per_point(design, overrides, specs))


def test_dask_link_only_equals_the_local_run():
    distributed = pytest.importorskip("distributed")
    specs = ["link.wavelengths_per_fiber=1:40:20", "laser.power_per_line=1 mW:10 mW:7"]
    _, local = run_sweep(None, [], specs, link_only=True)
    # its HTTP server on a free port: the other Dask test may hold the default one (the suite runs in parallel)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        _, remote = run_sweep(None, [], specs, scheduler=cluster.scheduler_address, link_only=True)
    assert len(remote) == len(local) == 140
    assert remote == local and remote.names == local.names


def test_cli_link_only_writes_the_link_columns(tmp_path, capsys):
    from sipml.cli import main

    target = tmp_path / "s.csv"
    code = main(["sweep", "--link-only", "--quiet", "-o", str(target), "--vary", "link.wavelengths_per_fiber=2,4,8",
                 "--vary", "laser.power_per_line=1 mW:4 mW:3"])
    assert code == 0
    capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert len(rows) == 9 and "margin_db [dB]" in rows[0] and "fabric_feasible" not in rows[0]
    code = main(["sweep", "--link-only", "--model", "gpt2-355m", "--vary", "link.wavelengths_per_fiber=2,4"])
    err = capsys.readouterr().err
    assert code == 2 and "--link-only" in err and len(err.strip().splitlines()) == 1


def test_csv_in_blocks_is_the_same_text(monkeypatch):
    import sipml.rows as rows_module

    design, overrides, specs = CASES["refused points: band and temperature order"]
    _, table = run_sweep(design, list(overrides), specs, link_only=True)
    whole = to_csv(table)
    monkeypatch.setattr(rows_module, "CSV_ROWS_PER_PART", 5)
    assert len(list(rows_module.csv_parts(table))) == 1 + 3
    assert to_csv(table) == whole


def test_jsonl_equals_json_dumps_of_each_row():
    import json

    def reference(rows):
        def clean(v):
            if isinstance(v, float) and not math.isfinite(v):
                return None if math.isnan(v) else ("inf" if v > 0 else "-inf")
            return v

        return "".join(json.dumps({k: clean(v) for k, v in r.items()}, ensure_ascii=False) + "\n" for r in rows)

    from sipml.rows import to_jsonl

    rows = [{"a": 1.5, "b": True, "c": 'says "hi", µ', "d": 3, "e": float("nan")},
            {"a": -0.0, "b": False, "c": "line\nbreak", "e": float("inf")},
            {"a": 1e-300, "c": "", "d": -7, "e": float("-inf"), "f": None}]  # sweep rows keep one key order
    assert to_jsonl(Table.from_rows(rows)) == reference(rows)
    design, overrides, specs = CASES["refused points: band and temperature order"]
    _, table = run_sweep(design, list(overrides), specs, link_only=True)
    assert to_jsonl(table) == reference(per_point(design, overrides, specs))
    _, table = run_sweep(*CASES["power × spacing × count"][:2], CASES["power × spacing × count"][2], link_only=True)
    assert to_jsonl(table) == reference(list(table))
