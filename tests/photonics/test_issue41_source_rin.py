"""Issue 41: a point-to-point DFB inherited the comb laser's −135 dB/Hz RIN when none was given, so a 106G PAM4 lane
without FEC (BER 1e-12) came out infeasible: at Q ≈ 7 the comb's RIN over the receiver's noise bandwidth closes the
eye (E30, r_I·Q ≥ 1). Each source type now has its own default (photonics.link_design.SOURCE_RIN, photonics-2.md §6)."""

import json

import pytest

from core.errors import InputError
from photonics.link_design import SOURCE_RIN, LaserSection, LinkDesign, LinkSection, ReceiverSection
from photonics.link import evaluate

PAM4_106G = """
[link]
kind = "point-to-point"
data_rate = "106.25 Gbit/s"
modulation = "pam4"
wavelength = "1311 nm"
fec = "none"
fibers_per_direction = 4

[laser]
kind = "dfb"

[fiber]
type = "smf"

[receiver]
model = "thermal-noise"
"""


def _pam4_dfb(**laser) -> LinkDesign:
    return LinkDesign(link=LinkSection(kind="point-to-point", data_rate=106.25e9, modulation="pam4",
                                       wavelength=1311e-9, fec="none", fibers_per_direction=4),
                      laser=LaserSection(kind="dfb", **laser), receiver=ReceiverSection(model="thermal-noise"))


def test_issue41_106g_pam4_dfb_with_no_rin_given_closes_with_margin(cli, tmp_path):
    design = tmp_path / "pam4-dfb.toml"
    design.write_text(PAM4_106G)
    code, out, err = cli("budget", str(design), "-f", "json")
    assert code == 0, err
    budget = json.loads(out)
    assert budget["feasible"] and budget["margin_db"] > 3.0
    assert not any("[laser] rin" in w for w in budget["warnings"])
    # the same lane at the comb's −135 dB/Hz does not close: the default was the whole difference
    code, out, _ = cli("budget", str(design), "--set", "laser.rin=-135 dB/Hz", "-f", "json")
    assert not json.loads(out)["feasible"]


def test_issue41_the_dfb_rin_penalty_is_its_own_figure():
    """−155 dB/Hz over the PAM4 receiver's bandwidth costs a fraction of a dB (E30), where −135 costs the link."""
    est = evaluate(_pam4_dfb())
    rin = next(p.value_db for p in est.penalties if p.key == "rin")
    assert 0.0 < rin < 0.1
    assert est.design.laser.rin == -155.0


@pytest.mark.parametrize("kind", ["comb", "dfb", "dml", "vcsel"])
def test_issue41_each_source_type_has_its_own_default(kind):
    laser = LaserSection(kind=kind)
    assert (laser.rin, laser.rin_type) == SOURCE_RIN[kind]
    assert LaserSection(kind=kind, rin="source") == laser


def test_issue41_the_sourced_defaults():
    """comb −135 average (Buyalo 2024), DFB −155 average (the worse end of −155…−165), DML −136 RIN_OMA (IEEE 802.3
    400GBASE-DR4/FR4 limit), VCSEL −128 RIN_OMA (10GBASE-SR RIN12OMA)."""
    assert SOURCE_RIN == {"comb": (-135.0, "average"), "dfb": (-155.0, "average"), "dml": (-136.0, "oma"),
                          "vcsel": (-128.0, "oma")}
    assert LinkDesign().laser.rin == -135.0  # the ring-wdm chiplet's comb is unchanged


def test_issue41_a_given_rin_is_kept_with_its_reference():
    laser = LaserSection(kind="vcsel", rin=-130.0)
    assert (laser.rin, laser.rin_type) == (-130.0, "average")
    assert LaserSection(kind="dml", rin=-140.0, rin_type="oma").rin_type == "oma"
    with pytest.raises(InputError, match="source"):
        LaserSection(kind="dfb", rin="sauce")
