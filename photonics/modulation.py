"""Intensity-modulation formats: NRZ and Gray-coded PAM-M error ratios, level spacing and OMA (E22–E24).

References
----------
- E22: Gray PAM-M with Gaussian noise σ on every level and level spacing d: SER = 2(1 − 1/M)·Q(d/2σ),
  BER ≈ SER/log2 M (K. Sankar, "Symbol error rate for 4-PAM", dsplog 2007, after Proakis, *Digital
  Communications*, §5.2.1) [restated]; NRZ (M = 2) gives BER = Q(OMA/2σ).
- E23: PAM4 against NRZ at equal OMA, d = OMA/3: 20·log10 3 = 9.54 dB electrical, 10·log10 3 = 4.77 dB optical
  (MapYourTech, "PAM4 modulation for high-speed optical interconnects": "≈9.5 dB electrical, 4.7 dB optical").
- E24: OMA = P1 − P0 = 2·P_avg·(ER − 1)/(ER + 1), ER linear; PAM4 uses OMA_outer, levels 0 and 3 (Maxim/ADI
  HFAN-02.2.2).
Validity: equally spaced levels, the same Gaussian noise on every level (thermal-noise-limited receivers),
Gray coding with one bit error per symbol error.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

_STANDARD_NORMAL = NormalDist()

LEVELS = {"nrz": 2, "pam4": 4}  # intensity levels of each format


def bits_per_symbol(levels: int) -> float:
    """Bits one symbol of an M-level format carries, log2 M."""
    return math.log2(levels)


def gaussian_tail(x: float) -> float:
    """Q(x) = ½·erfc(x/√2), the probability a standard Gaussian exceeds x."""
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def symbol_error_ratio(levels: int, eye_q: float) -> float:
    """Symbol-error ratio of M-level PAM at eye Q = d/(2σ): SER = 2(1 − 1/M)·Q(d/2σ)  (E22)."""
    return 2.0 * (1.0 - 1.0 / levels) * gaussian_tail(eye_q)


def bit_error_ratio(levels: int, eye_q: float) -> float:
    """Bit-error ratio of Gray-coded M-level PAM, SER / log2 M  (E22; NRZ: Q(d/2σ))."""
    return symbol_error_ratio(levels, eye_q) / bits_per_symbol(levels)


def eye_q_for_ber(levels: int, ber: float) -> float:
    """Eye Q = d/(2σ) an M-level Gray PAM receiver needs for `ber`: E22 solved, Q⁻¹(BER·log2 M / (2(1 − 1/M)))."""
    return -_STANDARD_NORMAL.inv_cdf(ber * bits_per_symbol(levels) / (2.0 * (1.0 - 1.0 / levels)))


def level_spacing_penalty_db(levels: int) -> float:
    """Optical power an M-level format needs over NRZ at equal eye Q and noise: 10·log10(M − 1)  (E23; PAM4
    4.77 dB, NRZ 0 dB)."""
    return 10.0 * math.log10(levels - 1)


def oma_from_average_w(average_w, er_lin):
    """Optical modulation amplitude from average power, OMA = 2·P_avg·(ER − 1)/(ER + 1)  (E24); an infinite ER
    gives 2·P_avg."""
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(invalid="ignore"):
        factor = np.where(np.isinf(er), 1.0, (er - 1.0) / (er + 1.0))
    return 2.0 * np.asarray(average_w, dtype=float) * factor


def average_from_oma_w(oma_w, er_lin):
    """Average power of a signal with modulation amplitude `oma_w`: E24 solved, P_avg = OMA·(ER + 1)/(2(ER − 1))."""
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(np.isinf(er), 1.0, (er + 1.0) / (er - 1.0))
    return 0.5 * np.asarray(oma_w, dtype=float) * factor
