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
                         "receiver.clock_power=1 mW", "-f", "json")
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
