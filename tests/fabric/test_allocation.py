"""SiP-Ring wavelength allocation and SiP-OCS circuit assignment: hand-computed optima, brute force on tiny
fabrics, the exact methods against each other, capacity and monotonicity properties."""

import dataclasses
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import DomainError, InputError
from fabric import allocation as al
from fabric.flows import Flows, group_alltoall_flows, ring_neighbour_flows


def ring_neighbour_demand_bps(gpus, rate_bps, both_ways=False):
    return ring_neighbour_flows(gpus, rate_bps, both_ways=both_ways).matrix()


def group_alltoall_demand_bps(gpus, group_size, rate_bps):
    return group_alltoall_flows(gpus, group_size, rate_bps).matrix()

RATE = 25e9  # bit/s per wavelength [sim]


# --- independent reference implementations (plain Python, exact fractions) ----------------------------
def arc_segments(n, i, j, clockwise):
    """(direction, segment) pairs covered by flow i→j; segment s joins GPU s and s+1."""
    if clockwise:
        return [(0, (i + s) % n) for s in range((j - i) % n)]
    return [(1, (j + s) % n) for s in range((i - j) % n)]


def segment_loads(wavelengths, clockwise):
    n = len(wavelengths)
    loads = {}
    for i in range(n):
        for j in range(n):
            if wavelengths[i][j]:
                for key in arc_segments(n, i, j, bool(clockwise[i][j])):
                    loads[key] = loads.get(key, 0) + int(wavelengths[i][j])
    return loads


def brute_ring_optimum(demand, directions, capacity):
    """Max over every direction choice of the largest t with Σ ceil(t·w) ≤ capacity on every segment; exact in
    rationals. Returns the optimal min ratio in wavelengths per unit demand."""
    n = len(demand)
    flows = [(i, j, Fraction(int(demand[i][j]))) for i in range(n) for j in range(n) if demand[i][j]]
    candidates = sorted({Fraction(k) / d for _, _, d in flows for k in range(1, capacity + 1)}, reverse=True)
    best = Fraction(0)
    for choice in itertools.product((True, False) if directions == 2 else (True,), repeat=len(flows)):
        arcs = [arc_segments(n, i, j, cw) for (i, j, _), cw in zip(flows, choice)]
        for t in candidates:
            if t <= best:
                break
            loads = {}
            for arc, (_, _, d) in zip(arcs, flows):
                for key in arc:
                    loads[key] = loads.get(key, 0) + math.ceil(t * d)
            if max(loads.values()) <= capacity:
                best = t
                break
    return best


def partial_derangements(n):
    """Every injective map of a subset of GPUs to other GPUs (one OCS configuration), as a tuple of (i, j)."""
    out = []
    for targets in itertools.product([None, *range(n)], repeat=n):
        used = [t for t in targets if t is not None]
        if len(used) == len(set(used)) and all(t != i for i, t in enumerate(targets)):
            out.append(tuple((i, t) for i, t in enumerate(targets) if t is not None))
    return out


def brute_ocs_optimum(demand, n_ocs):
    """Best min over demand pairs of circuits/demand, over every multiset of n_ocs OCS configurations."""
    n = len(demand)
    flows = [(i, j) for i in range(n) for j in range(n) if demand[i][j]]
    best = Fraction(0)
    for combo in itertools.combinations_with_replacement(partial_derangements(n), n_ocs):
        count = {}
        for config in combo:
            for edge in config:
                count[edge] = count.get(edge, 0) + 1
        best = max(best, min(Fraction(count.get(f, 0)) / int(demand[f[0]][f[1]]) for f in flows))
    return best


def random_demand(rng, n, density=0.5, levels=3):
    demand = rng.integers(1, levels + 1, (n, n)) * (rng.random((n, n)) < density)
    np.fill_diagonal(demand, 0)
    if not demand.any():
        demand[0, 1] = 1
    return demand.astype(float)


demand_matrices = st.integers(2, 7).flatmap(
    lambda n: st.lists(st.integers(0, 3), min_size=n * n, max_size=n * n).map(
        lambda v: np.array(v, dtype=float).reshape(n, n))
).map(lambda d: d * (1 - np.eye(len(d)))).filter(lambda d: d.any())


# --- hand-computed cases --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 10))
def test_each_pair_takes_its_shorter_arc_and_a_half_ring_splits_by_direction(n):
    """Every ordered pair on rings of 2–9 GPUs (odd and even): the ring distance is the shorter way round, and the
    fast allocation's route is that way (clockwise i → j covers j − i mod n segments); at exactly n/2 the pair with
    src < dst goes clockwise and its reverse counter-clockwise, so the two split the ring."""
    from fabric.flows import Flows
    from fabric.traffic import ring_distance

    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    src, dst = (np.array(v, dtype=np.int64) for v in zip(*pairs))
    flows = Flows(n, src, dst, np.ones(len(pairs)))
    shorter = [min((j - i) % n, (i - j) % n) for i, j in pairs]
    assert ring_distance(flows, n).tolist() == shorter
    assert ring_distance(flows, float(n)).tolist() == shorter  # a float ring size: the same distances, as floats
    expected = [(j - i) % n < (i - j) % n or ((j - i) % n == (i - j) % n and i < j) for i, j in pairs]
    assert al._shortest_clockwise(n, src, dst, 2).tolist() == expected
    assert al._shortest_clockwise(n, src, dst, 1).all()
    assert flows.src.tolist() == list(src) and flows.dst.tolist() == list(dst)  # the flows' arrays left alone


def test_training_pattern_1024_gpus_ring():
    # ring neighbours at 100 Gbit/s + all-to-all in groups of 8 at 50 Gbit/s; 2 × 5 fibers × 8 λ (40 per
    # direction and segment). Bottleneck: the middle of a group, clockwise, carries 3→4 (150 Gbit/s: ring + group)
    # and 15 group flows of 50 Gbit/s: ceil(t) + 15·ceil(t/3) ≤ 40 holds up to t = 6 wavelengths for 150 Gbit/s
    # (6 + 30 = 36; just above, 7 + 45 > 40) → min ratio 6·25/150 = 1.0.
    demand = ring_neighbour_demand_bps(1024, 100e9) + group_alltoall_demand_bps(1024, 8, 50e9)
    result = al.ring_allocation_fast(demand, directions=2, fibers=5, wavelengths_per_fiber=8,
                                     wavelength_rate_bps=RATE)
    assert result.min_ratio == pytest.approx(1.0, rel=1e-12)
    assert result.exact and result.upper_bound == pytest.approx(1.0, rel=1e-12)
    assert result.matrix("wavelengths")[3, 4] >= 6
    loads = segment_loads(result.matrix("wavelengths")[:16, :16].tolist(), result.matrix("clockwise")[:16, :16].tolist())
    assert loads[(0, 3)] <= 40


def test_training_pattern_1024_gpus_ocs():
    # 20 OCSes of 100 Gbit/s circuits. GPU 8k+q (q < 7) sends to 6 group peers (50 G) and to its ring neighbour
    # (150 G): ceil(t) + 6·ceil(t/3) ≤ 20 up to t = 6 (6 + 12 = 18; above: 7 + 18 > 20) → 6·100/150 = 4.0.
    demand = ring_neighbour_demand_bps(1024, 100e9) + group_alltoall_demand_bps(1024, 8, 50e9)
    result = al.ocs_assignment(demand, n_ocs=20, circuit_bps=100e9)
    assert result.min_ratio == pytest.approx(4.0, rel=1e-12)
    assert result.exact
    assert_valid_ocs(result, demand, 20)


def test_ring_one_direction_neighbour_ring():
    # each flow i→i+1 has its own segment: all W·fibers wavelengths, ratio 6·25e9/100e9 = 1.5
    demand = ring_neighbour_demand_bps(6, 100e9)
    result = al.ring_allocation_fast(demand, directions=1, fibers=2, wavelengths_per_fiber=3,
                                     wavelength_rate_bps=RATE)
    assert result.min_ratio == pytest.approx(1.5)
    assert result.exact
    assert np.all(result.matrix("wavelengths")[np.arange(6), (np.arange(6) + 1) % 6] == 6)


def test_pooling_is_an_upper_bound_on_a_full_circle():
    # Module docstring: three 2-segment arcs on a 3-GPU ring load every segment twice, so pooled capacity 2
    # (2 fibers × 1 λ) gives each flow 1 wavelength, yet no split onto 2 single-λ fibers exists (pairwise overlap).
    demand = np.zeros((3, 3))
    demand[0, 2] = demand[1, 0] = demand[2, 1] = 1.0
    result = al.ring_allocation_fast(demand, directions=1, fibers=2, wavelengths_per_fiber=1, wavelength_rate_bps=1)
    assert result.min_ratio == 1.0
    arcs = [set(arc_segments(3, i, j, True)) for i, j in ((0, 2), (1, 0), (2, 1))]
    fits_on_two_fibers = any(all(not (arcs[a] & arcs[b]) for a in range(3) for b in range(a + 1, 3)
                                 if fiber[a] == fiber[b]) for fiber in itertools.product(range(2), repeat=3))
    assert not fits_on_two_fibers


def test_too_many_flows_for_the_wavelengths_gives_zero():
    # 4-GPU all-to-all, one direction, 1 λ: segment 0 carries 0→1, 0→2, 0→3, 3→1, 3→2, 2→1 → 6 flows, 1 λ
    demand = np.ones((4, 4)) - np.eye(4)
    result = al.ring_allocation_fast(demand, directions=1, fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=1)
    assert result.min_ratio == 0.0 and result.exact


# --- exact methods against brute force -----------------------------------------------------------------
RING_CASES = [(seed, n, directions) for seed, (n, directions) in
              enumerate([(3, 2), (4, 2), (5, 2), (6, 2), (4, 1), (6, 1)] * 4)]


@pytest.mark.parametrize(("seed", "n", "directions"), RING_CASES)
def test_ring_methods_against_brute_force(seed, n, directions):
    rng = np.random.default_rng(seed)
    demand = random_demand(rng, n, density=6 / (n * (n - 1)))  # about six flows: 2^6 routings
    fibers, per_fiber = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    kw = dict(directions=directions, fibers=fibers, wavelengths_per_fiber=per_fiber, wavelength_rate_bps=RATE)
    optimum = float(brute_ring_optimum(demand.astype(int).tolist(), directions, fibers * per_fiber)) * RATE
    exact = al.ring_allocation_milp(demand, **kw)
    fast = al.ring_allocation_fast(demand, **kw)
    assert exact.min_ratio == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert exact.exact
    assert fast.min_ratio <= optimum * (1 + 1e-9)
    assert optimum <= fast.upper_bound * (1 + 1e-9)
    if directions == 1:  # one route per flow: the fast method is optimal
        assert fast.min_ratio == pytest.approx(optimum, rel=1e-9, abs=1e-12) and fast.exact


OCS_CASES = [(seed, n, k) for seed, (n, k) in enumerate([(3, 1), (3, 2), (3, 3), (4, 1), (4, 2)] * 3)]


@pytest.mark.parametrize(("seed", "n", "n_ocs"), OCS_CASES)
def test_ocs_methods_against_brute_force(seed, n, n_ocs):
    demand = random_demand(np.random.default_rng(100 + seed), n, density=0.6)
    optimum = float(brute_ocs_optimum(demand.astype(int).tolist(), n_ocs)) * 100e9
    fast = al.ocs_assignment(demand, n_ocs=n_ocs, circuit_bps=100e9)
    exact = al.ocs_assignment_milp(demand, n_ocs=n_ocs, circuit_bps=100e9)
    assert fast.min_ratio == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert exact.min_ratio == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert_valid_ocs(fast, demand, n_ocs)
    assert_valid_ocs(exact, demand, n_ocs)


@pytest.mark.parametrize("seed", range(6))
def test_ocs_fast_equals_milp_on_8_gpus(seed):
    rng = np.random.default_rng(200 + seed)
    demand = rng.random((8, 8)) * (rng.random((8, 8)) < 0.5) * 1e11
    np.fill_diagonal(demand, 0)
    n_ocs = int(rng.integers(2, 6))
    fast = al.ocs_assignment(demand, n_ocs=n_ocs, circuit_bps=50e9)
    exact = al.ocs_assignment_milp(demand, n_ocs=n_ocs, circuit_bps=50e9)
    assert fast.min_ratio == pytest.approx(exact.min_ratio, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ring_bounds_chain_on_12_gpus(seed):
    # fast ≤ exact ≤ LP relaxation, and exact ≤ the fast method's own bound
    rng = np.random.default_rng(300 + seed)
    demand = rng.random((12, 12)) * 1e10
    np.fill_diagonal(demand, 0)
    kw = dict(directions=2, fibers=2, wavelengths_per_fiber=int(rng.integers(6, 14)), wavelength_rate_bps=RATE)
    fast = al.ring_allocation_fast(demand, **kw)
    exact = al.ring_allocation_milp(demand, **kw)
    lp = al.ring_allocation_lp_bound(demand, **kw)
    assert fast.min_ratio <= exact.min_ratio * (1 + 1e-9)
    assert exact.min_ratio <= lp * (1 + 1e-9)
    assert exact.min_ratio <= fast.upper_bound * (1 + 1e-9)
    assert exact.exact and exact.upper_bound == pytest.approx(exact.min_ratio)


# --- properties -----------------------------------------------------------------------------------------
def assert_within_ring_capacity(result, capacity):
    loads = segment_loads(result.matrix("wavelengths").tolist(), result.matrix("clockwise").tolist())
    assert max(loads.values(), default=0) <= capacity


def assert_valid_ocs(result, demand, n_ocs, circuit_bps=100e9):
    n = len(demand)
    perms = result.permutations
    assert perms.shape == (n_ocs, n)
    counted = np.zeros((n, n), dtype=int)
    for row in perms:
        used = row[row >= 0]
        assert len(set(used.tolist())) == used.size  # one ingress port per GPU per OCS
        assert not np.any(row == np.arange(n))  # no circuit i→i
        np.add.at(counted, (np.flatnonzero(row >= 0), used), 1)
    np.testing.assert_array_equal(counted, result.matrix("circuits"))
    assert np.all(result.matrix("circuits").sum(axis=1) <= n_ocs) and np.all(result.matrix("circuits").sum(axis=0) <= n_ocs)
    np.testing.assert_array_equal(result.matrix("bandwidth_bps"), result.matrix("circuits") * circuit_bps)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(demand=demand_matrices, directions=st.sampled_from([1, 2]), fibers=st.integers(1, 3),
       per_fiber=st.integers(1, 6), fill=st.booleans())
def test_ring_fast_never_exceeds_capacity(demand, directions, fibers, per_fiber, fill):
    result = al.ring_allocation_fast(demand, directions=directions, fibers=fibers, wavelengths_per_fiber=per_fiber,
                                     wavelength_rate_bps=RATE, fill=fill)
    assert_within_ring_capacity(result, fibers * per_fiber)
    if directions == 1:
        assert result.clockwise.all()
    served = result.matrix("bandwidth_bps")[demand > 0] / demand[demand > 0]
    assert result.min_ratio == pytest.approx(served.min())
    assert result.min_ratio <= result.upper_bound * (1 + 1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(demand=demand_matrices, fibers=st.integers(1, 2), per_fiber=st.integers(1, 5))
def test_ring_exact_never_exceeds_capacity_nor_the_lp_bound(demand, fibers, per_fiber):
    kw = dict(directions=2, fibers=fibers, wavelengths_per_fiber=per_fiber, wavelength_rate_bps=RATE)
    exact = al.ring_allocation_milp(demand, **kw)
    assert_within_ring_capacity(exact, fibers * per_fiber)
    assert exact.min_ratio <= al.ring_allocation_lp_bound(demand, **kw) * (1 + 1e-9)
    assert al.ring_allocation_fast(demand, **kw).min_ratio <= exact.min_ratio * (1 + 1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(demand=demand_matrices, directions=st.sampled_from([1, 2]), fibers=st.integers(1, 3),
       per_fiber=st.integers(1, 6))
def test_more_wavelengths_never_reduce_a_pair_first_level(demand, directions, fibers, per_fiber):
    # Per pair monotone only for the first level (fill=False); with fill=True only the min ratio is (docstring).
    kw = dict(directions=directions, fibers=fibers, wavelength_rate_bps=RATE)
    low = al.ring_allocation_fast(demand, wavelengths_per_fiber=per_fiber, fill=False, **kw)
    high = al.ring_allocation_fast(demand, wavelengths_per_fiber=per_fiber + 1, fill=False, **kw)
    assert np.all(high.matrix("wavelengths") >= low.matrix("wavelengths"))
    filled_low = al.ring_allocation_fast(demand, wavelengths_per_fiber=per_fiber, **kw)
    filled_high = al.ring_allocation_fast(demand, wavelengths_per_fiber=per_fiber + 1, **kw)
    assert filled_high.min_ratio >= filled_low.min_ratio
    assert np.all(filled_low.matrix("wavelengths") >= low.matrix("wavelengths"))  # filling only adds
    assert filled_low.min_ratio == pytest.approx(low.min_ratio)


def test_filled_allocation_is_not_per_pair_monotone():
    # Why the property above is restricted: 1→0 and 1→2 (weight 1), 2→0 (weight ½). With 3 circuits per port
    # the tie on GPU 1's egress leaves 1 spare unit that 2→0 takes (2 circuits); with 4, all three step up to
    # t = 2 together, GPU 0's ingress refuses 2→0's next unit, and it keeps 1.
    demand = np.array([[0, 0, 0], [2, 0, 2], [1, 0, 0]], dtype=float)
    three = al.ocs_assignment(demand, n_ocs=3, circuit_bps=1.0)
    four = al.ocs_assignment(demand, n_ocs=4, circuit_bps=1.0)
    assert three.matrix("circuits")[2, 0] == 2 and four.matrix("circuits")[2, 0] == 1
    assert four.min_ratio > three.min_ratio


def test_filling_gives_spare_capacity_to_unblocked_pairs():
    # OCS: 0→1 and 0→2 share GPU 0's 3 egress ports (1 circuit each at the first level, a tie refuses the third);
    # 3→4 is alone on its ports and keeps rising to all 3.
    demand = np.zeros((5, 5))
    demand[0, 1] = demand[0, 2] = demand[3, 4] = 1.0
    result = al.ocs_assignment(demand, n_ocs=3, circuit_bps=1.0)
    assert (result.matrix("circuits")[0, 1], result.matrix("circuits")[0, 2], result.matrix("circuits")[3, 4]) == (1, 1, 3)
    assert al.ocs_assignment(demand, n_ocs=3, circuit_bps=1.0, fill=False).matrix("circuits")[3, 4] == 1
    # Ring, one direction, 3 λ: 0→2 and 1→2 share segment 1 (1 λ each; both already served, the tie refuses the
    # third, as on the OCS); 3→4 has segment 3 to itself
    ring = al.ring_allocation_fast(_pairs(6, [(0, 2), (1, 2), (3, 4)]), directions=1, fibers=1,
                                   wavelengths_per_fiber=3, wavelength_rate_bps=1.0)
    assert (ring.matrix("wavelengths")[0, 2], ring.matrix("wavelengths")[1, 2], ring.matrix("wavelengths")[3, 4]) == (1, 1, 3)


def test_a_full_segment_serves_as_many_pairs_as_it_has_wavelengths():
    """All-to-all in one 16-GPU group on a one-direction ring of 16 with 8 λ: each segment lies on 120 of the 240
    pairs' arcs, so not every pair can have a wavelength (min ratio 0, the optimum) — but no wavelength may stay
    dark while a pair that could use it has none: an unserved pair crosses only full segments."""
    n = 16
    ring = al.ring_allocation_fast(_pairs(n, [(i, j) for i in range(n) for j in range(n) if i != j]), directions=1,
                                   fibers=1, wavelengths_per_fiber=8, wavelength_rate_bps=1.0)
    got = ring.matrix("wavelengths")
    load = np.zeros(n)
    unserved_segments = set()
    for i in range(n):
        for j in range(n):
            if i != j:
                segments = [(i + k) % n for k in range((j - i) % n)]
                load[segments] += got[i, j]
                if got[i, j] == 0:
                    unserved_segments.update(segments)
    assert ring.min_ratio == 0.0 and np.all(load <= 8)
    assert all(load[s] == 8 for s in unserved_segments)  # an unserved pair crosses only full segments
    # shortest first: 16 pairs of 1 segment, 16 of 2 and 16 of 3 use 96 of the 128 segment-wavelengths; the 32
    # left serve 8 pairs of 4 segments: 56 pairs, every segment full
    assert np.count_nonzero(got) == 16 + 16 + 16 + 8 and np.all(load == 8)


def _pairs(n, pairs):
    demand = np.zeros((n, n))
    for i, j in pairs:
        demand[i, j] = 1.0
    return demand


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(demand=demand_matrices, n_ocs=st.integers(1, 6))
def test_ocs_ports_and_monotonicity(demand, n_ocs):
    result = al.ocs_assignment(demand, n_ocs=n_ocs, circuit_bps=100e9)
    assert_valid_ocs(result, demand, n_ocs)
    low = al.ocs_assignment(demand, n_ocs=n_ocs, circuit_bps=100e9, fill=False)
    high = al.ocs_assignment(demand, n_ocs=n_ocs + 1, circuit_bps=100e9, fill=False)
    assert np.all(high.matrix("circuits") >= low.matrix("circuits"))
    assert result.min_ratio == pytest.approx(low.min_ratio)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 12), n_ocs=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_decompose_circuits_reproduces_counts(n, n_ocs, seed):
    rng = np.random.default_rng(seed)
    counts = np.zeros((n, n), dtype=int)
    for _ in range(n_ocs):  # a random valid count matrix: the sum of n_ocs random partial derangements
        perm = rng.permutation(n)
        keep = (perm != np.arange(n)) & (rng.random(n) < 0.7)
        counts[np.flatnonzero(keep), perm[keep]] += 1
    src, dst = np.nonzero(counts)
    perms = al.decompose_circuits(src, dst, counts[src, dst], n, n_ocs)
    rebuilt = np.zeros_like(counts)
    for row in perms:
        used = row[row >= 0]
        assert len(set(used.tolist())) == used.size and not np.any(row == np.arange(n))
        np.add.at(rebuilt, (np.flatnonzero(row >= 0), used), 1)
    np.testing.assert_array_equal(rebuilt, counts)


# --- results and validation -----------------------------------------------------------------------------
def test_results_are_frozen_and_read_only():
    demand = ring_neighbour_demand_bps(4, 1e9, both_ways=True)
    result = al.ring_allocation_fast(demand, directions=2, fibers=1, wavelengths_per_fiber=2,
                                     wavelength_rate_bps=RATE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.min_ratio = 2.0
    with pytest.raises(ValueError):
        result.wavelengths[0] = 7


def test_demand_helpers():
    ring = ring_neighbour_demand_bps(4, 5.0, both_ways=True)
    assert ring[0, 1] == ring[1, 0] == ring[0, 3] == 5.0 and ring[0, 2] == 0 and np.all(np.diag(ring) == 0)
    groups = group_alltoall_demand_bps(8, 4, 2.0)
    assert groups[0, 3] == 2.0 and groups[3, 4] == 0.0 and groups.sum() == 2 * 12 * 2.0
    with pytest.raises(InputError, match="divide"):
        group_alltoall_demand_bps(8, 3, 1.0)


@pytest.mark.parametrize(("demand", "match"), [
    (np.ones((3, 2)), "square"),
    (np.array([[0, -1.0], [1, 0]]), "≥ 0"),
    (np.array([[1.0, 1], [1, 0]]), "zero diagonal"),
    (np.zeros((3, 3)), "no pair"),
])
def test_bad_demand(demand, match):
    with pytest.raises(InputError, match=match):
        al.ring_allocation_fast(demand, directions=2, fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=RATE)
    with pytest.raises(InputError, match=match):
        al.ocs_assignment(demand, n_ocs=2, circuit_bps=1e9)


def test_bad_fabric_arguments():
    demand = ring_neighbour_demand_bps(4, 1e9)
    with pytest.raises(InputError, match="directions"):
        al.ring_allocation_fast(demand, directions=3, fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=RATE)
    with pytest.raises(InputError, match="wavelengths_per_fiber"):
        al.ring_allocation_fast(demand, directions=1, fibers=1, wavelengths_per_fiber=0, wavelength_rate_bps=RATE)
    with pytest.raises(InputError, match="wavelength_rate_bps"):
        al.ring_allocation_fast(demand, directions=1, fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=-1)
    with pytest.raises(InputError, match="n_ocs"):
        al.ocs_assignment(demand, n_ocs=0, circuit_bps=1e9)
    with pytest.raises(InputError, match="egress/ingress sums"):
        al.decompose_circuits(np.array([0, 1]), np.array([1, 0]), np.array([3, 1]), 2, 2)


def test_exact_methods_refuse_large_instances():
    big = ring_neighbour_demand_bps(al.RING_MILP_MAX_GPUS + 1, 1e9)
    with pytest.raises(DomainError, match="limited to"):
        al.ring_allocation_milp(big, directions=2, fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=RATE)
    with pytest.raises(DomainError, match="limited to"):
        al.ring_allocation_lp_bound(ring_neighbour_demand_bps(al.RING_LP_MAX_GPUS + 1, 1e9), directions=2,
                                    fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=RATE)
    with pytest.raises(DomainError, match="limited to"):
        al.ocs_assignment_milp(ring_neighbour_demand_bps(al.OCS_MILP_MAX_GPUS + 1, 1e9), n_ocs=1,
                               circuit_bps=1e9)


# --- the level-to-level class loads and the flows' union: the same numbers as computing them afresh -----------------
@settings(max_examples=60, deadline=None, database=None)
@given(st.integers(3, 40), st.integers(1, 60), st.floats(0.0, 1.0), st.integers(0, 2 ** 32 - 1))
def test_loading_a_few_flows_equals_loading_all_with_the_others_at_zero(n, count, share, seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, count)
    dst = (src + rng.integers(1, n, count)) % n
    arcs = al._ring_arcs(n, src, dst, al._shortest_clockwise(n, src, dst, 2))
    mask = rng.random(count) < share
    units = rng.integers(0, 9, count).astype(float)
    assert np.array_equal(arcs.load_at(mask, units), arcs.load(np.where(mask, units, 0.0)))
    assert np.array_equal(arcs.load_at(mask, 1.0), arcs.load(mask.astype(float)))


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(4, 24), st.integers(0, 2 ** 32 - 1), st.sampled_from([1, 2]))
def test_progressive_filling_carries_its_class_loads_from_level_to_level_exactly(n, seed, directions):
    """With `load_at` a level's per-class loads are the last level's less the flows frozen since; without it every
    level loads each class afresh: the same units, bit for bit."""
    rng = np.random.default_rng(seed)
    demand = rng.choice([0.0, 0.0, 1.0, 2.0, 5.0], size=(n, n))
    np.fill_diagonal(demand, 0.0)
    if not demand.any():
        demand[0, 1] = 1.0
    _, src, dst, flow_demand, _ = al._flows(demand)
    clockwise = al._shortest_clockwise(n, src, dst, directions)
    arcs = al._ring_arcs(n, src, dst, clockwise)
    weight = flow_demand / flow_demand.max()
    capacity = np.full(2 * n, float(rng.integers(1, 6)))

    def fill(**extra):
        return al._progressive_fill(weight, capacity, arcs.load, lambda mask: arcs.sums(mask) > 0, **extra)

    carried, first_carried = fill(load_at=arcs.load_at)
    afresh, first_afresh = fill()
    assert np.array_equal(carried, afresh) and np.array_equal(first_carried, first_afresh)


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.integers(0, 60), max_size=80))
def test_the_flows_union_finds_what_np_unique_finds(keys):
    from fabric.flows import _distinct

    key = np.asarray(keys, dtype=np.int64)
    unique, inverse = np.unique(key, return_inverse=True)
    found, back = _distinct(key)
    assert np.array_equal(found, unique) and np.array_equal(back, inverse.ravel())


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(4, 24), st.integers(0, 2 ** 32 - 1), st.sampled_from([1, 2]))
def test_the_ring_allocation_is_the_same_with_carried_class_loads(monkeypatch, n, seed, directions):
    """Through `ring_allocation_fast` (first units admitted by priority where a segment is full): the allocation with
    class loads carried from level to level is the one loading every class afresh at every level."""
    rng = np.random.default_rng(seed)
    demand = rng.choice([0.0, 0.0, 1.0, 2.0, 5.0], size=(n, n))
    np.fill_diagonal(demand, 0.0)
    if not demand.any():
        demand[0, 1] = 1.0
    ask = dict(directions=directions, fibers=1, wavelengths_per_fiber=int(rng.integers(1, 5)), wavelength_rate_bps=1.0)
    carried = al.ring_allocation_fast(demand, **ask)
    fill = al._progressive_fill
    monkeypatch.setattr(al, "_progressive_fill", lambda *a, load_at=None, **k: fill(*a, **k))
    afresh = al.ring_allocation_fast(demand, **ask)
    assert np.array_equal(carried.wavelengths, afresh.wavelengths) and carried.min_ratio == afresh.min_ratio


def test_asking_only_the_admitted_flows_whether_one_is_ahead_finds_what_asking_every_flow_finds(monkeypatch):
    """A level's class loads are refused where an active flow holds more than its level's units; only a flow
    admitted ahead of its level can, so only those are asked. At every level of real allocations (first units
    admitted where segments are full) the answer is the one asking every flow, and it is 'ahead' at some levels."""
    at = al._ClassLoads.at.__func__
    answers = []

    def both(cls, *args):
        every = at(cls, *args[:7], None, slice(None))  # afresh: `at` uses the last level's loads up
        few = at(cls, *args)
        answers.append((few is None, every is None))
        return few

    monkeypatch.setattr(al._ClassLoads, "at", classmethod(both))
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(4, 25))
        demand = rng.choice([0.0, 0.0, 1.0, 3.0], size=(n, n))
        np.fill_diagonal(demand, 0.0)
        demand[0, 1] = 1.0
        al.ring_allocation_fast(demand, directions=2, fibers=1, wavelengths_per_fiber=int(rng.integers(1, 4)),
                                wavelength_rate_bps=1.0)
    assert all(few == every for few, every in answers)
    assert sum(every for _, every in answers) > 0  # some levels have a flow ahead: the question is asked for real


def _without_period(flows):
    return Flows(flows.gpus, flows.src, flows.dst, flows.demand_bps)


def _random_periodic(rng, gpus, period):
    """Flows repeating a random stretch of `period` GPUs (arcs of up to 8 hops, weights 1–3) round the ring."""
    template = sorted({(int(rng.integers(0, period)), int(rng.integers(1, 9)) * int(rng.choice([-1, 1])))
                       for _ in range(int(rng.integers(1, 6)) * period)})
    weight = {t: float(rng.choice([1, 2, 3])) for t in template}
    rows = [(j * period + a, (j * period + a + d) % gpus, weight[(a, d)]) for j in range(gpus // period)
            for a, d in template]
    src, dst, demand = (np.array(x) for x in zip(*rows))
    return Flows(gpus, src, dst, demand * RATE, period=period)


def test_a_periodic_pattern_filled_on_one_stretch_equals_the_whole_ring_filled():
    """A pattern that repeats every few GPUs is filled on a ring of one stretch and repeated (`_stretch_fill`):
    every flow's wavelengths, the ratio and the bound are those of the whole ring filled flow by flow, whether the
    stretch is used or a refused first wavelength sends it back to the whole ring."""
    from fabric.traffic import pattern_flows

    rng = np.random.default_rng(7)
    patterns = [pattern_flows("training", 256, 8), pattern_flows("groups", 96, 16),
                ring_neighbour_flows(64, RATE, both_ways=True)]
    patterns += [_random_periodic(rng, gpus, period) for gpus, period in ((64, 2), (96, 3), (120, 4), (96, 8),
                                                                        (64, 4), (120, 3))]
    stretched = 0
    original = al._stretch_fill
    try:
        def counted(*args):
            nonlocal stretched
            found = original(*args)
            stretched += found is not None
            return found

        al._stretch_fill = counted
        for flows, directions, wavelengths, fill in itertools.product(patterns, (1, 2), (1, 2, 4, 16), (True, False)):
            kw = dict(directions=directions, fibers=1, wavelengths_per_fiber=wavelengths, wavelength_rate_bps=RATE,
                      fill=fill, bound_iterations=3)
            a, b = al.ring_allocation_fast(flows, **kw), al.ring_allocation_fast(_without_period(flows), **kw)
            assert np.array_equal(a.wavelengths, b.wavelengths) and np.array_equal(a.clockwise, b.clockwise)
            assert a.min_ratio == b.min_ratio and a.exact == b.exact
            assert a.upper_bound == b.upper_bound or (math.isnan(a.upper_bound) and math.isnan(b.upper_bound))
    finally:
        al._stretch_fill = original
    assert stretched >= 20  # the stretch was taken often, not only refused


def test_a_pair_listed_twice_is_not_taken_for_a_copy_in_another_stretch():
    """Flows on 16 GPUs claiming a period of 4, the pair 4→5 listed twice and 12→13 missing: each first-stretch
    flow still appears four times in all, but not once in every stretch, so the whole ring is filled (which gives
    one of the two 4→5 flows nothing on a one-wavelength segment)."""
    flows = Flows(16, np.array([0, 4, 4, 8]), np.array([1, 5, 5, 9]), np.full(4, RATE), period=4)
    kw = dict(directions=2, fibers=1, wavelengths_per_fiber=1, wavelength_rate_bps=RATE, bound_iterations=0)
    got, whole = al.ring_allocation_fast(flows, **kw), al.ring_allocation_fast(_without_period(flows), **kw)
    assert np.array_equal(got.wavelengths, whole.wavelengths) and got.min_ratio == whole.min_ratio == 0.0


def test_admitting_refused_first_units_in_rounds_admits_the_flows_one_by_one_would():
    """`_admit` on ring arcs (bulk drops of the flows that no longer fit, bulk admission of those crossing no
    resource the round overfills, the rest in order) admits exactly the flows the plain greedy, one by one in
    priority order, admits; over random rings, loads and needs, with enough candidates for several rounds."""
    rng = np.random.default_rng(3)
    for trial in range(12):
        n = int(rng.integers(8, 200))
        count = int(rng.integers(300, 2500))
        src = rng.integers(0, n, count)
        dst = (src + rng.integers(1, n, count)) % n
        clockwise = al._shortest_clockwise(n, src, dst, 2) if trial % 2 else np.ones(count, dtype=bool)
        arcs = al._ring_arcs(n, src, dst, clockwise)
        start = np.where(clockwise, src, dst)
        length = np.where(clockwise, (dst - src) % n, (src - dst) % n)

        def members(f):
            return np.where(clockwise[f], 0, n) + (start[f] + np.arange(length[f])) % n

        capacity = np.full(2 * n, float(rng.integers(2, 12)))
        taken = np.floor(rng.random(2 * n) * capacity)
        units = np.zeros(count)
        step = rng.integers(1, 3, count).astype(float)
        candidates = np.sort(rng.choice(count, size=count // 2, replace=False))
        one_by_one = al._admit(candidates, units, step, taken, capacity, members, length)
        in_rounds = al._admit(candidates, units, step, taken, capacity, members, length, arcs)
        assert one_by_one.size > 0 and np.array_equal(np.sort(one_by_one), in_rounds)
