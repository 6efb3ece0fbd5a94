"""The error function on floats and arrays alike, from the C library's `erf` (math.erf) element by element: the same
rounding for one design point and for a grid, and no scipy import on the paths every budget runs."""

from __future__ import annotations

import math

import numpy as np

_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    """erf(x) for a float or an array of them (an array of float64 back; a 0-d array for a scalar)."""
    return np.asarray(_ERF(np.asarray(x, dtype=float)), dtype=float)
