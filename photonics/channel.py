"""A point-to-point channel as the IEEE 802.3 link model treats it: transmitter, fiber (modal, and chromatic when the
design routes it here) and receiver as one Gaussian channel whose ISI (with duty-cycle distortion and deterministic
jitter) closes the eye, and the noises that compete with that closed eye — RIN, mode-partition noise, modal noise,
baseline wander — combined as the model combines them (F23–F28).

References
----------
- [10GEPBud] D. Hanson, D. Cunningham, P. Dawe, D. Dolfi, IEEE 802.3ae link model spreadsheet 10GEPBud3_1_16a
  (2001; the equations read from its cells, a copy in github.com/Belden-Montreal/Fiber-Python-Code, commit 46d63a9,
  explained cell by cell in the Fibre Channel committee note 2016-013v0) [verbatim]; D. G. Cunningham et al., "The
  IEEE 802.3z worst case link model" [restated]. Its equations, restated in our notation:
  - rise times (10–90 %) add in quadrature (F23): the transmitter's, the fiber's modal 0.480·L/BW_modal and
    chromatic 0.480/BW_cd = 2.567·|D|·L·σ_λ (optical bandwidths, F26), the receiver's 0.329/f₃dB;
  - ISI, the Gaussian step's inner eye over the symbol shortened by the duty-cycle distortion, T_e = T − DCD,
    sampled a = (DJ − DCD)/T_e off centre: eye = erf(y(1 + a)) + erf(y(1 − a)) − 1, y = 2.563·T_e/(√8·T_c);
    with no jitter 2·erf(y) − 1, which equals F27's p(0) − 2·Σ_{k≥1} p(kT) since Σ_k p(kT) = 1;
  - RIN referred to the OMA over the channel's noise bandwidth, V_rin = 0.7·RIN_OMA·B_n,
    B_n = 1/√(BW_cd⁻² + BW_modal⁻² + 0.477·f_rx⁻²) (0.477 = (0.1292/0.187)², a raised-cosine receiver);
  - mode-partition noise (F28, Ogawa/Agrawal §5.4): σ_mpn = (k/√2)·(1 − exp(−(π·R·D·L·σ_λ)²));
  - modal noise, an allocation P_mn, as a variance V_mn = (1 − 10^(−P_mn/5))/Q²; baseline wander, an RMS SD;
  - all on the closed eye: P = −10·log10(eye·√(1 − Q²·((SD² + V_rin)/eye² + V_mn + σ_mpn²))), less the baseline
    wander on the receiver's own eye, which the receiver's sensitivity contains. Each term alone is
    −5·log10(1 − Q²·variance) (on the closed eye for RIN); the rest is their interaction.
- F24 [inferred]: a Gaussian impulse response of RMS width σ has T₁₀₋₉₀ = 2.563σ and an electrical 3-dB bandwidth
  f_e = 0.1325/σ (T·f_e = 0.340, used for the source's electro-optic bandwidth); a 20–80 % rise time is 1.518× shorter
  than the 10–90 % one (10GEPBud).
Validity: responses close to Gaussian (a multimode fiber's is, a DML's ringing is not); reflections (zero at 850 nm in
the model) are not counted; for PAM-M the noises are compared with an eye M − 1 times smaller [inferred].
"""

from __future__ import annotations

import numpy as np

from photonics.special import erf

GAUSSIAN_RISE_PER_SIGMA = 2.563  # 10–90 % rise time of a Gaussian response over its RMS width (F24, 10GEPBud B_1)
ELECTRICAL_RISE_BANDWIDTH = 0.340  # T₁₀₋₉₀·f_e of a Gaussian response (F24)
OPTICAL_RISE_BANDWIDTH = 0.480  # T₁₀₋₉₀·BW of fiber, whose bandwidths are optical (F26; 10GEPBud C_1 = 480 ns·MHz)
CHROMATIC_RISE_PER_WIDTH = 0.480 / 0.187  # 10GEPBud: BW_cd = 0.187/(σ_λ·L·|D|), rise 0.480/BW_cd [verbatim]
RECEIVER_RISE_BANDWIDTH = 0.329  # T₁₀₋₉₀·f₃dB of the receiver (10GEPBud c_rx = 329 ns·MHz [verbatim])
RIN_COEFFICIENT = 0.7  # share of the RIN a receiver sees at its decision point (10GEPBud kRIN [verbatim])
RAISED_COSINE_NOISE = 0.477  # (0.1292/0.187)²: the receiver's share of the noise bandwidth (10GEPBud [verbatim])


def transmitter_rise_s(bandwidth_hz):
    """10–90 % rise time of a source of electro-optic 3-dB bandwidth f_e, 0.340/f_e (F24)."""
    return ELECTRICAL_RISE_BANDWIDTH / np.asarray(bandwidth_hz, dtype=float)


def receiver_rise_s(bandwidth_hz):
    """10–90 % rise time of the receiver, 0.329/f₃dB (10GEPBud)."""
    return RECEIVER_RISE_BANDWIDTH / np.asarray(bandwidth_hz, dtype=float)


def modal_rise_s(length_m, modal_bandwidth_hz_m):
    """10–90 % rise time of multimode fiber, 0.480·L/BW (BW the optical modal bandwidth–length product, F26)."""
    return OPTICAL_RISE_BANDWIDTH * np.asarray(length_m, dtype=float) / modal_bandwidth_hz_m


def chromatic_rise_s(length_m, dispersion_s_per_m2, rms_width_m):
    """10–90 % rise time of chromatic dispersion, (0.480/0.187)·|D|·L·σ_λ = 2.567·|D|·L·σ_λ (F26, 10GEPBud)."""
    return CHROMATIC_RISE_PER_WIDTH * np.abs(dispersion_s_per_m2) * np.asarray(length_m, dtype=float) * rms_width_m


def combined_rise_s(*rise_times):
    """Rise times of cascaded Gaussian responses in quadrature (F23)."""
    return np.sqrt(sum(np.asarray(t, dtype=float) ** 2 for t in rise_times))


def optical_bandwidth_hz(rise_time_s):
    """The optical bandwidth of a Gaussian response of this rise time, 0.480/T (inf for none)."""
    with np.errstate(divide="ignore"):
        return OPTICAL_RISE_BANDWIDTH / np.asarray(rise_time_s, dtype=float)


def levels_eye(nrz_eye, levels: int = 2):
    """The inner eye of PAM-M from NRZ's under the same linear ISI: a pulse keeping p0 = (eye + 1)/2 of itself
    leaves each of the M − 1 eyes M·p0 − (M − 1) of its ideal height [inferred]."""
    return levels * 0.5 * (np.asarray(nrz_eye, dtype=float) + 1.0) - (levels - 1)


def gaussian_eye(symbol_rate_baud, rise_time_s, duty_cycle_distortion_s=0.0, jitter_s=0.0, levels: int = 2):
    """Inner eye of NRZ (or PAM-M, `levels_eye`) through a Gaussian channel of 10–90 % rise time T_c, over the
    unfiltered eye (10GEPBud): erf(y(1 + a)) + erf(y(1 − a)) − 1, y = 2.563·T_e/(√8·T_c), T_e = T − DCD,
    a = max(DJ − DCD, 0)/T_e; negative once it closes (a DCD of a whole symbol closes it)."""
    period = np.maximum(1.0 / np.asarray(symbol_rate_baud, dtype=float) - duty_cycle_distortion_s, 1e-300)
    y = GAUSSIAN_RISE_PER_SIGMA * period / (np.sqrt(8.0) * np.maximum(np.asarray(rise_time_s, dtype=float), 1e-300))
    a = np.maximum(np.asarray(jitter_s, dtype=float) - duty_cycle_distortion_s, 0.0) / period
    nrz = erf(np.clip(y * (1.0 + a), -10.0, 10.0)) + erf(np.clip(y * (1.0 - a), -10.0, 10.0)) - 1.0
    return levels_eye(nrz, levels)


def eye_penalty_db(eye):
    """−10·log10 of an eye fraction; infinite once it closes."""
    eye = np.asarray(eye, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(eye > 0.0, -10.0 * np.log10(np.maximum(eye, 1e-300)), np.inf)


def isi_penalty_db(symbol_rate_baud, rise_time_s, duty_cycle_distortion_s=0.0, jitter_s=0.0):
    """P_ISI = −10·log10 of the Gaussian channel's eye (with DCD and jitter); infinite once it closes."""
    return eye_penalty_db(gaussian_eye(symbol_rate_baud, rise_time_s, duty_cycle_distortion_s, jitter_s))


def noise_bandwidth_hz(chromatic_bw_hz, modal_bw_hz, receiver_bw_hz):
    """The bandwidth RIN is seen over, 1/√(BW_cd⁻² + BW_modal⁻² + 0.477·f_rx⁻²) (10GEPBud)."""
    inverse = lambda bw: np.where(np.isinf(bw), 0.0, 1.0 / np.asarray(bw, dtype=float)) ** 2  # noqa: E731
    return 1.0 / np.sqrt(inverse(chromatic_bw_hz) + inverse(modal_bw_hz)
                         + RAISED_COSINE_NOISE / np.asarray(receiver_bw_hz, dtype=float) ** 2)


def rin_variance(rin_oma_db_per_hz, noise_bw_hz):
    """Intensity-noise variance over the OMA², 0.7·RIN_OMA·B_n (10GEPBud)."""
    return RIN_COEFFICIENT * np.power(10.0, np.asarray(rin_oma_db_per_hz, dtype=float) / 10.0) * noise_bw_hz


def mode_partition_sigma(k, symbol_rate_baud, dispersion_s_per_m2, length_m, rms_width_m):
    """σ_mpn = (k/√2)·(1 − exp(−(π·R·D·L·σ_λ)²)) (F28; 10GEPBud with R the symbol rate)."""
    beta = np.pi * np.asarray(symbol_rate_baud) * np.abs(dispersion_s_per_m2) * np.asarray(length_m) * rms_width_m
    return k / np.sqrt(2.0) * -np.expm1(-beta * beta)


def modal_noise_variance(penalty_db, q):
    """The variance a modal-noise allocation P_mn stands for, (1 − 10^(−P_mn/5))/Q² (10GEPBud)."""
    return -np.expm1(-np.asarray(penalty_db, dtype=float) / 5.0 * np.log(10.0)) / np.asarray(q, dtype=float) ** 2


def noise_penalty_db(q, variance):
    """−5·log10(1 − Q²·variance): a Gaussian noise alone, normalised to the eye; infinite once Q·σ ≥ 1."""
    x = np.asarray(q, dtype=float) ** 2 * variance
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < 1.0, -5.0 * np.log10(1.0 - np.minimum(x, 1.0)), np.inf)
