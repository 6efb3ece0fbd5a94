"""The distinct columns of a 2-D array, found by sorting: what a pricing or a search computes once per distinct input
and spreads back."""

from __future__ import annotations

import numpy as np


def distinct_columns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the first of each distinct column of `rows`, each column's distinct one): rows[:, first][:, inverse] is
    `rows`. Sorted by the rows (a lexsort), equal neighbours joined; NaN joins nothing."""
    k = rows.shape[1]
    if not k:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    order = np.lexsort(rows)
    ordered = rows[:, order]
    new = np.empty(k, dtype=bool)
    new[0] = True
    np.any(ordered[:, 1:] != ordered[:, :-1], axis=0, out=new[1:])
    inverse = np.empty(k, dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse
