"""Optical amplifiers in a chain: ASE-limited OSNR and the OSNR an OOK receiver needs.

References
----------
- OSNR of a chain of n identical amplifiers, each fed P_in: OSNR = P_in / (n · NF · h·f · B_ref) (high gain,
  ASE in one polarisation-averaged reference bandwidth); in dB, P_in − NF − 10·log10(h·f·B_ref / 1 mW) − 10·log10 n.
  The familiar "58 dB + P_in − NF − 10·log10 n" is this formula at 1550 nm with B_ref = 12.5 GHz (0.1 nm).
  (E. Desurvire, *Erbium-Doped Fiber Amplifiers*, 1994; G. P. Agrawal, *Fiber-Optic Communication Systems*,
  4th ed., §7.2.)
- Amplifiers with different input powers: 1/OSNR_total = Σ 1/OSNR_i (E38), each OSNR_i from the same formula
  with n = 1 (E37).
- Signal–ASE-beat-limited OOK: Q = 2·OSNR·√(B_o/B_e) / (1 + √(1 + 4·OSNR)) with OSNR in the optical bandwidth
  B_o and electrical bandwidth B_e (Agrawal §7.2; Essiambre et al.), which inverts to OSNR = y + y²,
  y = Q·√(B_e/B_o).
- With a finite extinction ratio and the receiver's own noise, `q_amplified` adds the variances of each level:
  thermal (from the receiver's sensitivity), signal–ASE beat on '1' and '0', ASE–ASE beat (Agrawal §7.2).
Validity: identical spans, gain set to restore each span, Gaussian noise; `required_osnr_db` is the ideal-receiver,
infinite-ER bound, `q_amplified` the full model.
"""

from __future__ import annotations

import numpy as np

from photonics.constants import PLANCK_J_S


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


def cascade_osnr_db(osnr_db_each):
    """OSNR after a cascade of amplifiers, each with its own OSNR: 1/OSNR = Σ 1/OSNR_i (linear)  (E38, MapYourTech
    "OSNR calculation for an amplified cascaded span"; Huawei KB EKB0000592366). Along the last axis."""
    inverse = np.power(10.0, -np.asarray(osnr_db_each, dtype=float) / 10.0)
    return -10.0 * np.log10(np.sum(inverse, axis=-1))


def required_osnr_db(q, optical_bandwidth_hz, electrical_bandwidth_hz):
    """OSNR (in the optical bandwidth) a signal–ASE-limited OOK receiver needs for Q: OSNR = y + y²,
    y = Q·√(B_e/B_o)."""
    y = q * np.sqrt(np.asarray(electrical_bandwidth_hz, dtype=float) / optical_bandwidth_hz)
    return 10.0 * np.log10(y + y * y)


def q_from_osnr(osnr_db, optical_bandwidth_hz, electrical_bandwidth_hz):
    """Q of a signal–ASE-limited OOK receiver, 2·OSNR·√(B_o/B_e)/(1 + √(1 + 4·OSNR))."""
    x = np.power(10.0, np.asarray(osnr_db, dtype=float) / 10.0)
    return 2.0 * x * np.sqrt(optical_bandwidth_hz / electrical_bandwidth_hz) / (1.0 + np.sqrt(1.0 + 4.0 * x))


def ase_psd_w_per_hz(signal_power_w, osnr_db, reference_bandwidth_hz):
    """ASE power spectral density per polarisation mode at a point where the signal has `signal_power_w` and the
    OSNR (both polarisations, in `reference_bandwidth_hz`) is `osnr_db`: S_sp = P / (2·OSNR·B_ref)."""
    return np.asarray(signal_power_w, dtype=float) / (2.0 * np.power(10.0, np.asarray(osnr_db) / 10.0)
                                                      * reference_bandwidth_hz)


def thermal_sigma_a(sensitivity_w, er_lin, responsivity_a_per_w, q):
    """Receiver noise current (rms) implied by a sensitivity: a receiver reaching Q at average power S with
    extinction ratio er has σ = R·S·(er−1)/((er+1)·Q)  (Q = R(P1 − P0)/(2σ), P1,0 = 2S·{er, 1}/(er+1))."""
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(invalid="ignore"):
        factor = np.where(np.isinf(er), 1.0, (er - 1.0) / (er + 1.0))
    return responsivity_a_per_w * np.asarray(sensitivity_w, dtype=float) * factor / q


def q_amplified(average_power_w, er_lin, responsivity_a_per_w, sigma_thermal_a, ase_psd, optical_bandwidth_hz,
                electrical_bandwidth_hz):
    """Q of an OOK receiver after optical amplifiers: signal–ASE beat noise on each level, ASE–ASE beat noise and
    the receiver's own noise add in variance (Agrawal §7.2):
    σ²_i = σ_th² + 4R²·P_i·S_sp·B_e + 4R²·S_sp²·B_o·B_e,  Q = R(P1 − P0)/(σ1 + σ0)."""
    er = np.asarray(er_lin, dtype=float)
    p = np.asarray(average_power_w, dtype=float)
    with np.errstate(invalid="ignore"):
        p1 = np.where(np.isinf(er), 2.0 * p, 2.0 * p * er / (er + 1.0))
    p0 = np.where(np.isinf(er), 0.0, 2.0 * p / (er + 1.0))
    r2 = responsivity_a_per_w**2
    common = sigma_thermal_a**2 + 4.0 * r2 * ase_psd**2 * optical_bandwidth_hz * electrical_bandwidth_hz
    s1 = np.sqrt(common + 4.0 * r2 * p1 * ase_psd * electrical_bandwidth_hz)
    s0 = np.sqrt(common + 4.0 * r2 * p0 * ase_psd * electrical_bandwidth_hz)
    return responsivity_a_per_w * (p1 - p0) / (s1 + s0)
