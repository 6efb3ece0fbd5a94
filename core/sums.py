"""Sums added one term after another, from 0.0: what numpy's `a + b + …` over arrays gives, element by element.

A design point and a grid of them must report the same bits (the sweep's grid path is checked against each point
alone). Python's built-in `sum` adds floats with compensation from 3.12 on (a more exact, differently rounded
result), while an array sum is added in order; a point's figures that a grid adds as arrays are added here.
"""

from __future__ import annotations

from collections.abc import Iterable


def in_order(terms: Iterable):
    """0.0 + t₀ + t₁ + …, left to right (numbers or arrays; as `sum` gives on Python 3.11)."""
    total = 0.0
    for term in terms:
        total = total + term
    return total
