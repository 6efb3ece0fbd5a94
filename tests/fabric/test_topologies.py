"""Fabric topologies: physical properties and honest handling of impossible designs."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric.cluster_design import ClusterDesign, FabricSection
from fabric.electrical import ElectricalSection
from fabric.sip_ocs import SipOcsSection
from fabric.sip_ring import SipRingSection
from fabric.evaluate import evaluate_fabric
from fabric.sip_ocs import switch_network
from fabric.sip_ring import unamplified_reach_hops
from photonics.link_design import LaserSection, LinkDesign, LinkSection, LossSection, PackageSection
from core.errors import InputError
from sipml.design_files import load_design
from photonics.link import evaluate, fabric_inputs, pass_through_loss_db


def ring(**changes) -> ClusterDesign:
    return ClusterDesign(fabric=FabricSection(kind="sip-ring"), topology=SipRingSection(**changes))


def ocs(link=None, **changes) -> ClusterDesign:
    link = link or LinkDesign(link=LinkSection(wavelengths_per_fiber=4, fibers_per_direction=20),
                              laser=LaserSection(power_per_line=8e-3), package=PackageSection(chiplets=2))
    return ClusterDesign(link=link, fabric=FabricSection(kind="sip-ocs"), topology=SipOcsSection(**changes))


@settings(max_examples=25, deadline=None)
@given(coupler=st.floats(0.0, 3.0), extra=st.floats(0.01, 3.0))
def test_reach_falls_as_per_node_loss_rises(coupler, extra):
    base = LinkDesign(loss=LossSection(coupler=coupler, connectors=0, fiber_length=1.0),
                      laser=LaserSection(power_per_line=20e-3))
    worse = dataclasses.replace(base, loss=dataclasses.replace(base.loss, coupler=coupler + extra))
    reaches = []
    for link in (base, worse):
        reaches.append(int(unamplified_reach_hops(fabric_inputs(evaluate(link)))))
    assert reaches[1] <= reaches[0]


def test_pass_through_loss_by_hand():
    """Passing one GPU of the default link: 2 couplers × 1.5 dB + 2 × 0.5 cm × 1 dB/cm + 2 connectors × 0.5 dB +
    10 m × 0.35 dB/km, and the rings of its fiber at their own detunings (E19–E20): the worst of the 8 channels (in
    the middle of the 1.4 THz grid, well inside the 3.98 THz FSR) passes the other 7 modulators (Q 6000) and 7 drop
    filters (Q 6500) at 1, 1, 2, 2, 3, 3, 4 × 200 GHz, and its own two rings parked half a spacing (100 GHz) away.
    Each ring: T = (t0 + x²)/(1 + x²), x = 2δ/FWHM, FWHM = f0/Q, t0 = (Q/Q_i)², Q_i = 119 030 (no excess beyond the
    tail: DSENT's 0.01 dB per ring is that tail)."""
    d = ClusterDesign(fabric=FabricSection(kind="sip-ring"))
    f0, q_i = 299792458.0 / 1310e-9, 119029.6

    def ring_db(q, detuning_hz):
        x2 = (2 * detuning_hz * q / f0) ** 2
        return 10 * np.log10((1 + x2) / ((q / q_i) ** 2 + x2))

    rings = sum(ring_db(q, k * 200e9) for q in (6000, 6500) for k in (1, 1, 2, 2, 3, 3, 4))
    rings += ring_db(6000, 100e9) + ring_db(6500, 100e9)
    by_hand = 3.0 + 1.0 + rings + 1.0 + 10 * 0.35e-3
    assert pass_through_loss_db(evaluate(d.link)) == pytest.approx(by_hand, abs=1e-4)
    assert by_hand == pytest.approx(5.493, abs=5e-4)


def test_reach_formula_by_hand():
    """Neighbour margin m and pass-through loss h: reach = 1 + ⌊m/h⌋ hops."""
    link = LinkDesign(laser=LaserSection(power_per_line=20e-3), loss=LossSection(coupler=0.5, connectors=0))
    d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ring"))
    est = evaluate(link)
    h = pass_through_loss_db(est)  # couplers, waveguides, rings, fiber (by hand in the test above)
    assert fabric_inputs(est).pass_loss_db == h
    assert unamplified_reach_hops(fabric_inputs(est)) == 1 + int(est.margin_db // h) >= 2
    assert evaluate_fabric(dataclasses.replace(d, topology=SipRingSection(locality=1))).reach_hops == 1 + int(est.margin_db // h)


def test_default_ring_without_amplifiers_fails_the_locality_bound():
    """The library's default link closes to its neighbour with 0.60 dB to spare (tests/reference), less than one
    GPU's 5.5 dB pass-through: without amplifiers the ring reaches no GPU beyond it."""
    est = evaluate_fabric(ring())
    assert not est.feasible
    assert [v.name for v in est.violations] == ["ring_reach"]
    assert "16 GPUs" in est.violations[0].message


def test_amplifiers_extend_the_reach_and_are_counted():
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=6e-3))
    est = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1, loop_control="gain-clamp"), link=link))
    assert est.feasible, est.violations
    assert est.reach_hops >= 16
    assert est.details.amplifiers == 1024 * 10
    assert {"amplifier.soa", "filter.gain_clamp"} <= {line.key for line in est.bom}
    assert [line.count for line in est.bom if line.key == "filter.gain_clamp"] == [1024 * 10]


def test_a_closed_ring_of_amplifiers_is_refused_unless_its_loop_is_controlled():
    """F20: amplifiers restoring every span give unit round-trip gain between the channels (no drop filter there),
    so the ring lases: refused with loop_control 'none'. Gain-clamped, each amplifier sees its clamp filter's 1 dB
    in front of it: its input falls by exactly 1 dB, its OSNR by 1 dB (ASE at a fixed noise figure), and the
    section's loss the gain must cover rises by 1 dB."""
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=6e-3))
    free = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1), link=link))
    assert [v.name for v in free.violations] == ["amplifier_loop"]
    clamped = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1, loop_control="gain-clamp"), link=link))
    unclamped = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1, loop_control="gain-clamp",
                                                         clamp_loss=0.0), link=link))
    a, b = clamped.details.amplified, unclamped.details.amplified
    assert b.amplifier_input_dbm - a.amplifier_input_dbm == pytest.approx(1.0, abs=1e-12)
    assert b.osnr_db - a.osnr_db == pytest.approx(1.0, abs=1e-9)
    assert clamped.reach_hops <= unclamped.reach_hops
    weak = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1, loop_control="gain-clamp",
                                                    amplifier_gain=clamped.details.pass_loss_db + 0.5), link=link))
    assert "amplifier_gain" in [v.name for v in weak.violations]


def test_amplifier_spacing_beyond_the_unamplified_reach_is_a_violation():
    est = evaluate_fabric(ring(amplifier_every=4))
    assert "amplifier_spacing" in [v.name for v in est.violations]


def test_ring_whose_neighbour_link_does_not_close():
    d = dataclasses.replace(ring(), link=LinkDesign(laser=LaserSection(power_per_line=0.1e-3)))
    est = evaluate_fabric(d)
    assert {"power_budget", "ring_reach"} <= {v.name for v in est.violations}
    assert est.reach_hops == 0


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
    assert est.details.pods == 3 and est.pod_gpus == 342
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


@pytest.mark.parametrize("topology", ["single", "partitioned", "clos"])
def test_every_fiber_takes_an_ocs_port_of_its_own(topology):
    """An OCS port switches one fiber: 40 fibers per direction over 20 switch planes is 2 fibers a plane, each through
    a switch of its own (the plane built twice, configured alike), so twice the switches and ports of 20 fibers, the
    degree and the switch passes as they were. 10 fibers a port were charged one port (a 20 Tbit/s GPU bought the
    ports of a 2 Tbit/s one)."""
    link20, link40 = (LinkDesign(link=LinkSection(wavelengths_per_fiber=4, fibers_per_direction=f),
                                 laser=LaserSection(power_per_line=8e-3), package=PackageSection(chiplets=4))
                      for f in (20, 40))
    one, two = (evaluate_fabric(ocs(link=link, switches=20, radix=384, topology=topology)) for link in (link20, link40))
    assert (one.details.fibers_per_port, two.details.fibers_per_port) == (1, 2)
    assert two.details.ocs_count == 2 * one.details.ocs_count
    assert two.details.ports_bought_per_gpu == 2 * one.details.ports_bought_per_gpu
    assert (two.degree, two.details.switch_passes) == (one.degree, one.details.switch_passes)
    ports = {line.key: line.count for line in two.bom if line.key == two.design.topology.switch}
    assert ports == {two.design.topology.switch: two.details.ocs_count * 384}
    from fabric.registry import get_kind

    figures = get_kind("sip-ocs").figures(two)
    assert figures["fibers per switch plane"][0] == 2 and "fibers per port" not in figures


def test_clos_switch_counts_follow_the_gpu_count():
    """OCS planes of 384-port switches, the fewest passes first, then the fewest switches, by hand:
    - 384 GPUs: one switch, 1 pass (no Clos needed);
    - 1 024 GPUs: 3 passes; a folded Clos (leaves of 192 GPU ports and 192 spine ports) needs ⌈1024/192⌉ = 6 leaves
      and 6·192/384 = 3 spines = 9 switches, an unfolded 3-stage Clos at least 2⌈1024/45⌉ + 45 = 91: folded;
    - 131 072 GPUs: a folded Clos holds 2·192² = 73 728 at 3 passes; an unfolded 3-stage Clos of R × R switches
      (transmit fibers into the ingress side, receive fibers out of the egress side) holds R² = 147 456: n = 384
      GPUs per ingress switch, ⌈131072/384⌉ = 342 ingress, 384 middle (m = n, rearrangeable), 342 egress, 3 passes;
    - 10⁶ GPUs: beyond R², a 3-tier folded Clos, 5 209 + 5 209 + 2 605 switches, 5 passes."""
    def net(gpus):
        n = switch_network("clos", gpus, 384)
        return n.passes, n.switches_per_tier, n.construction

    assert net(384) == (1, (1,), "one switch")
    assert net(1024) == (3, (6, 3), "folded Clos")
    assert net(131_072) == (3, (342, 384, 342), "3-stage Clos")
    assert net(147_456) == (3, (384, 384, 384), "3-stage Clos")
    assert net(1_000_000) == (5, (5209, 5209, 2605), "folded Clos")
    assert switch_network("single", 384, 384).passes == 1
    with pytest.raises(InputError, match="cannot hold"):
        switch_network("clos", 10, 3)


def test_ocs_clos_passes_are_paid_in_the_budget():
    """sip-ocs-384 keeps 3 passes up to R² = 147 456 GPUs (an unfolded 3-stage Clos at 131 072: same margin as at
    1 024); at 10⁶ GPUs it needs 5 passes of (2 dB + 2 × 0.5 dB connectors): 2 × 3 dB = 6 dB less, and it no longer
    closes. At 384 GPUs one switch: 2 passes fewer, 6 dB more."""
    margins = {}
    for gpus in (384, 1024, 131_072, 1_000_000):
        est = evaluate_fabric(load_design("sip-ocs-384", [f"fabric.gpus={gpus}"]))
        margins[gpus] = (est.details.switch_passes, est.link.margin_db, est.feasible)
    base = margins[1024][1]
    assert margins[384][:2] == (1, pytest.approx(base + 6.0, abs=1e-9))
    assert margins[131_072] == (3, pytest.approx(base, abs=1e-12), True)
    assert margins[1_000_000][:2] == (5, pytest.approx(base - 6.0, abs=1e-9)) and not margins[1_000_000][2]
    big = evaluate_fabric(load_design("sip-ocs-384", ["fabric.gpus=131072"]))
    assert big.details.ocs_count == 20 * (342 + 384 + 342)


@pytest.mark.parametrize("gpus, tiers, per_tier", [
    (512, 2, (16, 8)), (1024, 2, (32, 16)), (2048, 2, (64, 32)),
    (4096, 3, (128, 128, 64)), (8192, 3, (256, 256, 128)), (16384, 3, (512, 512, 256))])
def test_rail_planes_reproduce_the_dgx_superpod_compute_fabric(gpus, tiers, per_tier):
    """NVIDIA DGX B200 SuperPOD RA (fabric-photonics-3.md §B1, [verbatim]): 8 rails of 64-port switches; leaf /
    spine / core counts per size. By hand, 1 024 GPUs: 128 NICs per plane, ⌈128/32⌉ = 4 leaves and 4·32/64 = 2 spines
    per plane, × 8 = 32 + 16; 4 096 GPUs at 3 tiers: 512 per plane → 16 leaves, 16 middle, 8 top, × 8 = 128/128/64."""
    from fabric.electrical import rail_planes

    el = ElectricalSection(switch_radix=64, rails=8, tiers=tiers)
    per_plane, tree = rail_planes(gpus, el)
    assert per_plane == gpus // 8
    assert tuple(8 * c for c in tree.switches_per_tier) == per_tier


def test_rail_planes_take_a_tier_off_at_131072_gpus():
    """131 072 GPUs, 64-port switches (k³/4 = 65 536 per 3-tier tree): one tree needs 4 tiers, 4 096 + 4 096 +
    4 096 + 2 048 = 14 336 switches; 8 rail planes of 16 384 NICs need 3 tiers, 8 × (512 + 512 + 256) = 10 240."""
    one = evaluate_fabric(ClusterDesign(fabric=FabricSection(kind="electrical", gpus=131_072),
                                        topology=ElectricalSection(switch_radix=64)))
    rails = evaluate_fabric(ClusterDesign(fabric=FabricSection(kind="electrical", gpus=131_072),
                                          topology=ElectricalSection(switch_radix=64, rails=8)))
    assert (one.details.tiers, one.details.switches) == (4, 14_336)
    assert (rails.details.tiers, rails.details.switches) == (3, 10_240)
    assert rails.details.network_step_s < one.details.network_step_s  # two switch hops fewer per step
    with pytest.raises(InputError, match="divide"):
        evaluate_fabric(ClusterDesign(fabric=FabricSection(kind="electrical", gpus=1024),
                                      topology=ElectricalSection(rails=3)))


@pytest.mark.parametrize("groups", [None, "tp=8,dp=128", "tp=32,dp=32", "ep=8,dp=1024", "pp=8,dp=128"])
def test_two_ring_directions_are_never_slower_than_one_on_the_same_fibers(capsys, groups):
    """A ring's step is as slow as its longest transfer: on one direction, a ring over an arc comes back the whole
    way round (GPUs − arc hops, relayed at every reach boundary), and every other arc's way back crosses its
    segments; an all-to-all's message to the member behind and a pipeline's sends back go round too. The default
    ring's 10 fibers as one direction gave the whole-ring all-reduce 1.56 ms against 2.33 ms on two directions of
    5, and ep=8 all-to-alls 2.43 ms against 2.66 ms (their ways back were priced as if they went back the other
    way)."""
    import json

    from sipml.cli import main

    times = {}
    for directions in (1, 2):
        argv = ["fabric", "sip-ring", "--set", f"sip_ring.directions={directions}", "-f", "json"]
        assert main(argv + (["--groups", groups] if groups else [])) == 0
        data = json.loads(capsys.readouterr().out)
        times[directions] = ([g["time_s"] for g in data["groups"]] if groups else
                             [data["collective_times_s"][op] for op in ("all_reduce", "reduce_scatter", "all_gather",
                                                                       "all_to_all", "p2p")])
    if groups:  # the groups run together, each at its share: the slowest is when they are all done
        times = {d: [max(t)] for d, t in times.items()}
    assert all(two <= one for one, two in zip(times[1], times[2])), times
    if groups is None:  # the whole ring goes around: one direction's flat ring, 2(p − 1) steps at 2 Tbit/s
        assert times[1][0] > 2.5 * times[2][0]


@pytest.mark.parametrize(("gpus", "job", "p", "s"), [(64, 64, 8, 1), (64, 64, 4, 2), (64, 32, 4, 1), (96, 96, 3, 4),
                                                     (128, 96, 8, 2), (16, 16, 16, 1)])
def test_one_direction_ring_crowd_is_the_busiest_segment_s_flows(gpus, job, p, s):
    """SiP-Ring with one direction: groups of p members s hops apart tile the job's GPUs, s interleaved copies to a
    tile; each ring steps forward member to member and closes forward round the whole fiber ring. Counting every
    flow on every segment, the busiest carries s copies × the job's tiles — the flows `fabric.sip_ring._crowd`
    (times the copies' 1/s in `_geometry`) shares a segment among."""
    from types import SimpleNamespace

    from fabric.sip_ring import _crowd

    load = np.zeros(gpus, dtype=int)  # flows on segment i → i+1 (mod gpus)

    def send(src, hops):
        load[(src + np.arange(hops)) % gpus] += 1

    arc = p * s
    for tile in range(job // arc):
        for copy in range(s):
            members = [tile * arc + copy + k * s for k in range(p)]
            for a, b in zip(members, members[1:]):
                send(a, b - a)
            send(members[-1], gpus - (members[-1] - members[0]))  # the closing step, forward round the ring
    est = SimpleNamespace(job_gpus=job, gpus=gpus, details=SimpleNamespace(directions=1))
    closed = arc == gpus
    assert load.max() == s * _crowd(est, arc, closed)
