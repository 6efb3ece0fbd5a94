"""Micro-ring resonators: spectral quantities, transmission, losses and thermal tuning.

All functions take SI floats (or numpy arrays) and broadcast.

References
----------
- W. Bogaerts et al., "Silicon microring resonators", Laser & Photonics Reviews 6(1), 2012 (exact
  all-pass / add-drop transmission, FSR, FWHM, finesse).
- C. Sun et al., "DSENT", NOCS 2012 (FSR and ring defaults, thermal tuning strategies, Q ≤ f0/BR).
- M. Bahadori et al., "Comprehensive design space exploration of silicon photonic interconnects",
  JLT 34(12), 2016, and its PhoenixSim physical models (Lorentzian drop/through forms, intrinsic Q).
- Coupled-mode theory of a symmetric add-drop ring (H. A. Haus, *Waves and Fields in Optoelectronics*,
  1984, ch. 7): on resonance, through = (Q_L/Q_i)², drop = (1 − Q_L/Q_i)².

Validity: the Lorentzian forms hold near one resonance (|detuning| ≪ FSR) for high-finesse rings;
the exact forms hold for any detuning of a single-mode ring with wavelength-independent coupling.
"""

from __future__ import annotations

import numpy as np

from core.units import db_to_lin
from photonics.constants import SPEED_OF_LIGHT_M_PER_S as C
from photonics.channel_grid import offset_detuning_hz, worst_victim_product_by_count, worst_victim_sum_by_count


def circumference_m(radius_m):
    """Round-trip length L = 2πR of a circular ring."""
    return 2.0 * np.pi * np.asarray(radius_m, dtype=float)


def frequency_hz(wavelength_m):
    """Optical frequency f = c / λ."""
    return C / np.asarray(wavelength_m, dtype=float)


def fsr_wavelength_m(wavelength_m, group_index, length_m):
    """Free spectral range in wavelength, FSR_λ = λ² / (n_g · L)  (E1; DSENT, Bogaerts 2012 eq. 5)."""
    return np.asarray(wavelength_m, dtype=float) ** 2 / (group_index * np.asarray(length_m, dtype=float))


def fsr_frequency_hz(group_index, length_m):
    """Free spectral range in frequency, FSR_f = c / (n_g · L)  (E1)."""
    return C / (group_index * np.asarray(length_m, dtype=float))


def fwhm_hz(frequency_hz_, loaded_q):
    """Full width at half maximum of a resonance, Δf = f0 / Q_L  (E2)."""
    return np.asarray(frequency_hz_, dtype=float) / loaded_q


def loaded_q(frequency_hz_, fwhm_hz_):
    """Loaded quality factor Q_L = f0 / Δf_FWHM  (E2)."""
    return np.asarray(frequency_hz_, dtype=float) / fwhm_hz_


def finesse(fsr_hz, fwhm_hz_):
    """Finesse F = FSR / FWHM  (E2)."""
    return np.asarray(fsr_hz, dtype=float) / fwhm_hz_


def power_attenuation_per_m(loss_db_per_m):
    """Power attenuation coefficient α [1/m] from a loss in dB/m: α = loss · ln(10)/10."""
    return np.asarray(loss_db_per_m, dtype=float) * np.log(10.0) / 10.0


def intrinsic_q(group_index, wavelength_m, loss_db_per_m):
    """Intrinsic (unloaded) Q from the ring's propagation loss, Q_i = 2π n_g / (λ α)  (E3, PhoenixSim); infinite for
    a lossless ring (and for a loss so small the quotient overflows)."""
    with np.errstate(divide="ignore", over="ignore"):
        return 2.0 * np.pi * group_index / (np.asarray(wavelength_m, dtype=float)
                                            * power_attenuation_per_m(loss_db_per_m))


def bending_loss_db_per_m(radius_m, coefficient_db_per_cm, exponent, straight_loss_db_per_cm):
    """Propagation loss of a bent waveguide from a power-law fit,
    loss[dB/cm] = coefficient · R[µm]^(−exponent) + straight loss  (UBC fit used in PhoenixSim).
    Returned in dB/m (np.power, not **: a scalar's ** rounds differently from the ufunc a grid runs)."""
    radius_um = np.asarray(radius_m, dtype=float) * 1e6
    return 100.0 * (coefficient_db_per_cm * np.power(radius_um, -exponent) + straight_loss_db_per_cm)


# --- Lorentzian (near-resonance) forms -------------------------------------------------------------
def drop_peak_symmetric(loaded_q_, intrinsic_q_):
    """On-resonance drop transmission of a symmetric add-drop ring, D0 = (1 − Q_L/Q_i)²  (E4).
    Needs Q_L < Q_i (a loaded Q cannot exceed the intrinsic Q); returns 0 otherwise."""
    ratio = np.asarray(loaded_q_, dtype=float) / intrinsic_q_
    return np.where(ratio < 1.0, (1.0 - ratio) ** 2, 0.0)


def through_on_resonance_symmetric(loaded_q_, intrinsic_q_):
    """On-resonance through transmission of a symmetric add-drop ring, t0 = (Q_L/Q_i)²
    (coupled-mode theory, Haus 1984)."""
    ratio = np.asarray(loaded_q_, dtype=float) / intrinsic_q_
    return np.minimum(ratio, 1.0) ** 2


def through_on_resonance_all_pass(loaded_q_, intrinsic_q_):
    """On-resonance through transmission of an all-pass ring, t0 = (2·Q_L/Q_i − 1)²: zero at critical coupling
    (Q_L = Q_i/2), coupled-mode theory (Haus 1984)."""
    ratio = np.minimum(np.asarray(loaded_q_, dtype=float) / intrinsic_q_, 1.0)
    return (2.0 * ratio - 1.0) ** 2


def drop_lorentzian(detuning_hz, fwhm_hz_, peak):
    """Drop-port power transmission D(δ) = D0 / (1 + (2δ/FWHM)²)  (E4)."""
    x = 2.0 * np.asarray(detuning_hz, dtype=float) / fwhm_hz_
    return peak / (1.0 + x * x)


def through_lorentzian(detuning_hz, fwhm_hz_, on_resonance):
    """Through-port power transmission T(δ) = (t0 + (2δ/FWHM)²) / (1 + (2δ/FWHM)²)  (E5)."""
    x2 = np.square(np.asarray(detuning_hz, dtype=float)) * np.square(2.0 / np.asarray(fwhm_hz_, dtype=float))
    return (on_resonance + x2) / (1.0 + x2)


def drop_loss_db(loaded_q_, intrinsic_q_):
    """Insertion loss of the drop port on resonance, −10·log10 D0, in dB (E4)."""
    with np.errstate(divide="ignore"):
        return 0.0 - 10.0 * np.log10(drop_peak_symmetric(loaded_q_, intrinsic_q_))  # 0 dB, not −0, when lossless


def through_loss_db(detuning_hz, fwhm_hz_, on_resonance, excess_db=0.0):
    """Loss seen by a channel passing an off-resonance ring at `detuning_hz` (fold it by the FSR first, E19): the
    Lorentzian notch tail (E5, E20) plus a scattering/excess loss per ring; infinite on the resonance of a ring with
    t0 = 0."""
    with np.errstate(divide="ignore"):
        return -10.0 * np.log10(through_lorentzian(detuning_hz, fwhm_hz_, on_resonance)) + excess_db


def through_tail_loss_db(detuning_hz, fwhm_hz_, on_resonance):
    """Far-tail form of the through loss, 4.343·(1 − t0)·(FWHM/2δ)² dB, valid for (2δ/FWHM)² ≫ 1  (E20)."""
    x = 2.0 * np.asarray(detuning_hz, dtype=float) / fwhm_hz_
    return 10.0 / np.log(10.0) * (1.0 - on_resonance) / (x * x)


def through_transmission(detuning_hz, fwhm_hz_, on_resonance, excess_db=0.0):
    """`through_loss_db` as a power transmission: the Lorentzian notch (E5) times the excess loss per ring."""
    return through_lorentzian(detuning_hz, fwhm_hz_, on_resonance) * db_to_lin(0.0 - np.asarray(excess_db))


def bus_through_loss_by_count(max_channels: int, spacing_hz, fwhm_hz_, on_resonance, excess_db, fsr_hz):
    """Through loss (dB) of the worst wavelength on a bus of n rings, one per channel of an n-channel grid, for every
    n = 1..max_channels (element n−1 of the last axis): channel i passes the ring of every other channel j at its own
    detuning (j − i)·spacing folded by the FSR (E19–E20), not all at one spacing. Array arguments (a grid of design
    points) add leading axes. In dB, so any number of lossy rings keeps its loss (`bus_through_transmission_at`, the
    same in linear power, leaves a float's range past ~3 000 dB)."""
    return worst_victim_sum_by_count(through_loss_db(offset_detuning_hz(max_channels, spacing_hz, fsr_hz), fwhm_hz_,
                                                     on_resonance, excess_db))


def bus_through_transmission_at(detuning_hz, fwhm_hz_, on_resonance, excess_db):
    """The worst wavelength's transmission through the bus (`bus_through_loss_by_count` in linear power) from the
    folded detuning of each offset (`grid.offset_detuning_hz`, offsets on the first axis), which a grid's tables
    share."""
    return worst_victim_product_by_count(through_transmission(detuning_hz, fwhm_hz_, on_resonance, excess_db))


def notch_extinction_ratio_db(on_resonance):
    """Extinction ratio of a through-port notch, off-resonance (T = 1) over on-resonance (t0), in dB."""
    with np.errstate(divide="ignore"):
        return -10.0 * np.log10(np.asarray(on_resonance, dtype=float))


# --- exact transmission (Bogaerts 2012, eqs. 1-4) --------------------------------------------------
def round_trip_amplitude(loss_db_per_m, length_m):
    """Single-pass amplitude transmission a = exp(−α L / 2)."""
    return np.exp(-0.5 * power_attenuation_per_m(loss_db_per_m) * np.asarray(length_m, dtype=float))


def round_trip_phase(wavelength_m, effective_index, length_m):
    """Round-trip phase φ = 2π n_eff L / λ."""
    return 2.0 * np.pi * effective_index * np.asarray(length_m, dtype=float) / np.asarray(wavelength_m, dtype=float)


def through_exact(phase_rad, a, r1, r2=1.0):
    """Through-port power transmission of an add-drop ring (r2 = 1: all-pass ring),
    T = (a²r₂² − 2ar₁r₂cosφ + r₁²) / (1 − 2ar₁r₂cosφ + (ar₁r₂)²)  (E5b, Bogaerts 2012 eqs. 1, 3)."""
    c = np.cos(phase_rad)
    return (a * a * r2 * r2 - 2.0 * a * r1 * r2 * c + r1 * r1) / (1.0 - 2.0 * a * r1 * r2 * c + (a * r1 * r2) ** 2)


def drop_exact(phase_rad, a, r1, r2):
    """Drop-port power transmission of an add-drop ring,
    D = (1 − r₁²)(1 − r₂²) a / (1 − 2ar₁r₂cosφ + (ar₁r₂)²)  (Bogaerts 2012 eq. 4)."""
    c = np.cos(phase_rad)
    return (1.0 - r1 * r1) * (1.0 - r2 * r2) * a / (1.0 - 2.0 * a * r1 * r2 * c + (a * r1 * r2) ** 2)


def fwhm_exact_m(wavelength_m, group_index, length_m, a, r1, r2=1.0):
    """FWHM in wavelength of the exact response, (1 − r₁r₂a) λ² / (π n_g L √(r₁r₂a))  (Bogaerts 2012 eq. 6)."""
    ra = r1 * r2 * a
    return (1.0 - ra) * np.asarray(wavelength_m, dtype=float) ** 2 / (np.pi * group_index * length_m * np.sqrt(ra))


# --- data-rate limit --------------------------------------------------------------------------------
def max_q_for_rate(frequency_hz_, rate_bps):
    """Largest loaded Q whose photon lifetime still passes a data rate, Q ≤ f0 / BR  (E13, DSENT)."""
    return np.asarray(frequency_hz_, dtype=float) / rate_bps


def max_rate_for_q(frequency_hz_, loaded_q_):
    """Largest on-off-keyed data rate a ring of loaded Q supports, BR ≤ f0 / Q  (E13 inverted)."""
    return np.asarray(frequency_hz_, dtype=float) / loaded_q_


# --- thermal tuning (DSENT; E11, E11b, E12) --------------------------------------------------------
def thermo_optic_shift_hz_per_k(frequency_hz_, dn_dt_per_k, group_index):
    """Resonance shift per kelvin in frequency, |df/dT| = f · (dn/dT) / n_g  (E12, from dλ/dT = λ·(dn/dT)/n_g)."""
    return np.asarray(frequency_hz_, dtype=float) * dn_dt_per_k / group_index


def heater_efficiency_hz_per_w(tuning_hz_per_k, heating_k_per_w):
    """Tuning efficiency of a heated ring, η = η_tune [Hz/K] · η_heat [K/W], in Hz/W (DSENT)."""
    return tuning_hz_per_k * heating_k_per_w


def heater_power_w(rings, shift_hz, efficiency_hz_per_w):
    """Heater power of `rings` rings each heated through `shift_hz`, rings · shift / η (DSENT's E11 and E11b
    per ring)."""
    return rings * np.asarray(shift_hz, dtype=float) / efficiency_hz_per_w


def tuning_power_nearest_channel_w(fsr_hz, efficiency_hz_per_w, banks):
    """Heater power of nearest-channel ('bit reshuffle') tuning: FSR/η per ring bank, whatever the
    number of rings in the bank (E11, DSENT)."""
    return banks * np.asarray(fsr_hz, dtype=float) / efficiency_hz_per_w


def nearest_channel_shift_hz(fsr_hz, channels, spacing_hz):
    """Largest red shift a ring needs under nearest-channel tuning: the widest gap between neighbouring channel
    slots around the FSR, max(spacing, FSR − (N−1)·spacing). When the channels fill the FSR this is FSR/N."""
    return np.maximum(spacing_hz, np.asarray(fsr_hz, dtype=float) - (np.asarray(channels) - 1) * spacing_hz)


def full_thermal_shift_hz(sigma_local_hz, sigma_system_hz, tuning_hz_per_k, t_min_k, t_max_k, t_k):
    """Worst-case red shift a heater must supply per ring under full thermal tuning:
    3·√(σ_local² + σ_sys²) + (T_max − T_min)·η_tune − (T − T_min)·η_tune  (E11b numerator, DSENT)."""
    return (3.0 * np.hypot(sigma_local_hz, sigma_system_hz)
            + (t_max_k - t_min_k) * tuning_hz_per_k - (t_k - t_min_k) * tuning_hz_per_k)


def tuning_power_full_thermal_w(rings, sigma_local_hz, sigma_system_hz, tuning_hz_per_k, heating_k_per_w,
                                t_min_k, t_max_k, t_k):
    """Heater power of full thermal tuning, per ring (E11b) × rings (DSENT)."""
    shift = full_thermal_shift_hz(sigma_local_hz, sigma_system_hz, tuning_hz_per_k, t_min_k, t_max_k, t_k)
    return rings * shift / heater_efficiency_hz_per_w(tuning_hz_per_k, heating_k_per_w)


def athermal_shift_hz(sigma_local_hz, sigma_system_hz):
    """Shift a heater must still supply on an athermal, untrimmed ring (temperature drift cancelled by the
    cladding, the fabrication offset not): only the 3σ fabrication variation, 3·√(σ_local² + σ_sys²)  (E11b
    without its temperature terms; photonics-4.md E84, not a DSENT option) [inferred]."""
    return 3.0 * np.hypot(sigma_local_hz, sigma_system_hz)


def athermal_trim_power_w(rings, trim_power_w):
    """Power of athermal rings whose fabrication offsets are trimmed (DSENT's AthermalWithTrim): no heater shift,
    only each ring's standing trim, rings · P_trim. DSENT charges 0, a one-time trim (photonics-4.md E83); a standing
    heater correction is ≈ 231 µW per device (Zortman et al., Opt. Express 2010; E85)."""
    return rings * np.asarray(trim_power_w, dtype=float)
