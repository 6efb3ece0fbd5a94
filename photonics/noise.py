"""Laser relative intensity noise (RIN) and its power penalty (E26, E30).

References
----------
- E30: r_I² = RIN·Δf for a one-sided RIN flat over the receiver noise bandwidth Δf; the penalty of keeping Q with
  the added intensity noise is PP = −10·log10(1 − r_I²·Q²), impossible once r_I·Q ≥ 1 (G. P. Agrawal,
  *Fiber-Optic Communication Systems*, 3rd ed., §5.4) [restated].
- E26: RIN_OMA = RIN_avg + 20·log10(P_avg/OMA), from the two definitions (RIN referred to the average power or to the
  modulation amplitude) [inferred].
Validity: Gaussian intensity noise proportional to the signal level, on top of signal-independent receiver noise;
for PAM-M the noise on the top level is compared with an eye M−1 times smaller than NRZ's [inferred].
"""

from __future__ import annotations

import numpy as np


def rin_penalty_db(rin_db_per_hz, noise_bandwidth_hz, q, eye_scale=1.0):
    """Intensity-noise power penalty −10·log10(1 − (s·r_I·Q)²), r_I² = RIN·Δf  (E30; s = M−1 for PAM-M, 1 for
    NRZ). Infinite where s·r_I·Q ≥ 1: no power closes the eye."""
    r2 = np.power(10.0, np.asarray(rin_db_per_hz, dtype=float) / 10.0) * noise_bandwidth_hz
    x = r2 * (q * eye_scale) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 1.0, -10.0 * np.log10(1.0 - np.minimum(x, 1.0)), np.inf)


def rin_average_from_oma_db(rin_oma_db_per_hz, average_w, oma_w):
    """RIN referred to the average power from one referred to the OMA: RIN_avg = RIN_OMA − 20·log10(P_avg/OMA)
    (E26 solved)."""
    return np.asarray(rin_oma_db_per_hz, dtype=float) - 20.0 * np.log10(np.asarray(average_w, dtype=float) / oma_w)
