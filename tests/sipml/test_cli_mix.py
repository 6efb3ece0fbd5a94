"""`sipml mix` as users run it: exit codes, refusals in one line, JSON = the API, the figure, a sweep of sizes."""

import json

import pytest

import sipml
from tests.sipml.cli_run import refused, run

SMALL = """
gpus = 128
gpu = "gpu.h100_sxm5"
[[job]]
name = "big"
model = "gpt2-355m"
gpus = 64
[[job]]
name = "small"
model = "gpt2-355m"
gpus = 32
"""


def _mix(tmp_path, text=SMALL):
    path = tmp_path / "mix.toml"
    path.write_text(text)
    return str(path)


def test_json_is_the_api(capsys, tmp_path):
    path = _mix(tmp_path)
    code, out, err = run(capsys, "mix", "dgx-h100", "sip-ocs", "--jobs", path, "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data == sipml.mix(["dgx-h100", "sip-ocs"], path).to_dict()
    first = data["designs"][0]
    assert first["gpus"] == 128 and first["gpus_running"] == 96 and first["idle_gpus"] == 32
    assert first["largest_fit_gpus"] == 32 and first["utilisation"] == 0.75
    assert [j["job"] for j in first["jobs"]] == ["big", "small"]
    # a job's hour: its GPUs' share of the cluster's hardware over 4 years and of its power at 0.75 load × PUE 1.1
    # at $0.078/kWh (RunSettings, [fabric] pue)
    hour = first["cluster_cost_usd"] / (4 * 365.25 * 24) + first["cluster_power_w"] * 0.75 * 1.1 / 1e3 * 0.078
    assert first["jobs"][0]["cost_per_hour_usd"] == pytest.approx(hour * 64 / 128, rel=1e-9)
    assert all(j["slowdown"] == 1.0 for j in first["jobs"])


def test_the_figure_and_a_sweep_of_sizes(capsys, tmp_path):
    path, png = _mix(tmp_path), tmp_path / "where.png"
    code, out, err = run(capsys, "mix", "dgx-h100", "sip-ring", "--jobs", path, "--vary", "small.gpus=16,32,64",
                         "--plot", str(png))
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(png) as image:  # the figure is one point's: its title (and metadata) say which
        assert "(at small.gpus=64, the last point of --vary)" in image.text["Title"]
    assert "Over the mix's sizes" in out
    svg = tmp_path / "where.svg"  # the format its name says, the title in its metadata; no figure format: refused
    code, _, err = run(capsys, "mix", "dgx-h100", "--jobs", path, "--plot", str(svg))
    assert code == 0 and svg.read_bytes().startswith(b"<?xml") and b"where each job runs" in svg.read_bytes(), err
    code, _, err = run(capsys, "mix", "dgx-h100", "--jobs", path, "--plot", str(tmp_path / "where.jpg"))
    assert code == 2 and "a figure is written as .png, .svg, .pdf" in err and not (tmp_path / "where.jpg").exists()
    code, out, err = run(capsys, "mix", "dgx-h100", "--jobs", path, "--vary", "small.gpus=16,64", "-f", "json")
    rows = json.loads(out)["designs"]
    assert [r["point"]["small.gpus"] for r in rows] == [16, 64]
    assert [r["idle_gpus"] for r in rows] == [48, 0]
    code, out, err = run(capsys, "mix", "dgx-h100", "sip-ring", "--jobs", path, "--vary", "small.gpus=16,64", "-f",
                         "markdown")
    tables = [block for block in out.split("\n\n") if "|" in block]
    cluster, jobs = tables[0], tables[2]  # the clusters, the sizes, each job: each row says its point
    assert "GPUs asked" not in out.splitlines()[0] and cluster.splitlines()[2].startswith("| 16 ")
    assert sum(line.startswith("| 64 ") for line in jobs.splitlines()) == 4  # both jobs at 64, on both designs
    assert "At small.gpus=16: Throughput per dollar" in out and "At small.gpus=64: Throughput per dollar" in out
    assert out.count("dgx-h100: ") == 1  # its placement rule once, not once per point
    code, out, err = run(capsys, "mix", "dgx-h100", "--jobs", path, "--vary", "small.gpus=16,64")
    assert "One design at each point: nothing to compare." in out and "leads" not in out


def test_refusals(capsys, tmp_path):
    path = _mix(tmp_path, SMALL.replace("gpus = 32", "gpus = 96"))
    refused(capsys, "mix", "dgx-h100", "--jobs", path,
            fragment="the mix does not fit: its jobs ('big' 64, 'small' 96) ask 160 GPUs")
    path = _mix(tmp_path, SMALL.replace('gpus = 64\n', 'gpus = 64\nat = "0-63"\n').replace(
        'gpus = 32\n', 'gpus = 32\nat = "32-63"\n'))
    refused(capsys, "mix", "dgx-h100", "--jobs", path, fragment="job 'small': its fixed GPUs 32-63 overlap job 'big' on GPUs 32-63")
    refused(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path, SMALL + "colour = 1\n"), fragment="unknown key")
    refused(capsys, "mix", "dgx-h100", "--jobs", "nosuchmix", fragment="no mix 'nosuchmix'")
    refused(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path), "--policy", "worst", fragment="--policy 'worst'")
    refused(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path), "--vary", "small.tp=2", fragment="cannot be varied")
    refused(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path), "--vary", "nobody.gpus=2", fragment="no job 'nobody'")


def test_a_job_a_design_cannot_run_exits_1_with_the_reason(capsys, tmp_path):
    path = _mix(tmp_path, SMALL.replace("gpus = 128", "gpus = 4096").replace("gpus = 32", "gpus = 40"))
    code, out, err = run(capsys, "mix", "ocs-torus-v4", "--jobs", path)
    assert code == 1
    assert "cannot run: a slice is whole cubes" in out and "not placed: it cannot run here" in out
    assert "stranded" not in out.split("Each job")[1].split("\n\n")[0]  # the 40-GPU job holds no cube


def test_a_design_that_cannot_place_a_job_is_infeasible_and_the_others_run(capsys, tmp_path):
    """Two 32-GPU jobs fixed at 32-63 and 96-127 leave no 64-GPU arc on a 128-GPU ring; servers anywhere hold it."""
    text = SMALL.replace('name = "big"', 'name = "big"\npriority = -1').replace(
        'gpus = 32\n', 'gpus = 32\nat = "32-63"\n') + '[[job]]\nname = "other"\nmodel = "gpt2-355m"\ngpus = 32\nat = "96-127"\n'
    code, out, err = run(capsys, "mix", "sip-ring", "dgx-h100", "--jobs", _mix(tmp_path, text), "-f", "json")
    assert code == 1, err
    ring, dgx = json.loads(out)["designs"]
    assert not ring["feasible"] and "job 'big' (64 GPUs) cannot be placed: it needs one unbroken arc" in ring["reason"]
    assert dgx["feasible"] and dgx["gpus_running"] == 128


def test_slices_of_whole_cubes_on_the_torus_design_leave_the_idle_cubes_counted(capsys, tmp_path):
    """ocs-torus-v4 (64 cubes of 64 chips): slices of 16, 32 and 8 cubes, and a 200-GPU job it cannot run (a slice
    is whole cubes), which holds none of them: 56 cubes held, 8 idle (512 GPUs), nothing stranded, a 512-GPU job
    still fits (it held 4 cubes, 56 of their chips stranded, the 200 asked counted nowhere)."""
    jobs = "".join(f'[[job]]\nname = "{name}"\nmodel = "gpt2-355m"\ngpus = {gpus}\nbatch = {batch}\n'
                   for name, gpus, batch in (("a", 1024, 1024), ("b", 2048, 2048), ("c", 512, 512), ("d", 200, 200)))
    code, out, err = run(capsys, "mix", "ocs-torus-v4", "--jobs", _mix(tmp_path, jobs), "-f", "json")
    assert code == 1, err  # job d cannot run
    torus = json.loads(out)["designs"][0]
    assert (torus["idle_gpus"], torus["stranded_gpus"], torus["largest_fit_gpus"]) == (512, 0, 512)
    cubes = [j["placement"].split("(")[1].split(" ")[0] for j in torus["jobs"][:3]]
    assert torus["gpus_running"] == 3584 and cubes == ["16", "32", "8"]
    assert torus["gpus_running"] + torus["idle_gpus"] + torus["stranded_gpus"] == torus["gpus"]
    d = torus["jobs"][3]
    assert "a slice is whole cubes" in d["reason"] and d["placement"] == "not placed: it cannot run here"
    assert d["cost_per_hour_usd"] is None


def test_a_mix_files_problem_names_the_file(capsys, tmp_path):
    """As a design file's problems start with the file's name, a mix file's do."""
    mix = tmp_path / "m.toml"
    mix.write_text('[[job]]\nname = "a"\nmodel = "gpt2-355m"\ngpus = 64\nfoo = 1\n')
    refused(capsys, "mix", "-j", str(mix), "sip-ring", fragment=f"{mix}: job 1: unknown key 'foo'")
    mix.write_text('[[job]]\nname = "a"\nmodel = "nosuch.toml"\ngpus = 64\n')  # a job's model, read as it runs
    refused(capsys, "mix", "-j", str(mix), "sip-ring", fragment=f"{mix}: job 'a': nosuch.toml")


def test_a_partitioned_switch_runs_a_mix_whose_jobs_each_fit_a_pod(capsys, tmp_path):
    """Two 768-GPU jobs on 2 048 GPUs of 1 024-port switches in independent pods: each fits a pod, so the mix runs
    (the cluster was judged as one job of all 2 048 GPUs spanning both pods, and refused)."""
    mix = tmp_path / "pods.toml"
    mix.write_text('gpus = 2048\ngpu = "gpu.h100_sxm5"\nhost = "server.dgx_h100_host"\n'
                   + "".join(f'[[job]]\nname = "{n}"\nmodel = "megatron-7.5b"\ngpus = 768\n' for n in "ab"))
    code, out, err = run(capsys, "mix", "sip-ocs", "--set", "sip_ocs.topology=partitioned", "--jobs", str(mix),
                         "-f", "json")
    assert code == 0, err
    [row] = json.loads(out)["designs"]
    assert row["feasible"] and row["gpus_running"] == 1536


def test_a_mix_no_design_runs_prints_the_reasons_not_empty_tables(capsys, tmp_path):
    """Three jobs of 768, 768 and 512 GPUs on two 1 024-GPU pods: the third fits in neither. The report printed two
    empty tables and 'One design at each point: nothing to compare' without --vary, and '512 GPUs of 1 GPU'."""
    mix = tmp_path / "three.toml"
    mix.write_text('gpus = 2048\ngpu = "gpu.h100_sxm5"\nhost = "server.dgx_h100_host"\n'
                   + "".join(f'[[job]]\nname = "{n}"\nmodel = "megatron-7.5b"\ngpus = {g}\n'
                             for n, g in (("a", 768), ("b", 768), ("c", 512))))
    code, out, _ = run(capsys, "mix", "sip-ocs", "--set", "sip_ocs.topology=partitioned", "--jobs", str(mix))
    assert code == 1 and "----" not in out and "No design runs the mix: nothing to compare." in out
    assert "it needs 512 GPUs inside one pod of 1024 GPUs" in out


def test_a_job_no_strategy_runs_holds_no_gpus_and_the_others_are_placed_without_it(capsys, tmp_path):
    """GPT-3 175B on 8 H100s fits in no strategy's memory: it is not placed, and the 64-GPU job first-fit put
    behind it starts at GPU 0; the cluster's GPUs are the running and the idle ones."""
    text = SMALL.replace('name = "big"\nmodel = "gpt2-355m"\ngpus = 64', 'name = "huge"\nmodel = "gpt3-175b"\ngpus = 8')
    text = text.replace('name = "small"\nmodel = "gpt2-355m"\ngpus = 32',
                        'name = "big"\nmodel = "gpt2-355m"\ngpus = 64')
    code, out, err = run(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path, text), "-f", "json")
    assert code == 1, err
    dgx = json.loads(out)["designs"][0]
    huge, big = dgx["jobs"]
    assert "fits in h100_sxm5's memory" in huge["reason"] and huge["placement"] == "not placed: it cannot run here"
    assert big["placement"] == "GPUs 0-63" and big["iteration_s"] > 0
    assert (dgx["gpus_running"], dgx["idle_gpus"], dgx["largest_fit_gpus"]) == (64, 64, 64)


def test_a_vary_point_the_mix_does_not_fit_is_its_row_and_the_others_run(capsys, tmp_path):
    """--vary small.gpus=32,96 on 128 GPUs: at 96 the mix asks 160; that point's row names it and the job sizes,
    the point at 32 runs, and the command exits 1 (a point the design cannot run), not 2 with no rows."""
    code, out, err = run(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path), "--vary", "small.gpus=32,96", "-f",
                         "json")
    assert code == 1, err
    fits, too_big = json.loads(out)["designs"]
    assert fits["point"] == {"small.gpus": 32} and fits["feasible"] and fits["gpus_running"] == 96
    assert too_big["point"] == {"small.gpus": 96} and not too_big["feasible"]
    assert too_big["reason"] == ("at small.gpus=96: the mix does not fit: its jobs ('big' 64, 'small' 96) ask 160 "
                                 "GPUs (whole servers) of the cluster's 128")
    code, out, err = run(capsys, "mix", "dgx-h100", "--jobs", _mix(tmp_path), "--vary", "small.gpus=32,96")
    assert code == 1 and "Over the mix's sizes" in out and "infeasible — at small.gpus=96" in out


def test_the_placement_figure_says_which_jobs_were_not_placed(tmp_path):
    """A job no design can run holds no GPUs: its legend entry says so (its colour drew nowhere, unexplained)."""
    from sipml.mix_figure import placement_figure
    from sipml.mix_report import load_mix_designs, run_mix_rows
    from workloads.mix import load_mix

    mix = load_mix(_mix(tmp_path, SMALL.replace("gpus = 128", "gpus = 4096").replace("gpus = 32", "gpus = 40")))
    _, runs = run_mix_rows(mix, load_mix_designs(["ocs-torus-v4"], mix, [], None))
    fig = placement_figure(runs, "test")
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert "small (not placed: cannot run)" in labels and "big" in labels


def test_a_mix_a_design_cannot_hold_in_whole_units_is_that_design_s_row(capsys, tmp_path):
    """One 1,024-GPU job on 1,024-GPU clusters: cpo-800g's 8-GPU servers hold it, gb200-nvl72's 72-GPU racks would
    need 1,080 GPUs: that design's row says so (exit 1) and the other runs — it was a bad-mix refusal of every
    design (exit 2). A mix asking more GPUs than the cluster has stays a bad mix, naming the design."""
    path = _mix(tmp_path, 'gpus = 1024\n[[job]]\nmodel = "gpt2-355m"\ngpus = 1024\n')
    code, out, err = run(capsys, "mix", "cpo-800g", "gb200-nvl72", "-j", str(path), "-f", "json")
    assert code == 1, err
    rows = {r["design"]: r for r in json.loads(out)["designs"]}
    assert rows["cpo-800g"]["jobs"][0]["iteration_s"] > 0
    assert not rows["gb200-nvl72"]["feasible"] and "1080 GPUs (whole servers)" in rows["gb200-nvl72"]["reason"]
    path = _mix(tmp_path, 'gpus = 1024\n[[job]]\nmodel = "gpt2-355m"\ngpus = 2048\n')
    code, _, err = run(capsys, "mix", "cpo-800g", "-j", str(path))
    assert code == 2 and err.startswith("sipml: error: cpo-800g: the mix does not fit")
