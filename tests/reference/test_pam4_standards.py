"""PAM4 standards' budgets in their own terms (IEEE 802.3bs clause 124 400GBASE-DR4, 802.3cu clause 151
400GBASE-FR4; the clause tables as compliant modules' datasheets restate them): a transmitter's launch in OMAouter
and its measured TDECQ, a receiver's OMAouter sensitivity, the channel insertion loss. The standard lets a
transmitter trade OMA for TDECQ one for one (OMAouter − TDECQ ≥ −2.2 dBm on DR4) and meets a stressed receiver
sensitivity of SECQ − 5.3 dBm: so along that line the budget leaves the same 0.1 dB whatever the TDECQ, on the
sloped part of both specifications (TDECQ ≥ 1.4 dB: below it the transmitter's OMA floor −0.8 dBm and the
receiver's −4.4 dBm bind, which the budget does not model; a warning says so)."""

import math
from pathlib import Path

import pytest

from photonics.link import evaluate
from sipml.cli import main
from sipml.design_files import load_design

CASES = Path(__file__).parents[2] / "sipml" / "cases" / "links"
DR4 = str(CASES / "400gbase-dr4.toml")


@pytest.mark.parametrize("tdecq_db", [1.4, 2.0, 3.4])
def test_dr4_trades_oma_for_tdecq_one_for_one(tdecq_db):
    est = evaluate(load_design(DR4, [f"transmitter.tdecq={tdecq_db} dB",
                                     f"transmitter.launch_power={tdecq_db - 2.2:.4f} dBm"]).link)
    assert est.margin_db == pytest.approx(0.1, abs=1e-9)
    assert [p.name for p in est.penalties] == ["extinction ratio", "TDECQ"]
    assert est.penalties[0].value_db == pytest.approx(0.0, abs=1e-12)  # OMA in, OMA sensitivity: no ER penalty


def test_a_measured_tdecq_leaves_the_reach_to_attenuation():
    """TDECQ is measured at the standard's reach: the fiber length the margin allows is the attenuation's alone
    (0.1 dB more at 0.5 dB/km: 200 m past the 500 m)."""
    est = evaluate(load_design(DR4).link)
    assert est.reach.max_fiber_length_m == pytest.approx(700.0, rel=1e-6)
    assert any("tdecq holds for the fiber it is measured through" in w for w in est.warnings)


def test_the_computed_penalties_and_a_measured_tdecq_exclude_each_other(capsys):
    """With eye_closure = 'tdecq' the transmitter's channel fields have no effect (refused, exit 2); a tdecq given
    without it has none either."""
    assert main(["budget", DR4, "--set", "transmitter.bandwidth=30 GHz"]) == 2
    assert "eye_closure" in capsys.readouterr().err
    assert main(["budget", DR4, "--set", "transmitter.eye_closure=model"]) == 2
    assert "tdecq" in capsys.readouterr().err


def test_the_computed_model_charges_the_channel_instead():
    """The same DR4 lane with the penalties computed (a 34 GHz source, the receiver at 0.8 of the symbol rate):
    channel ISI, RIN and dispersion in the ledger, no TDECQ line."""
    import tomllib

    data = tomllib.loads(Path(DR4).read_text())
    del data["transmitter"]["eye_closure"], data["transmitter"]["tdecq"]
    del data["receiver"]["sensitivity_floor"]  # a TDECQ budget's floor: the computed model has none
    from sipml.design_files import design_from_mapping

    est = evaluate(design_from_mapping(data, "dr4 computed").link)
    names = [p.name for p in est.penalties]
    assert "TDECQ" not in names and {"channel ISI", "RIN", "dispersion"} <= set(names)
    assert math.isfinite(est.margin_db)
