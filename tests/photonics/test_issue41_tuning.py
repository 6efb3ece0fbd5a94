"""Issue 41: `[tuning] strategy = "athermal"` heated every ring through 3σ of fabrication variation, which is not
what DSENT's athermal-with-trim charges (nothing: the rings are temperature-insensitive and trimmed once,
photonics-4.md E83). The two meanings are now two choices: 'athermal-untrimmed' (heaters still correct the
fabrication variation, E84, the old 'athermal') and 'athermal-with-trim' (no heater, a standing trim power per ring
that is 0 by DSENT and ≈ 231 µW per device measured by Zortman et al. 2010, E85)."""

import json
import math

import pytest

from core.errors import InputError
from core.fields import specs
from photonics.link_design import LaserSection, LinkDesign, TuningSection
from photonics.link import evaluate

C = 299792458.0
CLOSING = LaserSection(power_per_line=5e-3)  # every one of the 8 wavelengths on 10 fibers closes: 160 rings in use
RINGS = 2 * 10 * 8


def _tuning_w(**tuning) -> float:
    return evaluate(LinkDesign(tuning=TuningSection(**tuning), laser=CLOSING)).power_w["tuning"]


def _eta_hz_per_w(d: LinkDesign) -> float:
    """Heater efficiency: dn/dT · f0 / n_g-free shift per kelvin (E12, silicon at 1310 nm, n_g 4) × K/W."""
    return d.ring.dn_dt * C / 1310e-9 / 4.0 * d.tuning.heating_efficiency


def test_issue41_athermal_with_trim_charges_no_heater_power_by_default():
    """DSENT's AthermalWithTrim: 0 W of tuning for the 160 rings, no lock-yield risk (the offsets are trimmed)."""
    est = evaluate(LinkDesign(tuning=TuningSection(strategy="athermal-with-trim"), laser=CLOSING))
    assert est.power_w["tuning"] == 0.0
    assert est.tuning.ring_yield is None
    assert est.tuning.shift_needed_hz == 0.0
    assert not any(w.startswith("[tuning]") for w in est.warnings)


def test_issue41_athermal_with_trim_charges_the_trim_power_per_ring():
    """A standing trim of 231 µW per ring (Zortman et al. 2010) × 160 rings = 36.96 mW, whatever the sigmas."""
    assert _tuning_w(strategy="athermal-with-trim", trim_power=231e-6) == pytest.approx(RINGS * 231e-6, rel=1e-12)
    assert _tuning_w(strategy="athermal-with-trim", trim_power=231e-6, sigma_system=400e9) == pytest.approx(
        RINGS * 231e-6, rel=1e-12)


def test_issue41_athermal_untrimmed_heats_through_three_sigma():
    """E84: 160 rings × 3·√(40² + 200²) GHz / η, the old 'athermal' numbers under an honest name."""
    d = LinkDesign(tuning=TuningSection(strategy="athermal-untrimmed"), laser=CLOSING)
    expected = RINGS * 3 * math.hypot(40e9, 200e9) / _eta_hz_per_w(d)
    assert evaluate(d).power_w["tuning"] == pytest.approx(expected, rel=1e-12)
    assert evaluate(d).tuning.ring_yield is not None


def test_issue41_old_athermal_name_is_read_as_untrimmed_with_a_warning():
    old = evaluate(LinkDesign(tuning=TuningSection(strategy="athermal"), laser=CLOSING))
    new = evaluate(LinkDesign(tuning=TuningSection(strategy="athermal-untrimmed"), laser=CLOSING))
    assert old.power_w["tuning"] == new.power_w["tuning"] > 0
    assert old.tuning.ring_yield == new.tuning.ring_yield
    [warning] = [w for w in old.warnings if w.startswith("[tuning] strategy 'athermal'")]
    assert "'athermal-untrimmed'" in warning and "'athermal-with-trim'" in warning and "\n" not in warning
    assert not any("[tuning] strategy" in w for w in new.warnings)


def test_issue41_the_help_gives_dsent_meanings():
    help_text = specs(TuningSection)["strategy"].help
    for name in ("AthermalWithTrim", "FullThermal", "ThermalWithBitReshuffle", "E83", "E84"):
        assert name in help_text
    assert "E85" in specs(TuningSection)["trim_power"].source


def test_issue41_trim_power_has_a_unit_and_a_bound():
    with pytest.raises(InputError, match="trim_power"):
        TuningSection(strategy="athermal-with-trim", trim_power=-1e-3)


def test_a_gap_between_the_grid_and_the_fsr_is_said_with_what_it_costs_against_e11(capsys):
    """Nearest-channel tuning heats each ring through the widest gap between channel slots around the FSR: a 5 µm
    ring (FSR ≈ 2.39 THz at n_g 4) under 16 channels at 100 GHz leaves an 886 GHz gap, so a bank draws
    16 × 886 / 2386 ≈ 5.9× DSENT's FSR/η (E11, which assumes the grid fills the FSR) and `budget` says so, at any
    excess above 25 % (it said nothing below an FSR of 1.5 grids: here 1.49). The default design's grid fills its
    FSR (8 × 200 GHz in 1.60 THz): nothing to say."""
    from tests.sipml.cli_run import run

    gap = ["--set", "ring.radius=5 um", "--set", "link.wavelengths_per_fiber=16", "--set",
           "link.channel_spacing=100 GHz", "--set", "laser.lines=16"]
    code, out, err = run(capsys, "budget", *gap, "-f", "json")
    warned = [w for w in json.loads(out)["warnings"] if w.startswith("[tuning] the grid's channels")]
    assert code == 0 and len(warned) == 1, err
    fsr = C / (4.0 * 2 * math.pi * 5e-6)
    over = 16 * (fsr - 15 * 100e9) / fsr
    assert over == pytest.approx(5.9, abs=0.05) and f"{over:.2g}× the FSR/η per ring bank" in warned[0]
    code, out, _ = run(capsys, "budget", "-f", "json")
    assert not [w for w in json.loads(out)["warnings"] if w.startswith("[tuning] the grid's")]
