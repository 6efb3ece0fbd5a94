"""Issue 41, two wrong answers of the link, through the real command line.

1. The laser inverse honours the aggregate power cap. A 16-line comb at 50 Gbit/s, Q 8000, 100 GHz spacing: the
   100 mW (20 dBm) waveguide cap leaves each of the 16 lines 20 − 10·log10 16 = 7.96 dBm in the bus, the weakest
   3 dB below (the comb's envelope): 4.96 dBm, whatever the laser gives. The budget needs 8.27 dBm there, so no
   line power closes (the old inverse said 12.52 dBm, which fails by the same 3.31 dB as 20 dBm does). The
   summary, the JSON, `check`, the sweep's column and `explain` say so alike.
2. The binding-limit text and the limits table read one record: the default design's lifted capacity, 8
   wavelengths × 25 Gbit/s × 19 escaped fibers = 3800 Gbit/s, is bound by its tightest wavelength limit and by the
   package, and the table's lifted column marks those two, at that capacity (the summary used to name
   fsr_channels alone while its table gave the 3800 to package_escape).
"""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sipml.cli_run import run

CAPPED = ["--set", "link.wavelengths_per_fiber=16", "--set", "link.data_rate=50 Gbit/s", "--set",
          "ring.filter_q=8000", "--set", "laser.lines=16", "--set", "link.channel_spacing=100 GHz"]
CAP_SHARE_DBM = 20.0 - 10 * math.log10(16) - 3.0  # the cap's share of the weakest of 16 lines, 3 dB comb envelope
REASON = "no power closes: the aggregate cap of 100 mW over 16 lines binds"


def budget_json(capsys, *argv):
    code, out, _ = run(capsys, "budget", *argv, "-f", "json")
    assert code in (0, 1)
    return json.loads(out)


def ledger_value(data, name):
    return next(line["value"] for line in data["ledger"] if line["name"] == name)


def test_issue41_no_line_power_closes_where_the_aggregate_cap_binds(capsys):
    data = budget_json(capsys, *CAPPED)
    assert data["min_laser_power_per_line_dbm"] is None
    assert data["no_power_closes"].startswith(REASON)
    assert f"{CAP_SHARE_DBM:.2f} dBm of the weakest line enters the bus" in data["no_power_closes"]
    # what the weakest line must bring to the bus: its launch less its margin (8.27 dBm), above the cap's share
    needed = ledger_value(data, "weakest line entering the bus") - data["margin_db"]
    assert f"{needed:.2f} dBm needed" in data["no_power_closes"] and needed > CAP_SHARE_DBM
    for dbm in (13, 20, 30):  # the old answer was 12.52 dBm: every stronger laser stops at the cap's share
        strong = budget_json(capsys, *CAPPED, "--set", f"laser.power_per_line={dbm} dBm")
        assert strong["margin_db"] == pytest.approx(CAP_SHARE_DBM - needed, abs=1e-9)
        assert strong["margin_db"] == pytest.approx(-3.31, abs=0.005)
        assert strong["min_laser_power_per_line_dbm"] is None and strong["no_power_closes"].startswith(REASON)

    _, out, _ = run(capsys, "budget", *CAPPED)
    row = next(line for line in out.splitlines() if line.startswith("min laser power per line"))
    assert "–" in row and REASON in row

    code, out, _ = run(capsys, "check", "sip-ring", *CAPPED, "-f", "json")
    assert code == 1
    message = next(v["message"] for v in json.loads(out)["violations"] if v["name"] == "power_budget")
    assert REASON in message


def test_issue41_the_sweep_column_and_explain_honour_the_cap(capsys):
    """At 25 Gbit/s the same comb closes (it needs 2.24 dBm at the bus, under the cap's 4.96): the sweep's column
    gives the budget's own answer there, and none at 50 Gbit/s."""
    code, out, _ = run(capsys, "sweep", *CAPPED, "--vary", "link.data_rate=25 Gbit/s,50 Gbit/s", "-f", "json")
    assert code == 0
    rows = {row["link.data_rate [Gbit/s]"]: row for row in map(json.loads, out.splitlines())}
    assert rows[50.0]["min_laser_power_per_line_dbm [dBm]"] is None
    slow_design = [value.replace("50 Gbit/s", "25 Gbit/s") for value in CAPPED]
    slow = budget_json(capsys, *slow_design)
    assert slow["min_laser_power_per_line_dbm"] is not None and slow["no_power_closes"] is None
    assert rows[25.0]["min_laser_power_per_line_dbm [dBm]"] == pytest.approx(slow["min_laser_power_per_line_dbm"],
                                                                             abs=1e-9)
    code, _, err = run(capsys, "explain", "min_laser_power_per_line_dbm", *CAPPED)
    assert code == 1 and REASON in err  # an infeasible link: exit 1, as `check`
    code, out, _ = run(capsys, "explain", "min_laser_power_per_line_dbm", *slow_design, "-f", "json")
    formula = json.loads(out)
    assert code == 0 and r"P_{\mathrm{cap}}" in formula["formula_latex"]  # the closed form names the cap
    _, out, _ = run(capsys, "explain")
    assert "P_max - 10*log10(N) >=" in out and "otherwise no line power closes" in out


def test_issue41_the_least_line_power_closes_at_zero_margin_under_the_cap(capsys):
    """Where the cap leaves room, the reported least power closes with margin 0, and the cap still clips a stronger
    laser: its weakest line enters the bus at the cap's share."""
    sixteen_lines = ["--set", "laser.lines=16"]  # 16 lines share the cap; the design's 8 wavelengths are used
    least = budget_json(capsys, *sixteen_lines)["min_laser_power_per_line_dbm"]
    assert least is not None
    at_least = budget_json(capsys, *sixteen_lines, "--set", f"laser.power_per_line={least:.9f} dBm")
    assert at_least["margin_db"] == pytest.approx(0.0, abs=1e-6)
    clipped = budget_json(capsys, *sixteen_lines, "--set", "laser.power_per_line=30 dBm")
    assert ledger_value(clipped, "weakest line entering the bus") == pytest.approx(CAP_SHARE_DBM, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(p_max=st.floats(0, 30), n=st.integers(1, 64), s=st.floats(-35, -5), pp=st.floats(0, 10),
       il=st.floats(0, 20), m=st.floats(0, 6), source=st.floats(0, 6))
def test_issue41_the_capped_inverse_is_the_symbolic_form_where_its_condition_holds(p_max, n, s, pp, il, m, source):
    """sympy's least line power, P = IL + PP + S + M, holds where P_max − 10·log10 N reaches it; the kernel gives it
    (plus the source's loss) there and none elsewhere, and a line at that power closes with the cap applied."""
    from photonics import budget, symbolic

    cap_share = p_max - 10 * math.log10(n)
    found = float(budget.min_line_power_capped_dbm(s, il, pp, m, source_loss_db=source, cap_share_dbm=cap_share))
    if symbolic.holds("min_line_power")(P_max=p_max, N=n, S=s, PP=pp, IL=il, M=m):
        assert found == pytest.approx(symbolic.numeric("min_line_power")(S=s, PP=pp, IL=il, M=m) + source, abs=1e-9)
        launch = budget.launch_power_dbm(found - source, p_max, n)
        assert budget.margin_db(launch, il, pp, s, m) == pytest.approx(0.0, abs=1e-9)
    else:
        assert math.isnan(found)
        assert budget.margin_db(budget.launch_power_dbm(1e3, p_max, n), il, pp, s, m) < 0  # no laser closes it


def limits_table(out: str) -> dict:
    """{limit: (cell at the design's counts, cell with the counts lifted)} of the budget's markdown limits table."""
    section = out[out.index("every limit"):].split("\n\n")[1]
    rows = [line.strip("|").split("|") for line in section.splitlines()[2:]]
    return {cells[0].strip(): (cells[1].strip(), cells[2].strip()) for cells in rows}


def test_issue41_the_lifted_binding_limits_and_the_limits_table_agree(capsys):
    data = budget_json(capsys)
    assert data["max_capacity_gbps"] == pytest.approx(8 * 25 * 19)  # 8 wavelengths, 25 Gbit/s, 19 escaped fibers
    named = data["max_binding_limit"].split("+")
    assert named == ["fsr_channels", "package_escape"]  # the tightest wavelength limit (first on ties), the package
    assert min(data["lifted_limits_gbps"].values()) == pytest.approx(data["max_capacity_gbps"])

    _, out, _ = run(capsys, "budget", "-f", "markdown")
    summary = next(line for line in out.splitlines() if "max capacity (counts lifted)" in line)
    assert "3,800" in summary and "bound by fsr_channels+package_escape" in summary
    table = limits_table(out)
    marked = {limit for limit, (_, lifted) in table.items() if lifted.endswith("← binds")}
    assert marked == set(named)
    for limit in named:
        assert table[limit][1].startswith("3,800 Gbit/s")
    assert {limit for limit, (at, _) in table.items() if at.endswith("← binds")} == {data["binding_limit"]}


# --- FER ↔ BER per code (fabric-photonics-3.md F39–F42, its table; photonics-2.md R12) -----------------------------
@pytest.mark.parametrize("code, fer, ber", [("kr4", 4.40e-10, 5e-5), ("kp4", 8.15e-13, 2.4e-4),
                                            ("kp4", 1.36e-18, 1e-4)])
def test_a_frame_error_target_gives_the_pre_fec_ber_the_table_does(code, fer, ber):
    from photonics import fec

    assert fec.pre_fec_ber_for_frames(fer, fec.CODES[code]) == pytest.approx(ber, rel=0.01)
    c = fec.CODES[code]
    assert fec.frame_error_ratio(ber, c.n, c.t, c.symbol_bits) == pytest.approx(fer, rel=0.01)


def test_budget_and_sweep_design_to_a_frame_error_ratio(capsys):
    import json

    from tests.sipml.cli_run import run

    args = ("--set", "link.fec=kp4", "--set", "link.fec_target=frame-error")
    code, out, err = run(capsys, "budget", *args, "--set", "link.frame_error_ratio=8.15e-13", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["target_ber"] == pytest.approx(2.4e-4, rel=0.01)
    code, out, err = run(capsys, "sweep", *args, "--vary", "link.frame_error_ratio=1e-18,8.15e-13", "-f", "json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    margins = [r["margin_db [dB]"] for r in rows]
    assert margins[0] < margins[1]  # a stricter frame target needs a lower pre-FEC BER: less margin
    code, out, err = run(capsys, "budget", "--set", "link.frame_error_ratio=1e-12")
    assert code == 2 and "applies only when" in err


def test_a_dml_width_narrower_than_its_chirp_spans_is_named(tmp_path, capsys):
    """E93/E97: at 10 Gbit/s NRZ (σ0 = T/4 = 25 ps) and chirp −5 a pulse spans √26/(2σ0) = 1.02e11 rad/s by itself,
    0.131 nm RMS at 1550 nm; a stated 0.1 nm is narrower, so the chirp sets the width and a warning says so; 0.2 nm
    is consistent and says nothing."""
    import math

    from photonics import fiber
    from tests.sipml.cli_run import run

    own = fiber.chirp_spectral_width_m(25e-12, -5.0, 1550e-9)
    assert own == pytest.approx(math.sqrt(26) / 50e-12 * 1550e-9 ** 2 / (2 * math.pi * 299792458), rel=1e-12)
    assert own == pytest.approx(0.131e-9, rel=0.01)
    path = tmp_path / "dml.toml"
    path.write_text('[link]\nkind = "point-to-point"\ndata_rate = "10 Gbit/s"\nwavelength = "1550 nm"\n'
                    '[laser]\nkind = "dml"\n[fiber]\n')
    import json

    code, out, err = run(capsys, "budget", str(path), "--set", "transmitter.spectral_width=0.1 nm", "-f", "json")
    assert any("is narrower than the 0.13 nm RMS a pulse at chirp -5 spans" in w for w in json.loads(out)["warnings"])
    code, out, err = run(capsys, "budget", str(path), "--set", "transmitter.spectral_width=0.2 nm", "-f", "json")
    assert not any("narrower" in w for w in json.loads(out)["warnings"])


def test_a_tdecq_budget_honours_the_receivers_floor(capsys):
    """400GBASE-DR4 (the validate case: −5.3 dBm OMA for an ideal eye, the floor −4.4 dBm OMA): at TDECQ 3.4 dB the
    eye binds (−1.9 dBm needed, margin 0.1 dB); at TDECQ 0.5 dB the floor does, 0.9 dB above the ideal eye's
    sensitivity, so the margin is 0.4 dB less than TDECQ alone would leave."""
    import json

    from tests.sipml.cli_run import run

    case = "sipml/cases/links/400gbase-dr4.toml"

    def budget(*sets):
        code, out, err = run(capsys, "budget", case, *(x for s in sets for x in ("--set", s)), "-f", "json")
        assert code == 0, err
        return json.loads(out)["margin_db"]

    assert budget() == pytest.approx(0.1, abs=1e-6)
    low = budget("transmitter.tdecq=0.5 dB")
    bare = budget("transmitter.tdecq=0.5 dB", "receiver.sensitivity_floor=0 mW")
    assert bare - low == pytest.approx(0.4, abs=1e-9)


def test_a_closed_eye_is_named_where_no_power_closes_not_the_cap(capsys):
    """PAM4 at 50 Gbit/s through a Q 20 000 drop filter (FWHM ≈ 9.7 GHz against 25 GBd): the filter's worst-case
    eye closes (its ISI penalty is infinite), so no laser power closes the budget whatever the cap — the summary,
    `check` and `explain` name the filter ISI, where they blamed the aggregate cap ("inf dBm needed")."""
    closed = ["--set", "link.modulation=pam4", "--set", "receiver.model=thermal-noise", "--set",
              "link.data_rate=50 Gbit/s", "--set", "ring.filter_q=20000"]
    data = budget_json(capsys, *closed)
    assert data["margin_db"] == "-inf"  # JSON writes an infinite number as text
    said = "no power closes: the eye is closed whatever the laser gives (filter ISI"
    assert data["no_power_closes"].startswith(said) and "inf dBm" not in data["no_power_closes"]
    code, out, _ = run(capsys, "check", *closed, "-f", "json")
    message = next(v["message"] for v in json.loads(out)["violations"] if v["name"] == "power_budget")
    assert code == 1 and said in message and "aggregate cap" not in message
    code, _, err = run(capsys, "explain", "margin_db", *closed)
    assert code == 1 and said in err
