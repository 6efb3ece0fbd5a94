"""Switched fabrics as built in 2026, against `../shared/reference/fabrics-2026.md`: a co-packaged-optics Clos's
switch count from its radix (K9a, by hand), Meta's Llama 3 cluster (K16, K16b), the pods' 1:7 as the collectives
see it, and the vendors' per-port optics figures at their boundaries (K5–K11) as `sipml validate` judges them."""

import json

import pytest

from sipml.cli import main

TH6_CLOS = ["--set", "electrical.switch=switch.cpo_th6_davisson", "--set", "electrical.switch_radix=512",
            "--set", "electrical.planes=4"]  # an 800G NIC as 4 × 200G ports, each on a plane of 512 × 200G switches


def fabric_json(capsys, *argv):
    code = main(["fabric", *argv, "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def figure(data, name):
    return data["figures"][name]["value"]


def test_a_cpo_clos_of_512_port_switches_at_131072_gpus(capsys):
    """K9a by hand: two tiers of k = 512 hold 2·(k/2)² = 131,072 endpoints on (2·2 − 1)·(k/2) = 768 switches per
    plane: 512 leaves with 256 ports down and 256 up, 256 spines with 512 down; four planes of 200G: 3,072."""
    k = 512
    assert 2 * (k // 2) ** 2 == 131072 and 3 * (k // 2) == 768
    data = fabric_json(capsys, "cpo-800g", "--set", "fabric.gpus=131072", *TH6_CLOS)
    assert figure(data, "fat-tree tiers per plane") == 2
    assert figure(data, "switches") == 4 * 768
    # planes multiply bandwidth, not reach: one more GPU needs a third tier on every plane
    bigger = fabric_json(capsys, "cpo-800g", "--set", "fabric.gpus=131080", *TH6_CLOS)
    assert figure(bigger, "fat-tree tiers per plane") == 3


def test_the_llama3_cluster_as_built(capsys):
    """K16: 16 GPUs per rack ToR, 192 racks per 3,072-GPU pod, 8 pods at 1:7, three layers; K16b: 1,536 ToRs."""
    data = fabric_json(capsys, "llama3-24k")
    assert figure(data, "fat-tree tiers per plane") == 3
    assert data["bisection_gbps"] == pytest.approx(24576 / 2 * 400 / 7)
    code = main(["cost", "llama3-24k", "-f", "json"])
    lines = {b["key"]: b for b in json.loads(capsys.readouterr()[0])["designs"][0]["breakdown"]}
    assert code == 0
    assert lines["switch.eth_minipack2"]["count_per_gpu"] * 24576 == pytest.approx(1536)


def _nic_gbps() -> float:
    """llama3-24k's NIC rate as a collective uses it (400 Gbit/s × [electrical] nic_efficiency)."""
    from sipml.design_files import load_design

    el = load_design("llama3-24k").topology
    return el.nic_bandwidth * el.nic_efficiency / 1e9


def test_a_group_with_one_member_per_pod_pays_the_pods_oversubscription(capsys):
    """Pipeline groups of 8 at stride 3,072 have one member in each pod: their stage-to-stage sends run at a GPU's
    share of the 1:7 uplinks, 400/7 Gbit/s (K16b), whole: the data-parallel groups (tp × dp = 3,072, one pod) share
    the NICs with them but never leave their pod. Where the pods are joined at 1:1, the NIC they share binds."""
    args = ["llama3-24k", "--groups", "tp=8,dp=384,pp=8", "--message-size", "1 GB"]
    thin = {g["name"]: g for g in fabric_json(capsys, *args)["groups"]}
    full = {g["name"]: g for g in fabric_json(capsys, *args, "--set", "electrical.pod_oversubscription=1")["groups"]}
    assert thin["pp"]["stride"] == 3072
    assert thin["pp"]["bandwidth_gbps"] == pytest.approx(_nic_gbps() / 7, rel=1e-9)
    assert thin["pp"]["share"] == 1.0  # the uplinks' share: nothing else leaves the pod
    nic_share = full["pp"]["share"]
    assert 0 < nic_share < 1 and full["pp"]["bandwidth_gbps"] == pytest.approx(nic_share * _nic_gbps(), rel=1e-9)
    same = {g["name"]: g for g in fabric_json(capsys, "llama3-24k", "--groups", "dp=3072,pp=8", "--message-size",
                                              "1 GB")["groups"]}
    assert same["pp"]["bandwidth_gbps"] == pytest.approx(_nic_gbps() / 7, rel=1e-9)  # whatever the NIC share


def test_a_group_with_few_members_per_pod_pays_part_of_it(capsys):
    """A pipeline group striding across pods has 2 members in a pod of 3,072 at stride 1,536: its p2p runs at
    2 · 400/7 Gbit/s where the pods are joined at 1:7 (the data-parallel groups stay in their pods), at its share of
    the NIC where they are joined at 1:1; tensor groups inside a server do not notice."""
    args = ["llama3-24k", "--groups", "tp=8,pp=16,dp=192", "--message-size", "1 GB"]
    thin = {g["name"]: g for g in fabric_json(capsys, *args)["groups"]}
    full = {g["name"]: g for g in fabric_json(capsys, *args, "--set", "electrical.pod_oversubscription=1")["groups"]}
    assert thin["pp"]["stride"] == 1536
    assert thin["pp"]["bandwidth_gbps"] == pytest.approx(2 * _nic_gbps() / 7, rel=1e-9)
    assert full["pp"]["bandwidth_gbps"] == pytest.approx(full["pp"]["share"] * _nic_gbps(), rel=1e-9)
    assert thin["tp"]["time_s"] == pytest.approx(full["tp"]["time_s"])


def test_vendor_per_port_optics_figures_pass_validate():
    from sipml.validation import _optics_cases

    cases = _optics_cases()
    assert len(cases) == 5 and all(c.passed for c in cases)
    assert [c.informational for c in cases].count(True) == 1  # the claim the catalog's CPO figures are split from
    assert {c.unit for c in cases} >= {"pJ/bit", "×", "%", "W"}


def test_dual_plane_nics_as_alibaba_hpn(capsys):
    """K17: each GPU's 400 Gb/s NIC as 2 × 200 Gb/s ports, port 0 on plane 0 and port 1 on plane 1: the same
    bandwidth per GPU and bisection, the same bit rate of NIC-end optics (a 400G module broken out to the two
    200G ports) and two fat-trees per rail."""
    one = fabric_json(capsys, "dgx-h100")
    two = fabric_json(capsys, "dgx-h100", "--set", "electrical.planes=2")
    assert two["per_gpu_bandwidth_gbps"] == one["per_gpu_bandwidth_gbps"] == 400
    assert two["bisection_gbps"] == one["bisection_gbps"]
    assert figure(two, "NIC ports per GPU, one per plane") == 2
    assert figure(two, "switches") == 2 * figure(one, "switches")
    code = main(["cost", "dgx-h100", "--set", "electrical.planes=2", "-f", "json"])
    lines = {b["key"]: b for b in json.loads(capsys.readouterr()[0])["designs"][0]["breakdown"]}
    assert code == 0 and lines["transceiver.ndr_400g_osfp_dr4"]["count_per_gpu"] == 1  # broken out, 2 × 200G


@pytest.mark.parametrize("change, message", [
    ("electrical.pod_gpus=8", "smaller than one leaf's 16"),
    ("electrical.tiers=2", "the tiers follow from the pods"),
])
def test_pods_refuse_what_cannot_be_built(capsys, change, message):
    code = main(["fabric", "llama3-24k", "--set", change])
    _, err = capsys.readouterr()
    assert code == 2 and message in err


def test_pods_larger_than_the_cluster_say_so(capsys):
    data = fabric_json(capsys, "llama3-24k", "--set", "fabric.gpus=1024")
    assert any("hold a whole plane of 1024 NICs" in note for note in data["notes"])
    assert data["bisection_gbps"] == pytest.approx(1024 / 2 * 400)
