"""Amplifier chain OSNR and the Q of an amplified OOK receiver."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from photonics import amplifier

C = 299792458.0


def test_58_db_rule_at_1550nm():
    """OSNR = 58 dB + P_in − NF − 10·log10 n in 0.1 nm (12.5 GHz) at 1550 nm: h·f·B_ref = −58 dBm."""
    assert amplifier.ase_reference_dbm(C / 1550e-9, 12.5e9) == pytest.approx(-58.0, abs=0.05)
    assert amplifier.chain_osnr_db(0.0, 5.0, 10, C / 1550e-9, 12.5e9) == pytest.approx(58 - 5 - 10, abs=0.05)


@given(osnr_db=st.floats(0, 40), bo=st.floats(10e9, 100e9), be=st.floats(5e9, 50e9))
def test_full_model_reduces_to_agrawal_for_ideal_receiver(osnr_db, bo, be):
    """With no receiver noise and infinite ER, the variance model gives Q = 2·OSNR·√(B_o/B_e)/(1 + √(1 + 4·OSNR))."""
    p = 1e-3
    ase = amplifier.ase_psd_w_per_hz(p, osnr_db, bo)
    q = amplifier.q_amplified(p, np.inf, 1.0, 0.0, ase, bo, be)
    assert q == pytest.approx(amplifier.q_from_osnr(osnr_db, bo, be), rel=1e-9)


def test_required_osnr_inverts_q():
    for q in (6.0, 7.034, 8.0):
        need = amplifier.required_osnr_db(q, 35e9, 18.75e9)
        assert amplifier.q_from_osnr(need, 35e9, 18.75e9) == pytest.approx(q, rel=1e-9)


def test_thermal_only_receiver_reaches_its_q_at_sensitivity():
    """σ_th from a sensitivity S gives back Q at P = S with no ASE, for any extinction ratio."""
    for er in (4.0, 10.0, math.inf):
        sigma = amplifier.thermal_sigma_a(50e-6, er, 0.7, 7.0)
        assert amplifier.q_amplified(50e-6, er, 0.7, sigma, 0.0, 35e9, 18.75e9) == pytest.approx(7.0)


@given(n=st.integers(1, 100))
def test_more_amplifiers_lower_the_q(n):
    osnr = amplifier.chain_osnr_db(-10.0, 6.0, np.array([n, n + 1]), C / 1310e-9, 35e9)
    ase = amplifier.ase_psd_w_per_hz(1e-4, osnr, 35e9)
    q = amplifier.q_amplified(1e-4, 5.0, 0.7, 1e-6, ase, 35e9, 18.75e9)
    assert q[1] < q[0]


def test_thermal_sigma_recovers_the_tia_noise():
    """A thermal-noise receiver built from i_n·√B (photonics.receiver) gives back σ = i_n·√(0.75·BR)."""
    from photonics import receiver

    s = receiver.thermal_noise_sensitivity_w(25e9, 1e-12, 5.0, 0.7, 10.9e-12)
    sigma = amplifier.thermal_sigma_a(s, 5.0, 0.7, receiver.q_from_ber(1e-12))
    assert sigma == pytest.approx(10.9e-12 * math.sqrt(0.75 * 25e9), rel=1e-9)
