"""Fabric topologies: physical properties and honest handling of impossible designs."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric.design import ClusterDesign, ElectricalSection, FabricSection, SipOcsSection, SipRingSection
from fabric.evaluate import evaluate_fabric
from fabric.sip_ocs import clos_switches_per_plane
from fabric.sip_ring import pass_through_loss_db, unamplified_reach_hops
from photonics.design import LaserSection, LinkDesign, LinkSection, LossSection, PackageSection
from photonics.errors import InputError
from photonics.link import evaluate


def ring(**changes) -> ClusterDesign:
    return ClusterDesign(fabric=FabricSection(kind="sip-ring"), sip_ring=SipRingSection(**changes))


def ocs(link=None, **changes) -> ClusterDesign:
    link = link or LinkDesign(link=LinkSection(wavelengths_per_fiber=4, fibers_per_direction=20),
                              laser=LaserSection(power_per_line=5e-3), package=PackageSection(chiplets=2))
    return ClusterDesign(link=link, fabric=FabricSection(kind="sip-ocs"), sip_ocs=SipOcsSection(**changes))


@settings(max_examples=25, deadline=None)
@given(coupler=st.floats(0.0, 3.0), extra=st.floats(0.01, 3.0))
def test_reach_falls_as_per_node_loss_rises(coupler, extra):
    base = LinkDesign(loss=LossSection(coupler=coupler, connectors=0, fiber_length=1.0),
                      laser=LaserSection(power_per_line=20e-3))
    worse = dataclasses.replace(base, loss=dataclasses.replace(base.loss, coupler=coupler + extra))
    reaches = []
    for link in (base, worse):
        d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ring"))
        est = evaluate(link)
        reaches.append(unamplified_reach_hops(est, pass_through_loss_db(d, est)))
    assert reaches[1] <= reaches[0]


def test_reach_formula_by_hand():
    """Neighbour margin m and pass-through loss h: reach = 1 + ⌊m/h⌋ hops."""
    link = LinkDesign(laser=LaserSection(power_per_line=20e-3), loss=LossSection(coupler=0.5, connectors=0))
    d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ring"))
    est = evaluate(link)
    h = pass_through_loss_db(d, est)
    assert unamplified_reach_hops(est, h) == 1 + int(est.margin_db // h)
    assert evaluate_fabric(dataclasses.replace(d, sip_ring=SipRingSection(locality=1))).figures[
        "optical reach"][0] == 1 + int(est.margin_db // h)


def test_default_ring_without_amplifiers_fails_the_locality_bound():
    est = evaluate_fabric(ring())
    assert not est.feasible
    assert [v.name for v in est.violations] == ["ring_reach"]
    assert "16 GPUs" in est.violations[0].message


def test_amplifiers_extend_the_reach_and_are_counted():
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3))
    est = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1), link=link))
    assert est.feasible, est.violations
    assert est.figures["optical reach"][0] >= 16
    assert est.figures["amplifiers"][0] == 1024 * 10
    assert any(line.key == "amplifier.soa" for line in est.bom)


def test_amplifier_spacing_beyond_the_unamplified_reach_is_a_violation():
    est = evaluate_fabric(ring(amplifier_every=4))
    assert "amplifier_spacing" in [v.name for v in est.violations]


def test_ring_whose_neighbour_link_does_not_close():
    d = dataclasses.replace(ring(), link=LinkDesign(laser=LaserSection(power_per_line=0.1e-3)))
    est = evaluate_fabric(d)
    assert {"power_budget", "ring_reach"} <= {v.name for v in est.violations}
    assert est.figures["optical reach"][0] == 0


def test_directions_must_divide_fibers():
    d = dataclasses.replace(ring(), link=LinkDesign(link=LinkSection(fibers_per_direction=9)))
    with pytest.raises(InputError, match="must divide"):
        evaluate_fabric(d)


def test_ocs_single_layer_with_too_few_ports_is_infeasible():
    est = evaluate_fabric(ocs(radix=384, topology="single"))
    assert "ocs_radix" in [v.name for v in est.violations]


def test_ocs_partitioned_pods():
    whole = evaluate_fabric(ocs(radix=384, topology="partitioned"))
    assert [v.name for v in whole.violations] == ["pod_size"]  # a 1024-GPU job cannot run in 342-GPU pods
    d = ocs(radix=384, topology="partitioned")
    est = evaluate_fabric(dataclasses.replace(d, fabric=FabricSection(kind="sip-ocs", job_gpus=256)))
    assert est.feasible
    assert est.figures["pods"][0] == 3 and est.figures["GPUs per pod"][0] == 342
    assert est.bisection_bps == 0.0  # no circuit between pods


def test_ocs_insertion_loss_is_fed_back_into_the_budget():
    one = evaluate_fabric(ocs(radix=1024, topology="single"))
    three = evaluate_fabric(ocs(radix=384, topology="clos"))
    # two more passes, each a 2 dB switch port and 2 × 0.5 dB connectors
    assert one.link.margin_db - three.link.margin_db == pytest.approx(2 * (2.0 + 1.0), abs=1e-9)
    assert "power_budget" in [v.name for v in three.violations]


def test_ocs_ports_need_whole_fibers():
    with pytest.raises(InputError, match="multiple"):
        evaluate_fabric(ocs(link=LinkDesign(), switches=20))


def test_clos_switch_counts():
    """1024 GPUs, 384-port switches: leaves of 192 down / 192 up → 6 leaves, 3 spines per plane."""
    assert clos_switches_per_plane(1024, 384) == (6, 3)


def test_electrical_fat_tree_counts_and_bisection():
    d = ClusterDesign(fabric=FabricSection(kind="electrical", gpus=1024),
                      electrical=ElectricalSection(switch_radix=40, oversubscription=1.0))
    est = evaluate_fabric(d)
    assert est.figures["fat-tree tiers"][0] == 3
    assert est.bisection_bps == pytest.approx(512 * 200e9)
    over = evaluate_fabric(dataclasses.replace(d, electrical=ElectricalSection(oversubscription=3.0)))
    assert over.bisection_bps == pytest.approx(est.bisection_bps / 3)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 32))
def test_more_wavelengths_never_lower_the_ring_capacity_while_feasible(n):
    def cap(k):
        link = LinkDesign(link=LinkSection(wavelengths_per_fiber=k), laser=LaserSection(lines=64))
        return evaluate_fabric(dataclasses.replace(ring(amplifier_every=1), link=link))
    a, b = cap(n), cap(n + 1)
    if b.link.feasible:
        assert b.per_gpu_bandwidth_bps >= a.per_gpu_bandwidth_bps


def test_amplified_reach_falls_with_noise_figure():
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3))
    reach = [evaluate_fabric(dataclasses.replace(ring(amplifier_every=1, amplifier_noise_figure=nf), link=link))
             .figures["optical reach"][0] for nf in (4.0, 7.0, 10.0)]
    assert reach[0] >= reach[1] >= reach[2]
    assert reach[0] > reach[2]


def test_ring_needs_add_drop_modulators():
    link = LinkDesign(modulator=dataclasses.replace(LinkDesign().modulator, kind="all-pass"))
    est = evaluate_fabric(dataclasses.replace(ring(), link=link))
    assert "modulator_kind" in [v.name for v in est.violations]


def test_ring_bisection_is_one_gpu_capacity_per_direction():
    est = evaluate_fabric(ring(amplifier_every=1))
    assert est.bisection_bps == pytest.approx(est.per_gpu_bandwidth_bps)
