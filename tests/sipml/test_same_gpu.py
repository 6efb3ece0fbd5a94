"""The same GPU in every comparison (issue 36): `sipml speedup`'s baselines carry the design's GPU, a fixed strategy
a baseline cannot run falls back to its best there and says so, and the report's training table runs every design
on one GPU, with the GPU generation compared on its own. Through the real entry point."""

import json

import pytest

from tests.sipml.cli_run import run
from tests.sipml.report_runs import report_output


def test_speedup_baselines_carry_the_design_gpu(capsys):
    """sip-ring runs A100s and dgx-h100 H100s: each is measured against fattree-200 and dgx-a100 carrying its own
    GPU, so the same baseline name runs two GPUs in one command, and dgx-h100's speedup is its fabric's alone."""
    code, out, _ = run(capsys, "speedup", "sip-ring", "dgx-h100", "-m", "gpt2-355m", "-f", "json")
    assert code == 0
    rows = {r["design"]: r for r in json.loads(out)["rows"]}
    assert rows["sip-ring"]["gpu"] == "a100_sxm4_40gb" and rows["dgx-h100"]["gpu"] == "h100_sxm5"
    for row in rows.values():
        assert set(row["baselines"]) == {"fattree-200", "dgx-a100"}  # the keys scripts read keep their names
        for versus in row["baselines"].values():
            assert versus["gpu"] == row["gpu"] and versus["fallback"] is None
        assert row["speedup"] == row["baselines"]["fattree-200"]["speedup"]
    # the baseline's iteration is fattree-200's on the design's GPU (and host): on A100s for sip-ring, H100s for
    # dgx-h100, and the A100 one only where --set gives fattree-200 its GPU
    iteration = {}
    for gpu, host in (("a100_sxm4", "dgx_a100_host"), ("h100_sxm5", "dgx_h100_host")):
        code, out, _ = run(capsys, "speedup", "fattree-200", "-m", "gpt2-355m", "--set", f"fabric.gpu=gpu.{gpu}",
                           "--set", f"fabric.host=server.{host}", "-f", "json")
        iteration[gpu] = json.loads(out)["rows"][0]["iteration_s"]
    for design, gpu in (("sip-ring", "a100_sxm4"), ("dgx-h100", "h100_sxm5")):
        assert rows[design]["speedup"] == pytest.approx(iteration[gpu] / rows[design]["iteration_s"], rel=1e-12)
    assert iteration["a100_sxm4"] > 1.3 * iteration["h100_sxm5"]  # so the two baselines differ
    code, out, _ = run(capsys, "speedup", "dgx-h100", "-m", "gpt2-355m", "--baseline", "fattree-200",
                       "--set", "fattree-200:fabric.gpu=gpu.a100_sxm4", "-f", "json")
    across = json.loads(out)["rows"][0]
    assert code == 0 and across["baselines"]["fattree-200"]["gpu"] == "a100_sxm4_40gb"
    assert across["speedup"] == pytest.approx(iteration["a100_sxm4"] / across["iteration_s"], rel=1e-12)
    code, out, _ = run(capsys, "speedup", "sip-ring", "dgx-h100", "-m", "gpt2-355m")
    assert code == 0
    assert "speedup over fattree-200 on each design's GPU" in out
    assert ("baseline fattree-200 runs each design's GPU and server host: a100_sxm4_40gb against sip-ring; "
            "h100_sxm5 against dgx-h100") in out


def test_speedup_fp8_on_dgx_h100_runs(capsys):
    """The issue's command: refused before (the default baselines ran A100s); now the baselines carry H100s and
    run FP8 too, and nothing falls back."""
    for extra in ((), ("--gpus", "256")):
        code, out, err = run(capsys, "speedup", "dgx-h100", "--strategy", "precision=fp8", "-m", "gpt3-175b", *extra,
                             "-f", "json")
        assert code == 0, err
        row = json.loads(out)["rows"][0]
        assert row["precision"] == "fp8"
        for versus in row["baselines"].values():
            assert (versus["gpu"], versus["precision"], versus["fallback"]) == ("h100_sxm5", "fp8", None)


def test_a_baseline_that_cannot_run_the_fixed_strategy_runs_its_best_and_says_so(capsys):
    """fattree-200 given A100s (40 GB, no FP8) against dgx-h100 fixed at FP8 with tp=4, pp=4: it cannot run FP8
    nor fit tp=4 × pp=4 in 40 GB, so it runs its best bf16 strategy; the JSON field and one footer line say so, and
    the other baseline (on the design's H100) runs the whole strategy."""
    argv = ("speedup", "dgx-h100", "--strategy", "tp=4,pp=4,precision=fp8", "-m", "gpt3-175b",
            "--set", "fattree-200:fabric.gpu=gpu.a100_sxm4")
    code, out, err = run(capsys, *argv, "-f", "json")
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    assert (row["precision"], row["strategy"]["tp"], row["strategy"]["pp"]) == ("fp8", 4, 4)
    fallen = row["baselines"]["fattree-200"]
    assert (fallen["gpu"], fallen["precision"]) == ("a100_sxm4_40gb", "bf16")
    assert fallen["fallback"].startswith("fattree-200 (a100_sxm4_40gb) cannot run precision=fp8: a100_sxm4_40gb "
                                         "has no fp8 tensor cores")
    assert "tp=4,pp=4: no strategy of gpt3-175b fits in a100_sxm4_40gb's memory" in fallen["fallback"]
    assert row["speedup"] == fallen["speedup"] > 1
    whole = row["baselines"]["dgx-a100"]
    assert (whole["gpu"], whole["precision"], whole["fallback"]) == ("h100_sxm5", "fp8", None)
    code, out, _ = run(capsys, *argv)
    assert code == 0
    lines = [line for line in out.splitlines() if "cannot run" in line]
    assert lines == [fallen["fallback"]]
    assert "baseline fattree-200 runs the GPU --set gives it: a100_sxm4_40gb against dgx-h100" in out


@pytest.mark.parametrize("argv", [
    ("speedup", "sip-ring", "--strategy", "precision=fp8"),
    ("speedup", "--strategy", "precision=fp8"),  # the default designs include A100 ones
])
def test_a_design_that_cannot_run_the_fixed_strategy_is_still_refused(capsys, argv):
    code, out, err = run(capsys, *argv, "-m", "gpt2-355m")
    assert code == 2 and out == ""
    assert err.strip() == ("sipml: error: --strategy precision=fp8: a100_sxm4_40gb has no fp8 tensor cores (it has "
                           "fp32, tf32, fp16, bf16)")


def test_report_training_table_runs_one_gpu_and_the_generation_on_its_own(capsys):
    out = report_output("-f", "json")
    data = json.loads(out)
    headline = data["training"]
    assert {r["design"] for r in headline} == {"sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "cpo-800g",
                                               "fattree-400"}
    gpus = {r["gpu"] for r in headline} | {v["gpu"] for r in headline for v in r["baselines"].values()}
    assert gpus == {"a100_sxm4_40gb"}
    generation = data["gpu_generation"]
    assert {r["gpu"] for r in generation} | {v["gpu"] for r in generation for v in r["baselines"].values()} \
        == {"h100_sxm5"}
    on_a100 = {(r["model"], r["design"]): r for r in headline}
    for r in generation:  # the generation column is the same fabric's A100 iteration over its H100 one
        before = on_a100[(r["model"], r["design"])]
        assert r["over_same_fabric"]["speedup"] == pytest.approx(before["iteration_s"] / r["iteration_s"])
        assert r["over_same_fabric"]["speedup"] > 1
    out = report_output()
    assert ("Training on the same GPU, a100_sxm4_40gb, in every design and baseline (server host "
            "server.dgx_a100_host)") in out
    assert ("dgx-h100, cpo-800g: their scale-out network carrying the a100_sxm4_40gb in its own servers (their "
            "NVLink domain)") in out
    assert "GPU generation: every design on h100_sxm5" in out


def test_readme_headline_table_is_the_report_training_table(capsys):
    """README "What it answers": each cell is `sipml report`'s speedup, per $ or per W over fattree-200 (a block of
    rows each, as the report's headline table prints them)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## What it answers", 1)[1].split("\n## ", 1)[0]
    models = {"ResNet-50": "resnet-50", "Transformer-big": "transformer-big", "GPT-2 355M": "gpt2-355m",
              "GPT-3 175B": "gpt3-175b"}
    lines = [line for line in section.splitlines() if line.startswith("| ")
             and line.split("|")[2].strip() in models]
    measures = {"speedup": "speedup", "per $": "speedup_per_dollar", "per W": "speedup_per_watt"}
    columns = ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "cpo-800g", "fattree-400")
    out = report_output("-f", "json")
    printed = {(r["model"], r["design"]): r["baselines"]["fattree-200"] for r in json.loads(out)["training"]}
    assert len(lines) == len(models) * len(measures)
    measure = None
    for line in lines:
        label, model, *cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        measure = measures[label] if label else measure
        assert len(cells) == len(columns)
        for design, cell in zip(columns, cells):
            assert cell == f"{printed[(models[model], design)][measure]:.2f}", (label, model, design)


def test_speedup_on_an_h100_says_what_the_validation_says_of_it(capsys):
    """What the validation says of the compute model on H100 (fitted on which runs, optimistic for which): speedup
    says so beside H100 rows, and not beside A100 ones."""
    code, out, _ = run(capsys, "speedup", "dgx-h100", "-m", "gpt2-355m")
    assert code == 0 and "\nhopper: the in-situ efficiency is fitted on NVIDIA's H100 runs" in out
    assert "DGX Cloud GPT-3" in out
    code, out, _ = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m")
    assert code == 0 and "hopper:" not in out


def test_a_server_moves_no_more_nvlink_than_its_gpu(capsys, tmp_path):
    """An H800 (200 GB/s of NVLink a direction) in a DGX H100 server (450 GB/s) moves its own 200: the fabric shows
    1600 Gbit/s and says why, and a tensor-parallel GPT-3 step is slower than on the H100 of the same server; a GPU
    file's NVLink binds as a shipped GPU's does; a fabric without an NVLink domain is left as it is."""
    h800 = ["--set", "fabric.gpu=gpu.h800_sxm5"]
    code, out, _ = run(capsys, "fabric", "dgx-h100", *h800, "-f", "json")
    assert code == 0
    fab = json.loads(out)
    assert fab["figures"]["NVLink per GPU"] == {"value": 1600.0, "unit": "Gbit/s"}
    assert any("h800_sxm5's own NVLink (1600 Gbit/s" in n for n in fab["notes"])
    seconds = {}
    for sets in ([], h800):
        code, out, err = run(capsys, "speedup", "dgx-h100", "--strategy", "tp=8,pp=16", *sets, "-f", "json")
        assert code == 0, err
        [row] = json.loads(out)["rows"]
        seconds[bool(sets)] = (row["breakdown"]["tensor_parallel"], row["notes"])
    assert seconds[True][0] > 1.2 * seconds[False][0]  # latency and protocol limits bind part of it
    assert seconds[False][1] == [] and "the GPU's is used" in seconds[True][1][0]
    code, out, _ = run(capsys, "fabric", "fattree-200", *h800, "-f", "json")
    assert code == 0 and not any("NVLink" in n for n in json.loads(out)["notes"])
    # a user's GPU: the shipped H100's figures under another name and catalog entry, its NVLink cut to 100 GB/s
    from workloads.gpus import default_gpus_path

    text = default_gpus_path().read_text()
    block = text[text.index("[h100_sxm5]"):text.index("[h200_sxm]")].replace("[h100_sxm5", "[slow_link")
    block = block.replace('catalog = "gpu.h100_sxm5"', 'catalog = "gpu.h100_sxm5_slow_link"')
    block = block.replace('nvlink_bandwidth = "450 GB/s"', 'nvlink_bandwidth = "100 GB/s"', 1)
    (tmp_path / "gpus.toml").write_text(block)
    (tmp_path / "catalog.toml").write_text(
        '[gpu.h100_sxm5_slow_link]\ndescription = "H100 with a cut NVLink"\nunit = "GPU"\nrole = "compute"\n'
        'price_low = "25000 USD"\nprice_typical = "28125 USD"\nprice_high = "30000 USD"\npower = "700 W"\n'
        'source = "a test"\ndate = "2026"\ntag = "[assumed]"\n')
    code, out, err = run(capsys, "speedup", "dgx-h100", "--strategy", "tp=8,pp=16", "--gpu-file",
                         str(tmp_path / "gpus.toml"), "--catalog", str(tmp_path / "catalog.toml"), "--set",
                         "fabric.gpu=gpu.h100_sxm5_slow_link", "-f", "json")
    assert code == 2 and "set host to a server.* catalog entry" in err  # a GPU of the user's: its server too
    server = ["--set", "fabric.host=server.dgx_h100_host"]
    code, out, err = run(capsys, "speedup", "dgx-h100", "--strategy", "tp=8,pp=16", "--gpu-file",
                         str(tmp_path / "gpus.toml"), "--catalog", str(tmp_path / "catalog.toml"), "--set",
                         "fabric.gpu=gpu.h100_sxm5_slow_link", *server, "-f", "json")
    assert code == 0, err
    [row] = json.loads(out)["rows"]
    assert "slow_link's own NVLink (800 Gbit/s" in row["notes"][0]
    assert row["breakdown"]["tensor_parallel"] > seconds[True][0]  # slower again than the H800's 1600
    user = ["--gpu-file", str(tmp_path / "gpus.toml"), "--catalog", str(tmp_path / "catalog.toml"), "--set",
            "fabric.gpu=gpu.h100_sxm5_slow_link", *server, "-f", "json"]
    code, fabric_json, err = run(capsys, "fabric", "dgx-h100", *user)  # the fabric as speedup prices it
    assert code == 0, err
    assert json.loads(fabric_json)["figures"]["NVLink per GPU"]["value"] == pytest.approx(800.0)
    code, cost_json, err = run(capsys, "cost", "dgx-h100", *user)
    assert code == 0 and any("800 Gbit/s" in n for n in json.loads(cost_json)["designs"][0]["notes"]), err
    import sipml  # the Python API reads the same files to the same JSON

    files = {"catalog_files": [tmp_path / "catalog.toml"], "gpu_files": [tmp_path / "gpus.toml"]}
    changes = {"fabric.gpu": "gpu.h100_sxm5_slow_link", "fabric.host": "server.dgx_h100_host"}
    assert sipml.fabric("dgx-h100", changes, **files).to_dict() == json.loads(fabric_json)
    assert sipml.cost("dgx-h100", changes=changes, **files).to_dict() == json.loads(cost_json)
    (tmp_path / "gpus.toml").write_text(block.replace('nvlink_bandwidth = "100 GB/s"', 'nvlink_bandwidth = "0 GB/s"'))
    code, _, err = run(capsys, "speedup", "dgx-h100", "--gpu-file", str(tmp_path / "gpus.toml"), "--catalog",
                       str(tmp_path / "catalog.toml"), "--set", "fabric.gpu=gpu.h100_sxm5_slow_link", *server)
    assert code == 2 and "slow_link has no NVLink" in err and "gpus_per_server = 1" in err, err


def test_the_nvlink_domain_follows_the_gpu_and_a_slower_one_set_by_hand_is_said(capsys):
    """cpo-800g set on B200s runs in DGX B200 servers (host = 'gpu'): their NVLink (7 200 Gbit/s a direction) and
    NVSwitch share, as the GPU's own — nothing to say, and tensor parallelism faster than in the H100 servers'
    3 600 (it was used as built). Set back to 3 600 by hand, the design's is used and said, naming the settings
    that take the GPU's own. The built-in designs on their own GPUs say nothing."""
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design

    b200 = ["--set", "fabric.gpu=gpu.b200_sxm"]
    code, out, err = run(capsys, "fabric", "cpo-800g", *b200, "-f", "json")
    data = json.loads(out)
    assert code == 0 and data["figures"]["NVLink per GPU"] == {"value": 7200.0, "unit": "Gbit/s"}, err
    assert not any("NVLink" in n for n in data["notes"])
    keys = {line.key for line in evaluate_fabric(load_design("cpo-800g", ["fabric.gpu=gpu.b200_sxm"])).bom}
    assert "nvswitch.b200_share" in keys and "nvswitch.h100_share" not in keys
    rows = {}
    for sets in ([], ["--set", "electrical.nvlink_bandwidth=3600 Gbit/s"]):
        code, out, err = run(capsys, "speedup", "cpo-800g", "-m", "gpt2-355m", "--strategy", "tp=8", *b200, *sets,
                             "-f", "json")
        assert code == 0, err
        [rows[bool(sets)]] = json.loads(out)["rows"]
    assert rows[False]["notes"] == []
    [said] = [n for n in rows[True]["notes"] if "nvlink_bandwidth 3600 Gbit/s is less than gpu.b200_sxm's own" in n]
    assert said.endswith('used as built ([electrical] nvlink_bandwidth = "0 Gbit/s" takes its server\'s NVLink)')
    assert rows[True]["breakdown"]["tensor_parallel"] > rows[False]["breakdown"]["tensor_parallel"]
    code, out, _ = run(capsys, "speedup", "cpo-800g", "dgx-h100", "-m", "gpt2-355m", "-f", "json")
    assert code == 0 and all(r["notes"] == [] for r in json.loads(out)["rows"])


def test_the_nvlink_domain_is_the_gpus_servers_whatever_host_prices_and_refused_only_where_unknown(capsys,
                                                                                                       tmp_path):
    """host = 'none' prices no server, but the GPU still sits in its own: dgx-h100 keeps the DGX H100's NVLink (and
    its speedup's dgx-a100 baseline, carrying host = 'none', the A100's). A catalog file's GPU ships in no server
    the calculator knows: with host 'none' its 8-GPU servers are refused naming the settings, and run once set.
    Servers of one GPU have no NVLink: fattree-200's collectives are the same whatever its host, and it shows
    none."""
    code, out, err = run(capsys, "fabric", "dgx-h100", "--set", "fabric.host=none", "-f", "json")
    assert code == 0 and json.loads(out)["figures"]["NVLink per GPU"]["value"] == 3600.0, err
    code, out, err = run(capsys, "speedup", "-m", "gpt2-355m", "--set", "fabric.host=none", "-f", "json")
    assert code == 0, err
    (tmp_path / "catalog.toml").write_text(
        '[gpu.mine]\ndescription = "a GPU of the user\'s"\nunit = "GPU"\nrole = "compute"\nprice_low = "1 USD"\n'
        'price_typical = "1 USD"\nprice_high = "1 USD"\npower = "700 W"\nsource = "a test"\ndate = "2026"\n'
        'tag = "[assumed]"\n')
    mine = ["--catalog", str(tmp_path / "catalog.toml"), "--set", "fabric.gpu=gpu.mine", "--set", "fabric.host=none"]
    code, _, err = run(capsys, "fabric", "dgx-h100", *mine)
    assert code == 2 and err.count("sipml: error") == 1 and err.endswith("set them for its servers\n"), err
    assert ('[electrical] nvlink_bandwidth = "0 Gbit/s" and [electrical] nvswitch = "server" take the NVLink '
            "domain of the GPU's server, and gpu.mine ships in no server the calculator knows") in err
    own = ["--set", "electrical.nvlink_bandwidth=3600 Gbit/s", "--set", "electrical.nvswitch=nvswitch.h100_share"]
    code, out, err = run(capsys, "fabric", "dgx-h100", *mine, *own, "-f", "json")
    assert code == 0 and json.loads(out)["figures"]["NVLink per GPU"]["value"] == 3600.0, err
    lone = {}
    for host in ("gpu", "none"):
        code, out, err = run(capsys, "fabric", "fattree-200", "--set", f"fabric.host={host}", "-f", "json")
        assert code == 0, err
        lone[host] = json.loads(out)
    assert lone["gpu"]["collective_busbw_gbps"] == lone["none"]["collective_busbw_gbps"]
    assert "NVLink per GPU" not in lone["none"]["figures"]


def test_a_server_without_nvlink_sharp_runs_rings_and_a_domain_of_another_size_is_said(capsys):
    """dgx-h100 asks NVLink SHARP; carrying A100s it runs in DGX A100 servers, whose NVSwitch (before Hopper) does
    not reduce: its 8-GPU all-reduce is a ring's (slower) and the fabric says why. gb200-nvl72 on H100s takes the
    DGX H100's NVLink for its 72-GPU domains, and says so."""
    code, out, err = run(capsys, "fabric", "dgx-h100", "--set", "fabric.gpus=8", "-f", "json")
    hopper = json.loads(out)
    code, out, err = run(capsys, "fabric", "dgx-h100", "--set", "fabric.gpus=8", "--set", "fabric.gpu=gpu.a100_sxm4",
                         "-f", "json")
    ampere = json.loads(out)
    assert code == 0, err
    assert any("gpu.a100_sxm4 is older than Hopper, where NCCL has no NVLink SHARP" in n for n in ampere["notes"])
    ring = 0.8 * 2400  # a ring's busbw at the A100's NVLink and NCCL's 80 %
    assert ampere["collective_busbw_gbps"]["all_reduce"] <= ring < hopper["collective_busbw_gbps"]["all_reduce"]
    # in a DGX H100 host, whose switch reduces, the A100 still cannot: NCCL's NVLS is by the GPU's generation
    code, out, err = run(capsys, "fabric", "dgx-h100", "--set", "fabric.gpus=8", "--set", "fabric.gpu=gpu.a100_sxm4",
                         "--set", "fabric.host=server.dgx_h100_host", "-f", "json")
    assert code == 0 and json.loads(out)["collective_busbw_gbps"]["all_reduce"] <= ring, err
    # an H100 in a DGX A100 host: the switch cannot
    code, out, err = run(capsys, "fabric", "dgx-h100", "--set", "fabric.gpus=8", "--set",
                         "fabric.host=server.dgx_a100_host", "-f", "json")
    assert code == 0 and any("'nvls' needs an NVSwitch that reduces" in n and "nvswitch.a100_share's does not" in n
                             for n in json.loads(out)["notes"]), err
    said = "gpus_per_server = 72: the DGX H100's NVLink and NVSwitch taken for domains of 72"
    code, out, err = run(capsys, "fabric", "gb200-nvl72", "--set", "fabric.gpu=gpu.h100_sxm5", "-f", "json")
    assert code == 0 and any(said in n for n in json.loads(out)["notes"]), err
    code, out, err = run(capsys, "speedup", "gb200-nvl72", "-m", "gpt2-355m", "--set", "fabric.gpu=gpu.h100_sxm5",
                         "-f", "json")  # the training row says it too
    assert code == 0 and any(said in n for n in json.loads(out)["rows"][0]["notes"]), err


def test_a_design_file_without_nvlink_lines_takes_its_gpus_server(capsys, tmp_path):
    """An [electrical] section that names no NVLink or NVSwitch takes the GPU's server's: H100s in 8-GPU servers
    get the DGX H100's 3 600 Gbit/s and NVSwitch share (they got the A100's 2 400 and share); servers of one GPU buy
    no NVSwitch (a share was bought). explain steps the NVLink the design takes, 7 200 Gbit/s on B200s."""
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design

    path = tmp_path / "h100.toml"
    path.write_text('[fabric]\nkind = "electrical"\ngpus = 64\ngpu = "gpu.h100_sxm5"\n\n[electrical]\n'
                    'nic_bandwidth = "400 Gbit/s"\n')
    est = evaluate_fabric(load_design(str(path)))
    assert est.details.nvlink_bps == 3600e9 and "nvswitch.h100_share" in {line.key for line in est.bom}
    lone = evaluate_fabric(load_design(str(path), ["electrical.gpus_per_server=1", "electrical.rails=1"]))
    assert not any(line.key.startswith("nvswitch.") for line in lone.bom)
    code, out, err = run(capsys, "explain", "iteration_s", "cpo-800g", "-m", "gpt2-355m", "--set",
                         "fabric.gpu=gpu.b200_sxm", "-f", "json")
    assert code == 0, err
    [row] = [r for r in json.loads(out)["sensitivities"] if r["key"] == "nvlink_bandwidth"]
    assert row["value"] == 7200e9 and "SERVER_NVLINK" in row["source"]


def test_an_nvlink_below_the_rate_floor_is_refused_but_zero_takes_the_servers(capsys):
    """0 is a word (the server's NVLink), not a rate: a rate between 0 and 1 Mbit/s is refused as any rate there
    is, in one line, exit 2."""
    code, _, err = run(capsys, "fabric", "dgx-h100", "--set", "electrical.nvlink_bandwidth=5 bit/s")
    assert code == 2 and "below 1 Mbit/s (0 takes the server's NVLink)" in err and err.count("\n") == 1, err
    code, _, err = run(capsys, "fabric", "dgx-h100", "--set", "electrical.nvlink_bandwidth=0 bit/s")
    assert code == 0, err


def test_a_baseline_carrying_a_users_gpu_and_server_takes_the_designs_nvlink_domain(capsys, tmp_path):
    """A catalog file's GPU in a catalog file's server, its NVLink set on the design: speedup's dgx-a100 baseline,
    which carries the GPU and server (the same on every side), takes the design's NVLink and NVSwitch too (it was
    refused asking for settings the design had). Where the design has none to give, the refusal names the
    baseline and how to set it."""
    from workloads.gpus import default_gpus_path

    text = default_gpus_path().read_text()
    block = text[text.index("[h100_sxm5]"):text.index("[h200_sxm]")].replace("[h100_sxm5", "[mine")
    (tmp_path / "gpus.toml").write_text(block.replace('catalog = "gpu.h100_sxm5"', 'catalog = "gpu.mine"'))
    entry = ('description = "a part of the user\'s"\nunit = "GPU"\nrole = "compute"\nprice_low = "1 USD"\n'
             'price_typical = "1 USD"\nprice_high = "1 USD"\npower = "10 W"\nsource = "a test"\ndate = "2026"\n'
             'tag = "[assumed]"\n')
    (tmp_path / "catalog.toml").write_text(f"[gpu.mine]\n{entry}\n[server.mine_host]\n{entry}")
    files = ["--catalog", str(tmp_path / "catalog.toml"), "--gpu-file", str(tmp_path / "gpus.toml")]
    mine = ["--set", "fabric.gpu=gpu.mine", "--set", "fabric.host=server.mine_host"]
    own = ["--set", "dgx-h100:electrical.nvlink_bandwidth=3600 Gbit/s", "--set",
           "dgx-h100:electrical.nvswitch=nvswitch.h100_share"]
    code, out, err = run(capsys, "speedup", "dgx-h100", "-m", "gpt2-355m", *files, *mine, *own, "-f", "json")
    assert code == 0, err
    assert set(json.loads(out)["rows"][0]["baselines"]) == {"fattree-200", "dgx-a100"}
    code, _, err = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", *files, *mine)
    assert code == 2 and "baseline dgx-a100 (measured against sip-ring; 'dgx-a100:section.key=' sets it)" in err
