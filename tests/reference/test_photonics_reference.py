"""Reference cases R1–R7 of the project's photonics reference (shared/reference/photonics.md), each with its
published source and the tolerance it is checked to."""

import math

import numpy as np
import pytest

from photonics import budget, crosstalk, microring, packaging, receiver
from photonics.link_design import LinkDesign, LinkSection, PackageSection
from photonics.link import evaluate


def test_r1_gigabit_ethernet_reach():
    """*Introduction to Information Optics*, Table 12.3: launch −8 dBm, sensitivity −22 dBm, system margin 6 dB,
    connectors 2 dB, fiber 0.6 dB/km (splices included) → 10.0 km."""
    reach_m = budget.max_length_m(-8.0, -22.0, 0.0, 2.0, 0.6e-3, system_margin_db=6.0)
    assert reach_m == pytest.approx(10.0e3, rel=1e-9)


@pytest.mark.parametrize("energy_pj, power_w", [(4.96, 5.08), (5.56, 5.69)])
def test_r2_teraphy_2021(energy_pj, power_w):
    """TeraPHY (OFC 2021): 8 ports × 8 λ × 16 Gbps = 1.024 Tbps per direction; 4.96–5.56 pJ/bit → 5.08–5.69 W.
    Built as a design point: 8 fibers per direction, 8 λ per fiber at 16 Gbps."""
    d = LinkDesign(link=LinkSection(data_rate=16e9, wavelengths_per_fiber=8, fibers_per_direction=8))
    est = evaluate(d)
    assert est.capacity_bps == pytest.approx(1.024e12, rel=1e-12)
    assert packaging.io_power_w(est.capacity_bps, energy_pj * 1e-12) == pytest.approx(power_w, abs=0.005)


def test_r3_intel_oci():
    """Intel OCI chiplet (2024): 64 channels × 32 Gbps per direction = 8 fiber pairs × 8 λ (200 GHz spacing) =
    2.048 Tbps per direction, 4.096 Tbps both directions (shared/README.md correction of 2026-12-01: 32, not 64,
    Gbps per λ). The default rings pass 32 Gbps (f0/Q = 38 Gbps for the Q 6000 modulator, E13); the
    Ge-receiver fit needs more light than the default 3 mW comb gives, so the case uses a 10 mW DFB array, as
    the OCI's on-chip lasers are."""
    from photonics.link_design import LaserSection

    d = LinkDesign(link=LinkSection(data_rate=32e9, wavelengths_per_fiber=8, fibers_per_direction=8),
                   laser=LaserSection(kind="dfb", power_per_line=10e-3, flatness=0.0))
    est = evaluate(d)
    assert est.feasible, est.violations
    assert est.capacity_bps == pytest.approx(2.048e12, rel=1e-12)
    assert 2 * est.capacity_bps == pytest.approx(4.096e12, rel=1e-12)  # both directions


def test_r4_fsr_5um_ring():
    """FSR of a 5 µm ring, n_g 4.2, at 1550 nm: λ²/(n_g·2πR) = 18.2 nm."""
    fsr = microring.fsr_wavelength_m(1550e-9, 4.2, microring.circumference_m(5e-6))
    assert fsr * 1e9 == pytest.approx(18.2, abs=0.05)


@pytest.mark.parametrize("spacing_nm, expected_db", [(0.32, 11.96), (0.64, 9.36), (0.96, 7.42), (1.6, 4.80),
                                                      (3.2, 1.95)])
def test_r5_crosstalk_penalty(spacing_nm, expected_db):
    """Bahadori JLT 2016 crosstalk model (E6–E7): demux Q 1000 at 1550 nm, 10 Gbps, BER 1e-9 (Q_BER 5.998),
    er 13 (linear), 8 aggressors at ±1..±4 spacings. Values computed from the published model (pinning the
    implementation), to ±0.01 dB."""
    f0 = microring.frequency_hz(1550e-9)
    fwhm = microring.fwhm_hz(f0, 1000.0)
    spacing_hz = f0 * spacing_nm / 1550.0
    ks = np.array([-4, -3, -2, -1, 1, 2, 3, 4])
    q_ber = receiver.q_from_ber(1e-9)
    assert q_ber == pytest.approx(5.998, abs=5e-4)
    leak = crosstalk.aggressor_leakage(ks * spacing_hz, fwhm, 10e9).sum()
    assert crosstalk.penalty_db(leak, q_ber, 13.0) == pytest.approx(expected_db, abs=0.01)


def test_r6_feasible_wavelengths():
    """PhoenixSim / Hendry HOTI 2014 (E10): P_max 20 dBm, S −13.1 dBm, ΣPP + ΣIL = 15 dB → N ≤ 64."""
    assert budget.max_wavelengths_closed_form(20.0, -13.1, 7.5, 7.5) == 64
    # the same bound from the wavelength-count search on the budget kernel
    counts = np.arange(1, 200)
    margins = budget.margin_db(budget.launch_power_dbm(np.inf, 20.0, counts), 15.0, 0.0, -13.1)
    assert budget.largest_feasible_count(margins) == 64
    # and from the linear-power side the count search compares: the power after the rings against the need
    after_rings = budget.power_after_rings_mw(line_power_mw=np.inf, aggregate_cap_mw=10 ** 2.0, lines_in_bus=counts,
                                              rings_transmission=1.0, penalty_factor=1.0)
    assert np.count_nonzero(after_rings >= 10 ** ((15.0 - 13.1) / 10)) == 64


def test_r6_sensitivity_is_the_ge_photodiode_fit_at_25g():
    """R6's −13.1 dBm is the PhoenixSim Ge-photodiode fit (E16) at 25 Gbps with its defaults (ER 12 dB)."""
    s = receiver.ge_photodiode_sensitivity_w(25e9, 10 ** 1.2)
    assert 10 * math.log10(s / 1e-3) == pytest.approx(-13.1, abs=0.05)


def test_r7_nearest_channel_tuning():
    """DSENT (E11): FSR 3.976 THz, η_tune·η_heat = 1 THz/mW, one Tx bank + one Rx bank → 7.95 mW, whatever N."""
    eta_hz_per_w = 1e12 / 1e-3
    assert microring.tuning_power_nearest_channel_w(3.976e12, eta_hz_per_w, 2) * 1e3 == pytest.approx(7.95, abs=0.005)


def test_r7_fsr_comes_from_dsent_ring_defaults():
    """DSENT's ring (R 3 µm, n_g 4) has FSR c/(n_g·2πR) = 3.976 THz, the R7 input. With DSENT's heater
    (10 GHz/K × 1e5 K/W = 1 THz/mW) and a grid that fills the FSR (E11's setting), one fiber pair's two banks
    need 7.95 mW, whatever the number of channels (10 mW comb lines, so the budget closes every channel and the
    heaters of every ring run)."""
    from photonics.link_design import LaserSection, TuningSection
    from photonics.link import tuning_hz_per_k

    for n in (4, 8, 16):
        fsr = 299792458.0 / (4.0 * 2 * math.pi * 3e-6)
        d = LinkDesign(link=LinkSection(fibers_per_direction=1, wavelengths_per_fiber=n, channel_spacing=fsr / n),
                       package=PackageSection())
        # DSENT's 1 THz/mW heater: η_heat = 1e15 Hz/W over the E12 shift per kelvin
        d = LinkDesign(link=d.link, package=d.package, laser=LaserSection(power_per_line=10e-3),
                       tuning=TuningSection(heating_efficiency=1e15 / tuning_hz_per_k(d)))
        est = evaluate(d)
        assert est.ring.fsr_hz == pytest.approx(3.976e12, rel=1e-3)
        assert est.power_w["tuning"] * 1e3 == pytest.approx(7.95, abs=0.01)


def test_nearest_channel_grid_narrower_than_the_fsr():
    """A grid covering only part of the FSR leaves a gap a bank may have to cross: per ring max(Δ, FSR − (N−1)Δ)."""
    assert microring.nearest_channel_shift_hz(4e12, 8, 200e9) == pytest.approx(4e12 - 7 * 200e9)
    assert microring.nearest_channel_shift_hz(4e12, 20, 200e9) == pytest.approx(200e9)
    # a grid that fills the FSR: 2 banks × 20 rings × FSR/20 is DSENT's FSR/η per bank (E11)
    shift = microring.nearest_channel_shift_hz(4e12, 20, 200e9)
    assert microring.heater_power_w(2 * 20, shift, 1e15) == pytest.approx(
        microring.tuning_power_nearest_channel_w(4e12, 1e15, 2))
