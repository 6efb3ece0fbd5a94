"""The OCS torus of cubes (fabric.ocs_torus) through the commands users run: the TPU-v4-shaped pod's counts
(fabrics-2026.md K21, K21a), slices of a v5p-shaped pod (K22, K22a), a 3-D torus all-reduce derived by hand, and
its bill."""

import json

import numpy as np
import pytest

from fabric.ocs_torus import group_grid
from tests.sipml.cli_run import refused, run

V5P = ("--set", "fabric.gpus=8960", "--set", "fabric.job_gpus=6144", "--set", "ocs_torus.switch=ocs.lumentum_r300",
       "--set", "ocs_torus.radix=300")


def fabric(capsys, *argv):
    code, out, err = run(capsys, "fabric", "ocs-torus-v4", "-f", "json", *argv)
    assert code in (0, 1), err
    return json.loads(out)


def figure(data, name):
    return data["figures"][name]["value"]


def test_the_tpu_v4_shaped_pod_has_its_published_counts(capsys):
    """64 cubes, 48 OCS with 128 of their 136 ports used, 6,144 optical links, 1.5 per chip (K21, K21a)."""
    data = fabric(capsys)
    assert data["feasible"]
    assert figure(data, "cubes") == 64
    assert figure(data, "OCS count") == 48
    assert figure(data, "OCS ports used per side") == 128
    assert data["figures"]["OCS ports used per side"]["unit"] == "of 136"
    assert figure(data, "optical link-ends") == 6144
    assert figure(data, "optical link-ends per chip") == 1.5
    # copper inside a 4×4×4 cube: 3 dimensions × 3 × 16 links = 144 per cube
    assert figure(data, "copper links in the cubes") == 64 * 144
    assert data["degree"] == 6 and data["per_gpu_bandwidth_gbps"] == pytest.approx(6 * 400)
    # bisection of the 16×16×16 slice: two planes of 256 links across the cut, 400 Gbit/s each way
    assert data["bisection_gbps"] == pytest.approx(2 * 256 * 400)


def test_each_fibre_of_a_link_end_takes_a_switch_plane_of_its_own(capsys):
    """Two fibres per link-end each way: each needs its own port, so the pod needs twice the switches (96), each
    still with 128 link-ends."""
    data = fabric(capsys, "--set", "link.fibers_per_direction=2", "--set", "link.wavelengths_per_fiber=4",
                  "--set", "laser.lines=4")
    assert figure(data, "OCS count") == 96 and figure(data, "OCS ports used per side") == 128


def test_circulators_halve_the_ports_and_cost_two_passes(capsys):
    duplex, circ = fabric(capsys), fabric(capsys, "--set", "ocs_torus.fibers=circulators")
    assert figure(circ, "OCS ports used per side") == 64
    assert figure(duplex, "margin through the switch") - figure(circ, "margin through the switch") == \
        pytest.approx(2.0, abs=1e-9)  # two 1 dB circulator passes


def test_the_cost_breaks_out_the_switches_and_the_optics(capsys):
    code, out, err = run(capsys, "cost", "ocs-torus-v4", "-f", "json")
    assert code == 0, err
    lines = {line["key"]: line for line in json.loads(out)["designs"][0]["breakdown"]}
    gpus = 4096
    assert lines["ocs.palomar_136"]["count_per_gpu"] == pytest.approx(48 * 136 / gpus)  # every port bought
    assert lines["sip.optical_io_chiplet"]["count_per_gpu"] == pytest.approx(1.5)  # one link-end's I/O each
    assert lines["laser.comb_line"]["count_per_gpu"] == pytest.approx(1.5 * 8)  # 8 lines on one fibre
    assert lines["cable.fiber_patch"]["count_per_gpu"] == pytest.approx(1.5 * 2)  # one fibre each way, duplex
    assert lines["cable.ici_copper"]["count_per_gpu"] == pytest.approx(144 / 64)
    assert all(lines[k]["cost_usd_per_gpu"][1] > 0 for k in ("ocs.palomar_136", "sip.optical_io_chiplet", "cable.ici_copper"))


def test_an_all_reduce_on_a_cubic_slice_matches_the_dimension_ordered_schedule_by_hand(capsys):
    """512 chips = 8 cubes, an 8×8×8 slice; the all-reduce over all of them: three parts in rotated dimension
    order, every dimension a closed ring with both directions at 2 × 400 Gbit/s per chip. Each of the reduce-scatter's
    three phases has every dimension carry one part: 7 steps and 7/8 of n/3, then of n/24, then of n/192; the
    all-gather mirrors it; each phase's 7 steps pipelined (fabric.collectives.pipelined_s); links at 0.94 of their
    rate ([ocs_torus] link_efficiency); one launch latency per call."""
    data = fabric(capsys, "--set", "fabric.gpus=512", "--set", "fabric.message_size=100 MB")
    assert data["figures"]["slice"]["unit"].startswith("chips (8×8×8")
    n, rate = 100e6, 400e9 * 0.94
    alpha = 3.4e-6 + 10 * 1.4682 / 299792458  # a step, and the fiber of one circuit (10 m at group index 1.4682)
    transfers = [7 / 8 * (n / 3 / 8 ** k) * 8 / (2 * rate) for k in range(3)]
    phases = [max(7 * alpha, t) + min(alpha, t / 7) for t in transfers]
    expected = 2 * sum(phases) + 8.4e-6
    assert data["collective_times_s"]["all_reduce"] == pytest.approx(expected, rel=1e-4)
    # its bandwidth term is the bound no schedule beats, 2(1 − 1/P)·n over six links per chip:
    # (7/8)(1 + 1/8 + 1/64) = 1 − 1/512; the steps' latencies add at most 2 × 21 α to it
    bound = 2 * (1 - 1 / 512) * n * 8 / (6 * rate)
    assert 2 * sum(transfers) == pytest.approx(bound, rel=1e-12)
    assert bound < data["collective_times_s"]["all_reduce"] - 8.4e-6 < bound + 2 * 21 * alpha


@pytest.mark.parametrize("p, s, g, closed", [
    (8, 1, (8, 1, 1), (False, False, False)),  # half of x: a line
    (16, 1, (16, 1, 1), (True, False, False)),  # all of x: a ring
    (32, 1, (16, 2, 1), (True, False, False)),
    (256, 16, (1, 16, 16), (False, True, True)),  # data-parallel groups strided past x
    (8, 2, (8, 1, 1), (True, False, False)),  # every other chip of x: a ring at step 2
])
def test_a_group_is_a_sub_grid_of_the_slice(p, s, g, closed):
    grid = group_grid(p, s, (16, 16, 16))
    assert bool(grid.grid)
    assert tuple(grid.g.tolist()) == g and tuple(grid.closed.tolist()) == closed


def test_a_v5p_shaped_pod_places_its_largest_slice(capsys):
    """8,960 chips = 140 cubes; the 16×16×24 slice takes 96 of them (K22a); each OCS joins 280 link-ends, which a
    300-port switch holds and Palomar's 136 does not."""
    data = fabric(capsys, *V5P, "--set", "ocs_torus.slice=16x16x24")
    assert data["feasible"]
    assert figure(data, "cubes") == 140
    assert figure(data, "slice") == 6144 and "96 cubes" in data["figures"]["slice"]["unit"]
    assert figure(data, "OCS ports used per side") == 280
    palomar = fabric(capsys, "--set", "fabric.gpus=8960", "--set", "fabric.job_gpus=6144")
    assert not palomar["feasible"] and any(v["name"] == "ocs_radix" for v in palomar["violations"])


@pytest.mark.parametrize("slice_, fragment", [
    ("16x16x22", "z = 22 is not a whole number of 4-chip cube edges"),
    ("16x16x16", "holds 4096 chips but the job runs on 6144"),
    ("16x16", "expected three whole numbers"),
])
def test_a_slice_the_cubes_cannot_form_is_refused_with_the_reason(capsys, slice_, fragment):
    refused(capsys, "fabric", "ocs-torus-v4", *V5P, "--set", f"ocs_torus.slice={slice_}", fragment=fragment)


def test_a_job_of_part_cubes_is_refused(capsys):
    refused(capsys, "fabric", "ocs-torus-v4", "--set", "fabric.job_gpus=1000", fragment="not a multiple of the 64")


def test_a_slice_larger_than_the_pod_is_refused_and_one_that_fits_is_placed(capsys):
    refused(capsys, "fabric", "ocs-torus-v4", "--set", "ocs_torus.slice=16x16x24",
            fragment="needs 96 cubes; the pod has 64")
    data = fabric(capsys, "--set", "fabric.gpus=1024", "--set", "ocs_torus.slice=8x8x16")
    assert data["feasible"] and figure(data, "slice") == 1024 and figure(data, "cubes") == 16


def test_strided_groups_share_the_links_they_skip_over():
    """Two members two chips apart on a line of x: the interleaved copies share every link (r/2 each)."""
    from fabric.ocs_torus import _dimension_bps

    grid = group_grid(np.array([4.0]), np.array([2.0]), (16, 16, 16))
    assert grid.g[0, 0] == 4 and grid.t[0, 0] == 2 and not grid.closed[0, 0]
    assert _dimension_bps(grid, 400e9)[0, 0] == pytest.approx(200e9)


def test_a_job_is_offered_every_slice_shape_within_the_aspect_bound():
    """64 cubes: the 4×4×4-cube torus and the six orders of 2×4×8 cubes (sides within 4×); a tensor-parallel group
    of 8 consecutive ranks is a line on a 16-wide slice (one direction's 400 Gbit/s per rank, at the links' 0.94) and a
    closed ring on an 8-wide one (both directions)."""
    from fabric.kind import Collective
    from fabric.registry import get_kind
    from sipml.design_files import load_design

    kind = get_kind("ocs-torus")
    est = kind.evaluate(load_design("ocs-torus-v4"))
    ways = {v.details.allocation: v for v in kind.alternatives(est)}
    assert set(ways) == {"fixed 16x16x16", *(f"fixed {a}x{b}x{c}" for a, b, c in
                                              {(8, 16, 32), (8, 32, 16), (16, 8, 32), (16, 32, 8), (32, 8, 16),
                                               (32, 16, 8)})}
    assert ways["fixed 8x32x16"].bisection_bps == pytest.approx(2 * 4096 / 32 * 400e9)
    tp = Collective("all_reduce", 100e6, 8, 1, name="tp")
    line, = kind.price(ways["fixed 16x16x16"], [tp], mix=[tp])
    ring, = kind.price(ways["fixed 8x16x32"], [tp], mix=[tp])
    assert line.bandwidth_bps == pytest.approx(0.94 * 400e9) and ring.bandwidth_bps == pytest.approx(0.94 * 800e9)
    assert line.seconds / ring.seconds == pytest.approx(2.0, rel=0.05)


def test_a_twisted_slice_doubles_the_cut_across_its_long_side(capsys):
    """A 4×4×8 slice (two cubes): plain, the worst cut crosses two planes of 16 links across the 8-long side
    (2·128/8 links); twisted, the long side's shifted wrap-around links cross it too, and the worst cut is across a
    4-long side (2·128/4). The all-to-all over the slice, bound by that cut, runs twice as fast."""
    args = ("--set", "fabric.gpus=128", "--set", "ocs_torus.slice=4x4x8", "--set", "fabric.message_size=100 MB")
    plain, twisted = fabric(capsys, *args), fabric(capsys, *args, "--set", "ocs_torus.wrap=twisted")
    assert plain["bisection_gbps"] == pytest.approx(2 * 128 / 8 * 400)
    assert twisted["bisection_gbps"] == pytest.approx(2 * 128 / 4 * 400)
    assert "twisted" in twisted["figures"]["slice"]["unit"]
    a2a = [d["collective_times_s"]["all_to_all"] for d in (plain, twisted)]
    assert a2a[0] / a2a[1] == pytest.approx(2.0, rel=0.02)  # latency terms aside
    assert plain["collective_times_s"]["all_reduce"] == twisted["collective_times_s"]["all_reduce"]


def test_on_a_twisted_slice_a_short_ring_no_longer_closes_on_itself():
    """On a twisted 4×4×8 slice a group of 4 along x reaches its wrap-around link k = 4 along z, on another group's
    chip: it runs as a line (one direction's rate), where on the plain slice it is a closed ring (both)."""
    from fabric.ocs_torus import shape_seconds

    _, plain_bps, _ = shape_seconds("all_reduce", 1e8, 4, 1, (4, 4, 8), 400e9, 0.0, False)
    _, twisted_bps, _ = shape_seconds("all_reduce", 1e8, 4, 1, (4, 4, 8), 400e9, 0.0, True)
    _, whole_bps, _ = shape_seconds("all_reduce", 1e8, 128, 1, (4, 4, 8), 400e9, 0.0, True)
    assert plain_bps == pytest.approx(800e9) and twisted_bps == pytest.approx(400e9)
    assert whole_bps == pytest.approx(3 * 800e9)  # the whole slice closes every ring


def test_a_shape_that_cannot_twist_is_refused(capsys):
    refused(capsys, "fabric", "ocs-torus-v4", "--set", "ocs_torus.wrap=twisted", "--set", "ocs_torus.slice=16x16x16",
            fragment="cannot be twisted")


@pytest.mark.parametrize("command", ["check", "fabric", "cost"])
def test_a_radix_beyond_the_switch_s_ports_is_refused(capsys, command):
    refused(capsys, command, "ocs-torus-v4", "--set", "ocs_torus.radix=320", fragment="ocs.palomar_136 has 136 ports")
