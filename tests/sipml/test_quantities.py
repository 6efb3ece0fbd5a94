"""The quantity table (sipml.quantities): every quantity's formula, evaluated with a design's numbers as its terms,
equals the model's value, on every built-in design (and a point-to-point link); every JSON key of every command and
every sweep column is declared in the table."""

from __future__ import annotations

import functools
import json
import math

import pytest

from sipml.quantities import LABELS, QUANTITIES, QUANTITY_LIST, Reading

BUILTINS = ("sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "fattree-200", "fattree-400", "ideal")
MODEL = "gpt2-355m"


@functools.lru_cache(maxsize=None)
def reading(name: str) -> Reading:
    from sipml.design import load_design
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
    from photonics.design import LaserSection, LinkDesign, LinkSection
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
    value = q.read(r)
    formula = q.formula(r)
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        assert formula is None  # no number, no formula
        return
    assert formula is not None, f"{key} of {design} has a value but no formula"
    assert formula.terms or value == 0, "a formula of its own terms (an empty sum only for nothing)"
    assert formula.evaluate() == pytest.approx(value, rel=1e-9, abs=1e-300)
    assert formula.latex()


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
    from sipml.sweeps import run_sweep

    axes, rows = run_sweep("sip-ring", [], ["link.wavelengths_per_fiber=4,8"], model=MODEL)
    inputs = {a.column for a in axes}
    for column in rows[0]:
        if column in inputs:
            continue
        key, _, unit = column.partition(" [")
        assert key in QUANTITIES or key in LABELS, column
        if key in QUANTITIES:
            assert column == QUANTITIES[key].column
