"""`sipml optimize`: the best grid point under constraints, never worse than any qualifying point, and what stops it."""

import json

import pytest

from fabric.evaluate import evaluate_fabric
from photonics.link import evaluate
from sipml.cli import main
from sipml.design_files import load_design

RATES = [f"{r} Gbit/s" for r in (10, 15, 20, 25, 30, 35, 40, 45, 50)]


def run(capsys, *argv):
    code = main(["optimize", *argv, "--quiet", "-f", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


def test_the_best_point_is_never_worse_than_any_qualifying_grid_point(capsys):
    code, result, _ = run(capsys, "--maximize", "capacity_gbps", "--vary", "link.data_rate=" + ",".join(RATES),
                          "--subject-to", "margin_db>=1")
    assert code == 0 and result["points"] == len(RATES)
    qualifying = []
    for rate in RATES:  # brute force, point by point through the API
        design = load_design(None, [f"link.data_rate={rate}"])
        link = evaluate(design.link)
        if evaluate_fabric(design).feasible and link.margin_db >= 1:
            qualifying.append(link.capacity.capacity_bps / 1e9)
    assert qualifying and result["best"]["value"] == pytest.approx(max(qualifying))
    assert result["valid_points"] == len(qualifying)


def test_it_says_which_constraint_stops_it(capsys):
    code, result, _ = run(capsys, "--maximize", "capacity_gbps", "--vary", "link.data_rate=" + ",".join(RATES),
                          "--subject-to", "margin_db>=3")
    reasons = {s["reason"] for s in result["stopped_by"]}
    assert code == 0 and "margin_db>=3" in reasons
    best = load_design(None, [f"link.data_rate={result['best']['texts']['link.data_rate']}"])
    assert evaluate(best.link).margin_db >= 3


def test_minimize_picks_the_cheapest_point(capsys):
    code, result, _ = run(capsys, "sip-ocs", "--minimize", "network_cost_usd_per_gpu", "--vary",
                          "sip_ocs.switches=5,10,20")
    assert code == 0 and result["best"]["inputs"]["sip_ocs.switches"] == 5


def test_no_qualifying_point_exits_1(capsys):
    code, result, err = run(capsys, "--maximize", "capacity_gbps", "--vary", "link.wavelengths_per_fiber=4,8",
                            "--subject-to", "margin_db>=100")
    assert code == 1 and result["best"] is None and result["valid_points"] == 0


def test_refusals_by_the_design_rules_are_counted_and_said(capsys):
    code, result, _ = run(capsys, "sip-ocs", "--maximize", "speedup_per_dollar", "--vary", "sip_ocs.switches=12,20")
    assert code == 0 and result["errors"] == 1 and "multiple of 12" in result["refused"][0]["error"]
    code, result, _ = run(capsys, "--maximize", "margin_db", "--vary", "fabric.job_gpus=512,2048")
    assert result["refused"] == [{"error": "sip-ring (with --vary): [fabric] job_gpus = 2048 is above gpus = 1024: "
                                           "expected ≥ 0, ≤ 1048576, ≤ gpus", "points": 1}]  # where it came from


@pytest.mark.parametrize("argv, fragment", [
    (["--vary", "link.wavelengths_per_fiber=4,8"], "exactly one of --maximize"),
    (["--maximize", "capacity_gbps", "--vary", "link.wavelengths_per_fiber=4,8", "--subject-to", "margin>=3"],
     "did you mean 'margin_db'"),
    (["--maximize", "capacity_gbps", "--vary", "link.wavelengths_per_fiber=4,8", "--subject-to", "margin_db=>3"],
     "expected QUANTITY>=NUMBER"),
    (["--maximize", "capacity", "--vary", "link.wavelengths_per_fiber=4,8"], "unknown quantity"),
    (["--maximize", "capacity_gbps"], "at least one --vary"),
    (["--maximize", "capacity_gbps", "--vary", "link.no_such_key=1,2"], "no key"),
    (["--maximize", "capacity_gbps", "--vary", "link.data_rate=1 m:2 m:3"], "link.data_rate"),
    (["--maximize", "capacity_gbps", "--vary", "link.wavelengths_per_fiber=1:4096:4096",
      "--vary", "link.fibers_per_direction=1:10:10"], "at most 20,000"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, fragment):
    assert main(["optimize", *argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_refine_is_never_worse_than_the_grid_and_its_point_qualifies(capsys):
    argv = ["--maximize", "capacity_gbps", "--vary", "link.data_rate=10 Gbit/s:60 Gbit/s:6", "--subject-to",
            "margin_db>=1"]
    _, grid, _ = run(capsys, *argv)
    code, refined, _ = run(capsys, *argv, "--refine")
    assert code == 0 and refined["best"]["value"] >= grid["best"]["value"]
    assert refined["refined_axes"] == ["link.data_rate"]  # the capacity grows with the rate up to the boundary
    rate = refined["best"]["texts"]["link.data_rate"]
    design = load_design(None, [f"link.data_rate={rate}"])
    link = evaluate(design.link)
    assert evaluate_fabric(design).feasible and link.margin_db >= 1
    assert link.capacity.capacity_bps / 1e9 == pytest.approx(refined["best"]["value"])


def test_nothing_feasible_names_the_closest_point_and_what_stops_it(capsys):
    """0.1–0.3 mW per comb line: no point closes its budget. The answer is the least-short point (0.3 mW: every
    point fails the same checks, and its margin is the nearest to the 1 dB asked for), with the constraint's number
    and the design's own violations — not just `best: null`."""
    code, result, _ = run(capsys, "--maximize", "capacity_gbps", "--vary", "laser.power_per_line=0.1mW:0.3mW:4",
                          "--subject-to", "margin_db>=1")
    assert code == 1 and result["best"] is None
    near = result["closest"]
    assert near["texts"] == {"laser.power_per_line": "0.3 mW"}
    margins = {}
    for mw in ("0.1", "0.1666667", "0.2333333", "0.3"):
        margins[mw] = evaluate(load_design(None, [f"laser.power_per_line={mw} mW"]).link).margin_db
    assert near["fails"] == [{"constraint": "margin_db>=1", "value": pytest.approx(max(margins.values()), abs=1e-6),
                              "bound": 1.0}]
    assert "power_budget" in [v["name"] for v in near["violations"]]
    main(["optimize", "--maximize", "capacity_gbps", "--vary", "laser.power_per_line=0.1mW:0.3mW:4",
          "--subject-to", "margin_db>=1", "--quiet"])
    out = capsys.readouterr().out
    assert "Closest point" in out and "needs margin_db>=1" in out and "power_budget: margin" in out


@pytest.mark.parametrize("values", ["0.1mW:0.5mW:3", "0.5mW,0.3mW,0.1mW"])
def test_with_no_constraint_the_closest_point_is_the_best_scored_of_those_failing_least(capsys, values):
    """0.1–0.5 mW, nothing asked beyond `check`: every point fails the same design checks, so the closest is the one
    with the best objective (0.5 mW, the largest margin), written in either order; what stops it is shown at that
    point too, the best-scored one failing each check."""
    code, result, _ = run(capsys, "--maximize", "margin_db", "--vary", f"laser.power_per_line={values}")
    assert code == 1 and result["best"] is None and result["better_points"] == 3
    assert result["closest"]["texts"] == {"laser.power_per_line": "0.5 mW"}
    assert {s["example"]["texts"]["laser.power_per_line"] for s in result["stopped_by"]} == {"0.5 mW"}
    main(["optimize", "--maximize", "margin_db", "--vary", f"laser.power_per_line={values}", "--quiet"])
    shown = capsys.readouterr().out
    assert "best-scored point failing it" in shown and "nearest better point" not in shown


def test_points_without_the_objective_are_said_where_the_best_sits_at_their_edge(capsys):
    """Minimising energy per bit: 1 mW does not close its budget, so it has no energy per bit and scores nothing;
    the best (the least power that closes) sits at its edge: that point and what it fails are said, not 'nothing
    stops it'."""
    argv = ["--minimize", "energy_pj_per_bit", "--vary", "laser.power_per_line=1mW:20mW:5", "--subject-to",
            "margin_db>=3"]
    code, result, _ = run(capsys, *argv)
    assert code == 0 and result["better_points"] == 0 and result["best"]["texts"] == {"laser.power_per_line": "5.75 mW"}
    assert result["undefined"] == {"points": 1, "reasons": {"power_budget": 1, "amplifier_spacing": 1, "ring_reach": 1,
                                                            "margin_db>=3": 1}}
    main(["optimize", *argv, "--quiet"])
    out = capsys.readouterr().out
    assert "1 point has no energy_pj_per_bit, failing power_budget (1)" in out and "nothing inside it" not in out


def test_the_closest_point_counts_each_design_check_it_fails(capsys):
    """0.1 mW meets the power cap but fails three design checks (its budget does not close); 5 mW is feasible and
    fails the cap alone: the closest is 5 mW, one check short — though 0.1 mW has no shortfall on the cap."""
    code, result, _ = run(capsys, "--maximize", "margin_db", "--vary", "laser.power_per_line=0.1mW,5mW",
                          "--subject-to", "network_power_w_per_gpu<=16")
    assert code == 1 and result["best"] is None
    assert result["closest"]["texts"] == {"laser.power_per_line": "5 mW"}
    assert result["closest"]["violations"] == [] and len(result["closest"]["fails"]) == 1
    low = load_design(None, ["laser.power_per_line=0.1 mW"])
    assert len(evaluate_fabric(low).violations) == 3


def test_a_training_objective_names_the_model_and_baseline_it_was_computed_for(capsys):
    """`optimize --maximize speedup` reported 2.03 without saying for which model (optimize and explain default to
    gpt2-355m, speedup to gpt3-175b); a link objective names none."""
    axis = ("--vary", "laser.power_per_line=5mW,6mW")
    assert main(["optimize", *axis, "--maximize", "speedup", "-m", "resnet-50", "--quiet"]) == 0
    assert "maximize speedup of sip-ring (resnet-50 against fattree-200) over 2 points" in capsys.readouterr().out
    code, data, err = run(capsys, *axis, "--maximize", "speedup", "-m", "resnet-50")
    assert code == 0 and (data["model"], data["baseline"]) == ("resnet-50", "fattree-200"), err
    code, data, err = run(capsys, *axis, "--maximize", "margin_db")
    assert code == 0 and (data["model"], data["baseline"]) == (None, None), err


def test_what_stops_a_refined_best_is_what_scores_better_than_it(capsys):
    """With --refine, the points 'with a better energy' were those better than the grid's best, some worse than the
    refined best printed; each example now scores better than the best, to its six digits."""
    code, data, err = run(capsys, "--minimize", "energy_pj_per_bit", "--vary", "link.data_rate=20 Gbit/s:50 Gbit/s:4",
                          "--vary", "laser.power_per_line=2mW:10mW:5", "--subject-to", "margin_db>=2", "--refine")
    assert code == 0 and data["refined_axes"], err
    best = data["best"]["value"]
    assert data["better_points"] >= 1 and all(s["example"]["value"] < best for s in data["stopped_by"])
    assert main(["optimize", "--minimize", "energy_pj_per_bit", "--vary", "link.data_rate=20 Gbit/s:50 Gbit/s:4",
                 "--vary", "laser.power_per_line=2mW:10mW:5", "--subject-to", "margin_db>=2", "--refine"]) == 0
    out = capsys.readouterr().out
    example = data["stopped_by"][0]["example"]["value"]
    assert f"(energy_pj_per_bit {example:.6g})" in out and f"{best:.6g}" in out


def test_a_point_without_a_price_shows_none_not_nan(capsys):
    """The closest point of a price objective printed 'nan' (a design that cannot be built is not priced)."""
    assert main(["optimize", "--minimize", "network_cost_usd_per_gpu", "--vary",
                 "laser.power_per_line=0.1mW,0.2mW"]) == 1
    out = capsys.readouterr().out
    assert "nan" not in out and "network_cost_usd_per_gpu  –" in out


def test_a_training_objective_at_a_fabric_that_cannot_be_built_fails_its_checks_not_the_rules(capsys):
    """`optimize --model` counted each infeasible fabric as 'refused by the design rules', one group a message;
    such a point has no training value and fails the checks `sipml check` names, as without --model."""
    code, data, err = run(capsys, "--maximize", "speedup_per_dollar", "--model", "resnet-50", "--vary",
                          "laser.power_per_line=0.5mW,6mW")
    assert code == 0, err
    assert data["errors"] == 0 and data["refused"] == [] and data["valid_points"] == 1
    assert data["undefined"]["points"] == 1 and "power_budget" in data["undefined"]["reasons"]


def test_a_grid_where_no_point_qualifies_says_each_point_fails(capsys):
    """'the 2 points with a capacity_gbps fail these constraints' and 'over 1 points' read wrong."""
    from sipml.cli import main

    assert main(["optimize", "--maximize", "capacity_gbps", "--vary", "link.data_rate=50Gbit/s,56Gbit/s"]) == 1
    out = capsys.readouterr().out
    assert "each of the 2 points scored fails these constraints" in out and "over 2 points" in out
    assert main(["optimize", "--maximize", "capacity_gbps", "--vary", "link.data_rate=50Gbit/s"]) == 1
    out = capsys.readouterr().out
    assert "the one point scored fails" in out and "over 1 point\n" in out


def test_an_axis_written_in_dbm_is_shown_in_dbm(capsys):
    """The best point's inputs read as the --vary wrote them ('9 dBm'; it showed '7.94328 mW'), refined ones too."""
    import json

    from sipml.cli import main

    args = ["optimize", "--minimize", "energy_pj_per_bit", "--vary", "laser.power_per_line=3 dBm:12 dBm:4",
            "--subject-to", "margin_db>=1", "-f", "json"]
    assert main(args) == 0
    best = json.loads(capsys.readouterr().out)["best"]
    assert best["texts"]["laser.power_per_line"] == "9 dBm"
    assert main(args + ["--refine"]) == 0
    refined = json.loads(capsys.readouterr().out)["best"]["texts"]["laser.power_per_line"]
    assert refined.endswith(" dBm") and 3 < float(refined.split()[0]) < 12


def test_link_only_judges_each_point_by_its_link_as_budget_does(capsys, tmp_path):
    """A ring-wdm link file without a [fabric] is checked against the default 1,024-GPU ring, whose unamplified
    reach (1 GPU) fails SiP-ML's 16: every point fails `ring_reach`, exit 1. `--link-only` judges the link alone,
    as `sipml budget` does: the best point is the brute-force best of the points whose margin is at least 1 dB
    (through the API, link by link); a quantity of another stage is refused (exit 2)."""
    design = tmp_path / "link.toml"
    design.write_text('[link]\nwavelengths_per_fiber = 8\n')
    powers = ("2 mW", "3 mW", "4 mW", "6 mW")
    grid = [str(design), "--minimize", "energy_pj_per_bit", "--vary", "laser.power_per_line=" + ",".join(powers),
            "--subject-to", "margin_db>=1"]
    code, result, _ = run(capsys, *grid)
    assert code == 1 and result["valid_points"] == 0
    assert {v["name"] for v in result["closest"]["violations"]} >= {"ring_reach"}
    code, result, _ = run(capsys, *grid, "--link-only")
    links = [evaluate(load_design(str(design), [f"laser.power_per_line={p}"]).link) for p in powers]
    qualifying = [link.total_energy_j_per_bit * 1e12 for link in links if link.feasible and link.margin_db >= 1]
    assert code == 0 and result["valid_points"] == len(qualifying) > 0
    assert result["best"]["value"] == pytest.approx(min(qualifying))
    code, _, err = run(capsys, *grid, "--link-only", "--subject-to", "speedup>=1")
    assert code == 2 and "speedup is not a link quantity" in err
    code, _, err = run(capsys, "dgx-h100", "--link-only", "--maximize", "margin_db", "--vary", "fabric.gpus=512,1024")
    assert code == 2 and "has no optical link: --link-only has no link to judge" in err  # was an internal error


def test_points_that_tie_at_the_best_are_counted_and_said(capsys):
    """Two channel spacings close the same capacity: the best shown is the first in the grid's order, and the JSON's
    `ties` and a note say another point scores the same (it was unsaid)."""
    args = ["optimize", "intel-oci", "--link-only", "--maximize", "capacity_gbps", "--vary",
            "link.channel_spacing=100GHz,200GHz"]
    assert main([*args, "-f", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ties"] == 1 and result["best"]["texts"]["link.channel_spacing"] == "100 GHz"
    assert main(args) == 0
    assert "1 other point ties at the best capacity_gbps: the first in the grid's order is shown" in (
        capsys.readouterr().out)
