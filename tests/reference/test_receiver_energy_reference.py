"""The receiver's and the SerDes' energy from their circuits (photonics.receiver_energy, photonics-4.md E74–E78):
one point by hand, E74b's size of the sampler, and `budget` / `sweep` showing the receiver's energy move with the
rate through the path users run."""

import json

import numpy as np
import pytest

from photonics import driver_energy as de
from photonics import receiver_energy as rx
from tests.sipml.cli_run import run

CIRCUIT = ("--set", "receiver.energy_model=circuit")


def test_e74_the_sampler_at_45nm_by_hand():
    """u_g = 160 nm × 1.00 fF/µm = 0.16 fF, u_d = 0.096 fF; the unit inverter (NMOS W_min, PMOS 2·W_min) 0.48 fF of
    gate and 0.288 fF of drain. C_samp = 40·0.16 + 24·0.096 + 0.768 = 9.472 fF, C_RS = 4·0.16 + 12·0.096 + 0.768 =
    2.56 fF; at 1 V: 9.472 + 2.56/4 = 10.112 fJ/bit. Without the inverter terms, 9.15 fJ/bit: E74b's 9.2."""
    node = de.NODES["45nm"]
    assert rx.sampler_energy(node) == pytest.approx(10.112e-15, rel=1e-9)
    c_g, c_d, _ = node.unit_inverter
    assert rx.sampler_energy(node) - 1.25 * (c_g + c_d) == pytest.approx(9.2e-15, abs=0.05e-15)


@pytest.mark.parametrize("node, e74b", [("32nm", 5.5e-15), ("22nm", 3.4e-15), ("11nm", 1.2e-15)])
def test_e74b_the_sampler_at_each_node(node, e74b):
    n = de.NODES[node]
    c_g, c_d, _ = n.unit_inverter
    assert rx.sampler_energy(n) - 1.25 * (c_g + c_d) * n.vdd ** 2 == pytest.approx(e74b, abs=0.05e-15)


def test_one_point_by_hand():
    """25 Gbit/s at 45 nm, a 2 GHz core: S = ⌈12.5⌉ = 13, 4 mux stages, each ½·2·0.768 fF·1 V² = 0.768 fJ, and a
    clock edge (4·0.48 + 0.288 fF) = 2.208 fJ: 5.28 fJ per tree, 10.56 fJ for the serialiser and the deserialiser.
    The TIA: 0.55 pJ/bit at 54 Gbit/s scaled by 25/54 = 254.6 fJ. Clocking 2 mW per lane: 80 fJ."""
    e = rx.receiver_energy(25e9, de.NODES["45nm"], front_end="tia", reference_energy=0.55e-12, reference_rate=54e9,
                           exponent=1.0, core_clock=2e9, clock_power=2e-3)
    assert float(e.serdes) == pytest.approx(2 * (4 * 0.768e-15 + 2.208e-15), rel=1e-9)
    assert float(e.front_end) == pytest.approx(0.55e-12 * 25 / 54, rel=1e-12)
    assert float(e.clocking) == pytest.approx(80e-15, rel=1e-12)
    assert float(e.total) == pytest.approx(254.630e-15 + 10.112e-15 + 10.56e-15 + 80e-15, rel=1e-5)
    integrating = rx.receiver_energy(25e9, de.NODES["45nm"], front_end="integrating", reference_energy=0.55e-12,
                                     reference_rate=54e9, exponent=1.0, core_clock=2e9, clock_power=0.0)
    assert float(integrating.total) == pytest.approx(10.112e-15 + 10.56e-15, rel=1e-9)
    assert float(rx.mux_tree_energy(2e9, 2e9, de.NODES["45nm"])) == 0.0  # the core at the line rate: no tree


def test_budget_receiver_energy_moves_with_rate(capsys):
    energies = []
    for rate in ("10 Gbit/s", "15 Gbit/s", "20 Gbit/s"):
        code, out, err = run(capsys, "budget", *CIRCUIT, "--set", f"link.data_rate={rate}", "-f", "json")
        assert code == 0, err
        energies.append(json.loads(out)["energy_breakdown_pj_per_bit"]["receiver"])
    # the TIA ∝ rate, the sampler and the trees (4 stages from 10 Gbit/s to 16, then 4) nearly fixed
    assert energies[0] < energies[1] < energies[2]
    assert energies[0] == pytest.approx(0.55 * 10 / 54 + 0.010112 + 2 * (3 * 0.000768 + 0.002208), rel=1e-6)
    code, out, err = run(capsys, "budget", *CIRCUIT, "--set", "receiver.front_end=integrating", "--set",
                         "receiver.model=integrating", "--set", "receiver.clock_power=1 mW", "-f", "json")
    assert json.loads(out)["energy_breakdown_pj_per_bit"]["receiver"] == pytest.approx(
        0.010112 + 2 * (4 * 0.000768 + 0.002208) + 1e-3 / 25e9 * 1e12, rel=1e-6)


def test_sweep_over_the_rate_shows_it(capsys):
    code, out, err = run(capsys, "sweep", *CIRCUIT, "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:3", "-f", "json")
    assert code == 0, err
    values = [json.loads(line)["energy_pj_per_bit [pJ/bit]"] for line in out.splitlines() if line.strip()]
    assert len(values) == 3 and np.all(np.diff(values) != 0)
    for rate, value in zip(("10 Gbit/s", "15 Gbit/s", "20 Gbit/s"), values):  # each point as `budget` gives it
        code, out, err = run(capsys, "budget", *CIRCUIT, "--set", f"link.data_rate={rate}", "-f", "json")
        assert json.loads(out)["energy_pj_per_bit"] == pytest.approx(value, rel=1e-12)


def test_circuit_keys_apply_only_to_the_circuit(capsys):
    code, out, err = run(capsys, "budget", "--set", "receiver.node=22nm")
    assert code == 2 and "applies only when" in err
    code, out, err = run(capsys, "budget", *CIRCUIT, "--set", "receiver.energy=1 pJ/bit")
    assert code == 2 and "applies only when" in err


INTEGRATING = ("--set", "receiver.energy_model=circuit", "--set", "receiver.front_end=integrating", "--set",
               "receiver.model=integrating")


def test_e70_e72_the_integrating_receivers_sensitivity_by_hand(capsys):
    """DSENT's RingDetector at 45 nm, 25 Gbit/s NRZ, sip-ring's ER of 7 dB and its FEC threshold BER: τ = R₀·(C_g0 +
    C_d0) = 5 781 Ω × 0.768 fF = 4.44 ps; v_sense = e^(−0.3/(25e9·τ)) + 0.02 + 3·0.04/32 + 0.05/5 V; C_in = 11 ×
    0.096 fF + 5 fF; z = 0.7/(BR·C_in); the quadratic's root over 0.7 A/W, times (ER+1)/(2(ER−1)), against
    `budget`'s sensitivity. It is the receiver's own: a TIA's fit gives −11.9 dBm."""
    import math

    from photonics import modulation

    code, out, err = run(capsys, "budget", *INTEGRATING, "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    ber = data["target_ber"]
    tau = 0.5 * (1.10e3 / 0.16 + 1.50e3 / 0.32) * (0.48e-15 + 0.288e-15)
    v_sense = math.exp(-0.3 / (25e9 * tau)) + 0.02 + 3 * 0.04 / 32 + 0.05 / 5
    c_in = 11 * 0.096e-15 + 5e-15
    z = 0.7 / (25e9 * c_in)
    q = modulation.eye_q_for_ber(2, ber)
    er = 10 ** 0.7
    half = (er + 1) / (2 * (er - 1))
    a = 1 - (q * 0.01) ** 2
    b = -math.pi * q * q * 1.602e-19 * 0.7 * 25e9 * half - 2 * v_sense / z
    c = (v_sense ** 2 - q * q * (1.3806503e-23 * 340 / c_in + (0.01 / 5) ** 2)) / z ** 2
    current = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    by_hand = 10 * math.log10(current / 0.7 * half / 1e-3)
    assert data["sensitivity_dbm"] == pytest.approx(by_hand, abs=1e-9)
    assert -17 < by_hand < -14  # ~ 30 µA of OMA photocurrent


def test_e73_the_sense_amplifiers_rate_wall_and_a_faster_node(capsys):
    """E73: the needed power grows ∝ BR·C_in, and faster as BR·τ nears (1 − K_int)/ln(V_dd/v_margin); a faster node
    (smaller τ) moves the wall out."""
    def sensitivity(*sets):
        code, out, err = run(capsys, "budget", *INTEGRATING, *(f for s in sets for f in ("--set", s)), "-f", "json")
        assert code == 0, err
        return json.loads(out)["sensitivity_dbm"]

    s10, s25, s50 = (sensitivity(f"link.data_rate={r} Gbit/s") for r in (10, 25, 50))
    # faster than ∝ BR (+4.0 dB from 10 to 25 Gbit/s, +3.0 dB from 25 to 50): 7.6 and 7.3 dB, v_sense growing too
    assert s25 - s10 > 10 * np.log10(2.5) + 2 and s50 - s25 > 10 * np.log10(2) + 2
    assert sensitivity("link.data_rate=50 Gbit/s", "receiver.node=22nm") < s50


def test_the_front_end_and_the_sensitivity_model_name_one_receiver(capsys):
    """An integrating front end with a TIA's sensitivity (the E16 fit) kept the TIA's −11.9 dBm at 1/13 of its
    energy; the model and the front end must agree, and the integrating sense amplifier is NRZ's."""
    code, out, err = run(capsys, "budget", "--set", "receiver.energy_model=circuit", "--set",
                         "receiver.front_end=integrating")
    assert code == 2 and "model = 'ge-photodiode' is a TIA receiver's sensitivity" in err
    code, out, err = run(capsys, "budget", "--set", "receiver.model=integrating")
    assert code == 2 and "needs energy_model = 'circuit' and front_end = 'integrating'" in err
    code, out, err = run(capsys, "budget", "passage-l200", *INTEGRATING)
    assert code == 2 and "NRZ sense amplifier" in err and "3 slicers a symbol" in err


def test_a_pam4_receiver_slices_three_times_a_symbol(capsys):
    """Passage-class PAM4 at 106.25 Gbit/s: E74's sampler counted 3 a symbol of 2 bits, 1.5 a bit — the receiver's
    circuit energy above NRZ's at the same line rate by half a sampler a bit."""
    def receiver(*sets):
        code, out, err = run(capsys, "budget", "passage-l200", "--set", "receiver.energy_model=circuit",
                             *(f for s in sets for f in ("--set", s)), "-f", "json")
        assert code == 0, err
        return json.loads(out)["energy_breakdown_pj_per_bit"]["receiver"]

    pam4, nrz = receiver(), receiver("link.modulation=nrz")
    node = de.NODES["45nm"]
    assert pam4 - nrz == pytest.approx(0.5 * rx.sampler_energy(node) * 1e12, rel=1e-6)


def test_a_sweep_over_the_front_end_errs_in_the_row_that_mismatches(capsys):
    """The front end and the sensitivity model are checked with the design's other cross-section rules: a sweep over
    the front end gives the mismatched point's row its error, the other row its numbers (it aborted the sweep)."""
    code, out, err = run(capsys, "sweep", "--link-only", "--set", "receiver.energy_model=circuit", "--vary",
                         "receiver.front_end=tia,integrating", "-f", "json")
    assert code == 0, err
    tia, integrating = (json.loads(line) for line in out.splitlines() if line.strip())
    assert tia["link_feasible"] and not tia["error"]
    assert "senses with its own circuit" in integrating["error"] and "margin_db [dB]" not in integrating
