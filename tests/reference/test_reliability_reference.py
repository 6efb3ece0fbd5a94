"""Interruptions and effective training time against what Meta published for Llama 3 405B (Grattafiori et al.,
arXiv 2407.21783 §3.3.4; reliability.md Y1–Y12) and Daly's own test cases, through `sipml reliability`."""

import json

import pytest

from tests.sipml.cli_run import run
from workloads.goodput import daly_interval_s, ettr

LLAMA3 = ("llama3-24k", "--model", "llama3-405b", "--set", "fabric.job_gpus=16384")


def reliability(capsys, *argv):
    code, out, err = run(capsys, "reliability", *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def test_llama3_405b_interruptions_per_day_from_part_rates(capsys):
    """419 unexpected interruptions in 54 days on 16,384 H100 (7.76 a day): the part rates × the cluster's counts
    (GPUs and hosts from Table 5's counts reading; the network's switches and optics from their own rates, not from
    Table 5's network row) land within ±15 %."""
    data = reliability(capsys, *LLAMA3)
    assert data["interruptions_per_day"] == pytest.approx(419 / 54, rel=0.15)


def test_llama3_405b_keeps_more_than_90_percent_effective_training_time(capsys):
    """Meta: "higher than 90 %" (§3.3.4), with checkpoints of the model state (405 B × 14 bytes) through Tectonic's
    2 TB/s sustained writes and 7 TB/s reads (§3.3.1)."""
    data = reliability(capsys, *LLAMA3)
    assert 0.90 < data["ettr"] < 1.0
    assert data["checkpoint_bytes"] == pytest.approx(405.8e9 * 14, rel=0.02)


@pytest.mark.parametrize("mtti_min, published_min", [(24 * 60, 117.0), (6 * 60, 57.0), (15, 9.1)])
def test_daly_optimum_reproduces_daly_s_test_cases(mtti_min, published_min):
    """Daly 2006, figures 3–5 (δ = 5 min): τ_opt = 117, 57 and 9.1 min (reliability.md Y8a, Y8b)."""
    assert daly_interval_s(5 * 60, mtti_min * 60) / 60 == pytest.approx(published_min, abs=0.5)


def test_the_worked_case_of_the_reliability_notes():
    """M = 800 min, δ = 4 min, R = 10 min: τ_D = 77.36 min and ETTR 89.21 % (reliability.md Y10)."""
    tau = daly_interval_s(4 * 60, 800 * 60)
    assert tau / 60 == pytest.approx(77.36, abs=0.01)
    assert ettr(tau, 4 * 60, 800 * 60, 10 * 60) == pytest.approx(0.8921, abs=5e-5)
