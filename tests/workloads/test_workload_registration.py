"""A workload kind is one `register` call: a toy kind defined outside the package (tests/workloads/toy_workload.py)
and registered here is read from a model file (`kind = "toy-dp"`, its keys checked), and `speedup`, `sweep --model`,
`explain` and `models`-style listings run it through the entry point users run, timed by its own formula."""

from __future__ import annotations

import json

import pytest

from core.errors import InputError
from tests.workloads.toy_workload import MODEL, TOY, step_parts
from workloads import kinds


@pytest.fixture
def toy(tmp_path):
    kinds.register(TOY)
    path = tmp_path / "toy.toml"
    path.write_text(MODEL)
    yield str(path)
    kinds.unregister(TOY.name)


def run_json(capsys, *argv):
    from sipml.cli import main

    code = main([*argv, "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_a_registered_kind_reads_its_model_file_and_refuses_unknown_keys(toy, tmp_path):
    from workloads.models import load_model

    model = load_model(toy)
    assert (model.parameters, model.flops_per_sample, model.info.kind) == (2e9, 1.2e13, "toy-dp")
    bad = tmp_path / "bad.toml"
    bad.write_text(MODEL.replace("flops_per_sample", "flops_per_sampel"))
    with pytest.raises(InputError, match="flops_per_sampel"):
        load_model(str(bad))


def test_an_unregistered_kind_is_refused_naming_the_kinds(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_text(MODEL)
    from workloads.models import load_model

    with pytest.raises(InputError, match=r"kind = 'toy-dp': expected one of transformer, generic, cnn, dlrm"):
        load_model(str(path))


def test_speedup_runs_it_by_its_own_formula(toy, capsys):
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design
    from workloads.models import load_model
    from workloads.speedup import gpu_of

    [row] = run_json(capsys, "speedup", "sip-ring", "--model", toy, "--batch", "1024")["rows"]
    design = load_design("sip-ring")
    compute, reduce = step_parts(load_model(toy), gpu_of(design), evaluate_fabric(design), 1024, row["precision"])
    assert row["iteration_s"] == pytest.approx(compute + reduce, rel=1e-12)
    assert row["breakdown"]["data_parallel"] == pytest.approx(reduce, rel=1e-12)
    assert (row["strategy"], row["stack"], row["throughput_unit"]) == ({"dp": 1024}, "pytorch-ddp", "samples/s")
    assert row["throughput"] == pytest.approx(1024 / row["iteration_s"], rel=1e-12)


def test_sweep_with_model_runs_it_at_each_point(toy, capsys):
    from sipml.cli import main

    code = main(["sweep", "sip-ring", "--vary", "link.data_rate=20Gbit/s,25Gbit/s", "--model", toy, "--batch", "1024",
                 "--workers", "1", "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    slow, default = [json.loads(line) for line in out.splitlines()]
    [row] = run_json(capsys, "speedup", "sip-ring", "--model", toy, "--batch", "1024")["rows"]
    assert default["iteration_s [s]"] == pytest.approx(row["iteration_s"], rel=1e-12)  # 25 Gbit/s: the design's own
    assert slow["iteration_s [s]"] > default["iteration_s [s]"]  # a slower link: a slower all-reduce


def test_explain_derives_its_throughput_in_its_unit(toy, capsys):
    out = run_json(capsys, "explain", "throughput", "sip-ring", "--model", toy)
    numbers = {n["text"]: n for n in out["numbers"]}
    assert numbers["b"]["unit"] == "samples" and float(numbers["b"]["value"]) == 2048  # two samples a GPU
    assert out["value"] == pytest.approx(2048 / float(numbers["T"]["value"]), rel=1e-5)  # T printed to 6 digits


def test_no_model_kind_is_dispatched_by_its_class():
    """The built-in kinds reach the search and the reports only through the registry: no isinstance on a model
    record under workloads/ or sipml/."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    records = r"(TransformerModel|GenericModel|CnnModel|DlrmModel|ToyModel|\bModel\b)"
    found = [f"{path.relative_to(root)}:{n}" for folder in ("workloads", "sipml") for path in (root / folder).rglob("*.py")
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r"isinstance\([^)]*,\s*\(?[^)]*" + records, line)]
    assert found == []


def test_a_plug_in_kind_sweeps_in_this_process_where_workers_would_not_see_it(toy, capsys, monkeypatch):
    """A kind registered here lives in this process: under a start method other than fork the sweep runs its
    chunks here (same rows), and a Dask cluster is refused (exit 2)."""
    import multiprocessing

    from sipml.cli import main

    args = ["sweep", "sip-ring", "--vary", "link.data_rate=20Gbit/s,25Gbit/s", "--vary", "fabric.gpus=64,128",
            "--model", toy, "-f", "jsonl"]
    assert main([*args, "--workers", "1"]) == 0
    alone = capsys.readouterr().out
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda *a, **k: "spawn")

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool of processes that would not see the kind was started")

    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", no_pool)
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr().out == alone and '"training_error": ""' in alone
    assert main([*args, "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert "do not reach a Dask cluster" in capsys.readouterr().err
