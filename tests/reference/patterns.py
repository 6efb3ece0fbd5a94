"""Test patterns for the numerical eye simulations."""

import numpy as np


def de_bruijn(alphabet: int, order: int) -> np.ndarray:
    """The de Bruijn sequence B(alphabet, order): every run of `order` symbols once, cyclically."""
    a, out = [0] * alphabet * order, []

    def step(t, p):
        if t > order:
            if order % p == 0:
                out.extend(a[1:p + 1])
        else:
            a[t] = a[t - p]
            step(t + 1, p)
            for j in range(a[t - p] + 1, alphabet):
                a[t] = j
                step(t + 1, t)

    step(1, 1)
    return np.asarray(out)
