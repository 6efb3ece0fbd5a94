"""Collectives priced for the groups they run in, on every fabric: each case worked by hand in its docstring.

Unless a test says otherwise the fabrics are the built-in designs; `design()` zeroes the launch latency where a
hand calculation is about one schedule's steps.
"""

import dataclasses as dc
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from fabric.collectives import busbw_bps, expander_mean_distance
from fabric.evaluate import evaluate_fabric, job_collectives, price
from fabric.kind import Collective
from sipml.design_files import load_design

MB100 = 1e8  # bytes
ALPHA = 1e-6  # the α of the review's worked numbers


def design(name, fabric=None, **topology):
    d = load_design(name)
    fab = dc.replace(d.fabric, **{"launch_latency": 0.0, **(fabric or {})})
    return dc.replace(d, fabric=fab, topology=dc.replace(d.topology, **topology))


def dgx_unit_alpha(**changes):
    """DGX-A100 at the review's α = 1 µs everywhere, raw link rates (efficiency 1)."""
    return design("dgx-a100", nvlink_latency=ALPHA, network_latency=ALPHA, switch_hop_latency=0.0,
                  nvlink_efficiency=1.0, nic_efficiency=1.0, **changes)


def alone(est, op, n, size, stride=1):
    return price(est, [Collective(op, n, size, stride)])[0]


def pipe(latency, transfer, steps, alpha):
    """A ring's steps pipelined (fabric.collectives.pipelined_s): max(Σα, transfer) + min(α, transfer/steps)."""
    return max(latency, transfer) + min(alpha, transfer / steps)


# --- the seam, by hand ----------------------------------------------------------------------------------------
def test_allreduce_of_8_ranks_inside_a_dgx_server_runs_on_nvlink():
    """8 ranks of one DGX-A100 server, 100 MB: an NVLink ring at 80 % of 2.4 Tb/s, 14 steps of 3.4 µs (NCCL Simple
    over NVLink), pipelined, and one 8.4 µs launch: the 2·(7/8)·8e8/1.92e12 = 0.729 ms of transfer hides the 47.6 µs
    of steps, one step's 3.4 µs fills the pipeline: 0.741 ms."""
    est = evaluate_fabric(load_design("dgx-a100"))
    t = alone(est, "all_reduce", MB100, 8)
    assert t.schedule == "NVLink ring"
    assert t.seconds == pytest.approx(2 * 7 / 8 * 8e8 / 1.92e12 + 3.4e-6 + 8.4e-6, rel=1e-12)


def test_ring_group_consecutive_versus_strided():
    """16 ranks on the 1024-GPU SiP-Ring (static allocation: no retune) with no step cost (only the fiber and chiplet
    delay of each hop): a consecutive group is an arc, so its ring runs the chain on one direction's fibers and
    returns on the other's: C = 1 Tb/s per rank. At stride 8 the group's 8 interleaved copies share every segment: C/8 per rank,
    and each hop spans 8 segments. Reduce-scatter: 15 steps of the longest hop's delay and 15/16·n·8/b, pipelined."""
    est = evaluate_fabric(design("sip-ring", allocation="static", step_latency=0.0, relay_latency=0.0))
    hop = est.details.hop_delay_s
    c_dir = 1e12
    consecutive = alone(est, "reduce_scatter", MB100, 16)
    strided = alone(est, "reduce_scatter", MB100, 16, 8)
    assert consecutive.schedule == strided.schedule == "ring"
    assert consecutive.seconds == pytest.approx(pipe(15 * 15 * hop, 15 / 16 * 8e8 / c_dir, 15, 15 * hop), rel=1e-9)
    assert strided.seconds == pytest.approx(pipe(15 * 120 * hop, 15 / 16 * 8e8 / (c_dir / 8), 15, 120 * hop),
                                            rel=1e-9)


def test_ocs_group_wider_than_the_degree_is_relayed():
    """All-to-all among 64 ranks of SiP-OCS with 20 circuits of 100 Gb/s each: 63 peers > 20 ports, so bytes travel
    the circuit graph's mean distance h = (20·1 + 43·2)/63 = 1.683 hops (directed Moore bound), paying a relay per
    extra hop: t = 63·α_c + (h − 1)·3.4 µs + n·h·8/2 Tb/s, α_c = 3.4 µs + fiber + 2 chiplets."""
    est = evaluate_fabric(design("sip-ocs"))
    h = (20 + 43 * 2) / 63
    assert expander_mean_distance(20, 64) == pytest.approx(h)
    alpha = 3.4e-6 + est.details.circuit_delay_s
    t = alone(est, "all_to_all", MB100, 64)
    assert t.schedule == "relayed over the circuits"
    assert t.seconds == pytest.approx(63 * alpha + (h - 1) * 3.4e-6 + MB100 * h * 8 / 2e12, rel=1e-9)
    direct = alone(est, "all_to_all", MB100, 16)  # 15 peers ≤ 20 ports: one circuit hop each
    assert direct.schedule == "direct circuits"
    assert direct.seconds == pytest.approx(15 * alpha + MB100 * 8 / 2e12, rel=1e-9)


# --- the review's defects, one each -----------------------------------------------------------------------------
def test_defect1_collectives_inside_one_server_use_nvlink():
    """job_gpus = 8 on DGX-A100, α = 1 µs, raw rates: all-reduce 2·(7/8)·0.8 Gb/2.4 Tb/s = 0.583 ms, its 14 α hidden
    but one (not 7 ms over the NICs); all-to-all 0.8 Gb/2.4 Tb/s + 7 α = 0.340 ms; point-to-point on NVLink
    0.334 ms."""
    t = job_collectives(evaluate_fabric(dgx_unit_alpha(fabric={"job_gpus": 8})), MB100)
    assert t["all_reduce"].seconds == pytest.approx(2 * 7 / 8 * 8e8 / 2.4e12 + 1e-6, rel=1e-12)
    assert t["all_to_all"].seconds == pytest.approx(8e8 / 2.4e12 + 7e-6, rel=1e-12)
    assert t["p2p"].seconds == pytest.approx(8e8 / 2.4e12 + 1e-6, rel=1e-12)
    assert t["p2p"].schedule == "NVLink"


def test_defect2_concurrent_strided_groups_share_the_fabric():
    """DP 128 × TP 8, 100 MB, α = 1 µs. SiP-Ring: the 8 data-parallel rings (stride 8) close the 1024-GPU ring and
    share every segment 8 ways: 2·(127/128)·0.8 Gb/(2·1 Tb/s/8) = 6.35 ms, hiding 254 steps of (α + 8 hops' delay)
    but one (static allocation).
    DGX: each DP group takes one rail (member k of every server on NIC k), so the 8 groups do not share a NIC: the
    rail ring gives 2·(127/128)·0.8 Gb/200 Gb/s + α = 7.94 ms; NCCL's model rates the tree over the 128 servers
    at 14 α + 0.8 Gb/(0.46·200 Gb/s) = 8.71 ms, so NCCL runs the ring."""
    dp = Collective("all_reduce", MB100, 128, 8, name="dp")
    ring = evaluate_fabric(design("sip-ring", allocation="static", step_latency=ALPHA, relay_latency=ALPHA))
    c = 1e12
    step = ALPHA + 8 * ring.details.hop_delay_s
    by_hand = pipe(254 * step, 2 * (127 / 128 * 8e8 / (2 * c / 8)), 254, step)
    t = price(ring, [dp])[0]
    assert t.seconds == pytest.approx(by_hand, rel=1e-9) and t.seconds == pytest.approx(6.35e-3, rel=0.01)
    dgx = price(evaluate_fabric(dgx_unit_alpha()), [dp])[0]
    assert dgx.schedule == "ring over the servers, rail-aligned"
    assert dgx.seconds == pytest.approx(2 * 127 / 128 * 8e8 / 2e11 + 1e-6, rel=1e-12)


def test_defect2_one_circuit_configuration_serves_every_group():
    """SiP-OCS configured once for DP 128 × TP 8 (equal all-reduce bytes per call, one call each): a TP rank sends
    2·(7/8)·n, a DP rank 2·(127/128)·n per call, so the 20 ports split 9.37 / 10.63 in proportion to bytes: 9 and 11
    whole circuits (largest remainder). Each group's time is its time alone on that many ports — slower than alone
    on all 20."""
    est = evaluate_fabric(design("sip-ocs"))
    tp, dp = Collective("all_reduce", MB100, 8, 1, name="tp"), Collective("all_reduce", MB100, 128, 8, name="dp")
    together = price(est, [tp, dp])
    assert 20 * (7 / 8) / (7 / 8 + 127 / 128) == pytest.approx(9.37, abs=0.005)
    share_tp = 9 / 20
    assert together[0].share == pytest.approx(share_tp) and together[1].share == pytest.approx(1 - share_tp)
    for t, c in zip(together, (tp, dp)):
        assert t.seconds > price(est, [c])[0].seconds
        k = round(20 * t.share)  # whole circuits; a torus runs on an even number of them (10 of the DP group's 11)
        used = 2 * (k // 2) if t.schedule.startswith("2-D torus") else k
        assert t.bandwidth_bps == pytest.approx(2e12 * used / 20)
    # a TP collective running while the job is configured for both still gets only its ports
    assert price(est, [tp], mix=[tp, dp])[0].seconds == pytest.approx(together[0].seconds)


def test_defect3_ring_arcs_are_lines():
    """A group that does not span the ring is an arc: its end rank has one in-group neighbour, so it sends at one
    direction's capacity C = 1 Tb/s (static allocation). job_gpus = 8, α = 1 µs: a ring reduce-scatter takes
    (7/8)·0.8 Gb/C = 0.70 ms, its 7 steps of (α + hop delays of the 7-hop return) pipelined behind it but one (not
    half that at 2C), so a ring all-reduce 1.40 ms; the all-reduce runs as a chain instead — reduce one way,
    broadcast back the other, pipelined: 0.8 Gb/C + 14·(α + 1 hop) = 0.814 ms (~n/C). 1024 GPUs: lines of h = the
    reach consecutive GPUs, then rings of GPUs h apart closing the ring (2C shared h ways), each ring pipelined:
    ≈ 2.31 ms at a reach of 23; the flat ring's 2046 steps, pipelined, are latency-bound at this size and the faster
    of the two wins."""
    est = evaluate_fabric(design("sip-ring", fabric={"job_gpus": 8}, allocation="static", step_latency=ALPHA,
                                 relay_latency=ALPHA))
    c, hop = 1e12, est.details.hop_delay_s
    times = job_collectives(est, MB100)
    step = ALPHA + 7 * hop
    assert times["reduce_scatter"].seconds == pytest.approx(pipe(7 * step, 7 / 8 * 8e8 / c, 7, step), rel=1e-9)
    t = times["all_reduce"]
    assert t.schedule == "chain: reduce one way, broadcast back"
    assert t.seconds == pytest.approx(8e8 / c + 14 * (ALPHA + hop), rel=1e-9)
    assert t.seconds == pytest.approx(0.814e-3, rel=0.01)
    whole = evaluate_fabric(design("sip-ring", allocation="static", step_latency=ALPHA, relay_latency=ALPHA))
    h = whole.reach_hops
    g = math.ceil(1024 / h)
    a_in, a_out = ALPHA + (h - 1) * hop, ALPHA + h * hop  # both halves of the all-reduce in one pipeline per ring
    inner = pipe(2 * (h - 1) * a_in, 2 * (h - 1) / h * 8e8 / c, 2 * (h - 1), a_in)
    outer = pipe(2 * (g - 1) * a_out, 2 * (g - 1) / g * (8e8 / h) / (2 * c / h), 2 * (g - 1), a_out)
    a_flat = ALPHA + hop  # the flat ring closes the ring: 2C per rank, one hop a step
    flat = pipe(2 * 1023 * a_flat, 2 * 1023 / 1024 * 8e8 / (2 * c), 2 * 1023, a_flat)
    big = job_collectives(whole, MB100)["all_reduce"]
    assert inner + outer == pytest.approx(2.31e-3, rel=0.01)
    assert big.seconds == pytest.approx(min(flat, inner + outer), rel=1e-9)
    assert big.schedule == ("ring" if flat <= inner + outer else "two-level ring")


def test_defect4_the_ocs_torus_keeps_every_port_busy():
    """SiP-OCS, 1024 ranks on a 32 × 32 circuit torus, 10 ports per dimension, the two halves of the buffer in
    opposite dimension orders: the bandwidth term is the ring's, (1023/1024)·n·8/2 Tb/s per half, with 62 steps,
    pipelined: 100 MB → 2·0.3996 ms + α_c ≈ 0.80 ms (not 1.67 ms); 1 GB ≈ 8.0 ms (not 10.0 ms)."""
    est = evaluate_fabric(design("sip-ocs", step_latency=ALPHA))
    alpha = ALPHA + est.details.circuit_delay_s
    for n, expected in ((MB100, 0.80e-3), (1e9, 8.0e-3)):
        t = job_collectives(est, n)["all_reduce"]
        assert t.seconds == pytest.approx(pipe(124 * alpha, 2 * 1023 / 1024 * n * 8 / 2e12, 124, alpha), rel=1e-9)
        assert t.seconds == pytest.approx(expected, rel=0.01)
        # at 1 GB the flat ring's 2046 steps are hidden too: the two tie, and the ring, first of equals, is named
        assert t.schedule == ("2-D torus of circuits, both dimension orders" if n == MB100
                              else "ring over the circuits")


def test_defect5_latency_per_fabric_and_level():
    """DGX-A100 (8 rails of 40-port switches: 128 NICs per plane, 2 tiers, a step crosses up to 3 switches) with
    NCCL's per-step latencies (NVLink 3.4 µs, network 9.6 µs) at raw rates. NCCL's reduce-scatter is one ring over
    the 1 024 ranks: 896 NVLink steps, 127 across servers, each rank at min(2.4 Tb/s NVLink, 8 × 200 Gb/s NICs of
    its server) = 1.6 Tb/s: 896·3.4 µs + 127·9.6 µs = 4.27 ms of latency, which the 1023/1024·0.8 Gb/1.6 Tb/s =
    0.50 ms of transfer does not hide (each rank's 0.49 µs step fills the pipeline): 4.27 ms. Each network step
    also crosses 3 switch hops (0.3 µs each): 9.6 → 10.5 µs. The all-reduce runs the double binary tree (NCCL's model:
    its latency + 0.8 Gb/(0.46·1.6 Tb/s) ≪ the ring's 2 × 4.9 ms): 2·(7·10.5 + 7·3.4) µs + 2·0.8 Gb/(0.92·1.6
    Tb/s)."""
    def halves(net, hop):
        est = evaluate_fabric(design("dgx-a100", nvlink_efficiency=1.0, nic_efficiency=1.0, switch_hop_latency=hop,
                                     protocols="simple"))
        t = job_collectives(est, MB100)
        half = pipe(896 * 3.4e-6 + 127 * net, 1023 / 1024 * 8e8 / 1.6e12, 1023, max(3.4e-6, net))
        assert t["reduce_scatter"].seconds == pytest.approx(half, rel=1e-12)
        return t, half

    _, bare = halves(9.6e-6, 0.0)
    assert bare == pytest.approx(4.27e-3, rel=0.01)
    net = 9.6e-6 + 3 * 0.3e-6
    t, _ = halves(net, 0.3e-6)
    assert t["all_reduce"].schedule == "double binary tree over the servers"
    assert t["all_reduce"].seconds == pytest.approx(2 * (7 * net + 7 * 3.4e-6) + 2 * 8e8 / (0.92 * 1.6e12), rel=1e-12)


def test_small_collectives_run_nccls_low_latency_protocols():
    """NCCL picks LL or LL128 where its model makes them fastest (fabric-photonics-3.md F1, F3): a 1 MB
    reduce-scatter over 1 024 DGX-A100 ranks is latency-bound, so LL's 0.6 µs NVLink and 2.7 µs network steps (each
    network step crossing 3 switch hops of 0.3 µs) at half the rate, capped at 20.4 GB/s, beat Simple's 3.4 and
    9.6 µs: 896·0.6 + 127·3.6 µs + 1023/1024·8 Mb/163.2 Gb/s = 1.04 ms, against 4.38 ms for Simple; at 10 GB per
    rank the bandwidth wins and Simple runs."""
    est = evaluate_fabric(design("dgx-a100", nvlink_efficiency=1.0, nic_efficiency=1.0))
    small = job_collectives(est, 1e6)["reduce_scatter"]
    assert small.schedule == "ring over the servers, rail-aligned · LL"
    ll = pipe(896 * 0.6e-6 + 127 * (2.7e-6 + 0.9e-6), 1023 / 1024 * 8e6 / (20.4e9 * 8), 1023, 3.6e-6)
    assert small.seconds == pytest.approx(ll, rel=1e-12)
    simple = evaluate_fabric(design("dgx-a100", nvlink_efficiency=1.0, nic_efficiency=1.0, protocols="simple"))
    assert job_collectives(simple, 1e6)["reduce_scatter"].seconds == pytest.approx(
        pipe(896 * 3.4e-6 + 127 * 10.5e-6, 1023 / 1024 * 8e6 / 1.6e12, 1023, 10.5e-6), rel=1e-12)
    big = job_collectives(est, 1e10)["reduce_scatter"]
    assert big.schedule == "ring over the servers, rail-aligned"
    assert big.seconds == pytest.approx(pipe(896 * 3.4e-6 + 127 * 10.5e-6, 1023 / 1024 * 8e10 / 1.6e12, 1023,
                                             10.5e-6), rel=1e-12)


def test_defect6_the_tree_spans_servers_over_every_rail():
    """NCCL's double binary tree runs over the 128 servers, each server's 8 NICs carrying an eighth, at 0.92 of the
    links (NCCL's tree refinement): 2·0.8 Gb/(0.92·1.6 Tb/s) + 2·(7 + 7)·α = 1.115 ms (not 8 ms over 1024 single-NIC
    ranks); at 1 MB 39 µs, where NCCL's ring over the 1 024 ranks needs 2·1023·α = 2.05 ms of latency alone."""
    t100, t1 = (job_collectives(evaluate_fabric(dgx_unit_alpha()), n)["all_reduce"] for n in (MB100, 1e6))
    assert t100.schedule == t1.schedule == "double binary tree over the servers"
    assert t100.seconds == pytest.approx(2 * 8e8 / (0.92 * 1.6e12) + 28e-6, rel=1e-12)
    assert t1.seconds == pytest.approx(2 * 8e6 / (0.92 * 1.6e12) + 28e-6, rel=1e-12)


def test_defect7_the_ideal_switch_is_the_fastest_at_equal_bandwidth():
    """The ideal switch at SiP-OCS's 2 Tb/s and α: all-gather (1023/1024)·0.8 Gb/2 Tb/s + α = 0.40 ms, no slower
    than SiP-OCS's pipelined torus (the same transfer and one step of α plus the circuit's delay); before, its flat
    ring (1.42 ms) was slower than SiP-OCS."""
    ideal = evaluate_fabric(design("ideal", step_latency=ALPHA))
    ocs = evaluate_fabric(design("sip-ocs", step_latency=ALPHA))
    ag = job_collectives(ideal, MB100)["all_gather"]
    assert ag.seconds == pytest.approx(1023 / 1024 * 8e8 / 2e12 + ALPHA, rel=1e-12)
    assert ag.seconds < job_collectives(ocs, MB100)["all_gather"].seconds


def test_defect8_a_pipeline_pair_gets_many_circuits():
    """SiP-OCS point-to-point alone: every one of a GPU's 20 circuits goes to its peer: 0.8 Gb/2 Tb/s + α_c =
    0.40 ms (not 8 ms on one 100 Gb/s circuit)."""
    est = evaluate_fabric(design("sip-ocs"))
    t = job_collectives(est, MB100)["p2p"]
    assert t.seconds == pytest.approx(8e8 / 2e12 + 3.4e-6 + est.details.circuit_delay_s, rel=1e-12)


def test_oversubscription_divides_only_traffic_leaving_the_leaf():
    """A 2:1 oversubscribed fat-tree (one tree for every NIC) leaves the rail-aligned data-parallel ring untouched but
    slows all-to-all, whose peers are mostly under other leaf switches."""
    flat, over = evaluate_fabric(dgx_unit_alpha(rails=1)), evaluate_fabric(dgx_unit_alpha(rails=1, oversubscription=2.0))
    dp = Collective("reduce_scatter", MB100, 128, 8)
    assert price(over, [dp])[0].seconds == pytest.approx(price(flat, [dp])[0].seconds)
    a2a = Collective("all_to_all", MB100, 1024)
    assert price(over, [a2a])[0].seconds > 1.5 * price(flat, [a2a])[0].seconds


def test_ring_traffic_and_all_to_all_agree_on_relaying():
    """Beyond the optical reach the ring relays through the GPUs between: the traffic report counts such pairs as
    relayed and serves them, and all-to-all over the same pairs is finite."""
    from fabric.traffic import pair_bandwidth, pattern_flows

    est = evaluate_fabric(design("sip-ring", fabric={"gpus": 64}, amplifier_every=0))
    assert est.reach_hops == 1
    result = pair_bandwidth(est, pattern_flows("groups", 64, 8))
    assert result.relayed > 0 and result.unserved == 0 and result.min_ratio > 0
    assert math.isfinite(alone(est, "all_to_all", MB100, 8).seconds)


# --- measurements ---------------------------------------------------------------------------------------------
def test_nccl_tests_busbw_inside_one_server():
    """nccl-tests all-reduce bus bandwidth on one server (workloads.md): 8 × A100 on NVSwitch ~230 GB/s; 8 × H100
    with NVLink SHARP 476–480 GB/s; 8 × H100 ring (NCCL_ALGO=RING) 365–370 GB/s (NVIDIA/nccl issue 1455). The
    model: 80 % of the NVLink line rate, NVLink SHARP 1.3× the ring. Within 10 %, at 8 GB."""
    n = 8e9
    a100 = alone(evaluate_fabric(load_design("dgx-a100")), "all_reduce", n, 8)
    h100 = evaluate_fabric(load_design("dgx-h100"))
    sharp = alone(h100, "all_reduce", n, 8)
    ring = evaluate_fabric(dc.replace(load_design("dgx-h100"), topology=dc.replace(
        load_design("dgx-h100").topology, in_network_reduction="none")))
    assert sharp.schedule == "NVLink SHARP"
    for t, measured in ((a100, 230e9), (sharp, 478e9), (alone(ring, "all_reduce", n, 8), 367e9)):
        assert busbw_bps("all_reduce", n, 8, t.seconds) / 8 == pytest.approx(measured, rel=0.10)


# --- properties -------------------------------------------------------------------------------------------------
BUILTINS = ("sip-ring", "sip-ocs", "dgx-a100", "dgx-h100")
ESTIMATES = {name: evaluate_fabric(load_design(name)) for name in (*BUILTINS, "ideal")}
OPS = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "p2p")


def _matched_ideal(est):
    """The ideal switch with the fabric's whole per-GPU injection rate (NVLink and NIC together for a DGX) and
    lowest step latency."""
    top = est.design.topology
    if est.kind == "electrical":
        rate = est.details.nvlink_bps * top.nvlink_efficiency + top.nic_bandwidth * top.nic_efficiency
        alpha = min(top.nvlink_latency, top.network_latency,
                    *((top.nvlink_latency_ll, top.network_latency_ll) if top.protocols == "nccl" else ()))
    else:
        rate, alpha = est.effective_bandwidth_bps, top.step_latency
    base = load_design("ideal")
    ideal = dc.replace(base, fabric=dc.replace(base.fabric, gpus=est.gpus),
                       topology=dc.replace(base.topology, bandwidth=rate, step_latency=alpha))
    return evaluate_fabric(ideal)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(BUILTINS), op=st.sampled_from(OPS), lg_size=st.integers(0, 10),
       lg_stride=st.integers(0, 10), n=st.floats(1.0, 1e10))
def test_the_ideal_switch_bounds_every_fabric(name, op, lg_size, lg_stride, n):
    est = ESTIMATES[name]
    size, stride = 2 ** lg_size, 2 ** min(lg_stride, 10 - lg_size)
    c = Collective(op, n, size, stride)
    assert price(_matched_ideal(est), [c])[0].seconds <= price(est, [c])[0].seconds * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from((*BUILTINS, "ideal")), op=st.sampled_from(OPS), lg_size=st.integers(1, 10),
       n=st.floats(1.0, 1e10), more=st.floats(1.0, 100.0))
def test_more_bytes_never_make_a_collective_faster(name, op, lg_size, n, more):
    est = ESTIMATES[name]
    c = Collective(op, np.array([n, n * more]), 2 ** lg_size)
    small, big = price(est, [c])[0].seconds
    assert small <= big * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from((*BUILTINS, "ideal")), op=st.sampled_from(OPS), lg_size=st.integers(1, 9),
       n=st.floats(1e3, 1e10))
def test_more_ranks_never_make_a_collective_faster(name, op, lg_size, n):
    """Doubling a group (same bytes per rank) never helps — except on SiP-Ring when the larger group spans and so
    closes the whole ring, where its ranks gain the second direction (tested above)."""
    est = ESTIMATES[name]
    c = Collective(op, n, np.array([2 ** lg_size, 2 ** (lg_size + 1)]))
    small, big = price(est, [c])[0].seconds
    if not (name == "sip-ring" and 2 ** (lg_size + 1) == est.gpus):
        assert small <= big * (1 + 1e-9)


def test_vectorised_pricing_equals_one_candidate_at_a_time():
    sizes, strides, n = np.array([8, 16, 128, 1024]), np.array([1, 8, 8, 1]), np.array([1e6, 1e8, 3e7, 1e9])
    for est in ESTIMATES.values():
        for op in OPS:
            many = price(est, [Collective(op, n, sizes, strides)])[0]
            for i in range(sizes.size):
                one = price(est, [Collective(op, n[i], int(sizes[i]), int(strides[i]))])[0]
                assert many.seconds[i] == pytest.approx(one.seconds, rel=1e-12)
                assert many.schedule[i] == one.schedule


def test_groups_must_tile_the_job():
    est = ESTIMATES["sip-ring"]
    with pytest.raises(InputError, match="tile"):
        alone(est, "all_reduce", MB100, 3)
    with pytest.raises(InputError, match="unknown collective"):
        alone(est, "allreduce", MB100, 8)


def test_divides_is_the_remainders_test_on_whole_numbers():
    """`fabric.kind.divides` (a float quotient's floor, what tiling and server layouts test) says what a
    remainder of 0 says, for every divisor up to 3 000 of every count up to 3 000 and of counts near 2^52."""
    from fabric.kind import divides

    d = np.arange(1.0, 3001.0)
    for n in [*range(1, 3001), 2.0 ** 52 - 1, 2.0 ** 52 - 3 * 5 * 7 * 11 * 13]:
        assert np.array_equal(divides(d, float(n)), np.fmod(float(n), d) == 0), n


# --- one registration adds a kind -------------------------------------------------------------------------------
def test_a_new_fabric_kind_is_one_registration():
    from fabric.cluster_design import ClusterDesign, FabricSection
    from fabric.estimate import FabricEstimate
    from fabric.ideal import IDEAL, IdealSection
    from fabric.kind import CollectiveTime, FabricKind
    from fabric.registry import get_kind, kinds, register, unregister

    def evaluate(design):
        return FabricEstimate(design=design, kind="toy", gpus=design.fabric.gpus, job_gpus=design.job_gpus,
                              per_gpu_bandwidth_bps=1e9, useful_fraction=1.0, degree=1, bisection_bps=1e9,
                              pod_gpus=design.fabric.gpus, details=design.topology)

    def time(est, c, n, p, s, share):
        return CollectiveTime(n * 8 / 1e9 * np.ones_like(p), "toy", share, 1e9)

    try:
        register(FabricKind(name="toy", section="toy", section_type=IdealSection, evaluator=evaluate,
                            sharer=IDEAL.sharer, pricer=time))
        est = evaluate_fabric(ClusterDesign(fabric=FabricSection(kind="toy", gpus=16)))
        assert est.kind == "toy" and "toy" in kinds()
        t = job_collectives(est, 1e9)["all_reduce"]
        assert t.schedule == "toy" and t.seconds == pytest.approx(8.0 + 8.4e-6)
    finally:
        unregister("toy")
    with pytest.raises(InputError, match="not a fabric kind"):
        get_kind("toy")


# --- the two reporting bugs -------------------------------------------------------------------------------------
def test_busbw_uses_the_jobs_ranks():
    """`--set fabric.job_gpus=2`: the bus bandwidth of a 2-rank all-reduce cannot exceed the link it runs on."""
    import json

    from sipml.cli import main

    out = _run_json(main, ["fabric", "--set", "fabric.job_gpus=2", "--format", "json"])
    t = out["collective_times_s"]["all_reduce"]
    assert out["job_gpus"] == 2
    assert busbw_bps("all_reduce", out["message_bytes"], 2, t) / 1e9 <= out["effective_bandwidth_gbps"]
    assert json.dumps(out)


def test_message_size_is_reported_in_bytes():
    from sipml.cli import main

    out = _run_json(main, ["fabric", "--message-size", "100 MB", "--format", "json"])
    assert out["message_bytes"] == 1e8


def _run_json(main, argv):
    import contextlib
    import io
    import json

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(argv)
    return json.loads(buf.getvalue())


def test_ocs_circuits_are_whole_and_tori_complete():
    """SiP-OCS holds whole circuits: with 3 collective types of equal bytes on 20 circuits the split is 7 / 7 / 6
    (6.67 each, largest remainder), and with 2 circuits for 3 types the smallest gets none and cannot run in a
    single-shot configuration (infinite time). A torus has no holes: 1 000 ranks run as 25 × 40 (the largest divisor
    ≤ √1000 = 31.6 is 25), (24 + 39) steps, not the 32 × 32 grid of 1 024 slots; a prime group has no torus."""
    from fabric.collectives import torus_rows

    est = evaluate_fabric(design("sip-ocs"))
    mix = [Collective("all_reduce", MB100, 8, 1, name="a"), Collective("all_reduce", MB100, 8, 1, name="b"),
           Collective("all_reduce", MB100, 8, 1, name="c")]
    assert [t.share for t in price(est, mix)] == [7 / 20, 7 / 20, 6 / 20]
    two = evaluate_fabric(design("sip-ocs", switches=2))
    uneven = [dc.replace(mix[0], message_bytes=3 * MB100), dc.replace(mix[1], message_bytes=2 * MB100), mix[2]]
    times = price(two, uneven)
    assert [t.share for t in times] == [0.5, 0.5, 0.0] and times[2].seconds == math.inf
    assert torus_rows(1000) == 25 and torus_rows(7) == 1 and torus_rows(np.array([8, 1024])).tolist() == [2, 32]
    big = evaluate_fabric(design("sip-ocs", fabric={"gpus": 1000}))
    t = alone(big, "all_reduce", MB100, 1000)
    alpha = 3.4e-6 + big.details.circuit_delay_s
    assert t.schedule == "2-D torus of circuits, both dimension orders"
    assert t.seconds == pytest.approx(pipe(2 * (24 + 39) * alpha, 2 * 999 / 1000 * 8e8 / 2e12, 2 * 63, alpha), rel=1e-9)


def test_ring_wavelengths_static_periodic_or_phased():
    """DP 128 × TP 8 on the 1024-GPU SiP-Ring, 100 MB each, launch 0. Segment loads per call: a TP arc 2·(7/8)·n,
    the DP rings (stride 8, closing the ring, both directions: factor 2/8) 2·(127/128)·n/(1/4) = 7.94·n, so a static
    split gives TP 1.75/(1.75 + 7.94) = 18.1 % of every segment, never re-tuned: its chain all-reduce takes
    14 steps + 0.8 Gb/(0.181·1 Tb/s) = 4.48 ms. Periodic (SiP-ML's simulator): TP alone has the segment at
    100/120 of the time, after waiting half an interval (50 µs) and a retune (20 µs) for it: 0.8 Gb/833 Gb/s +
    14 steps + 70 µs = 1.08 ms. Phased: TP alone at the full 1 Tb/s plus one 20 µs
    retune: 0.8 + 0.047 + 0.020 = 0.868 ms."""
    from fabric.kind import MixPricing
    from fabric.registry import get_kind

    est = evaluate_fabric(design("sip-ring"))
    step = 3.4e-6 + est.details.hop_delay_s
    tp, dp = Collective("all_reduce", MB100, 8, 1, name="tp"), Collective("all_reduce", MB100, 128, 8, name="dp")
    kind = get_kind("sip-ring")
    times = {e.details.allocation: MixPricing(kind, e, [tp, dp]).price_first([tp]) for e in kind.alternatives(est)}
    share = 1.75 / (1.75 + 2 * 127 / 128 * 4)
    assert times["static"].share == pytest.approx(share)
    assert times["static"].seconds == pytest.approx(14 * step + 8e8 / (share * 1e12), rel=1e-9)
    assert times["periodic"].seconds == pytest.approx(50e-6 + 20e-6 + 14 * step + 8e8 / (1e12 * 100 / 120),
                                                      rel=1e-9)
    assert times["phased"].seconds == pytest.approx(14 * step + 8e8 / 1e12 + 20e-6, rel=1e-9)
    assert times["static"].seconds == pytest.approx(4.48e-3, rel=0.01)
    assert times["phased"].seconds == pytest.approx(0.868e-3, rel=0.01)
    fixed = evaluate_fabric(design("sip-ring", allocation="phased"))
    assert kind.alternatives(fixed) == (fixed,) and fixed.details.allocation == "phased"


def test_two_servers_all_reduce_on_their_nics_as_nccl_runs_it():
    """2 × DGX A100 (16 ranks), 8 GB: NCCL's ring over the servers, each rank at min(NVLink 0.8 × 2.4 Tb/s, 8 NICs ×
    0.94 × 200 Gb/s) = 1.504 Tb/s, so busbw ≈ 188 GB/s (F9; measured 192, NVIDIA/nccl issue 812) — not the
    NVLink-bound 254 GB/s of a two-level schedule NCCL does not run. The tree would move the bytes faster on exactly
    two servers (the NICs carry n once), but NCCL's model rates it at 0.46 of the bus bandwidth and runs the ring."""
    est = evaluate_fabric(design("dgx-a100", fabric={"gpus": 16}))
    t = alone(est, "all_reduce", 8e9, 16)
    assert t.schedule == "ring over the servers, rail-aligned"
    ring = pipe(2 * (14 * 3.4e-6 + 1 * est.details.network_step_s), 2 * 15 / 16 * 6.4e10 / 1.504e12, 30,
                est.details.network_step_s)
    assert t.seconds == pytest.approx(ring, rel=1e-9)
    assert float(busbw_bps("all_reduce", 8e9, 16, t.seconds)) / 8e9 == pytest.approx(188, rel=0.005)
