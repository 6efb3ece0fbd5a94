"""Micro-ring, receiver, modulator, laser and crosstalk kernels: published values, limits and consistency."""

import math

import numpy as np
import pytest

from photonics import crosstalk, laser, microring, modulator, receiver
from photonics.channel_grid import wrapped_detuning_hz
from core.units import w_to_dbm


def test_e13_modulator_q_limit_at_25g_1310nm():
    """DSENT (E13): Q ≤ f0/BR ≈ 9.2k at 25 Gbps, 1310 nm."""
    assert microring.max_q_for_rate(microring.frequency_hz(1310e-9), 25e9) == pytest.approx(9.2e3, rel=0.01)


def test_e12_thermo_optic_shift():
    """E12: dλ/dT = λ·(dn/dT)/n_g ≈ 0.069 nm/K at 1550 nm, n_g 4.2, dn/dT 1.86e-4 /K."""
    f0 = microring.frequency_hz(1550e-9)
    df = microring.thermo_optic_shift_hz_per_k(f0, 1.86e-4, 4.2)
    dlam_nm = df * 1550e-9 / f0 * 1e9  # |dλ| = λ·|df|/f
    assert dlam_nm == pytest.approx(0.069, abs=0.001)


def test_e17_quantum_limit():
    """E17: ideal OOK at BER 1e-9 needs ≈ 10 photons/bit, ≈ −44 dBm at 25 Gbps, 1310 nm."""
    assert receiver.quantum_limit_photons_per_bit(1e-9) == pytest.approx(10.0, abs=0.05)
    p = receiver.quantum_limit_w(25e9, microring.frequency_hz(1310e-9), 1e-9)
    assert float(w_to_dbm(p)) == pytest.approx(-44.0, abs=0.3)


def test_ber_q_round_trip():
    for ber in (1e-3, 1e-9, 1e-12, 1e-15):
        assert receiver.ber_from_q(receiver.q_from_ber(ber)) == pytest.approx(ber, rel=1e-6)
    assert receiver.q_from_ber(1e-12) == pytest.approx(7.034, abs=1e-3)


def test_thermal_noise_receiver_scales_with_q_and_sqrt_bandwidth():
    s1 = receiver.thermal_noise_sensitivity_w(25e9, 1e-12, np.inf, 1.0, 10e-12)
    # P = Q·i_n·√(0.75·BR)/R at infinite ER
    assert s1 == pytest.approx(7.034 * 10e-12 * math.sqrt(0.75 * 25e9), rel=1e-3)
    assert receiver.thermal_noise_sensitivity_w(100e9, 1e-12, np.inf, 1.0, 10e-12) == pytest.approx(2 * s1)


def test_e8_penalties_limits():
    assert float(modulator.ook_penalty_db(np.inf)) == pytest.approx(10 * math.log10(2))
    assert float(modulator.extinction_ratio_penalty_db(np.inf)) == 0.0
    # er = 3 (4.77 dB): PP_ER = 10·log10(4/2) = 3.01 dB; PP_OOK = 10·log10(6/4) = 1.76 dB
    assert float(modulator.extinction_ratio_penalty_db(3.0)) == pytest.approx(3.0103, abs=1e-4)
    assert float(modulator.ook_penalty_db(3.0)) == pytest.approx(1.7609, abs=1e-4)


def test_lorentzian_matches_exact_ring_near_resonance():
    """The Lorentzian drop/through forms (E4, E5) agree with the exact add-drop response (Bogaerts 2012) within
    a few % near a resonance of a high-finesse ring."""
    lam0, ng, neff, radius = 1550e-9, 4.2, 2.4, 10e-6
    length = microring.circumference_m(radius)
    a = float(microring.round_trip_amplitude(300.0, length))  # 3 dB/cm
    r1 = r2 = 0.98
    # a resonance: choose λ_res with integer m near λ0
    m = round(neff * length / lam0)
    lam_res = neff * length / m
    fwhm_m = microring.fwhm_exact_m(lam_res, ng, length, a, r1, r2)
    f0 = microring.frequency_hz(lam_res)
    fwhm_hz = f0 * fwhm_m / lam_res
    drop_peak = float(microring.drop_exact(2 * np.pi * m, a, r1, r2))
    thru_peak = float(microring.through_exact(2 * np.pi * m, a, r1, r2))
    for x in (0.0, 0.25, 0.5, 1.0, 2.0):  # detuning in FWHMs
        delta_hz = x * fwhm_hz
        # phase change for a frequency detuning uses the group index: dφ = 2π n_g L δf / c
        phi = 2 * np.pi * m + 2 * np.pi * ng * length * delta_hz / 299792458.0
        assert float(microring.drop_lorentzian(delta_hz, fwhm_hz, drop_peak)) == pytest.approx(
            float(microring.drop_exact(phi, a, r1, r2)), rel=0.03, abs=1e-4)
        assert float(microring.through_lorentzian(delta_hz, fwhm_hz, thru_peak)) == pytest.approx(
            float(microring.through_exact(phi, a, r1, r2)), rel=0.03, abs=1e-4)


def test_symmetric_add_drop_matches_exact_peak():
    """Coupled-mode result D0 = (1 − Q_L/Q_i)² against the exact peak drop of a weakly lossy symmetric ring."""
    lam, ng, length = 1310e-9, 4.0, microring.circumference_m(5e-6)
    loss_db_per_m = 700.0
    a = float(microring.round_trip_amplitude(loss_db_per_m, length))
    r = 0.99
    fwhm_m = microring.fwhm_exact_m(lam, ng, length, a, r, r)
    q_l = lam / fwhm_m
    q_i = float(microring.intrinsic_q(ng, lam, loss_db_per_m))
    assert float(microring.drop_peak_symmetric(q_l, q_i)) == pytest.approx(float(microring.drop_exact(0.0, a, r, r)),
                                                                          rel=0.02)


def test_all_pass_ring_is_lossless_when_a_is_one():
    phi = np.linspace(0, 4 * np.pi, 101)
    assert np.allclose(microring.through_exact(phi, 1.0, 0.9), 1.0)


def test_intrinsic_q_e3():
    """E3: Q_i = 2π n_g/(λ α): 1 dB/cm at 1550 nm, n_g 4.2 → α = 23.03 /m → Q_i ≈ 7.39e5."""
    assert float(microring.intrinsic_q(4.2, 1550e-9, 100.0)) == pytest.approx(7.39e5, rel=0.005)


def test_bending_fit_matches_phoenixsim_values():
    """UBC optimistic fit (PhoenixSim): 87.9 dB/cm at 5 µm, 1.28 dB/cm at 10 µm (R in µm, dB/cm)."""
    assert microring.bending_loss_db_per_m(5e-6, 1.044e9, 10.13, 1.2) / 100 == pytest.approx(87.9, rel=0.005)
    assert microring.bending_loss_db_per_m(10e-6, 1.044e9, 10.13, 1.2) / 100 == pytest.approx(1.28, rel=0.005)


def test_full_thermal_tuning_dsent():
    """E11b at T = T_min: 3·√(40² + 200²) GHz + 100 K × 10 GHz/K = 611.8 + 1000 GHz per ring; at 1 THz/mW → 1.61 mW."""
    p = microring.tuning_power_full_thermal_w(1, 40e9, 200e9, 10e9, 1e5, 280.0, 380.0, 280.0)
    assert p * 1e3 == pytest.approx(1.6118, abs=1e-3)
    # at the top of the range only the variation remains
    top = microring.tuning_power_full_thermal_w(1, 40e9, 200e9, 10e9, 1e5, 280.0, 380.0, 380.0)
    assert top == pytest.approx(microring.athermal_shift_hz(40e9, 200e9) / 1e15)


def test_crosstalk_table_matches_brute_force():
    """The prefix-sum table of worst-victim leakage equals an explicit sum over every victim, with FSR folding."""
    fsr, spacing, fwhm, rate = 3.976e12, 200e9, 35e9, 25e9
    table = crosstalk.worst_channel_leakage_by_count(24, spacing, fwhm, rate, fsr)
    for n in range(1, 25):
        idx = np.arange(n)
        off = (idx[None, :] - idx[:, None]) * spacing
        leak = crosstalk.aggressor_leakage(wrapped_detuning_hz(off, fsr), fwhm, rate)
        np.fill_diagonal(leak, 0.0)
        assert table[n - 1] == pytest.approx(leak.sum(axis=1).max() if n > 1 else 0.0, rel=1e-12, abs=1e-15)


def test_the_worst_victim_table_is_the_largest_sum_over_every_victim():
    """Effects of whole numbers (every sum exact in float64, in any order) over a grid of design points: each
    table entry is the largest, over the victims of an n-channel grid, of the sum over every other channel."""
    from photonics.channel_grid import worst_victim_sum_by_count

    rng = np.random.default_rng(2)
    m = 23
    per_offset = rng.integers(0, 1000, (m, 4, 3)).astype(float)
    table = worst_victim_sum_by_count(per_offset)
    assert table.shape == (4, 3, m)
    for n in range(1, m + 1):
        offsets = np.abs(np.arange(n)[None, :] - np.arange(n)[:, None])  # victim × channel
        sums = np.where((offsets > 0)[..., None, None], per_offset[offsets], 0.0).sum(axis=1)  # victim × points
        assert np.array_equal(table[..., n - 1], sums.max(axis=0))


def test_the_worst_victim_product_is_the_smallest_product_over_every_victim():
    """Transmissions that are powers of two (every product exact in float64, in any order): each entry of the
    product table is the smallest, over the victims of an n-channel grid, of the product over every other channel
    (a sum of dB, `worst_victim_sum_by_count`, taken as the transmission it is)."""
    from photonics.channel_grid import worst_victim_product_by_count

    rng = np.random.default_rng(3)
    m = 21
    per_offset = 2.0 ** -rng.integers(0, 6, (m, 5, 2)).astype(float)
    table = worst_victim_product_by_count(per_offset)
    assert table.shape == (5, 2, m)
    for n in range(1, m + 1):
        offsets = np.abs(np.arange(n)[None, :] - np.arange(n)[:, None])
        products = np.where((offsets > 0)[..., None, None], per_offset[offsets], 1.0).prod(axis=1)
        assert np.array_equal(table[..., n - 1], products.min(axis=0))


def test_crosstalk_aliasing_when_grid_exceeds_fsr():
    """A channel one FSR away sits on the victim's resonance again: leakage jumps once N·spacing passes the FSR."""
    fsr, spacing = 1.0e12, 100e9
    table = crosstalk.worst_channel_leakage_by_count(12, spacing, 20e9, 25e9, fsr)
    assert table[10] > 10 * table[9]


def test_leakage_keeps_its_precision_for_narrow_filters():
    """E6 against 60-digit arithmetic (mpmath) over filters of 1.9 MHz (Q 10⁸) to 200 GHz, bit rates of 1 Mbit/s to
    1 Tbit/s and detunings up to 2 THz: within 1e-13 wherever θ = 2π·Δf/BR < 100 rad, through the narrow filters
    (2πν below 0.1) where E6's two terms cancel to O(2πν) — 1.5e-6 apart at Q 10⁸ and 1 Tbit/s if evaluated as
    written. Beyond 100 rad the detuning's own rounding moves θ by ~ulp(θ), and nothing better is defined. As
    2πν → 0 the leakage tends to πν (a narrow filter passes its width's share of the data's spectrum)."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 60

    def exact(df, fwhm, rate):
        df, fwhm, rate = mp.mpf(float(df)), mp.mpf(float(fwhm)), mp.mpf(float(rate))
        beta, x = 2 * df / fwhm, mp.pi * fwhm / rate
        bracket = (1 - beta ** 2) * (1 - mp.exp(-x) * mp.cos(x * beta)) + 2 * beta * mp.exp(-x) * mp.sin(x * beta)
        return 1 / (1 + beta ** 2) - bracket / (x * (1 + beta ** 2) ** 2)

    detunings = np.r_[0.0, np.geomspace(1e4, 2e12, 24)]
    narrow = 0
    for fwhm in np.geomspace(1.9e6, 2e11, 12):
        for rate in np.geomspace(1e6, 1e12, 9):
            got = crosstalk.aggressor_leakage(detunings, fwhm, rate)
            for df, value in zip(detunings, got):
                if 2 * np.pi * df / rate < 100:
                    assert value == pytest.approx(float(exact(df, fwhm, rate)), rel=1e-13), (fwhm, rate, df)
                    narrow += np.pi * fwhm / rate < crosstalk.NARROW
    assert narrow > 50
    assert crosstalk.aggressor_leakage(0.0, 1e6, 1e12) == pytest.approx(np.pi * 1e6 / 1e12 / 2, rel=1e-5)
    assert type(crosstalk.aggressor_leakage(1e9, 1e6, 1e12)) is type(crosstalk.aggressor_leakage(1e9, 1e9, 1e9))


def test_leakage_tends_to_lorentzian_for_wide_filters():
    """E6: as the filter gets much wider than the data spectrum (ν → ∞) X → 1/(1+β²)."""
    x = crosstalk.aggressor_leakage(100e9, 100e9, 1e6)
    assert x == pytest.approx(1 / (1 + 4), rel=1e-3)


def test_laser_helpers():
    assert laser.weakest_line_power_w(2e-3, 3.0103) == pytest.approx(1e-3, rel=1e-4)
    assert laser.lit_lines("comb", 16, 8) == 16 and laser.lit_lines("dfb", 16, 8) == 8
    assert laser.electrical_power_w(1e-3, 0.25) == pytest.approx(4e-3)
    assert float(laser.split_loss_db(2)) == pytest.approx(3.0103, abs=1e-4)


def test_min_channel_spacing_is_where_the_margin_reaches_zero():
    import dataclasses

    from photonics.link_design import LaserSection, LinkDesign
    from photonics.link import evaluate, min_channel_spacing_hz

    d = LinkDesign(laser=LaserSection(power_per_line=5e-3))  # a link that closes with margin to spare
    spacing = min_channel_spacing_hz(d)
    assert spacing is not None and spacing < d.link.channel_spacing

    def margin(s):
        return evaluate(dataclasses.replace(d, link=dataclasses.replace(d.link, channel_spacing=s))).margin_db

    assert margin(spacing) == pytest.approx(0.0, abs=0.02)
    assert margin(spacing * 0.98) < 0 < margin(spacing * 1.02)


def test_min_channel_spacing_none_when_nothing_closes():
    from photonics.link_design import LaserSection, LinkDesign
    from photonics.link import min_channel_spacing_hz

    assert min_channel_spacing_hz(LinkDesign(laser=LaserSection(power_per_line=0.1e-3))) is None


@pytest.mark.parametrize("fwhm_hz, detuning_hz", [(193e9, 40e9), (35e9, 200e9), (20e9, 25e9), (100e9, 0.0)])
def test_e6_is_the_nrz_spectrum_through_a_lorentzian(fwhm_hz, detuning_hz):
    """E6 (Bahadori JLT 2016) in closed form equals the power of a random NRZ signal (spectrum ∝ sinc²(f/BR))
    passed by a Lorentzian filter detuned by Δ, ∫ sinc²(f/BR)/(1 + (2(f−Δ)/FWHM)²) df / BR, integrated here
    numerically over ±100 BR."""
    from scipy.integrate import quad

    br = 10e9

    def integrand(f):
        return np.sinc(f / br) ** 2 / (1 + (2 * (f - detuning_hz) / fwhm_hz) ** 2)

    total = sum(quad(integrand, a, a + br, limit=100)[0] for a in np.arange(-100 * br, 100 * br, br)) / br
    assert crosstalk.aggressor_leakage(detuning_hz, fwhm_hz, br) == pytest.approx(total, rel=2e-4)


def test_unused_cw_comb_lines_reach_the_fiber_with_all_pass_modulators():
    """All-pass modulators: 56 unused CW lines of a 64-line comb enter the fiber at (almost) the full line power.
    Line p (8 ≤ p < 64) passes the 8 modulators at their detunings (p − j) × 200 GHz folded by the 3.976 THz FSR,
    T = (t0 + x²)/(1 + x²), x = 2δ/FWHM, t0 = (2·6000/Q_i − 1)² (all-pass ring), plus 0.01 dB each; on top, the
    transmit waveguide, bends and output coupler, but no modulator of its own. Add-drop modulators keep them on the
    laser bus."""
    import dataclasses

    from photonics.link_design import LaserSection, LinkDesign, ModulatorSection
    from photonics.link import evaluate
    from core.units import dbm_to_w, w_to_dbm

    base = LinkDesign(laser=LaserSection(lines=64, power_per_line=10e-3))
    add_drop, all_pass = evaluate(base), evaluate(dataclasses.replace(base, modulator=ModulatorSection(kind="all-pass")))
    ring, ls = all_pass.ring, base.loss
    fwhm = 299792458.0 / 1310e-9 / 6000
    t0 = (2 * 6000 / ring.intrinsic_q - 1) ** 2
    offsets = (np.arange(8, 64)[:, None] - np.arange(8)[None, :]) * 200e9
    detuning = (offsets + ring.fsr_hz / 2) % ring.fsr_hz - ring.fsr_hz / 2
    x2 = (2 * detuning / fwhm) ** 2
    passing = (10 * np.log10((1 + x2) / (t0 + x2)) + base.ring.through_excess_loss).sum(axis=1)
    cw_dbm = all_pass.launch_dbm + 3.0 - (ls.tx_waveguide_length * 100 + 4 * 0.02 + ls.coupler) - passing
    data_dbm = all_pass.launch_dbm + 3.0 - sum(i.value_db for i in all_pass.ledger[:8])
    expected = float(w_to_dbm(8 * dbm_to_w(data_dbm) + np.sum(dbm_to_w(cw_dbm))))
    assert all_pass.fiber_launch_dbm == pytest.approx(expected, abs=1e-9)
    assert all_pass.fiber_launch_dbm > add_drop.fiber_launch_dbm + 8
    assert "eye_safety" in [v.name for v in all_pass.violations]
    assert "modulator drop port" in [i.name for i in add_drop.ledger]
    assert "modulator drop port" not in [i.name for i in all_pass.ledger]


def test_crosstalk_counts_every_line_in_the_fiber_and_the_comb_envelope():
    """Crosstalk of the weakest comb line: aggressors at the mean power, 10^(flatness/10) above the victim; with
    all-pass modulators every comb line in the fiber is an aggressor."""
    import dataclasses

    from photonics.link_design import LaserSection, LinkDesign, ModulatorSection
    from photonics.link import evaluate

    d = LinkDesign(laser=LaserSection(lines=16, flatness=3.0))
    flat = dataclasses.replace(d, laser=LaserSection(lines=16, flatness=0.0))
    leak = [evaluate(e).crosstalk_leakage for e in (d, flat)]
    assert leak[0] == pytest.approx(leak[1] * 10 ** 0.3, rel=1e-12)
    table = crosstalk.worst_channel_leakage_by_count(16, 200e9, evaluate(d).ring.filter_fwhm_hz, 25e9,
                                                     evaluate(d).ring.fsr_hz)
    all_pass = evaluate(dataclasses.replace(d, modulator=ModulatorSection(kind="all-pass")))
    assert all_pass.crosstalk_leakage == pytest.approx(table[15] * 10 ** 0.3, rel=1e-12)
    assert evaluate(d).crosstalk_leakage == pytest.approx(table[7] * 10 ** 0.3, rel=1e-12)


def test_min_laser_power_is_the_line_power_less_the_margin():
    """Where the aggregate cap does not bind, the least line power that closes is today's minus the margin, and a
    design run at it has zero margin."""
    import dataclasses

    from photonics.link_design import LinkDesign
    from photonics.link import evaluate
    from core.units import dbm_to_w

    d = LinkDesign()
    est = evaluate(d)
    assert not est.aggregate_cap_binds
    assert est.min_laser_power_per_line_dbm == pytest.approx(est.laser_line_dbm - est.margin_db, abs=1e-9)
    at_min = dataclasses.replace(d, laser=dataclasses.replace(
        d.laser, power_per_line=float(dbm_to_w(est.min_laser_power_per_line_dbm))))
    assert evaluate(at_min).margin_db == pytest.approx(0.0, abs=1e-9)


def test_far_tail_form_of_the_through_loss():
    """E20's approximation 4.343·(1 − t0)·(FWHM/2δ)² holds where (2δ/FWHM)² ≫ 1: within 1 % of the Lorentzian at
    200 GHz from a 19.3 GHz-wide ring (x² = 427), and 44 % high half a FWHM away (4.34 against 3.01 dB)."""
    exact = float(microring.through_loss_db(200e9, 19.34e9, 0.0))
    assert float(microring.through_tail_loss_db(200e9, 19.34e9, 0.0)) == pytest.approx(exact, rel=0.01)
    assert float(microring.through_tail_loss_db(9.67e9, 19.34e9, 0.0)) == pytest.approx(
        1.44 * float(microring.through_loss_db(9.67e9, 19.34e9, 0.0)), rel=0.01)
