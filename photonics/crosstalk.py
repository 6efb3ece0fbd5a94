"""Inter-channel crosstalk of a micro-ring demultiplexer and its power penalty.

References
----------
- M. Bahadori et al., "Crosstalk penalty in microring-based silicon photonic interconnect systems",
  JLT 34(17), 2016, and its PhoenixSim implementation: the crosstalk an NRZ aggressor leaks through a
  Lorentzian drop filter (E6) and the resulting power penalty (E7).

Validity: Lorentzian filter (single ring, |detuning| well inside one FSR after wrapping), NRZ/OOK data (PAM4
through its symbol rate and the per-eye scale of the penalty), Gaussian noise statistics for the penalty.
"""

from __future__ import annotations

import math

import numpy as np

from photonics.channel_grid import offset_detuning_hz, worst_victim_sum_by_count


def aggressor_leakage(detuning_hz, fwhm_hz, rate_bps, phase=None):
    """Fraction of an NRZ aggressor's power that a Lorentzian drop filter passes at `detuning_hz` (E6):
    β = 2Δf/FWHM, ν = FWHM/(2·BR), θ = 2πνβ,
    X = 1/(1+β²) − (1/(2πν))·[(1−β²)(1 − e^{−2πν}cosθ) + 2β·e^{−2πν}·sinθ] / (1+β²)².
    `phase`: (cos θ, sin θ) from `aggressor_phase` when the caller has them (θ does not depend on the filter)."""
    fwhm = np.asarray(fwhm_hz, dtype=float)
    beta = np.abs(np.asarray(detuning_hz, dtype=float)) * (2.0 / fwhm)
    two_pi_nu = np.pi * fwhm / rate_bps  # 2πν
    cos_theta, sin_theta = aggressor_phase(detuning_hz, rate_bps) if phase is None else phase
    decay = np.exp(-two_pi_nu)
    beta2 = beta * beta
    one_b2 = 1.0 + beta2
    bracket = (1.0 - beta2) * (1.0 - decay * cos_theta) + beta * ((2.0 * decay) * sin_theta)
    leak = (one_b2 - bracket * (1.0 / two_pi_nu)) / (one_b2 * one_b2)  # 1/(1+β²) − bracket/(2πν·(1+β²)²)
    narrow = two_pi_nu < NARROW
    if np.any(narrow):
        leak = _narrow_leakage(leak, narrow, beta, two_pi_nu, cos_theta, sin_theta)
    return leak


NARROW = 0.1  # 2πν below which E6's two terms cancel to O(2πν) (their relative error ~ε/(2πν)²: 2e-14 here)


def _narrow_leakage(leak, narrow, beta, x, cos_theta, sin_theta):
    """`leak` with E6 at the points `narrow` (x = 2πν < NARROW) from terms that do not cancel [inferred: E6
    rearranged]: with D = e^{−x}, θ = xβ, g = x − (1 − D), h = θ − sin θ (series, both O(x²) or O(θ³)),
    1 − cos θ = sin²θ/(1 + cos θ),
    X = [(1−β²)(g − D(1 − cos θ)) + 2β(h + (1 − D) sin θ)] / (x(1+β²)²) → x/2 as x → 0."""
    shape = np.shape(leak)
    at = np.broadcast_to(narrow, shape)
    b, x, c, s = (np.broadcast_to(a, shape)[at] for a in (beta, x, cos_theta, sin_theta))
    lost = -np.expm1(-x)  # 1 − D
    g = x * x * _series(-x, 2)  # x − (1 − e^{−x}) = x² Σ (−x)^k/(k+2)!
    theta = x * b
    h = np.where(theta < 0.5, theta ** 3 * _series(-theta * theta, 3, step=2), theta - s)  # θ − sin θ
    one_minus_cos = np.where(c > 0.0, s * s / np.where(c > 0.0, 1.0 + c, 1.0), 1.0 - c)
    one_b2 = 1.0 + b * b
    out = np.array(leak, dtype=float, copy=True)
    out[at] = (((1.0 - b * b) * (g - (1.0 - lost) * one_minus_cos) + 2.0 * b * (h + lost * s))
               / (x * one_b2 * one_b2))
    return out[()]  # a number for numbers, as the wide filters' form gives


def _series(z, first: int, step: int = 1, terms: int = 9):
    """Σ_k z^k / (first + step·k)! for k < terms, by Horner's rule (|z| < 1/4 here: the first left-out term is
    below 1e-16 of the sum)."""
    total = np.zeros_like(z) + 1.0 / math.factorial(first + step * (terms - 1))
    for k in range(terms - 2, -1, -1):
        total = total * z + 1.0 / math.factorial(first + step * k)
    return total


def aggressor_phase(detuning_hz, rate_bps):
    """(cos θ, sin θ) of E6's phase θ = 2πνβ = 2π·|Δf|/BR: the detuning over the bit rate, whatever the filter, so a
    grid computes it once per spacing and rate rather than once per filter."""
    theta = 2.0 * np.pi * np.abs(np.asarray(detuning_hz, dtype=float)) / rate_bps
    return np.cos(theta), np.sin(theta)


def penalty_db(total_leakage, q_ber, er_lin, eye_scale=1.0):
    """Crosstalk power penalty PP_xt = 10·log10(1 + ½·Q_BER·ΣX·(ER+1)/(ER−1)·s)  (E7, s = 1 for NRZ).
    PAM-M levels are OMA/(M−1) apart, so the same crosstalk power closes an eye M−1 times smaller: s = M−1,
    with Q_BER the per-eye Q of the target BER (E22–E23) [inferred]."""
    return 10.0 * np.log10(1.0 + leakage_weight(q_ber, er_lin, eye_scale) * np.asarray(total_leakage, dtype=float))


def leakage_weight(q_ber, er_lin, eye_scale=1.0):
    """The weight of the leaked power ΣX in E7's penalty, ½·Q_BER·(ER+1)/(ER−1)·s: the penalty in linear power is
    1 + weight·ΣX (`penalty_db`)."""
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        er_factor = np.where(np.isinf(er), 1.0, (er + 1.0) / (er - 1.0))
    return 0.5 * np.asarray(q_ber, dtype=float) * er_factor * eye_scale


def worst_channel_leakage_by_count(max_channels: int, spacing_hz, fwhm_hz, rate_bps, fsr_hz):
    """ΣX of the worst victim for every grid size n = 1..max_channels (element n−1): in a grid of n equally
    spaced channels, victim i sees aggressors at k·spacing for k = −i..n−1−i, k ≠ 0, each folded by the ring's
    FSR (E6 summed over the grid, `photonics.channel_grid`). Array arguments (a grid of design points) add leading axes."""
    return worst_channel_leakage_at(offset_detuning_hz(max_channels, spacing_hz, fsr_hz), fwhm_hz, rate_bps)


def worst_channel_leakage_at(detuning_hz, fwhm_hz, rate_bps, phase=None):
    """`worst_channel_leakage_by_count` from the folded detuning of each offset (`grid.offset_detuning_hz`, offsets
    on the first axis), which a grid's tables share, and optionally its `aggressor_phase`."""
    return worst_victim_sum_by_count(aggressor_leakage(detuning_hz, fwhm_hz, rate_bps, phase))
