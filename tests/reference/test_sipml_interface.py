"""SiP-ML's optical interface (shared/reference/sipml.md, [sim]): per-GPU bandwidth N_λ × 25 Gbps for the swept
wavelength counts, 20 … 320 λ per GPU over 10 transmit fibers."""

import pytest

from photonics.design import LaserSection, LinkDesign, LinkSection
from photonics.link import evaluate


def sweep_design(total_wavelengths: int) -> LinkDesign:
    per_fiber = total_wavelengths // 10
    return LinkDesign(link=LinkSection(wavelengths_per_fiber=per_fiber, fibers_per_direction=10),
                      laser=LaserSection(lines=per_fiber, power_per_line=5e-3))


@pytest.mark.parametrize("total_wavelengths, tbps", [(20, 0.5), (40, 1.0), (80, 2.0), (160, 4.0)])
def test_per_gpu_bandwidth(total_wavelengths, tbps):
    """Up to 16 λ per fiber fit the default 3 µm ring's 19 channels at 200 GHz; with one 5 mW comb line per
    wavelength the link closes and delivers N_λ × 25 Gbps."""
    est = evaluate(sweep_design(total_wavelengths))
    assert est.feasible, est.violations
    assert est.capacity_bps == pytest.approx(tbps * 1e12)


def test_320_wavelengths_do_not_fit_one_ring_fsr_on_10_fibers():
    """32 λ per fiber at 200 GHz need 6.4 THz, more than the 3.98 THz FSR of a 3 µm ring: SiP-ML's largest point
    needs more fibers or a denser grid, and the calculator says which limit binds."""
    est = evaluate(sweep_design(320))
    assert not est.feasible
    assert est.binding_limit.startswith("fsr_channels") or est.binding_limit.startswith("power_budget")
    assert est.wavelength_limits["fsr_channels"] == 19
    assert est.capacity_bps < 8e12


def test_default_design_is_sipml_2tbps_and_feasible():
    """The default design everywhere is the built-in sip-ring: SiP-ML's 80 λ × 25 Gbps, feasible."""
    from sipml.design import load_design

    est = evaluate(load_design(None).link)
    assert est.feasible, est.violations
    assert est.capacity_bps == pytest.approx(2e12)
    assert est.design.link.data_rate == 25e9


def test_library_default_link_falls_short_by_its_own_filtering():
    """The library's default link (a 16-line 3 mW comb, 10 m of fiber) closed 8 λ with 0.5 dB to spare before the
    drop filter's own ISI was counted: E18a at Δ = (f0/6500)/25 GHz = 1.408 costs 1.10 dB, the comb's −135 dB/Hz RIN
    over 18.75 GHz at Q 7.034 another 0.13 dB (E30). It now falls short by less than those two together."""
    import math

    est = evaluate(LinkDesign())
    delta = 299792458.0 / 1310e-9 / 6500 / 25e9
    isi = -10 * math.log10(1 - (1 - math.exp(-math.pi * delta)) / (math.pi * delta))
    rin = -10 * math.log10(1 - 10 ** -13.5 * 18.75e9 * 7.0344 ** 2)
    assert isi == pytest.approx(1.098, abs=1e-3) and rin == pytest.approx(0.129, abs=1e-3)
    assert -(isi + rin) < est.margin_db < 0
    assert est.binding_limit == "power_budget"
