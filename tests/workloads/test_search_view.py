"""The strategy search prices collectives on `fabric.estimate.pricing_view`: the same times as on the full estimate,
and designs that differ only in what pricing does not read share one search."""

from __future__ import annotations

import numpy as np
import pytest

from fabric.estimate import pricing_view
from fabric.evaluate import evaluate_fabric
from sipml.design_files import load_design
from workloads.models import load_model
from workloads.speedup import _search, breakdown, default_batch, evaluate_model, gpu_of


@pytest.mark.parametrize("name", ["sip-ring", "sip-ocs", "dgx-a100", "fattree-200", "ideal"])
@pytest.mark.parametrize("model_name", ["gpt2-355m", "resnet-50", "dlrm-dcnv2"])
def test_the_view_prices_every_candidate_as_the_full_estimate(name, model_name):
    design = load_design(name, ["fabric.gpus=64"])
    model = load_model(model_name)
    batch, _ = default_batch(model, design.job_gpus)
    est = evaluate_fabric(design)
    gpu = gpu_of(design)
    _, full = breakdown(model, gpu, est, batch)
    _, seen = breakdown(model, gpu, pricing_view(est), batch)
    assert np.array_equal(full.iteration_s, seen.iteration_s)
    result = evaluate_model(model, design, name, batch)
    ok = full.fits & np.isfinite(full.iteration_s)
    # the fastest candidate of the fastest way the fabric runs the job (SiP-Ring: static, periodic, phased)
    from fabric.registry import get_kind

    fastest = []
    for option in get_kind(est.kind).alternatives(est):
        _, br = breakdown(model, gpu, option, batch)
        fastest.append(float(np.min(br.iteration_s[br.fits & np.isfinite(br.iteration_s)])))
    assert result.top[0].iteration_s == min(fastest) <= float(np.min(full.iteration_s[ok]))
    assert result.estimate.details == get_kind(est.kind).alternatives(est)[int(np.argmin(fastest))].details


def test_designs_that_differ_only_in_link_margin_share_one_search():
    """More laser power moves the margin, not the capacity or the reach: the second search is the cache's."""
    model = load_model("gpt2-355m")
    a = load_design("sip-ocs", ["fabric.gpus=64"])
    b = load_design("sip-ocs", ["fabric.gpus=64", 'laser.power_per_line="7 mW"'])
    ea, eb = evaluate_fabric(a), evaluate_fabric(b)
    assert ea.link.margin_db != eb.link.margin_db and pricing_view(ea) == pricing_view(eb)
    batch, _ = default_batch(model, a.job_gpus)
    _search.cache_clear()
    ra, rb = evaluate_model(model, a, "a", batch), evaluate_model(model, b, "b", batch)
    assert _search.cache_info().hits == 1 and ra.top == rb.top
    assert ra.cost.cluster_cost_usd == rb.cost.cluster_cost_usd


@pytest.mark.parametrize("name", ["sip-ring", "sip-ocs", "dgx-a100", "ideal"])
def test_what_the_view_leaves_out_of_equality_is_not_read_by_pricing(name):
    """Details fields outside equality (compare=False) are informational: set to NaN, every collective prices the
    same, so sharing a search between views that differ only there is exact."""
    import dataclasses

    from fabric.evaluate import OPS, job_collective

    est = evaluate_fabric(load_design(name, ["fabric.gpus=64"]))
    hidden = {f.name: float("nan") for f in dataclasses.fields(est.details) if not f.compare} \
        if dataclasses.is_dataclass(est.details) else {}
    if name in ("sip-ring", "sip-ocs"):
        assert hidden
    blurred = dataclasses.replace(pricing_view(est), details=dataclasses.replace(est.details, **hidden))
    for op in OPS:
        for size in (1e3, 1e8):
            assert job_collective(blurred, op, size) == job_collective(pricing_view(est), op, size)
