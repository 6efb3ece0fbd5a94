"""`sipml explain QUANTITY [DESIGN]`: formula, the design's numbers, and sensitivities that can be checked by hand."""

import json
import math

import pytest

from sipml.cli import main


def explain(capsys, *argv):
    code = main(["explain", *argv, "-f", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if code == 0 else None


def by_input(data):
    return {(r["section"], r["key"]): r for r in data["sensitivities"]}


def test_margin_moves_one_for_one_with_each_loss_on_the_path(capsys):
    """Hand calculation: every dB of a loss the worst wavelength crosses once comes off the margin; the coupler is
    crossed twice (output and input couplers), so ∂margin/∂coupler = −2."""
    code, data = explain(capsys, "margin_db", "sip-ring")
    rows = by_input(data)
    assert code == 0 and data["quantity"] == "margin_db" and data["formula"]
    assert rows[("loss", "coupler")]["derivative"] == pytest.approx(-2.0, abs=1e-9)
    assert rows[("modulator", "insertion_loss")]["derivative"] == pytest.approx(-1.0, abs=1e-9)
    assert rows[("laser", "coupling_loss")]["derivative"] == pytest.approx(-1.0, abs=1e-9)
    terms = {t["term"]: float(t["value"]) for t in data["numbers"]}
    assert terms[r"\mathrm{margin}"] == pytest.approx(data["value"], rel=1e-5)
    assert terms["S"] < 0 and terms[r"\Sigma IL"] > 0


def test_capacity_scales_with_the_line_rate_where_the_design_s_own_counts_bind(capsys):
    """sip-ring's capacity is its requested 8 λ × 25 Gbps × 10 fibers = 2 Tbps (binding limit 'requested'), so
    C ∝ R: at 22.5 and 27.5 Gbps it is 1.8 and 2.2 Tbps (27.5 GBd is still inside the rings' f0/Q linewidths),
    an elasticity of exactly +1."""
    code, data = explain(capsys, "capacity_gbps", "sip-ring")
    row = by_input(data)[("link", "data_rate")]
    assert code == 0 and data["value"] == pytest.approx(2000.0)
    assert (row["low"], row["high"]) == (pytest.approx(1800.0), pytest.approx(2200.0))
    assert row["elasticity"] == pytest.approx(1.0)


def test_sensitivities_are_ranked_by_swing_and_name_their_source(capsys):
    code, data = explain(capsys, "network_cost_usd_per_gpu", "sip-ocs")
    swings = [r["swing"] for r in data["sensitivities"]]
    assert code == 0 and swings == sorted(swings, reverse=True) and len(swings) >= 5
    assert all(r["source"] for r in data["sensitivities"])
    catalog = [r for r in data["sensitivities"] if r["section"] == "catalog"]
    assert any(r["key"].startswith("ocs.") for r in catalog)  # the OCS port price moves an OCS fabric's cost


def test_a_training_quantity_is_explained_against_its_baseline(capsys):
    code, data = explain(capsys, "speedup", "fattree-200", "--model", "resnet-50")
    assert code == 0 and data["value"] == pytest.approx(1.0)  # the baseline against itself


@pytest.mark.parametrize("argv, fragment", [
    (["margin_dbb"], "did you mean 'margin_db'"),
    (["margin_db", "no-such-design"], "no such file or built-in design"),
    (["margin_db", "--set", "link.data_rate=25"], "bare number"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, fragment):
    assert main(["explain", *argv]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_explain_without_a_quantity_is_still_the_derivation(capsys):
    assert main(["explain"]) == 0
    assert "max_wavelengths" in capsys.readouterr().out
    assert main(["explain", "--set", "link.data_rate=50 Gbit/s"]) == 2


def test_the_numbers_of_the_reach_and_the_network_cost_add_up(capsys):
    """The terms `explain` shows are the formula's, and with them it gives the value it reports."""
    code, data = explain(capsys, "optical_reach", "sip-ring", "--set", "sip_ring.amplifier_every=0")
    terms = {t["term"]: float(t["value"]) for t in data["numbers"]}
    margin, per_gpu = terms[r"m_{\mathrm{neighbour}}"], terms[r"L_{\mathrm{pass}}"]
    assert code == 0 and terms["h"] == data["value"] == 1 + int(margin // per_gpu)  # unamplified: the hop reach
    code, data = explain(capsys, "network_cost_usd_per_gpu", "sip-ocs")
    parts = [float(t["value"]) for t in data["numbers"][:-1]]
    assert len(parts) > 2 and sum(parts) == pytest.approx(data["value"], rel=1e-5)


def test_the_latex_of_the_formula_is_in_html_and_json_only(capsys):
    """Issue 42: Markdown is read as text like the table; the LaTeX stays in the HTML page and the JSON."""
    from sipml.cli import main

    assert main(["explain", "margin_db", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| formula | margin = P_launch - ΣIL - S - ΣPP - M_sys |" in out and "\\" not in out
    assert main(["explain", "margin_db", "--format", "html"]) == 0
    assert "\\mathrm{margin} = P_{\\mathrm{launch}}" in capsys.readouterr().out


def test_a_cost_is_shown_to_the_dollar_and_each_term_says_its_count_and_price(capsys):
    """explain printed 53,428,500 USD where `cost` prints 53,428,480 (six significant digits), and its terms were
    totals named as one item ('NVIDIA H100 … GPU module': 28,800,000 USD)."""
    import re

    assert main(["cost", "dgx-h100", "-f", "json"]) == 0
    total = json.loads(capsys.readouterr().out)
    assert main(["explain", "cluster_cost_usd", "dgx-h100"]) == 0
    out = capsys.readouterr().out
    figure = f"{round(total['designs'][0]['cluster_cost_usd']):,}"
    assert f"cluster_cost_usd  {figure} USD" in out, out[:400]  # every digit of `cost`'s figure
    terms = re.findall(r"^c_\S+\s+([\d,]+)\s+USD\s+([\d,.]+) × ([\d,.]+) USD per ", out, re.MULTILINE)
    assert len(terms) >= 5
    for value, count, price in terms:
        assert float(value.replace(",", "")) == pytest.approx(float(count.replace(",", "")) *
                                                              float(price.replace(",", "")), rel=1e-5)


def test_a_count_at_one_steps_up_not_to_zero_which_reads_as_none(capsys):
    """[sip_ring] amplifier_every = 1 stepped to 0 (no amplifiers) and 2, so its sensitivity measured switching the
    amplifiers off; from 1, a count steps to 2 alone (its low end the design itself)."""
    code, data = explain(capsys, "optical_reach", "sip-ring")
    assert code == 0
    every = by_input(data)[("sip_ring", "amplifier_every")]
    assert every["value"] == 1 and every["low"] == data["value"] and every["high"] != every["low"]
    assert every["derivative"] == every["high"] - every["low"]  # one step, from 1 to 2


def test_a_price_of_a_design_that_cannot_be_built_is_refused_as_cost_refuses_it(capsys):
    """`explain network_cost_usd_per_gpu` of an infeasible design printed a price (exit 0) where `cost` says 'not
    priced'; a quantity that is not a price is still explained there."""
    low = ["--set", "laser.power_per_line=0.1 mW"]
    assert main(["explain", "network_cost_usd_per_gpu", "sip-ring", *low]) == 1
    err = capsys.readouterr().err
    assert "not defined for this design: the design cannot be built (violated: power_budget" in err, err
    assert main(["cost", "sip-ring", *low, "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["designs"][0]["network_cost_usd_per_gpu"] is None
    assert main(["explain", "bisection_gbps", "sip-ring", *low, "-f", "json"]) == 0


def test_the_json_keeps_every_digit_and_names_each_input_left_out(capsys):
    """`numbers[].value` were texts of six digits, `inputs_left_out` a bare count; a price step past the design's
    feasible edge is one-sided (7 comb lines cannot carry 8 wavelengths; 9 price one more line)."""
    code, data = explain(capsys, "network_cost_usd_per_gpu", "sip-ring")
    assert code == 0
    assert all(isinstance(n["value"], float) for n in data["numbers"])
    assert sum(n["value"] for n in data["numbers"][:-1]) == pytest.approx(data["numbers"][-1]["value"], rel=1e-12)
    assert data["inputs_left_out"] == len(data["left_out"]) > 0
    assert all(e["why"] and e["section"] and e["key"] for e in data["left_out"])
    lines = by_input(data)[("laser", "lines")]
    assert lines["value"] == 8 and lines["low"] == data["value"] < lines["high"]
    assert lines["no_value_at"] == "low"  # marked: its swing is one step's, not a two-sided one
    assert all(r["no_value_at"] in (None, "low", "high") for r in data["sensitivities"])
    assert any(r["no_value_at"] is None for r in data["sensitivities"])


def test_small_losses_in_db_step_to_their_bound_and_a_loss_per_length_steps_ten_percent(capsys):
    """Hand calculation on the sip-ring budget (4 bends of 0.02 dB, one fiber path): a −1 dB step of a 0.02 dB bend
    loss leaves its range, so the loss lines were all left out of what moves the margin; they step to 0 dB now, and
    each dB of bend loss costs 4 dB of margin. A fiber's dB/km is a coefficient, not a level: ±10 %, not ±1 dB/m
    (a thousand dB/km). A system margin of 0 dB steps one way, and takes a dB of margin per dB."""
    code, data = explain(capsys, "margin_db", "sip-ring")
    assert code == 0
    rows, left = by_input(data), {(e["section"], e["key"]) for e in data["left_out"]}
    bend = rows[("loss", "bend_loss")]
    assert (bend["low_input"], bend["high_input"]) == (0.0, pytest.approx(1.02))
    assert bend["derivative"] == pytest.approx(-4.0, abs=1e-9) and bend["low"] == pytest.approx(data["value"] + 0.08)
    fiber = rows[("loss", "fiber_loss")]
    assert fiber["low_input"] == pytest.approx(0.9 * fiber["value"]) and fiber["elasticity"] is not None
    margin = rows[("link", "system_margin")]
    assert margin["value"] == margin["low_input"] == 0.0 and margin["derivative"] == pytest.approx(-1.0, abs=1e-9)
    losses = {("loss", k) for k in ("bend_loss", "crossing_loss", "splitter_loss", "connector_loss", "splice_loss",
                                    "fiber_loss", "mux_demux_loss")} | {("ring", "through_excess_loss")}
    assert not losses & left
    assert main(["explain", "margin_db", "sip-ring"]) == 0
    table = capsys.readouterr().out
    assert "0.02 dB (steps 0 dB … 1.02 dB)" in table and "e+0" not in table


def test_a_training_quantity_steps_one_way_where_the_other_step_cannot_train(capsys):
    """9 wavelengths on the default ring pass its FSR (the design cannot be built, so nothing trains): the
    wavelength count was left out of what moves the speedup, though 7 gives a number; it is one-sided now."""
    code, data = explain(capsys, "speedup", "sip-ring", "--model", "resnet-50")
    assert code == 0
    count = by_input(data)[("link", "wavelengths_per_fiber")]
    assert count["value"] == 8 and count["high"] == data["value"] and count["low"] < data["value"]
    assert count["derivative"] == pytest.approx(data["value"] - count["low"])
    assert count["no_value_at"] == "high"
    assert main(["explain", "speedup", "sip-ring", "--model", "resnet-50"]) == 0
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if "[link] wavelengths_per_fiber" in line)
    assert row.split("…")[1].split()[0] == "–" and "–: no value at that step" in table


def test_an_input_without_a_value_at_either_step_is_listed_as_left_out(capsys):
    """amplifier_every = 1 steps to 2 only, where the ring cannot be built (no price): it was in neither the
    sensitivities nor `left_out`."""
    code, data = explain(capsys, "network_cost_usd_per_gpu", "sip-ring")
    assert code == 0 and ("sip_ring", "amplifier_every") not in by_input(data)
    left = {(e["section"], e["key"]): e["why"] for e in data["left_out"]}
    assert left[("sip_ring", "amplifier_every")].startswith("no network_cost_usd_per_gpu at its one step")
    assert "a count at 1 steps to 2 only" in left[("sip_ring", "amplifier_every")]


def test_a_small_ring_s_degree_formula_gives_its_value(capsys):
    """D = min(N·F, d·h, P): the formula's numbers give the 2 peers of a 3-GPU ring (without P it read 4)."""
    code, data = explain(capsys, "degree", "sip-ring", "--set", "fabric.gpus=3")
    assert code == 0 and data["value"] == 2 and data["numbers"][-1]["value"] == 2
    assert {n["text"]: n["value"] for n in data["numbers"]}["P"] == 2


def test_a_speedup_per_dollar_moves_with_the_baseline_s_prices_too(capsys):
    """speedup per $ is the design's speedup over the baseline's cost ratio: a part only the baseline buys (the
    fat-tree's transceivers) moves it the other way, and was not listed."""
    code, data = explain(capsys, "speedup_per_dollar", "sip-ring", "--model", "gpt2-355m")
    assert code == 0
    optics = by_input(data)[("catalog", "transceiver.hdr_200g_qsfp56")]
    assert optics["high"] > data["value"] > optics["low"] and optics["high_input"] > optics["low_input"]


def test_an_input_whose_steps_both_lower_the_quantity_ranks_by_the_farther_step(capsys):
    """ResNet-50 on SiP-Ring at 1 024 GPUs sits at a peak: 1 023 and 1 025 GPUs both fall to a degenerate strategy
    (speedup ~1.016 against 1.538). Ranked by the gap between the steps (5e-5) it was left out of the table."""
    code, data = explain(capsys, "speedup", "sip-ring", "--model", "resnet-50")
    assert code == 0
    gpus = by_input(data)[("fabric", "gpus")]
    assert gpus["low"] < data["value"] - 0.3 and gpus["high"] < data["value"] - 0.3
    assert data["sensitivities"][0]["key"] == "gpus"
    assert main(["explain", "speedup", "sip-ring", "--model", "resnet-50"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("[fabric] gpus"))
    farther = max(data["value"] - gpus["low"], data["value"] - gpus["high"])
    assert f"both steps lower it, by up to {farther:.3g}" in row  # what ranks it, beside the swing between steps


def test_a_step_that_moves_only_the_rounding_is_no_move(capsys):
    """sip-ring's margin with the ring radius a step smaller: the worst channel stays where it was, and the margin
    differed from the design's in its 16th digit (4e-16 dB), read as 'both steps lower it'. It is the design's
    value: the row is the larger step's alone, with a slope."""
    from sipml.cli import main

    assert main(["explain", "margin_db", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    radius = next(r for r in data["sensitivities"] if r["key"] == "radius")
    assert radius["low"] == data["value"] and radius["high"] < data["value"] and radius["elasticity"] < 0
    assert main(["explain", "margin_db"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("[ring] radius"))
    assert "both steps" not in line and "%/%" in line


def test_energy_per_bit_of_a_link_that_closes_nothing_says_so_and_exits_1(capsys):
    """At 50 Gbit/s sip-ring's budget closes no wavelength: energy per bit has no bits to divide by. The refusal
    says that (it named the fabric and link kinds, as if the quantity did not apply to them) and exits 1, an
    infeasible design, as `check` does."""
    from sipml.cli import main

    assert main(["explain", "energy_pj_per_bit", "--set", "link.data_rate=50 Gbit/s"]) == 1
    err = capsys.readouterr().err
    assert "closes no wavelength" in err and "kind" not in err and err.count("\n") == 1
    assert main(["check", "--set", "link.data_rate=50 Gbit/s"]) == 1
    capsys.readouterr()
    for quantity in ("max_fiber_length_m", "max_switch_passes"):  # no reason of their own: the link's violations
        assert main(["explain", quantity, "--set", "laser.power_per_line=0.01 mW"]) == 1
        err = capsys.readouterr().err
        assert "the link is infeasible (power_budget)" in err and "kind" not in err


def test_an_optical_power_steps_one_db_and_moves_the_margin_one_db_per_db(capsys):
    """A laser's power per line is a level: it steps ±1 dB (the README's rule for dB inputs), shown in dBm, and the
    margin of a budget the aggregate cap does not bind moves dB for dB with it (E8: every received line scales)."""
    from sipml.cli import main

    assert main(["explain", "margin_db", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    power = next(r for r in data["sensitivities"] if r["key"] == "power_per_line")
    assert power["shown"] == "7.782 dBm"
    assert 10 * math.log10(power["high_input"] / power["value"]) == pytest.approx(1.0)
    assert 10 * math.log10(power["value"] / power["low_input"]) == pytest.approx(1.0)
    assert power["derivative"] == pytest.approx(1.0, rel=1e-9) and power["elasticity"] is None
    assert power["high"] - data["value"] == pytest.approx(1.0) and data["value"] - power["low"] == pytest.approx(1.0)


def test_the_derivation_honours_the_format_and_the_output_file(capsys, tmp_path):
    """`explain` without a quantity printed its text whatever `-f` and `-o` said (no file written, exit 0); it writes
    the file, and JSON holds the derivation's lines."""
    from sipml.cli import main

    assert main(["explain", "-f", "json"]) == 0
    lines = json.loads(capsys.readouterr().out)["derivation"]
    assert any("max_wavelengths" in line for line in lines)
    path = tmp_path / "derivation.html"
    assert main(["explain", "-f", "html", "-o", str(path)]) == 0
    assert "max_wavelengths" in path.read_text()
    assert main(["explain"]) == 0 and "Budget of one wavelength" in capsys.readouterr().out
