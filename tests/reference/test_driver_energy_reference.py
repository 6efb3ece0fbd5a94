"""The modulator driver's energy from its circuit (photonics.driver_energy) against the reference cases that pin the
DSENT-class equations (photonics-4.md R40–R43, E60–E67), one point derived by hand, and `sipml budget` / `sweep`
showing the energy per bit move with the rate."""

import json
import math

import numpy as np
import pytest

from photonics import driver_energy as de
from tests.sipml.cli_run import run

DSENT = de.Junction(n_f=3e-27, confinement=0.3, junction_fraction=0.8, height=500e-9, width=500e-9, doping_p=3e24,
                    doping_n=1e24)


@pytest.mark.parametrize("il, er, gamma", [(2, 6, 0.877), (1, 6, 1.466), (3, 4, 0.506), (2, 10, 1.059)])
def test_r40_the_shift_the_notch_needs(il, er, gamma):
    got, ok = de.shift_needed(il, er, 0.01)
    assert ok and float(got) == pytest.approx(gamma, abs=1e-3)


def test_e61b_an_extinction_beyond_the_notch_is_unreachable():
    _, ok = de.shift_needed(2, 25, 0.01)  # '0' level below the 20 dB notch
    assert not ok


def test_r41_dsent_s_default_junction():
    """V_bi 1.112 V, x_d0 43.8 nm, C_j0 17.8 fF; small-signal η_f = f₀·Γ·n_f·C_j0/(q·n_g·V_ring) = 1.23 GHz/V (E64)."""
    v_bi, x_d0, c_j0 = de.junction_figures(3e-6, DSENT, 340.0)
    assert float(v_bi) == pytest.approx(1.112, rel=0.005)
    assert float(x_d0) == pytest.approx(43.8e-9, rel=0.005)
    assert float(c_j0) == pytest.approx(17.8e-15, rel=0.005)
    f0 = 299792458 / 1300e-9
    v_ring = 2 * math.pi * 3e-6 * 500e-9 * 500e-9
    eta = f0 * 0.3 * 3e-27 * c_j0 / (1.602e-19 * 4 * v_ring)
    assert eta == pytest.approx(1.23e9, rel=0.005)
    # the charge model agrees with it at small swing: a small shift's swing is Δf/η_f
    gamma = 1e-3
    v_a, _, ok = de.depletion_swing(gamma, 10_000, 3e-6, 4.0, DSENT, 340.0)
    assert ok and float(v_a) == pytest.approx(gamma * f0 / (2 * 10_000) / eta, rel=5e-3)


def test_r42_linear_swing():
    assert float(de.linear_swing(0.877, 10_000, 1310e-9, 30e-12)) == pytest.approx(1.91, abs=0.01)


def test_one_point_of_the_driver_by_hand():
    """45 nm, 10 Gbit/s, a 1 V swing into 20 fF, DSENT's 100 Ω and 5 fF parasitics, supply 1.2 V. Unit inverter:
    C_g0 = 1.00 fF/µm × 0.48 µm, C_d0 = 0.60 fF/µm × 0.48 µm, R₀ = ½(1.10 kΩ·µm/0.16 µm + 1.50 kΩ·µm/0.32 µm).
    t_req = 1/(4·BR) = 25 ps; k_t = ln(1.2/0.2); driver S_d = k_t·R₀·(C + C_par)/(t_req − t_int − k_t·R_par·C);
    pre-driver stages S_i = max(1, R₀·C_load/(t_req − t_int)) until the load is one unit gate at an odd count;
    E = ¼·{V_dd²·[C_d0·ΣS_pre + C_g0·(ΣS_pre + S_d − S_first)] + V_H·max(V_H, V_dd)·(S_d·C_d0 + C + C_par)}."""
    cg, cd = 1.00e-15 / 1e-6 * 0.48e-6, 0.60e-15 / 1e-6 * 0.48e-6
    r0 = 0.5 * (1.10e3 * 1e-6 / 0.16e-6 + 1.50e3 * 1e-6 / 0.32e-6)
    c, cpar, rpar, va = 20e-15, 5e-15, 100.0, 1.0
    vh = 1.2 * va
    kt = math.log(vh / (vh - va))
    t_req, t_int = 1 / (4 * 10e9), kt * r0 * cd
    sd = max(1.0, kt * r0 * (c + cpar) / (t_req - t_int - kt * rpar * c))
    stages, load = [], sd * cg
    while True:
        size = max(1.0, r0 * load / (t_req - t_int))
        stages.append(size)
        load = size * cg
        if load <= cg * (1 + 1e-12) and len(stages) % 2 == 1:
            break
    e01 = 1.0 ** 2 * (cd * sum(stages) + cg * (sum(stages) + sd - stages[-1])) + vh * max(vh, 1.0) * (sd * cd + c + cpar)
    got = de.driver_energy(va, c, 10e9, de.NODES["45nm"], 1.2, rpar, cpar)
    assert float(got.driver_size) == pytest.approx(sd, rel=1e-12)
    assert float(got.predriver_size) == pytest.approx(sum(stages), rel=1e-12)
    assert float(got.energy_j_per_bit) == pytest.approx(0.25 * e01, rel=1e-12)
    # R43's scale: ¼·C·V² of the load alone is 5 fJ/bit for 20 fF at 1 V; the driver and its supply add to it
    assert 5e-15 < float(got.energy_j_per_bit) < 50e-15


def test_a_rate_the_node_cannot_switch_is_infeasible():
    got = de.driver_energy(3.0, 50e-15, 100e9, de.NODES["45nm"], 1.2, 100.0, 5e-15)
    assert math.isinf(float(got.energy_j_per_bit))


def test_budget_energy_per_bit_moves_with_rate_by_the_circuit(capsys):
    energies = []
    for rate in ("10 Gbit/s", "15 Gbit/s", "20 Gbit/s"):
        code, out, err = run(capsys, "budget", "--set", "modulator.energy_model=circuit", "--set", "ring.radius=3um",
                             "--set", f"link.data_rate={rate}", "-f", "json")
        assert code == 0, err
        energies.append(json.loads(out)["energy_breakdown_pj_per_bit"]["modulator"])
    assert energies[0] < energies[1] < energies[2]
    code, out, err = run(capsys, "budget", "--set", "link.data_rate=20 Gbit/s", "-f", "json")
    given = json.loads(out)["energy_breakdown_pj_per_bit"]["modulator"]
    assert given == pytest.approx(0.106)  # the given figure does not move


def test_sweep_over_the_rate_shows_it(capsys):
    code, out, err = run(capsys, "sweep", "--set", "modulator.energy_model=circuit", "--set", "ring.radius=3um",
                         "--vary", "link.data_rate=10 Gbit/s:20 Gbit/s:3", "-f", "json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    values = [r["energy_pj_per_bit [pJ/bit]"] for r in rows]
    assert len(values) == 3 and np.all(np.diff(values) != 0)
    for rate, value in zip(("10 Gbit/s", "15 Gbit/s", "20 Gbit/s"), values):  # the grid is each point alone
        code, out, err = run(capsys, "budget", "--set", "modulator.energy_model=circuit", "--set", "ring.radius=3um",
                             "--set", f"link.data_rate={rate}", "-f", "json")
        assert json.loads(out)["energy_pj_per_bit"] == pytest.approx(value, rel=1e-12)


def test_a_driver_the_node_cannot_switch_is_a_named_violation(capsys):
    code, out, err = run(capsys, "check", "--set", "modulator.energy_model=circuit", "--set", "link.data_rate=40 Gbit/s")
    assert code == 1 and "modulator_driver" in out + err
