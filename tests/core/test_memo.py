"""`core.memo.last_results`: found again by identity (numbers by value and type), never for an equal copy it
cannot vouch for, at most `size` entries."""

from __future__ import annotations

from core.memo import last_results


def test_identity_for_objects_value_for_numbers_and_the_bound():
    calls = []

    @last_results(2)
    def f(obj, n):
        calls.append((obj, n))
        return len(calls)

    a, b = [1, 2], [1, 2]  # equal, not the same object
    assert f(a, 3) == 1 and f(a, 3) == 1  # the same object and number: kept
    assert f(b, 3) == 2  # an equal copy is computed anew (it could have been changed since)
    assert f(a, 3.0) == 3 and f(a, True) == 4  # 3 and 3.0, 1 and True are different keys
    assert f(a, 3) == 5  # the bound of 2 dropped the oldest entries
    f.cache_clear()
    assert f(a, 3.0) == 6
