"""SiP-ML's optical interface (shared/reference/sipml.md [sim]): per-GPU bandwidth N_λ × 25 Gbps for the
swept wavelength counts, carried by the default design's 10 transmit fibers."""

import pytest

from photonics.design import LaserSection, LinkDesign, LinkSection
from photonics.link import evaluate


@pytest.mark.parametrize("total_wavelengths, tbps", [(20, 0.5), (40, 1.0), (80, 2.0), (160, 4.0), (320, 8.0)])
def test_per_gpu_bandwidth(total_wavelengths, tbps):
    d = LinkDesign(link=LinkSection(wavelengths_per_fiber=total_wavelengths // 10, fibers_per_direction=10),
                   laser=LaserSection(lines=64))
    est = evaluate(d)
    assert est.limits_bps["requested"] == pytest.approx(tbps * 1e12)


def test_default_design_is_sipml_2tbps_and_feasible():
    est = evaluate(LinkDesign())
    assert est.feasible, est.violations
    assert est.capacity_bps == pytest.approx(2e12)
    assert est.design.link.data_rate == 25e9
