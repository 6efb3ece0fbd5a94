"""SiP-ML's optical interface (shared/reference/sipml.md, [sim]): per-GPU bandwidth N_λ × 25 Gbps for the swept
wavelength counts, 20 … 320 λ per GPU over 10 transmit fibers."""

import pytest

from photonics.link_design import LaserSection, LinkDesign, LinkSection
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
    from sipml.design_files import load_design

    est = evaluate(load_design(None).link)
    assert est.feasible, est.violations
    assert est.capacity_bps == pytest.approx(2e12)
    assert est.design.link.data_rate == 25e9


def test_library_default_link_closes_once_its_filter_is_charged_for_on_off_keying():
    """The library's default link (a 16-line 3 mW comb, 10 m of fiber) fell short when the drop filter's ISI was the
    zero-mean energy model (E18a at Δ = (f0/6500)/25 GHz = 1.408: 1.10 dB) and every passed ring paid a flat 0.01 dB
    on top of its computed tail. On-off-keyed light keeps its carrier, so the worst-case eye 1 − 2e^(−πΔ) costs
    0.105 dB (E18b), and DSENT's 0.01 dB is the tail itself (R10): the margin moves by exactly those two
    corrections — 0.99 dB of ISI and 14 × 0.01 dB on 7 + 7 passed rings — and all 8 λ close (2000 Gbps)."""
    import math

    from photonics.link_design import RingSection

    est = evaluate(LinkDesign())
    delta = 299792458.0 / 1310e-9 / 6500 / 25e9
    eye = -10 * math.log10(1 - 2 * math.exp(-math.pi * delta))
    energy = -10 * math.log10(1 - (1 - math.exp(-math.pi * delta)) / (math.pi * delta))
    assert eye == pytest.approx(0.105, abs=1e-3) and energy == pytest.approx(1.098, abs=1e-3)
    assert next(p.value_db for p in est.penalties if p.key == "filter_isi") == pytest.approx(eye, rel=1e-12)
    old = evaluate(LinkDesign(ring=RingSection(filter_isi="energy", through_excess_loss=0.01)))
    assert est.margin_db - old.margin_db == pytest.approx((energy - eye) + 14 * 0.01, abs=1e-9)
    assert old.margin_db < 0 < est.margin_db
    assert est.capacity_bps == pytest.approx(2e12) and old.capacity_bps < est.capacity_bps
