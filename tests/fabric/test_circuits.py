"""Circuits switched between the phases of an iteration (fabric.circuits): one iteration priced by hand with a
10 ms and a 10 µs switch, and the workload keeping circuits fixed when switching costs more."""

import json

import pytest

from fabric.circuits import Schedule
from fabric.kind import Collective
from fabric.registry import get_kind
from sipml.design_files import load_design
from tests.sipml.cli_run import run

LAUNCH = 8.4e-6  # [fabric] launch_latency, once per call
TP, DP = 10e6, 100e6  # bytes per rank of the tensor- and the data-parallel all-reduce
TP_CALLS = 8


def iteration_s(shots: str, switch: str) -> float:
    """A 4-GPU job on SiP-OCS's 20 circuits of 100 Gbit/s per GPU: 8 tensor-parallel all-reduces over pairs of
    neighbours, then one data-parallel all-reduce over pairs two apart, one after the other (the fabric's prices)."""
    design = load_design("sip-ocs", ["fabric.gpus=4", f"sip_ocs.shots={shots}",
                                     f"sip_ocs.reconfiguration_time={switch}"])
    kind = get_kind("sip-ocs")
    est = kind.evaluate(design)
    tp = Collective("all_reduce", TP, 2, 1, calls=TP_CALLS, name="tp")
    dp = Collective("all_reduce", DP, 2, 2, calls=1, name="dp")
    tp_s, = kind.price(est, [tp], mix=[tp, dp])
    dp_s, = kind.price(est, [dp], mix=[tp, dp])
    return TP_CALLS * tp_s.seconds + dp_s.seconds, est.details.circuit_delay_s


def ring_allreduce_s(n, bandwidth, alpha):
    """Two ranks: the reduce-scatter and the all-gather one step each, half the buffer each way, the two steps
    pipelined (fabric.collectives.pipelined_s): max(2α, n·8/B) + min(α, n·8/2B), and the launch."""
    transfer = n * 8 / bandwidth
    return max(2 * alpha, transfer) + min(alpha, transfer / 2) + LAUNCH


@pytest.mark.parametrize("switch, switch_s", [("10 ms", 10e-3), ("10 us", 10e-6)])
def test_one_iteration_by_hand_fixed_and_phased(switch, switch_s):
    """Fixed: the 20 circuits split once by the bytes each sends per iteration (8 × 10 MB vs 100 MB: one each, the
    other 18 by their excess, 7.89 and 10.11 → 7 + 10 and the last to the larger remainder: 9 and 11 circuits).
    Phased: each call has all 20 circuits and waits one switch first."""
    fixed, delay = iteration_s("single", switch)
    phased, _ = iteration_s("phased", switch)
    alpha = 3.4e-6 + delay
    circuit = 100e9
    hand_fixed = TP_CALLS * ring_allreduce_s(TP, 9 * circuit, alpha) + ring_allreduce_s(DP, 11 * circuit, alpha)
    hand_phased = TP_CALLS * (ring_allreduce_s(TP, 20 * circuit, alpha) + switch_s) + \
        ring_allreduce_s(DP, 20 * circuit, alpha) + switch_s
    assert fixed == pytest.approx(hand_fixed, rel=1e-9)
    assert phased == pytest.approx(hand_phased, rel=1e-9)
    # a millisecond-class switch costs more than it saves; a microsecond one saves
    assert (phased > fixed) if switch_s > 1e-3 else (phased < fixed)


def picked(capsys, design: str, key: str, switches, *argv) -> dict:
    """(the way the job ran, its iteration seconds) on `design` at each switching time of `key`."""
    out = {}
    for switch in switches:
        code, text, err = run(capsys, "speedup", design, "-f", "json", *argv, "--set", f"{key}={switch}")
        assert code == 0, err
        rows = json.loads(text)
        row = next(r for r in (rows if isinstance(rows, list) else rows["rows"]) if r["design"] == design)
        out[switch] = (row["allocation"], row["iteration_s"])
    return out


def test_speedup_keeps_circuits_fixed_when_switching_costs_more(capsys):
    ran = picked(capsys, "sip-ocs", "sip_ocs.reconfiguration_time", ("30 ms", "10 us"), "--set", "sip_ocs.shots=auto")
    assert ran["30 ms"][0] == "single" and ran["10 us"][0] == "phased"
    assert ran["10 us"][1] < ran["30 ms"][1]


def test_the_sipml_special_cases_keep_their_numbers():
    """SiP-ML's multi-shot OCS (reconfigured every 5 delays, 5/6 useful) and SiP-Ring's periodic wavelengths (a call
    waits half a decision interval and a retune) are periodic schedules."""
    multi = Schedule("periodic", 30e-3, 5 * 30e-3)
    assert multi.useful_fraction == pytest.approx(5 / 6) and multi.call_wait_s == 0 and multi.static
    ring = Schedule("periodic", 20e-6, 100e-6, follows_running=True)
    assert ring.useful_fraction == pytest.approx(100 / 120) and ring.call_wait_s == pytest.approx(70e-6)
    assert not ring.static
    assert Schedule("phased", 1e-3).call_wait_s == 1e-3 and Schedule("fixed", 1e-3).call_wait_s == 0


def test_the_torus_rewires_only_where_it_pays(capsys):
    """The OCS torus with circuits 'auto': a Palomar-class switch (1.2 ms) keeps the slice fixed for GPT-3 on 4,096
    chips; a 10 µs switch re-wires it per call and runs faster."""
    ran = picked(capsys, "ocs-torus-v4", "ocs_torus.switching_time", ("1.2 ms", "10 us"), "--gpus", "4096", "--set",
                 "ocs_torus.circuits=auto")
    assert ran["1.2 ms"][0].startswith("fixed") and ran["10 us"][0] == "phased"
    assert ran["10 us"][1] < ran["1.2 ms"][1]
