"""A fabric kind is one `register` call: a toy kind defined outside the package (tests/fabric/toy_bus.py) and
registered here is accepted by [fabric] kind, its section is read from a design file (defaults, units, unknown keys
refused), the collectives are priced by its own formula, and its formulas, figures and bill reach `sipml explain`,
`fields`, `init`, `fabric`, `cost`, `sweep` and `report --design` through the entry point users run."""

from __future__ import annotations

import json

import pytest

from core.errors import InputError
from fabric.evaluate import evaluate_fabric, price
from fabric.kind import Collective
from fabric.registry import register, unregister
from tests.fabric.toy_bus import DESIGN, TAP, TOY, ToyBusSection


@pytest.fixture
def toy():
    register(TOY)
    yield TOY
    unregister(TOY.name)


def write(tmp_path, text):
    path = tmp_path / "toy.toml"
    path.write_text(text)
    return str(path)


def test_a_registered_kind_loads_from_a_file_with_its_own_section_and_prices_collectives(toy, tmp_path):
    from sipml.design_files import load_design

    design = load_design(write(tmp_path, DESIGN))
    assert isinstance(design.topology, ToyBusSection)
    assert (design.topology.bandwidth, design.topology.latency) == (400e9, 1e-6)  # given, and the default
    est = evaluate_fabric(design)
    [t] = price(est, [Collective("all_reduce", 1e6, 16)])
    launch = design.fabric.launch_latency  # [fabric]'s, added to every kind's price
    assert float(t.seconds) == pytest.approx(launch + 1e-6 + 2 * 16 * 1e6 * 8 / 400e9, rel=1e-12)


def test_its_section_is_checked_like_every_other(toy, tmp_path):
    from sipml.design_files import load_design

    with pytest.raises(InputError, match=r"\[toy_bus\].*unknown key 'bandwith'.*bandwidth"):
        load_design(write(tmp_path, DESIGN.replace("bandwidth", "bandwith")))
    with pytest.raises(InputError, match=r"\[toy_bus\] bandwidth"):
        load_design(write(tmp_path, DESIGN.replace('"400 Gbit/s"', '"400 W"')))


def test_sipml_fabric_reports_it(toy, tmp_path, capsys):
    from sipml.cli import main

    code = main(["fabric", write(tmp_path, DESIGN), "-f", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["fabric"] == "toy-bus" and out["per_gpu_bandwidth_gbps"] == pytest.approx(25.0)


# --- its numbers reach every command, through the entry point users run, with no edit under sipml/ -------------
def run_json(capsys, *argv):
    from sipml.cli import main

    code = main([*argv, "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def tap_price_usd() -> float:
    """What the toy's bill adds per GPU: one tap at the catalog's typical price."""
    from fabric.catalog import load_catalog

    return load_catalog().get(TAP).price_usd[1]


BUS, GPUS = ("toy_bus", "bandwidth"), ("fabric", "gpus")


@pytest.mark.parametrize("key,formula,terms,moved", [
    ("per_gpu_bandwidth_gbps", r"B = B_{\mathrm{bus}}/G", {r"B_{\mathrm{bus}}": 4e11, "G": 16.0, "B": 2.5e10},
     {BUS, GPUS}),
    ("bisection_gbps", r"B_{\mathrm{bis}} = B_{\mathrm{bus}}/2", {r"B_{\mathrm{bus}}": 4e11,
                                                                r"B_{\mathrm{bis}}": 2e11}, {BUS}),
    ("degree", "D = -1 + G", {"G": 16.0, "D": 15.0}, {GPUS}),
])
def test_sipml_explain_shows_its_formula_with_its_numbers(toy, tmp_path, capsys, key, formula, terms, moved):
    """The formula is the kind's own, its terms this design's numbers, and the inputs that move the number are the
    ones in it (the sensitivities recompute the kind's model)."""
    out = run_json(capsys, "explain", key, write(tmp_path, DESIGN))
    assert out["formula"] == formula
    assert {row["term"]: row["value"] for row in out["numbers"]} == terms
    assert {(s["section"], s["key"]) for s in out["sensitivities"]} == moved


def test_sipml_explain_reads_its_figure_where_it_gives_no_formula(toy, tmp_path, capsys):
    out = run_json(capsys, "explain", "useful_time_fraction", write(tmp_path, DESIGN))
    [term, result] = out["numbers"]
    assert out["formula"] == r"u = u_{\mathrm{kind}}" and term["value"] == 1.0 and result["value"] == 1.0
    assert "as the toy-bus kind reports it" in term["meaning"]


def test_sipml_fields_lists_its_section(toy, capsys):
    out = run_json(capsys, "fields", "toy_bus")
    assert list(out) == ["toy_bus"]
    assert {k: (v["unit"], v["default"]) for k, v in out["toy_bus"].items()} == {"bandwidth": ("bit/s", "100 Gbit/s"),
                                                                                 "latency": ("s", "1 us")}


def test_sipml_init_writes_it_out_and_the_file_loads_back(toy, tmp_path, capsys):
    from sipml.cli import main
    from sipml.design_files import load_design

    assert main(["init", "-", write(tmp_path, DESIGN)]) == 0
    text = capsys.readouterr().out
    assert 'kind = "toy-bus"' in text and '[toy_bus]\nbandwidth = "400 Gbit/s"' in text.replace(
        "# rate of the shared bus; > 0 bit/s; source: this design (default 100 Gbit/s: [assumed] a test kind)\n", "")
    written = tmp_path / "written.toml"
    written.write_text(text)
    assert load_design(str(written)) == load_design(write(tmp_path, DESIGN))


def test_sipml_fabric_shows_its_figures(toy, tmp_path, capsys):
    from sipml.cli import main

    out = run_json(capsys, "fabric", write(tmp_path, DESIGN))
    assert out["figures"] == {"bus rate": {"value": 400.0, "unit": "Gbps"}, "GPUs on the bus": {"value": 16.0,
                                                                                                "unit": ""}}
    assert main(["fabric", write(tmp_path, DESIGN)]) == 0
    table = capsys.readouterr().out
    assert any(line.split() == ["bus", "rate", "400", "Gbps"] for line in table.splitlines())


def test_sipml_cost_prices_its_bill(toy, tmp_path, capsys):
    [design] = run_json(capsys, "cost", write(tmp_path, DESIGN))["designs"]
    assert design["fabric"] == "toy-bus" and design["network_cost_usd_per_gpu"] == pytest.approx(tap_price_usd())
    [tap] = [line for line in design["breakdown"] if line["network"]]
    assert (tap["key"], tap["count_per_gpu"], tap["cost_usd_per_gpu"][1]) == (TAP, 1.0, tap_price_usd())


def test_sipml_sweep_varies_its_section(toy, tmp_path, capsys):
    from sipml.cli import main

    code = main(["sweep", write(tmp_path, DESIGN), "--vary", "toy_bus.bandwidth=100 Gbit/s,400 Gbit/s", "-f", "jsonl",
                 "--quiet"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert [r["effective_bandwidth_gbps [Gbit/s]"] for r in rows] == pytest.approx([100 / 16, 400 / 16])
    assert [r["network_cost_usd_per_gpu [USD]"] for r in rows] == pytest.approx([tap_price_usd()] * 2)


def test_sipml_report_compares_it_with_the_built_in_fabrics(toy, tmp_path, capsys):
    path = write(tmp_path, DESIGN)
    fabrics = run_json(capsys, "report", "--design", path)["fabrics"]
    mine = [f for f in fabrics if f["design"] == path]
    assert len(fabrics) > 1 and [(f["fabric"], f["per_gpu_bandwidth_gbps"]) for f in mine] == [("toy-bus", 25.0)]
    assert mine[0]["network_cost_usd_per_gpu"] == pytest.approx(tap_price_usd())


def test_sipml_report_refuses_a_design_it_cannot_read(capsys, tmp_path):
    from sipml.cli import main

    code = main(["report", "--design", str(tmp_path / "missing.toml")])
    assert code == 2 and "missing.toml" in capsys.readouterr().err


def test_a_kind_without_a_required_part_is_refused_at_registration():
    import dataclasses

    with pytest.raises(TypeError, match=r"'toy-bus' lacks sharer, pricer"):
        register(dataclasses.replace(TOY, sharer=None, pricer=None))
    from fabric.registry import declared

    assert TOY.name not in [entry.name for entry in declared()]  # nothing was registered


def test_a_kind_without_a_server_says_it_serves_no_traffic_pattern(tmp_path, capsys):
    import dataclasses

    from sipml.cli import main

    register(dataclasses.replace(TOY, server=None))
    try:
        code = main(["fabric", write(tmp_path, DESIGN), "--pattern", "ring"])
    finally:
        unregister(TOY.name)
    assert code == 2 and "[fabric] kind = 'toy-bus' serves no traffic pattern" in capsys.readouterr().err


def test_without_its_registration_the_kind_and_its_section_are_unknown(tmp_path):
    from sipml.design_files import load_design

    with pytest.raises(InputError, match="toy"):
        load_design(write(tmp_path, DESIGN))


# --- the built-in kinds are imported when first used ---------------------------------------------------------------
def test_a_command_on_a_sip_ring_design_imports_no_other_kind():
    """`sipml budget` and `sipml check` on the built-in SiP-Ring design read every kind's name and section without
    importing the other kinds' modules; `sipml fabric dgx-h100` imports the electrical one."""
    import subprocess
    import sys

    code = ("import sys, io, contextlib\nfrom sipml.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    codes = [main(a) for a in ARGS]\n"
            "print(codes, sorted(m for m in sys.modules if m in ('fabric.sip_ring', 'fabric.sip_ocs', "
            "'fabric.electrical', 'fabric.ideal')))")
    cases = [([["budget"], ["check"]], ["fabric.sip_ring"]), ([["fabric", "dgx-h100"]], ["fabric.electrical"])]
    for args, loaded in cases:
        out = subprocess.run([sys.executable, "-c", code.replace("ARGS", repr(args))], capture_output=True,
                             text=True, check=True).stdout
        assert out.strip() == f"{[0] * len(args)} {loaded}", out


def test_a_deferred_kind_is_the_kind_its_module_defines():
    """Each built-in kind's registered name, section and optical flag are its definition's; a deferred entry that
    says otherwise is refused when the kind is first used, naming both."""
    from fabric.registry import Deferred, declared, defer, get_kind

    for entry in declared():
        kind = get_kind(entry.name)
        assert (kind.name, kind.section, kind.optical) == (entry.name, entry.section, entry.optical)
    defer(Deferred("toy-wrong", "ideal", True, "fabric.ideal", "IDEAL"))
    try:
        with pytest.raises(RuntimeError, match="toy-wrong.*fabric.ideal.IDEAL"):
            get_kind("toy-wrong")
    finally:
        unregister("toy-wrong")


def test_sipml_fields_lists_a_registered_kind_among_the_fabric_kinds(toy, capsys):
    assert run_json(capsys, "fields", "fabric")["fabric"]["kind"]["range"].endswith("| toy-bus")
