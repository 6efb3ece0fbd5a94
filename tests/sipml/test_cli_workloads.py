"""`sipml speedup`, `models`, `validate`, `report` through the real entry point: outputs, JSON keys, exit codes."""

import json

import pytest

from sipml.cli import main

ROW_KEYS = {"design", "fabric", "model", "gpus", "strategy", "iteration_s", "breakdown", "tflops_per_gpu", "mfu",
            "speedup", "speedup_per_dollar", "speedup_per_watt", "energy_kwh", "run_cost_usd", "baselines"}


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_speedup_json_rows(capsys):
    code, out, _ = run(capsys, "speedup", "sip-ocs", "dgx-a100", "--model", "gpt2-355m", "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["design"] for r in rows] == ["sip-ocs", "dgx-a100"]
    for r in rows:
        assert ROW_KEYS <= set(r)
        assert {"dp", "tp", "pp", "microbatch"} <= set(r["strategy"])
        assert r["gpus"] == 1024 and r["batch"] == 1024
        assert set(r["baselines"]) == {"fattree-200", "dgx-a100"}
        assert r["iteration_s"] == pytest.approx(sum(r["breakdown"].values()), rel=1e-9)
    dgx = rows[1]
    assert dgx["baselines"]["dgx-a100"]["speedup"] == pytest.approx(1.0)
    assert dgx["speedup"] == pytest.approx(dgx["baselines"]["fattree-200"]["speedup"])


def test_speedup_reproduces_a_published_run_by_fixing_its_strategy(capsys):
    """Megatron SC21's 145.6B row on 1536 A100 80 GB: t = 8, p = 8 fixed with full recomputation; the search
    fills in the rest."""
    code, out, _ = run(capsys, "speedup", "dgx-a100", "--model", "megatron-145.6b", "--gpus", "1536",
                       "--strategy", "tp=8,pp=8,recompute=full,sp=false,zero=0", "--baseline", "dgx-a100",
                       "--set", "fabric.gpu=gpu.a100_sxm4_80gb", "--format", "json")
    assert code == 0
    row = json.loads(out)["rows"][0]
    assert (row["strategy"]["tp"], row["strategy"]["pp"], row["strategy"]["dp"]) == (8, 8, 24)
    assert row["strategy"]["recompute"] == "full"


@pytest.mark.parametrize("argv, message", [
    (["speedup", "--model", "gpt-5"], "gpt3-175b"),  # lists the known ones
    (["speedup", "dgx-a100", "--model", "megatron-18.4b", "--strategy", "tp=3"], "no valid strategy"),
    (["speedup", "dgx-a100", "--model", "megatron-18.4b", "--batch", "7", "--gpus", "256"], "no valid strategy"),
    (["speedup", "--strategy", "tp=eight"], "tp"),
])
def test_speedup_bad_input_is_one_line_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_speedup_exit_1_when_no_strategy_fits(capsys):
    code, out, _ = run(capsys, "speedup", "dgx-a100", "--model", "gpt3-175b", "--gpus", "8", "--baseline",
                       "dgx-a100", "--format", "json")
    assert code == 1
    row = json.loads(out)["rows"][0]
    assert row["feasible"] is False and "memory" in row["reason"]


def test_models_lists_the_zoo_and_gpus(capsys):
    code, out, _ = run(capsys, "models", "--format", "json")
    data = json.loads(out)
    assert code == 0
    names = {m["model"] for m in data["models"]}
    assert {"gpt3-175b", "resnet-50", "dlrm-dcnv2", "mixtral-8x7b", "bert-large"} <= names
    assert {"v100_sxm2", "a100_sxm4_40gb", "a100_sxm4_80gb", "h100_sxm5", "b200_sxm"} <= {g["gpu"] for g in
                                                                                          data["gpus"]}


def test_validate_prints_every_case_and_its_verdict(capsys):
    code, out, _ = run(capsys, "validate", "--format", "json")
    data = json.loads(out)
    assert code == (0 if data["failed"] == 0 else 1)
    groups = {c["group"] for c in data["cases"]}
    assert {"physics", "SiP-ML", "NCCL", "Megatron SC21", "Megatron K22", "Llama 3", "MLPerf GPT-3", "ResNet-50",
            "BERT-large", "SiP-ML speedup"} <= groups
    for c in data["cases"]:
        assert {"published", "ours", "error", "tolerance", "passed", "source"} <= set(c)


def test_report_markdown_and_plots(capsys, tmp_path):
    """--plots into a folder that does not exist yet: created, parents included (a file in the way is exit 2)."""
    pytest.importorskip("matplotlib")
    (tmp_path / "file").write_text("")
    code, _, err = run(capsys, "report", "--plots", str(tmp_path / "file"))
    assert code == 2 and "not a folder" in err
    tmp_path = tmp_path / "new" / "figures"
    code, out, _ = run(capsys, "report", "--format", "markdown", "--plots", str(tmp_path))
    assert code == 0
    for title in ("The optical link", "Fabrics side by side", "Training", "Validation", "Assumptions"):
        assert title in out
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["margin_vs_wavelengths.png", "mix_placement.png", "network_cost_per_gpu.png", "network_power_per_gpu.png",
                    "speedup_by_fabric.png"]
    for p in tmp_path.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000


def test_speedup_runs_each_sip_ring_job_its_fastest_allocation_and_says_which(capsys):
    """[sip_ring] allocation 'auto' (the built-in's) prices the job static, periodic and phased and keeps the fastest:
    its iteration time is the least of the three fixed ones, its JSON row and the table's footer name it."""
    fixed = {}
    for allocation in ("static", "periodic", "phased"):
        code, out, _ = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "--set",
                           f"sip_ring.allocation={allocation}", "-f", "json")
        row = json.loads(out)["rows"][0]
        assert code == 0 and row["allocation"] == allocation
        fixed[allocation] = row["iteration_s"]
    code, out, _ = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "-f", "json")
    row = json.loads(out)["rows"][0]
    best = min(fixed, key=fixed.get)
    assert row["allocation"] == best and row["iteration_s"] == fixed[best]
    assert len(set(fixed.values())) == 3  # the three ways price the job differently
    code, out, _ = run(capsys, "speedup", "sip-ring", "dgx-a100", "-m", "gpt2-355m")
    assert f"sip-ring: wavelengths {best} (" in out and "dgx-a100: wavelengths" not in out


def test_a_link_sweep_trains_a_cnn_on_sip_ring_at_each_point(capsys):
    """A SiP-Ring point's evaluation keeps one figure (the amplified ring's Q) as a 0-d array; a CNN's search,
    keyed on each point's pricing view, was an internal error (exit 70) on any sweep of a [link] key."""
    code, out, err = run(capsys, "sweep", "sip-ring", "--vary", "link.data_rate=20Gbit/s,25Gbit/s", "--model",
                         "resnet-50", "--workers", "1", "-f", "json")
    assert code == 0, err
    slow, default = [json.loads(line) for line in out.splitlines()]
    code, out, err = run(capsys, "speedup", "sip-ring", "--model", "resnet-50", "-f", "json")
    assert code == 0, err
    assert default["iteration_s [s]"] == pytest.approx(json.loads(out)["rows"][0]["iteration_s"], rel=1e-12)
    assert slow["training_feasible"] and slow["iteration_s [s]"] >= default["iteration_s [s]"]


def _user_gpu(tmp_path, peak_bf16: str):
    """A catalog entry and a GPU file for an H100 at another price and (as a user measured it) another peak."""
    from workloads.gpus import default_gpus_path

    text = default_gpus_path().read_text()
    block = text[text.index("[h100_sxm5]"):text.index("[h200_sxm]")].replace("[h100_sxm5", "[my_h100")
    block = block.replace('catalog = "gpu.h100_sxm5"', 'catalog = "gpu.my_h100"')
    block = block.replace('bf16 = "989 TFLOP/s"', f'bf16 = "{peak_bf16}"', 1)
    (tmp_path / "gpus.toml").write_text(block)
    (tmp_path / "catalog.toml").write_text(
        '[gpu.my_h100]\ndescription = "H100 SXM5 at a quoted price"\nunit = "GPU"\nrole = "compute"\n'
        'price_low = "18000 USD"\nprice_typical = "20000 USD"\nprice_high = "22000 USD"\npower = "700 W"\n'
        'source = "a quote"\ndate = "2026"\ntag = "[assumed]"\n')
    return ["--gpu-file", str(tmp_path / "gpus.toml"), "--catalog", str(tmp_path / "catalog.toml"),
            "--set", "fabric.gpu=gpu.my_h100", "--set", "fabric.host=server.dgx_h100_host"]  # a GPU of one's own
    # names its server (a shipped GPU brings its own: the H100 its DGX H100's)


def test_speedup_runs_a_users_gpu_file_priced_from_a_users_catalog(capsys, tmp_path):
    args = ["speedup", "sip-ring", "--model", "gpt2-355m", "--baseline", "fattree-200", "-f", "json"]
    code, out, err = run(capsys, *args, "--set", "fabric.gpu=gpu.h100_sxm5")
    assert code == 0, err
    [shipped] = json.loads(out)["rows"]
    code, out, err = run(capsys, *args, *_user_gpu(tmp_path, "989 TFLOP/s"))
    assert code == 0, err
    [same] = json.loads(out)["rows"]
    assert same["gpu"] == "my_h100" and same["baselines"]["fattree-200"]["gpu"] == "my_h100"
    assert same["iteration_s"] == pytest.approx(shipped["iteration_s"], rel=1e-12)  # the same chip, priced lower
    assert same["cluster_cost_usd"] == pytest.approx(shipped["cluster_cost_usd"] - 1024 * (28125 - 20000))
    code, out, err = run(capsys, *args, *_user_gpu(tmp_path, "1200 TFLOP/s"))
    assert code == 0, err
    assert json.loads(out)["rows"][0]["mfu"] < same["mfu"]  # its own peak: MFU divides by it


def test_a_gpu_file_naming_a_catalog_entry_nobody_has_is_refused(capsys, tmp_path):
    args = _user_gpu(tmp_path, "989 TFLOP/s")
    code, _, err = run(capsys, "speedup", "sip-ring", *args[:2], "--set", "fabric.gpu=gpu.my_h100")
    assert code == 2 and "gpu.my_h100" in err


def test_explain_reads_a_users_gpu_file(capsys, tmp_path):
    """explain's training quantities take the GPU file and the catalog as speedup does: MFU divides by the file's
    peak, the cluster's cost prices the catalog's GPU."""
    args = ["sip-ring", "--model", "gpt2-355m", "-f", "json"]
    code, out, err = run(capsys, "explain", "mfu", *args, "--set", "fabric.gpu=gpu.h100_sxm5")
    assert code == 0, err
    shipped = json.loads(out)["value"]
    code, out, err = run(capsys, "explain", "mfu", *args, *_user_gpu(tmp_path, "1200 TFLOP/s"))
    assert code == 0, err
    mine = json.loads(out)
    peak = next(n for n in mine["numbers"] if "peak" in n["text"])
    assert float(peak["value"]) == pytest.approx(1.2e15, rel=1e-5) and mine["value"] < shipped
    code, out, err = run(capsys, "explain", "cluster_cost_usd", *args, *_user_gpu(tmp_path, "989 TFLOP/s"))
    assert code == 0, err
    code, base, err = run(capsys, "explain", "cluster_cost_usd", *args, "--set", "fabric.gpu=gpu.h100_sxm5")
    assert json.loads(base)["value"] - json.loads(out)["value"] == pytest.approx(1024 * (28125 - 20000))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sweep_reads_a_users_gpu_file_in_each_worker(capsys, tmp_path, workers):
    """The sweep's workers read the user's catalog and GPU files themselves (paths travel, not tables): the same
    rows as the shipped H100 but the cluster priced from the user's catalog, in one process or several."""
    args = ["sweep", "sip-ring", "--vary", "link.data_rate=20Gbit/s,25Gbit/s", "--model", "gpt2-355m",
            "--workers", workers, "-f", "jsonl"]
    code, out, err = run(capsys, *args, "--set", "fabric.gpu=gpu.h100_sxm5")
    assert code == 0, err
    shipped = [json.loads(line) for line in out.splitlines()]
    code, out, err = run(capsys, *args, *_user_gpu(tmp_path, "989 TFLOP/s"))
    assert code == 0, err
    mine = [json.loads(line) for line in out.splitlines()]
    for s, m in zip(shipped, mine):
        assert m["iteration_s [s]"] == pytest.approx(s["iteration_s [s]"], rel=1e-12)
        assert s["cluster_cost_usd [USD]"] - m["cluster_cost_usd [USD]"] == pytest.approx(1024 * (28125 - 20000))


def test_optimize_and_mix_read_a_users_gpu_file(capsys, tmp_path):
    """optimize prices every point from the user's catalog, finding the design's GPU in the GPU file; mix finds
    each job's GPU there (the mix names the design's GPU for every design: here the user's)."""
    args = ["optimize", "sip-ring", "--vary", "link.data_rate=20Gbit/s,25Gbit/s", "--minimize", "cluster_cost_usd",
            "-f", "json"]
    code, out, err = run(capsys, *args, "--set", "fabric.gpu=gpu.h100_sxm5")
    assert code == 0, err
    shipped = json.loads(out)["best"]["value"]
    code, out, err = run(capsys, *args, *_user_gpu(tmp_path, "989 TFLOP/s"))
    assert code == 0, err
    assert shipped - json.loads(out)["best"]["value"] == pytest.approx(1024 * (28125 - 20000))
    mix = tmp_path / "mix.toml"
    mix.write_text('gpu = "gpu.my_h100"\nhost = "server.dgx_h100_host"\n'
                   '[[job]]\nname = "a"\nmodel = "gpt2-355m"\ngpus = 512\n')
    code, out, err = run(capsys, "mix", "sip-ring", "--jobs", str(mix), *_user_gpu(tmp_path, "989 TFLOP/s")[:4],
                         "-f", "json")
    assert code == 0, err
    [row] = json.loads(out)["designs"]
    assert row["gpu"] == "my_h100" and row["jobs"][0]["iteration_alone_s"] > 0


def test_a_gpu_file_is_refused_where_it_names_no_gpu_entry_or_one_another_gpu_names(capsys, tmp_path):
    args = _user_gpu(tmp_path, "989 TFLOP/s")
    text = (tmp_path / "gpus.toml").read_text()
    (tmp_path / "gpus.toml").write_text(text.replace('catalog = "gpu.my_h100"', 'catalog = "amplifier.soa"'))
    code, _, err = run(capsys, "speedup", "sip-ring", *args[:2])
    assert code == 2 and "a GPU names a gpu. entry" in err
    (tmp_path / "gpus.toml").write_text(text.replace('catalog = "gpu.my_h100"', 'catalog = "gpu.h100_sxm5"'))
    code, _, err = run(capsys, "speedup", "sip-ring", *args[:2])
    assert code == 2 and "GPU [h100_sxm5] names it too" in err


def test_mix_runs_on_a_set_gpu_over_its_mix_files(capsys, tmp_path):
    """The default mix names its GPU; a --set fabric.gpu wins (a name nobody has is refused, exit 2)."""
    code, _, err = run(capsys, "mix", "sip-ring", "--set", "fabric.gpu=gpu.nonexist")
    assert code == 2 and "gpu.nonexist" in err
    code, out, err = run(capsys, "mix", "sip-ring", "--set", "fabric.gpu=gpu.h100_sxm5", "-f", "json")
    assert code == 0, err
    code, mine, err = run(capsys, "mix", "sip-ring", *_user_gpu(tmp_path, "989 TFLOP/s"), "-f", "json")
    assert code == 0, err
    shipped, user = json.loads(out)["designs"][0], json.loads(mine)["designs"][0]
    assert user["gpu"] == "my_h100" and shipped["gpu"] == "h100_sxm5"
    assert shipped["cluster_cost_usd"] - user["cluster_cost_usd"] == pytest.approx(shipped["gpus"] * (28125 - 20000))


def test_mix_gpus_holds_over_a_set_cluster_size(capsys):
    code, out, err = run(capsys, "mix", "sip-ring", "--gpus", "4096", "--set", "fabric.gpus=2048", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["designs"][0]["gpus"] == 4096


def test_the_api_takes_the_users_gpu_and_catalog_files_as_the_command_does(capsys, tmp_path):
    """`sipml.speedup(..., catalog_files=, gpu_files=)` returns the rows `sipml speedup --catalog --gpu-file -f json`
    prints; `sipml.evaluate(..., gpu_files=)` trains on the file's GPU."""
    import sipml

    args = _user_gpu(tmp_path, "1200 TFLOP/s")
    code, out, err = run(capsys, "speedup", "sip-ring", "--model", "gpt2-355m", "--baseline", "fattree-200", *args,
                         "-f", "json")
    assert code == 0, err
    rows = sipml.speedup("sip-ring", "gpt2-355m", baselines=["fattree-200"], sets=[args[5], args[7]],
                         catalog_files=[args[3]], gpu_files=[args[1]])
    assert json.loads(json.dumps(list(rows), default=str)) == json.loads(out)["rows"]
    point = sipml.evaluate("sip-ring", catalog_files=[args[3]], gpu_files=[args[1]],
                           changes={"fabric.gpu": "gpu.my_h100", "fabric.host": "server.dgx_h100_host"})
    assert point.training("gpt2-355m", 1024).gpu.name == "my_h100"


def test_a_gpu_files_changes_are_said_on_stderr(capsys, tmp_path):
    """As a --catalog file's changes are: a GPU added, and each figure of a shipped GPU an override changes (old,
    new, and the source the file gives it)."""
    code, _, err = run(capsys, "speedup", "sip-ring", "--model", "gpt2-355m", *_user_gpu(tmp_path, "989 TFLOP/s"))
    assert code == 0 and f"gpu file: {tmp_path / 'gpus.toml'}: adds GPU [my_h100] (hopper, catalog gpu.my_h100)" in err
    override = tmp_path / "override.toml"
    override.write_text('[h100_sxm5.mamf]\nfp8 = "1000 TFLOP/s"\n[h100_sxm5.sources]\n'
                        '"mamf.fp8" = "my measurement [assumed]"\n')
    code, _, err = run(capsys, "speedup", "dgx-h100", "--model", "gpt2-355m", "--gpu-file", str(override))
    assert code == 0
    assert (f"gpu file: {override}: [h100_sxm5] mamf.fp8 = 1000 TFLOP/s (was 1402.6 TFLOP/s); source: my "
            "measurement [assumed]") in err.splitlines()


def test_models_lists_a_users_gpu_priced_from_a_users_catalog(capsys, tmp_path):
    """`models --gpu-file` lists the user's GPU beside the shipped ones, with the price of its catalog entry; without
    the files the list is the shipped one."""
    code, out, err = run(capsys, "models", "-f", "json", *_user_gpu(tmp_path, "1200 TFLOP/s")[:4])
    assert code == 0, err
    gpus = {g["gpu"]: g for g in json.loads(out)["gpus"]}
    assert gpus["my_h100"]["price_usd"] == 20000 and gpus["my_h100"]["peak_tflops"]["bf16"] == pytest.approx(1200)
    assert "gpu file:" in err and "h100_sxm5" in gpus
    h100 = gpus["h100_sxm5"]
    assert (h100["architecture"], h100["sm_count"]) == ("hopper", 132) and 700 < h100["mamf_tflops"]["bf16"] < 989
    code, out, err = run(capsys, "models", "-f", "json")
    assert code == 0 and "my_h100" not in {g["gpu"] for g in json.loads(out)["gpus"]}, err


def test_explain_takes_speedups_strategy(capsys):
    """`explain --strategy` fixes what `speedup --strategy` fixes: the same iteration and speedup (a baseline that
    cannot run the strategy runs its best, as in speedup); a strategy on a link quantity is refused."""
    design = ["sip-ring", "--model", "gpt2-355m"]
    code, out, err = run(capsys, "speedup", *design, "--baseline", "fattree-200", "--strategy", "tp=2,pp=1", "-f",
                         "json")
    assert code == 0, err
    [row] = json.loads(out)["rows"]
    assert row["strategy"]["tp"] == 2
    for quantity in ("iteration_s", "speedup"):
        code, out, err = run(capsys, "explain", quantity, *design, "--strategy", "tp=2,pp=1", "-f", "json")
        assert code == 0, err
        explained = json.loads(out)
        assert explained["value"] == pytest.approx(row[quantity], rel=1e-12), quantity
        assert (explained["model"], explained["baseline"], explained["strategy"]) == ("gpt2-355m", "fattree-200",
                                                                                     "tp=2,pp=1")
    code, out, _ = run(capsys, "explain", "iteration_s", *design, "-f", "json")
    assert json.loads(out)["value"] < row["iteration_s"]  # the search's best is faster than tp=2
    code, _, err = run(capsys, "explain", "margin_db", "sip-ring", "--strategy", "tp=2")
    assert code == 2 and "not a training quantity" in err
    code, out, _ = run(capsys, "explain", "margin_db", "sip-ring", "-f", "json")
    assert code == 0 and json.loads(out)["model"] is None


def test_explain_and_optimize_take_speedups_batch(capsys):
    """A `speedup --batch` number can be explained and optimised at that batch: explain's value and optimize's best
    equal speedup's at the same batch and strategy (not the model's default batch), and each says the batch it was
    computed at; --batch on a link quantity is refused."""
    design = ["sip-ring", "--model", "gpt2-355m"]
    code, out, err = run(capsys, "speedup", *design, "--baseline", "fattree-200", "--batch", "1024", "--strategy",
                         "tp=2", "-f", "json")
    assert code == 0, err
    [row] = json.loads(out)["rows"]
    assert row["batch"] == 1024
    code, out, err = run(capsys, "explain", "speedup", *design, "--batch", "1024", "--strategy", "tp=2", "-f", "json")
    assert code == 0, err
    explained = json.loads(out)
    assert explained["value"] == pytest.approx(row["speedup"], rel=1e-12) and explained["batch"] == 1024
    code, out, err = run(capsys, "optimize", *design, "--maximize", "speedup", "--vary", "link.data_rate=25 Gbit/s",
                         "--batch", "1024", "--strategy", "tp=2", "-q", "-f", "json")
    assert code == 0, err
    best = json.loads(out)
    assert best["best"]["value"] == pytest.approx(row["speedup"], rel=1e-12)
    assert (best["batch"], best["strategy"]) == (1024, "tp=2")
    code, out, err = run(capsys, "optimize", *design, "--maximize", "speedup", "--vary", "link.data_rate=25 Gbit/s",
                         "--batch", "1024", "--strategy", "tp=2", "-q")
    assert code == 0 and "(gpt2-355m against fattree-200, tp=2, batch 1,024)" in out, out
    code, _, err = run(capsys, "optimize", *design, "--maximize", "speedup", "--vary", "link.data_rate=25 Gbit/s",
                       "--batch", "1", "-q")  # no point can split a batch of 1 over 1,024 GPUs: the option's fault
    assert code == 2 and err.startswith("sipml: error: --batch 1: no point of the grid can use it"), err


def test_optimize_refuses_a_precision_the_grids_one_gpu_lacks(capsys):
    """fp8 on the A100 at every point (the GPU not an axis; the other points' links do not close): refused as
    `speedup` refuses it, exit 2, not 'no point is feasible', exit 1. With the GPU an axis, the H100's points
    take it and the A100's refusal is a line of the result."""
    grid = ["optimize", "--maximize", "speedup", "--vary", "link.wavelengths_per_fiber=4:16:4", "--strategy",
            "precision=fp8", "-m", "gpt2-355m", "-q"]
    code, _, err = run(capsys, *grid)
    assert code == 2 and err.startswith("sipml: error: --strategy precision=fp8: a100_sxm4_40gb has no fp8"), err
    code, out, err = run(capsys, *grid, "--vary", "fabric.gpu=gpu.a100_sxm4,gpu.h100_sxm5", "-f", "json")
    result = json.loads(out)
    assert code == 0 and result["valid_points"] == 2 and result["best"]["inputs"]["fabric.gpu"] == "gpu.h100_sxm5"
    assert [r["points"] for r in result["refused"]] == [2] and "no fp8" in result["refused"][0]["error"]
    for argv in (["explain", "margin_db", "sip-ring", "--batch", "8"],
                 ["optimize", "sip-ring", "--maximize", "margin_db", "--vary", "link.data_rate=25 Gbit/s", "--batch",
                  "8"]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "--batch: margin_db is not a training quantity" in err, err


@pytest.mark.parametrize(("argv", "says"), [
    (("speedup", "sip-ring", "--strategy", "dp=3"), "dp = 3 does not divide the 1,024 GPUs"),
    (("speedup", "sip-ring", "-m", "dlrm-dcnv2", "--strategy", "tp=4"),
     "--strategy tp=4: a DLRM runs data parallel over all 1,024 GPUs"),
    (("speedup", "sip-ring", "-m", "resnet-50", "--strategy", "microbatch=256"),
     "--strategy microbatch: this model splits only as dp × mp"),
])
def test_a_strategy_that_cannot_be_says_why_in_the_user_s_words(capsys, argv, says):
    code, _, err = run(capsys, *argv)
    assert code == 2 and says in err and "{" not in err


def test_a_refused_design_s_json_row_has_every_key_of_a_priced_one(capsys):
    """README: an undefined quantity is null — a design that cannot run the job has every key a priced row has, in
    its order, and why; its CSV adds no column of its own (a null `breakdown` beside a priced one's parts)."""
    argv = ("speedup", "sip-ring", "sip-ocs", "dgx-a100", "dgx-h100", "-m", "gpt3-175b", "--gpus", "64")
    code, out, _ = run(capsys, *argv, "-f", "json")
    rows = json.loads(out)["rows"]
    priced, refused = [r for r in rows if r["feasible"]], [r for r in rows if not r["feasible"]]
    assert code == 1 and priced and refused  # exit 1: a design compared cannot run the job
    for r in refused:
        assert [k for k in r if k != "reason"] == list(priced[0]) and r["reason"]
        assert all(r[k] is None for k in ("strategy", "breakdown", "iteration_s", "mfu", "speedup", "run_cost_usd"))
    code, out, _ = run(capsys, *argv, "-f", "csv")
    header = out.splitlines()[0].split(",")
    assert "breakdown [s]" not in header and "breakdown.compute [s]" in header


def test_a_long_causal_sequence_s_mfu_says_what_ran(capsys, tmp_path):
    """MFU counts causal attention whole (Megatron-LM, PaLM); at 32k tokens that puts it far above what the GPUs
    executed, and the row says so with the executed figures; GPT-3 at 2k tokens needs no such note."""
    model = tmp_path / "long.toml"
    model.write_text('name = "long"\ndescription = "t"\nsource = "t [assumed]"\ntag = "[assumed]"\nlayers = 32\n'
                     'hidden = 4096\nheads = 32\nseq_len = 32768\nvocab = 51200\n', encoding="utf-8")
    code, out, _ = run(capsys, "speedup", "ideal", "-m", str(model), "--gpus", "64", "--batch", "64",
                       "--baseline", "ideal", "-f", "json")
    row = json.loads(out)["rows"][0]
    assert code == 0 and row["mfu"] - row["hfu"] > 0.05
    assert any(n.startswith(f"MFU {100 * row['mfu']:.1f} % counts the masked half") for n in row["notes"])
    code, out, _ = run(capsys, "speedup", "dgx-a100", "--baseline", "dgx-a100", "-f", "json")
    assert code == 0 and not any("masked half" in n for n in json.loads(out)["rows"][0]["notes"])


def test_a_row_s_speedup_over_a_baseline_does_not_depend_on_the_other_designs_compared(capsys):
    """--set changes the designs compared, not the baselines: a baseline also compared took the --set, so sip-ring's
    speedup over dgx-a100 moved with whether dgx-a100 was listed (1.042 alone, 1.061 beside it); the changed
    dgx-a100's row is now measured against the dgx-a100 as shipped (slower: 100 µs a collective's launch)."""
    args = ["-m", "gpt2-355m", "--baseline", "dgx-a100", "--set", "fabric.launch_latency=100 us", "-f", "json"]
    speedups = []
    for designs in (["sip-ring"], ["sip-ring", "dgx-a100"]):
        code, out, err = run(capsys, "speedup", *designs, *args)
        assert code == 0, err
        speedups.append({r["design"]: r["baselines"]["dgx-a100"]["speedup"] for r in json.loads(out)["rows"]})
    assert speedups[0]["sip-ring"] == speedups[1]["sip-ring"]
    assert speedups[1]["dgx-a100"] < 1.0
    code, out, _ = run(capsys, "speedup", "sip-ring", "dgx-a100", *args, "--set",
                       "dgx-a100:fabric.launch_latency=100 us")
    assert code == 0 and json.loads(out)["rows"][1]["baselines"]["dgx-a100"]["speedup"] == 1.0


@pytest.mark.parametrize("tokens", ["0.5", "1.5"])
def test_a_training_run_of_a_part_of_a_token_is_refused(capsys, tokens):
    code, _, err = run(capsys, "speedup", "sip-ring", "-m", "gpt2-355m", "--tokens", tokens)
    assert code == 2 and "a whole count of tokens" in err


def test_a_groups_pattern_of_one_gpu_groups_says_it_has_no_traffic(capsys):
    code, _, err = run(capsys, "fabric", "--pattern", "groups", "--group-size", "1")
    assert code == 2 and "a group of one GPU sends nothing" in err


def test_reliability_names_the_design_file_and_the_field_of_a_bad_entry(capsys):
    """As `fabric` and `cost` do: the file a point-to-point link comes from, and the field of an unknown entry."""
    from pathlib import Path

    link = Path(__file__).resolve().parents[2] / "sipml" / "cases" / "links" / "400gbase-dr4.toml"
    code, _, err = run(capsys, "reliability", str(link))
    assert code == 2 and err.startswith(f"sipml: error: {link}: [fabric] kind"), err
    code, _, err = run(capsys, "reliability", "sip-ring", "--set", "fabric.gpu=gpu.nosuch")
    assert code == 2 and "sip-ring: [fabric] gpu = 'gpu.nosuch': no catalog entry" in err, err


def test_a_users_gpu_without_attention_kernels_says_it_runs_unfused(capsys, tmp_path):
    """A GPU file without an [attention] table has no fused kernel's rates: the stack's FlashAttention runs unfused
    there (≈ 10 % slower on an H100), and the row says so, as it says FP8 running in 16 bits."""
    args = _user_gpu(tmp_path, "989 TFLOP/s")
    path = tmp_path / "gpus.toml"
    kept, inside = [], False
    for line in path.read_text().splitlines():  # the [attention] table, and its sources' lines, left out
        if line.startswith("["):
            inside = line.strip() == "[my_h100.attention]"
        if not inside and not line.startswith('"attention.'):
            kept.append(line)
    path.write_text("\n".join(kept) + "\n")
    code, out, err = run(capsys, "speedup", "dgx-h100", "--model", "gpt2-355m", *args)
    assert code == 0, err
    assert "my_h100's figures have no fused kernel, so it runs unfused" in out
    code, out, err = run(capsys, "speedup", "dgx-h100", "--model", "gpt2-355m", *_user_gpu(tmp_path, "989 TFLOP/s"))
    assert code == 0 and "runs unfused" not in out  # the shipped H100's kernels copied: none said


def test_a_catalog_file_that_adds_an_entry_says_so(capsys, tmp_path):
    """The README: every change a catalog file makes is reported on stderr — an added entry too (only overrides
    were)."""
    args = _user_gpu(tmp_path, "989 TFLOP/s")
    code, out, err = run(capsys, "speedup", "sip-ring", "--model", "gpt2-355m", *args)
    assert code == 0, err
    assert f"catalog: {tmp_path / 'catalog.toml'}: adds [gpu.my_h100]" in err


@pytest.mark.parametrize("item", ["fabric.gpus=16384", "cpo-800g:fabric.job_gpus=4096"])
def test_gpus_beside_a_set_of_the_size_is_refused_saying_how_to_ask(capsys, item):
    """`--gpus 8192 --set fabric.gpus=16384` ran at 8,192, the --set unsaid; `--gpus` with a job_gpus --set said to
    give --gpus. Both refused (exit 2), naming the --set and how to run a job on part of a cluster."""
    code, _, err = run(capsys, "speedup", "cpo-800g", "-m", "gpt2-355m", "--gpus", "8192", "--set", item)
    assert code == 2 and f"--set {item} beside it is refused" in err and "fabric.job_gpus=M" in err
