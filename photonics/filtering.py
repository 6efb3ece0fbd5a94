"""The victim's own filtering: inter-symbol interference of NRZ symbols dropped by a Lorentzian ring (E18).

Δ = FWHM/R_s (the ring's full width at half maximum over the symbol rate), x = π·Δ: the field impulse response of a
power-Lorentzian of that FWHM decays as e^(−π·FWHM·t), so x is the symbol period over the field time constant.

References
----------
- E18a, energy (residual) model: the share of a random NRZ symbol's energy (sinc² spectrum) the Lorentzian passes,
  1 − (1 − e^(−x))/x; PP = −10·log10 of it. PhoenixSim `ResidualsBased_SincSquare_Lorentzian_Model`, its default
  demultiplexer model ("equation I calculated for OOK NRZ", M. Bahadori; code behind Bahadori et al., JLT 2016)
  [restated]. It is the k = 0 term of the crosstalk integral E6: the same sinc² spectrum through the same
  Lorentzian, at zero detuning.
- E18b, worst-case eye: a first-order filter sampled at the end of the symbol leaves an eye 1 − 2e^(−x); optical
  PP = −10·log10 of it [inferred] (PhoenixSim `Basic_...` uses the same eye with −20·log10 [restated]).
- E18c, lab fit: PP = 17.228 − 42.29Δ + 44.443Δ² − 25.148Δ³ + 7.9945Δ⁴ − 1.3447Δ⁵ + 0.093144Δ⁶ for Δ ≤ 3, else
  0.04 dB (PhoenixSim `LabTruncationPPModel`, verbatim coefficients).
Validity: NRZ (PAM4 through its symbol rate), a single Lorentzian (high-finesse ring); the models disagree by up to
~1 dB near Δ ≈ 1 and none is meant for Δ < 0.1.
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


def eye_penalty_db(fwhm_to_symbol_rate):
    """E18b: −10·log10(1 − 2e^(−πΔ)), the worst-case eye of a first-order filter; infinite when it closes."""
    eye = 1.0 - 2.0 * np.exp(-np.pi * np.asarray(fwhm_to_symbol_rate, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(eye > 0.0, -10.0 * np.log10(np.maximum(eye, 1e-300)), np.inf)


def lab_fit_penalty_db(fwhm_to_symbol_rate):
    """E18c: PhoenixSim's sixth-order lab fit for Δ ≤ 3, 0.04 dB beyond."""
    delta = np.asarray(fwhm_to_symbol_rate, dtype=float)
    fit = np.polynomial.polynomial.polyval(delta, LAB_FIT_COEFFICIENTS_DB)
    return np.where(delta <= LAB_FIT_MAX_RATIO, fit, LAB_FIT_FLOOR_DB)


FILTER_ISI_MODELS = {"energy": energy_penalty_db, "eye": eye_penalty_db, "lab-fit": lab_fit_penalty_db}
