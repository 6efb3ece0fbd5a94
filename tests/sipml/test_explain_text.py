"""`sipml explain` on a terminal (issue 42): the formula and its terms as text — no LaTeX source, no backslash —
while the JSON keeps the LaTeX (`formula`, `formula_latex`, each term's `term`) beside the text. Through the real
entry point."""

import json
import re

import pytest

from sipml.cli import main
from sipml.explain import formula_text, text_name


@pytest.mark.parametrize("argv", [
    ("margin_db",),
    ("capacity_gbps", "sip-ring"),
    ("optical_reach", "sip-ring"),
    ("bisection_gbps", "sip-ocs"),
    ("network_cost_usd_per_gpu", "sip-ocs"),
    ("network_power_w_per_gpu", "dgx-h100"),
    ("speedup", "sip-ring", "--model", "resnet-50"),
    ("cluster_cost_usd", "sip-ring"),
])
@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_explain_reads_as_text_without_a_backslash(capsys, argv, fmt):
    assert main(["explain", *argv, "-f", fmt]) == 0
    out = capsys.readouterr().out
    assert "formula" in out and "\\" not in out and "mathrm" not in out
    # a figure from 10⁻⁴ to 10¹⁵ without an exponent ("18,920", never "1.892e+04"); beyond, with one
    assert not re.search(r"\de(-0[1-4]|\+0\d|\+1[0-4])\b", out), out


@pytest.mark.parametrize(("value", "digits", "text"), [
    (18920.4, 4, "18,920"), (33977000.0, 4, "33,980,000"), (9999.6, 4, "10,000"), (0.0123456, 4, "0.01235"),
    (280.0, 4, "280"), (-0.5, 3, "-0.5"), (1.2e-5, 4, "1.2e-05"), (2.5e15, 3, "2.5e+15"), (1e-12, 6, "1e-12"),
    (0.0, 4, "0"),
    (float("nan"), 4, "nan"), (-1234.5678, 3, "-1,230")])
def test_a_figure_reads_as_written(value, digits, text):
    from sipml.figures_text import figure_text

    assert figure_text(value, digits) == text


def test_the_margin_formula_and_its_terms_on_the_terminal(capsys):
    assert main(["explain", "margin_db"]) == 0
    out = capsys.readouterr().out
    assert "margin = P_launch - ΣIL - S - ΣPP - M_sys" in out
    terms = [line.split()[0] for line in out.split("With this design's numbers", 1)[1].splitlines()[3:9]]
    assert terms == ["P_launch", "ΣIL", "S", "ΣPP", "M_sys", "margin"]


def test_the_json_keeps_the_latex_and_adds_the_text(capsys):
    assert main(["explain", "margin_db", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["formula_latex"].startswith(r"\mathrm{margin} = P_{\mathrm{launch}}")
    assert data["formula"].startswith(r"\mathrm{margin} = ")  # as before: scripts read it
    assert data["formula_text"] == "margin = P_launch - ΣIL - S - ΣPP - M_sys"
    first = data["numbers"][0]
    assert (first["term"], first["text"]) == (r"P_{\mathrm{launch}}", "P_launch")


@pytest.mark.parametrize("latex, text", [
    (r"P_{\mathrm{launch}}", "P_launch"),
    (r"\Sigma IL_{0}", "ΣIL₀"),
    (r"R_{s}", "Rₛ"),
    (r"N_{\max}", "N_max"),
    (r"N \cdot F", "N · F"),
    (r"\$_{\mathrm{baseline}}", "$_baseline"),
    (r"T_{\mathrm{tensor parallel}}", "T_(tensor parallel)"),
    (r"t_{\mathrm{2-D\ torus\ of\ circuits,\ both\ dimension\ orders}}",
     "t_(2-D torus of circuits, both dimension orders)"),
    (r"\mathbb{1}_{\mathrm{one\ pod}}", "𝟙_(one pod)"),
    (r"\alpha", "α"),
])
def test_text_names_of_latex_terms(latex, text):
    assert text_name(latex) == text


def test_a_product_a_power_and_a_minimum_as_one_line():
    import sympy as sp

    from core.formulas import Formula, Terms

    t = Terms()
    rhs = sp.Min(t(r"h_{\mathrm{amp}}", 22) * t(r"R_{s}", 2) ** 2, t("G", 1024))
    text = formula_text(Formula(r"h", rhs, t.terms))
    assert text.startswith("h = min(") and "·" in text and "^2" in text and "*" not in text
    assert "h_amp" in text and "Rₛ" in text
