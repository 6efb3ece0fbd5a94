"""Receivers: sensitivity given directly or from a model, BER ↔ Q, and the quantum limit.

References
----------
- PhoenixSim "Takashi" Ge-photodiode fit (E16): S = 7·(I_dark + i_n)·(ER+1)/(ER−1)/R,
  i_n[µA] = 0.0035·B² + 0.0655·B + 0.842 with B = 0.75·BR[GHz].
- Thermal-noise-limited OOK receiver: Q = (I1 − I0)/(2σ), σ = i_n·√B (G. P. Agrawal,
  *Fiber-Optic Communication Systems*, 4th ed., §4.5); average power P = Q·σ/R·(er+1)/(er−1); PAM-M levels
  OMA/(M−1) apart at the eye Q of E22 (`photonics.modulation`).
- Quantum limit of ideal OOK: BER = ½·exp(−N1), N1 photons in a '1', so n̄ = −ln(2·BER)/2 photons per bit
  (Agrawal §4.5.3; ≈ 10 photons/bit at BER 1e-9)  (E17).
- DSENT's integrating front end and clocked sense amplifier (photonics-4.md E70–E72, DSENT `RingDetector`): the
  photocurrent integrates on the input node for K_int of the bit, ΔV = I·K_int/(BR·C_in); the sense amplifier
  needs v_sense = V_dd·e^(−(1−K_int)/(BR·τ)) + v_margin + 3·v_off/2^n_b + v_det/CMRR; the least OMA photocurrent
  solves a·I² + b·I + c = 0 with the shot, kT/C and supply noise at the BER's Q.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from core.records import record
from photonics import modulation
from photonics.constants import PLANCK_J_S

_STANDARD_NORMAL = NormalDist()
NOISE_BANDWIDTH_FRACTION = 0.75  # receiver noise bandwidth over the symbol rate, B = 0.75·BR of the E16 fit


def q_from_ber(ber: float) -> float:
    """Q factor of a Gaussian-noise OOK receiver at bit-error ratio `ber`: Q = −Φ⁻¹(BER)."""
    return -_STANDARD_NORMAL.inv_cdf(ber)


def ber_from_q(q: float) -> float:
    """Bit-error ratio at Q factor `q`: BER = ½·erfc(Q/√2)."""
    return 0.5 * math.erfc(q / math.sqrt(2.0))


def _er_factor(er_lin):
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isinf(er), 1.0, (er + 1.0) / (er - 1.0))


def ge_photodiode_noise_current_a(rate_bps):
    """Input noise current of the PhoenixSim Ge-photodiode receiver fit, i_n[µA] = 0.0035B² + 0.0655B + 0.842,
    B = 0.75·BR in GHz (E16)."""
    b_ghz = NOISE_BANDWIDTH_FRACTION * np.asarray(rate_bps, dtype=float) / 1e9
    return 1e-6 * (0.0035 * b_ghz**2 + 0.0655 * b_ghz + 0.842)


GE_FIT_Q = 7.0  # the Q factor built into the PhoenixSim fit (≈ BER 1e-12)
GE_FIT_MAX_RATE_BPS = 50e9  # the fit's data reach 50 Gbps NRZ (photonics-2 reference: warn above)
TIA_RATED_BAUD = 25e9  # the shipped thermal-noise density is a 25 Gb/s TIA's (Xie et al. iWEM 2021): warn above


def ge_photodiode_sensitivity_w(rate_bps, er_lin, responsivity_a_per_w=0.7, dark_current_a=1e-6, q=GE_FIT_Q):
    """Average-power sensitivity of the PhoenixSim Ge-photodiode fit (E16):
    S = Q·(I_dark + i_n)·(ER+1)/(ER−1)/R with Q = 7 in the fit (≈ BER 1e-12). Passing the Q of another BER target
    scales the fit as a Gaussian-noise receiver would [inferred]. Defaults R = 0.7 A/W, I_dark = 1 µA (PhoenixSim)."""
    return q * (dark_current_a + ge_photodiode_noise_current_a(rate_bps)) * _er_factor(er_lin) / responsivity_a_per_w


def thermal_noise_sensitivity_w(symbol_rate_baud, ber, er_lin, responsivity_a_per_w, noise_density_a_per_rthz,
                                bandwidth_fraction=NOISE_BANDWIDTH_FRACTION, levels=2):
    """Average-power sensitivity of a thermal-noise-limited receiver of M-level intensity modulation,
    P = (M−1)·q·σ/R·(er+1)/(er−1) with σ = i_n·√(bandwidth_fraction·R_s) and q the eye Q of the BER target
    (E22; OOK, M = 2: P = Q·σ/R·(er+1)/(er−1), Agrawal §4.5). The levels are OMA/(M−1) apart (E23)."""
    sigma_a = noise_density_a_per_rthz * np.sqrt(bandwidth_fraction * np.asarray(symbol_rate_baud, dtype=float))
    q = modulation.eye_q_for_ber(levels, ber)
    return (levels - 1) * q * sigma_a * _er_factor(er_lin) / responsivity_a_per_w


def quantum_limit_photons_per_bit(ber):
    """Average photons per bit an ideal OOK receiver needs at `ber`: n̄ = −ln(2·BER)/2  (E17)."""
    return -math.log(2.0 * ber) / 2.0


def quantum_limit_w(rate_bps, frequency_hz, ber):
    """Average optical power at the quantum limit, n̄ · h·f · BR  (E17; ≈ −44 dBm at 25 Gbps, 1310 nm, 1e-9)."""
    return quantum_limit_photons_per_bit(ber) * PLANCK_J_S * frequency_hz * np.asarray(rate_bps, dtype=float)


@record
class SenseAmp:
    """DSENT's sense amplifier: the figures its technology file sets (Photonics.model `SenseAmp->…`, the first
    seven) and two its RingDetector model writes in its code (the last two) [verbatim]."""

    jitter_ratio: float = 0.01  # clock jitter, of the bit time
    offset_ratio: float = 0.04  # offset mismatch, of V_dd
    offset_bits: int = 5  # bits trimming the offset
    supply_noise_random_ratio: float = 0.01  # of V_dd
    supply_noise_deterministic_ratio: float = 0.05  # of V_dd
    cmrr: float = 5.0
    noise_margin_v: float = 0.02
    shot_noise_bandwidth: float = 0.7  # the shot noise's bandwidth over the bit rate (RingDetector; E72's b term)
    input_drain_units: float = 11.0  # the sense amplifier's input, in minimum drains (RingDetector: 2 + 3 + 5 + 1)


SENSE_AMP = SenseAmp()


def integrating_sensitivity_w(rate_bps, ber, er_lin, responsivity_a_per_w, node, integration_ratio,
                              photodiode_capacitance_f, amp: SenseAmp = SENSE_AMP):
    """Average-power sensitivity of DSENT's integrating receiver (E70–E72) at `node` (photonics.driver_energy.Node):
    the least OMA photocurrent I at the BER's Q, over the responsivity, times (ER+1)/(2(ER−1)) for the average
    (E76b). τ = R₀·(C_g0 + C_d0) of the node's unit inverter; C_in = 11 minimum drains + the photodiode's. NRZ."""
    from photonics.driver_energy import K_B, Q_E  # DSENT's constants, as its driver model reads them

    rate = np.asarray(rate_bps, dtype=float)
    c_g, c_d, r0 = node.unit_inverter
    c_in = amp.input_drain_units * node.w_min * node.c_drain_per_w + np.asarray(photodiode_capacitance_f)
    vdd, k_int = node.vdd, np.asarray(integration_ratio, dtype=float)
    v_sense = (vdd * np.exp(-(1.0 - k_int) / (rate * r0 * (c_g + c_d))) + amp.noise_margin_v
               + 3.0 * amp.offset_ratio * vdd / 2 ** amp.offset_bits
               + amp.supply_noise_deterministic_ratio * vdd / amp.cmrr)
    q = np.vectorize(q_from_ber, otypes=[float])(ber) if np.ndim(ber) else q_from_ber(float(ber))
    z = k_int / (rate * c_in)  # volts per ampere of the integrated photocurrent
    half_er = 0.5 * _er_factor(er_lin)  # the average photocurrent over the OMA one
    a = 1.0 - q ** 2 * amp.jitter_ratio ** 2
    b = -np.pi * q ** 2 * Q_E * amp.shot_noise_bandwidth * rate * half_er - 2.0 * v_sense / z
    noise = K_B * node.temperature / c_in + (amp.supply_noise_random_ratio * vdd / amp.cmrr) ** 2
    c = (v_sense ** 2 - q ** 2 * noise) / z ** 2
    current = (-b + np.sqrt(b * b - 4.0 * a * c)) / (2.0 * a)
    return current / responsivity_a_per_w * half_er
