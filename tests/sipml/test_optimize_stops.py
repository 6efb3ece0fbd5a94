"""`sipml optimize` names what stops a better point (issue 42): each design constraint `sipml check` finds violated
by its name, each --subject-to constraint by its text, with the number of better points each excludes — not just
"feasible 3". Checked against `sipml check` point by point. Through the real entry point."""

import json

from photonics.link import evaluate
from sipml.cli import main
from sipml.design_files import load_design

AXIS = "link.data_rate=20Gbit/s:40Gbit/s:5"  # 20, 25, 30, 35, 40 Gbit/s on sip-ring: 25 is the best that closes


def optimize(capsys, *argv, fmt="json"):
    code = main(["optimize", "--maximize", "capacity_gbps", "--vary", AXIS, *argv, "--quiet", "-f", fmt])
    out = capsys.readouterr().out
    return code, json.loads(out) if fmt == "json" else out


def violated(rate_gbps: float) -> set[str]:
    """The constraints `sipml check` finds violated at this line rate, by name."""
    from fabric.evaluate import evaluate_fabric

    design = load_design(None, [f"link.data_rate={rate_gbps:g} Gbit/s"])
    return {v.name for v in evaluate_fabric(design).violations}


def test_the_better_points_are_counted_by_the_check_constraint_they_fail(capsys):
    code, result = optimize(capsys)
    assert code == 0 and result["best"]["texts"]["link.data_rate"] == "25 Gbit/s"
    better = [30, 35, 40]  # a higher line rate is more capacity at the same counts
    expected: dict[str, int] = {}
    for rate in better:
        for name in violated(rate):
            expected[name] = expected.get(name, 0) + 1
    assert expected  # every better point is infeasible for a named reason
    stops = {s["reason"]: s for s in result["stopped_by"]}
    assert {k: s["better_points"] for k, s in stops.items()} == expected
    assert all(s["kind"] == "check" for s in stops.values()) and "feasible" not in stops
    assert result["better_points"] == len(better)
    first = result["stopped_by"][0]  # its example is the better point that would win next: 30 Gbit/s
    assert first["example"]["texts"] == {"link.data_rate": "30 Gbit/s"}


def test_a_subject_to_constraint_is_named_with_its_count_and_the_value_that_fails(capsys):
    code, result = optimize(capsys, "--subject-to", "margin_db>=3")
    stops = {s["reason"]: s for s in result["stopped_by"]}
    failing = [r for r in (30, 35, 40)
               if evaluate(load_design(None, [f"link.data_rate={r} Gbit/s"]).link).margin_db < 3]
    assert code == 0 and failing
    assert stops["margin_db>=3"]["better_points"] == len(failing) and stops["margin_db>=3"]["kind"] == "subject-to"
    assert "needs >= 3" in stops["margin_db>=3"]["example"]["why"]
    code, out = optimize(capsys, "--subject-to", "margin_db>=3", fmt="table")
    table = out.split("What stops it", 1)[1]
    assert code == 0
    lines = {line.split()[0]: line for line in table.splitlines()[3:] if line.strip()}
    assert f"{len(failing)} of 3" in lines["margin_db>=3"] and "--subject-to" in lines["margin_db>=3"]
    for name in violated(30):
        assert name in lines and "sipml check" in lines[name]
