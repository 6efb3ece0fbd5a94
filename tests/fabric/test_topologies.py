"""Fabric topologies: physical properties and honest handling of impossible designs."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric.design import ClusterDesign, FabricSection
from fabric.electrical import ElectricalSection
from fabric.sip_ocs import SipOcsSection
from fabric.sip_ring import SipRingSection
from fabric.evaluate import evaluate_fabric
from fabric.sip_ocs import switch_network
from fabric.sip_ring import pass_through_loss_db, unamplified_reach_hops
from photonics.design import LaserSection, LinkDesign, LinkSection, LossSection, PackageSection
from core.errors import InputError
from sipml.design import load_design
from photonics.link import evaluate


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
        d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ring"))
        est = evaluate(link)
        reaches.append(unamplified_reach_hops(est, pass_through_loss_db(d, est)))
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
    assert pass_through_loss_db(d, evaluate(d.link)) == pytest.approx(by_hand, abs=1e-4)
    assert by_hand == pytest.approx(5.493, abs=5e-4)


def test_reach_formula_by_hand():
    """Neighbour margin m and pass-through loss h: reach = 1 + ⌊m/h⌋ hops."""
    link = LinkDesign(laser=LaserSection(power_per_line=20e-3), loss=LossSection(coupler=0.5, connectors=0))
    d = ClusterDesign(link=link, fabric=FabricSection(kind="sip-ring"))
    est = evaluate(link)
    h = pass_through_loss_db(d, est)  # couplers, waveguides, rings, fiber (by hand in the test above)
    assert unamplified_reach_hops(est, h) == 1 + int(est.margin_db // h) >= 2
    assert evaluate_fabric(dataclasses.replace(d, topology=SipRingSection(locality=1))).reach_hops == 1 + int(est.margin_db // h)


def test_default_ring_without_amplifiers_fails_the_locality_bound():
    """The library's default link closes to its neighbour with 0.67 dB to spare (tests/reference), less than one
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


def test_clos_switch_counts_follow_the_gpu_count():
    """Folded Clos of 384-port OCSes (leaves 192 down / 192 up; t tiers hold 2·192^t GPUs: 73 728 with 2, 14.2 M
    with 3), by hand:
    - 1 024 GPUs: ⌈1024/192⌉ = 6 leaves, 6·192/384 = 3 spines; 2 tiers, 3 passes;
    - 73 728 GPUs (2 tiers full): 384 leaves, 192 spines; 3 passes;
    - 131 072 GPUs: 3 tiers, ⌈131072/192⌉ = 683 leaves, 683·192/192 = 683 middle, ⌈683·192/384⌉ = 342 top; 5 passes;
    - 10⁶ GPUs: 3 tiers, 5 209 leaves, 5 209 middle, 2 605 top; 5 passes."""
    assert dataclasses.astuple(switch_network("clos", 1024, 384)) == (2, 3, (6, 3))
    assert dataclasses.astuple(switch_network("clos", 73_728, 384)) == (2, 3, (384, 192))
    assert dataclasses.astuple(switch_network("clos", 131_072, 384)) == (3, 5, (683, 683, 342))
    assert dataclasses.astuple(switch_network("clos", 1_000_000, 384)) == (3, 5, (5209, 5209, 2605))
    assert switch_network("single", 384, 384).passes == 1


def test_ocs_clos_beyond_two_tiers_pays_five_passes():
    """sip-ocs-384 at 131 072 GPUs: 3 tiers, so 5 passes of (2 dB + 2 × 0.5 dB connectors) instead of 3: the
    link loses 2 × 3 dB = 6 dB against the 1 024-GPU design and no longer closes."""
    small = evaluate_fabric(load_design("sip-ocs-384"))
    big = evaluate_fabric(load_design("sip-ocs-384", ["fabric.gpus=131072"]))
    assert (small.details.switch_passes, big.details.switch_passes) == (3, 5)
    assert small.link.margin_db - big.link.margin_db == pytest.approx(6.0, abs=1e-9)
    assert not big.feasible and any(v.name == "power_budget" for v in big.violations)
    assert big.details.ocs_count == 20 * (683 + 683 + 342)


def test_electrical_fat_tree_counts_and_bisection():
    d = ClusterDesign(fabric=FabricSection(kind="electrical", gpus=1024),
                      topology=ElectricalSection(switch_radix=40, oversubscription=1.0))
    est = evaluate_fabric(d)
    assert est.details.tiers == 3
    assert est.bisection_bps == pytest.approx(512 * 200e9)
    over = evaluate_fabric(dataclasses.replace(d, topology=ElectricalSection(oversubscription=3.0)))
    assert over.bisection_bps == pytest.approx(est.bisection_bps / 3)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(2, 7))
def test_more_wavelengths_raise_the_ring_capacity_while_the_link_closes(n):
    """The built-in ring's link with one comb line per wavelength closes up to 8 per fiber."""
    def cap(k):
        link = LinkDesign(link=LinkSection(wavelengths_per_fiber=k),
                          laser=LaserSection(lines=k, power_per_line=5e-3))
        return evaluate_fabric(dataclasses.replace(ring(amplifier_every=1), link=link))
    a, b = cap(n), cap(n + 1)
    assert a.link.feasible and b.link.feasible
    assert b.per_gpu_bandwidth_bps == pytest.approx(a.per_gpu_bandwidth_bps * (n + 1) / n)


def test_amplified_reach_falls_with_noise_figure():
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3))
    reach = [evaluate_fabric(dataclasses.replace(ring(amplifier_every=1, amplifier_noise_figure=nf), link=link))
             .reach_hops for nf in (4.0, 7.0, 10.0)]
    assert reach[0] >= reach[1] >= reach[2]
    assert reach[0] > reach[2]


def test_ring_needs_add_drop_modulators():
    link = LinkDesign(modulator=dataclasses.replace(LinkDesign().modulator, kind="all-pass"))
    est = evaluate_fabric(dataclasses.replace(ring(), link=link))
    assert "modulator_kind" in [v.name for v in est.violations]


def test_ring_bisection_is_one_gpu_capacity_per_direction():
    """Cutting the ring at two points: A→B leaves clockwise at one cut (5 fibers × 8 λ × 25 Gbps) and
    counter-clockwise at the other (the same): 2 Tbps per direction."""
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3))
    est = evaluate_fabric(dataclasses.replace(ring(amplifier_every=1), link=link))
    assert est.bisection_bps == pytest.approx(2 * 5 * 8 * 25e9)


def _q_by_hand(p_avg_w, p_signal_w, er, r, sigma_th, osnr_db, b_o, b_e):
    """Q of an amplified OOK receiver written out from Agrawal §7.2 (independent of photonics.amplifier): the ASE
    density follows the actual signal, S_sp = P_signal/(2·OSNR·B_o) per polarisation; the levels use the signal
    after the power penalties; σ² = σ_th² + 4R²·P_i·S_sp·B_e + 4R²·S_sp²·B_o·B_e."""
    p1, p0 = 2 * p_avg_w * er / (er + 1), 2 * p_avg_w / (er + 1)
    s_sp = p_signal_w / (2 * 10 ** (osnr_db / 10) * b_o)
    var = lambda p: sigma_th**2 + 4 * r**2 * p * s_sp * b_e + 4 * r**2 * s_sp**2 * b_o * b_e  # noqa: E731
    return r * (p1 - p0) / (np.sqrt(var(p1)) + np.sqrt(var(p0)))


@pytest.mark.parametrize("every, reserved_db", [(1, 0.0), (2, 1.0)])
def test_amplified_reach_against_a_hand_calculation(every, reserved_db):
    """The ring's amplified reach from first principles: OSNR = P_in − NF − 10·log10(h·f·B_o/1 mW) − 10·log10 n,
    σ_th from the Ge receiver reaching Q(1e-12) at its sensitivity, received power `every` hops past the amplifier,
    the signal penalties (crosstalk, filter ISI, RIN, dispersion) and the margin off the signal; reach =
    1 + every·n_max."""
    from photonics.link import transmit_loss_db

    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=6e-3 if every == 1 else 20e-3),
                      link=LinkSection(system_margin=reserved_db))
    d = dataclasses.replace(ring(amplifier_every=every), link=link)
    est = evaluate(d.link)
    h = pass_through_loss_db(d, est)
    f0, b_o, b_e, q_need, er = 299792458.0 / 1310e-9, est.ring.filter_fwhm_hz, 0.75 * 25e9, 7.034, 10 ** 0.7
    amp_in = est.launch_dbm - transmit_loss_db(est.ledger) - every * h
    rx = est.received_dbm - (every - 1) * h
    signal_penalties = sum(p.value_db for p in est.penalties if p.name != "extinction ratio")  # crosstalk, ISI, …
    p_eff = 1e-3 * 10 ** ((rx - signal_penalties - reserved_db) / 10)
    s = 1e-3 * 10 ** (est.sensitivity_dbm / 10)
    sigma_th = 0.7 * s * (er - 1) / ((er + 1) * q_need)
    ref = 10 * np.log10(6.62607015e-34 * f0 * b_o / 1e-3)
    n_max = 0
    for n in range(1, 1024):
        osnr = amp_in - 7.0 - ref - 10 * np.log10(n)
        if _q_by_hand(p_eff, 1e-3 * 10 ** (rx / 10), er, 0.7, sigma_th, osnr, b_o, b_e) < q_need:
            break
        n_max = n
    est_ring = evaluate_fabric(d)
    assert est_ring.details.amplified.amplifiers_passable == n_max
    assert est_ring.reach_hops == min(1023, 1 + every * n_max)
    if every == 1:
        assert n_max == 27  # the built-in sip-ring's 6 mW comb (over 10 m hops here): reach 28 GPUs


def test_given_sensitivity_counts_the_extinction_ratio_once_in_the_amplified_q():
    """A 'given' sensitivity at an ideal transmitter: σ_th comes from the sensitivity at that ER, and the link's
    finite ER enters through the '1' and '0' levels only. Thermal noise alone then reproduces the link budget:
    Q at the neighbour equals Q(BER) exactly when the margin is zero."""
    from photonics.amplifier import q_amplified, thermal_sigma_a
    from photonics.design import ReceiverSection

    rx = ReceiverSection(model="given", sensitivity=1e-3 * 10 ** (-14 / 10), sensitivity_extinction="given",
                         reference_extinction_ratio=np.inf)
    link = LinkDesign(laser=LaserSection(lines=8, power_per_line=5e-3), receiver=rx)
    est = evaluate(link)
    er = 10 ** 0.7
    sigma = thermal_sigma_a(rx.sensitivity, np.inf, 0.7, 7.034)
    signal_penalties = sum(p.value_db for p in est.penalties if p.name != "extinction ratio")
    # received power shortened by the margin sits exactly at the budget's threshold
    p_at_threshold = 1e-3 * 10 ** ((est.received_dbm - est.margin_db - signal_penalties) / 10)
    assert q_amplified(p_at_threshold, er, 0.7, sigma, 0.0, 35e9, 18.75e9) == pytest.approx(7.034, rel=1e-3)


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
