"""Published training runs, judged through the path users run (sipml/cases/training_runs.toml: each case's source,
settings and tolerance): Megatron-LM SC21 Table 1 and Korthikanti et al. Table 5, MLPerf GPT-3 on H100, Llama 3
405B, ResNet-50 and BERT-large throughput per GPU — every judged case inside its tolerance."""

from __future__ import annotations

from sipml.validation import all_cases, training_cases


def test_every_judged_training_case_is_inside_its_tolerance():
    groups = {c.group for c in training_cases()}
    judged = [c for c in all_cases() if not c.informational and c.group in groups]
    outside = [f"{c.name}: {100 * c.error:+.1f} % (tolerance ±{100 * c.tolerance:g} %)" for c in judged
               if not c.passed]
    assert len(judged) >= 31
    assert not outside, outside
