"""Reference cases R8–R17 and the literature checks of the second physical-layer reference
(shared/reference/photonics-2.md), each with its source and the tolerance it is checked to. Values marked [inferred]
there were computed from the published formula: they pin an implementation, they are not measurements."""

import math

import numpy as np
import pytest

from photonics import amplifier, fec, fiber, filtering, microring, modulation, noise, packaging, receiver, variation
from photonics.link_design import (FiberSection, LaserSection, LinkDesign, LinkSection, LossSection, ReceiverSection,
                              TransmitterSection)
from photonics.link import evaluate
from photonics.channel_grid import wrapped_detuning_hz

F0_1550 = 299792458.0 / 1550e-9


# --- E18: the drop filter's own ISI -------------------------------------------------------------------------------
@pytest.mark.parametrize("delta, expected_db", [(1.0, 1.577), (0.5, 3.048)])
def test_r8_filter_isi_energy_model(delta, expected_db):
    """R8: E18a (PhoenixSim's residual-energy model, Bahadori) at Δ = FWHM/BR = 1 and 0.5 → 1.577 / 3.048 dB, ±0.01."""
    assert float(filtering.energy_penalty_db(delta)) == pytest.approx(expected_db, abs=0.01)


@pytest.mark.parametrize("delta", [0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0])
def test_e18a_is_the_nrz_pulse_through_the_lorentzian(delta):
    """E18a equals the integral of the NRZ pulse's power spectrum through the Lorentzian,
    ∫ sinc²(f/BR)/(1 + (2f/FWHM)²) df / BR, integrated numerically over ±200·BR: within 0.01 dB for Δ = 0.25 … 5
    (photonics-2 §1: 5.125 dB at 0.25, 1.577 dB at 1)."""
    from scipy.integrate import quad

    br, fwhm = 1.0, delta

    def integrand(f):
        return np.sinc(f / br) ** 2 / (1 + (2 * f / fwhm) ** 2)

    passed = 2 * sum(quad(integrand, a, a + br, limit=100)[0] for a in np.arange(0.0, 200 * br, br)) / br
    assert float(filtering.energy_penalty_db(delta)) == pytest.approx(-10 * math.log10(passed), abs=0.01)


def test_r9_filter_isi_lab_fit():
    """R9: E18c, PhoenixSim `LabTruncationPPModel` coefficients, at Δ = 2 → 0.079 ± 0.001 dB (the value its own
    `main` prints); 0.04 dB beyond Δ = 3."""
    assert float(filtering.lab_fit_penalty_db(2.0)) == pytest.approx(0.079, abs=0.001)
    assert float(filtering.lab_fit_penalty_db(4.0)) == pytest.approx(0.04)


@pytest.mark.parametrize("delta, energy, eye, lab", [(0.5, 3.048, 2.334, 4.509), (1.0, 1.577, 0.393, 0.976),
                                                     (1.5, 1.025, 0.079, 0.237), (2.0, 0.751, 0.016, 0.079),
                                                     (3.0, 0.487, 0.0, 0.043)])
def test_e18_model_table(delta, energy, eye, lab):
    """The E18 table of photonics-2 §1 ([inferred] from the formulas), ±0.001 dB: the models disagree by up to ~1 dB
    near Δ = 1, which is why the design file names the model."""
    assert float(filtering.energy_penalty_db(delta)) == pytest.approx(energy, abs=1e-3)
    assert float(filtering.eye_penalty_db(delta)) == pytest.approx(eye, abs=1e-3)
    assert float(filtering.lab_fit_penalty_db(delta)) == pytest.approx(lab, abs=1e-3)


# --- E19–E20: rings passed at their own detuning -------------------------------------------------------------------
def test_r10_one_passed_ring_is_dsents_flat_figure():
    """R10: Q_L 10⁴ at 193.4 THz (FWHM 19.3 GHz), t0 = 0, one neighbour at 200 GHz → 0.0101 dB (DSENT's default
    0.01 dB per passed ring), ±1e-4 dB."""
    fwhm = 193.4e12 / 1e4
    assert float(microring.through_loss_db(200e9, fwhm, 0.0)) == pytest.approx(0.0101, abs=1e-4)


def test_r10_seven_rings_folded_by_the_fsr():
    """Seven rings at k·200 GHz (k = 1…7) folded by FSR = 1.6 THz, i.e. at ±200, ±400, ±600 and 800 GHz → 0.028 dB in
    all (photonics-2 §2, quoted to three decimals; 0.0282 by hand); the grid fills the FSR, so every channel of the
    bus is the worst one and the bus table gives the same."""
    fwhm = 193.4e12 / 1e4
    k = np.arange(1, 8)
    folded = microring.through_loss_db(wrapped_detuning_hz(k * 200e9, 1.6e12), fwhm, 0.0).sum()
    by_hand = sum(10 * math.log10(1 + (fwhm / (2 * d)) ** 2) for d in (200e9, 200e9, 400e9, 400e9, 600e9, 600e9,
                                                                         800e9))
    assert folded == pytest.approx(by_hand, rel=1e-12)
    assert folded == pytest.approx(0.028, abs=5e-4)
    table = microring.bus_through_loss_by_count(8, 200e9, fwhm, 0.0, 0.0, 1.6e12)
    assert table[7] == pytest.approx(folded, rel=1e-12)


def test_sixteen_channels_at_50_ghz_cost_what_their_detunings_say():
    """Issue 9: 16 λ at 50 GHz were charged 15 × the loss of a ring one channel away, 7.74 dB per bus; at their own
    detunings the middle channel passes rings at 1…7 × 50 GHz on each side and one at 8 × 50 GHz: ≈ 1.72 dB on the
    receive bus (Q 6500 filters, their tails alone: the default excess per ring is 0 dB), by hand."""
    d = LinkDesign(link=LinkSection(wavelengths_per_fiber=16, channel_spacing=50e9), laser=LaserSection(lines=16))
    est = evaluate(d)
    fwhm, t0 = est.ring.filter_fwhm_hz, est.ring.filter_on_resonance

    def ring_db(detuning_hz):
        x2 = (2 * detuning_hz / fwhm) ** 2
        return 10 * math.log10((1 + x2) / (t0 + x2))

    by_hand = 2 * sum(ring_db(k * 50e9) for k in range(1, 8)) + ring_db(8 * 50e9)
    receive = next(item.value_db for item in est.ledger if item.name == "rings passed, receive")
    assert receive == pytest.approx(by_hand, rel=1e-9)
    assert receive == pytest.approx(1.57, abs=0.01)
    assert 15 * ring_db(50e9) == pytest.approx(7.59, abs=0.01)  # what the nearest-channel charge was


# --- E22–E25: PAM4, OMA ------------------------------------------------------------------------------------------
def test_r11_pam4_ber_at_the_kp4_q():
    """R11: Gray PAM4 at eye Q 3.414 → BER 2.40e-4 ± 1 % (the KP4 threshold, E22)."""
    assert modulation.bit_error_ratio(4, 3.414) == pytest.approx(2.40e-4, rel=0.01)


def test_nrz_q_for_the_kr4_threshold():
    """NRZ Q for BER 5e-5 = 3.8906 (IEEE 802.3 Eq. 95-1 usage, P802.3cd reflector), ±1e-4."""
    assert modulation.eye_q_for_ber(2, 5e-5) == pytest.approx(3.8906, abs=1e-4)
    assert receiver.q_from_ber(5e-5) == pytest.approx(3.8906, abs=1e-4)


def test_tdecq_reference_q():
    """E25: Q_t = 3.414 solves 1.5·Q(Q_t) = 4.8e-4, the target SER of TDECQ (Vitex) [inferred], ±1 %."""
    assert modulation.symbol_error_ratio(4, 3.414) == pytest.approx(4.8e-4, rel=0.01)


def test_oma_from_average_power():
    """E24: P_avg 0 dBm at ER 3.5 dB → OMA −1.16 dBm ± 0.01 [inferred]; and back."""
    er = 10 ** 0.35
    oma = float(modulation.oma_from_average_w(1e-3, er))
    assert 10 * math.log10(oma / 1e-3) == pytest.approx(-1.16, abs=0.01)
    assert float(modulation.average_from_oma_w(oma, er)) == pytest.approx(1e-3, rel=1e-12)


def test_pam4_costs_4_77_db_optical_at_equal_oma():
    """E23: PAM4 against NRZ at equal OMA: 9.54 dB electrical, 4.77 dB optical ("≈9.5 dB electrical, 4.7 dB
    optical", MapYourTech); a thermal-noise receiver at the same symbol rate and eye Q needs 3× the power."""
    assert modulation.level_spacing_penalty_db(4) == pytest.approx(10 * math.log10(3), abs=1e-12)
    assert 2 * modulation.level_spacing_penalty_db(4) == pytest.approx(9.54, abs=0.005)
    q = 7.0
    nrz = receiver.thermal_noise_sensitivity_w(25e9, modulation.bit_error_ratio(2, q), np.inf, 1.0, 10e-12)
    pam4 = receiver.thermal_noise_sensitivity_w(25e9, modulation.bit_error_ratio(4, q), np.inf, 1.0, 10e-12, levels=4)
    assert 10 * math.log10(pam4 / nrz) == pytest.approx(4.77, abs=0.005)


# --- E27: FEC ------------------------------------------------------------------------------------------------------
def test_r12_kp4_frame_error_ratio():
    """R12: E27, RS(544,514), t = 15, 10-bit symbols, at BER 2.4e-4 → FER ≈ 8e-13 (within a factor 1.1); KR4
    RS(528,514), t = 7, at 5e-5 → ≈ 4e-10 [inferred]."""
    kp4, kr4 = fec.CODES["kp4"], fec.CODES["kr4"]
    assert fec.frame_error_ratio(2.4e-4, kp4.n, kp4.t, kp4.symbol_bits) == pytest.approx(8e-13, rel=0.1)
    assert fec.frame_error_ratio(5e-5, kr4.n, kr4.t, kr4.symbol_bits) == pytest.approx(4e-10, rel=0.1)


def test_ieee_rs_codes_match_an846():
    """Intel AN 846 §5.2–5.3: KR4 RS(528,514) t = 7, 5280-bit codeword, 2.72 % overhead; KP4 RS(544,514) t = 15,
    5440 bits, 5.84 %; one KP4 codeword at 106.25 Gb/s lasts 51.2 ns [inferred]."""
    kr4, kp4 = fec.CODES["kr4"], fec.CODES["kp4"]
    assert (kr4.n, kr4.k, kr4.t, kr4.codeword_bits) == (528, 514, 7, 5280)
    assert (kp4.n, kp4.k, kp4.t, kp4.codeword_bits) == (544, 514, 15, 5440)
    assert fec.overhead(kr4.n, kr4.k) == pytest.approx(0.0272, abs=5e-5)
    assert fec.overhead(kp4.n, kp4.k) == pytest.approx(0.0584, abs=5e-5)
    assert fec.codeword_time_s(kp4.codeword_bits, 106.25e9) == pytest.approx(51.2e-9, rel=1e-12)


# --- E28–E29: chromatic dispersion ---------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon, expected_db", [(0.306, 1.00), (0.491, 2.00)])
def test_r13_bellcore_dispersion_criterion(epsilon, expected_db):
    """R13: E29c at ε = 0.306 / 0.491 → 1.00 / 2.00 dB ± 0.01 (the GR-253 limits as commonly quoted)."""
    assert float(fiber.penalty_bellcore_db(epsilon)) == pytest.approx(expected_db, abs=0.01)


def test_g652_dispersion_at_1550():
    """E28 with S0 = 0.092 ps/(nm²·km), λ0 = 1312 nm → D(1550) = 17.3 ps/(nm·km), within 17 ± 1 of the G.652 text
    (Cisco)."""
    d = fiber.dispersion_s_per_m2(1550e-9, 1312e-9, 92.0) / 1e-6
    assert d == pytest.approx(17.3, abs=0.05)
    assert d == pytest.approx(17.0, abs=1.0)


def test_the_three_dispersion_models_disagree():
    """10 Gb/s, 17 ps/(nm·km), 10 km, σ_λ = 0.1 nm (ε = 0.17) → E29a 1.35, E29b 0.83, E29c 0.36 dB ± 0.01
    [inferred]: the spread is why the design file names the model."""
    eps = float(fiber.spread_product(10e9, 10e3, 17e-6, 0.1e-9))
    assert eps == pytest.approx(0.17, rel=1e-9)
    assert float(fiber.penalty_agrawal_db(eps)) == pytest.approx(1.35, abs=0.01)
    assert float(fiber.penalty_agrawal_tx_db(eps)) == pytest.approx(0.83, abs=0.01)
    assert float(fiber.penalty_bellcore_db(eps)) == pytest.approx(0.36, abs=0.01)


# --- E30: RIN ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rin, q, expected_db", [(-130.0, 7.034, 0.42), (-130.0, 3.49, 0.10), (-140.0, 7.034, 0.040)])
def test_r14_rin_penalty(rin, q, expected_db):
    """R14: E30 over Δf = 18.75 GHz (0.75 × 25 Gb/s): −130 dB/Hz at Q 7.034 → 0.42 dB; at Q 3.49 → 0.10 dB;
    −140 dB/Hz at Q 7.034 → 0.040 dB [inferred], ±0.01 dB."""
    assert float(noise.rin_penalty_db(rin, 18.75e9, q)) == pytest.approx(expected_db, abs=0.01)


def test_rin_referred_to_oma():
    """E26: at high ER the OMA is twice the average power, so RIN_OMA = RIN_avg − 6 dB; and back."""
    assert float(noise.rin_average_from_oma_db(-136.0, 1.0, 2.0)) == pytest.approx(-136.0 + 20 * math.log10(2))


# --- E31: IEEE channel insertion loss ------------------------------------------------------------------------------
@pytest.mark.parametrize("connection_db, loss_db_per_km, length_m, table_db", [
    (1.5, 3.5, 100.0, 1.9),    # 400GBASE-SR8, OM4 (Cl. 138): 1.85 → 1.9 dB
    (1.5, 3.5, 400.0, 2.9),    # 10GBASE-SR, OM4 (Cl. 52)
    (2.75, 0.5, 500.0, 3.0),   # 800GBASE-DR8, SMF (802.3df)
    (3.0, 0.5, 2000.0, 4.0),   # 100GBASE-FR1, SMF 1310 nm (Cl. 140)
])
def test_r15_channel_insertion_loss(connection_db, loss_db_per_km, length_m, table_db):
    """R15: E31, connection allocation + α·L reproduces the IEEE 802.3 maximum channel insertion losses (TIA FOTC,
    China-TSCOM), ±0.05 dB (the standards round to 0.1 dB)."""
    assert float(fiber.channel_insertion_loss_db(connection_db, loss_db_per_km / 1e3, length_m)) == pytest.approx(
        table_db, abs=0.05)


def _channel_budget(connection_db, loss_db_per_km, channel_il_db, wavelength, fiber_type):
    """A point-to-point link whose power budget allows exactly the standard's channel insertion loss: launch 0 dBm,
    sensitivity −IL, the connection allocation as a named loss, no penalties (an ideal, fast transmitter and receiver:
    the standards allocate penalties apart from the insertion loss)."""
    return LinkDesign(
        link=LinkSection(kind="point-to-point", data_rate=25e9, wavelength=wavelength, fibers_per_direction=1),
        laser=LaserSection(kind="vcsel" if fiber_type == "mmf" else "dfb", rin=-math.inf),
        fiber=FiberSection(type=fiber_type, dispersion_model="none", **({"modal_noise": 0.0} if fiber_type == "mmf"
                                                                       else {})),
        loss=LossSection(connectors=0, fiber_length=1.0, fiber_loss=loss_db_per_km / 1e3,
                         extra_losses=f"connection allocation: {connection_db} dB"),
        transmitter=TransmitterSection(launch_power=1e-3, extinction_ratio=math.inf, bandwidth=1e13),
        receiver=ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-channel_il_db / 10),
                                 bandwidth_to_symbol_rate=10.0))


@pytest.mark.parametrize("connection_db, loss_db_per_km, channel_il_db, reach_m, wavelength, fiber_type", [
    (1.5, 3.5, 2.9, 400.0, 850e-9, "mmf"),      # 10GBASE-SR over OM4
    (2.75, 0.5, 3.0, 500.0, 1310e-9, "smf"),    # 800GBASE-DR8
    (3.0, 0.5, 4.0, 2000.0, 1310e-9, "smf"),    # 100GBASE-FR1
])
def test_standard_channel_budgets_give_the_standard_reach(connection_db, loss_db_per_km, channel_il_db, reach_m,
                                                          wavelength, fiber_type):
    """Through the whole point-to-point budget: a link allowed the standard's channel insertion loss reaches the
    standard's length exactly (TIA FOTC tables; E31 solved for L)."""
    est = evaluate(_channel_budget(connection_db, loss_db_per_km, channel_il_db, wavelength, fiber_type))
    assert est.reach.fiber_reach_m["loss"] == pytest.approx(reach_m, rel=1e-9)
    if fiber_type == "smf":
        assert est.max_fiber_length_m == pytest.approx(reach_m, rel=1e-9)


def _gaussian_channel_isi_db(rate_baud: float, rise_s: float) -> float:
    """F27 by hand with math.erf, summed over neighbours: the worst-case NRZ eye at the symbol centre of a Gaussian
    channel whose 10–90 % rise time is `rise_s` (σ = rise/2.563)."""
    period, sigma = 1.0 / rate_baud, rise_s / 2.563
    pulse = lambda t: 0.5 * (math.erf((t + period / 2) / (math.sqrt(2) * sigma))  # noqa: E731
                             - math.erf((t - period / 2) / (math.sqrt(2) * sigma)))
    return -10 * math.log10(pulse(0.0) - 2 * sum(pulse(k * period) for k in range(1, 10)))


def test_f27_gaussian_channel_eye():
    """fabric-photonics-3 F27: T = 100 ps, σ = 30 ps → eye 0.809, 0.92 dB (±0.01 dB); the link model's closed form
    2·erf(y) − 1 equals F27's sum over neighbours; F24: a Gaussian step of σ = 10 ps rises 10–90 % in 25.6 ps."""
    from photonics import channel

    for rate, rise in ((1e10, 2.563 * 30e-12), (25e9, 50e-12), (1e9, 300e-12)):
        assert float(channel.isi_penalty_db(rate, rise)) == pytest.approx(_gaussian_channel_isi_db(rate, rise),
                                                                          abs=1e-9)
    assert float(channel.gaussian_eye(1e10, 2.563 * 30e-12)) == pytest.approx(0.809, abs=0.001)
    assert float(channel.isi_penalty_db(1e10, 2.563 * 30e-12)) == pytest.approx(0.92, abs=0.01)
    step = lambda t: 0.5 * (1 + math.erf(t / (math.sqrt(2) * 10e-12)))  # noqa: E731
    from scipy.optimize import brentq

    rise = brentq(lambda t: step(t) - 0.9, 0, 1e-10) - brentq(lambda t: step(t) - 0.1, -1e-10, 0)
    assert rise == pytest.approx(channel.GAUSSIAN_RISE_PER_SIGMA * 10e-12, rel=1e-3)


def test_direct_modulation_rates_cost_isi_as_the_source_bandwidth_says():
    """The directly modulated sources of photonics-2 §7 ran at their rates: a 34 GHz DML at 50 Gb/s, a 26 GHz VCSEL
    at 41 Gb/s pay well under 1 dB of channel ISI; 80 Gb/s NRZ on the 34 GHz DML pays more than 1.5 dB — a curve,
    no cut-off. Each equals F27 by hand for the source's 0.340/f and the receiver's 0.329/(0.8·R) rise times."""
    def isi(rate, bandwidth):
        d = LinkDesign(link=LinkSection(kind="point-to-point", data_rate=rate, fibers_per_direction=1),
                       laser=LaserSection(kind="dml"), transmitter=TransmitterSection(bandwidth=bandwidth),
                       receiver=ReceiverSection(model="given", sensitivity=1e-5))
        est = evaluate(d)
        by_hand = _gaussian_channel_isi_db(rate, math.hypot(0.340 / bandwidth, 0.329 / (0.8 * rate)))
        value = next(p.value_db for p in est.penalties if p.key == "channel_isi")
        assert value == pytest.approx(by_hand, abs=1e-9)
        assert est.capacity_bps == pytest.approx(rate)
        return value

    assert isi(50e9, 34e9) < 1.0 and isi(41e9, 26e9) < 1.0
    assert isi(80e9, 34e9) > 1.5
    assert isi(50e9, 34e9) < isi(80e9, 34e9) < isi(100e9, 34e9)


# --- E32: energy per bit -------------------------------------------------------------------------------------------
def test_energy_per_bit_of_power_claims():
    """E32: Broadcom Bailly 5.5 W per 800G → 6.875 pJ/bit; NVIDIA's 30 W → 9 W per port is 3.3×, within 10 % of its
    "3.5×"; Intel's pluggable 15 pJ/bit over its 5 pJ/bit chiplet is 3× [inferred]."""
    assert float(packaging.energy_per_bit_j(5.5, 800e9)) == pytest.approx(6.875e-12, rel=1e-12)
    assert 30 / 9 == pytest.approx(3.5, rel=0.1)
    assert float(packaging.energy_per_bit_j(15.0, 1.0) / packaging.energy_per_bit_j(5.0, 1.0)) == pytest.approx(3.0)


# --- E33–E35: ring yield -------------------------------------------------------------------------------------------
def test_r16_lock_probability_and_yield():
    """R16: E33 with σ = 0.3 nm, T = 1.0 nm, μ = 0.5 nm → P = 0.904, eight rings → Y = 0.448 [inferred], ±0.005."""
    p = variation.lock_probability(1.0, 0.5, 0.3)
    assert p == pytest.approx(0.904, abs=0.005)
    assert variation.all_lock_probability(p, 8) == pytest.approx(0.448, abs=0.005)


@pytest.mark.parametrize("rings, range_nm", [(8, 1.94), (64, 2.27)])
def test_range_for_a_yield(rings, range_nm):
    """E34: Y = 0.99 with σ = 0.3 nm and the bias at the centre needs T = 1.94 nm for 8 rings, 2.27 nm for 64
    [inferred], ±0.005; a design at that range reaches the target exactly."""
    t = variation.range_for_yield(0.3, 0.99, rings)
    assert t == pytest.approx(range_nm, abs=0.005)
    assert variation.all_lock_probability(variation.lock_probability(t, t / 2, 0.3), rings) == pytest.approx(0.99)


def test_mismatch_grows_with_distance():
    """E35: σ_Δλ ≈ √(k·d), k ≈ 1 nm²/cm (Mohamed, Mickelson et al.) → 0.32 nm at 1 mm."""
    assert variation.mismatch_sigma(1e-3, 1e-18 / 1e-2) * 1e9 == pytest.approx(0.32, abs=0.005)


# --- E37–E38: amplifier cascade ------------------------------------------------------------------------------------
def test_r17_osnr_of_a_cascade():
    """R17: the Huawei worked example (NF 5 dB, 22 dB gain, 25 dB spans, 0 dBm launch, 0.1 nm at 1550 nm): stage OSNRs
    58 + P_in − NF with P_in = −25, −28, −31 dBm, cascaded (E38) → 28.0 / 23.2 / 19.6 dB (±0.1: the exact
    10·log10(h·ν·B/1 mW) is −57.95 dB, not −58), against the published 28 / 23 / 20 dB ± 0.5."""
    inputs = np.array([-25.0, -28.0, -31.0])  # each amplifier's input: 22 dB gain against 25 dB spans
    stage = amplifier.chain_osnr_db(inputs, 5.0, 1, F0_1550, F0_1550 * 0.1e-9 / 1550e-9)
    cascaded = [float(amplifier.cascade_osnr_db(stage[: i + 1])) for i in range(3)]
    assert cascaded == pytest.approx([28.0, 23.2, 19.6], abs=0.1)
    assert cascaded == pytest.approx([28.0, 23.0, 20.0], abs=0.5)
