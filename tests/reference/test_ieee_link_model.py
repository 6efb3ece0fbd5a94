"""The IEEE 802.3 worst-case link model through the point-to-point budget users run: 10GBASE-S over five multimode
fibers and 10GBASE-LX4 over 62.5 µm fiber at 1269 nm, each design written as the standard's link model states it.

Source: D. Hanson, D. Cunningham, P. Dawe, D. Dolfi, IEEE 802.3ae link model 10GEPBud3_1_16a (2001), the sheets
850S62_160, 850S62_200, 850S50_400, 850S50_500, 850S2000 and LX4_62MMF; inputs and results read from its cells (copy
in github.com/Belden-Montreal/Fiber-Python-Code, first commit 46d63a9) [verbatim]. Penalties are the sheets' column V
(link penalties, attenuation excluded), margins column W, at each sheet's target reach; the model's zero-margin reaches
are interpolated from the OM3 sheet's length sweep and the others' slopes [computed, ±2 %]. Published operating
distances 26/33/66/82/300 m: IEEE 802.3 Table 52-9 as restated in the Intel X520-SR2 brief.
"""

import math

import pytest

from photonics import channel
from photonics.link_design import (FiberSection, LaserSection, LinkDesign, LinkSection, LossSection, ReceiverSection,
                              TransmitterSection)
from photonics.link import evaluate


def _attenuation_db_per_m(at_reference_db_per_km: float, reference: float, wavelength_nm: float) -> float:
    """The link model's attenuation law, α(λ) = (α_ref/k)·(1.05 + (1/(0.00094·λ[nm]))⁴) dB/km, k = 3.5 at 850 nm
    and 1.5 at 1300 nm on multimode fiber (10GEPBud) [verbatim]."""
    return at_reference_db_per_km / reference * (1.05 + (1 / (0.00094 * wavelength_nm)) ** 4) / 1e3


def _rise_20_80_as_bandwidth(rise_s: float) -> float:
    """A source's 20–80 % rise time as the electro-optic bandwidth whose Gaussian 10–90 % rise time (1.518× longer,
    10GEPBud) it is."""
    return channel.ELECTRICAL_RISE_BANDWIDTH / (1.518 * rise_s)


def ten_gbase_s(modal_mhz_km, length_m, connection_db, attenuation_db_per_km, lambda0_nm, s0, modal_noise_db, dcd_s):
    return LinkDesign(
        link=LinkSection(kind="point-to-point", data_rate=10.3125e9, wavelength=840e-9, fibers_per_direction=1),
        laser=LaserSection(kind="vcsel", rin="-130 dB/Hz", rin_type="oma"),
        transmitter=TransmitterSection(launch_power=1e-3 * 10 ** (-3.8 / 10), launch_power_type="oma",
                                       extinction_ratio=3.0, bandwidth=_rise_20_80_as_bandwidth(35e-12),
                                       spectral_width=0.29e-9, duty_cycle_distortion=dcd_s, deterministic_jitter=dcd_s,
                                       mode_partition_k=0.3),
        fiber=FiberSection(type="mmf", modal_bandwidth=modal_mhz_km * 1e9, zero_dispersion_wavelength=lambda0_nm * 1e-9,
                           dispersion_slope=s0 * 1e3, dispersion_model="gaussian-channel", modal_noise=modal_noise_db),
        loss=LossSection(connectors=1, connector_loss=connection_db, fiber_length=length_m,
                         fiber_loss=_attenuation_db_per_m(attenuation_db_per_km, 3.5, 840)),
        receiver=ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-11.1 / 10), sensitivity_type="oma",
                                 bandwidth_to_symbol_rate=8250 / 10312.5, baseline_wander=0.025))


def ten_gbase_lx4_62():
    return LinkDesign(
        link=LinkSection(kind="point-to-point", data_rate=3.125e9, wavelength=1269e-9, fibers_per_direction=1),
        laser=LaserSection(kind="vcsel", rin="-120 dB/Hz", rin_type="oma"),
        transmitter=TransmitterSection(launch_power=1e-3, launch_power_type="oma", extinction_ratio=3.5033,
                                       bandwidth=_rise_20_80_as_bandwidth(120e-12), spectral_width=0.62e-9,
                                       duty_cycle_distortion=14e-12, deterministic_jitter=96e-12, mode_partition_k=0.3),
        fiber=FiberSection(type="mmf", modal_bandwidth=500e9, zero_dispersion_wavelength=1365e-9,
                           dispersion_slope=0.093e3, dispersion_model="gaussian-channel", modal_noise=0.3),
        loss=LossSection(connectors=1, connector_loss=2.0, fiber_length=300.0,
                         fiber_loss=_attenuation_db_per_m(1.5, 1.5, 1269)),
        receiver=ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-8 / 10), sensitivity_type="oma",
                                 bandwidth_to_symbol_rate=2550 / 3125))


# (modal bandwidth MHz·km, target reach m, connections dB, α at 850 nm dB/km, λ0 nm, S0, modal noise dB, DCD s,
#  penalties dB, margin dB, zero-margin reach m, published distance m)
TEN_GBASE_S = [
    (160.0, 26.0, 1.5 + 0.84, 3.75, 1365, 0.093, 0.15, 7.7e-12, 3.942, 0.917, 29.2, 26),
    (200.0, 33.0, 1.5 + 0.81, 3.75, 1365, 0.093, 0.15, 7.7e-12, 4.045, 0.817, 36.5, 33),
    (400.0, 66.0, 1.5 + 0.63, 3.5, 1320, 0.110, 0.30, 7.7e-12, 4.261, 0.670, 71.6, 66),
    (500.0, 82.0, 1.5 + 0.57, 3.5, 1320, 0.110, 0.30, 7.7e-12, 4.230, 0.703, 89.3, 82),
    (2000.0, 300.0, 1.5, 3.5, 1320, 0.110, 0.30, 6.0e-12, 3.920, 0.794, 329.0, 300),
]


@pytest.mark.parametrize("row", TEN_GBASE_S, ids=[f"{r[0]:.0f}MHzkm" for r in TEN_GBASE_S])
def test_10gbase_s_penalties_margin_and_reach(row):
    *inputs, penalties, margin, zero_margin_m, published_m = row
    est = evaluate(ten_gbase_s(*inputs))
    assert sum(p.value_db for p in est.penalties) == pytest.approx(penalties, abs=0.1)
    assert est.margin_db == pytest.approx(margin, abs=0.1)
    assert est.max_fiber_length_m == pytest.approx(zero_margin_m, rel=0.05)
    assert est.max_fiber_length_m > published_m  # the standard's distance closes with margin left


def test_10gbase_lx4_on_62_5_um_fiber_at_1269_nm():
    """Multimode fiber in the 1300 nm window: 5.368 dB of penalties, 0.169 dB margin at 300 m (LX4_62MMF)."""
    est = evaluate(ten_gbase_lx4_62())
    assert sum(p.value_db for p in est.penalties) == pytest.approx(5.368, abs=0.1)
    assert est.margin_db == pytest.approx(0.169, abs=0.1)
    jittered = next(p.value_db for p in est.penalties if p.key == "channel_isi")
    bare = evaluate(LinkDesign(**{**{f: getattr(ten_gbase_lx4_62(), f) for f in ("link", "laser", "fiber", "loss",
                                                                                     "receiver")},
                                  "transmitter": TransmitterSection(
                                      launch_power=1e-3, launch_power_type="oma", extinction_ratio=3.5033,
                                      bandwidth=_rise_20_80_as_bandwidth(120e-12), spectral_width=0.62e-9,
                                      mode_partition_k=0.3)}))
    assert jittered > next(p.value_db for p in bare.penalties if p.key == "channel_isi")  # DCD and DJ close the eye


def test_the_penalties_grow_with_length_as_a_curve():
    """No cut-off: on OM3 the penalties rise smoothly with length and the reach is where the margin reaches zero
    (10GEPBud OM3 sweep: penalties 2.315 / 3.000 / 3.920 / 5.185 dB at 200 / 250 / 300 / 350 m)."""
    sweep = {200.0: 2.315, 250.0: 3.000, 300.0: 3.920, 350.0: 5.185}
    for length, expected in sweep.items():
        est = evaluate(ten_gbase_s(2000.0, length, 1.5, 3.5, 1320, 0.110, 0.30, 6.0e-12))
        assert sum(p.value_db for p in est.penalties) == pytest.approx(expected, abs=0.1)
    at_reach = evaluate(ten_gbase_s(2000.0, 329.0, 1.5, 3.5, 1320, 0.110, 0.30, 6.0e-12))
    assert math.isclose(at_reach.margin_db, 0.0, abs_tol=0.1)
