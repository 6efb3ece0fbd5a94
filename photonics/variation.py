"""Fabrication variation of micro-ring resonances: the share of rings a heater can lock, and the tuning range a
yield needs (E33–E35).

References
----------
- E33 (photonics-2 reference, [inferred]): a heater shifts one way over [0, T]; a ring whose offset from its target
  is δ ~ N(μ, σ²), σ² = σ_local² + σ_sys², locks with probability P = Φ((T − μ)/σ) − Φ(−μ/σ); N independent rings
  all lock with probability Y = P^N. DSENT's 3σ rule (E11b) is the fixed-allocation version.
- E34 (same): with the bias μ = T/2 (the range centred on the mean offset), the range for yield Y is
  T = 2σ·Φ⁻¹((1 + Y^(1/N))/2); the heater power at that yield is T/η worst case, T/(2η) on average.
- E35: two rings a distance d apart differ by σ_Δλ ≈ √(k·d), k ≈ 1 nm²/cm (M. Mohamed, A. Mickelson et al., foundry
  wafer-scale microring variation study) [restated].
Validity: Gaussian offsets; treating every ring as independent ignores that σ_sys is shared by the rings of one die
(the yield is then conservative for the systematic part); offsets larger than the channel spacing under
nearest-channel tuning are handled by E36 (any offset locks when T ≥ spacing), not here.
"""

from __future__ import annotations

import math

import numpy as np
from statistics import NormalDist

_STANDARD_NORMAL = NormalDist()


def combined_sigma(sigma_local, sigma_system):
    """σ = √(σ_local² + σ_sys²), in the unit of its arguments (E33)."""
    return np.hypot(sigma_local, sigma_system)


def lock_probability(tuning_range, bias, sigma) -> float:
    """Probability a ring with offset δ ~ N(μ, σ²) lies in the heater's one-way range [0, T]:
    Φ((T − μ)/σ) − Φ(−μ/σ)  (E33). Any consistent unit (Hz, m). σ = 0 locks iff 0 ≤ μ ≤ T."""
    if sigma == 0.0:
        return 1.0 if 0.0 <= bias <= tuning_range else 0.0
    return _STANDARD_NORMAL.cdf((tuning_range - bias) / sigma) - _STANDARD_NORMAL.cdf(-bias / sigma)


def all_lock_probability(single_ring_probability: float, rings: int) -> float:
    """Yield of N independent rings, Y = P^N  (E33)."""
    return single_ring_probability**rings


def range_for_yield(sigma, target_yield: float, rings: int):
    """One-way tuning range with the bias at its centre that locks all N rings with probability Y:
    T = 2σ·Φ⁻¹((1 + Y^(1/N))/2)  (E34)."""
    return 2.0 * sigma * _STANDARD_NORMAL.inv_cdf(0.5 * (1.0 + target_yield ** (1.0 / rings)))


def mismatch_sigma(distance_m: float, variance_per_m: float) -> float:
    """Resonance mismatch of two rings `distance_m` apart when the variance grows linearly with distance,
    σ = √(k·d)  (E35; k ≈ 1 nm²/cm = 1e-16 m²/m)."""
    return math.sqrt(variance_per_m * distance_m)
