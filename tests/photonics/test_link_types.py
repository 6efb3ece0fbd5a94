"""The link types, formats and figures of the second physical-layer pass, each against a hand derivation: point-to-
point budgets, PAM4 and FEC, spectral units in nm, ring yield, the energy split, the stage records, the exports the
ring fabric uses, and the out-of-range warnings."""

import dataclasses
import math
from dataclasses import replace

import pytest

from core.errors import InputError
from photonics import filtering
from photonics.link_design import (FiberSection, InterfaceSection, LaserSection, LinkDesign, LinkSection, LossSection,
                              ModulatorSection, ReceiverSection, RingSection, TransmitterSection, TuningSection)
from photonics.fieldspecs import WavelengthSpan
from photonics.link import evaluate, hop_reach, pass_through_loss_db, with_fabric_energy

C = 299792458.0
CLOSING = LaserSection(power_per_line=5e-3)  # a default link with margin to spare
SHORT = LaserSection(power_per_line=2e-3)  # a default link that closes only some of its 8 wavelengths


def point_to_point(**sections) -> LinkDesign:
    base = dict(link=LinkSection(kind="point-to-point", fibers_per_direction=4), laser=LaserSection(kind="dml"),
                receiver=ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-12 / 10)))
    return LinkDesign(**{**base, **sections})


# --- point-to-point ------------------------------------------------------------------------------------------------
def test_point_to_point_ledger_adds_up():
    """Launch 5 dBm (the DML default) − 2 × 0.5 dB connectors − 2 splices × 0.1 dB − 2 km × 0.35 dB/km − a 0.8 dB patch
    panel = received; margin = received − sensitivity − the penalties − the reserved margin."""
    d = point_to_point(loss=LossSection(splices=2, fiber_length=2e3, extra_losses="patch panel: 0.8 dB"),
                       link=LinkSection(kind="point-to-point", fibers_per_direction=4, system_margin=1.0))
    est = evaluate(d)
    names = [item.name for item in est.ledger]
    assert names == ["connectors", "splices", "fiber", "patch panel", "optical-switch passes", "mux/demux"]
    assert est.received_dbm == pytest.approx(5.0 - 1.0 - 0.2 - 0.7 - 0.8, abs=1e-9)
    penalties = sum(p.value_db for p in est.penalties)
    assert est.margin_db == pytest.approx(est.received_dbm + 12.0 - penalties - 1.0, abs=1e-9)
    assert [p.name for p in est.penalties] == ["extinction ratio", "RIN", "dispersion", "channel ISI", "mode partition",
                                               "modal noise", "noise on the closed eye"]
    assert est.ring is None and est.tuning is None and est.package is None
    assert est.capacity_bps == pytest.approx(4 * 25e9) and est.binding_limit == "requested"


def test_a_transmitter_drawing_less_than_the_light_it_launches_is_a_violation():
    """[transmitter] energy covers the laser: a lane's energy × rate below the optical power it launches would emit
    more than it draws. Below that line nothing is said; above it the violation names both powers."""
    from photonics.link_design import TransmitterSection

    tx = TransmitterSection()
    lane = 25e9  # the default point-to-point lane, no FEC
    at = {"draws": tx.energy * lane, "short": 1.2 * tx.energy * lane, "far": 40.0 * tx.energy * lane}
    found = {}
    for name, watts in at.items():
        est = evaluate(point_to_point(transmitter=dataclasses.replace(tx, launch_power=watts)))
        found[name] = [v for v in est.violations if v.name == "transmitter_energy"]
    assert not found["draws"] and found["short"] and found["far"]
    message = found["short"][0].message
    assert f"{tx.energy * lane * 1e3:.3g} mW < the {1.2 * tx.energy * lane * 1e3:.3g} mW of light" in message, message
    assert not evaluate(point_to_point()).violations  # the defaults draw far more than they launch
    # with FEC a lane's payload is below its line rate: the energy is per payload bit, as the transmitter is charged
    kp4 = LinkSection(kind="point-to-point", fibers_per_direction=4, fec="kp4")
    between = 0.5 * (tx.energy * lane / (544 / 514) + tx.energy * lane)  # above payload × E, below line rate × E
    est = evaluate(point_to_point(link=kp4, transmitter=dataclasses.replace(tx, launch_power=between)))
    assert "transmitter_energy" in [v.name for v in est.violations]


def test_point_to_point_oma_launch_and_oma_sensitivity():
    """A launch OMA of 0 dBm at ER 4.5 dB is an average of OMA·(ER+1)/(2(ER−1)) (E24); an OMA sensitivity is converted
    at the link's ER and charges no extinction-ratio penalty."""
    er = 10 ** 0.45
    d = point_to_point(transmitter=TransmitterSection(launch_power=1e-3, launch_power_type="oma"),
                       receiver=ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-10 / 10),
                                                sensitivity_type="oma"))
    est = evaluate(d)
    assert est.launch_dbm == pytest.approx(10 * math.log10((er + 1) / (2 * (er - 1))), abs=1e-9)
    assert est.sensitivity_dbm == pytest.approx(-10 + 10 * math.log10((er + 1) / (2 * (er - 1))), abs=1e-9)
    assert est.penalties[0].value_db == 0.0


def test_given_receiver_charges_only_the_er_beyond_its_own():
    """A given average-power sensitivity measured at 8.9 dB ER (Sci. Rep. 7:13857): a 7 dB link pays
    PP_ER(7 dB) − PP_ER(8.9 dB) = 0.63 dB, not the whole 1.76 dB of an ideal-transmitter reference; a sensitivity
    read at the link's own ER (the default, as a plain budget reads it) pays none."""
    pp = lambda db: 10 * math.log10((10 ** (db / 10) + 1) / (10 ** (db / 10) - 1))  # noqa: E731
    est = evaluate(LinkDesign(receiver=ReceiverSection(model="given", sensitivity_extinction="given")))
    assert est.penalties[0].value_db == pytest.approx(pp(7.0) - pp(8.9), abs=1e-9)
    assert est.penalties[0].value_db == pytest.approx(0.63, abs=0.005)
    assert evaluate(LinkDesign(receiver=ReceiverSection(model="given"))).penalties[0].value_db == 0.0


def test_source_and_modal_bandwidth_cost_margin_as_channel_isi():
    """Bandwidths are penalties, not cut-offs: a 10 GHz source at 25 GBd charges the Gaussian channel's ISI of its
    0.340/f rise time with the receiver's 0.329/(0.8·R_s), 2·erf(2.563·T/(√8·T_c)) − 1 (IEEE 802.3 link model); on
    70 m of OM3 the 0.480·L/BW modal rise time joins them, and the fiber's reach alone is where the channel's
    penalties' growth takes the zero-length margin."""
    def isi_db(rise):
        return -10 * math.log10(2 * math.erf(2.563 / 25e9 / (math.sqrt(8) * rise)) - 1)

    rx = 0.329 / (0.8 * 25e9)
    narrow = evaluate(point_to_point(transmitter=TransmitterSection(bandwidth=10e9)))
    isi = next(p.value_db for p in narrow.penalties if p.key == "channel_isi")
    assert isi == pytest.approx(isi_db(math.hypot(0.340 / 10e9, rx)), rel=1e-9) and 0.5 < isi < 5.0
    assert narrow.binding_limit in ("requested", "power_budget")
    mmf = point_to_point(link=LinkSection(kind="point-to-point", wavelength=850e-9, fibers_per_direction=4),
                         laser=LaserSection(kind="vcsel"), fiber=FiberSection(type="mmf", modal_bandwidth=2e12),
                         loss=LossSection(fiber_length=70.0, fiber_loss=3.5e-3))
    est = evaluate(mmf)
    tx = 0.340 / 34e9
    assert next(p.value_db for p in est.penalties if p.key == "channel_isi") == pytest.approx(
        isi_db(math.sqrt(tx**2 + rx**2 + (0.480 * 70.0 / 2e12) ** 2)), rel=1e-9)
    reach = est.reach.fiber_reach_m["channel_isi"]
    channel_keys = ("rin", "channel_isi", "mode_partition", "modal_noise", "noise_interaction")

    def channel_db(length, keys=channel_keys):
        e = evaluate(dataclasses.replace(mmf, loss=dataclasses.replace(mmf.loss, fiber_length=length)))
        return sum(p.value_db for p in e.penalties if p.key in keys)

    headroom = (est.margin_db + 70.0 * 3.5e-3 + channel_db(70.0) - channel_db(0.0)
                + channel_db(70.0, ("dispersion",)) - channel_db(0.0, ("dispersion",)))
    assert channel_db(reach) - channel_db(0.0) == pytest.approx(headroom, abs=1e-6)
    assert est.max_fiber_length_m < min(reach, est.reach.fiber_reach_m["loss"])


@pytest.mark.parametrize("changes, fragment", [
    (dict(laser=LaserSection(kind="vcsel")), "[laser] kind = 'vcsel' is directly modulated"),
    (dict(link=LinkSection(kind="point-to-point")), "[laser] kind = 'comb'"),
    (dict(fiber=FiberSection(type="mmf"), link=LinkSection(kind="point-to-point", wavelength=1550e-9),
          laser=LaserSection(kind="vcsel")), "[fiber] type = 'mmf' at [link] wavelength = 1.55 µm"),
    (dict(link=LinkSection(modulation="pam4")), "[receiver] model = 'ge-photodiode' is a fit to NRZ"),
    (dict(link=LinkSection(wavelength=850e-9), fiber=FiberSection(type="mmf")), "silicon rings absorb"),
    (dict(link=LinkSection(kind="point-to-point", wavelength=850e-9), laser=LaserSection(kind="vcsel")),
     "[fiber] type = 'smf'"),
])
def test_contradicting_sections_are_input_errors(changes, fragment):
    with pytest.raises(InputError) as err:
        evaluate(LinkDesign(**changes))
    assert fragment in str(err.value) and "\n" not in str(err.value)


# --- PAM4 and FEC --------------------------------------------------------------------------------------------------
def test_pam4_runs_at_half_the_symbol_rate_and_pays_per_eye():
    """PAM4 at 50 Gb/s is 25 GBd: the same filter ISI and modulator limit as NRZ at 25 Gb/s; its crosstalk closes an
    eye 3× smaller (E7 with s = 3) at the per-eye Q of the target BER (E22); a thermal-noise receiver needs
    3·q_PAM4/Q_NRZ times the power."""
    from photonics import crosstalk, modulation

    thermal = ReceiverSection(model="thermal-noise")
    nrz = evaluate(LinkDesign(receiver=thermal, laser=CLOSING))
    pam4 = evaluate(LinkDesign(receiver=thermal, laser=CLOSING, link=LinkSection(data_rate=50e9, modulation="pam4")))
    assert pam4.signal.symbol_rate_baud == pytest.approx(25e9)
    isi = [next(p.value_db for p in e.penalties if p.name == "filter ISI") for e in (nrz, pam4)]
    delta = C / 1310e-9 / 6500 / 25e9  # the same filter over the same symbol rate: PAM4's inner eyes close more
    assert isi == [pytest.approx(float(filtering.eye_penalty_db(delta, 2, 10 ** 0.7)), rel=1e-12),
                   pytest.approx(float(filtering.eye_penalty_db(delta, 4, 10 ** 0.7)), rel=1e-12)]
    assert isi[1] > isi[0]
    q4 = modulation.eye_q_for_ber(4, 1e-12)
    expected_xt = crosstalk.penalty_db(pam4.crosstalk_leakage, q4, 10 ** 0.7, 3.0)
    assert next(p.value_db for p in pam4.penalties if p.name == "crosstalk") == pytest.approx(expected_xt)
    assert pam4.sensitivity_dbm - nrz.sensitivity_dbm == pytest.approx(
        10 * math.log10(3 * q4 / modulation.eye_q_for_ber(2, 1e-12)), abs=1e-9)
    assert "PAM4 levels" in [item.name for item in pam4.ledger]
    # the 4.7 dB more the receiver needs (and the larger crosstalk and filter and modulator ISI) take NRZ's 7.4 dB
    # margin below zero: the budget closes 4 of the 8 wavelengths, 4 × 50 Gb/s × 10 fibers
    assert nrz.margin_db > 7 and pam4.margin_db < 0 and pam4.wavelength_limits["power_budget"] == 4
    assert pam4.capacity_bps == pytest.approx(pam4.wavelength_limits["power_budget"] * 50e9 * 10)


def test_kp4_sets_the_target_ber_and_takes_its_overhead():
    """KP4: the receiver aims at 2.4e-4 (Q 3.49 for NRZ), the capacity carries 514/544 of the line rate, one codeword
    of 5440 bits at 25 Gb/s is 217.6 ns of latency, and E27 gives FER ≈ 8e-13 at the threshold."""
    est = evaluate(LinkDesign(link=LinkSection(fec="kp4"), laser=CLOSING))
    decoder = 24.8e-9  # the RS100 decoder's logic beyond the codeword (photonics.fec)
    assert est.signal.target_ber == 2.4e-4
    assert est.signal.eye_q == pytest.approx(3.49, abs=0.005)
    assert est.capacity_bps == pytest.approx(2e12 * 514 / 544, rel=1e-12)
    assert est.signal.fec.latency_s == pytest.approx(5440 / 25e9 + decoder)
    assert est.signal.fec.frame_error_ratio == pytest.approx(8e-13, rel=0.1)
    no_fec = evaluate(LinkDesign(laser=CLOSING))
    assert est.margin_db > no_fec.margin_db + 3  # the Ge receiver needs Q 3.49 instead of 7.03


def test_given_fec():
    est = evaluate(LinkDesign(link=LinkSection(fec="given", fec_threshold=1e-3, fec_overhead=0.07, fec_latency=1e-7),
                              laser=CLOSING))
    assert est.signal.target_ber == 1e-3 and est.signal.fec.latency_s == 1e-7
    assert est.capacity_bps == pytest.approx(2e12 / 1.07)
    assert est.signal.fec.frame_error_ratio is None


# --- spectral units ------------------------------------------------------------------------------------------------
def test_spacing_and_tuning_efficiency_in_nm():
    """1.6 nm at 1550 nm is c·Δλ/λ² = 199.65 GHz; 0.08 nm/K at 1550 nm is 9.98 GHz/K; a σ of 0.3 nm is 37.4 GHz."""
    from photonics.link_design import FiberSection as Fiber
    from photonics.resolve import resolve

    d = LinkDesign(link=LinkSection(channel_spacing=WavelengthSpan(1.6e-9), wavelength=1550e-9),
                   ring=RingSection(tuning_model="given", tuning_efficiency=WavelengthSpan(0.08e-9)),
                   tuning=TuningSection(strategy="athermal", sigma_local=WavelengthSpan(0.3e-9)), fiber=Fiber())
    r = resolve(d)
    assert r.link.channel_spacing == pytest.approx(C * 1.6e-9 / 1550e-9**2)
    assert r.ring.tuning_efficiency == pytest.approx(C * 0.08e-9 / 1550e-9**2)
    assert r.tuning.sigma_local == pytest.approx(C * 0.3e-9 / 1550e-9**2)
    assert evaluate(d).design.link.channel_spacing == pytest.approx(199.65e9, rel=1e-4)
    with pytest.raises(InputError, match=r"\[link\] channel_spacing = 100 nm is .* at 1.55 µm, out of range"):
        resolve(dataclasses.replace(d, link=dataclasses.replace(d.link, channel_spacing=WavelengthSpan(100e-9))))


def test_spectral_spec_reads_both_forms():
    from core.fields import specs

    spec = specs(LinkSection)["channel_spacing"]
    assert spec.parse("200 GHz") == 200e9
    span = spec.parse("1.6 nm")
    assert isinstance(span, WavelengthSpan) and span == pytest.approx(1.6e-9) and spec.show(span) == "1.6 nm"
    with pytest.raises(InputError, match="frequency interval .* or a wavelength span"):
        spec.parse("3 ms")
    assert specs(RingSection)["tuning_efficiency"].parse("0.08 nm/K") == pytest.approx(0.08e-9)


# --- tuning and ring yield -----------------------------------------------------------------------------------------
def test_tuning_heats_only_the_rings_the_capacity_uses():
    """A 2 mW link closes some of its 8 wavelengths: athermal trimming heats 2 rings × 10 fibers × the λ used."""
    d = LinkDesign(tuning=TuningSection(strategy="athermal"), laser=SHORT)
    est = evaluate(d)
    used = est.capacity.wavelengths_used
    assert 0 < used < 8
    eta = est.design.ring.dn_dt * C / 1310e-9 / 4.0 * d.tuning.heating_efficiency
    assert est.power_w["tuning"] == pytest.approx(2 * 10 * used * 3 * math.hypot(40e9, 200e9) / eta, rel=1e-9)


def test_ring_yield_of_full_thermal_tuning():
    """Full-thermal: the heater's reach less the 100 K temperature allocation is left for the variation, biased at its
    centre; the 160 rings in use share their die's offset (F46: the yield integrated here with scipy's adaptive
    quadrature, independently of the model's panels), each locks with the marginal P of E33; with the independent
    model the yield is P^160 and the range a 99 % yield needs is E34's."""
    from statistics import NormalDist

    from scipy import integrate, stats

    phi = NormalDist().cdf
    d = LinkDesign(tuning=TuningSection(strategy="full-thermal", max_heater_power=6e-3), laser=CLOSING)
    est = evaluate(d)
    y = est.tuning.ring_yield
    per_kelvin = est.design.ring.dn_dt * C / 1310e-9 / 4.0
    available = 6e-3 * per_kelvin * d.tuning.heating_efficiency - 100 * per_kelvin
    sigma = math.hypot(40e9, 200e9)
    p = phi(available / 2 / sigma) - phi(-available / 2 / sigma)
    assert (y.rings, y.range_hz, y.lock_probability) == (160, pytest.approx(available), pytest.approx(p))
    half = available / 2

    def integrand(offset):
        share = stats.norm.cdf((half - offset) / 40e9) - stats.norm.cdf((-half - offset) / 40e9)
        return stats.norm.pdf(offset, 0.0, 200e9) * share**160

    shared = integrate.quad(integrand, -2e12, 2e12, points=[-half, half], limit=400, epsabs=1e-12)[0]
    assert y.io_yield == pytest.approx(shared, rel=1e-6)
    assert ("ring_yield" in [v.name for v in est.violations]) == (y.io_yield < 0.99)
    alone = evaluate(replace(d, tuning=replace(d.tuning, variation_model="independent"))).tuning.ring_yield
    assert alone.io_yield == pytest.approx(p**160) and alone.io_yield < y.io_yield
    assert alone.range_at_target_hz == pytest.approx(2 * sigma * NormalDist().inv_cdf((1 + 0.99 ** (1 / 160)) / 2))
    assert y.range_at_target_hz < alone.range_at_target_hz
    assert evaluate(LinkDesign(laser=CLOSING)).tuning.ring_yield is None  # nearest-channel: E36, no yield


# --- energy --------------------------------------------------------------------------------------------------------
def test_energy_splits_optical_electrical_and_fabric():
    """Optical link (laser, modulator, receiver, tuning) + electrical side (2 UCIe 2.5D crossings × 0.3 pJ/bit + DSP)
    + a fabric adder = the total; the optical part keeps its old meaning."""
    est = evaluate(LinkDesign(laser=CLOSING, interface=InterfaceSection(dsp_energy=1.1e-12)))
    e = est.energy
    assert set(est.energy_j_per_bit) == {"laser", "modulator", "receiver", "tuning"}
    assert e.electrical_j_per_bit == {"die_to_die": pytest.approx(0.6e-12), "serdes_dsp": pytest.approx(1.1e-12)}
    assert e.total_j_per_bit == pytest.approx(est.total_energy_j_per_bit + 1.7e-12)
    amplified = with_fabric_energy(est, "amplifiers", 0.4e-12)
    assert amplified.energy.total_j_per_bit == pytest.approx(e.total_j_per_bit + 0.4e-12)
    assert amplified.energy.total_power_w == pytest.approx(e.total_power_w + 0.4e-12 * est.capacity_bps)
    assert amplified.total_energy_j_per_bit == est.total_energy_j_per_bit


# --- what the ring fabric reads ------------------------------------------------------------------------------------
def test_hop_reach_is_one_plus_the_passes_the_margin_pays():
    est = evaluate(LinkDesign(laser=LaserSection(power_per_line=20e-3), loss=LossSection(coupler=0.5, connectors=0)))
    h = pass_through_loss_db(est)
    assert hop_reach(est, h) == 1 + math.floor(est.margin_db / h)
    assert hop_reach(evaluate(LinkDesign(laser=SHORT)), h) == 0  # a 2 mW link fails its neighbour


def test_a_point_to_point_link_has_no_rings_to_pass():
    with pytest.raises(InputError, match="no rings"):
        pass_through_loss_db(evaluate(point_to_point()))


# --- warnings ------------------------------------------------------------------------------------------------------
def test_models_outside_their_range_warn():
    ge_fast = evaluate(LinkDesign(link=LinkSection(data_rate=56e9), modulator=ModulatorSection(q=3000),
                                  ring=RingSection(filter_q=3000)))
    assert any("Ge-photodiode fit" in w for w in ge_fast.warnings)
    narrow = evaluate(LinkDesign(ring=RingSection(filter_q=100e3, max_q=200e3, propagation_loss=0.5e2)))
    assert any("tenth the filter-ISI models" in w for w in narrow.warnings)
    small = evaluate(LinkDesign())
    assert any("below the 5 µm" in w for w in small.warnings)
    optimistic = evaluate(LinkDesign(ring=RingSection(radius=6e-6, propagation_loss=100.0)))
    assert any("below the bending-loss fit" in w for w in optimistic.warnings)
    assert not any("[ring]" in w for w in evaluate(LinkDesign(ring=RingSection(radius=7.45e-6))).warnings)


def test_zero_propagation_loss_is_a_lossless_ring():
    """Q_i = ∞: no drop loss, t0 = 0, and no floating-point warning (the suite turns warnings into errors)."""
    est = evaluate(LinkDesign(ring=RingSection(propagation_loss=0.0), laser=CLOSING))
    assert est.ring.intrinsic_q == math.inf and est.ring.drop_loss_db == 0.0 and est.ring.filter_on_resonance == 0.0


def test_sub_gbps_rates_are_printed_in_their_unit():
    from photonics.signal import baud_text
    from sipml.design_reports import budget_report
    from sipml.render import render

    assert baud_text(500e6) == "500 MBd" and baud_text(11.4425e9) == "11.44 GBd"
    est = evaluate(point_to_point(link=LinkSection(kind="point-to-point", data_rate=500e6, fibers_per_direction=1)))
    report = budget_report(est, "slow")
    capacity = next(row for row in report.tables[0].rows if row["quantity"] == "capacity")
    assert (capacity["value"], capacity["unit"]) == ("500", "Mbit/s per direction")
    assert "500 MBd" in render(report, "table")


# --- the stage records compose the estimate -----------------------------------------------------------------------
def test_the_estimate_reads_its_stage_records():
    est = evaluate(LinkDesign(laser=CLOSING))
    assert est.margin_db == est.budget.margin_db and est.capacity_bps == est.capacity.capacity_bps
    assert est.max_fiber_length_m == est.reach.max_fiber_length_m and est.power_w is est.energy.optical_power_w
    assert est.sensitivity_dbm == pytest.approx(est.receiver.sensitivity_dbm)


def test_the_reach_is_found_only_when_read_and_is_the_reach_of_the_records():
    """A fabric, its bill and a training search read the link without its reach (its bisections cost more than the
    rest of the link); read, it is `reach_figures` of the estimate's records, and the least line power the budget's."""
    from photonics.link import reach_figures
    from sipml.design_files import load_design
    from workloads.evaluation import Evaluation
    from workloads.models import load_model

    point = Evaluation(load_design("sip-ring"))
    point.training(load_model("gpt2-355m"), 256)
    est = point.link
    assert "reach" not in vars(est) and point.cost is not None
    assert est.reach == reach_figures(est.design, est.signal, est.receiver, est.budget) and "reach" in vars(est)
    assert est.min_laser_power_per_line_dbm == est.reach.min_laser_power_per_line_dbm == est.budget.min_line_dbm


def test_filter_isi_models_are_selectable():
    values = {m: next(p.value_db for p in evaluate(LinkDesign(ring=RingSection(filter_isi=m))).penalties
                      if p.name == "filter ISI") for m in ("energy", "eye", "lab-fit")}
    delta = C / 1310e-9 / 6500 / 25e9
    assert values == {"energy": pytest.approx(float(filtering.energy_penalty_db(delta))),
                      "eye": pytest.approx(-10 * math.log10(1 - 2 * math.exp(-math.pi * delta))),
                      "lab-fit": pytest.approx(float(filtering.lab_fit_penalty_db(delta)))}


def test_a_filter_narrower_than_the_signal_costs_margin_not_a_cliff():
    """Filter Q 20 000 at 1310 nm is 11.4 GHz wide, Δ = 0.46 < 1: the NRZ eye 1 − 2e^(−πΔ) costs 2.8 dB of ISI in the
    margin (E18b) — a curve, not a cut-off: the link still carries its 2000 Gbps if the budget closes, and a
    narrower filter still (Q 60 000, Δ = 0.15 < ln 2/π) closes the eye, an infinite penalty the budget refuses."""
    est = evaluate(LinkDesign(ring=RingSection(filter_q=20e3), laser=CLOSING))
    delta = C / 1310e-9 / 20e3 / 25e9
    assert next(p.value_db for p in est.penalties if p.name == "filter ISI") == pytest.approx(
        -10 * math.log10(1 - 2 * math.exp(-math.pi * delta)), rel=1e-12)
    assert est.margin_db > 0 and est.capacity_bps == pytest.approx(2e12)
    assert "filter_bandwidth" not in est.limits_bps
    closed = evaluate(LinkDesign(ring=RingSection(filter_q=60e3), laser=CLOSING))
    assert next(p.value_db for p in closed.penalties if p.name == "filter ISI") == math.inf
    assert closed.capacity_bps == 0.0 and closed.binding_limit == "power_budget"


def test_the_modulator_ring_pays_its_photon_lifetime():
    """The modulator's linewidth f0/Q (Q 6000: 38.1 GHz) over the 25 GBd symbol rate, Δ = 1.53, filters the
    modulated field as the drop ring does (single pole): the NRZ eye 1 − 2e^(−πΔ) = 0.9836, 0.072 dB; at Q 15 000
    (Δ = 0.61) 1.76 dB — in the margin, exactly, and no capacity cut-off."""
    for q in (6000, 15000):
        est = evaluate(LinkDesign(modulator=ModulatorSection(q=q), laser=CLOSING))
        delta = C / 1310e-9 / q / 25e9
        line = next(p for p in est.penalties if p.name == "modulator ISI")
        assert line.value_db == pytest.approx(-10 * math.log10(1 - 2 * math.exp(-math.pi * delta)), rel=1e-12)
    assert evaluate(LinkDesign(laser=CLOSING)).penalties[3].name == "modulator ISI"


def test_dispersion_limits_a_c_band_link():
    """Issue 9: at 1550 nm, 25 Gb/s NRZ over G.652 (17.3 ps/(nm·km)) from a chirp-free CW line: σ_λ = λ²·R/(πc) =
    0.0638 nm, ε = B·L·|D|·σ; E29a is singular at 4ε = 1, L = 9.06 km, and the reach where attenuation (0.2 dB/km)
    and the growing penalty take the margin is shorter still."""
    from photonics import fiber

    d = LinkDesign(link=LinkSection(wavelength=1550e-9), loss=LossSection(fiber_loss=0.2e-3), laser=CLOSING)
    est = evaluate(d)
    sigma = 1550e-9**2 * 25e9 / (math.pi * C)
    dispersion = float(fiber.dispersion_s_per_m2(1550e-9, 1312e-9, 92.0))
    assert 1 / (4 * 25e9 * dispersion * sigma) == pytest.approx(9.06e3, rel=0.01)
    reach = est.reach
    assert reach.max_fiber_length_m < min(reach.fiber_reach_m["loss"], reach.fiber_reach_m["dispersion"])
    at_reach = evaluate(dataclasses.replace(d, loss=dataclasses.replace(d.loss, fiber_length=reach.max_fiber_length_m)))
    assert at_reach.margin_db == pytest.approx(0.0, abs=1e-6)


def test_chiplet_defaults_left_on_a_vcsel_mmf_link_are_named():
    """A VCSEL on multimode fiber that keeps the library's single-mode attenuation and dispersion and the germanium
    receiver fit gets one warning each, with the value its part has; set them and the warnings go. Its RIN is its
    own by default (10GBASE-SR's RIN12OMA −128 dB/Hz, issue 41), so nothing is said of it."""
    kept = evaluate(point_to_point(link=LinkSection(kind="point-to-point", wavelength=850e-9),
                                   laser=LaserSection(kind="vcsel"), fiber=FiberSection(type="mmf"),
                                   receiver=ReceiverSection(model="ge-photodiode")))
    text = " ".join(kept.warnings)
    assert "fiber_loss is the single-mode default" in text and "ge-photodiode" in text and "[laser] rin" not in text
    assert (kept.design.laser.rin, kept.design.laser.rin_type) == (-128.0, "oma")
    assert "zero_dispersion_wavelength and dispersion_slope are the single-mode defaults" in text
    set_ = evaluate(point_to_point(link=LinkSection(kind="point-to-point", wavelength=850e-9),
                                   laser=LaserSection(kind="vcsel", rin=-128.0),
                                   fiber=FiberSection(type="mmf", zero_dispersion_wavelength=1320e-9,
                                                      dispersion_slope=110.0),
                                   loss=LossSection(fiber_loss=3.5e-3),
                                   receiver=ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-11.1 / 10))))
    assert not [w for w in set_.warnings if "default" in w or "ge-photodiode" in w]


def test_a_single_mode_laser_left_without_a_rin_gets_its_own():
    """Issue 41: a DFB point-to-point link given no RIN no longer keeps the comb's −135 dB/Hz (with a warning): it
    gets a DFB's −155 dB/Hz; a RIN given is kept as given."""
    kept = evaluate(point_to_point(laser=LaserSection(kind="dfb")))
    assert (kept.design.laser.rin, kept.design.laser.rin_type) == (-155.0, "average")
    assert not any("[laser] rin" in w for w in kept.warnings)
    own = evaluate(point_to_point(laser=LaserSection(kind="dfb", rin=-150.0)))
    assert own.design.laser.rin == -150.0


@pytest.mark.parametrize("radius", ["5 um", "5 µm", "5000 nm", "0.005 mm"])
def test_a_radius_of_5_um_is_inside_the_bend_data_however_it_is_spelled(radius):
    """'5 um' reads an ulp below 5e-6 m ('5000 nm' does not): the same radius got 'below the 5 µm the bending-loss
    data cover' in one spelling only."""
    from photonics.link import evaluate
    from sipml.design_files import load_design

    warnings = evaluate(load_design("sip-ring", [f"ring.radius={radius}"]).link).warnings
    assert not any("below the 5 µm" in w for w in warnings)


def test_the_tuning_warning_s_span_and_gap_add_up_to_the_fsr():
    """ocs-torus-v4: 8 channels 200 GHz apart span 1.4 THz of centres; the gap to the next order is FSR − 1.4 THz
    (it said the grid spans 1.6 THz, beside a 2.58 THz gap of a 3.98 THz FSR)."""
    import re

    from photonics.link import evaluate
    from sipml.design_files import load_design

    text = next(w for w in evaluate(load_design("ocs-torus-v4").link).warnings if w.startswith("[tuning]"))
    span, fsr, gap = (float(x) for x in re.findall(r"([\d.]+) THz", text)[:3])
    assert span + gap == pytest.approx(fsr, abs=0.011) and span == pytest.approx(1.4)
