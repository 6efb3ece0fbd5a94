"""Issue 42, one answer: every command's JSON (`budget`, `check`, `fabric`, `cost`, `speedup`, `sweep`) equals the
record the Python API gives for the same design, on every built-in design and on designs that cannot be built —
through the real entry point (`sipml.cli.main`) and the `sipml.api` functions. Where the command refuses a design
(exit 2), the API raises InputError with the same message."""

import csv
import io
import json
import math

import pytest

from core.errors import InputError
from sipml import api
from sipml.cli import main
from sipml.design_files import builtin_designs
from sipml.rows import to_jsonl

# every built-in, and two that cannot be built: the issue's sip-ring at 32 Gbit/s (the ring's reach is short),
# and a link with more wavelengths than its FSR holds
CASES = [(name, {}) for name in builtin_designs()] + [
    ("sip-ring", {"link.data_rate": "32 Gbit/s"}), ("sip-ocs", {"link.wavelengths_per_fiber": 30})]
IDS = [name + "".join(f"+{k}={v}" for k, v in changes.items()) for name, changes in CASES]


def _cli(capsys, command, name, changes, *more):
    sets = [a for key, value in changes.items() for a in ("--set", f"{key}={value}")]
    code = main([command, name, *sets, *more])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, command, name, changes, *more):
    code, out, err = _cli(capsys, command, name, changes, *more, "-f", "json")
    return code, (json.loads(out) if code in (0, 1) else None), err


def _same_refusal(code, err, call):
    """The command refused the design (exit 2, one line): the API raises InputError saying the same."""
    assert code == 2 and err.count("\n") == 1, err
    with pytest.raises(InputError) as refused:
        call()
    assert str(refused.value) in err


def _names(violations) -> list[str]:
    return [v["name"] if isinstance(v, dict) else v.name for v in violations]


@pytest.mark.parametrize(("name", "changes"), CASES, ids=IDS)
def test_budget_and_check(capsys, name, changes):
    code, data, err = _json(capsys, "budget", name, changes)
    if code == 2:  # a fabric with no optical link
        _same_refusal(code, err, lambda: api.budget(name, changes))
    else:
        link = api.budget(name, changes)
        assert code == 0 and data == link.to_dict()
        assert data["feasible"] is link.feasible and _names(data["violations"]) == _names(link.violations)
        assert data["margin_db"] == link.margin_db and data["binding_limit"] == link.binding_limit
        assert data["capacity_gbps"] == pytest.approx(link.capacity_bps / 1e9, rel=1e-15)
    code, data, err = _json(capsys, "check", name, changes)
    fab = api.fabric(name, changes)  # every case has a fabric: check judges the whole design
    assert code == (0 if fab.feasible else 1)
    assert data["feasible"] is fab.feasible and _names(data["violations"]) == _names(fab.violations)


@pytest.mark.parametrize(("name", "changes"), CASES, ids=IDS)
def test_fabric(capsys, name, changes):
    code, data, _ = _json(capsys, "fabric", name, changes)
    fab = api.fabric(name, changes)
    assert code == (0 if fab.feasible else 1) and data == fab.to_dict()
    assert data["feasible"] is fab.feasible and _names(data["violations"]) == _names(fab.violations)
    assert data["per_gpu_bandwidth_gbps"] == pytest.approx(fab.per_gpu_bandwidth_bps / 1e9, rel=1e-15)
    assert data["degree"] == fab.degree and data["gpus"] == fab.gpus
    _same_table(capsys, "fabric", name, changes, fab)


def test_a_loaded_design_is_named_as_the_command_names_it(capsys, tmp_path):
    """A design loaded with `load_design` (a built-in with changes, a user's file) gives the command's JSON, its
    name included."""
    code, data, _ = _json(capsys, "fabric", "sip-ocs", {"fabric.gpus": 512})
    assert data == api.fabric(api.load_design("sip-ocs", {"fabric.gpus": 512})).to_dict()
    assert data["design"] == "sip-ocs"
    path = str(tmp_path / "mine.toml")
    assert main(["init", path]) == 0
    capsys.readouterr()
    code, data, _ = _json(capsys, "budget", path, {})
    assert code == 0 and data == api.budget(api.load_design(path)).to_dict() and data["design"] == path


# the JSON's priced figures and the CostSummary's fields that hold them (typical, `_range` low/typical/high)
PRICED = {"network_cost_usd_per_gpu": "network_cost_per_gpu_usd", "network_power_w_per_gpu": "network_power_per_gpu_w",
          "cluster_cost_usd": "cluster_cost_usd", "cluster_power_w": "cluster_power_w",
          "optics_power_w_per_gpu": "optics_power_per_gpu_w", "optics_cost_usd_per_gpu": "optics_cost_per_gpu_usd",
          "port_power_w_per_gpu": "port_power_per_gpu_w"}
SHARES = ("facility_power_w", "network_cost_share", "scale_out_cost_share", "network_power_share", "gpu_cost_share")


@pytest.mark.parametrize(("name", "changes"), CASES, ids=IDS)
def test_cost(capsys, name, changes):
    """The issue's case among them: an infeasible design is priced by neither (None in the API, null in JSON)."""
    code, data, _ = _json(capsys, "cost", name, changes)
    money = api.cost(name, changes=changes)
    assert code == 0 and data == money.to_dict()
    entry = data["designs"][0]
    assert entry["feasible"] is money.feasible and _names(entry["violations"]) == _names(money.violations)
    assert (money.reason is None) == money.feasible == (entry["breakdown"] is not None) == (money.bom is not None)
    for key, field in PRICED.items():
        value = getattr(money, field)
        if entry[key] is None:
            assert value is None, key
        else:
            assert entry[key] == value.typical and entry[f"{key}_range"] == list(value.as_tuple()), key
    for key in SHARES:
        assert entry[key] == getattr(money, key)
    assert entry["all_reduce_busbw_gbps"] == pytest.approx(money.all_reduce_busbw_bps / 1e9, rel=1e-15)
    if money.bom is not None:
        assert [b["key"] for b in entry["breakdown"]] == [line.key for line in money.bom.lines_by_cost()]
    else:
        assert money.reason.startswith("not priced") and "(violated: " in money.reason
    _same_table(capsys, "cost", name, changes, money)


def test_the_issue_case_is_not_priced_by_the_api():
    """`sipml.cost(...).network_cost_per_gpu_usd` of sip-ring at 32 Gbit/s was a price (10260) while the CLI
    refused one; now both say the design is not priced, and why."""
    money = api.cost(api.load_design("sip-ring", {"link.data_rate": "32 Gbit/s"}))
    assert money.feasible is False and money.network_cost_per_gpu_usd is None and money.cluster_cost_usd is None
    assert money.bom is None and _names(money.violations) == ["ring_reach"]
    assert money.gpus == 1024 and money.all_reduce_busbw_bps > 0  # what is not a price stays
    assert money.reason == "not priced: a design that cannot be built has no cost (violated: ring_reach)"


@pytest.mark.parametrize("name", builtin_designs())
def test_speedup(capsys, name):
    code, data, err = _json(capsys, "speedup", name, {}, "-m", "gpt2-355m")
    if code == 2:  # llama3-24k runs 24,576 GPUs against 1024-GPU baselines: both ask for --gpus
        _same_refusal(code, err, lambda: api.speedup(name, "gpt2-355m"))
        return
    rows = api.speedup(name, "gpt2-355m")
    assert data == rows.to_dict() == {"rows": json.loads(json.dumps(list(rows)))}
    assert code == (0 if all(r["feasible"] for r in rows) else 1)


def test_speedup_without_designs_compares_what_the_command_compares(capsys):
    """No design and no baseline named: the API's rows are the command's (its default designs and baselines)."""
    code = main(["speedup", "-m", "resnet-50", "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = api.speedup(model="resnet-50")
    assert json.loads(out) == rows.to_dict() and len(rows) == 4
    assert list(rows[0]["baselines"]) == ["fattree-200", "dgx-a100"]


@pytest.mark.parametrize("name", builtin_designs())
def test_sweep(capsys, name):
    axis = "fabric.message_size=1MB,2MB"
    code, out, err = _cli(capsys, "sweep", name, {}, "--vary", axis, "-f", "jsonl")
    assert code == 0, err
    rows = api.sweep(name, [axis])
    assert [json.loads(line) for line in out.splitlines()] == [json.loads(line) for line in
                                                             to_jsonl(rows).splitlines()]


def test_sweep_takes_the_commands_set_and_catalog(capsys, tmp_path):
    """`sweep(..., sets=, catalog_files=)` gives the rows of `sipml sweep --set … --catalog …`; an unreadable
    catalog is refused once, before any point."""
    prices = tmp_path / "prices.toml"
    prices.write_text('[amplifier.soa]\nprice_typical = "100 USD"\nprice_low = "50 USD"\n')
    axis = "laser.power_per_line=5mW,6mW"  # both feasible: an infeasible point is not priced
    code, out, err = _cli(capsys, "sweep", "sip-ring", {"fabric.gpus": 512}, "--vary", axis, "--catalog", str(prices),
                          "-f", "jsonl")
    assert code == 0, err
    rows = api.sweep("sip-ring", [axis], sets=["fabric.gpus=512"], catalog_files=[prices])
    assert [json.loads(line) for line in out.splitlines()] == [json.loads(line) for line in
                                                             to_jsonl(rows).splitlines()]
    shipped = api.sweep("sip-ring", [axis], sets=["fabric.gpus=512"])
    assert shipped[0]["network_cost_usd_per_gpu [USD]"] - rows[0]["network_cost_usd_per_gpu [USD]"] == \
        pytest.approx(10 * (500 - 100))  # the user's SOA price, ten per GPU
    with pytest.raises(InputError, match="none.toml: catalog file not found"):
        api.sweep("sip-ring", [axis], catalog_files=[tmp_path / "none.toml"])


def _same_table(capsys, command, name, changes, result):
    """The command's `-f csv` row, read by pandas, holds the API's `to_pandas()` row: the same columns, numbers,
    flags and texts (an empty cell is no value)."""
    pd = pytest.importorskip("pandas")
    code, out, _ = _cli(capsys, command, name, changes, "-f", "csv")
    cli = pd.read_csv(io.StringIO(out), keep_default_na=False)
    ours = result.to_pandas()
    assert list(cli.columns) == list(ours.columns) == next(csv.reader(io.StringIO(out)))
    for column in ours.columns:
        theirs, mine = cli.loc[0, column], ours.loc[0, column]
        if isinstance(mine, float):
            assert (theirs == "" and math.isnan(mine)) or float(theirs) == mine or (
                math.isnan(mine) and math.isnan(float(theirs))), column
        else:
            assert str(theirs).lower() == str(mine).lower(), column


@pytest.mark.parametrize("name", ["dgx-h100", "sip-ocs", "ocs-torus-v4"])
def test_reliability(capsys, name):
    code, data, err = _json(capsys, "reliability", name, {}, "-m", "gpt2-355m")
    assert code == 0, err
    job = api.reliability(name, "gpt2-355m")
    assert data == job.to_dict()
    assert data["ettr"] == pytest.approx(job.ettr, rel=1e-15)
    assert data["interruptions_per_day"] == pytest.approx(job.interruptions_per_s * 86400, rel=1e-15)
