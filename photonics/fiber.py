"""Optical fiber: chromatic dispersion and its power penalty, the modal-bandwidth reach of multimode fiber, and the
channel insertion loss of the IEEE tables (E28, E29, E31).

References
----------
- E28: D(λ) = (S0/4)·(λ − λ0⁴/λ³), the standard zero-dispersion-slope form (e.g. G. Keiser, *Optical Fiber
  Communications*, ch. 3); S0 ≈ 0.092 ps/(nm²·km) for standard SMF [restated].
- E29: penalty of a pulse spread D·L·σ_λ against the bit slot, ε = B·L·|D|·σ_λ (σ_λ the RMS spectral width):
  E29a −5·log10(1 − (4ε)²), G. P. Agrawal, *Fiber-Optic Communication Systems*, 3rd ed., §5.4 (95 % of the energy
  in the bit slot at the receiver; singular at 4ε = 1) via mathscinotes "Dispersion power penalty modeling" eq. 3;
  E29b 5·log10(1 + (4ε)²), the same criterion at the transmitter (eq. 2, no singularity); E29c 5·log10(1 + 2π·ε²),
  the Bellcore ε form (1 dB at ε = 0.306, 2 dB at ε = 0.491, the GR-253 limits as commonly quoted) [inferred].
- Modal bandwidth: the fiber's 10–90 % rise time t = 440·L/B0 ns (L in km, B0 the modal bandwidth–length product in
  MHz·km), held within 70 % of an NRZ bit period (G. Keiser, *Optical Fiber Communications*, §8.1.2, rise-time
  budget) [restated].
- E31: maximum channel insertion loss = connection allocation + α·L_max; reproduces the IEEE 802.3 tables
  (TIA FOTC "IEEE 802.3 Ethernet standards update"; China-TSCOM loss-budget table) [inferred].
Validity: E29 holds for a source whose spectral width dominates the pulse's (chirped DML, multimode VCSEL); for a
CW laser with an external modulator `transform_limited_rms_width_m` gives the width of the modulated signal.
"""

from __future__ import annotations

import numpy as np

from photonics.constants import SPEED_OF_LIGHT_M_PER_S as C

RISE_TIME_FACTOR = 0.44  # 10–90 % rise time × 3-dB bandwidth of a Gaussian response, Keiser §8.1.2 (440 ns·MHz)
NRZ_RISE_TIME_SHARE = 0.7  # share of a bit period an NRZ link's rise time may take, Keiser §8.1.2


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


DISPERSION_PENALTIES = {"agrawal": penalty_agrawal_db, "agrawal-tx": penalty_agrawal_tx_db,
                        "bellcore": penalty_bellcore_db}


def spread_for_penalty(model: str, penalty_db):
    """ε at which a dispersion model's penalty reaches `penalty_db` (E29a–c solved for ε): the spread a budget with
    that much headroom tolerates."""
    x = np.power(10.0, np.asarray(penalty_db, dtype=float) / 5.0)
    if model == "agrawal":
        return np.sqrt(1.0 - 1.0 / x) / 4.0
    if model == "agrawal-tx":
        return np.sqrt(x - 1.0) / 4.0
    return np.sqrt((x - 1.0) / (2.0 * np.pi))


def modal_rise_time_s(length_m, modal_bandwidth_hz_m):
    """10–90 % rise time of modal dispersion, 0.44·L/B0 (Keiser: 440·L[km]/B0[MHz·km] ns)."""
    return RISE_TIME_FACTOR * np.asarray(length_m, dtype=float) / modal_bandwidth_hz_m


def modal_reach_m(symbol_rate_baud, modal_bandwidth_hz_m):
    """Longest multimode fiber whose own rise time stays within 70 % of a symbol, L = 0.7·B0/(0.44·R_s) (Keiser's
    rise-time budget with the fiber's share alone; the transmitter and receiver are held to their own bandwidth
    limits)."""
    return NRZ_RISE_TIME_SHARE * modal_bandwidth_hz_m / (RISE_TIME_FACTOR * np.asarray(symbol_rate_baud, dtype=float))


def channel_insertion_loss_db(connection_db, loss_db_per_m, length_m):
    """Channel insertion loss of a cabled link, connection allocation + α·L  (E31)."""
    return connection_db + loss_db_per_m * np.asarray(length_m, dtype=float)
