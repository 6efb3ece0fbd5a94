"""`core.distinct.distinct_columns` and `distinct_whole_columns` against grouping the columns one by one in Python."""

import math

import numpy as np
import pytest

from core import distinct


def _by_hand(rows: np.ndarray):
    """(first, inverse) by walking the columns: a column joins the first earlier one whose every row compares
    equal (so NaN joins nothing, 0.0 and −0.0 join)."""
    first, inverse = [], []
    for j in range(rows.shape[1]):
        for g, f in enumerate(first):
            if all(rows[r, j] == rows[r, f] for r in range(rows.shape[0])):
                inverse.append(g)
                break
        else:
            inverse.append(len(first))
            first.append(j)
    return first, inverse


def _cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    values = [0.0, -0.0, 1.0, 2.0, 4.0, 8.0, 1.5, 3.0, 1e300, -1e-300, math.inf, -math.inf, 2.0 ** 53 + 2]
    for trial in range(count):
        r, k = int(rng.integers(1, 7)), int(rng.integers(1, 120))
        base = rng.choice(values, (r, int(rng.integers(1, 10))))
        rows = base[:, rng.integers(0, base.shape[1], k)]
        if trial % 4 == 0:  # a NaN in a column and in its copy: they do not join
            rows = np.concatenate([rows, rows[:, :1]], axis=1)
            rows[rng.integers(0, r), [0, -1]] = math.nan
        yield rows


@pytest.mark.parametrize("collide", [False, True])
def test_the_distinct_columns_are_the_ones_grouped_by_hand(collide, monkeypatch):
    """Every column joins the first earlier column equal to it in every row, numbered in the order they first
    occur: ±0, infinities, NaN (joins nothing) and large integers included; with a hash that joins every column
    (its multiplier 0), the sorted fallback answers the same."""
    if collide:
        monkeypatch.setattr(distinct, "_MIX", np.uint64(0))
    for rows in _cases(7, 250):
        first, inverse = distinct.distinct_columns(rows)
        want_first, want_inverse = _by_hand(rows)
        assert first.tolist() == want_first and inverse.tolist() == want_inverse
    ints = np.random.default_rng(1).integers(0, 3, (5, 2000))  # an integer array: the same by value
    first, inverse = distinct.distinct_columns(ints)
    assert np.array_equal(ints[:, first][:, inverse], ints) and len(first) == len({tuple(c) for c in ints.T})


def test_no_columns_have_no_distinct_ones():
    first, inverse = distinct.distinct_columns(np.zeros((3, 0)))
    assert first.size == 0 and inverse.size == 0


@pytest.mark.parametrize("wide", [False, True])
def test_the_distinct_whole_columns_are_the_ones_grouped_by_hand(wide):
    """Columns of whole numbers ≥ 0 (bool rows among them) join as grouping by hand joins them, each distinct
    one at its first occurrence: listed in the columns' lexicographic order, or where the rows' spans pass 63
    bits together (`wide`), by the hashed way in the order they first occur."""
    rng, hashes = np.random.default_rng(3), 0
    for trial in range(120):
        r, k = int(rng.integers(1, 7)), int(rng.integers(1, 150))
        top = 2 ** 40 if wide else int(rng.integers(1, 70))
        rows = [rng.choice(rng.integers(0, top, 6), k) for _ in range(r)]  # few values per row: columns repeat
        if trial % 3 == 0:
            rows[0] = rng.integers(0, 2, k).astype(bool)
        first, inverse = distinct.distinct_whole_columns(rows)
        stacked = np.stack([np.asarray(row, dtype=np.int64) for row in rows])
        want_first, _ = _by_hand(stacked)
        lexicographic = sorted(want_first, key=lambda f: tuple(stacked[:, f]))
        hashed = math.prod(int(row.max()) + 1 for row in stacked) >= 2 ** 63
        assert first.tolist() == (want_first if hashed else lexicographic)
        hashes += hashed
        assert np.array_equal(stacked[:, first][:, inverse], stacked)
    assert (hashes > 40) == wide
