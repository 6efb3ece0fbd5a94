"""Several jobs on one fabric, priced alone and together: the slowdowns derived by hand from what the jobs share."""

import dataclasses

import pytest

from core.errors import InputError
from fabric.kind import Collective
from fabric.placement import Request, place
from fabric.registry import get_kind
from sipml.design_files import load_design
from workloads.evaluation import Evaluation
from workloads.mix import mix_from_mapping, run_mix

# 1,024 H100s in 2 pods of 512 GPUs (64 NIC ports per rail plane × 8 rails), 1:4 above the pods
PODS = ["fabric.gpus=1024", "electrical.pod_gpus=64", "electrical.pod_oversubscription=4"]
STRADDLING = {"job": [{"name": "a", "model": "gpt3-175b", "gpus": 512, "at": "0-255,512-767", "batch": 512,
                       "strategy": "tp=8,pp=32,order=tp-pp-dp"},
                      {"name": "b", "model": "gpt3-175b", "gpus": 512, "at": "256-511,768-1023", "batch": 512,
                       "strategy": "tp=8,pp=32,order=tp-pp-dp"}]}


def _views(design, requests, job_gpus):
    est = Evaluation(design).fabric
    kind = get_kind(est.kind)
    placed = place(kind.slots_of(est), requests)
    job = Evaluation(dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, job_gpus=job_gpus))).fabric
    return kind, [(kind.job_view(job, placed, j, False), kind.job_view(job, placed, j, True))
                  for j in range(len(requests))]


def test_jobs_straddling_oversubscribed_pods_share_the_uplinks():
    """Each job has 256 GPUs in each pod. Alone, its groups have a pod's uplinks (512·B_e/4) to themselves: a rank
    of a data-parallel pair (one member per pod, stride 256) runs at B_e·512/(4·256) = B_e/2. Together the two jobs'
    512 GPUs share them: B_e/4, the gradient all-reduce's bandwidth halved."""
    design = load_design("dgx-h100", PODS)
    kind, views = _views(design, [Request("a", 512, at="0-255,512-767"), Request("b", 512, at="256-511,768-1023")],
                         512)
    el = design.topology
    be = el.nic_bandwidth * el.nic_efficiency
    pair = Collective("all_reduce", 1e9, 2, 256)
    for alone, together in views:
        a = kind.price(alone, [pair])[0]
        t = kind.price(together, [pair])[0]
        assert a.bandwidth_bps == pytest.approx(be / 2, rel=1e-12)
        assert t.bandwidth_bps == pytest.approx(be / 4, rel=1e-12)
        assert t.seconds / a.seconds == pytest.approx(2.0, rel=0.01)  # the bandwidth term dominates at 1 GB
    run = run_mix(design, mix_from_mapping(STRADDLING))
    a, b = run.jobs
    assert a.slowdown > 1.0 and a.slowdown == pytest.approx(b.slowdown, rel=1e-12)
    # the exposed gradient all-reduce (over the pods: data-parallel groups of 2 at stride 256) takes twice as long
    assert (a.together.best.breakdown["data_parallel"] / a.alone.best.breakdown["data_parallel"]
            == pytest.approx(2.0, rel=0.01))
    assert a.together.best.breakdown["compute"] == pytest.approx(a.alone.best.breakdown["compute"], rel=1e-12)


def test_a_job_inside_one_pod_shares_nothing():
    design = load_design("dgx-h100", PODS)
    kind, views = _views(design, [Request("a", 512), Request("b", 512)], 512)
    for alone, together in views:
        assert alone.details.pod_gpus == 0 and together == alone


def test_two_jobs_on_a_one_direction_ring_split_the_wavelengths():
    """One direction of 10 fibres × 8 λ = 80 wavelengths. Each job's ring returns from its last GPU to its first
    round the rest of the ring, across the other job's arc: every segment carries two flows, and max-min gives
    each 40 wavelengths — half the job's capacity alone. With two directions the return runs back along the job's
    own arc and nothing is shared."""
    one = load_design("sip-ring", ["sip_ring.directions=1"])
    kind, views = _views(one, [Request("a", 512), Request("b", 512)], 512)
    for alone, together in views:
        assert together.details.segment_capacity_bps == pytest.approx(alone.details.segment_capacity_bps / 2,
                                                                      rel=1e-12)
        assert together.per_gpu_bandwidth_bps == pytest.approx(alone.per_gpu_bandwidth_bps / 2, rel=1e-12)
    kind, views = _views(load_design("sip-ring"), [Request("a", 768), Request("b", 256)], 256)
    assert all(together == alone for alone, together in views)


def test_three_jobs_on_a_one_direction_ring_split_by_the_allocation():
    """Three jobs of 8, 4 and 4 GPUs on a 16-GPU one-direction ring: job a's arc carries its own flows and the
    returns of b and c (3 flows: 80 → 27, 27, 26 wavelengths, integer max-min); job b's arc carries its own, a's
    return and c's (also 3), c's likewise. Each job's slowest flow has 26 of the 80."""
    design = load_design("sip-ring", ["sip_ring.directions=1", "fabric.gpus=16"])
    kind, views = _views(design, [Request("a", 8), Request("b", 4), Request("c", 4)], 4)
    for alone, together in views[1:]:
        assert together.details.segment_capacity_bps / alone.details.segment_capacity_bps == pytest.approx(26 / 80)


def test_one_job_alone_in_the_mix_is_speedup():
    import sipml

    mix = mix_from_mapping({"job": [{"model": "megatron-7.5b", "gpus": 256}]})
    for name in ("dgx-h100", "sip-ring", "ocs-torus-v4"):
        design = load_design(name, ["fabric.gpus=256"] if name != "ocs-torus-v4" else ["fabric.gpus=256"])
        run = run_mix(design, mix)
        row = sipml.speedup([name], "megatron-7.5b", gpus=256)[0]
        assert run.jobs[0].together.best.iteration_s == pytest.approx(row["iteration_s"], rel=1e-12)
        assert run.jobs[0].slowdown == 1.0
        assert run.leftover.idle_gpus == 0


def test_bad_mixes_are_refused_naming_the_job():
    with pytest.raises(InputError, match="job 1: unknown key 'gpu' .*did you mean 'gpus'"):
        mix_from_mapping({"job": [{"model": "gpt3-175b", "gpu": 8}]})
    with pytest.raises(InputError, match="job 'x': gpus must be a whole number from 1"):
        mix_from_mapping({"job": [{"name": "x", "model": "gpt3-175b", "gpus": -8}]})
    with pytest.raises(InputError, match="names job 'x' twice"):
        mix_from_mapping({"job": [{"name": "x", "model": "m", "gpus": 8}, {"name": "x", "model": "m", "gpus": 8}]})
    with pytest.raises(InputError, match=r"\[\[job\]\]"):
        mix_from_mapping({"policy": "first-fit"})
    with pytest.raises(InputError, match="policy 'worst-fit'"):
        mix_from_mapping({"policy": "worst-fit", "job": [{"model": "m", "gpus": 8}]})
    design = load_design("dgx-h100", ["fabric.gpus=64"])
    with pytest.raises(InputError, match=r"the mix does not fit: its jobs \('big' 128\) ask 128 GPUs"):
        run_mix(design, mix_from_mapping({"job": [{"name": "big", "model": "gpt2-355m", "gpus": 128}]}))
    with pytest.raises(InputError, match="job 'nope': unknown model"):
        run_mix(design, mix_from_mapping({"job": [{"name": "nope", "model": "gpt9", "gpus": 8}]}))


def test_repeated_models_are_numbered():
    mix = mix_from_mapping({"job": [{"model": "gpt2-355m", "gpus": 8}, {"model": "gpt2-355m", "gpus": 8}]})
    assert [j.name for j in mix.jobs] == ["gpt2-355m", "gpt2-355m-2"]


def test_jobs_sharing_oversubscribed_leaves_see_them_shared():
    """Leaves of 384 GPUs (48 down-ports × 8 rails) at 1:3. Each job has 192 GPUs under each of leaves 0 and 1:
    alone its traffic out of a leaf has the leaf's uplinks (384·B_e/3) to itself, oversubscription 3·192/384 = 1.5;
    together 3. A job inside one leaf never leaves it (1)."""
    design = load_design("dgx-h100", ["fabric.gpus=1024", "electrical.oversubscription=3"])
    kind, views = _views(design, [Request("a", 384, at="0-191,384-575"), Request("b", 384, at="192-383,576-767"),
                                  Request("c", 128, at="768-895")], 384)
    (a_alone, a_together), (b_alone, b_together), (c_alone, c_together) = views
    assert a_alone.details.oversubscription == b_alone.details.oversubscription == 1.5
    assert a_together.details.oversubscription == b_together.details.oversubscription == 3.0
    assert c_alone.details.oversubscription == c_together.details.oversubscription == 1.0
    spread = Collective("all_to_all", 1e8, 384, 1)
    assert kind.price(a_together, [spread])[0].seconds > kind.price(a_alone, [spread])[0].seconds
