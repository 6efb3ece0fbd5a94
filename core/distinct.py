"""The distinct columns of a 2-D array of numbers: what a pricing or a search computes once per distinct input and
spreads back. Columns of small whole numbers (strategy sizes and codes) have a faster way: one mixed-radix key
each."""

from __future__ import annotations

import math

import numpy as np

_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit multiplier (the golden ratio's): each row's bits stirred in
_SHIFT = np.uint64(29)


def distinct_columns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the first of each distinct column of `rows`, in the order they first occur; each column's distinct one):
    rows[:, first][:, inverse] is `rows`. Columns are equal where every row compares equal (0.0 and −0.0 alike);
    NaN joins nothing. Each column's bits are hashed into one 64-bit key and the keys sorted once; where the hash
    joins columns that differ, or a NaN, the columns are sorted row by row instead (a lexsort: the same answer)."""
    k = rows.shape[1]
    if not k:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    key = np.zeros(k, dtype=np.uint64)
    for row in (np.asarray(rows, dtype=float) + 0.0).view(np.uint64):  # + 0.0: −0.0 as 0.0, the same bits
        key = (key ^ row) * _MIX  # wraps modulo 2^64; the shift brings the high bits (a float's exponent) down
        key ^= key >> _SHIFT
    first, inverse = _joined(key[None, :], np.argsort(key, kind="stable"))
    if not np.array_equal(rows[:, first[inverse]], rows):  # a NaN, or columns the hash joined
        first, inverse = _joined(rows, np.lexsort(rows))
    occurs = np.zeros(k, dtype=bool)  # the distinct columns renumbered in the order they first occur
    occurs[first] = True
    label = np.cumsum(occurs) - 1
    return np.flatnonzero(occurs), label[first][inverse]


def _joined(rows: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, inverse) of the columns of `rows` from `order`, a stable sort of them: equal neighbours joined."""
    k = rows.shape[1]
    ordered = rows[:, order]
    new = np.empty(k, dtype=bool)
    new[0] = True
    np.any(ordered[:, 1:] != ordered[:, :-1], axis=0, out=new[1:])
    inverse = np.empty(k, dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


def distinct_whole_columns(rows) -> tuple[np.ndarray, np.ndarray]:
    """(the first of each distinct column, in the columns' lexicographic order; each column's distinct one) of
    rows of whole numbers ≥ 0 (a sequence of equal-length 1-D integer arrays): each column one mixed-radix key,
    a row's digit below its largest value + 1, and the keys sorted once. Rows whose spans' product passes 2^63
    are left to `distinct_columns`."""
    rows = [np.asarray(row) for row in rows]
    spans = [int(row.max(initial=0)) + 1 for row in rows]
    if math.prod(spans) >= 1 << 63:
        return distinct_columns(np.stack(rows))
    key = np.zeros(len(rows[0]), dtype=np.int64)
    for row, span in zip(rows, spans):
        key = key * span + row
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)
