"""The channel grid of a WDM link: how far every other channel sits from a victim, and the worst victim's sum.

A grid of n channels at a fixed spacing: victim i (0 ≤ i < n) sees channel j at offset (j − i) × spacing. A ring with
free spectral range FSR sees that offset folded onto its nearest resonance order (E19). Per-offset effects that add
up over the grid (crosstalk leakage E6, through loss of passed rings E20) are summed for every victim, and the worst
victim is the one the budget must close for.

References
----------
- E19 (photonics-2 reference, [inferred]): δ_k = ((k·Δf + FSR/2) mod FSR) − FSR/2.
- PhoenixSim demux model: multiplies the through transmission of every neighbour (a sum in dB) [restated].
"""

from __future__ import annotations

import numpy as np


def wrapped_detuning_hz(offset_hz, fsr_hz):
    """Detuning from the nearest resonance order of a ring with free spectral range `fsr_hz`, folded into
    [−FSR/2, FSR/2] with the sign of the offset: a channel one FSR away sits on resonance again  (E19). Odd in
    the offset, bit for bit, so a grid's effects at ±k are equal and computed once (`symmetric_offsets`)."""
    offset = np.asarray(offset_hz, dtype=float)
    return np.copysign((np.abs(offset) + 0.5 * fsr_hz) % fsr_hz - 0.5 * fsr_hz, offset)


def symmetric_offsets(effect, max_channels: int, spacing_hz):
    """`effect(k × spacing)` for the offsets of `grid_offsets(max_channels)` (last axis), for an effect even in the
    offset: evaluated for k = 0 … m−1 and mirrored. `spacing_hz` may carry leading axes (a grid of design
    points)."""
    half = effect(np.arange(int(max_channels)) * np.asarray(spacing_hz, dtype=float)[..., None])
    return np.concatenate((half[..., :0:-1], half), axis=-1)


def grid_offsets(max_channels: int) -> np.ndarray:
    """Channel offsets k = −(m−1) … (m−1) a victim can see in a grid of up to m channels (k = 0 is the victim)."""
    m = int(max_channels)
    return np.arange(-(m - 1), m)


def worst_victim_sum_by_count(per_offset, max_channels: int) -> np.ndarray:
    """For every grid size n = 1..m (element n−1 of the last axis): the largest sum, over the victims i of an
    n-channel grid, of `per_offset[k]` for the offsets k = −i … n−1−i other than 0. `per_offset` is indexed like
    `grid_offsets(m)` along its last axis; leading axes (one per design point of a grid) are kept. The sums run
    outward from the victim (running sums to the left and to the right, O(m²) for the whole table), so an entry for
    n channels does not depend on how far the table goes."""
    m = int(max_channels)
    values = np.asarray(per_offset, dtype=float)
    zero = np.zeros(values.shape[:-1] + (1,))
    # left[i] = Σ_{k=1..i} per_offset[−k], right[j] = Σ_{k=1..j} per_offset[k]
    left = np.concatenate((zero, np.cumsum(values[..., m - 2::-1], axis=-1)), axis=-1)
    right = np.concatenate((zero, np.cumsum(values[..., m:], axis=-1)), axis=-1)
    # an even effect sums alike for victims i and n−1−i: half the victims suffice
    even = np.array_equal(values[..., m - 2::-1], values[..., m:])
    # counts on the first axis, so each step adds whole rows (one per design point) at once
    left, right = np.ascontiguousarray(np.moveaxis(left, -1, 0)), np.ascontiguousarray(np.moveaxis(right, -1, 0))
    worst = np.zeros((m,) + values.shape[:-1])
    for n in range(2, m + 1):
        h = (n + 1) // 2 if even else n  # victims i = 0 … h−1 pair left[i] with right[n−1−i]
        worst[n - 1] = np.max(left[:h] + right[n - h:n][::-1], axis=0)
    return np.moveaxis(worst, 0, -1)
