"""Per-pair bandwidth of a traffic matrix on each fabric: capacities respected, unservable pairs counted."""

import dataclasses

import numpy as np
import pytest

from fabric.design import ClusterDesign, ElectricalSection, FabricSection, SipOcsSection, SipRingSection
from fabric.evaluate import evaluate_fabric
from fabric.traffic import pair_bandwidth, pattern_demand_bps, ring_distance, training_demand_bps
from photonics.design import LaserSection, LinkDesign, LinkSection, PackageSection
from core.errors import InputError

RING_LINK = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3))


def ring_design(gpus=64, **ring):
    return ClusterDesign(link=RING_LINK, fabric=FabricSection(kind="sip-ring", gpus=gpus),
                         sip_ring=SipRingSection(**ring))


def test_ring_respects_segment_capacity_and_useful_time():
    d = ring_design(amplifier_every=1)
    est = evaluate_fabric(d)
    res = pair_bandwidth(d, est, training_demand_bps(64, 8))
    assert res.unserved == 0
    # every pair's bandwidth is whole wavelengths × 25 Gbps × the useful-time fraction
    units = res.bandwidth_bps / (25e9 * est.useful_fraction)
    assert np.allclose(units, np.round(units))
    # a GPU sends at most its capacity (its fibers in both directions) while the ring carries traffic
    assert (res.bandwidth_bps.sum(axis=1) <= est.effective_bandwidth_bps * (1 + 1e-9)).all()


def test_pairs_beyond_the_reach_get_nothing():
    d = ring_design(locality=1)  # no amplifiers: reach 1 hop
    est = evaluate_fabric(d)
    assert est.figures["optical reach"][0] == 1
    res = pair_bandwidth(d, est, pattern_demand_bps("groups", 64, 8))
    far = (ring_distance(64) > 1) & (pattern_demand_bps("groups", 64, 8) > 0)
    assert res.unserved == int(far.sum())
    assert (res.bandwidth_bps[far] == 0).all()


def test_ocs_pods_and_ports():
    link = LinkDesign(link=LinkSection(wavelengths_per_fiber=4, fibers_per_direction=20),
                      laser=LaserSection(lines=4, power_per_line=8e-3), package=PackageSection(chiplets=2))
    d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ocs", gpus=48),
                      sip_ocs=SipOcsSection(radix=24, topology="partitioned"))
    est = evaluate_fabric(d)
    demand = training_demand_bps(48, 8)
    res = pair_bandwidth(d, est, demand)
    # two pods of 24: only the ring edges 23→24 and 47→0 cross a pod boundary
    assert res.unserved == 2
    circuit = est.per_gpu_bandwidth_bps / est.degree
    assert (res.bandwidth_bps.sum(axis=1) <= est.degree * circuit + 1e-6).all()
    assert (res.bandwidth_bps.sum(axis=0) <= est.degree * circuit + 1e-6).all()


def test_electrical_fair_share_respects_nic_and_nvlink():
    d = ClusterDesign(fabric=FabricSection(kind="electrical", gpus=32),
                      electrical=ElectricalSection(gpus_per_server=8, switch_radix=8))
    est = evaluate_fabric(d)
    demand = np.ones((32, 32)) - np.eye(32)
    res = pair_bandwidth(d, est, demand)
    server = np.arange(32) // 8
    cross = server[:, None] != server[None, :]
    assert (np.where(cross, res.bandwidth_bps, 0).sum(axis=1) <= 200e9 * (1 + 1e-12)).all()
    assert (np.where(~cross, res.bandwidth_bps, 0).sum(axis=1) <= 2400e9 * (1 + 1e-12)).all()
    assert res.bandwidth_bps[0, 31] == pytest.approx(200e9 / 24)


def test_more_wavelengths_never_lower_the_min_ratio_on_the_ring():
    ratios = []
    for w in (4, 8, 12):
        link = dataclasses.replace(RING_LINK, link=LinkSection(wavelengths_per_fiber=w))
        d = dataclasses.replace(ring_design(amplifier_every=1), link=link)
        ratios.append(pair_bandwidth(d, evaluate_fabric(d), training_demand_bps(64, 8)).min_ratio)
    assert ratios[0] <= ratios[1] <= ratios[2]


def test_wrong_matrix_shape_and_pattern():
    d = ring_design(amplifier_every=1)
    with pytest.raises(InputError, match="64"):
        pair_bandwidth(d, evaluate_fabric(d), np.ones((3, 3)))
    with pytest.raises(InputError, match="pattern"):
        pattern_demand_bps("mesh", 64, 8)
