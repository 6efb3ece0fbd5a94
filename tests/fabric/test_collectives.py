"""Collective-communication cost models: closed forms at hand-computed values, the SiP-ML reference all-reduce
term, nccl-tests bandwidth definitions, limits and consistency between algorithms."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric import collectives as c
from core.errors import InputError

GB = 1e9  # bytes
N_BYTES = 1e9  # a 1 GB buffer
B_100G = 100e9  # bit/s
BETA_100G = 8 / B_100G  # s per byte: 1 GB takes 0.08 s at 100 Gbit/s


# --- closed forms at hand-computed values -----------------------------------------------------------
def test_ring_allreduce_closed_form():
    # 2(p−1)/p = 14/8 = 1.75; 1 GB at 100 Gbit/s = 0.08 s → 0.14 s; α terms 2·7·5 µs = 70 µs
    assert c.ring_allreduce_s(N_BYTES, 8, B_100G, latency_s=5e-6) == pytest.approx(0.14007, rel=1e-12)


def test_ring_allreduce_reduction_term():
    # γ term (p−1)/p·n·γ = 0.875 · 1e9 · 1e-12 s = 0.875 ms on top of 0.14 s
    assert c.ring_allreduce_s(N_BYTES, 8, B_100G, reduce_s_per_byte=1e-12) == pytest.approx(0.140875, rel=1e-12)


def test_sipml_reference_resnet50_allreduce_term():
    # sipml.md: t_AR = 2·W·8/B, ResNet-50 W = 250e6 B at 200 Gbps → 20.0 ms. That is the ring all-reduce's
    # large-p limit: at the paper's 1024 GPUs 2(p−1)/p = 1.998 gives 19.98 ms, i.e. 20.0 ms to three figures.
    at_1024 = c.ring_allreduce_s(250e6, 1024, 200e9)
    assert at_1024 == pytest.approx(19.98047e-3, rel=1e-6)
    assert round(at_1024 * 1e3, 1) == 20.0
    assert c.ring_allreduce_s(250e6, 2**40, 200e9) == pytest.approx(20.0e-3, rel=1e-9)


def test_sipml_reference_gpt2_allreduce_term():
    # sipml.md: GPT-2 355M, W = 6.8e9 B at 400 Gbps → 272 ms (ring at 1024 GPUs: 271.7 ms → 272 to 3 figures)
    assert round(c.ring_allreduce_s(6.8e9, 1024, 400e9) * 1e3) == 272
    assert c.ring_allreduce_s(6.8e9, 2**40, 400e9) == pytest.approx(0.272, rel=1e-9)


def test_tree_allreduce_is_exactly_the_sim_term_without_latency():
    # NCCL tree: algBw = busBw/2 → t = 2·n·8/B for any p > 1 (α = 0): the sim's t_AR formula exactly
    assert c.tree_allreduce_s(250e6, 1024, 200e9) == pytest.approx(20.0e-3, rel=1e-12)
    # latency 2·⌈lg 5⌉·α = 6 α
    assert c.tree_allreduce_s(0.0, 5, B_100G, latency_s=1e-6) == pytest.approx(6e-6, rel=1e-12)


def test_rabenseifner_closed_form():
    # 2·lg 8·α + 2·n·7/8·β = 6 µs·… : 0.14 s + 6·2 µs
    assert c.rabenseifner_allreduce_s(N_BYTES, 8, B_100G, latency_s=2e-6) == pytest.approx(0.140012, rel=1e-12)


@pytest.mark.parametrize("ranks", [3, 6, 12, 1000])
def test_rabenseifner_rejects_non_power_of_two(ranks):
    with pytest.raises(InputError, match="power of two"):
        c.rabenseifner_allreduce_s(N_BYTES, ranks, B_100G)


def test_recursive_doubling_closed_forms():
    # power of two: lg p·α + n·lg p·(β + γ) = 3·(0.08 s) + 3 α
    assert c.recursive_doubling_allreduce_s(N_BYTES, 8, B_100G, latency_s=1e-6) == pytest.approx(0.240003, rel=1e-12)
    # p = 6: fold to p' = 4, so lg p' + 2 = 4 exchange steps and 3 reductions
    got = c.recursive_doubling_allreduce_s(N_BYTES, 6, B_100G, latency_s=1e-6, reduce_s_per_byte=1e-12)
    assert got == pytest.approx(4e-6 + 4 * 0.08 + 3 * 1e-3, rel=1e-12)


def test_hierarchical_allreduce_closed_form():
    # g = 8 GPUs at 2.4 Tbit/s, N = 16 nodes at 200 Gbit/s per GPU, 1 GB:
    # intra 2·7/8·8e9/2.4e12 = 5.8333 ms; inter 2·15/16·(1.25e8·8/2e11) = 1.875·5 ms = 9.375 ms
    got = c.hierarchical_allreduce_s(N_BYTES, 8, 16, 2.4e12, 200e9)
    assert got == pytest.approx(1.75 * 8e9 / 2.4e12 + 9.375e-3, rel=1e-12)


def test_hierarchical_reduces_to_flat_rings():
    flat_nodes = c.ring_allreduce_s(N_BYTES, 16, 200e9, latency_s=3e-6)
    assert c.hierarchical_allreduce_s(N_BYTES, 1, 16, 1e12, 200e9, edge_latency_s=3e-6) == pytest.approx(flat_nodes)
    flat_node = c.ring_allreduce_s(N_BYTES, 8, 2.4e12, latency_s=1e-6)
    assert c.hierarchical_allreduce_s(N_BYTES, 8, 1, 2.4e12, 1.0, node_latency_s=1e-6) == pytest.approx(flat_node)


def test_allgather_and_reduce_scatter_closed_forms():
    # (p−1)/p = 0.875 of 0.08 s, plus 7 α
    assert c.ring_allgather_s(N_BYTES, 8, B_100G, latency_s=1e-6) == pytest.approx(0.070007, rel=1e-12)
    assert c.ring_reduce_scatter_s(N_BYTES, 8, B_100G, latency_s=1e-6) == pytest.approx(0.070007, rel=1e-12)


def test_pairwise_alltoall_closed_form():
    # (p−1)·α + n·β with n = 0.7 GB sent by each rank: 7 µs + 0.056 s
    assert c.pairwise_alltoall_s(0.7 * GB, 8, B_100G, latency_s=1e-6) == pytest.approx(0.056007, rel=1e-12)


def test_point_to_point_closed_form():
    assert c.point_to_point_s(N_BYTES, B_100G, latency_s=1e-6, reconfig_s=1e-3) == pytest.approx(0.081001, rel=1e-12)


def test_multiport_ring_equals_ring_at_aggregate_bandwidth():
    # 4 ports of 25 Gbit/s = one 100 Gbit/s ring: 0.14 s
    assert c.multiport_ring_allreduce_s(N_BYTES, 8, 4, 25e9) == pytest.approx(0.14, rel=1e-12)


def test_torus_bandwidth_term_equals_one_ring_and_latency_is_per_dimension():
    # 4-ary 3-D torus, p = 64: bandwidth term 2·63/64·0.08 s, like a 64-rank ring; latency 2·3·3 α = 18 α
    assert c.torus_allreduce_s(N_BYTES, 4, 3, B_100G) == pytest.approx(c.ring_allreduce_s(N_BYTES, 64, B_100G))
    assert c.torus_allreduce_s(0.0, 4, 3, B_100G, latency_s=1e-6) == pytest.approx(18e-6, rel=1e-12)


def test_bidirectional_ring_alltoall_hand_count():
    # 4-ring, 1 GB to each of 3 peers: two 1-hop flows + one 2-hop flow split over both ways → 4 GB·hop per rank,
    # 16 GB·hop over 8 directed links = 2 GB each → 2e9·8/1e11 = 0.16 s
    assert c.bidirectional_ring_alltoall_s(3 * GB, 4, B_100G) == pytest.approx(0.16, rel=1e-12)


def test_bidirectional_ring_alltoall_odd_ring():
    # 5-ring, 1 GB to each of 4 peers at distances 1, 1, 2, 2 → 6 GB·hop per rank, 30 GB·hop over 10 directed
    # links = 3 GB each → 3e9·8/1e11 = 0.24 s
    assert c.bidirectional_ring_alltoall_s(4 * GB, 5, B_100G) == pytest.approx(0.24, rel=1e-12)


@pytest.mark.parametrize("ranks", [2, 4, 8, 64, 1024])
def test_bidirectional_ring_alltoall_equals_bisection_bound_for_even_p(ranks):
    n = 1e8
    crossing_bytes = (ranks / 2) ** 2 * n / (ranks - 1)  # one half sends to the other half
    bisection_s = crossing_bytes * 8 / (2 * B_100G)  # two cut links per direction
    assert c.bidirectional_ring_alltoall_s(n, ranks, B_100G) == pytest.approx(bisection_s, rel=1e-12)


# --- reconfiguration ----------------------------------------------------------------------------------
def test_reconfiguration_counts():
    base = dict(message_bytes=0.0, bandwidth_bps=B_100G, reconfig_s=1e-3)
    assert c.ring_allreduce_s(ranks=8, **base) == pytest.approx(1e-3)  # one ring
    assert c.rabenseifner_allreduce_s(ranks=8, **base) == pytest.approx(5e-3)  # 2·3 − 1 partner sets
    assert c.recursive_doubling_allreduce_s(ranks=8, **base) == pytest.approx(3e-3)
    assert c.pairwise_alltoall_s(ranks=8, **base) == pytest.approx(7e-3)  # one permutation per step
    assert c.hierarchical_allreduce_s(0.0, 8, 4, 1e12, 1e11, reconfig_s=1e-3) == pytest.approx(1e-3)


@pytest.mark.parametrize("fn", [c.ring_allreduce_s, c.rabenseifner_allreduce_s, c.recursive_doubling_allreduce_s,
                                c.tree_allreduce_s, c.ring_allgather_s, c.ring_reduce_scatter_s,
                                c.pairwise_alltoall_s])
def test_one_rank_costs_nothing(fn):
    assert fn(N_BYTES, 1, B_100G, latency_s=1e-6, reconfig_s=1e-3) == 0.0


# --- nccl-tests definitions ---------------------------------------------------------------------------
def test_busbw_factors():
    assert c.busbw_factor("all_reduce", 8) == pytest.approx(1.75)
    for op in ("all_gather", "reduce_scatter", "all_to_all"):
        assert c.busbw_factor(op, 8) == pytest.approx(0.875)
    assert c.busbw_factor("broadcast", 8) == 1.0
    assert c.algbw_bps(1e9, 0.1) == pytest.approx(80e9)
    assert c.busbw_bps("all_reduce", 1e9, 8, 0.1) == pytest.approx(140e9)


def test_busbw_unknown_op_suggests():
    with pytest.raises(InputError, match="did you mean 'all_reduce'"):
        c.busbw_factor("allreduce", 8)


@settings(max_examples=60)
@given(ranks=st.integers(2, 4096), size=st.floats(1e3, 1e11), rate=st.floats(1e9, 1e13))
def test_busbw_of_bandwidth_bound_ring_collectives_is_the_link_rate(ranks, size, rate):
    # nccl-tests' busbw is defined so that it equals the per-rank link rate for the optimal ring algorithms
    t_ar = c.ring_allreduce_s(size, ranks, rate)
    assert c.busbw_bps("all_reduce", size, ranks, t_ar) == pytest.approx(rate, rel=1e-9)
    t_ag = c.ring_allgather_s(size, ranks, rate)
    assert c.busbw_bps("all_gather", size, ranks, t_ag) == pytest.approx(rate, rel=1e-9)
    # all-to-all: nccl-tests S includes the rank's own chunk, MPICH's n does not: n = S·(p−1)/p
    sent = size * (ranks - 1) / ranks
    t_a2a = c.pairwise_alltoall_s(sent, ranks, rate)
    assert c.busbw_bps("all_to_all", size, ranks, t_a2a) == pytest.approx(rate, rel=1e-9)


# --- properties ---------------------------------------------------------------------------------------
@settings(max_examples=60)
@given(lg=st.integers(0, 16), size=st.floats(0, 1e11), rate=st.floats(1e9, 1e13), alpha=st.floats(0, 1e-4),
       gamma=st.floats(0, 1e-10))
def test_algorithm_relations(lg, size, rate, alpha, gamma):
    p = 2**lg
    ring = c.ring_allreduce_s(size, p, rate, latency_s=alpha, reduce_s_per_byte=gamma)
    rab = c.rabenseifner_allreduce_s(size, p, rate, latency_s=alpha, reduce_s_per_byte=gamma)
    rd = c.recursive_doubling_allreduce_s(size, p, rate, latency_s=alpha, reduce_s_per_byte=gamma)
    # same bandwidth and reduction terms; Rabenseifner's latency 2 lg p ≤ ring's 2(p−1)
    assert rab <= ring * (1 + 1e-12) + 1e-300
    assert rab - 2 * lg * alpha == pytest.approx(ring - 2 * (p - 1) * alpha, rel=1e-9, abs=1e-12)
    # recursive doubling sends lg p whole buffers: never less bandwidth time than the ring's 2(p−1)/p buffers
    assert rd - lg * alpha >= ring - 2 * (p - 1) * alpha - 1e-12
    # reduce-scatter + all-gather = all-reduce for the ring
    rs = c.ring_reduce_scatter_s(size, p, rate, latency_s=alpha, reduce_s_per_byte=gamma)
    ag = c.ring_allgather_s(size, p, rate, latency_s=alpha)
    assert rs + ag == pytest.approx(ring, rel=1e-12, abs=1e-15)


@settings(max_examples=40)
@given(ranks=st.integers(1, 10_000), size=st.floats(0, 1e11))
def test_ring_allreduce_monotone_in_ranks_and_below_its_limit(ranks, size):
    t = c.ring_allreduce_s(size, ranks, B_100G)
    assert t <= c.ring_allreduce_s(size, ranks + 1, B_100G)
    assert t <= 2 * size * BETA_100G * (1 + 1e-12)


def test_broadcasting_over_arrays():
    p = np.array([2, 4, 8])
    got = c.ring_allreduce_s(N_BYTES, p, B_100G)
    assert got.shape == (3,)
    np.testing.assert_allclose(got, 2 * (p - 1) / p * 0.08, rtol=1e-12)
    grid = c.ring_allreduce_s(np.array([[1e9], [2e9]]), p, B_100G)
    assert grid.shape == (2, 3)


# --- validation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("ranks", [0, -3, 2.5, True, "8", math.nan])
def test_bad_ranks(ranks):
    with pytest.raises(InputError, match="ranks"):
        c.ring_allreduce_s(N_BYTES, ranks, B_100G)


@pytest.mark.parametrize("rate", [0.0, -1e9, math.inf, math.nan])
def test_bad_bandwidth(rate):
    with pytest.raises(InputError, match="bandwidth_bps"):
        c.ring_allreduce_s(N_BYTES, 8, rate)


def test_bad_other_arguments():
    with pytest.raises(InputError, match="latency_s"):
        c.ring_allreduce_s(N_BYTES, 8, B_100G, latency_s=-1e-6)
    with pytest.raises(InputError, match="message_bytes"):
        c.pairwise_alltoall_s(-1.0, 8, B_100G)
    with pytest.raises(InputError, match="ports"):
        c.multiport_ring_allreduce_s(N_BYTES, 8, 0, 25e9)
    with pytest.raises(InputError, match="radix"):
        c.torus_allreduce_s(N_BYTES, 1.5, 2, B_100G)
    with pytest.raises(InputError, match="time_s"):
        c.algbw_bps(N_BYTES, 0.0)


def test_two_level_half_by_hand():
    """100 MB, 8 GPUs per node at 2.4 Tbps, 128 nodes at 200 Gbps, α = 1 µs:
    7/8·8e8/2.4e12 + 127/128·1e8/2e11 + 7 µs + 127 µs = 291.7 µs + 496.1 µs + 134 µs."""
    from fabric import collectives as col

    half = col.hierarchical_half_s(1e8, 8, 128, 2.4e12, 2e11, node_latency_s=1e-6, edge_latency_s=1e-6)
    assert half == pytest.approx(7 / 8 * 8e8 / 2.4e12 + 127 / 128 * 1e8 / 2e11 + 134e-6, rel=1e-12)


def test_pipelined_two_level_takes_the_slower_phase():
    from fabric import collectives as col

    n, g, nodes, bn, be = 1e8, 8, 128, 2.4e12, 2e11
    intra = 7 / 8 * n * 8 / bn
    inter = 127 / 128 * (n / 8) * 8 / be
    assert col.hierarchical_half_s(n, g, nodes, bn, be, pipelined=True) == pytest.approx(max(intra, inter))


def test_electrical_reduce_scatter_is_not_slower_than_all_reduce():
    from fabric.collective_times import collective_times_s
    from fabric.evaluate import evaluate_fabric
    from sipml.design import load_design

    d = load_design("dgx-a100")
    t, _ = collective_times_s(d, evaluate_fabric(d), 1e8)
    assert t["reduce_scatter"] < t["all_reduce"] and t["all_gather"] < t["all_reduce"]


def test_fabric_schedules_by_hand():
    """100 MB on 1024 GPUs, α = 1 µs. SiP-OCS (20 × 100 Gbps circuits): 20 rings give 2·(1023/1024)·8e8/2e12 +
    2046 µs = 2.845 ms; a 32 × 32 torus with 1 Tbps per dimension, pipelined, gives
    2·[max(31/32·8e8/1e12, 31/32·2.5e7/1e12) + 62 µs] = 1.674 ms, the one reported."""
    from fabric.collective_times import collective_times_s
    from fabric.evaluate import evaluate_fabric
    from sipml.design import load_design

    d = load_design("sip-ocs")
    t, alg = collective_times_s(d, evaluate_fabric(d), 1e8)
    torus = 2 * (31 / 32 * 8e8 / 1e12 + 62e-6)
    assert t["all_reduce"] == pytest.approx(torus, rel=1e-9)
    assert alg["all_reduce"] == "2-D torus (32 × 32)"
    assert t["reduce_scatter"] == pytest.approx(torus / 2, rel=1e-9)
