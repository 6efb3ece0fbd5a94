"""Counts, figures and reported values that a user reads off directly, each against a hand derivation."""

import dataclasses
import json
import math

import numpy as np
import pytest

from fabric.catalog import load_catalog
from fabric.cost import cluster_bom, scale_out_cost_share
from fabric.cluster_design import ClusterDesign, FabricSection
from fabric.electrical import ElectricalSection
from fabric.evaluate import evaluate_fabric
from fabric.evaluate import job_collectives
from fabric.flows import Flows
from fabric.traffic import pair_bandwidth
from photonics import packaging
from photonics.link_design import LinkDesign, LinkSection, LossSection, TuningSection
from photonics.link import evaluate, tuning_hz_per_k
from sipml.cli import main
from sipml.design_files import load_design


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_package_geometry():
    """55 × 55 mm package: perimeter 220 mm; one 5 mm chiplet edge at 127 µm holds ⌊39.37⌋ = 39 fibers, split Tx/Rx:
    ⌊39/2⌋ = 19 per direction."""
    assert packaging.package_perimeter_m(0.055, 0.055) == pytest.approx(0.22)
    assert evaluate(LinkDesign()).escape_fibers_per_direction == 19


def test_athermal_tuning_power():
    """Athermal rings still trim 3σ: 2 rings × 10 fibers × 8 λ × 3·√(40² + 200²) GHz over η_tune·η_heat (5 mW
    lines: the budget closes all 8 λ, so every ring is in use)."""
    from photonics.link_design import LaserSection

    d = LinkDesign(tuning=TuningSection(strategy="athermal"), laser=LaserSection(power_per_line=5e-3))
    eta = tuning_hz_per_k(d) * d.tuning.heating_efficiency
    expected = 2 * 10 * 8 * 3 * math.hypot(40e9, 200e9) / eta
    assert evaluate(d).power_w["tuning"] == pytest.approx(expected, rel=1e-12)


def test_max_fiber_length_is_the_budget_equation():
    """L_max = L + margin / loss per length (the margin is what the existing fiber leaves), with no dispersion
    penalty growing along the fiber."""
    from photonics.link_design import FiberSection

    link = load_design("sip-ring").link
    est = evaluate(dataclasses.replace(link, fiber=FiberSection(dispersion_model="none")))
    assert est.max_fiber_length_m == pytest.approx(2.0 + est.margin_db / 0.35e-3, rel=1e-9)


def test_max_switch_passes_counts_the_passes_already_there():
    """One 0.2 dB switch with no patch connectors already on the path: passes = 1 + ⌊margin / 0.2⌋."""
    from photonics.link_design import LaserSection

    d = LinkDesign(loss=LossSection(switch_ports=1, switch_loss=0.2, switch_connectors=0),
                   laser=LaserSection(power_per_line=5e-3))
    est = evaluate(d)
    assert est.max_switch_passes == 1 + math.floor(est.margin_db / 0.2)


def test_laser_power_when_the_aggregate_cap_binds():
    """50 mW per line on an 8-line comb: the 100 mW cap leaves 12.5 mW per line in the bus, but the laser makes the
    50 mW a line the design sets (it was charged as if turned down to the cap, so 10 W a line cost what 17 mW did):
    10 sources × 8 lines × 50 mW at 25 % wall-plug efficiency, the excess lost (the ledger says so)."""
    from photonics.link_design import LaserSection
    from sipml.design_reports import _launch_detail

    est = evaluate(LinkDesign(laser=LaserSection(lines=8, power_per_line=50e-3)))
    assert est.aggregate_cap_binds and "the laser's power above it is lost" in _launch_detail(est)
    assert est.power_w["laser"] == pytest.approx(10 * 8 * 50e-3 / 0.25, rel=1e-9)
    more = evaluate(LinkDesign(laser=LaserSection(lines=8, power_per_line=500e-3)))
    assert more.margin_db == est.margin_db and more.power_w["laser"] == pytest.approx(10 * est.power_w["laser"])


def test_max_binding_limit_is_the_smallest():
    """4 laser lines, the tightest wavelength limit; the lifted capacity takes every fiber the package escapes, so
    the package binds it too (issue 41: the summary and the limits table name the same limits)."""
    from photonics.link_design import LaserSection

    est = evaluate(LinkDesign(link=LinkSection(wavelengths_per_fiber=4), laser=LaserSection(lines=4,
                                                                                           power_per_line=5e-3)))
    assert est.max_binding_limit == "laser_lines+package_escape"
    assert est.capacity.lifted_limits_bps["laser_lines"] == est.max_capacity_bps


def test_ocs_patch_cables_and_bisection():
    """Each transmit and receive fiber of a GPU is patched at every switch pass: 2 × 20 × passes cables per GPU;
    a single-layer OCS carries half the GPUs' capacity across any cut: 512 × 2 Tbps."""
    for name, passes in (("sip-ocs", 1), ("sip-ocs-384", 3)):
        d = load_design(name)
        est = evaluate_fabric(d)
        cables = next(line for line in est.bom if line.key == "cable.fiber_patch")
        assert cables.count == 2 * 20 * passes
    assert evaluate_fabric(load_design("sip-ocs")).bisection_bps == pytest.approx(512 * 2e12)


def test_dgx_h100_twin_port_switch_optics_and_servers():
    """64-port switches, 1024 GPUs, 2 tiers: 1024 endpoint links + 1024 leaf–spine links; switch ends need
    (1024 + 2·1024)/2 = 1536 twin-port transceivers. 12 GPUs at 8 per server need 2 servers."""
    d = load_design("dgx-h100")
    est = evaluate_fabric(d)
    switch_optics = next(line for line in est.bom if line.key == "transceiver.osfp_800g_dr8")
    assert switch_optics.count == 1536
    small = dataclasses.replace(d, fabric=dataclasses.replace(d.fabric, gpus=12))
    assert evaluate_fabric(small).details.servers == 2


def test_every_watt_of_the_optical_io_is_counted_once():
    """Chiplet power + laser power in the cost roll-up equal the link model's I/O power (modulator, receiver,
    tuning, laser), per GPU."""
    d = load_design("sip-ring")
    est = evaluate_fabric(d)
    bom = cluster_bom(d, est, load_catalog())
    io = sum(line.power_w.typical for line in bom.lines if line.key in ("sip.optical_io_chiplet", "laser.comb_line"))
    assert io / d.fabric.gpus == pytest.approx(sum(est.link.power_w.values()), rel=1e-9)


def test_scale_out_share_leaves_the_nvswitch_in_the_server():
    d = load_design("dgx-a100")
    bom = cluster_bom(d, evaluate_fabric(d), load_catalog())
    nvswitch = bom.line("nvswitch.a100_share").cost_usd.typical
    expected = (bom.network_cost_usd.typical - nvswitch) / bom.cost_per_cluster_usd.typical
    assert scale_out_cost_share(bom) == pytest.approx(expected, rel=1e-12)


def test_electrical_fair_share_uses_the_oversubscribed_nic():
    d = ClusterDesign(fabric=FabricSection(kind="electrical", gpus=32),
                      topology=ElectricalSection(gpus_per_server=8, switch_radix=8, oversubscription=2.0))
    flows = Flows(32, np.array([0, 0]), np.array([8, 16]), np.array([1.0, 1.0]))
    res = pair_bandwidth(evaluate_fabric(d), flows)
    assert res.bandwidth_bps[0] == pytest.approx(200e9 / 2 / 2)


def test_ideal_fair_share_takes_the_smaller_side():
    d = load_design("ideal")
    d = dataclasses.replace(d, fabric=dataclasses.replace(d.fabric, gpus=4))
    flows = Flows(4, np.array([0, 0]), np.array([1, 2]), np.array([1.0, 1.0]))
    res = pair_bandwidth(evaluate_fabric(d), flows)
    assert res.bandwidth_bps[0] == pytest.approx(2e12 / 2)


def test_collective_details_by_hand():
    """SiP-OCS all-to-all relays over the circuit graph's mean distance, 2.57 hops for 20 circuits and 1024 ranks;
    SiP-Ring p2p uses one direction's fibers (C_eff/2); an oversubscribed DGX sends p2p at the NIC rate (94 % of
    200 Gb/s; a step crosses 2·tiers − 1 switches) but runs its tree at the NIC rate / oversubscription."""
    ocs = evaluate_fabric(load_design("sip-ocs"))
    t = job_collectives(ocs, 1e8)["all_to_all"]
    alpha = 3.4e-6 + ocs.details.circuit_delay_s
    hops = (20 + 400 * 2 + 603 * 3) / 1023
    assert t.seconds == pytest.approx(8.4e-6 + 1023 * alpha + (hops - 1) * 3.4e-6 + 8e8 * hops / 2e12, rel=1e-9)
    ring = evaluate_fabric(load_design("sip-ring"))
    p2p = job_collectives(ring, 1e8)["p2p"]
    assert p2p.seconds == pytest.approx(8.4e-6 + 3.4e-6 + ring.details.hop_delay_s
                                        + 8e8 / (ring.effective_bandwidth_bps / 2), rel=1e-12)
    base = load_design("dgx-a100")
    dgx = evaluate_fabric(dataclasses.replace(base, topology=dataclasses.replace(
        base.topology, oversubscription=4.0, protocols="simple")))
    net = 9.6e-6 + (2 * dgx.details.tiers - 1) * 0.3e-6
    t = job_collectives(dgx, 1e8)
    assert t["p2p"].seconds == pytest.approx(8.4e-6 + net + 8e8 / (0.94 * 200e9), rel=1e-12)
    # a 1 kB all-reduce is latency-bound: the tree's 2·(⌈lg 128⌉ + 7) steps win, at 0.92 of the NIC rate /
    # oversubscription (NCCL's tree refinement)
    small = job_collectives(dgx, 1e3)["all_reduce"]
    assert small.schedule == "double binary tree over the servers"
    assert small.seconds == pytest.approx(8.4e-6 + 2 * 7 * net + 2 * 7 * 3.4e-6
                                          + 2 * 8e3 / (0.92 * 8 * 0.94 * 200e9 / 4), rel=1e-12)
    # with NCCL's protocols the tree runs LL: its steps 0.6 µs (NVLink) and 5.0 µs + the hops (network), its bytes
    # at 1/3.8 of the tree's rate, the bus capped at LL's 20.4 GB/s
    nccl = evaluate_fabric(dataclasses.replace(base, topology=dataclasses.replace(base.topology, oversubscription=4.0)))
    small = job_collectives(nccl, 1e3)["all_reduce"]
    assert small.schedule == "double binary tree over the servers · LL"
    ll_net = 5.0e-6 + (2 * nccl.details.tiers - 1) * 0.3e-6
    moved = max(2 * 8e3 / (8 * 0.94 * 200e9 / 4), 2 * 8e3 / (0.8 * 2.4e12))
    assert small.seconds == pytest.approx(8.4e-6 + 2 * 7 * ll_net + 2 * 7 * 0.6e-6 + max(
        moved / (0.92 / 3.8), 2 * 8e3 / (0.92 * 20.4e9 * 8)), rel=1e-12)


def test_one_direction_ring_all_to_all():
    """One ring direction: every pair goes clockwise, so the segment after each GPU carries Σ_k k = p(p−1)/2 pairs
    of n/(p−1) bytes: p·n/2 over the one direction's capacity, plus p − 2 step latencies and the farthest
    peer's relays (⌈1023/reach⌉ − 1) and path."""
    d = load_design("sip-ring")
    est = evaluate_fabric(dataclasses.replace(d, topology=dataclasses.replace(d.topology, directions=1)))
    t = job_collectives(est, 1e8)["all_to_all"]
    farthest = 3.4e-6 + (math.ceil(1023 / est.reach_hops) - 1) * 3.4e-6 + 1023 * est.details.hop_delay_s
    assert t.seconds == pytest.approx(8.4e-6 + 1022 * 3.4e-6 + farthest + 1e8 * 1024 / 2 * 8
                                      / est.effective_bandwidth_bps, rel=1e-12)


def test_athermal_keys_apply():
    d = load_design(None, ["tuning.strategy=athermal", 'tuning.sigma_local="30 GHz"'])
    assert d.link.tuning.sigma_local == 30e9


def test_reported_values(capsys):
    """Budget JSON: shoreline 2 Tbps over 5 mm = 0.4 Tbps/mm; I/O power = energy per bit × capacity; the reserved
    margin appears with its sign. Fabric and cost JSON: bisection in Gbps/Tbps as labelled; smallest pair 0 when
    pairs go unserved."""
    data = run_json(capsys, "budget", "-f", "json", "--set", 'link.system_margin="1 dB"')
    assert data["shoreline_tbps_per_mm"] == pytest.approx(0.4)
    assert data["io_power_w"] == pytest.approx(data["energy_pj_per_bit"] * data["capacity_gbps"] * 1e-3)
    rows = {r["name"]: r for r in data["ledger"]}
    assert rows["system margin reserved"]["value"] == -1.0
    cost = run_json(capsys, "cost", "dgx-a100", "-f", "json")["designs"][0]
    assert cost["bisection_gbps"] == pytest.approx(512 * 200)
    assert main(["fabric", "sip-ocs"]) == 0
    table = capsys.readouterr().out
    assert "1024.00" in next(line for line in table.splitlines() if line.startswith("bisection"))
    fab = run_json(capsys, "fabric", "sip-ocs-384", "-f", "json", "--pattern", "training", "--set",
                   "sip_ocs.topology=partitioned", "--set", "fabric.job_gpus=256")
    assert fab["traffic"]["unserved_pairs"] > 0 and fab["traffic"]["min_pair_gbps"] == 0.0


def test_a_small_ring_reaches_no_more_peers_than_it_has():
    """Three GPUs on a two-direction ring: each reaches its 2 peers, not 4 (2 directions × 2 hops)."""
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design

    small = evaluate_fabric(load_design("sip-ring", ["fabric.gpus=3"]))
    big = evaluate_fabric(load_design("sip-ring", ["fabric.gpus=1024"]))
    assert small.degree == 2 and big.degree == min(8 * 10, 2 * big.reach_hops) > 2  # wavelengths, or the reach


@pytest.mark.parametrize("gpus, split, half", [
    (16, 0, 8),  # two whole servers: the cut runs between them, NICs alone
    (9, 3, 4),  # 4 GPUs a side: 3 of the server with the lone GPU, 5 of it on the other side
    (12, 2, 6),  # a server and 4: the 4 with 2 of the server
    (24, 4, 12),  # three servers: one split 4 | 4
    (1023, 0, 511),  # 127 servers and 7: the 7 with 63 servers make 511
    (7, 3, 3),  # one server of 7: 3 | 4 across its NVSwitch, no NICs used
])
def test_a_balanced_cut_that_must_split_a_server_crosses_its_nvlink(capsys, gpus, split, half):
    """Bisection of dgx-a100 (8 GPUs a server, NVLink B_n per GPU each way, one B_e NIC) at sizes whose halves
    whole servers cannot make: the worst cut puts ⌊N/2⌋ GPUs on a side and splits one server as evenly as the
    sizes force, its NVSwitch carrying min(a, 8 − a) GPUs' NVLink across, the side's NICs beside them (9 GPUs gave
    4.5 NICs, a quarter of 8's four NVLinks)."""
    design = load_design("dgx-a100")
    el = design.topology
    data = run_json(capsys, "fabric", "dgx-a100", "--set", f"fabric.gpus={gpus}", "-f", "json")
    nics = 0 if gpus <= el.gpus_per_server else half * el.nic_bandwidth
    assert data["bisection_gbps"] * 1e9 == pytest.approx(nics + split * 2400e9)  # the DGX A100's NVLink
