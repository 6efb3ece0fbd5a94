"""The channel grid of a WDM link: how far every other channel sits from a victim, and the worst victim's sum.

A grid of n channels at a fixed spacing: victim i (0 ≤ i < n) sees channel j at offset (j − i) × spacing. A ring with
free spectral range FSR sees that offset folded onto its nearest resonance order (E19). Per-offset effects that
combine over the grid are combined for every victim — crosstalk leakage (E6) summed, the transmissions of passed
rings (E20) multiplied (their losses in dB summed) — and the worst victim is the one the budget must close for.

References
----------
- E19 (photonics-2 reference, [inferred]): δ_k = ((k·Δf + FSR/2) mod FSR) − FSR/2.
- PhoenixSim demux model: multiplies the through transmission of every neighbour (a sum in dB) [restated]; the
  worst victim's product is the worst victim's sum of dB.
"""

from __future__ import annotations

import numpy as np


def wrapped_detuning_hz(offset_hz, fsr_hz):
    """Detuning from the nearest resonance order of a ring with free spectral range `fsr_hz`, folded into
    [−FSR/2, FSR/2] with the sign of the offset: a channel one FSR away sits on resonance again  (E19). Odd in
    the offset, bit for bit, so a grid's effects at ±k are equal and computed once (`offset_detuning_hz`)."""
    offset = np.asarray(offset_hz, dtype=float)
    return np.copysign((np.abs(offset) + 0.5 * fsr_hz) % fsr_hz - 0.5 * fsr_hz, offset)


def offset_detuning_hz(max_channels: int, spacing_hz, fsr_hz, point_dims: int = 0) -> np.ndarray:
    """Detuning of the channel k spacings away, folded by the ring's FSR (E19), for k = 0 … m−1 along the FIRST
    axis; `spacing_hz` and `fsr_hz` may carry axes of their own (a grid of design points), which follow. The
    effects of a grid are even in the offset (`wrapped_detuning_hz` is odd bit for bit, the effects depend on |δ|),
    so k ≥ 0 is all a victim's sums need (`worst_victim_sum_by_count`). `point_dims`: at least that many axes after
    the offsets, so that arrays of other design fields with that many axes broadcast against the result."""
    spacing, fsr = np.asarray(spacing_hz, dtype=float), np.asarray(fsr_hz, dtype=float)
    k = np.arange(int(max_channels), dtype=float).reshape((-1,) + (1,) * max(spacing.ndim, fsr.ndim, point_dims))
    return wrapped_detuning_hz(k * spacing, fsr)


def worst_victim_sum_by_count(per_offset) -> np.ndarray:
    """For every grid size n = 1..m (element n−1 of the last axis): the largest sum, over the victims i of an
    n-channel grid, of an even effect at the offsets k = −i … n−1−i other than 0 (leaked power, or a loss in dB).
    `per_offset[k]` is the effect k spacings away for k = 0 … m−1 along the first axis (`offset_detuning_hz`); the
    axes after it (one per design point of a grid) come first in the result. Victim i sums run[i] + run[n−1−i],
    run[j] = Σ_{k=1..j} per_offset[k] (running sums outward from the victim, O(m²) for the whole table; victims i
    and n−1−i sum alike, so half suffice, victim i taken in every grid at once: n = 2i+1 … m), so an entry for n
    channels does not depend on how far the table goes."""
    return _worst_victim_by_count(per_offset, np.add, np.maximum, 0.0)


def worst_victim_product_by_count(per_offset) -> np.ndarray:
    """`worst_victim_sum_by_count` for an effect that multiplies (a transmission): the smallest product, over the
    victims of each n-channel grid, of the effect at every other channel's offset (1 for one channel)."""
    return _worst_victim_by_count(per_offset, np.multiply, np.minimum, 1.0)


def _worst_victim_by_count(per_offset, combine, worse, alone: float) -> np.ndarray:
    values = np.ascontiguousarray(per_offset, dtype=float)  # the offsets' rows contiguous: a table with its points
    # along the fast axis runs this loop ~3× faster than one whose rows are strided (a transposed table's)
    m = values.shape[0]
    run = np.empty_like(values)
    run[0] = alone
    for k in range(1, m):  # the running combination offset by offset: ~10× faster than np.cumsum along axis 0
        combine(run[k - 1:k], values[k:k + 1], out=run[k:k + 1])
    if m < 3:
        return np.moveaxis(run, 0, -1)  # one victim per grid: an edge channel, run[0] with run[n−1] is run[n−1]
    worst = np.empty_like(values)
    worst[:2] = run[:2]  # the edge channel (victim 0) against victim 1, written where the worst starts
    worse(run[2:], combine(run[1:2], run[1:m - 1]), out=worst[2:])
    pair = np.empty_like(values)
    for i in range(2, (m + 1) // 2):
        rows = m - 2 * i  # the grids of n = 2i+1 … m channels, where victim i combines run[i] with run[n−1−i]
        combine(run[i:i + 1], run[i:i + rows], out=pair[:rows])
        worse(worst[2 * i:], pair[:rows], out=worst[2 * i:])
    return np.moveaxis(worst, 0, -1)
