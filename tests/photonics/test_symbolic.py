"""The sympy closed forms (the executable specification) equal the numeric kernels of photonics.budget."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from photonics import budget, symbolic

db = st.floats(-30, 30)


@settings(max_examples=50, deadline=None)
@given(p_max=st.floats(0, 30), s=st.floats(-35, -5), pp=st.floats(0, 10), il=st.floats(0, 20), m=st.floats(0, 6))
def test_max_wavelengths(p_max, s, pp, il, m):
    n_sym = symbolic.numeric("max_wavelengths")(P_max=p_max, S=s, PP=pp, IL=il, M=m)
    n_num = budget.max_wavelengths_closed_form(p_max, s, pp, il, m)
    assert n_num == (np.floor(n_sym * (1 + 1e-12)) if n_sym >= 1 else 0)


@settings(max_examples=30, deadline=None)
@given(s=st.floats(-35, -5), pp=st.floats(0, 10), il=st.floats(0, 20), m=st.floats(0, 6))
def test_min_line_power(s, pp, il, m):
    assert symbolic.numeric("min_line_power")(S=s, PP=pp, IL=il, M=m) == pytest.approx(
        budget.min_line_power_dbm(s, il, pp, m), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(p=db, s=st.floats(-35, -5), pp=st.floats(0, 10), il=st.floats(0, 20), m=st.floats(0, 6),
       alpha=st.floats(1e-5, 1.0))
def test_max_length(p, s, pp, il, m, alpha):
    assert symbolic.numeric("max_length")(P=p, S=s, PP=pp, IL=il, M=m, alpha=alpha) == pytest.approx(
        budget.max_length_m(p, s, pp, il, alpha, m), rel=1e-9, abs=1e-6)


@settings(max_examples=30, deadline=None)
@given(p=db, s=st.floats(-35, -5), pp=st.floats(0, 10), il=st.floats(0, 20), m=st.floats(0, 6), h=st.floats(0.01, 5))
def test_max_hops(p, s, pp, il, m, h):
    k = symbolic.numeric("max_hops")(P=p, S=s, PP=pp, IL=il, M=m, h=h)
    # at an exact integer (or at zero) the two sums may round to either side, and max_hops counts a quotient within
    # 1e-12 (relative) below an integer as that integer: compare away from the boundary
    assume(abs(k - round(k)) > 1e-9 * max(1.0, abs(k)))
    assert budget.max_hops(p, s, pp, il, h, m) == (np.floor(k) if k >= 0 else -1)


def test_explain_lists_every_problem():
    text = symbolic.explain()
    for problem in ("max_wavelengths", "min_line_power", "max_length", "max_hops"):
        assert problem in text


def test_the_printed_closed_forms_read_as_engineers_write_them_and_mean_the_same():
    import sympy as sp

    from photonics.symbolic import closed_form, readable

    text = readable(closed_form("max_wavelengths"))
    assert text.startswith("10**(") and "exp" not in text and "log(10)" not in text
    names = {str(s): s for s in closed_form("max_wavelengths").free_symbols}
    back = sp.sympify(text, locals=names)
    for values in ({"IL": 8.0, "M": 1.0, "PP": 2.5, "P_max": 20.0, "S": -12.0}, {"IL": 3.0, "M": 0.0, "PP": 0.1,
                                                                            "P_max": 10.0, "S": -20.0}):
        at = {names[k]: v for k, v in values.items() if k in names}
        assert float(back.subs(at)) == pytest.approx(float(closed_form("max_wavelengths").subs(at)), rel=1e-12)
