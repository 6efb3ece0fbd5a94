"""Issue 42, wide tables: `-f csv` of `budget`, `check`, `fabric`, `cost` and `speedup` is one row per design with a
column per quantity and per component, named `key [unit]` as a sweep's columns are; `-f csv-long` keeps the JSON's
key,value rows; `to_pandas()` of the API's results is the same table, typed."""

import csv
import io
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sipml.quantities import QUANTITIES, QUANTITY_LIST, UNIT_ENDINGS, key_unit

DESIGNS = ("sip-ring", "sip-ocs", "dgx-h100")


def _csv(cli, *argv) -> list[dict]:
    code, out, err = cli(*argv)
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out)))


def _json(cli, *argv) -> dict:
    code, out, err = cli(*argv, "-f", "json")
    assert code in (0, 1), err
    return json.loads(out)


def _number(cell: str) -> float:
    return float(cell)  # raises on anything a spreadsheet would not read as a number


def test_cost_csv_is_one_row_per_design_with_units_in_the_headers(cli):
    """The issue's case: `sipml cost sip-ring sip-ocs dgx-h100 -f csv` opens as one row per design; each quantity
    is a column named with its unit holding a plain number (the JSON's), each component of every design's bill a
    column of its own, flags true/false."""
    rows = _csv(cli, "cost", *DESIGNS, "-f", "csv")
    data = _json(cli, "cost", *DESIGNS)["designs"]
    assert [r["design"] for r in rows] == list(DESIGNS)
    assert {r["feasible"] for r in rows} == {"true"}
    for row, entry in zip(rows, data):
        for key in ("network_cost_usd_per_gpu", "network_power_w_per_gpu", "cluster_cost_usd", "cluster_power_w",
                    "per_gpu_bandwidth_gbps", "network_cost_share"):
            assert _number(row[QUANTITIES[key].column]) == entry[key]
        low, _, high = entry["network_cost_usd_per_gpu_range"]
        assert _number(row["network_cost_usd_per_gpu_low [USD]"]) == low
        assert _number(row["network_cost_usd_per_gpu_high [USD]"]) == high
        assert _number(row["gpus"]) == entry["gpus"] == 1024
        for line in entry["breakdown"]:
            prefix = f"breakdown.{line['key']}"
            assert _number(row[f"{prefix}.cost_usd_per_gpu [USD]"]) == line["cost_usd_per_gpu"][1]
            assert _number(row[f"{prefix}.power_w_per_gpu [W]"]) == line["power_w_per_gpu"][1]
            assert _number(row[f"{prefix}.count_per_gpu"]) == line["count_per_gpu"]
    # a component one design lacks is an empty cell in its row, not a missing column
    ring_only = {f"breakdown.{l['key']}.count_per_gpu" for l in data[0]["breakdown"]} - {
        f"breakdown.{l['key']}.count_per_gpu" for l in data[2]["breakdown"]}
    assert ring_only and all(rows[2][c] == "" for c in ring_only)


def test_cost_csv_reads_typed_with_pandas():
    """pandas reads the CSV as typed columns: numbers as float, feasibility as bool."""
    pd = pytest.importorskip("pandas")
    from sipml.cli import main

    buf = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", buf)
        assert main(["cost", *DESIGNS, "-f", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(buf.getvalue()))
    assert len(frame) == 3 and frame["feasible"].dtype == bool
    for column in ("network_cost_usd_per_gpu [USD]", "cluster_power_w [W]", "bisection_gbps [Gbit/s]",
                   "breakdown.fiber.smf_per_m.cost_usd_per_gpu [USD]"):
        assert frame[column].dtype == float, column


def test_every_header_unit_is_the_declared_one(cli):
    """A column named after a quantity carries the unit the quantity table declares (one naming, the sweep's)."""
    checked = 0
    for argv in (("budget",), ("fabric", "--groups", "tp=8,dp=128"), ("check",), ("cost", *DESIGNS),
                 ("speedup", "sip-ring", "-m", "gpt2-355m")):
        code, out, _ = cli(*argv, "-f", "csv")
        header = next(csv.reader(io.StringIO(out)))
        assert len(header) == len(set(header))
        for name in header:
            key = name.split(" [")[0]
            if key in QUANTITIES:
                assert name == QUANTITIES[key].column
                checked += 1
    assert checked > 40


def test_unit_endings_agree_with_the_quantity_table():
    """The endings that name a JSON key's unit give each quantity that carries one its declared unit."""
    for q in QUANTITY_LIST:
        for ending, unit in UNIT_ENDINGS:
            if q.key == ending or q.key.endswith("_" + ending):
                assert unit == q.unit, q.key
                break
    assert key_unit("run_time_s") == "s" and key_unit("fsr_ghz") == "GHz"
    assert key_unit("fsr_channels", "limits_gbps") == "Gbit/s" and key_unit("compute", "breakdown") == "s"
    assert key_unit("passes") == key_unit("pairs") == key_unit("gpus") == ""


def test_an_infeasible_design_has_empty_prices_and_says_why(cli):
    rows = _csv(cli, "cost", "sip-ring", "dgx-h100", "--set", "sip-ring:link.data_rate=32 Gbit/s", "-f", "csv")
    ring, dgx = rows
    assert ring["feasible"] == "false" and ring["violations"] == "ring_reach"
    assert ring["network_cost_usd_per_gpu [USD]"] == "" and ring["cluster_cost_usd_high [USD]"] == ""
    assert all(ring[c] == "" for c in ring if c.startswith("breakdown."))
    assert dgx["feasible"] == "true" and _number(dgx["network_cost_usd_per_gpu [USD]"]) > 0


def test_numpy_numbers_are_written_as_numbers(cli):
    """The 2026 fabrics' bills hold numpy floats: their cells are plain numbers, not 'np.float64(17195.0)'."""
    code, out, _ = cli("cost", "cpo-800g", "lpo-800g", "dsp-800g", "-f", "csv")
    assert code == 0 and "np." not in out
    row = next(csv.DictReader(io.StringIO(out)))
    assert _number(row["network_cost_usd_per_gpu [USD]"]) > 0


def test_csv_long_keeps_the_key_value_rows(cli):
    code, out, _ = cli("cost", "sip-ring", "dgx-h100", "-f", "csv-long")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0] == ["key", "value"] and all(len(r) == 2 for r in rows)
    assert dict(rows[1:])["designs.0.network_cost_usd_per_gpu_range.0"] == "3535.0"


@pytest.mark.parametrize("argv", [("budget",), ("check",), ("fabric", "--pattern", "ring"),
                                  ("speedup", "sip-ring", "sip-ocs", "-m", "gpt2-355m")])
def test_budget_check_fabric_speedup_are_one_row_per_design(cli, argv):
    rows = _csv(cli, *argv, "-f", "csv")
    data = _json(cli, *argv)
    records = data["rows"] if "rows" in data else [data]
    assert [r["design"] for r in rows] == [r["design"] for r in records]
    for row, record in zip(rows, records):
        assert row["feasible"] == ("true" if record["feasible"] else "false")
        for key, value in record.items():
            if key in QUANTITIES and value is not None and not isinstance(value, str):
                assert _number(row[QUANTITIES[key].column]) == value, key


def test_budget_row_holds_the_ledger_the_limits_and_the_ring():
    from sipml.render import render
    from sipml.design_reports import budget_report
    from workloads.evaluation import Evaluation
    from sipml.design_files import load_design

    est = Evaluation(load_design("sip-ring")).link
    header, values = csv.reader(io.StringIO(render(budget_report(est, "sip-ring"), "csv")))
    row = dict(zip(header, values))
    assert _number(row["ledger.margin [dB]"]) == pytest.approx(est.margin_db)
    assert _number(row["ledger.received power [dBm]"]) == pytest.approx(est.received_dbm)
    assert _number(row["limits_gbps.fsr_channels [Gbit/s]"]) == pytest.approx(est.limits_bps["fsr_channels"] / 1e9)
    assert _number(row["ring.fsr_ghz [GHz]"]) == pytest.approx(est.ring.fsr_hz / 1e9)
    assert row["fiber_reach_m.dispersion [m]"] == "inf"


def test_to_pandas_is_the_same_wide_table_typed():
    """`to_pandas()` of budget, fabric, cost and speedup results: one row per design, the CSV's columns, flags as
    bool, numbers as float (whole numbers too), an unpriced design's prices NaN."""
    pytest.importorskip("pandas")
    from sipml import budget, cost, fabric, speedup

    link = budget("sip-ring").to_pandas()
    assert link["feasible"].dtype == bool and link["margin_db [dB]"].dtype == float
    assert link["max_wavelengths_per_fiber"].dtype == float
    net = fabric("sip-ocs").to_pandas()
    assert net["degree"].dtype == float and net["collective_times_s.all_reduce [s]"].dtype == float
    money = cost("dgx-h100").to_pandas()
    assert money["gpus"].dtype == float and money["breakdown.nic.connectx7_ndr_400g.network"].dtype == bool
    unpriced = cost("sip-ring", changes={"link.data_rate": "32 Gbit/s"}).to_pandas()
    assert unpriced["network_cost_usd_per_gpu [USD]"].dtype == float
    assert math.isnan(unpriced.loc[0, "network_cost_usd_per_gpu [USD]"]) and not unpriced.loc[0, "feasible"]
    rows = speedup(["sip-ring", "dgx-h100"], "gpt2-355m").to_pandas()
    assert list(rows["design"]) == ["sip-ring", "dgx-h100"]
    assert rows["iteration_s [s]"].dtype == float and rows["strategy.sp"].dtype == bool
    assert rows["strategy.tp"].dtype == float and rows["breakdown.compute [s]"].dtype == float


def test_a_per_point_sweep_converts_to_typed_columns():
    """A sweep evaluated point by point (an electrical fabric) gives numbers, not objects, to pandas."""
    pytest.importorskip("pandas")
    from sipml import sweep

    frame = sweep("dgx-h100", ["fabric.gpus=512,1024"]).to_pandas()
    assert frame["network_cost_usd_per_gpu [USD]"].dtype == float and frame["fabric_feasible"].dtype == bool


# texts without a lone carriage return: the sweep's writer quotes one (RFC 4180), the csv module with '\n' line ends
# leaves it bare (a reader takes it for a line break); see the test below
_cells = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                   st.floats(allow_nan=True, allow_infinity=True),
                   st.text(st.characters(blacklist_characters="\r"), max_size=8))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b [s]", "c,d", 'e"f']), _cells, min_size=1, max_size=4),
                min_size=1, max_size=6))
def test_the_table_writer_writes_what_the_csv_module_writes(rows):
    """`sipml.rows.to_csv` (column by column, kept for speed: see its docstring) gives the csv module's text (which
    writes the commands' CSV, `sipml.render`) for the same cells: numbers by repr, flags true/false, no value
    empty, texts quoted where they must be."""
    from sipml.rows import Table, columns, to_csv

    def cell(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and math.isnan(v):
            return ""
        return "" if v is None else (repr(v) if isinstance(v, float) else v)

    names = columns(rows)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([[cell(r.get(n)) for n in names] for r in rows])
    assert to_csv(Table.from_rows(rows)) == buf.getvalue()


def test_the_sweep_writer_quotes_a_carriage_return():
    """The one difference from the csv module: a text holding a bare '\r' is quoted, so it reads back as one cell."""
    from sipml.rows import Table, to_csv

    text = to_csv(Table.from_rows([{"a": "x\ry", "b": 1.0}]))
    assert list(csv.reader(io.StringIO(text, newline=""))) == [["a", "b"], ["x\ry", "1.0"]]


def test_an_unpriced_bill_s_column_has_no_unit():
    """`cost -f csv` of a design that cannot be built headed its empty bill `breakdown [s]` (the unit of speedup's
    breakdown, whose numbers are seconds)."""
    from sipml.wide import wide_row

    row = wide_row({"breakdown": None, "nested": {"breakdown": {"compute": 1.0}}})
    assert "breakdown" in row and "breakdown [s]" not in row
    assert wide_row({"breakdown": {"compute": 1.0}}) == {"breakdown.compute [s]": 1.0}
