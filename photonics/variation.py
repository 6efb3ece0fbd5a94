"""Fabrication variation of micro-ring resonances: the share of rings a heater can lock, and the tuning range a
yield needs (E33–E35, F46–F47).

References
----------
- E33 (photonics-2 reference, [inferred]): a heater shifts one way over [0, T]; a ring whose offset from its target
  is δ ~ N(μ, σ²) locks with probability P = Φ((T − μ)/σ) − Φ(−μ/σ). DSENT's 3σ rule (E11b) is the
  fixed-allocation version.
- F46 (fabric-photonics-3 reference, [inferred]), the default: a ring's offset is a die's shared part plus its own,
  δ = δ_die + δ_local with δ_die ~ N(0, σ_sys²) common to the rings of one die and δ_local ~ N(0, σ_local²)
  independent; N rings on one die all lock with probability Y = E_δdie[P(δ_die)^N],
  P(δ) = Φ((T − μ − δ)/σ_local) − Φ((−μ − δ)/σ_local), integrated on panels fitted to P^N's edges
  (80-node Gauss–Hermite, as the reference suggests, is 0.7 % off at 128 rings: the edges fall between nodes).
- F47 / E33 (same), the 'independent' model: Y = P^N with σ² = σ_local² + σ_sys², every ring on its own — pessimistic
  when σ_sys ≫ σ_local, since the shared offset passes or fails a die's rings together.
- E34 (photonics-2 reference): with the bias μ = T/2 (the range centred on the mean offset) the independent model's
  range for yield Y is T = 2σ·Φ⁻¹((1 + Y^(1/N))/2); the die-shared model's range is found by bisection.
- E35: two rings a distance d apart differ by σ_Δλ ≈ √(k·d), k ≈ 1 nm²/cm (M. Mohamed, A. Mickelson et al., foundry
  wafer-scale microring variation study) [restated] — why a die's rings are strongly correlated (F48).
Validity: Gaussian offsets; offsets larger than the channel spacing under nearest-channel tuning are handled by E36
(any offset locks when T ≥ spacing), not here.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from statistics import NormalDist

_STANDARD_NORMAL = NormalDist()
QUADRATURE_NODES = 48  # Gauss–Legendre nodes per panel of the die-offset integral (F46)
VARIATION_MODELS = ("die-shared", "independent")


@functools.cache
def _gauss_legendre() -> tuple:
    """(nodes, weights) of QUADRATURE_NODES-point Gauss–Legendre on [−1, 1]: a constant table, built on first use
    (numpy.polynomial, which it needs, is not imported at start-up)."""
    return np.polynomial.legendre.leggauss(QUADRATURE_NODES)


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
    """One-way tuning range with the bias at its centre that locks all N independent rings with probability Y:
    T = 2σ·Φ⁻¹((1 + Y^(1/N))/2)  (E34)."""
    return 2.0 * sigma * _STANDARD_NORMAL.inv_cdf(0.5 * (1.0 + target_yield ** (1.0 / rings)))


def _normal_cdf(x):
    from scipy.special import ndtr  # lazily: only full-thermal and athermal tuning need it

    return ndtr(x)


def _lock_share(half_range, offset, sigma_local):
    """P(δ): share of a die's rings at die offset δ whose own offset N(δ, σ_l²) lies in [−T/2, T/2] (F46)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sigma_local > 0.0, _normal_cdf((half_range - offset) / sigma_local)
                        - _normal_cdf((-half_range - offset) / sigma_local), (np.abs(offset) <= half_range) * 1.0)


def die_yield(tuning_range, sigma_local, sigma_system, rings):
    """Probability that all N rings of one die lock in a one-way range T biased at T/2, the die's offset shared
    (F46): ∫ φ(δ; σ_sys)·P(δ)^N dδ. P^N is a box of width ≈ T with edges ~σ_local wide, so the integral runs
    Gauss–Legendre on three panels (each edge ±8σ_local and the middle), clipped to ±10σ_sys. Arrays broadcast
    (a grid of design points); σ_sys = 0 gives P(0)^N."""
    nodes, weights = _gauss_legendre()
    half = 0.5 * np.asarray(tuning_range, dtype=float)[..., None]
    local, system = (np.asarray(v, dtype=float)[..., None] for v in (sigma_local, sigma_system))
    n = np.asarray(rings, dtype=float)[..., None]
    edges = [-half - 8.0 * local, np.minimum(-half + 8.0 * local, 0.0), np.maximum(half - 8.0 * local, 0.0),
             half + 8.0 * local]
    edges = [np.clip(e, -10.0 * system, 10.0 * system) for e in edges]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        offset = 0.5 * (a + b) + 0.5 * (b - a) * nodes
        with np.errstate(divide="ignore", invalid="ignore"):
            density = np.exp(-0.5 * (offset / system) ** 2) / (np.sqrt(2.0 * np.pi) * system)
        total = total + 0.5 * (b - a)[..., 0] * np.sum(weights * np.nan_to_num(density) *
                                                        np.power(_lock_share(half, offset, local), n), axis=-1)
    alone = np.power(_lock_share(half, 0.0, local)[..., 0], n[..., 0])
    return np.where(system[..., 0] > 0.0, total, alone)


def gpu_yield(model: str, tuning_range, sigma_local, sigma_system, rings, dies=1):
    """Probability that all `rings` rings of one GPU's I/O lock, spread evenly over `dies` dies (chiplets) that vary
    independently: die_yield(rings/dies)^dies (F46), or P^N of independent rings (F47)."""
    if model == "independent":
        sigma = combined_sigma(sigma_local, sigma_system)
        p = np.vectorize(lambda t, sg: lock_probability(t, 0.5 * t, sg), otypes=[float])(tuning_range, sigma)
        return np.power(p, np.asarray(rings, dtype=float))
    dies = np.asarray(dies, dtype=float)
    return np.power(die_yield(tuning_range, sigma_local, sigma_system, np.asarray(rings, dtype=float) / dies), dies)


def gpu_range_for_yield(model: str, sigma_local: float, sigma_system: float, target_yield: float, rings: int,
                        dies: int = 1) -> float:
    """One-way tuning range (bias at its centre) at which all the rings of one GPU lock with probability Y: E34 for
    independent rings, else the root of gpu_yield(T) = Y (the yield grows with T), 65 ranges at a time."""
    if model == "independent":
        return float(range_for_yield(float(combined_sigma(sigma_local, sigma_system)), target_yield, rings))
    from photonics.budget import section_decreasing

    hi = 2.0 * (sigma_local + sigma_system) + 1.0
    while float(gpu_yield(model, hi, sigma_local, sigma_system, rings, dies)) < target_yield:
        hi *= 2.0
    return section_decreasing(lambda t: target_yield - gpu_yield(model, t, sigma_local, sigma_system, rings, dies),
                              0.0, hi)


def mismatch_sigma(distance_m: float, variance_per_m: float) -> float:
    """Resonance mismatch of two rings `distance_m` apart when the variance grows linearly with distance,
    σ = √(k·d)  (E35; k ≈ 1 nm²/cm = 1e-16 m²/m)."""
    return math.sqrt(variance_per_m * distance_m)
