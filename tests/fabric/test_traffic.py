"""Per-flow bandwidth of a traffic pattern on each fabric: capacities respected, relayed and unservable pairs
counted, flows end to end."""

import dataclasses

import numpy as np
import pytest

from core.errors import InputError
from fabric.cluster_design import ClusterDesign, FabricSection
from fabric.electrical import ElectricalSection
from fabric.evaluate import evaluate_fabric
from fabric.flows import Flows, group_alltoall_flows, ring_neighbour_flows
from fabric.sip_ocs import SipOcsSection
from fabric.sip_ring import SipRingSection
from fabric.traffic import pair_bandwidth, pattern_flows, ring_distance
from photonics.link_design import LaserSection, LinkDesign, LinkSection, PackageSection

RING_LINK = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3))


def ring_design(gpus=64, **ring):
    return ClusterDesign(link=RING_LINK, fabric=FabricSection(kind="sip-ring", gpus=gpus),
                         topology=SipRingSection(**ring))


def _per_gpu(flows, values, side):
    return np.bincount(flows.src if side == "src" else flows.dst, values, flows.gpus)


def test_ring_respects_segment_capacity_and_useful_time():
    est = evaluate_fabric(ring_design(amplifier_every=1))
    res = pair_bandwidth(est, pattern_flows("training", 64, 8))
    assert res.unserved == 0 and res.relayed == 0
    # every flow's bandwidth is whole wavelengths × 25 Gbps × the useful-time fraction
    units = res.bandwidth_bps / (25e9 * est.useful_fraction)
    assert np.allclose(units, np.round(units))
    # a GPU sends at most its capacity (its fibers in both directions) while the ring carries traffic
    assert (_per_gpu(res.flows, res.bandwidth_bps, "src") <= est.effective_bandwidth_bps * (1 + 1e-9)).all()


def test_pairs_beyond_the_reach_are_relayed():
    """No amplifiers: a wavelength reaches one GPU, so every group pair further apart goes through the GPUs
    between (relayed, still served: each segment is crossed once either way)."""
    est = evaluate_fabric(ring_design(locality=1))
    assert est.reach_hops == 1
    flows = pattern_flows("groups", 64, 8)
    res = pair_bandwidth(est, flows)
    assert res.relayed == int(np.sum(ring_distance(flows, 64) > 1)) > 0
    assert res.unserved == 0 and (res.bandwidth_bps > 0).all()


def test_ocs_pods_and_ports():
    link = LinkDesign(link=LinkSection(wavelengths_per_fiber=4, fibers_per_direction=20),
                      laser=LaserSection(lines=4, power_per_line=8e-3), package=PackageSection(chiplets=2))
    d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ocs", gpus=48, job_gpus=24),
                      topology=SipOcsSection(radix=24, topology="partitioned"))
    est = evaluate_fabric(d)
    res = pair_bandwidth(est, pattern_flows("training", 48, 8))
    # two pods of 24: only the ring edges 23→24 and 47→0 cross a pod boundary
    assert res.unserved == 2
    circuit = est.per_gpu_bandwidth_bps / est.degree
    for side in ("src", "dst"):
        assert (_per_gpu(res.flows, res.bandwidth_bps, side) <= est.degree * circuit + 1e-6).all()


def test_electrical_fair_share_respects_nic_and_nvlink():
    d = ClusterDesign(fabric=FabricSection(kind="electrical", gpus=32),
                      topology=ElectricalSection(gpus_per_server=8, switch_radix=8))
    est = evaluate_fabric(d)
    flows = Flows.from_matrix(np.ones((32, 32)) - np.eye(32))
    res = pair_bandwidth(est, flows)
    cross = flows.src // 8 != flows.dst // 8
    assert (_per_gpu(flows, np.where(cross, res.bandwidth_bps, 0), "src") <= 200e9 * (1 + 1e-12)).all()
    assert (_per_gpu(flows, np.where(~cross, res.bandwidth_bps, 0), "src") <= 2400e9 * (1 + 1e-12)).all()
    assert res.bandwidth_bps[(flows.src == 0) & (flows.dst == 31)][0] == pytest.approx(200e9 / 24)


def test_more_wavelengths_never_lower_the_min_ratio_on_the_ring():
    ratios = []
    for w in (4, 8, 12):
        link = dataclasses.replace(RING_LINK, link=LinkSection(wavelengths_per_fiber=w))
        d = dataclasses.replace(ring_design(amplifier_every=1), link=link)
        ratios.append(pair_bandwidth(evaluate_fabric(d), pattern_flows("training", 64, 8)).min_ratio)
    assert ratios[0] <= ratios[1] <= ratios[2]


def test_flows_by_hand():
    ring = ring_neighbour_flows(4, 2.0, both_ways=True)
    assert ring.count == 8 and set(zip(ring.src.tolist(), ring.dst.tolist())) == {
        (0, 1), (1, 2), (2, 3), (3, 0), (0, 3), (1, 0), (2, 1), (3, 2)}
    groups = group_alltoall_flows(8, 4, 1.0)
    assert groups.count == 2 * 4 * 3 and (groups.src // 4 == groups.dst // 4).all()
    both = ring_neighbour_flows(8, 1.0) + group_alltoall_flows(8, 4, 1.0)
    # 0→1 appears in both patterns: demands add; 3→4 only in the ring
    assert both.matrix()[0, 1] == 2.0 and both.matrix()[3, 4] == 1.0 and both.count == 24 + 2


def test_bad_flows_and_pattern():
    est = evaluate_fabric(ring_design(amplifier_every=1))
    with pytest.raises(InputError, match="64"):
        pair_bandwidth(est, ring_neighbour_flows(3, 1e9))
    with pytest.raises(InputError, match="pattern"):
        pattern_flows("mesh", 64, 8)
    with pytest.raises(InputError, match="itself"):
        Flows(4, np.array([1]), np.array([1]), np.array([1.0]))
    with pytest.raises(InputError, match="divide"):
        group_alltoall_flows(10, 4, 1.0)


@pytest.mark.parametrize("gpus, group", [(2, 1), (6, 3), (24, 8), (30, 3), (96, 16), (4096, 8)])
def test_the_training_pattern_built_one_group_at_a_time_is_the_sum_of_its_ring_and_its_groups(gpus, group):
    summed = ring_neighbour_flows(gpus, 1e9) + group_alltoall_flows(gpus, group, 1e9)
    built = pattern_flows("training", gpus, group)
    for name in ("src", "dst", "demand_bps"):  # the same flows, in the same order, of the same types
        assert np.array_equal(getattr(built, name), getattr(summed, name))
        assert getattr(built, name).dtype == getattr(summed, name).dtype
    assert built.period == summed.period == group


def test_a_period_that_does_not_divide_the_gpus_is_refused():
    with pytest.raises(InputError, match="period must be 0 or an integer dividing the 12 GPUs"):
        Flows(12, np.array([0]), np.array([1]), np.array([1.0]), period=5)
