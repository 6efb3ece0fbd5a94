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
    [−FSR/2, FSR/2): a channel one FSR away sits on resonance again  (E19)."""
    offset = np.asarray(offset_hz, dtype=float)
    return (offset + 0.5 * fsr_hz) % fsr_hz - 0.5 * fsr_hz


def grid_offsets(max_channels: int) -> np.ndarray:
    """Channel offsets k = −(m−1) … (m−1) a victim can see in a grid of up to m channels (k = 0 is the victim)."""
    m = int(max_channels)
    return np.arange(-(m - 1), m)


def worst_victim_sum_by_count(per_offset, max_channels: int) -> np.ndarray:
    """For every grid size n = 1..m (element n−1): the largest sum, over the victims i of an n-channel grid, of
    `per_offset[k]` for the offsets k = −i … n−1−i other than 0. `per_offset` is indexed like `grid_offsets(m)`.
    Prefix sums make the whole table O(m²)."""
    m = int(max_channels)
    values = np.array(per_offset, dtype=float)
    values[m - 1] = 0.0  # k = 0 is the victim itself
    infinite = np.isinf(values)  # e.g. a channel folded onto the resonance of a lossless ring: summed apart
    prefix = np.concatenate(([0.0], np.cumsum(np.where(infinite, 0.0, values))))  # prefix[j] = Σ values[:j]
    prefix_inf = np.concatenate(([0], np.cumsum(infinite)))
    worst = np.zeros(m)
    for n in range(2, m + 1):
        i = np.arange(n)
        # offsets −i .. n−1−i  ↔  array indices (m−1−i) .. (m−1+n−1−i)
        sums = prefix[m - 1 - i + n] - prefix[m - 1 - i]
        worst[n - 1] = np.inf if (prefix_inf[m - 1 - i + n] > prefix_inf[m - 1 - i]).any() else sums.max()
    return worst
