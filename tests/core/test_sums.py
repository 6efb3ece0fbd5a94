"""`core.sums.in_order` adds as numpy adds arrays, whatever Python's own `sum` does with floats."""

import numpy as np

from core.sums import in_order


def test_terms_are_added_left_to_right_as_arrays_are():
    terms = [1e16, 1.0, -1e16, 3.0]  # a compensated sum (Python ≥ 3.12's `sum`) gives 4.0
    assert in_order(terms) == 3.0
    arrays = [np.full(3, t) for t in terms]
    assert np.array_equal(in_order(arrays), arrays[0] + arrays[1] + arrays[2] + arrays[3])
    assert in_order([]) == 0.0 and in_order(iter([2.5])) == 2.5
