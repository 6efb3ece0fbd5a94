"""The few fitted constants of the compute model are the least-squares fits of the published runs their sources
name (on the logarithm of published / ours), and nothing else was fitted: nudging a shipped value by ±0.005 in
either direction makes its fit worse. Every other case of sipml/cases/training_runs.toml tests them."""

from __future__ import annotations

import dataclasses
import math
from types import MappingProxyType

import pytest

import workloads.speedup as speedup
from sipml.validation import case_value, training_case_row, training_cases
from workloads import stacks

STEP = 0.005

# constant → (how to set it, the cases it is fitted on: name prefixes in training_runs.toml)
FITS = {
    "global software_efficiency (ComputeSettings)": (
        ("global",), ("GPT-3 175B on 128 H100, BF16", "GPT-3 175B on 2,048 H100, BF16", "GPT-3 175B on 128 H100, FP8",
                      "GPT-3 175B on 2,048 H100, FP8", "Llama 3 8B, 8 H100", "Llama 3 70B, 64 H100",
                      "Llama 3.1 405B, 1,024 H100")),
    "ampere_efficiency (ComputeSettings)": (
        ("global", "ampere_efficiency"), ("22B iteration", "175B iteration", "530B iteration", "1T iteration")),
    "megatron-2021 software_efficiency": (("stack", "megatron-2021"),
                                          ("megatron-1.7b ", "megatron-18.4b ", "megatron-145.6b ")),
    "nemo-2023 hopper efficiency": (("arch", "nemo-2023", "hopper"), ("175B v3.0, 512", "175B v3.0, 3,584")),
    "pytorch-ddp software_efficiency": (("stack", "pytorch-ddp"), ("A100 80 GB, PyTorch 21.11, phase 1",)),
    "pytorch-2020 software_efficiency": (("stack", "pytorch-2020"), ("A100 40 GB, PyTorch 20.06, phase 1",)),
}


def _shipped(target):
    shipped = stacks.shipped_stacks()
    if target[0] == "global":
        return getattr(shipped["megatron-core"].compute, target[1] if len(target) > 1 else "software_efficiency")
    if target[0] == "stack":
        return shipped[target[1]].compute.software_efficiency
    return shipped[target[1]].architecture_efficiency[target[2]]


def _variant(target, value):
    out = {}
    for name, st in stacks.shipped_stacks().items():
        compute, arch = st.compute, dict(st.architecture_efficiency)
        own = "compute.software_efficiency" in st.sources
        if target[0] == "global" and len(target) > 1 and not own:
            compute = dataclasses.replace(compute, **{target[1]: value})
        elif target[0] == "global" and not own:
            compute = dataclasses.replace(compute, software_efficiency=value)
        elif target[0] == "stack" and name == target[1]:  # a stack's own share holds on every GPU
            compute = dataclasses.replace(compute, software_efficiency=value, ampere_efficiency=value)
        if target[0] == "arch" and name == target[1]:
            arch[target[2]] = value
        out[name] = dataclasses.replace(st, compute=compute, architecture_efficiency=MappingProxyType(arch))
    return MappingProxyType(out)


def _sse(monkeypatch, target, value, prefixes):
    variant = _variant(target, value)
    monkeypatch.setattr(stacks, "shipped_stacks", lambda: variant)
    speedup._search.cache_clear()
    cases = [c for c in training_cases() if c.name.startswith(prefixes)]
    for prefix in prefixes:  # every case named is found (a renamed case must not drop out of its fit)
        matched = [c.name for c in cases if c.name.startswith(prefix)]
        assert matched and (len(matched) == 1 or target[0] == "global"), (prefix, matched)
    return sum(math.log(case_value(c, training_case_row(c)) / c.published) ** 2 for c in cases)


@pytest.mark.parametrize("name", FITS)
def test_each_fitted_constant_is_the_fit_of_its_cases(name, monkeypatch):
    target, prefixes = FITS[name]
    value = _shipped(target)
    here = _sse(monkeypatch, target, value, prefixes)
    for nudged in (value - STEP, value + STEP):
        assert _sse(monkeypatch, target, nudged, prefixes) >= here - 1e-12, (name, nudged)
    speedup._search.cache_clear()


def test_the_sources_say_what_each_constant_was_fitted_on():
    shipped = stacks.shipped_stacks()
    fitted = [(name, key) for name, st in shipped.items() for key, text in st.sources.items() if "fitted" in text]
    assert sorted(fitted) == sorted([("megatron-2021", "compute.software_efficiency"),
                                     ("nemo-2023", "architecture_efficiency.hopper"),
                                     ("pytorch-2020", "compute.software_efficiency"),
                                     ("pytorch-ddp", "compute.software_efficiency")])
