"""Whole-number helpers the layers share."""

from __future__ import annotations

import math


def divisors(n: int, limit: int | None = None) -> list[int]:
    """The divisors of n ≥ 1 up to `limit` (all of them without one), ascending: trial division up to √n."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    every = small + [n // d for d in reversed(small) if d * d != n]
    return every if limit is None else [d for d in every if d <= limit]
