"""The optics of a switched fabric as a choice (retimed pluggables, linear-drive pluggables, co-packaged engines),
their power at one named boundary, and the host channel each choice asks the SerDes to close — through `sipml cost`,
`sipml check` and `sipml fabric`, as users run them."""

import json

import pytest

from tests.sipml.cli_run import run


def costs(capsys, *argv):
    code, out, err = run(capsys, "cost", *argv, "-f", "json")
    assert code == 0, err
    return {d["design"]: d for d in json.loads(out)["designs"]}


def test_cpo_lpo_dsp_side_by_side_at_b1_and_b2(capsys):
    """1,024 GPUs, one 800G NIC each, a 2-tier fat-tree of 128-port switches: per GPU one NIC port and three switch
    ports (a leaf port down, a leaf and a spine port up), each port's optics from the catalog:
    DSP module 17 W, LPO module 8.5 W, CPO engine 7 W per 1.6 Tb/s and a laser module of 8 W per 6.4 Tb/s."""
    d = costs(capsys, "cpo-800g", "lpo-800g", "dsp-800g")
    switch_tbps = 3 * 0.8
    cpo_b1 = 17.0 + switch_tbps / 1.6 * 7.0 + switch_tbps / 6.4 * 8.0  # the NIC end stays a retimed pluggable
    assert d["cpo-800g"]["optics_power_w_per_gpu"] == pytest.approx(cpo_b1)
    assert d["lpo-800g"]["optics_power_w_per_gpu"] == pytest.approx(4 * 8.5)
    assert d["dsp-800g"]["optics_power_w_per_gpu"] == pytest.approx(4 * 17.0)
    # B2 adds each port's host SerDes at 0.8 Tb/s: the least-energy class that closes its channel, XSR only inside
    # the package (photonics.host_serdes; fabrics-2026.md K15)
    lr, mr, xsr = 8e-12, 2.29e-12, 1.1e-12
    assert d["cpo-800g"]["port_power_w_per_gpu"] == pytest.approx(cpo_b1 + 0.8e12 * (lr + 3 * xsr))  # 22 dB, 4 dB
    assert d["lpo-800g"]["port_power_w_per_gpu"] == pytest.approx(34.0 + 4 * 0.8e12 * lr)  # 2 × 11 dB per channel
    assert d["dsp-800g"]["port_power_w_per_gpu"] == pytest.approx(68.0 + 4 * 0.8e12 * mr)  # 11 dB through a connector
    for e in d.values():
        assert e["optics_power_boundary"].startswith("B1") and e["port_power_boundary"].startswith("B2")
        optics = [b for b in e["breakdown"] if b["boundary"]]
        assert e["optics_power_w_per_gpu"] == pytest.approx(sum(b["power_w_per_gpu"][1] for b in optics))
        assert all(b["source"] and b["tag"] for b in optics)
    assert d["cpo-800g"]["optics_power_w_per_gpu"] < d["lpo-800g"]["optics_power_w_per_gpu"] \
        < d["dsp-800g"]["optics_power_w_per_gpu"]


def test_the_network_power_holds_the_whole_port_optics_so_two_designs_on_one_box_differ_by_b2(capsys):
    """The switches' and NICs' catalog power is a box rating with its host SerDes inside, rated with the retimed
    pluggables it is sold for at its own lanes' rate (the 102.4 Tb/s switch comes as 1 024 × 100G or 512 × 200G
    lanes): at 100G an 11 dB front-panel trace on a medium-reach SerDes (2.29 pJ/bit), at 200G 22 dB on a long-reach
    one (8 pJ/bit). A design whose channels need another class has the difference on a line of its own,
    `serdes.beyond_rating` (W, no price): LPO at 100G lanes closes 2 × 11 dB on a long-reach SerDes over 3.2 Tb/s of
    ports per GPU: +18.3 W; CPO at 200G, its three switch ports XSR (1.1 pJ/bit): −16.6 W; DSP's are the rating's:
    no line. So designs on the same boxes differ in network power by their whole-port (B2) figures (fabrics-2026.md
    K7a, K13a, K15), not by B1's alone."""
    d = costs(capsys, "cpo-800g", "lpo-800g", "dsp-800g")
    lr, mr, xsr = 8e-12, 2.29e-12, 1.1e-12

    def beyond(entry):
        return sum(b["power_w_per_gpu"][1] for b in entry["breakdown"] if b["key"] == "serdes.beyond_rating")

    assert beyond(d["lpo-800g"]) == pytest.approx(4 * 0.8e12 * (lr - mr))
    assert beyond(d["cpo-800g"]) == pytest.approx(3 * 0.8e12 * (xsr - lr))
    assert not [b for b in d["dsp-800g"]["breakdown"] if b["key"] == "serdes.beyond_rating"]
    dsp_200g = costs(capsys, "dsp-800g", "--set", 'electrical.lane_rate="200 Gbit/s"')["dsp-800g"]
    for boxes in ((d["dsp-800g"], d["lpo-800g"]), (dsp_200g, d["cpo-800g"])):  # boxes alike, lanes at one rate
        a, b = boxes
        assert a["network_power_w_per_gpu"] - b["network_power_w_per_gpu"] == pytest.approx(
            a["port_power_w_per_gpu"] - b["port_power_w_per_gpu"])
    line = next(b for b in d["cpo-800g"]["breakdown"] if b["key"] == "serdes.beyond_rating")
    assert line["cost_usd_per_gpu"] == [0.0, 0.0, 0.0] and line["tag"] == "[assumed]" and line["network"]
    # the boxes' rating is theirs, not re-solved from the design's board: a lossier front-panel trace (42 dB at
    # 200G, 21 at 100G: long reach) or a shorter medium reach moves B2 and the network power together
    for change, designs in (('electrical.pluggable_trace_loss="42 dB"', ("dsp-800g",)),  # LPO: 2 × 21 dB, no close
                            ('electrical.serdes_mr_reach="10 dB"', ("dsp-800g", "lpo-800g"))):
        for design in designs:
            moved = costs(capsys, design, "--set", change)[design]
            assert moved["network_power_w_per_gpu"] - d[design]["network_power_w_per_gpu"] == pytest.approx(
                moved["port_power_w_per_gpu"] - d[design]["port_power_w_per_gpu"]), (change, design)
    rated = costs(capsys, "dsp-800g", "--set", 'electrical.rated_lane_rate="200 Gbit/s"')["dsp-800g"]
    assert beyond(rated) == pytest.approx(4 * 0.8e12 * (mr - lr))  # boxes rated at 200G lanes: DSP's 100G less
    # the cluster's power carries it: what per W and goodput per W divide by
    assert d["lpo-800g"]["cluster_power_w"] - d["dsp-800g"]["cluster_power_w"] == pytest.approx(
        1024 * (d["lpo-800g"]["network_power_w_per_gpu"] - d["dsp-800g"]["network_power_w_per_gpu"]))


def test_the_cost_table_names_the_boundary_of_its_optics_rows(capsys):
    code, out, _ = run(capsys, "cost", "cpo-800g", "dsp-800g")
    assert code == 0
    assert "optics power per GPU [B1]" in out and "+ host SerDes [B2]" in out
    assert "[B1] B1 optics per port" in out and "[B2] B2 whole port" in out


def test_a_figure_at_another_boundary_is_refused_naming_the_entries(capsys, tmp_path):
    user = tmp_path / "catalog.toml"
    user.write_text('[cpo.engine_1p6t]\nboundary = "front_end"\nsource = "a front-end figure"\n')
    code, _, err = run(capsys, "cost", "cpo-800g", "dsp-800g", "--catalog", str(user))
    assert code == 2
    line = err.strip().splitlines()[-1]
    assert "cpo.engine_1p6t at B0" in line and "els.cpo_laser_module" in line and "Traceback" not in err
    user.write_text('[transceiver.osfp_800g_dr8_lpo]\nboundary = "port"\npower = "14 W"\nsource = "whole port"\n')
    code, _, err = run(capsys, "cost", "lpo-800g", "--catalog", str(user))
    assert code == 2 and "transceiver.osfp_800g_dr8_lpo at B2 whole port" in err


def test_a_whole_port_figure_with_no_host_serdes_part_is_its_b1(capsys, tmp_path):
    user = tmp_path / "catalog.toml"
    user.write_text('[transceiver.osfp_800g_dr8_lpo]\nboundary = "port"\nhost_serdes_power = "0 W"\n'
                    'source = "a whole-port figure"\n')
    assert costs(capsys, "lpo-800g", "--catalog", str(user))["lpo-800g"]["optics_power_w_per_gpu"] == \
        pytest.approx(4 * 8.5)


def test_a_whole_port_figure_with_its_host_serdes_converts_to_b1(capsys, tmp_path):
    user = tmp_path / "catalog.toml"
    user.write_text('[transceiver.osfp_800g_dr8_lpo]\nboundary = "port"\npower = "14.9 W"\n'
                    'host_serdes_power = "6.4 W"\nsource = "a whole-port figure"\n')
    d = costs(capsys, "lpo-800g", "--catalog", str(user))["lpo-800g"]
    assert d["optics_power_w_per_gpu"] == pytest.approx(4 * 8.5)
    assert d["network_power_w_per_gpu"] == pytest.approx(costs(capsys, "lpo-800g")["lpo-800g"]
                                                         ["network_power_w_per_gpu"])


@pytest.mark.parametrize("text, message", [
    ('[transceiver.new_one]\ndescription = "x"\nunit = "transceiver"\nrole = "network"\nprice_low = "1 USD"\n'
     'price_typical = "1 USD"\nprice_high = "1 USD"\npower = "1 W"\nsource = "x"\ndate = "2025"\ntag = "[assumed]"\n',
     "missing key boundary"),
    ('[cpo.engine_1p6t]\nboundary = "engine"\n', "expected one of front_end, optics, port"),
    ('[cpo.engine_1p6t]\nhost_serdes_power = "1 W"\n', "only a whole-port figure"),
])
def test_catalog_boundaries_are_checked(capsys, tmp_path, text, message):
    user = tmp_path / "catalog.toml"
    user.write_text(text)
    code, _, err = run(capsys, "cost", "cpo-800g", "--catalog", str(user))
    assert code == 2 and message in err


def test_lpo_at_200g_lanes_cannot_close_its_host_channel(capsys):
    code, out, _ = run(capsys, "check", "lpo-800g", "--set", "electrical.lane_rate=200 Gbit/s")
    assert code == 1 and "host_channel" in out and "44.0 dB" in out
    assert run(capsys, "check", "lpo-800g")[0] == 0
    assert run(capsys, "check", "dsp-800g", "--set", "electrical.lane_rate=200 Gbit/s")[0] == 0  # a retimer ends it


def test_links_beyond_the_optics_reach_are_infeasible(capsys):
    code, out, _ = run(capsys, "check", "dsp-800g", "--set", "electrical.link_length=600 m")
    assert code == 1 and "optics_reach" in out


@pytest.mark.parametrize("change, message", [
    ("electrical.laser_module=cpo.engine_1p6t", "laser_module = 'cpo.engine_1p6t' is not a els entry"),
    ("electrical.nic=els.cpo_laser_module", "nic = 'els.cpo_laser_module' is not a nic entry"),
    ("electrical.leaf_switch=transceiver.osfp_800g_dr8", "leaf_switch = 'transceiver.osfp_800g_dr8' is not a switch"),
    ("electrical.transceiver=cpo.engine_1p6t", "transceiver = 'cpo.engine_1p6t' is not a transceiver entry"),
])
def test_each_catalog_key_names_an_entry_of_its_kind(capsys, change, message):
    code, _, err = run(capsys, "cost", "cpo-800g", "--set", change)
    assert code == 2 and message in err


@pytest.mark.parametrize("design, change, need", [
    ("lpo-800g", "electrical.optics=dsp", "need a retimed one"),
    ("dsp-800g", "electrical.optics=lpo", "need a linear one"),
])
def test_the_optics_choice_and_the_modules_must_agree(capsys, design, change, need):
    code, _, err = run(capsys, "cost", design, "--set", change)
    assert code == 2 and need in err and err.startswith(f"sipml: error: {design}: ")  # the design named


def test_a_switch_has_no_optics_boundary(capsys, tmp_path):
    user = tmp_path / "catalog.toml"
    user.write_text('[switch.cpo_sn6810]\nboundary = "optics"\n')
    code, _, err = run(capsys, "cost", "cpo-800g", "--catalog", str(user))
    assert code == 2 and "only optics entries" in err


def test_co_packaged_engines_and_lasers_come_with_every_port_of_a_switch(capsys):
    """64 GPUs fill half of one 128-port switch, whose package holds engines for all 128 × 800 Gb/s and 16 laser
    modules of 6.4 Tb/s; a pluggable switch buys modules for the 64 ports in use."""
    cpo = {b["key"]: b for b in costs(capsys, "cpo-800g", "--set", "fabric.gpus=64")["cpo-800g"]["breakdown"]}
    assert cpo["cpo.engine_1p6t"]["count_per_gpu"] * 64 == pytest.approx(128 * 0.8 / 1.6)
    assert cpo["els.cpo_laser_module"]["count_per_gpu"] * 64 == pytest.approx(16)
    dsp = {b["key"]: b for b in costs(capsys, "dsp-800g", "--set", "fabric.gpus=64")["dsp-800g"]["breakdown"]}
    assert dsp["transceiver.osfp_800g_dr8"]["count_per_gpu"] == pytest.approx(2)  # the NIC's and its switch port's


def test_a_co_packaged_switch_installs_its_ports_rate_whatever_the_nics(capsys):
    """400G NICs on cpo-800g's 800G-port switch: the package's engines and lasers serve every port at its own 800
    Gbit/s, as for 800G NICs (they were counted at the NIC's 400, 0.75 engines a GPU). The NIC end's 800G module
    breaks out to two NICs' ports, as DGX H100's twin-port OSFP cages serve two NICs each: half a module a GPU."""
    at_400 = ["--set", 'electrical.nic_bandwidth="400 Gbit/s"']
    cpo = {b["key"]: b for b in costs(capsys, "cpo-800g", *at_400)["cpo-800g"]["breakdown"]}
    full = {b["key"]: b for b in costs(capsys, "cpo-800g")["cpo-800g"]["breakdown"]}
    for key in ("cpo.engine_1p6t", "els.cpo_laser_module"):
        assert cpo[key]["count_per_gpu"] == pytest.approx(full[key]["count_per_gpu"]), key
    assert cpo["transceiver.osfp_800g_dr8"]["count_per_gpu"] == pytest.approx(0.5)


def test_co_packaged_optics_need_an_engine_entry(capsys):
    code, _, err = run(capsys, "fabric", "cpo-800g", "--set", "electrical.switch_transceiver=transceiver.osfp_800g_dr8")
    assert code == 2 and "co-packaged engine entry" in err


def test_the_optics_of_a_sip_fabric_are_its_link_models(capsys):
    d = costs(capsys, "sip-ring")["sip-ring"]
    parts = {b["key"]: b["power_w_per_gpu"][1] for b in d["breakdown"] if b["boundary"]}
    assert set(parts) == {"sip.optical_io_chiplet", "laser.comb_line"}
    assert d["optics_power_w_per_gpu"] == pytest.approx(sum(parts.values()))
    # B2 adds the link's electrical side (die-to-die crossings, SerDes/DSP) at its capacity, as `budget` reports them
    code, out, err = run(capsys, "budget", "sip-ring", "-f", "json")
    link = json.loads(out)
    electrical_w = sum(link["electrical_energy_breakdown_pj_per_bit"].values()) * 1e-12 * link["capacity_gbps"] * 1e9
    assert code == 0 and electrical_w > 0
    assert d["port_power_w_per_gpu"] - d["optics_power_w_per_gpu"] == pytest.approx(electrical_w)


def test_a_nic_port_faster_than_the_switch_s_ports_is_infeasible(capsys):
    """lpo-800g at 1,600 Gbit/s a NIC: its 128-port switches are 800G a port, so one NIC port is two switch ports'
    worth — priced as feasible before (640 switches holding half the traffic); now the `switch_port` check fails
    (exit 1), and two planes of 800G ports pass it."""
    sets = ["--set", "fabric.gpus=16384", "--set", "electrical.nic_bandwidth=1600 Gbit/s"]
    code, out, _ = run(capsys, "check", "lpo-800g", *sets, "-f", "json")
    assert code == 1 and [v["name"] for v in json.loads(out)["violations"]] == ["switch_port"]
    code, out, _ = run(capsys, "check", "lpo-800g", *sets, "--set", "electrical.planes=2", "-f", "json")
    assert code == 0 and json.loads(out)["feasible"]
