"""The speed knobs (core.speed_knobs) change how the work is cut, never a number: the commands users run print the
same bytes with every knob turned small (blocks of a few points, rounds of a few strategies, every pricing and GEMM
timing its distinct columns, a task per point) and turned large (one block, one round, no distinct columns sought,
one task), and a sweep sent to a cluster gives the same rows whatever its number of tasks."""

import pytest

from core import speed_knobs
from sipml.cli import main

SMALL = dict(first_search_wavelengths=2, first_search_growth=1.1, search_growth=1.3, points_per_block=7,
             table_elements=300, distinct_from=0, distinct_points=1, gemm_distinct_from=0, first_priced=5,
             first_priced_few=3, few_points=1, points_per_search=2, points_per_task=1, dask_tasks=3)
HUGE = 1 << 40
LARGE = dict(first_search_wavelengths=512, first_search_growth=8.0, search_growth=8.0, points_per_block=HUGE,
             table_elements=HUGE, distinct_from=HUGE, distinct_points=HUGE, gemm_distinct_from=HUGE, first_priced=HUGE,
             first_priced_few=HUGE, few_points=HUGE, points_per_search=HUGE, points_per_task=HUGE, dask_tasks=1)


def test_every_knob_is_turned_both_ways():
    default = speed_knobs.SpeedKnobs()._asdict()
    for turned in (SMALL, LARGE):
        assert set(turned) == set(default)
    assert all(SMALL[k] < v < LARGE[k] or k == "dask_tasks" for k, v in default.items())


COMMANDS = [
    # the link kernel: every point its own spectrum (count tables point by point, in rounds)
    ("sweep", "--link-only", "--vary", "link.channel_spacing=50 GHz:400 GHz:25", "--vary", "ring.filter_q=3000:30000:6",
     "-f", "csv"),
    # a strategy search on SiP-Ring's ways to run the job, its fastest and the alternatives beside it
    ("speedup", "sip-ring", "sip-ocs", "-m", "gpt2-355m", "-f", "json"),
    # a model sweep: the batched search over the link's points, at two job sizes, in one process
    ("sweep", "sip-ring", "--model", "gpt2-355m", "--vary", "link.data_rate=20 Gbit/s:30 Gbit/s:3", "--vary",
     "fabric.gpus=64,128", "--workers", "1", "-f", "csv"),
    # a sweep point by point (an electrical fabric has no grid path), in tasks of points
    ("sweep", "dgx-h100", "--model", "gpt2-355m", "--vary", "fabric.gpus=64,128,256", "--workers", "1", "-f", "csv"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=["link sweep", "speedup", "model sweep", "point sweep"])
def test_turning_every_knob_changes_no_byte(capsys, monkeypatch, argv):
    outputs = []
    for knobs in ({}, SMALL, LARGE):
        _turn(monkeypatch, knobs)
        code = main(list(argv))
        captured = capsys.readouterr()
        assert code == 0, captured.err
        outputs.append(captured.out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert len(outputs[0].splitlines()) > 3


@pytest.mark.parametrize("tasks", [1, 2, 5])
def test_a_sweep_sent_to_a_cluster_gives_the_same_rows_in_any_number_of_tasks(monkeypatch, tasks):
    from sipml import sweep_run
    from sipml.sweep_run import run_sweep

    specs = ["link.wavelengths_per_fiber=2:8:4", "loss.fiber_length=1 m:10 m:5"]
    _, alone = run_sweep("sip-ring", [], specs, workers=1)
    sent = []
    monkeypatch.setattr(sweep_run, "_map", lambda fn, calls, *_: sent.extend(calls) or [fn(*c) for c in calls])
    _turn(monkeypatch, {"dask_tasks": tasks})
    _, rows = run_sweep("sip-ring", [], specs, scheduler="tcp://127.0.0.1:8786")  # the cluster's map, run here
    assert rows == alone and len(rows) == 20 and len(sent) == min(tasks, 4)


def _turn(monkeypatch, knobs: dict):
    """The knobs turned for the test, and the results a process keeps between commands found afresh."""
    from photonics import ring_wdm
    from workloads import speedup, strategy

    monkeypatch.setattr(speed_knobs, "KNOBS", speed_knobs.SpeedKnobs()._replace(**knobs))
    speedup._search.cache_clear()
    strategy._transformer_strategies.cache_clear()
    ring_wdm._scalar_tables.cache_clear()
