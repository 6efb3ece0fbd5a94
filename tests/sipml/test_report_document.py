"""`sipml report` as a document (issue 42): the answer first — a summary computed from the numbers, then the
headline table with every design on the same GPU — inside the first screen (24 lines); then the assumptions that move
it with their sources; then the details; the validation in a line with a pointer to `sipml validate`; version,
date and command line on the HTML page and in the figures' metadata. Through the real entry point."""

import contextlib
import io
import json
import re

import pytest

from sipml import __version__
from sipml.cli import main
from sipml.story_report import BASELINES, MODELS, TRAINING
from tests.sipml.report_runs import report_output


def _run(*argv) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def table():
    return report_output()


@pytest.fixture(scope="module")
def data():
    return json.loads(report_output("-f", "json"))


def _headline(data) -> dict:
    return {(r["model"], r["design"]): r["baselines"][BASELINES[0]] for r in data["training"]}


def test_the_first_screen_holds_the_summary_and_the_whole_headline_table(table, data):
    screen = table.splitlines()[:24]
    text = "\n".join(screen)
    header = next(i for i, line in enumerate(screen) if line.startswith(f"over {BASELINES[0]}"))
    assert header > 0 and all(d in screen[header].split() for d in TRAINING)
    rows = "\n".join(screen[header + 2:]).split("\n\n", 1)[0].splitlines()
    assert len(rows) == 3 * len(MODELS)  # speedup, per $, per W: a block of one row per model each
    cells = _headline(data)
    measure = None
    for line in rows:
        words = line.split()
        if words[0] in ("speedup", "per"):
            measure = {"speedup": "speedup", "per $": "speedup_per_dollar", "per W": "speedup_per_watt"}[
                " ".join(words[:2]) if words[0] == "per" else words[0]]
            words = words[2:] if words[0] == "per" else words[1:]
        model, *numbers = words
        assert numbers == [f"{cells[(model, d)][measure]:.2f}" for d in TRAINING], line
    assert "Validation" not in text or "sipml validate" in text  # no validation table on the first screen
    assert data["summary"] and " ".join(data["summary"]).split()[0] in text  # the summary comes first


def test_the_summary_is_computed_from_the_tables(data):
    """Its spans are the headline table's, its GPU generation the generation table's, its assumption the top row
    of the sensitivity table: change a number and the sentence follows."""
    summary = " ".join(data["summary"])
    cells = _headline(data)
    for design in ("sip-ring", "sip-ocs"):
        speedups = [cells[(m, design)]["speedup"] for m in MODELS]
        assert f"{design} {min(speedups):.2f}–{max(speedups):.2f}×" in summary
    alone = [r["over_same_fabric"]["speedup"] for r in data["gpu_generation"]]
    assert f"{min(alone):.2f}–{max(alone):.2f}× on the same fabric" in summary
    top = data["sensitivity"][0]
    assert top["assumption"] in summary and f"{top['low']:.2f}" in summary and f"{top['high']:.2f}" in summary
    fastest = {m: max(TRAINING, key=lambda d: cells[(m, d)]["speedup"]) for m in MODELS}
    leader = max(fastest.values(), key=list(fastest.values()).count)
    assert f"fastest {leader}" in summary


def test_the_order_is_answer_assumptions_details_and_validation_is_a_line(table, data):
    titles = ["Training on 1024 GPUs, every design on the A100", "Assumptions that move the answer most",
              "Training on the same GPU, a100_sxm4_40gb", "GPU generation:", "The optical link", "Fabrics side by side",
              "Validation:"]
    where = [table.index(t) for t in titles]
    assert where == sorted(where)
    validation = [line for line in table.splitlines() if "published cases" in line]
    assert len(validation) == 1 and "sipml validate" in validation[0]
    v = data["validation"]
    assert f"Validation: {v['passed']} of {v['cases']} published cases inside their tolerance" in validation[0]
    assert not re.search(r"^physics\s+R1 ", table, re.M)  # the cases are `sipml validate`'s, not the report's


def test_the_assumptions_carry_their_sources(data, table):
    assert data["sensitivity"] and all(e["source"] for e in data["sensitivity"])
    ocs = next(e for e in data["sensitivity"] if e["assumption"].startswith("ocs.sipml_1024 price"))
    assert ocs["source"].startswith("ocs.sipml_1024: price") and "[assumed]" in ocs["source"]
    latency = next(e for e in data["sensitivity"] if e["assumption"].startswith("step latency"))
    assert "NCCL" in latency["source"]
    assert ocs["source"] in table


def test_training_results_are_columns_not_triplets(table):
    details = table.split("Training on the same GPU", 1)[1].split("\n\n", 1)[0]
    header = details.splitlines()[1]
    for column in ("speedup", "per $", "per W", "dgx-a100 speedup", "dgx-a100 per $", "dgx-a100 per W"):
        assert column in header
    assert not re.search(r"\d\.\d\d / \d\.\d\d / \d\.\d\d", table)


@pytest.fixture(scope="module")
def html_and_figures(html_report_run):
    return html_report_run


def test_the_html_is_stamped_with_version_date_and_command_line(html_and_figures):
    text, _, folder = html_and_figures
    stamp = re.search(r'<p class="stamp">([^<]*)</p>', text).group(1)
    assert stamp.startswith(f"sipml {__version__}, ")
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", stamp)
    assert stamp.endswith(f"sipml report --format html --output {folder / 'report.html'} --plots "
                          f"{folder / 'figures'}")
    assert f'<meta name="generator" content="{stamp}">' in text.replace("&#x27;", "'")
    # the summary before the first table; design names never broken at their hyphen
    assert text.index("<p>On 1024 A100s") < text.index("<table>")
    assert '<th class="nw">fattree-400</th>' in text and '<td class="nw">fattree-400</td>' in text
    assert ".nw { white-space: nowrap; }" in text


def test_each_figure_carries_the_stamp_in_its_metadata(html_and_figures):
    from PIL import Image

    _, figures, folder = html_and_figures
    assert len(figures) == 5
    for path in figures:
        meta = Image.open(path).text
        assert meta["Software"] == f"sipml {__version__}" and meta["Title"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", meta["Creation Time"])
        assert meta["Source"].startswith("sipml report --format html")


def test_the_command_line_outside_the_cli_says_so():
    from sipml.provenance import command_line

    assert command_line() == "Python API"


def test_the_link_section_s_json_holds_every_row_of_its_table(data):
    """The table's 'laser power per line, least that closes' had no JSON key; it is budget's figure."""
    budget = json.loads(_run("budget", "sip-ring", "-f", "json"))
    assert data["link"]["min_laser_power_per_line_dbm"] == budget["min_laser_power_per_line_dbm"]
    assert data["link"]["margin_db"] == budget["margin_db"]


def test_the_assumptions_ranked_are_every_price_in_the_bills_largest_swing_first(data):
    """The table ranked four fixed assumptions, its 'most sensitive' (the OCS port price, 0.39) below SiP-Ring's
    amplifier price (0.62), which `explain speedup_per_dollar` showed: every price of each design's bill is ranked
    now, as explain ranks them."""
    import json

    rows = data["sensitivity"]
    swings = [abs(e["high"] - e["low"]) for e in rows]
    assert swings == sorted(swings, reverse=True)
    # a part only the baseline buys moves the ratio too (its price lowers the baseline's cost): ranked, with its source
    optics = next(e for e in rows if e["design"] == "sip-ring" and e["assumption"].startswith("transceiver.hdr_200g"))
    assert optics["high"] > optics["base"] > optics["low"] and optics["source"].startswith("transceiver.hdr_200g")
    ring = {e["assumption"].split(" price")[0]: abs(e["high"] - e["low"]) for e in rows if e["design"] == "sip-ring"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["explain", "speedup_per_dollar", "sip-ring", "-m", "gpt2-355m", "-f", "json"]) == 0
    explained = {r["key"]: r["swing"] for r in json.loads(out.getvalue())["sensitivities"] if r["section"] == "catalog"}
    assert set(explained) <= set(ring)
    assert max(explained, key=explained.get) == max((k for k in ring if k in explained), key=ring.get)
