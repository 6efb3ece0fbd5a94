"""`sipml validate` judges training time through the command users run: every published training run of
sipml/cases/training_runs.toml is the row `sipml speedup … -f json` prints for that run's inputs, and validate's
number is that row's."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from sipml.cli import main
from sipml.validation import case_value, training_case_row, training_cases

CASES = training_cases()


def test_the_case_table_covers_the_published_runs_the_model_is_judged_on():
    groups = {c.group for c in CASES}
    assert {"Megatron SC21", "Megatron K22", "MegaScale", "Llama 3", "MLPerf GPT-3", "ResNet-50",
            "BERT-large"} <= groups
    assert len([c for c in CASES if c.group == "Megatron SC21"]) == 10
    assert len([c for c in CASES if c.group == "Megatron K22"]) == 8
    assert all("stack=" in c.strategy for c in CASES), "every case names the software stack it ran"
    assert all(c.note for c in CASES if not c.judged), "a case shown but not judged says why"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_case_is_the_row_sipml_speedup_prints(case, capsys):
    code = main([*case.argv(), "--format", "json"])
    printed = json.loads(capsys.readouterr().out)["rows"][0]
    assert code == 0
    row = training_case_row(case)
    for key in ("iteration_s", "mfu", "throughput", "tflops_per_gpu", "stack", "strategy", "gpus", "batch"):
        assert printed[key] == row[key], key
    assert math.isfinite(case_value(case, printed))


def test_one_case_through_a_separate_process():
    """The installed entry point, not the in-process one: the K22 175B selective row."""
    case = next(c for c in CASES if c.name.startswith("175B iteration, SP"))
    out = subprocess.run([sys.executable, "-m", "sipml", *case.argv(), "-f", "json"], capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out)["rows"][0]["iteration_s"] == training_case_row(case)["iteration_s"]
