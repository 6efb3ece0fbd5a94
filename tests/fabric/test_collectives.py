"""α–β building blocks of the collective schedules: closed forms at hand-computed values, the SiP-ML reference
all-reduce term, the nccl-tests bandwidth definitions and the expander's mean distance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InputError
from fabric import collectives as c

N_BYTES = 1e9  # a 1 GB buffer
B_100G = 100e9  # bit/s: 1 GB takes 0.08 s


def test_ring_half_closed_form():
    """Pipelined: max(Σα, transfer) + min(α, τ). 1 GB at 100 Gbit/s over 8 ranks: (p−1)/p = 7/8 of 0.08 s = 0.07 s of
    transfer, τ = 10 ms a step, against 7 × 5 µs of latency: 0.07 s + 5 µs. At 1 kB the latency binds: τ = 10 ns,
    7 × 5 µs + 10 ns (the α–β sum, 35.07 µs, less the six steps' transfers the latency hides)."""
    assert c.ring_half_s(N_BYTES, 8, B_100G, 5e-6) == pytest.approx(0.070005, rel=1e-12)
    assert c.ring_half_s(1e3, 8, B_100G, 5e-6) == pytest.approx(35e-6 + 10e-9, rel=1e-12)
    assert c.ring_half_s(N_BYTES, 8, B_100G, 5e-6, halves=2) == pytest.approx(0.140005, rel=1e-12)


def test_a_pipelined_ring_is_never_slower_than_its_alpha_beta_sum():
    for n in (1e2, 1e4, 1e6, 1e8, 1e10):
        for p in (2, 8, 64, 1024):
            latency, bits = c.ring_half_terms(n, p, 5e-6)
            assert c.ring_half_s(n, p, B_100G, 5e-6) <= latency + bits / B_100G + 1e-15


def test_sipml_reference_allreduce_terms():
    """sipml.md: t_AR = 2·W·8/B — ResNet-50 W = 250e6 B at 200 Gbps → 20.0 ms; GPT-2 355M W = 6.8e9 B at 400 Gbps
    → 272 ms. The ring all-reduce (two halves) reaches it in the large-p limit: 2(p−1)/p = 1.998 at SiP-ML's 1024
    GPUs gives 19.98 ms and 271.7 ms; NCCL's tree gives it exactly."""
    ring = 2 * c.ring_half_s(250e6, 1024, 200e9, 0.0)
    assert ring == pytest.approx(19.98047e-3, rel=1e-6) and round(ring * 1e3, 1) == 20.0
    assert round(2 * c.ring_half_s(6.8e9, 1024, 400e9, 0.0) * 1e3) == 272
    assert c.tree_allreduce_s(250e6, 1024, 200e9, 0.0) == pytest.approx(20.0e-3, rel=1e-12)
    assert c.tree_allreduce_s(6.8e9, 1024, 400e9, 0.0) == pytest.approx(0.272, rel=1e-12)


def test_tree_latency_is_twice_the_depth():
    # 2·⌈lg 5⌉·α = 6 α
    assert c.tree_allreduce_s(0.0, 5, B_100G, 1e-6) == pytest.approx(6e-6, rel=1e-12)


def test_two_level_half_by_hand():
    """8 GPUs per node at 2.4 Tbps, 4 nodes at 200 Gbps, 1 GB: 7/8·8e9/2.4e12 = 2.917 ms inside (7 × 1 µs hidden, one
    step's fill of 1 µs), 3/4·(8e9/8)/2e11 = 3.75 ms across (3 × 10 µs hidden, a fill of 10 µs), each ring pipelined."""
    inside, across = 7 / 8 * 8e9 / 2.4e12, 3 / 4 * 1e9 / 2e11
    assert c.two_level_half_s(N_BYTES, 8, 4, 2.4e12, 2e11, 1e-6, 1e-5) == pytest.approx(inside + 1e-6 + across + 1e-5)


def test_node_ring_by_hand():
    """NCCL's ring over 4 nodes of 8 ranks, 1 GB at 1.6 Tbps per rank (8 NICs of 200 Gbps): 31 steps, 3 of them
    across nodes: 31/32 · 8e9/1.6e12 = 4.844 ms of transfer hides 28 × 1 µs + 3 × 10 µs of latency; the fill is the
    slower step's 10 µs. At 10 kB the latency binds: 58 µs + τ (1.6 Tbps moves a rank's 312.5 B in 1.6 ns)."""
    assert c.node_ring_half_s(N_BYTES, 32, 4, 1.6e12, 1e-6, 1e-5) == pytest.approx(
        31 / 32 * 8e9 / 1.6e12 + 10e-6, rel=1e-12)
    assert c.node_ring_half_s(1e4, 32, 4, 1.6e12, 1e-6, 1e-5) == pytest.approx(28e-6 + 30e-6 + 1e4 / 32 * 8 / 1.6e12,
                                                                               rel=1e-12)
    assert c.node_ring_half_s(N_BYTES, 8, 1, B_100G, 1e-6, 1.0) == pytest.approx(c.ring_half_s(N_BYTES, 8, B_100G,
                                                                                              1e-6), rel=1e-12)


def test_nccl_picks_the_tree_for_small_messages_only():
    """NCCL's model: ring 2(p−1)/p·n/B + its latency against the tree's latency + n/(0.46·B). 16 ranks at 200 GB/s
    bus bandwidth: at 1 MB the tree (30 µs + 10.9 µs) beats the ring (200 µs + 9.4 µs); at 1 GB the ring's 9.4 ms
    beats the tree's 10.9 ms."""
    bus = 1.6e12
    for n, tree in ((1e6, True), (1e9, False)):
        ring = 2 * 15 / 16 * n * 8 / bus + 200e-6
        assert bool(c.nccl_tree_model_s(n, 30e-6, bus) < ring) is tree


def test_two_level_reduces_to_one_ring():
    # one node: the inner ring alone; one GPU per node: the outer ring alone
    assert c.two_level_half_s(N_BYTES, 8, 1, B_100G, 1.0, 1e-6, 1.0) == pytest.approx(c.ring_half_s(N_BYTES, 8, B_100G,
                                                                                                      1e-6))
    assert c.two_level_half_s(N_BYTES, 1, 8, 1.0, B_100G, 1.0, 1e-6) == pytest.approx(c.ring_half_s(N_BYTES, 8, B_100G,
                                                                                                      1e-6))


def test_pairwise_alltoall_and_point_to_point():
    # (p−1)·α + n·8/B: 7 µs + 80 ms;  α + n·8/B
    assert c.pairwise_alltoall_s(N_BYTES, 8, B_100G, 1e-6) == pytest.approx(0.080007, rel=1e-12)
    assert c.point_to_point_s(N_BYTES, B_100G, 2e-6) == pytest.approx(0.080002, rel=1e-12)


def test_one_rank_costs_nothing():
    for t in (c.ring_half_s(N_BYTES, 1, B_100G, 1e-6), c.tree_allreduce_s(N_BYTES, 1, B_100G, 1e-6),
              c.pairwise_alltoall_s(N_BYTES, 1, B_100G, 1e-6)):
        assert t == 0.0


def test_expander_mean_distance_by_hand():
    """Directed Moore bound: d = 20, p = 1024: 20 peers at 1 hop, 400 at 2, the other 603 at 3 →
    (20 + 800 + 1809)/1023 = 2.570; one circuit each is a directed ring, mean p/2."""
    assert c.expander_mean_distance(20, 1024) == pytest.approx((20 + 800 + 1809) / 1023, rel=1e-12)
    assert c.expander_mean_distance(1, 10) == pytest.approx(5.0)
    assert c.expander_mean_distance(7, 8) == pytest.approx(1.0)  # everyone one hop away
    np.testing.assert_allclose(c.expander_mean_distance(np.array([20, 4]), np.array([1024, 16])),
                               [2.5699, (4 + 2 * 11) / 15], rtol=1e-4)


@settings(max_examples=40, deadline=None)
@given(d=st.integers(2, 64), p=st.integers(2, 5000))
def test_expander_distance_falls_with_degree_and_rises_with_ranks(d, p):
    assert 1.0 <= c.expander_mean_distance(d, p) <= c.expander_mean_distance(d - 1, p) + 1e-12
    assert c.expander_mean_distance(d, p) <= c.expander_mean_distance(d, p + 1) + 1e-12


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
    t_ar = 2 * c.ring_half_s(size, ranks, rate, 0.0)
    assert c.busbw_bps("all_reduce", size, ranks, t_ar) == pytest.approx(rate, rel=1e-9)
    assert c.busbw_bps("all_gather", size, ranks, c.ring_half_s(size, ranks, rate, 0.0)) == pytest.approx(rate,
                                                                                                            rel=1e-9)
    # all-to-all: nccl-tests S includes the rank's own chunk, MPICH's n does not: n = S·(p−1)/p
    t_a2a = c.pairwise_alltoall_s(size * (ranks - 1) / ranks, ranks, rate, 0.0)
    assert c.busbw_bps("all_to_all", size, ranks, t_a2a) == pytest.approx(rate, rel=1e-9)


def test_broadcasting_over_arrays():
    p = np.array([2, 4, 8])
    got = c.ring_half_s(N_BYTES, p, B_100G, 0.0)
    np.testing.assert_allclose(got, (p - 1) / p * 0.08, rtol=1e-12)
    assert c.ring_half_s(np.array([[1e9], [2e9]]), p, B_100G, 0.0).shape == (2, 3)
