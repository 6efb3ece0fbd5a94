"""The Python API: its documented examples run, and it gives the numbers and the refusals the CLI gives."""

import doctest
import json
import math

import pytest

import sipml
from core.errors import InputError
from sipml import budget, cost, fabric, load_design, sweep
from sipml.cli import main


def test_the_documented_examples_run():
    import sipml.api

    failures, tried = doctest.testmod(sipml.api, optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failures == 0


def test_help_of_the_package_lists_every_public_name_before_pint_s_pages():
    """`help(sipml)` opens on the API: each public name with what it gives, before the pages of pint's Quantity
    class that `Q_` brings in."""
    import pydoc

    page = pydoc.render_doc(sipml, renderer=pydoc.plaintext)
    listed = page[:page.index("PACKAGE CONTENTS")]
    assert all(f"\n        {name}(" in listed for name in sipml.__all__), listed


def test_a_quantity_a_text_and_an_si_float_give_the_same_design():
    from sipml import Q_  # pint's registry, built when asked for (not at the suite's collection)

    by_quantity = load_design("sip-ring", {"link.data_rate": Q_(50, "Gbit/s"), "fabric.gpus": 512})
    by_text = load_design("sip-ring", {"link.data_rate": "50 Gbit/s", "fabric.gpus": 512})
    assert by_quantity == by_text
    assert by_quantity.link.link.data_rate == 50e9 and by_quantity.fabric.gpus == 512


def test_a_quantity_of_a_numpy_number_is_read_as_its_number():
    """`Q_(p, "mW")` for p from np.linspace (a numpy scalar) is the same change as Q_(4.0, "mW")."""
    import numpy as np

    from sipml import Q_

    for p in np.linspace(4.0, 6.0, 2):
        assert load_design("sip-ring", {"laser.power_per_line": Q_(p, "mW")}) == \
            load_design("sip-ring", {"laser.power_per_line": Q_(float(p), "mW")})
    assert load_design("sip-ring", {"fabric.gpus": Q_(np.int64(512), "")}).fabric.gpus == 512


def test_sweep_refuses_a_bad_model_and_too_many_workers_up_front():
    """As `sipml sweep` does: an unknown model before any row (not an error in each), workers at most 4 per core."""
    from sipml.sweep_run import max_workers

    axis = ["laser.power_per_line=5mW:10mW:2"]
    with pytest.raises(InputError, match="unknown model 'zz'"):
        sweep("sip-ring", axis, model="zz")
    with pytest.raises(InputError, match=f"workers: expected a whole number from 1 to {max_workers()}"):
        sweep("sip-ring", axis, link_only=True, workers=max_workers() + 1)


def test_reliability_gives_its_json_as_one_dataframe_row():
    pytest.importorskip("pandas")
    job = sipml.reliability("sip-ring", "gpt2-355m")
    frame = job.to_pandas()
    assert frame.shape[0] == 1 and frame["ettr"].item() == job.to_dict()["ettr"] == job.ettr
    assert frame["design"].item() == "sip-ring"


def test_reliability_s_csv_is_the_api_s_row_with_every_rate_in_its_unit(capsys):
    """`sipml reliability -f csv` wrote key,value rows while `to_pandas()` gave one wide row, as the README says of
    every record's `--format csv`; and `planned_per_day` had no unit."""
    import csv
    import io

    pytest.importorskip("pandas")
    assert main(["reliability", "sip-ring", "-m", "gpt2-355m", "-f", "csv"]) == 0
    header, row = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert header == list(sipml.reliability("sip-ring", "gpt2-355m").to_pandas().columns)
    assert "planned_per_day [1/day]" in header and "lines.0.lost_s_per_day [s/day]" in header


def test_a_file_name_with_a_nul_is_refused_quoted():
    with pytest.raises(InputError) as info:
        load_design("a\x00b.toml")
    assert str(info.value).startswith("'a\\x00b.toml': cannot read") and "PosixPath" not in str(info.value)


def test_the_api_budget_is_the_cli_budget(capsys):
    assert main(["budget", "sip-ocs", "-f", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    api = budget("sip-ocs")
    assert api.margin_db == pytest.approx(cli["margin_db"])
    assert api.capacity.capacity_bps / 1e9 == pytest.approx(cli["capacity_gbps"])


def test_the_api_refuses_what_the_cli_refuses_with_the_same_words(capsys):
    from sipml import Q_

    with pytest.raises(InputError) as info:
        load_design("sip-ring", {"link.data_rate": "2,5 Gbit/s"})
    assert main(["check", "--set", "link.data_rate=2,5 Gbit/s"]) == 2
    assert "(with changes)" in str(info.value)  # the same words, naming where the value came from
    assert str(info.value).replace("(with changes)", "(with --set)") in capsys.readouterr().err
    with pytest.raises(InputError, match="has no optical link"):
        budget("dgx-a100")
    with pytest.raises(InputError, match=r"\[ring\] \(radius\) does not apply"):
        load_design("dgx-a100", {"ring.radius": Q_(5, "um")})


def test_fabric_and_cost_take_a_loaded_design_or_a_name():
    design = load_design("fattree-200")
    assert fabric(design) == fabric("fattree-200")
    assert cost(design).cluster_cost_usd.typical == cost("fattree-200").cluster_cost_usd.typical


def test_sweep_rows_are_the_points_evaluated_one_by_one():
    rows = sweep("sip-ring", ["link.wavelengths_per_fiber=4,8"])
    for row, n in zip(rows, (4, 8)):
        assert row["margin_db [dB]"] == pytest.approx(budget(load_design("sip-ring", {
            "link.wavelengths_per_fiber": n})).margin_db)


def test_the_cli_does_not_import_the_api():
    import subprocess
    import sys

    code = "import sys, sipml.cli; print('sipml.api' in sys.modules, 'pint' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
    assert sipml.budget.__module__ == "sipml.api"  # the lazy name resolves to the API


def test_api_names_are_functions_even_after_the_commands_modules_are_imported():
    """`from sipml import speedup, sweep` are the API functions; no module of the package shadows them."""
    import sipml.speedup_report  # noqa: F401 - the modules behind `sipml speedup` and `sipml sweep`
    import sipml.sweep_run  # noqa: F401
    from sipml import speedup, sweep

    assert callable(speedup) and callable(sweep)


def test_a_notebook_shows_the_cli_tables_and_gets_dataframes(capsys):
    """Each result displays as the command's own tables (text and HTML) and converts to a DataFrame holding the
    numbers of `--format csv` / the JSON rows; attribute access stays the record's."""
    pytest.importorskip("pandas")
    from sipml import speedup

    link = budget("sip-ring")
    assert main(["budget", "sip-ring"]) == 0
    assert repr(link) == capsys.readouterr().out.rstrip("\n")
    assert "<table>" in link._repr_html_() and "margin" in link._repr_html_()
    frame = link.to_pandas()  # the `--format csv` row: a column per quantity, with its unit
    assert len(frame) == 1 and frame.loc[0, "margin_db [dB]"] == pytest.approx(link.margin_db)
    assert link.record.margin_db == link.margin_db and link == link.record
    with pytest.raises(AttributeError):
        link.margin_db = 0.0

    assert main(["cost", "sip-ocs", "-f", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    money = cost("sip-ocs").to_pandas()
    assert money.loc[0, "network_cost_usd_per_gpu [USD]"] == pytest.approx(
        cli["designs"][0]["network_cost_usd_per_gpu"])
    assert "Fabric: sip-ocs" in repr(fabric("sip-ocs"))

    rows = speedup("sip-ocs", "gpt2-355m", baselines=["fattree-200"])
    table = rows.to_pandas()
    assert isinstance(rows, list) and list(table["design"]) == ["sip-ocs"]
    assert table.loc[0, "speedup"] == pytest.approx(rows[0]["speedup"])
    assert table.loc[0, "strategy.dp"] == rows[0]["strategy"]["dp"]
    assert "speedup over fattree-200" in repr(rows) and "<table>" in rows._repr_html_()

    grid = sweep("sip-ring", ["laser.power_per_line=1mW:20mW:25"], link_only=True)
    frame = grid.to_pandas()
    assert len(frame) == 25 and frame["laser.power_per_line [mW]"].iloc[-1] == 20.0
    assert frame["margin_db [dB]"].dtype == float and frame["link_feasible"].dtype == bool
    assert frame["margin_db [dB]"].tolist() == [r["margin_db [dB]"] for r in grid]
    shown = repr(grid).splitlines()
    assert shown[0] == "25 rows (the first and last 10)" and len(shown) == 3 + 21  # title, header, rule, rows, …


def test_the_readme_notebook_example_runs():
    """The README's Python example, run as written (its assertions included)."""
    import re
    from pathlib import Path

    pytest.importorskip("pandas")
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("### Python API", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_budget_fabric_and_cost_take_changes_as_load_design_does():
    from sipml import Q_

    changed = budget("sip-ring", {"laser.power_per_line": Q_(3, "mW")})
    assert changed.margin_db == budget(load_design("sip-ring", {"laser.power_per_line": "3 mW"})).margin_db
    assert fabric("dgx-a100", {"fabric.gpus": 256}).gpus == 256
    assert cost("sip-ocs", changes={"fabric.gpus": 512}).record == cost(load_design("sip-ocs", {"fabric.gpus": 512}))
    with pytest.raises(InputError, match="changes"):
        budget(load_design("sip-ring"), {"fabric.gpus": 64})


def test_speedup_compares_designs_loaded_with_their_changes_as_the_command_does_with_set(capsys):
    """`speedup()` took names only: a design loaded (and changed) in a notebook could not be compared. Given
    loaded, it is compared as it is, named as loaded, and gives the command's rows for the same change."""
    import json

    from sipml.cli import main

    mine = sipml.load_design("sip-ring", {"laser.power_per_line": "8 mW"})
    rows = sipml.speedup([mine, "dgx-a100"], "resnet-50")
    assert main(["speedup", "sip-ring", "dgx-a100", "-m", "resnet-50", "--set", "sip-ring:laser.power_per_line=8 mW",
                 "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == rows.to_dict()["rows"]
    twice = sipml.speedup([mine, mine], "resnet-50")
    assert [r["design"] for r in twice] == ["sip-ring", "sip-ring 2"]
    with pytest.raises(InputError, match="none with a loaded design"):
        sipml.speedup(mine, "resnet-50", gpus=512)


def test_a_power_in_dbm_as_a_quantity_is_the_text_s_power():
    """`Q_(3, "dBm")` raised pint's UndefinedUnitError where the text "3 dBm" was read."""
    from sipml import Q_

    as_quantity = load_design("sip-ring", {"laser.power_per_line": Q_(6, "dBm")})
    assert as_quantity.link.laser.power_per_line == load_design("sip-ring", {"laser.power_per_line": "6 dBm"}
                                                                ).link.laser.power_per_line
    assert Q_(3, "dBm").to("mW").magnitude == pytest.approx(10 ** 0.3)


def test_a_loaded_design_beside_its_built_in_name_is_compared_as_a_design_of_its_own():
    """`speedup([load_design("sip-ring", changes), "sip-ring"])` gave one row (the loaded one took the plain name, and
    the rows are one per name): both rows now, whatever the order, the changed one as 'sip-ring 2'."""
    from sipml import speedup

    changed = load_design("sip-ring", {"link.wavelengths_per_fiber": 4})
    for designs in ([changed, "sip-ring"], ["sip-ring", changed]):
        rows = {r["design"]: r["iteration_s"] for r in speedup(designs, "gpt2-355m", baselines=["fattree-200"])}
        assert set(rows) == {"sip-ring", "sip-ring 2"} and rows["sip-ring 2"] > rows["sip-ring"]


def test_fabric_and_cost_refuse_a_catalog_entry_the_catalog_lacks_as_their_commands_do(capsys):
    """`fabric("dgx-h100", {"fabric.gpu": "gpu.h100_sxm"})` was feasible where `sipml fabric` exits 2."""
    for function in (fabric, cost):
        with pytest.raises(InputError, match="no catalog entry 'gpu.h100_sxm'"):
            function("dgx-h100", changes={"fabric.gpu": "gpu.h100_sxm"})
    assert main(["fabric", "dgx-h100", "--set", "fabric.gpu=gpu.h100_sxm"]) == 2


def test_sweep_refuses_a_batch_without_a_model_as_its_command_does(capsys):
    with pytest.raises(InputError, match="batch"):
        sweep("sip-ring", ["link.wavelengths_per_fiber=4,8"], batch=64)
    assert main(["sweep", "--vary", "link.wavelengths_per_fiber=4,8", "--batch", "64", "-q"]) == 2


def test_a_temperature_in_degrees_celsius_reads_as_pint_writes_it():
    """`Q_(25, "degC")` was written '25 °C' for the design file's reader, which could not read the degree sign;
    a design file's '25 °C' reads too."""
    changes = {"tuning.strategy": "full-thermal"}
    kelvin = [load_design("sip-ring", {**changes, "tuning.temperature": v}).link.tuning.temperature
              for v in (sipml.Q_(25, "degC"), "25 °C", "25 degC", "298.15 K")]
    assert kelvin == [pytest.approx(298.15)] * 4


def test_designs_of_two_sizes_beside_a_loaded_one_are_told_what_serves():
    """The command's fix (--gpus) is refused beside a loaded design: the API's message says what serves instead."""
    from sipml import speedup

    with pytest.raises(InputError, match="load every design with the same fabric.gpus"):
        speedup([load_design("sip-ring", {"fabric.gpus": 512}), "dgx-a100"], "gpt2-355m")


def test_a_model_file_may_be_given_as_a_path():
    """A `pathlib.Path` works for a design; it was refused for a model file (and a mix file: `jobs`)."""
    from pathlib import Path

    from sipml import reliability, speedup

    zoo = Path(__file__).resolve().parents[2] / "workloads" / "zoo"
    model = zoo / "gpt2-355m.toml"
    assert reliability("sip-ring", model).to_dict()["ettr"] == reliability("sip-ring", "gpt2-355m").to_dict()["ettr"]
    rows = speedup("sip-ring", model, baselines=["fattree-200"])
    assert rows[0]["iteration_s"] == speedup("sip-ring", "gpt2-355m", baselines=["fattree-200"])[0]["iteration_s"]
    with pytest.raises(InputError, match="a built-in name or a file"):
        reliability("sip-ring", 42)


def test_sweep_takes_a_loaded_design_as_speedup_does():
    """`sweep()` took names and files only: a loaded design sweeps as its name with the same changes as `sets`,
    in one process or several."""
    changes = {"link.data_rate": "20 Gbit/s"}
    axes = ["link.wavelengths_per_fiber=4,8"]
    named = sweep("sip-ring", axes, sets=["link.data_rate=20 Gbit/s"], link_only=True)
    assert sweep(load_design("sip-ring", changes), axes, link_only=True) == named
    assert sweep(load_design("sip-ring", changes), axes, link_only=True, workers=2) == named


def test_a_decibyte_is_not_taken_for_a_ratio_in_db():
    """`Q_(2, "dB/cm")` is two decibytes a centimetre (pint's B is the byte): it was written back as "2 dB/cm" and
    read as a loss; refused, saying a ratio in dB is given as text."""
    with pytest.raises(InputError, match=r"changes\['loss.waveguide_loss'\].*as text.*decibyte"):
        budget("sip-ring", {"loss.waveguide_loss": sipml.Q_(2, "dB/cm")})
    assert budget("sip-ring", {"loss.waveguide_loss": "2 dB/cm"}).to_dict()["margin_db"] < budget().margin_db


@pytest.mark.parametrize(("keyword", "value", "says"), [("gpus", 1e300, "got float 1e+300"),
                                                        ("tokens", 1e308, "--tokens 1e+308:")])
def test_a_huge_number_is_shown_as_given_not_as_its_digits(keyword, value, says):
    with pytest.raises(InputError) as refused:
        sipml.speedup("sip-ring", model="gpt2-355m", **{keyword: value})
    assert says in str(refused.value) and len(str(refused.value)) < 200


def test_a_column_added_to_a_frame_raises_no_fragmentation_warning():
    """`to_pandas()` of a wide record (cost: 139 columns) is consolidated: adding a column does not warn."""
    import warnings

    pytest.importorskip("pandas")
    frame = cost("sip-ring").to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame["label"] = "mine"
    assert frame.shape == (1, 140)


def test_a_sweep_s_rows_as_json_are_the_command_s_json_lines(capsys):
    """`sweep(...).to_dict()`: the rows `sipml sweep -f jsonl` writes — a column without a value (a fat-tree's optical
    reach, NaN in the rows) null, not NaN — so `json.dumps` writes standard JSON."""
    grid = sweep("fattree-200", ["fabric.gpus=512,1024"])
    assert math.isnan(grid[0]["optical_reach [hops]"])
    rows = grid.to_dict()["rows"]
    assert rows[0]["optical_reach [hops]"] is None
    json.dumps(rows, allow_nan=False)
    assert main(["sweep", "fattree-200", "--vary", "fabric.gpus=512,1024", "-f", "jsonl"]) == 0
    assert rows == [json.loads(line) for line in capsys.readouterr().out.splitlines()]
