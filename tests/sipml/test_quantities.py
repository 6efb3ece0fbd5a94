"""The quantity table (sipml.quantities): every quantity's formula, evaluated with a design's numbers as its terms,
equals the model's value, on every built-in design (and a point-to-point link), so on every built-in fabric kind, and
on a kind a test registers (with its own formulas, and without any); every JSON key of every command and every sweep
column is declared in the table."""

from __future__ import annotations

import functools
import json
import math

import pytest

from sipml.quantities import LABELS, QUANTITIES, QUANTITY_LIST, Reading

BUILTINS = ("sip-ring", "sip-ocs", "sip-ocs-384", "ocs-torus-v4", "dgx-a100", "dgx-h100", "fattree-200", "fattree-400",
            "ideal")
MODEL = "gpt2-355m"


@functools.lru_cache(maxsize=None)
def reading(name: str) -> Reading:
    from sipml.design_files import load_design
    from workloads.evaluation import Evaluation
    from workloads.models import load_model
    from workloads.speedup import default_batch

    model = load_model(MODEL)
    point = Evaluation(load_design(name))
    batch, _ = default_batch(model, point.cluster.job_gpus)
    base = Evaluation(load_design("fattree-200", [f"fabric.gpus={point.cluster.fabric.gpus}"]))
    return Reading(link=point.link, fabric=point.fabric, cost=point.cost, result=point.training(model, batch),
                   baseline=base.training(model, batch))


def point_to_point() -> Reading:
    from photonics.link_design import LaserSection, LinkDesign, LinkSection
    from photonics.link import evaluate

    return Reading(link=evaluate(LinkDesign(link=LinkSection(kind="point-to-point"), laser=LaserSection(kind="dfb"))))


CASES = [(q.key, name) for q in QUANTITY_LIST for name in BUILTINS] + \
        [(q.key, "point-to-point") for q in QUANTITY_LIST if q.stage == "link"]


@pytest.mark.parametrize("key,design", CASES)
def test_the_formula_with_the_design_s_numbers_is_the_model_s_value(key, design):
    q = QUANTITIES[key]
    r = point_to_point() if design == "point-to-point" else reading(design)
    if q.stage == "link" and r.link is None:
        pytest.skip(f"{design} has no optical link")
    check_formula(q, r, design)


def test_every_registered_fabric_kind_has_a_built_in_design_above():
    """The cases above cover each kind the registry holds, by one of its built-in designs."""
    from fabric.registry import declared
    from sipml.design_files import load_design

    covered = {load_design(name).fabric.kind for name in BUILTINS}
    assert {entry.name for entry in declared()} <= covered


def test_a_kind_s_formulas_are_of_fabric_quantities():
    """A kind's formula keys are the JSON keys of fabric quantities (a misspelt key would never be read)."""
    from fabric.registry import kinds
    from tests.fabric.toy_bus import TOY

    fabric_keys = {q.key for q in QUANTITY_LIST if q.stage == "fabric"}
    for kind in [*kinds().values(), TOY]:
        assert set(kind.formulas) <= fabric_keys, kind.name


TOY_VARIANTS = ("toy-bus", "toy-bus without formulas")  # its own formulas and figures; the application's alone


@pytest.fixture
def toy_kind(request):
    """The test kind registered (with its formulas and figures, or with neither), and a file of its design."""
    import dataclasses

    from fabric.registry import register, unregister
    from tests.fabric.toy_bus import TOY

    kind = TOY if request.param == TOY_VARIANTS[0] else dataclasses.replace(TOY, formulas={}, figures=None)
    register(kind)
    yield kind
    unregister(kind.name)


@pytest.mark.parametrize("toy_kind", TOY_VARIANTS, indirect=True)
@pytest.mark.parametrize("key", [q.key for q in QUANTITY_LIST if q.stage != "link"])
def test_the_formula_is_the_model_s_value_on_a_kind_a_test_registers(key, toy_kind, tmp_path_factory):
    from tests.fabric.toy_bus import DESIGN

    folder = tmp_path_factory.getbasetemp() / "toy-kind"
    folder.mkdir(exist_ok=True)
    path = folder / "toy.toml"
    path.write_text(DESIGN)
    r = reading(str(path))  # the estimate is the kind's model's, with or without its formulas
    assert r.fabric.kind == "toy-bus" and r.link is None
    formula = check_formula(QUANTITIES[key], r, toy_kind.name)
    if key in ("per_gpu_bandwidth_gbps", "degree", "bisection_gbps"):  # the toy's own, or the application's reading
        read_back = any("as the toy-bus kind reports it" in meaning for _, _, meaning in formula.terms.values())
        assert read_back == (not toy_kind.formulas)


def check_formula(q, r, design: str):
    """The formula of `q` on reading `r` evaluates to the model's value (None where there is no value); returns it."""
    value = q.read(r)
    formula = q.formula(r)
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        assert formula is None  # no number, no formula
        return None
    assert formula is not None, f"{q.key} of {design} has a value but no formula"
    assert formula.terms or value == 0, "a formula of its own terms (an empty sum only for nothing)"
    assert formula.evaluate() == pytest.approx(value, rel=1e-9, abs=1e-300)
    assert formula.latex()
    return formula


def test_a_formula_is_not_a_restatement_of_its_value():
    """No formula is the value itself: the left-hand side never appears among its terms."""
    r = reading("sip-ring")
    for q in QUANTITY_LIST:
        f = q.formula(r)
        if f is not None and q.key not in ("target_ber",):
            assert f.lhs not in f.terms, q.key


def _keys(data) -> set:
    """Top-level keys, and those of each design of `cost` and each row of `speedup`."""
    keys = set(data)
    for nested in ("designs", "rows"):
        for entry in data.get(nested, ()):
            keys |= set(entry)
    return keys


def test_every_json_key_of_every_command_that_reports_numbers_is_declared(capsys, tmp_path):
    from sipml.cli import main

    commands = [["budget"], ["budget", "--min-spacing"], ["check"], ["check", "dgx-a100"], ["fabric"],
                ["fabric", "--pattern", "ring"], ["fabric", "--groups", "tp=8,dp=128"], ["cost", "sip-ring"],
                ["speedup", "sip-ocs", "-m", MODEL]]
    seen = set()
    for argv in commands:
        main([*argv, "-f", "json"])
        seen |= _keys(json.loads(capsys.readouterr().out))
    undeclared = seen - set(QUANTITIES) - set(LABELS)
    assert not undeclared


def test_every_sweep_column_is_a_declared_key_with_its_unit():
    from sipml.sweep_run import run_sweep

    axes, rows = run_sweep("sip-ring", [], ["link.wavelengths_per_fiber=4,8"], model=MODEL)
    inputs = {a.column for a in axes}
    for column in rows[0]:
        if column in inputs:
            continue
        key, _, unit = column.partition(" [")
        assert key in QUANTITIES or key in LABELS, column
        if key in QUANTITIES:
            assert column == QUANTITIES[key].column


@pytest.mark.parametrize("key, design, sets", [
    ("bisection_gbps", "dgx-a100", ["fabric.gpus=9"]),  # a server split between the halves: its NVLink across
    ("bisection_gbps", "dgx-a100", ["fabric.gpus=24"]),
    ("bisection_gbps", "dgx-a100", ["fabric.gpus=7"]),  # one server: NVLink alone
    ("bisection_gbps", "llama3-24k", []),  # pods at 1:7
    ("escape_fibers_per_direction", "sip-ring", ["package.chiplets=256"]),  # more chiplets than the perimeter holds
])
def test_the_formula_follows_the_model_where_its_cases_part(key, design, sets):
    """Where the model takes a branch the built-in designs do not (a balanced cut through a server, chiplets past the
    package's perimeter), the formula explain shows is still the model's value."""
    from sipml.design_files import load_design
    from workloads.evaluation import Evaluation

    point = Evaluation(load_design(design, sets))
    formula = check_formula(QUANTITIES[key], Reading(link=point.link, fabric=point.fabric), design)
    assert formula is not None
