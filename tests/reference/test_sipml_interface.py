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
    est = evaluate(LinkDesign())
    assert est.feasible, est.violations
    assert est.capacity_bps == pytest.approx(2e12)
    assert est.design.link.data_rate == 25e9
