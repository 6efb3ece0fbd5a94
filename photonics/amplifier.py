"""Optical amplifiers in a chain: ASE-limited OSNR and the OSNR an OOK receiver needs.

References
----------
- OSNR of a chain of n identical amplifiers, each fed P_in: OSNR = P_in / (n · NF · h·f · B_ref) (high gain,
  ASE in one polarisation-averaged reference bandwidth); in dB, P_in − NF − 10·log10(h·f·B_ref / 1 mW) − 10·log10 n.
  The familiar "58 dB + P_in − NF − 10·log10 n" is this formula at 1550 nm with B_ref = 12.5 GHz (0.1 nm).
  (E. Desurvire, *Erbium-Doped Fiber Amplifiers*, 1994; G. P. Agrawal, *Fiber-Optic Communication Systems*,
  4th ed., §7.2.)
- Signal–ASE-beat-limited OOK: Q = 2·OSNR·√(B_o/B_e) / (1 + √(1 + 4·OSNR)) with OSNR in the optical bandwidth
  B_o and electrical bandwidth B_e (Agrawal §7.2; Essiambre et al.), which inverts to OSNR = y + y²,
  y = Q·√(B_e/B_o).
Validity: ASE-limited, identical spans, gain set to restore each span; ASE–ASE beat and receiver thermal noise
neglected (they only raise the required OSNR).
"""

from __future__ import annotations

import numpy as np

from photonics.units import PLANCK_J_S


def ase_reference_dbm(frequency_hz, bandwidth_hz):
    """10·log10(h·f·B / 1 mW): the quantum-noise power in the reference bandwidth, in dBm."""
    return 10.0 * np.log10(PLANCK_J_S * np.asarray(frequency_hz, dtype=float) * bandwidth_hz / 1e-3)


def chain_osnr_db(input_power_dbm, noise_figure_db, amplifiers, frequency_hz, bandwidth_hz):
    """OSNR (in `bandwidth_hz`) after `amplifiers` identical amplifiers each fed `input_power_dbm` per channel:
    P_in − NF − 10·log10(h·f·B/1 mW) − 10·log10 n. Infinite with no amplifier."""
    n = np.asarray(amplifiers, dtype=float)
    with np.errstate(divide="ignore"):
        return (np.asarray(input_power_dbm, dtype=float) - noise_figure_db
                - ase_reference_dbm(frequency_hz, bandwidth_hz) - 10.0 * np.log10(n))


def required_osnr_db(q, optical_bandwidth_hz, electrical_bandwidth_hz):
    """OSNR (in the optical bandwidth) a signal–ASE-limited OOK receiver needs for Q: OSNR = y + y²,
    y = Q·√(B_e/B_o)."""
    y = q * np.sqrt(np.asarray(electrical_bandwidth_hz, dtype=float) / optical_bandwidth_hz)
    return 10.0 * np.log10(y + y * y)


def q_from_osnr(osnr_db, optical_bandwidth_hz, electrical_bandwidth_hz):
    """Q of a signal–ASE-limited OOK receiver, 2·OSNR·√(B_o/B_e)/(1 + √(1 + 4·OSNR))."""
    x = np.power(10.0, np.asarray(osnr_db, dtype=float) / 10.0)
    return 2.0 * x * np.sqrt(optical_bandwidth_hz / electrical_bandwidth_hz) / (1.0 + np.sqrt(1.0 + 4.0 * x))
