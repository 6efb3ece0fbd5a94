"""The second physical-layer pass through the real command line: point-to-point budgets, the new keys and their
units, contradicting sections as one clear line (exit 2), and the budget JSON's new keys."""

import json

import pytest

from sipml.cli import main

R1 = """# Gigabit-Ethernet reach, Introduction to Information Optics, Table 12.3
[link]
kind = "point-to-point"
data_rate = "1.25 Gbit/s"
fibers_per_direction = 1
system_margin = "6 dB"

[laser]
kind = "dfb"
rin = "-inf dB/Hz"

[transmitter]
launch_power = "-8 dBm"
extinction_ratio = "inf dB"

[fiber]
dispersion_model = "none"

[loss]
connectors = 2
connector_loss = "1 dB"
fiber_length = "{length}"
fiber_loss = "0.6 dB/km"

[receiver]
model = "given"
sensitivity = "-22 dBm"
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, text):
    path = tmp_path / "design.toml"
    path.write_text(text)
    return str(path)


def test_textbook_budget_through_budget_and_check(capsys, tmp_path):
    """R1 as a design file: at 5 km the margin is 3 dB, the longest fiber 10.0 km, the least launch −11 dBm; at 12 km
    `check` fails on the power budget. The textbook ignores bandwidth; the tool charges the channel ISI of the 34 GHz
    source and the 1 GHz receiver (the IEEE 802.3 link model's Gaussian channel), 0.02 dB at 1.25 Gb/s."""
    code, out, _ = run(capsys, "budget", write(tmp_path, R1.format(length="5 km")), "-f", "json")
    data = json.loads(out)
    assert code == 0 and data["link_kind"] == "point-to-point"
    isi = next(-line["value"] for line in data["ledger"] if line["name"] == "penalty: channel ISI")
    assert 0.0 < isi < 0.05
    assert data["margin_db"] == pytest.approx(3.0 - isi, abs=1e-12)
    assert data["max_fiber_length_m"] == pytest.approx((6.0 - isi) / 0.6e-3, rel=1e-12)
    assert data["min_laser_power_per_line_dbm"] == pytest.approx(-11.0 + isi, abs=1e-12)
    assert data["ring"] is None and data["ledger"][0]["name"] == "launch power (average)"
    assert run(capsys, "check", write(tmp_path, R1.format(length="5 km")))[0] == 0
    code, out, _ = run(capsys, "check", write(tmp_path, R1.format(length="12 km")))
    assert code == 1 and "power_budget" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--set", "link.modulation=pam4"], "[receiver] model = 'ge-photodiode' is a fit to NRZ"),
    (["--set", "laser.kind=vcsel"], "[laser] kind = 'vcsel' is directly modulated"),
    (["--set", "link.fec=kp4", "--set", "link.ber=1e-15"], "[link] ber has no effect here"),
    (["--set", 'transmitter.launch_power="0 dBm"'], "applies only when [link] kind = 'point-to-point'"),
    (["--set", 'link.channel_spacing="3 ms"'], "a wavelength span"),
    (["--set", 'link.channel_spacing="100 nm"'],
     "[link] channel_spacing = 100 nm is 17.4694 THz at 1.31 µm, out of range"),
    (["--set", 'laser.rin="-135 dB"'], "dB/Hz"),
    (["--set", 'loss.extra_losses="patch panel"'], "each item is 'name: loss'"),
    (["--set", 'loss.extra_losses="patch panel: -1 dB"'], "expected a finite loss ≥ 0 dB"),
])
def test_contradictions_and_bad_values_are_one_clear_line(capsys, argv, fragment):
    code, out, err = run(capsys, "budget", *argv)
    assert code == 2 and out == ""
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_point_to_point_link_in_a_sip_fabric_is_refused(capsys, tmp_path):
    path = write(tmp_path, '[link]\nkind = "point-to-point"\n[fabric]\nkind = "sip-ocs"\n')
    code, _, err = run(capsys, "check", path)
    assert code == 2 and "the SiP fabrics are built from ring-wdm chiplets" in err


def test_multimode_fiber_at_1550_nm_is_refused(capsys, tmp_path):
    text = ('[link]\nkind = "point-to-point"\nwavelength = "1550 nm"\n[laser]\nkind = "vcsel"\n[fiber]\ntype = "mmf"\n')
    path = write(tmp_path, text)
    code, out, err = run(capsys, "check", path)
    assert code == 2 and out == "" and path in err and err.count("\n") == 1
    assert "[fiber] type = 'mmf' at [link] wavelength = 1.55 µm" in err


def test_ring_keys_on_a_point_to_point_link_have_no_effect(capsys, tmp_path):
    code, _, err = run(capsys, "budget", write(tmp_path, R1.format(length="1 km") + "[ring]\nfilter_q = 5000\n"))
    assert code == 2 and "section [ring] (filter_q) has no effect here: it applies only when [link] kind = 'ring-wdm'" in err


def test_spectral_values_in_nm(capsys):
    """A 1.6 nm grid at 1310 nm is c·Δλ/λ² = 279.5 GHz; a tuning efficiency of 0.08 nm/K, 14.0 GHz/K."""
    _, out, _ = run(capsys, "budget", "-f", "json", "--set", 'link.channel_spacing="1.6 nm"', "--min-spacing")
    data = json.loads(out)
    assert data["ring"]["fsr_ghz"] / data["wavelength_limits"]["fsr_channels"] >= 279.5 - 1e-6
    assert data["min_channel_spacing_ghz"] is not None
    code, out, _ = run(capsys, "budget", "-f", "json", "--set", "ring.tuning_model=given",
                       "--set", 'ring.tuning_efficiency="0.08 nm/K"')
    assert code == 0 and json.loads(out)["feasible"]


def test_budget_json_new_keys(capsys):
    code, out, _ = run(capsys, "budget", "-f", "json", "--set", "link.fec=kp4")
    data = json.loads(out)
    assert code == 0
    assert data["fec"]["name"] == "kp4" and data["fec"]["latency_s"] == pytest.approx(5440 / 25e9 + 24.8e-9)
    assert data["target_ber"] == 2.4e-4 and data["symbol_rate_gbd"] == 25.0 and data["modulation"] == "nrz"
    assert data["capacity_gbps"] == pytest.approx(2000 * 514 / 544)
    assert set(data["fiber_reach_m"]) == {"loss", "dispersion", "channel_isi"}
    assert data["fec"]["post_fec_ber"] == pytest.approx(1.2e-14, rel=0.01)  # F42 at KP4's threshold
    assert data["total_energy_pj_per_bit"] == pytest.approx(data["energy_pj_per_bit"] + 0.6)
    assert data["electrical_energy_breakdown_pj_per_bit"] == {"die_to_die": pytest.approx(0.6), "serdes_dsp": 0.0}
    assert data["fabric_energy_breakdown_pj_per_bit"] == {}
    assert data["ring_yield"] is None
    names = [row["name"] for row in data["ledger"]]
    assert {"penalty: filter ISI", "penalty: RIN", "penalty: dispersion"} <= set(names)


def test_fields_list_the_new_keys_with_sources(capsys):
    code, out, _ = run(capsys, "fields", "-f", "json")
    data = json.loads(out)
    assert code == 0
    for section, key in [("link", "kind"), ("link", "modulation"), ("link", "fec"), ("fiber", "dispersion_model"),
                         ("fiber", "modal_bandwidth"), ("ring", "filter_isi"), ("ring", "tuning_efficiency"),
                         ("laser", "rin"), ("transmitter", "launch_power"), ("loss", "extra_losses"),
                         ("receiver", "sensitivity_type"), ("tuning", "target_yield"),
                         ("interface", "die_to_die_energy")]:
        assert data[section][key]["source"], (section, key)
    assert data["link"]["channel_spacing"]["unit"] == "Hz | m"
    assert data["receiver"]["reference_extinction_ratio"]["default"] == "8.9 dB"


def test_a_design_in_nm_and_db_per_hz_round_trips_through_its_toml(tmp_path):
    """`design_toml` (what `sipml init` writes) shows wavelength spans, dB/Hz and loss lists as they were written,
    and reading it back gives the same link."""
    from sipml.design_files import design_toml, load_design

    text = ('[link]\nchannel_spacing = "1.6 nm"\n[laser]\nrin = "-140 dB/Hz"\n'
            '[loss]\nextra_losses = "patch panel: 0.5 dB; mux: 1.2 dB"\n'
            '[ring]\ntuning_model = "given"\ntuning_efficiency = "0.08 nm/K"\n'
            '[tuning]\nstrategy = "athermal"\nsigma_local = "0.3 nm"\n')
    first = load_design(write(tmp_path, text))
    written = design_toml(first, "round trip")
    for line in ('channel_spacing = "1.6 nm"', 'extra_losses = "patch panel: 0.5 dB; mux: 1.2 dB"',
                 'tuning_efficiency = "0.08 nm/K"', 'sigma_local = "0.3 nm"', 'rin = "-140 dB/Hz"'):
        assert line in written
    again = tmp_path / "again.toml"
    again.write_text(written)
    assert load_design(str(again)).link == first.link


def test_the_shipped_tia_noise_taken_beyond_its_rate_is_warned(capsys):
    """The thermal-noise receiver's shipped noise density is a 25 Gb/s TIA's: at 100 Gbit/s NRZ (100 GBd) the budget
    warns and asks for the TIA's own; at 25 Gbit/s, or with a density given, it does not."""
    sets = ["--set", "receiver.model=thermal-noise"]
    assert main(["budget", *sets, "--set", "link.data_rate=100 Gbit/s"]) == 0
    assert "is a 25 Gb/s TIA's (Xie et al. 2021), taken at 100 GBd" in capsys.readouterr().out
    assert main(["budget", *sets, "--set", "link.data_rate=25 Gbit/s"]) == 0
    assert "TIA's" not in capsys.readouterr().out
    assert main(["budget", *sets, "--set", "link.data_rate=100 Gbit/s", "--set",
                 "receiver.noise_density=20 pA/Hz**0.5"]) == 0
    assert "TIA's" not in capsys.readouterr().out
