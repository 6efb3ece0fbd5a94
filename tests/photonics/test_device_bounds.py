"""Bounds a device sets that the budget must honour, through the commands users run: an all-pass ring modulator's
extinction ratio within its own notch (photonics-4.md E61b: T₀ = T₁/ER must stay above the through transmission on
resonance, t0 = (2·Q_L/Q_i − 1)² from its loaded and intrinsic Q, Haus 1984), and the fibers a package escapes
within its perimeter."""

import json
import math

import pytest

from tests.sipml.cli_run import run


def budget(capsys, *sets):
    code, out, err = run(capsys, "budget", *(f for s in sets for f in ("--set", s)), "-f", "json")
    assert code == 0, err
    return json.loads(out)


def _notch(data) -> list:
    return [v for v in data["violations"] if v["name"] == "modulator_notch"]


def test_an_over_coupled_all_pass_ring_cannot_make_the_extinction_ratio(capsys):
    """Q 6000 against the ring's intrinsic Q (~1.2e5): t0 = (2·6000/Q_i − 1)² ≈ 0.81, a 0.92 dB notch: no ER above
    it, whatever the drive (30 dB was judged feasible). The message gives the depth by hand."""
    data = budget(capsys, "modulator.kind=all-pass", "modulator.extinction_ratio=30 dB")
    assert not data["feasible"]
    (notch,) = _notch(data)
    qi = float(notch["message"].split("intrinsic Q ")[1].split(")")[0])
    t0 = (2 * 6000 / qi - 1) ** 2
    assert f"{-10 * math.log10(t0):.3g} dB deep" in notch["message"]
    # ER just inside the notch below a 0 dB insertion loss: reachable; just beyond it: not
    er_max = -10 * math.log10(t0)
    inside = budget(capsys, "modulator.kind=all-pass", "modulator.insertion_loss=0 dB",
                    f"modulator.extinction_ratio={er_max * 0.99} dB")
    beyond = budget(capsys, "modulator.kind=all-pass", "modulator.insertion_loss=0 dB",
                    f"modulator.extinction_ratio={er_max * 1.01} dB")
    assert not _notch(inside) and _notch(beyond)


def test_critical_coupling_makes_the_notch_deep_and_add_drop_rings_have_no_such_bound(capsys):
    """At Q_L = Q_i/2 the all-pass notch is as deep as the ring gets (t0 → 0): a 7 dB ER is reachable; an add-drop
    modulator (its drop port falls to nothing off resonance) is never bounded so."""
    data = budget(capsys, "modulator.kind=all-pass")
    qi = float(_notch(data)[0]["message"].split("intrinsic Q ")[1].split(")")[0])
    critical = budget(capsys, "modulator.kind=all-pass", f"modulator.q={qi / 2 * 1.02:.0f}")
    assert not _notch(critical)
    assert not _notch(budget(capsys, "modulator.extinction_ratio=30 dB"))  # add-drop, the default


def test_the_package_perimeter_caps_the_fibers_more_chiplets_escape(capsys):
    """photonics.md, packaging: the fibers escape through the package's edge. 256 chiplets of 5 mm on a 55 × 55 mm
    package (220 mm of perimeter) are 44 that fit: ⌊44 × ⌊5 mm / 127 µm⌋ / 2⌋ = ⌊44 × 39 / 2⌋ = 858 fibers a
    direction, and the capacity with the counts lifted rides on those (it rode on 256 × 39 / 2 = 4 992)."""
    data = budget(capsys, "package.chiplets=256")
    assert data["escape_fibers_per_direction"] == 858
    assert data["max_capacity_gbps"] == pytest.approx(data["lifted_limits_gbps"]["package_escape"])
    one = budget(capsys)  # one chiplet, well inside the edge: ⌊39 / 2⌋
    assert one["escape_fibers_per_direction"] == 19


def test_a_low_finesse_ring_is_said_to_be_outside_the_lorentzian_forms(capsys):
    """A drop filter of Q 200 at 1310 nm has a 1.14 THz FWHM in a 1.60 THz FSR (finesse 1.4): its tails reach the
    next order, which the single-resonance Lorentzian forms (E4–E6) do not describe; `budget` warns (it said nothing,
    down to Q 1.0001, finesse 0.007). The default filter (finesse ≈ 45) raises no such warning."""
    code, out, _ = run(capsys, "budget", "--set", "ring.filter_q=200", "-f", "json")
    warned = [w for w in json.loads(out)["warnings"] if "finesse" in w]
    assert code == 0 and len(warned) == 1 and warned[0].startswith("[ring] the drop filter's finesse is 1.4 ")
    code, out, _ = run(capsys, "budget", "-f", "json")
    assert not [w for w in json.loads(out)["warnings"] if "finesse" in w]


def test_the_crosstalk_line_says_how_its_sum_is_weighted_by_the_comb_envelope(capsys):
    """The printed ΣX is E6's sum over the aggressors at the mean line power relative to the weakest line, which
    sits `flatness` below: the default comb's 3 dB doubles it (0.0262 → 0.0522). A user checking E6 by hand read the
    weighted figure as the sum; the ledger now gives both, and a DFB array (no envelope) the sum alone."""
    import re

    data = budget(capsys)
    detail = next(line["detail"] for line in data["ledger"] if line["name"] == "penalty: crosstalk")
    printed, summed = (float(x) for x in re.match(r"ΣX ([0-9.]+) at the weakest line \(E6's sum ([0-9.]+) of "
                                                  r"aggressors at the mean line power, the victim 3 dB below\)",
                                                  detail).groups())
    assert printed == pytest.approx(summed * 10 ** 0.3, abs=1e-4)
    dfb = budget(capsys, "laser.kind=dfb")
    detail = next(line["detail"] for line in dfb["ledger"] if line["name"] == "penalty: crosstalk")
    assert detail.startswith(f"ΣX {summed:.4f} at the weakest line, 8 channels")
