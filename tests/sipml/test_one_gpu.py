"""A one-GPU job (`speedup --gpus 1`): it runs on one GPU of each cluster compared (a cluster has at least two),
with no parallelism and nothing on the network, and is charged that GPU's share of its cluster — per dollar and
per watt compare the shares, as `mix` charges each job."""

import json

import pytest

from sipml.cli import main
from sipml.design_files import load_design
from workloads.speedup import DEFAULT_RUN


def _rows(capsys, *args):
    code = main(["speedup", *args, "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    return data["rows"] if isinstance(data, dict) else data


def test_a_one_gpu_job_runs_alone_with_nothing_on_the_network(capsys):
    row = _rows(capsys, "dgx-a100", "-m", "megatron-1.7b", "--gpus", "1", "--batch", "8")[0]
    assert row["gpus"] == 1
    assert {k: row["strategy"][k] for k in ("dp", "tp", "pp", "cp", "ep")} == dict(dp=1, tp=1, pp=1, cp=1, ep=1)
    phases = row["breakdown"]
    assert phases["compute"] > 0
    assert all(phases[k] == 0 for k in ("tensor_parallel", "pipeline", "bubble", "straggler", "data_parallel"))


def test_it_is_charged_its_gpu_s_share_of_the_cluster(capsys):
    """dgx-a100 as a 512-GPU cluster against fattree-200's 1,024: the shares, not the clusters, are compared."""
    common = ["-m", "megatron-1.7b", "--gpus", "1", "--batch", "8", "--baseline", "fattree-200"]
    row = _rows(capsys, "dgx-a100", *common, "--set", "fabric.gpus=512")[0]
    share = row["cluster_cost_usd"] / 512
    assert row["hardware_usd"] == pytest.approx(share * row["run_time_s"] / DEFAULT_RUN.life, rel=1e-9)
    base = _rows(capsys, "fattree-200", *common)[0]
    base_share = base["cluster_cost_usd"] / load_design("fattree-200").fabric.gpus
    assert row["speedup_per_dollar"] == pytest.approx(row["speedup"] * base_share / share, rel=1e-9)
    assert row["speedup_per_dollar"] < 0.6 * row["speedup"] * base["cluster_cost_usd"] / row["cluster_cost_usd"]


def test_zero_gpus_is_still_refused(capsys):
    assert main(["speedup", "dgx-a100", "-m", "megatron-1.7b", "--gpus", "0"]) == 2
    assert "--gpus" in capsys.readouterr()[1]


def test_explain_measures_a_one_gpu_job_against_the_baseline_speedup_uses(capsys):
    row = _rows(capsys, "dgx-a100", "-m", "megatron-1.7b", "--gpus", "1", "--baseline", "fattree-200")[0]
    assert main(["explain", "speedup_per_dollar", "dgx-a100", "--model", "megatron-1.7b", "--baseline",
                 "fattree-200", "--set", "fabric.job_gpus=1", "-f", "json"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert explained["value"] == pytest.approx(row["speedup_per_dollar"], rel=1e-9)


def test_a_sharded_data_parallel_stack_runs_a_one_gpu_job_unsharded(capsys):
    row = _rows(capsys, "dgx-a100", "-m", "megatron-1.7b", "--gpus", "1", "--batch", "8", "--strategy",
                "stack=torchtitan")[0]
    assert row["strategy"]["dp"] == 1 and row["strategy"]["zero"] == 3
    assert row["breakdown"]["data_parallel"] == 0
