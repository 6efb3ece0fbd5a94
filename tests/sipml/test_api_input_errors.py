"""Issue 42: the Python API raises the project's input error (`core.errors.InputError`, with the CLI's kind of
message) for every bad value — never ValueError, OverflowError, OSError or AttributeError — and `dir(sipml)` lists
the public names the package imports on first use."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sipml
from core.errors import InfeasibleDesign, InputError
from sipml import api

LINK_AXIS = ["laser.power_per_line=1mW:2mW:2"]


def test_issue_cases_raise_input_error():
    with pytest.raises(InputError, match=r"batch: expected a whole number from 1 to \d+"):
        api.speedup("sip-ring", "gpt2-355m", batch=10**30)
    with pytest.raises(InputError, match="'xxx.*File name too long"):  # the name, cut short, and why
        api.load_design("x" * 10000)
    with pytest.raises(InputError, match="tokens: expected a number a float can hold"):
        api.speedup("sip-ring", "gpt2-355m", tokens=10**400)
    with pytest.raises(InputError, match="catalog file not found|File name too long"):
        api.cost("sip-ring", catalog_files=["y" * 5000])


def test_training_takes_a_model_by_name_and_checks_its_arguments():
    """`evaluate(...).training('gpt2-355m', None)` raised AttributeError (the name was not a model): a name is a
    model now, None the model's default batch as `sipml speedup` takes it; bad values are InputError."""
    point = api.evaluate("sip-ring")
    result = point.training("gpt2-355m", None)
    rows = api.speedup("sip-ring", "gpt2-355m", baselines=["fattree-200"])
    assert result.best.iteration_s == rows[0]["iteration_s"] and result.batch == rows[0]["batch"]
    fixed = point.training("gpt2-355m", 64, "tp=2,sp=true")
    assert fixed.best.strategy["tp"] == 2 and fixed.best.strategy["sp"] is True
    assert point.training("gpt2-355m", 64, {"tp": 2, "sp": True}).best.strategy == fixed.best.strategy
    for args, message in ((("gpt2-355m", 10**30), "batch"), ((3, 64), "model"), (("nosuch", 64), "nosuch"),
                          (("gpt2-355m", 64, "tp=²"), "tp"), (("gpt2-355m", 64, {"tp": 2.5}), "fixed"),
                          (("gpt2-355m", 64, ["tp=2"]), "fixed"), (("gpt2-355m", 1.5), "batch")):
        with pytest.raises(InputError, match=message):
            point.training(*args)
    with pytest.raises(InputError, match="top"):
        point.training("gpt2-355m", 64, top=0)
    with pytest.raises(InputError, match="gradient_bytes"):
        point.training("gpt2-355m", 64, gradient_bytes=math.nan)
    with pytest.raises(InputError, match="stack"):
        point.training("gpt2-355m", 64, stack="nosuch")


class _Odd:
    """An object no parameter takes."""

    def __repr__(self):
        return "<odd>"


ODD = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([-1, 0, 1, 3, 2**31, 2**63, -2**63, 10**30, 10**400]),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 0.5, 1e308, 5e-324]),
    st.sampled_from(["", " ", "sip-ring", "²", "８", "x" * 10000, "a\x00b", "..", "/", "/dev/null", "gpt2-355m",
                     "tp=8", "link.data_rate", "1e999 Gbit/s", "25 GBd", "nan W", "-1", "true", "🙂"]),
    st.text(max_size=12),
    st.deferred(lambda: _odd_objects()),
)


def _odd_objects():
    """Objects of other types, quantities among them (pint's registry built when first drawn, not at collection)."""
    from core.units import Q_

    return st.sampled_from([b"sip-ring", [], [None], ["sip-ring", 3], {}, {"a": 1}, ("x",), _Odd(), np.int64(3),
                            np.float64(math.nan), np.bool_(True), Q_(3, "mW"), Q_(math.nan, "Gbit/s"), object])

# each call puts the odd value in one argument of one API function
CALLS = {
    "load_design(design)": lambda v: api.load_design(v),
    "load_design(changes)": lambda v: api.load_design("sip-ring", v),
    "load_design(changes value)": lambda v: api.load_design("sip-ring", {"link.data_rate": v}),
    "load_design(changes key)": lambda v: api.load_design("sip-ring", {v: "1"}),
    "budget(design)": lambda v: api.budget(v),
    "fabric(changes value)": lambda v: api.fabric("sip-ocs", {"fabric.gpus": v}),
    "cost(design)": lambda v: api.cost(v),
    "cost(catalog_files)": lambda v: api.cost("sip-ring", catalog_files=v),
    "evaluate(catalog_files)": lambda v: api.evaluate("sip-ring", catalog_files=v),
    "training(model)": lambda v: api.evaluate("sip-ring").training(v, 64),
    "training(batch)": lambda v: api.evaluate("sip-ring").training("gpt2-355m", v),
    "training(fixed)": lambda v: api.evaluate("sip-ring").training("gpt2-355m", 64, v),
    "speedup(designs)": lambda v: api.speedup(v, "gpt2-355m", baselines=["fattree-200"]),
    "speedup(model)": lambda v: api.speedup("sip-ring", v, baselines=["fattree-200"]),
    "speedup(batch)": lambda v: api.speedup("sip-ring", "gpt2-355m", batch=v, baselines=["fattree-200"]),
    "speedup(gpus)": lambda v: api.speedup("sip-ring", "gpt2-355m", gpus=v, baselines=["fattree-200"]),
    "speedup(tokens)": lambda v: api.speedup("sip-ring", "gpt2-355m", tokens=v, baselines=["fattree-200"]),
    "speedup(strategy)": lambda v: api.speedup("sip-ring", "gpt2-355m", strategy=v, baselines=["fattree-200"]),
    "speedup(stack)": lambda v: api.speedup("sip-ring", "gpt2-355m", stack=v, baselines=["fattree-200"]),
    "speedup(sets)": lambda v: api.speedup("sip-ring", "gpt2-355m", sets=v, baselines=["fattree-200"]),
    "speedup(baselines)": lambda v: api.speedup("sip-ring", "gpt2-355m", baselines=v),
    "sweep(design)": lambda v: api.sweep(v, LINK_AXIS, link_only=True),
    "sweep(vary)": lambda v: api.sweep("sip-ring", v, link_only=True),
    "sweep(link_only)": lambda v: api.sweep("sip-ring", LINK_AXIS, link_only=v),
    "sweep(batch)": lambda v: api.sweep("sip-ring", LINK_AXIS, batch=v, link_only=True),
    "sweep(model)": lambda v: api.sweep("sip-ring", LINK_AXIS, model=v, link_only=True),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=st.sampled_from(sorted(CALLS)), value=ODD)
def test_only_input_errors_escape_the_api(call, value):
    """Odd values anywhere in the API's arguments: a result, or InputError (InfeasibleDesign where a well-formed
    design cannot train) — never another exception type."""
    try:
        CALLS[call](value)
    except (InputError, InfeasibleDesign):
        pass
    except TypeError as exc:  # the argument cannot be used as a dict key: Python's, before the API is called
        assert call == "load_design(changes key)" and "unhashable" in str(exc)


def test_dir_lists_the_public_names():
    """`dir(sipml)` lists every public name before any is used, each resolves, and the package's list is the
    API's."""
    names = dir(sipml)
    assert set(sipml.__all__) <= set(names) and "__version__" in names
    assert set(sipml.__all__) - {"Q_"} == set(api.__all__)
    for name in sipml.__all__:
        assert callable(getattr(sipml, name))
    with pytest.raises(AttributeError, match="nosuch"):
        sipml.nosuch  # noqa: B018
