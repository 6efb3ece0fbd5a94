"""One evaluation of a design point: every stage computed at most once and handed forward (workloads.evaluation),
counted where the stages are called; and the few result caches left are the documented ones."""

from __future__ import annotations

import ast
import collections
import io

import pytest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import workloads.evaluation as evaluation
from tests.source_trees import nodes

ROOT = Path(__file__).resolve().parents[2]


def counting(monkeypatch):
    """Calls of each stage, by the design (or estimate) it was asked for: the link's in `workloads.evaluation`, the
    fabric's and the bill's where `Evaluation` imports them when first read."""
    import fabric.cost
    import fabric.evaluate

    calls = collections.defaultdict(list)
    for module, stage in ((evaluation, "evaluate"), (fabric.evaluate, "evaluate_fabric"),
                          (fabric.cost, "cost_summary")):
        real = getattr(module, stage)

        def wrapper(first, *args, _real=real, _stage=stage, **kwargs):
            calls[_stage].append(first)
            return _real(first, *args, **kwargs)

        monkeypatch.setattr(module, stage, wrapper)
    return calls


def test_explain_evaluates_each_distinct_design_s_fabric_once(monkeypatch):
    from sipml.cli import main

    calls = counting(monkeypatch)
    with redirect_stdout(io.StringIO()):
        assert main(["explain", "speedup_per_dollar", "sip-ring", "-f", "json"]) == 0
    fabrics = calls["evaluate_fabric"]
    assert len(fabrics) > 50  # every input stepped both ways, the baseline, the catalog prices
    assert len(fabrics) == len(set(fabrics)), collections.Counter(fabrics).most_common(3)
    links = calls["evaluate"]  # each link design once: points stepped off the link (fabric, sip_ring, reliability)
    assert len(links) == len(set(links)) and len(links) < len(fabrics) - 20, collections.Counter(links).most_common(3)


def test_speedup_runs_sharing_their_points_evaluate_each_design_once(monkeypatch):
    """`sipml report`'s training table: one `run_speedup` per model and GPU, sharing what they evaluated
    (`Shared`): each design's fabric and bill once over all of them, the same rows as runs that share nothing."""
    from sipml.speedup_report import Shared, run_speedup

    def runs(shared_once: bool):
        shared = Shared() if shared_once else None
        return [run_speedup(["sip-ring", "sip-ocs"], model, None, None, None, sets, ["fattree-200"], None,
                            shared=shared)[0]
                for model in ("gpt2-355m", "transformer-big") for sets in ([], ['fabric.gpu="gpu.h100_sxm5"'])]

    alone = runs(False)
    calls = counting(monkeypatch)
    assert runs(True) == alone
    fabrics, bills = calls["evaluate_fabric"], calls["cost_summary"]
    assert len(fabrics) == len(set(fabrics)) == 6, collections.Counter(fabrics).most_common(3)  # 3 designs × 2 GPUs
    assert len(bills) == 6 and len(calls["evaluate"]) == 2  # each SiP design's link once for both GPUs


def test_explain_shares_a_link_only_where_its_readings_ask_for_it():
    """A point-to-point link in a SiP-Ring cluster is refused by the fabric before its link is evaluated: explain's
    link sharing evaluates nothing early, so the refusal is the fabric's, not the link's own error."""
    from sipml.cli import main

    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["explain", "network_cost_usd_per_gpu", str(ROOT / "sipml/cases/links/400gbase-dr4.toml"),
                     "--set", "laser.kind=comb"])
    assert code == 2 and "is built from ring-wdm chiplets" in err.getvalue(), err.getvalue()


def test_a_sweep_row_evaluates_each_stage_once(monkeypatch):
    from sipml.design_files import ALL_SECTIONS
    from sipml.sweep_point_rows import Trained, evaluate_chunk
    from sipml.sweep_run import grid_points, parse_axis

    axes = tuple(parse_axis(v, ALL_SECTIONS) for v in ("link.wavelengths_per_fiber=4,8", "laser.power_per_line=6 mW,8 mW"))
    calls = counting(monkeypatch)
    rows = evaluate_chunk("sip-ring", (), axes, tuple(grid_points(list(axes))), Trained("gpt2-355m"))
    assert len(rows) == 4 and all(r["error"] == "" and r["training_feasible"] for r in rows)
    # one link, one fabric and one bill per row; the baseline's fabric and bill once for the chunk
    assert len(calls["evaluate"]) == 4
    assert len(calls["evaluate_fabric"]) == 4 + 1 and len(calls["cost_summary"]) == 4 + 1


def _memoised(path: Path):
    """(function, decorator line) of every function with arguments whose results are memoised (a stage an object
    computes once for itself, `cached_property`, is not a cache: it is the object's own result)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for node in nodes(path):
        if not isinstance(node, ast.FunctionDef) or not (node.args.args or node.args.vararg):
            continue
        for dec in node.decorator_list:
            text = ast.unparse(dec)
            if "lru_cache" in text or "last_results" in text or text in ("cache", "functools.cache"):
                yield f"{path.relative_to(ROOT)}:{node.name}", lines[dec.lineno - 1]


def test_at_most_four_result_caches_each_saying_what_it_saves():
    """The model's and the application's memoised functions (core's unit and declaration tables aside): four at
    most, each with a comment on its decorator line."""
    found = [m for floor in ("photonics", "fabric", "workloads", "sipml") for path in sorted((ROOT / floor).rglob("*.py"))
             for m in _memoised(path)]
    assert len(found) <= 4, [name for name, _ in found]
    for name, line in found:
        assert "#" in line, name


def test_the_count_sees_a_memoised_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import functools\n@functools.lru_cache(maxsize=2)\ndef f(x):\n    return x\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert [name for name, _ in _memoised(module)] == ["m.py:f"]
    finally:
        ROOT = saved


def test_a_shared_point_is_reused_only_under_its_own_catalog(tmp_path):
    """`Shared` keeps each design's evaluation with the catalog it was priced from: a later run under another
    catalog prices afresh (its cost per dollar moves), one under the same catalog reuses the point."""
    from fabric.catalog import load_catalog
    from sipml.speedup_report import Shared, run_speedup

    cheap = tmp_path / "cheap.toml"
    cheap.write_text('[sip.optical_io_chiplet]\nprice_typical = "100 USD"\nprice_low = "50 USD"\n')
    shipped, mine = load_catalog(), load_catalog(cheap)
    shared = Shared()

    def per_dollar(catalog):
        rows = run_speedup(["sip-ring"], "resnet-50", None, None, None, [], ["fattree-200"], None, catalog=catalog,
                           shared=shared)[0]
        return rows[0]["cluster_cost_usd"]

    first = per_dollar(shipped)
    point = shared.points[next(iter(shared.points))]
    assert per_dollar(mine) == pytest.approx(first - 1024 * (1500 - 100))
    assert per_dollar(shipped) == first and shared.points[point.design].catalog is shipped
