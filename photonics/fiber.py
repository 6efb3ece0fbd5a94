"""Optical fiber: chromatic dispersion and its power penalty, and the channel insertion loss of the IEEE tables (E28,
E29, F31–F34, E31); multimode fiber's modal bandwidth enters a point-to-point channel's ISI (`photonics.channel`).

References
----------
- E28: D(λ) = (S0/4)·(λ − λ0⁴/λ³), the standard zero-dispersion-slope form (e.g. G. Keiser, *Optical Fiber
  Communications*, ch. 3); S0 ≈ 0.092 ps/(nm²·km) for standard SMF [restated].
- E29: penalty of a pulse spread D·L·σ_λ against the bit slot, ε = B·L·|D|·σ_λ (σ_λ the RMS spectral width):
  E29a −5·log10(1 − (4ε)²), G. P. Agrawal, *Fiber-Optic Communication Systems*, 3rd ed., §5.4 (95 % of the energy
  in the bit slot at the receiver; singular at 4ε = 1) via mathscinotes "Dispersion power penalty modeling" eq. 3;
  E29b 5·log10(1 + (4ε)²), the same criterion at the transmitter (eq. 2, no singularity); E29c 5·log10(1 + 2π·ε²),
  the Bellcore ε form (1 dB at ε = 0.306, 2 dB at ε = 0.491, the GR-253 limits as commonly quoted) [inferred].
- F31–F32 (fabric-photonics-3 reference): RMS broadening of a chirped Gaussian pulse of RMS width σ0, chirp C, from
  a source of RMS spectral width V_ω = 2σ_ω·σ0: σ²/σ0² = (1 + Cβ₂L/2σ0²)² + (1 + V_ω²)(β₂L/2σ0²)²
  + (1 + C² + V_ω²)²(β₃L/4√2·σ0³)², G. P. Agrawal, *Fiber-Optic Communication Systems*, 3rd ed., §2.4.3
  [restated]; β₂ = −D·λ²/(2πc) (F34), β₃ = (λ²/2πc)²·(S + 2D/λ) with S = dD/dλ [inferred]. With the pulse held to
  σ0 = T/4 (Agrawal's bit-slot criterion) the penalty is the eye a Gaussian of width σ leaves on a rectangular
  symbol against the eye at σ0 (the IEEE link model's ISI form, F27), which closes near σ ≈ 3σ0; a pulse the fiber
  compresses (C·β₂ < 0) is given no credit [assumed]. Checked against a numerical NRZ pattern through fiber
  dispersion with Gaussian 0.75·R transmitter and receiver filters in tests/reference.
- E31: maximum channel insertion loss = connection allocation + α·L_max; reproduces the IEEE 802.3 tables
  (TIA FOTC "IEEE 802.3 Ethernet standards update"; China-TSCOM loss-budget table) [inferred].
Validity: E29 holds for a source whose spectral width dominates the pulse's (chirped DML, multimode VCSEL); for a
CW laser with an external modulator `transform_limited_rms_width_m` gives the width of the modulated signal.
"""

from __future__ import annotations

import numpy as np

from photonics.channel import levels_eye
from photonics.constants import SPEED_OF_LIGHT_M_PER_S as C
from photonics.special import erf



def dispersion_s_per_m2(wavelength_m, zero_dispersion_wavelength_m, slope_s_per_m3):
    """Chromatic dispersion D(λ) = (S0/4)·(λ − λ0⁴/λ³), in s/m² (1 ps/(nm·km) = 1e-6 s/m²)  (E28)."""
    lam = np.asarray(wavelength_m, dtype=float)
    return 0.25 * slope_s_per_m3 * (lam - zero_dispersion_wavelength_m**4 / lam**3)


def transform_limited_rms_width_m(wavelength_m, symbol_rate_baud):
    """RMS spectral width (in wavelength) of a chirp-free signal from a narrow-linewidth laser: pulses of RMS width
    σ0 = T/4 (Agrawal's bit-slot criterion, 4σ ≤ T) have σ_ω = 1/(2σ0) = 2·R_s, so σ_λ = λ²·R_s/(π·c) [inferred]."""
    lam = np.asarray(wavelength_m, dtype=float)
    return lam * lam * np.asarray(symbol_rate_baud, dtype=float) / (np.pi * C)


def spread_product(symbol_rate_baud, length_m, dispersion_s_per_m2_, rms_width_m):
    """ε = B·L·|D|·σ_λ: the dispersive spread D·L·σ_λ in bit periods  (E29)."""
    return (np.asarray(symbol_rate_baud, dtype=float) * np.asarray(length_m, dtype=float)
            * np.abs(dispersion_s_per_m2_) * rms_width_m)


def penalty_agrawal_db(epsilon):
    """E29a: −5·log10(1 − (4ε)²), 95 % of the pulse energy within the slot at the receiver (Agrawal §5.4); infinite
    once the spread fills the slot (4ε ≥ 1)."""
    x = (4.0 * np.asarray(epsilon, dtype=float)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 1.0, -5.0 * np.log10(1.0 - np.minimum(x, 1.0)), np.inf)


def penalty_agrawal_tx_db(epsilon):
    """E29b: 5·log10(1 + (4ε)²), the same criterion applied at the transmitter (mathscinotes eq. 2)."""
    return 5.0 * np.log10(1.0 + (4.0 * np.asarray(epsilon, dtype=float)) ** 2)


def penalty_bellcore_db(epsilon):
    """E29c: 5·log10(1 + 2π·ε²), the Bellcore ε form (1 dB at ε = 0.306, 2 dB at ε = 0.491) [inferred]."""
    return 5.0 * np.log10(1.0 + 2.0 * np.pi * np.asarray(epsilon, dtype=float) ** 2)


def dispersion_slope_s_per_m3(wavelength_m, zero_dispersion_wavelength_m, slope_s_per_m3):
    """dD/dλ of E28 at λ, (S0/4)·(1 + 3λ0⁴/λ⁴), in s/m³."""
    lam = np.asarray(wavelength_m, dtype=float)
    return 0.25 * slope_s_per_m3 * (1.0 + 3.0 * zero_dispersion_wavelength_m**4 / lam**4)


def beta2_s2_per_m(wavelength_m, dispersion_s_per_m2_):
    """Group-velocity dispersion β₂ = −D·λ²/(2πc), in s²/m (F34: 17 ps/(nm·km) at 1550 nm → −21.7 ps²/km)."""
    lam = np.asarray(wavelength_m, dtype=float)
    return -np.asarray(dispersion_s_per_m2_, dtype=float) * lam * lam / (2.0 * np.pi * C)


def beta3_s3_per_m(wavelength_m, dispersion_s_per_m2_, slope_s_per_m3_):
    """Third-order dispersion β₃ = (λ²/2πc)²·(S + 2D/λ), in s³/m [inferred from β₂(ω)]."""
    lam = np.asarray(wavelength_m, dtype=float)
    return (lam * lam / (2.0 * np.pi * C)) ** 2 * (slope_s_per_m3_ + 2.0 * np.asarray(dispersion_s_per_m2_) / lam)


def chirped_broadening(sigma0_s, length_m, beta2, beta3, chirp, source_width_product):
    """σ/σ0 of a chirped Gaussian pulse after `length_m` (F32): σ0 the input RMS width, C the chirp, V_ω the source's
    RMS spectral width × 2σ0."""
    sigma0 = np.asarray(sigma0_s, dtype=float)
    length = np.asarray(length_m, dtype=float)
    a = beta2 * length / (2.0 * sigma0 * sigma0)
    b = beta3 * length / (4.0 * np.sqrt(2.0) * sigma0**3)
    v2 = np.asarray(source_width_product, dtype=float) ** 2
    return np.sqrt((1.0 + chirp * a) ** 2 + (1.0 + v2) * a * a + (1.0 + chirp * chirp + v2) ** 2 * b * b)


def chirp_spectral_width_m(sigma0_s, chirp, wavelength_m):
    """RMS spectral width (in wavelength) a chirped Gaussian pulse of RMS width σ0 spans by itself, without any
    source width: σ_ω = √(1 + C²)/(2σ0), σ_λ = σ_ω·λ²/(2πc) (E93). A stated source width below it contradicts the
    chirp (E97): the chirp alone makes the spectrum that wide."""
    sigma_omega = np.sqrt(1.0 + np.asarray(chirp, dtype=float) ** 2) / (2.0 * np.asarray(sigma0_s, dtype=float))
    return sigma_omega * np.asarray(wavelength_m, dtype=float) ** 2 / (2.0 * np.pi * C)


def chirped_gaussian_penalty_db(broadening, levels: int = 2):
    """The eye a pulse of RMS width σ = f_b·σ0 (σ0 = T/4) leaves, against the unbroadened one's: each treated as a
    Gaussian response of that width on a rectangular symbol, eye(σ) = 2·erf(T/(√8·σ)) − 1 (the IEEE 802.3 link
    model's ISI form, F27) = 2·erf(√2/f_b) − 1, PAM-M's inner eyes from it (`channel.levels_eye`); −10·log10 of the
    ratio, infinite once the eye closes (f_b ≈ 3), none for a compressed pulse (F32)."""
    f = np.maximum(np.asarray(broadening, dtype=float), 1.0)
    eye = levels_eye(2.0 * erf(np.sqrt(2.0) / f) - 1.0, levels) / levels_eye(2.0 * erf(np.sqrt(2.0)) - 1.0, levels)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(eye > 0.0, -10.0 * np.log10(np.maximum(eye, 1e-300)), np.inf) + 0.0


DISPERSION_PENALTIES = {"agrawal": penalty_agrawal_db, "agrawal-tx": penalty_agrawal_tx_db,
                        "bellcore": penalty_bellcore_db}


def channel_insertion_loss_db(connection_db, loss_db_per_m, length_m):
    """Channel insertion loss of a cabled link, connection allocation + α·L  (E31)."""
    return connection_db + loss_db_per_m * np.asarray(length_m, dtype=float)
