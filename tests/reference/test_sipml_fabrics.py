"""SiP-ML's fabric reference cases (shared/reference/sipml.md, from the authors' simulator [sim])."""

import dataclasses

import pytest

from fabric import collectives
from fabric.cluster_design import ClusterDesign, FabricSection
from fabric.sip_ocs import SipOcsSection
from fabric.sip_ring import SipRingSection
from fabric.evaluate import evaluate_fabric
from fabric.estimate import useful_time_fraction
from photonics.link_design import LaserSection, LinkDesign, LinkSection, PackageSection

SWEEP = [20, 40, 80, 160, 320]  # wavelengths per GPU


def ring_design(total_wavelengths: int) -> ClusterDesign:
    per_fiber = total_wavelengths // 10
    link = LinkDesign(link=LinkSection(wavelengths_per_fiber=per_fiber, fibers_per_direction=10),
                      laser=LaserSection(lines=per_fiber, power_per_line=5e-3))
    return ClusterDesign(link=link, fabric=FabricSection(kind="sip-ring"), topology=SipRingSection(amplifier_every=1))


@pytest.mark.parametrize("total, per_fiber", list(zip(SWEEP, [2, 4, 8, 16, 32])))
def test_ring_wavelengths_per_fiber_per_direction(total, per_fiber):
    """2 directions × 5 fibers: N_λ/(2·5) wavelengths per fiber per direction → 2/4/8/16/32. The ring's capacity per
    direction is then what its fibers carry: directions × fibers × λ per fiber × 25 Gbps, up to 16 λ per fiber
    (32 do not fit the 3.98 THz FSR at 200 GHz)."""
    est = evaluate_fabric(ring_design(total))
    directions, fibers = 2, int(est.details.fibers_per_direction)
    assert fibers == 5 and directions * fibers * per_fiber == total
    if per_fiber <= 16:
        assert est.per_gpu_bandwidth_bps == pytest.approx(directions * fibers * per_fiber * 25e9)


@pytest.mark.parametrize("total, gbps", list(zip(SWEEP, [25, 50, 100, 200, 400])))
def test_ocs_per_port_rate(total, gbps):
    """N_ocs = 20: per-port rate N_λ·25 Gbps/20 → 25/50/100/200/400 Gbps (one fiber per port)."""
    link = LinkDesign(link=LinkSection(wavelengths_per_fiber=total // 20, fibers_per_direction=20),
                      laser=LaserSection(power_per_line=8e-3, lines=16), package=PackageSection(chiplets=2))
    d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ocs"),
                      topology=SipOcsSection(switches=20, radix=1024, topology="single"))
    est = evaluate_fabric(d)
    assert est.feasible, est.violations
    assert est.details.port_bps == pytest.approx(gbps * 1e9)
    assert est.degree == 20


def test_useful_time_fraction():
    """20 µs retune every 100 µs: 100/120 = 0.8333 — SiP-ML's periodic re-allocation. A static allocation never
    retunes (1); 'auto' offers all three ways to the training model."""
    assert useful_time_fraction(100e-6, 20e-6) == pytest.approx(0.8333, abs=5e-5)
    est = evaluate_fabric(ring_design(80))
    assert est.useful_fraction == 1.0 and est.details.allocation == "static"
    from fabric.sip_ring import allocations

    assert [(e.details.allocation, e.useful_fraction) for e in allocations(est)] == [
        ("static", 1.0), ("periodic", pytest.approx(100 / 120)), ("phased", 1.0)]


def test_multi_shot_ocs_useful_fraction():
    """Multi-shot SiP-OCS reconfigures every 5 × the delay: 5/6 of the time carries traffic [sim]."""
    d = ClusterDesign(fabric=FabricSection(kind="sip-ocs"),
                      link=LinkDesign(link=LinkSection(wavelengths_per_fiber=4, fibers_per_direction=20)),
                      topology=SipOcsSection(shots="multi", radix=1024))
    d = dataclasses.replace(d, link=dataclasses.replace(d.link, package=PackageSection(chiplets=2)))
    assert evaluate_fabric(d).useful_fraction == pytest.approx(5 / 6)


@pytest.mark.parametrize("gradient_bytes, gbps, ms", [(250e6, 200, 20.0), (6.8e9, 400, 272.0)])
def test_all_reduce_term(gradient_bytes, gbps, ms):
    """The fat-tree baseline's all-reduce term t_AR = 2·W·8/B: ResNet-50 (W 250e6 B) at 200 Gbps → 20.0 ms;
    GPT-2 355M (W 6.8e9 B) at 400 Gbps → 272 ms. It is the large-p limit of the ring all-reduce."""
    t = 2 * collectives.ring_half_s(gradient_bytes, 10**9, gbps * 1e9, 0.0)
    assert t * 1e3 == pytest.approx(ms, rel=1e-6)


def test_builtin_designs_as_in_sipml():
    from sipml.design_files import load_design

    ring = load_design("sip-ring")
    assert (ring.fabric.gpus, ring.topology.directions, ring.link.link.fibers_per_direction // 2) == (1024, 2, 5)
    assert (ring.topology.decision_interval, ring.topology.retune_time) == pytest.approx((100e-6, 20e-6))
    ocs = load_design("sip-ocs")
    assert (ocs.fabric.gpus, ocs.topology.switches) == (1024, 20)
    est = evaluate_fabric(ocs)
    assert est.per_gpu_bandwidth_bps == pytest.approx(2e12)
    assert ocs.topology.shots == "single"
