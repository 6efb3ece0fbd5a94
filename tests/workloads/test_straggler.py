"""The wait for a step's slowest GPU (TrainingSettings.straggler_s): each GPU's compute in a step is T·(1 + σ·z),
z standard normal, and a synchronous step ends with the last of n GPUs, σ·T·E[max z] after the mean — so per-GPU
throughput falls as the job grows, even where nothing else changes."""

from __future__ import annotations

import json
import math

import pytest

from sipml.cli import main
from workloads.settings import DEFAULT_TRAINING, TrainingSettings, expected_maximum


def _exact_expected_maximum(n):
    from scipy import integrate, stats  # here, not at collection: scipy.stats takes ~1 s to import

    density = (lambda x: x * n * stats.norm.pdf(x) * stats.norm.cdf(x) ** (n - 1))
    return integrate.quad(density, -12, 12, limit=400)[0]


@pytest.mark.parametrize("n, rel", [(2, 0.05), (8, 0.01), (1024, 0.01), (16384, 0.01), (1 << 20, 0.01)])
def test_expected_maximum_against_the_integral(n, rel):
    assert expected_maximum(n) == pytest.approx(_exact_expected_maximum(n), rel=rel)


def test_one_gpu_waits_for_nobody_and_the_wait_grows_like_the_root_of_twice_the_log():
    assert expected_maximum(1) == 0.0
    assert float(DEFAULT_TRAINING.straggler_s(10.0, 1)) == 0.0
    for n in (1 << 10, 1 << 14, 1 << 20):  # the Gumbel limit: √(2 ln n) − (ln ln n + ln 4π)/(2√(2 ln n)) + γ/√(2 ln n)
        a = math.sqrt(2 * math.log(n))
        gumbel = a - (math.log(math.log(n)) + math.log(4 * math.pi)) / (2 * a) + 0.5772156649 / a
        assert expected_maximum(n) == pytest.approx(gumbel, rel=0.02)
    settings = TrainingSettings(step_jitter=0.01)
    assert float(settings.straggler_s(2.0, 1024)) == pytest.approx(0.01 * 2.0 * expected_maximum(1024))


def _per_gpu(capsys, gpus):
    """Tokens/s per GPU of a 7.5B GPT on the ideal fabric: the same strategy inside each data-parallel replica
    and the same microbatches per replica (the batch grows with the GPUs), so only the job's size changes."""
    args = ["speedup", "ideal", "-m", "megatron-7.5b", "--gpus", str(gpus), "--batch", str(gpus // 2),
            "--strategy", "tp=4,pp=1,microbatch=1,recompute=none,zero=1,sp=true", "--baseline", "ideal", "-f", "json"]
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 0, err
    row = json.loads(out)["rows"][0]
    return row["throughput"] / gpus, row["breakdown"]


def test_throughput_per_gpu_falls_from_a_thousand_to_sixteen_thousand_gpus(capsys):
    small, small_phases = _per_gpu(capsys, 1024)
    large, large_phases = _per_gpu(capsys, 16384)
    assert large < small
    # the wait is the same share of compute at each size, scaled by E[max] of the job's GPUs
    large, small = (phases["straggler"] / phases["compute"] for phases in (large_phases, small_phases))
    ratio = large / small
    assert ratio == pytest.approx(expected_maximum(16384) / expected_maximum(1024), rel=1e-9)
    assert small_phases["straggler"] / small_phases["compute"] == pytest.approx(
        DEFAULT_TRAINING.step_jitter * expected_maximum(1024), rel=1e-9)
