"""The speed knobs (core.speed_knobs) change how the work is cut, never a number: the commands users run print the
same bytes with every knob turned to sizes far from its default (blocks of a few points, rounds of a few
strategies, every pricing and GEMM timing its distinct columns, a task per point)."""


import pytest

from core import speed_knobs
from sipml.cli import main

TURNED = dict(first_search_wavelengths=2, first_search_growth=1.1, search_growth=1.3, points_per_block=7,
              table_elements=300, distinct_from=0, distinct_points=1, gemm_distinct_from=0, first_priced=5,
              first_priced_few=3, few_points=1, points_per_search=2, points_per_task=1, dask_tasks=3)


def test_every_knob_is_turned():
    assert set(TURNED) == set(speed_knobs.SpeedKnobs._fields)
    assert all(TURNED[k] != v for k, v in speed_knobs.KNOBS._asdict().items())


COMMANDS = [
    # the link kernel: every point its own spectrum (count tables point by point, in rounds)
    ("sweep", "--link-only", "--vary", "link.channel_spacing=50 GHz:400 GHz:25", "--vary", "ring.filter_q=3000:30000:6",
     "-f", "csv"),
    # a strategy search on SiP-Ring's ways to run the job, its fastest and the alternatives beside it
    ("speedup", "sip-ring", "sip-ocs", "-m", "gpt2-355m", "-f", "json"),
    # a model sweep: the batched search over the link's points, at two job sizes, in one process
    ("sweep", "sip-ring", "--model", "gpt2-355m", "--vary", "link.data_rate=20 Gbit/s:30 Gbit/s:3", "--vary",
     "fabric.gpus=64,128", "--workers", "1", "-f", "csv"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=["link sweep", "speedup", "model sweep"])
def test_turning_every_knob_changes_no_byte(capsys, monkeypatch, argv):
    outputs = []
    for knobs in ({}, TURNED):
        monkeypatch.setattr(speed_knobs, "KNOBS", speed_knobs.SpeedKnobs()._replace(**knobs))
        _clear_caches()
        code = main(list(argv))
        captured = capsys.readouterr()
        assert code == 0, captured.err
        outputs.append(captured.out)
    assert outputs[0] == outputs[1]
    assert len(outputs[0].splitlines()) > 3


def _clear_caches():
    """The results a process keeps between commands, found afresh under the turned knobs."""
    from photonics import ring_wdm
    from workloads import speedup, strategy

    speedup._search.cache_clear()
    strategy._transformer_strategies.cache_clear()
    ring_wdm._scalar_tables.cache_clear()
