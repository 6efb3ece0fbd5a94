"""Placement of several jobs by a fabric kind's rule (fabric.placement): arcs, pods, partitions, cubes; the
leftover counted by hand."""

import pytest

from core.errors import InfeasibleDesign, InputError
from fabric.placement import Request, Slots, leftover, parse_ranges, place, ranges_text

RING = Slots(gpus=16, unit_gpus=1, unit="GPU", contiguous=True)
PODS = Slots(gpus=64, unit_gpus=8, unit="server", domain_units=4)  # 2 pods of 4 servers
PARTITIONED = Slots(gpus=12, unit_gpus=1, unit="GPU", domain_units=6, strict=True)
CUBES = Slots(gpus=4096, unit_gpus=64, unit="cube")


def test_ring_first_fit_takes_the_first_arc_best_fit_the_shortest():
    jobs = [Request("a", 4, at="0-3"), Request("b", 6, at="6-11"), Request("c", 2)]
    # free arcs: 4-5 (2 GPUs) and 12-15 (4 GPUs)
    assert place(RING, jobs, "first-fit")[2].units == (4, 5)
    jobs[2] = Request("c", 3)
    assert place(RING, jobs, "first-fit")[2].units == (12, 13, 14)
    jobs = [Request("a", 4, at="2-5"), Request("b", 5, at="8-12"), Request("c", 2)]
    # free arcs: 6-7 (2) and 13-15 with 0-1 wrapping round (5): best fit takes the short one, first fit the first
    assert place(RING, jobs, "best-fit")[2].units == (6, 7)
    jobs[2] = Request("c", 5)
    assert place(RING, jobs, "first-fit")[2].units == (13, 14, 15, 0, 1)


def test_a_ring_job_needs_one_unbroken_arc():
    jobs = [Request("a", 4, at="2-5"), Request("b", 4, at="10-13"), Request("c", 7)]
    with pytest.raises(InfeasibleDesign, match=r"job 'c' \(7 GPUs\) cannot be placed: .*unbroken arc of 7 GPUs; the "
                                         r"longest free arc is 4 of 8 free"):
        place(RING, jobs)
    with pytest.raises(InputError, match="not one unbroken arc"):
        place(RING, [Request("a", 4, at="0-1,4-5")])


def test_pods_first_a_job_inside_one_then_the_roomiest():
    placed = place(PODS, [Request("a", 24), Request("b", 16), Request("c", 24)])
    assert placed[0].units == (0, 1, 2)  # pod 0
    assert placed[1].units == (4, 5)  # pod 1: pod 0 has one server left
    assert placed[2].units == (3, 6, 7)  # no pod holds 3 servers: pod 1's 2 (the roomiest), then pod 0's 1
    best = place(PODS, [Request("a", 16, at="0-15"), Request("b", 8)], "best-fit")
    assert best[1].units == (2,)  # pod 0 (2 servers free) before pod 1 (4 free)
    first = place(PODS, [Request("a", 16, at="0-15"), Request("b", 8)], "first-fit")
    assert first[1].units == (2,)
    best = place(PODS, [Request("a", 8, at="32-39"), Request("b", 8)], "best-fit")
    assert best[1].units == (5,)  # pod 1 has 3 free, pod 0 has 4: the tighter one


def test_priority_places_first_and_whole_units_strand_gpus():
    placed = place(PODS, [Request("small", 4), Request("big", 32, priority=1)])
    assert placed[1].units == (0, 1, 2, 3) and placed[0].units == (4,)
    assert placed[0].stranded_gpus == 4 and placed[0].gpu_ranges() == "32-39"
    left = leftover(PODS, placed)
    assert (left.idle_gpus, left.stranded_gpus, left.largest_fit_gpus) == (24, 4, 24)


def test_a_partitioned_switch_keeps_a_job_inside_one_pod():
    place(PARTITIONED, [Request("a", 6), Request("b", 6)])
    with pytest.raises(InfeasibleDesign, match="inside one pod"):
        place(PARTITIONED, [Request("a", 4), Request("b", 4), Request("c", 4)])  # 8 GPUs free, 2 and 2 per pod
    with pytest.raises(InfeasibleDesign, match="inside one pod of 6 GPUs; the roomiest pod has 6 free"):
        place(PARTITIONED, [Request("a", 7)])
    with pytest.raises(InputError, match="span pods"):
        place(PARTITIONED, [Request("a", 2, at="5-6")])
    assert leftover(PARTITIONED, place(PARTITIONED, [Request("a", 4), Request("b", 4)])).largest_fit_gpus == 2


def test_slices_of_whole_cubes_leave_the_idle_cubes_counted():
    """64 cubes of 64 chips; slices of 16, 32 and 8 cubes, and a 200-chip job on 4 cubes (56 chips stranded):
    60 cubes held, 4 idle (256 GPUs), and a 256-GPU job still fits."""
    placed = place(CUBES, [Request("a", 1024), Request("b", 2048), Request("c", 512), Request("d", 200)])
    assert [len(p.units) for p in placed] == [16, 32, 8, 4]
    left = leftover(CUBES, placed)
    assert (left.idle_gpus, left.stranded_gpus, left.largest_fit_gpus) == (256, 56, 256)
    with pytest.raises(InputError, match=r"the mix does not fit: its jobs \('a' 1024, 'b' 2048, 'c' 512, 'd' 200, "
                                         r"'e' 512\) ask 4352 GPUs"):
        place(CUBES, [*[Request(p.name, p.gpus) for p in placed], Request("e", 512)])


def test_fixed_placements_are_checked():
    with pytest.raises(InputError, match="job 'b': its fixed GPUs 8-15 overlap job 'a' on GPUs 8-15"):
        place(PODS, [Request("a", 16, at="0-15"), Request("b", 8, at="8-15")])
    with pytest.raises(InputError, match="split a server"):
        place(PODS, [Request("a", 8, at="4-11")])
    with pytest.raises(InputError, match="reach GPU 64"):
        place(PODS, [Request("a", 8, at="57-64")])
    with pytest.raises(InputError, match="are 16 GPUs; a job of 8 GPUs takes 8 \\(whole servers of 8\\)"):
        place(PODS, [Request("a", 8, at="0-15")])
    with pytest.raises(InputError, match="is not a number"):
        parse_ranges("0-x")
    with pytest.raises(InputError, match="job 'a': GPU ranges '0-x'"):
        place(PODS, [Request("a", 8, at="0-x")])
    assert ranges_text([0, 8, 16, 40], 8) == "0-23,40-47"


def test_the_gpus_past_the_last_whole_unit_are_idle():
    """4 096 GPUs in servers of 72 are 56 servers and 64 GPUs no job can take: they were in no count (running +
    idle + stranded came to 4 032), and `mix` reported them placed."""
    slots = Slots(gpus=4096, unit_gpus=72, unit="server")
    placed = place(slots, [Request("a", 3840)])
    left = leftover(slots, placed)
    assert left.idle_gpus + left.stranded_gpus + 3840 == 4096
    assert left.idle_gpus == 4096 - 54 * 72 and left.stranded_gpus == 54 * 72 - 3840
