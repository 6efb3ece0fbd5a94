"""The victim's own filtering: inter-symbol interference of the symbols a Lorentzian ring drops (E18).

Δ = FWHM/R_s (the ring's full width at half maximum over the symbol rate), x = π·Δ: the drop port near resonance is a
single-pole filter of the optical *field*, H(f) = 1/(1 + 2j·f/FWHM), whose impulse response decays as e^(−π·FWHM·t),
so x is the symbol period over the field time constant.

References
----------
- E18b, worst-case eye of intensity-modulated light (the default) [derived here]: the field of PAM-M power levels
  P_j = P_0 + j·(P_top − P_0)/(M − 1) (outer extinction ratio r = P_top/P_0; NRZ is M = 2) passes the filter, the
  photodiode squares it. With e = e^(−x), the field at the end of a symbol of level j after any history is
  a_j·(1 − e) + e·y, y between the lowest and highest field a_0, a_(M−1); so the lowest level j + 1 and the highest
  level j leave an inner eye (a_(j+1)(1 − e) + e·a_0)² − (a_j(1 − e) + e·a_(M−1))². The eye is defined as the worst
  of the M − 1 inner eyes at the best sampling instant (the symbol's end, since a single-pole response is monotone),
  over its unfiltered height (P_top − P_0)/(M − 1); PP = −10·log10 of it (optical dB). For NRZ it reduces to
  1 − 2e^(−x) whatever the extinction ratio (PhoenixSim `Basic_...` uses the same eye with −20·log10 [restated]).
  The carrier (the field's mean) passes unfiltered on resonance, which is why it is far smaller than E18a.
  Checked against a numerical pattern simulation through the frequency-domain Lorentzian in
  tests/reference/test_filter_eye.py.
- E18a, energy (residual) model: the share of a zero-mean random symbol's energy (sinc² spectrum) the Lorentzian
  passes, 1 − (1 − e^(−x))/x; PP = −10·log10 of it. PhoenixSim `ResidualsBased_SincSquare_Lorentzian_Model`
  ("equation I calculated for OOK NRZ", M. Bahadori; code behind Bahadori et al., JLT 2016) [restated]. It treats
  the whole field as modulation (no carrier), so for on-off keying it overstates the loss (1.10 dB at Δ = 1.41,
  where the average power drops 0.51 dB and the worst-case eye 0.10 dB). It is the k = 0 term of the crosstalk
  integral E6.
- E18c, lab fit: PP = 17.228 − 42.29Δ + 44.443Δ² − 25.148Δ³ + 7.9945Δ⁴ − 1.3447Δ⁵ + 0.093144Δ⁶ for Δ ≤ 3, else
  0.04 dB (PhoenixSim `LabTruncationPPModel`, verbatim coefficients), measured on NRZ.
Validity: a single Lorentzian (high-finesse ring) on resonance; E18a and E18c are NRZ figures (used for PAM-M
through its symbol rate); none is meant for Δ < 0.1.
"""

from __future__ import annotations

import numpy as np

MIN_VALID_RATIO = 0.1  # Δ below which no E18 model is meant to hold (photonics-2 reference)
LAB_FIT_COEFFICIENTS_DB = (17.228, -42.29, 44.443, -25.148, 7.9945, -1.3447, 0.093144)  # E18c, Δ⁰ … Δ⁶
LAB_FIT_MAX_RATIO = 3.0
LAB_FIT_FLOOR_DB = 0.04


def passed_energy_fraction(fwhm_to_symbol_rate):
    """Share of an NRZ symbol's energy a Lorentzian of FWHM = Δ·R_s passes, 1 − (1 − e^(−πΔ))/(πΔ)  (E18a)."""
    x = np.pi * np.asarray(fwhm_to_symbol_rate, dtype=float)
    return 1.0 + np.expm1(-x) / x


def energy_penalty_db(fwhm_to_symbol_rate):
    """E18a: −10·log10 of the passed energy share."""
    return -10.0 * np.log10(passed_energy_fraction(fwhm_to_symbol_rate))


def eye_fraction(fwhm_to_symbol_rate, levels: int = 2, extinction_ratio=np.inf):
    """Worst inner eye of PAM-M light (linear outer extinction ratio r) after the single-pole field filter, over
    its unfiltered height (E18b): min_j [(a_(j+1)(1 − e) + e·a_0)² − (a_j(1 − e) + e·a_(M−1))²]·(M − 1)/(1 − 1/r),
    e = e^(−πΔ), a_j the levels' fields (top power 1); negative when an eye closes."""
    e = np.exp(-np.pi * np.asarray(fwhm_to_symbol_rate, dtype=float))
    floor = 1.0 / np.asarray(extinction_ratio, dtype=float)
    step = (1.0 - floor) / (levels - 1)
    field = [np.sqrt(floor + j * step) for j in range(levels)]
    low = [field[j + 1] * (1.0 - e) + e * field[0] for j in range(levels - 1)]  # the lowest field of level j + 1
    high = [field[j] * (1.0 - e) + e * field[-1] for j in range(levels - 1)]  # the highest of level j
    # squares as products: numpy's x ** 2 on a scalar goes through pow(), on an array through x·x (an ulp apart)
    return np.minimum.reduce([lo * lo - hi * hi for lo, hi in zip(low, high)]) / step


def eye_penalty_db(fwhm_to_symbol_rate, levels: int = 2, extinction_ratio=np.inf):
    """E18b: −10·log10 of the worst-case eye fraction; infinite when it closes."""
    eye = eye_fraction(fwhm_to_symbol_rate, levels, extinction_ratio)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(eye > 0.0, -10.0 * np.log10(np.maximum(eye, 1e-300)), np.inf)


def lab_fit_penalty_db(fwhm_to_symbol_rate):
    """E18c: PhoenixSim's sixth-order lab fit for Δ ≤ 3, 0.04 dB beyond."""
    delta = np.asarray(fwhm_to_symbol_rate, dtype=float)
    fit = np.polynomial.polynomial.polyval(delta, LAB_FIT_COEFFICIENTS_DB)
    return np.where(delta <= LAB_FIT_MAX_RATIO, fit, LAB_FIT_FLOOR_DB)


def isi_penalty_db(model: str, fwhm_to_symbol_rate, levels: int, extinction_ratio):
    """The drop filter's ISI penalty under `model` ('eye' E18b for the link's format and extinction ratio; 'energy'
    E18a and 'lab-fit' E18c, NRZ figures of Δ alone)."""
    if model == "eye":
        return eye_penalty_db(fwhm_to_symbol_rate, levels, extinction_ratio)
    return (energy_penalty_db if model == "energy" else lab_fit_penalty_db)(fwhm_to_symbol_rate)

