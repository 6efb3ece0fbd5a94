"""Goodput through the commands users run: a small job's ETTR derived by hand, interruptions growing with the parts,
and what the optics, the fabric's failure domains and spares do to it."""

import json
import math

import pytest

from tests.sipml.cli_run import run

HOUR = 3600.0
# Llama 3 Table 5, counts reading, per GPU (fabric/catalog/reliability.toml): faulty, HBM3, SRAM, GSP, SDC, thermal;
# per GPU's host share: parts, unplanned maintenance; software (54 + 2 events, restarted in place)
GPU_MTBF_H = (143471, 294912, 1117561, 1249039, 3538944, 3538944)
HOST_MTBF_H = (1516690, 663552)
SOFTWARE_MTBF_H = 379173


def reliability(capsys, *argv):
    code, out, err = run(capsys, "reliability", *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def test_a_small_job_s_ettr_by_hand(capsys):
    """GPT-3 175B on the ideal switch's 64 GPUs (no network part to fail): λ = 64 × Σ 1/MTBF over the GPU, host and
    software causes; δ = 175 B × 14 B over the job's storage ports, 64 × 12.5 GB/s = 800 GB/s (fewer than the file
    system's 2 TB/s write, 7 TB/s read); τ Daly's optimum; R = 120 s detection + 180 s rescheduling (none for
    software, restarted in place) + 120 s start-up + the checkpoint read at 800 GB/s, averaged by rate;
    ETTR = τ / (M·e^(R/M)·(e^((τ+δ)/M) − 1)) / (1 + ρ_p·R_p), ρ_p = 0.87 a day with R_p = start-up + read."""
    data = reliability(capsys, "ideal", "--set", "fabric.gpus=64")
    hardware = 64 * sum(1 / (h * HOUR) for h in GPU_MTBF_H + HOST_MTBF_H)
    software = 64 / (SOFTWARE_MTBF_H * HOUR)
    rate = hardware + software
    m = 1 / rate
    size = data["checkpoint_bytes"]
    assert size == pytest.approx(174.6e9 * 14, rel=0.01)  # GPT-3's parameters × 14 bytes
    delta, read = size / 800e9, size / 800e9
    x = delta / (2 * m)
    tau = math.sqrt(2 * delta * m) * (1 + math.sqrt(x) / 3 + x / 9) - delta
    r = (hardware * (120 + 180 + 120 + read) + software * (120 + 120 + read)) / rate
    planned = 1 + 0.87 / 86400 * (120 + read)
    hand = tau / (m * math.exp(r / m) * math.expm1((tau + delta) / m)) / planned
    assert data["interruptions_per_day"] == pytest.approx(rate * 86400, rel=1e-9)
    assert data["checkpoint_interval_s"] == pytest.approx(tau, rel=1e-9)
    assert data["restart_s"] == pytest.approx(r, rel=1e-9)
    assert data["ettr"] == pytest.approx(hand, rel=1e-9)


def test_nothing_kept_when_the_interval_is_far_beyond_the_mtti(capsys):
    """A checkpoint interval of 10⁷ s on a job interrupted every few hours: the expected wall time is beyond float
    range, so no training is kept (ETTR 0), reported, not a crash."""
    data = reliability(capsys, "llama3-24k", "--set", "reliability.checkpoint_interval=10000000 s")
    assert data["ettr"] == 0.0


def test_the_two_readings_of_table_5_keep_its_total(capsys):
    """Read by its percentages, Table 5 has ≈ 126 faulty-GPU events and ≈ 22 unattributed: the total stays 419."""
    args = ("llama3-24k", "--model", "llama3-405b", "--set", "fabric.job_gpus=16384")
    counts = reliability(capsys, *args)
    percentages = reliability(capsys, *args, "--set", "reliability.table5_reading=percentages")
    assert percentages["interruptions_per_day"] == pytest.approx(counts["interruptions_per_day"], rel=1e-4)
    assert any(l["cause"].startswith("unattributed") for l in percentages["lines"])


def test_software_failures_restart_in_place_even_with_spares(capsys):
    data = reliability(capsys, "dgx-h100", "--set", "reliability.spare_gpus=8")
    software = next(l for l in data["lines"] if l["cause"].startswith("software"))
    assert software["recovery"] == "in place"
    assert software["restart_s"] == pytest.approx(120 + 120 + data["read_s"])


def test_twice_the_gpus_twice_the_interruptions(capsys):
    small = reliability(capsys, "dgx-h100", "--set", "fabric.gpus=1024")
    large = reliability(capsys, "dgx-h100", "--set", "fabric.gpus=2048")
    assert large["interruptions_per_day"] / small["interruptions_per_day"] == pytest.approx(2.0, rel=0.05)
    assert large["ettr"] < small["ettr"]


def test_co_packaged_optics_interrupt_less_than_pluggables(capsys):
    """The same 800G fat-tree with co-packaged engines (2.6 M h, Meta's CPO field data) or DSP pluggables
    (0.5–1 M h): fewer interruptions and a higher ETTR with CPO."""
    cpo = reliability(capsys, "cpo-800g", "--model", "llama3-405b")
    dsp = reliability(capsys, "dsp-800g", "--model", "llama3-405b")
    optics = lambda d, prefix: sum(l["interruptions_per_day"] for l in d["lines"] if l["component"].startswith(prefix))
    assert optics(cpo, "cpo.") + optics(cpo, "els.") < optics(dsp, "transceiver.")
    assert cpo["interruptions_per_day"] < dsp["interruptions_per_day"] and cpo["ettr"] > dsp["ettr"]


def test_a_spine_failure_rides_through_and_a_leaf_failure_stops_the_job(capsys):
    data = reliability(capsys, "llama3-24k", "--model", "llama3-405b", "--set", "fabric.job_gpus=16384")
    lines = {l["component"]: l for l in data["lines"] if l["cause"] == "packet switch"}
    assert lines["switch.eth_chassis_288p"]["interrupts"] == 0 and lines["switch.eth_chassis_288p"]["restart_s"] is None
    assert lines["switch.eth_minipack2"]["interrupts"] == 1


def test_dual_plane_nics_ride_through_a_plane_s_failure(capsys):
    single = reliability(capsys, "cpo-800g")
    dual = reliability(capsys, "cpo-800g", "--set", "electrical.planes=2")
    stops = lambda d, key: next(l["interrupts"] for l in d["lines"] if l["component"] == key)
    assert stops(dual, "cpo.engine_1p6t") == 0 < stops(single, "cpo.engine_1p6t")
    assert dual["ettr"] > single["ettr"]


def test_spare_cubes_and_hot_spares_shorten_the_restart(capsys):
    """A torus pod with cubes beyond the slice wires a spare cube in (its set-up time) instead of rescheduling; hot
    spares do the same for a GPU cluster."""
    spare = reliability(capsys, "ocs-torus-v4", "--set", "fabric.job_gpus=2048")  # 32 of 64 cubes: 32 spares
    whole = reliability(capsys, "ocs-torus-v4", "--set", "fabric.gpus=2048")  # the slice is the pod
    assert spare["restart_s"] < whole["restart_s"] and spare["ettr"] > whole["ettr"]
    gpu = next(l for l in spare["lines"] if l["component"] == "gpu.h100_sxm5")
    assert gpu["recovery"] == "spare"
    plain = reliability(capsys, "dgx-h100")
    spared = reliability(capsys, "dgx-h100", "--set", "reliability.spare_gpus=8")
    assert spared["restart_s"] < plain["restart_s"] and spared["ettr"] > plain["ettr"]


def test_an_ocs_port_failure_rides_through_on_sip_ocs(capsys):
    data = reliability(capsys, "sip-ocs")
    ocs = next(l for l in data["lines"] if l["component"].startswith("ocs."))
    assert ocs["interrupts"] == 0


def test_speedup_shows_goodput_beside_the_failure_free_figures(capsys):
    code, out, err = run(capsys, "speedup", "dgx-h100", "-f", "json", "--set", "reliability.spare_gpus=8")
    assert code == 0, err
    data = json.loads(out)
    row = (data["rows"] if isinstance(data, dict) else data)[0]
    assert 0 < row["ettr"] < 1
    assert row["goodput_run_time_s"] == pytest.approx(row["run_time_s"] / row["ettr"], rel=1e-9)
    base = row["baselines"]["fattree-200"]
    assert base["goodput_speedup"] != base["speedup"]


def test_an_asynchronous_checkpoint_pauses_for_the_copy_and_waits_for_the_write(capsys):
    """Asynchronous: each GPU pauses to copy its share (5.68 TB / 16,384 GPUs at 25 GB/s = 13.9 ms) and the next
    checkpoint waits for the storage write (5.68 TB at 10 GB/s = 568 s), longer than Daly's interval at that pause."""
    args = ("llama3-24k", "--model", "llama3-405b", "--set", "fabric.job_gpus=16384", "--set",
            "reliability.checkpoint_write=asynchronous")
    fast = reliability(capsys, *args)
    assert fast["pause_s"] == pytest.approx(fast["checkpoint_bytes"] / 16384 / 25e9, rel=1e-9)
    slow = reliability(capsys, *args, "--set", "reliability.storage_write_bandwidth=10 GB/s")
    assert slow["checkpoint_interval_s"] == pytest.approx(slow["checkpoint_bytes"] / 10e9, rel=1e-9)
    synchronous = reliability(capsys, "llama3-24k", "--model", "llama3-405b", "--set", "fabric.job_gpus=16384")
    assert fast["ettr"] > synchronous["ettr"]
    assert fast["notes"] == []  # Daly's interval longer than the 2.8 s write: nothing raised
    [note] = slow["notes"]  # Daly's interval raised to the 568 s write: said
    assert note.startswith("Daly's optimum interval (") and "shorter than the asynchronous write (9.47 min)" in note


def test_a_small_job_writes_and_reads_its_checkpoint_through_its_own_storage_ports(capsys):
    """A job reaches storage over its servers' storage ports, 12.5 GB/s per GPU (DGX BasePOD: two 400 Gb/s ports
    per 8 GPUs): 8 GPUs write and read Llama 3 405B's 5.68 TB at 100 GB/s, not at the file system's 2 and 7 TB/s;
    1,024 GPUs' ports (12.8 TB/s) leave the storage's rates binding. The synchronous pause is that write."""
    small = reliability(capsys, "dgx-h100", "--model", "llama3-405b", "--set", "fabric.job_gpus=8")
    assert small["checkpoint_write_bytes_per_s"] == small["checkpoint_read_bytes_per_s"] == 8 * 12.5e9
    code, out, _ = run(capsys, "reliability", "dgx-h100", "--model", "llama3-405b", "--set", "fabric.job_gpus=8")
    assert code == 0 and "checkpoint write / read bandwidth (the job's storage ports)" in out
    assert small["pause_s"] == pytest.approx(small["checkpoint_bytes"] / (8 * 12.5e9), rel=1e-12)
    assert small["read_s"] == pytest.approx(small["checkpoint_bytes"] / (8 * 12.5e9), rel=1e-12)
    large = reliability(capsys, "dgx-h100", "--model", "llama3-405b")
    assert large["pause_s"] == pytest.approx(large["checkpoint_bytes"] / 2e12, rel=1e-12)
    assert large["read_s"] == pytest.approx(large["checkpoint_bytes"] / 7e12, rel=1e-12)
    wide = reliability(capsys, "dgx-h100", "--model", "llama3-405b", "--set", "fabric.job_gpus=8", "--set",
                       "reliability.storage_port_bandwidth=1 TB/s")
    assert wide["pause_s"] == pytest.approx(large["pause_s"], rel=1e-12)  # 8 TB/s of ports: the storage binds


def test_an_asynchronous_interval_shorter_than_the_write_is_raised_and_said(capsys):
    """A user's checkpoint_interval of 1 min under a 568 s asynchronous write (5.68 TB at 10 GB/s): the interval
    becomes the write, and both `reliability` (JSON `notes`, a footer line) and `speedup` (a row note) say so."""
    args = ("llama3-24k", "--model", "llama3-405b", "--set", "fabric.job_gpus=16384", "--set",
            "reliability.checkpoint_write=asynchronous", "--set", "reliability.storage_write_bandwidth=10 GB/s",
            "--set", "reliability.checkpoint_interval=1 min")
    data = reliability(capsys, *args)
    write_min = data["checkpoint_bytes"] / 10e9 / 60
    assert data["checkpoint_interval_s"] == pytest.approx(60 * write_min, rel=1e-9)
    [note] = data["notes"]
    assert "checkpoint_interval = 1 min is shorter than the asynchronous write" in note
    assert f"{write_min:.3g} min" in note
    code, out, err = run(capsys, "reliability", *args)
    assert code == 0 and "note: [reliability] checkpoint_interval = 1 min" in out, err
    code, out, err = run(capsys, "speedup", *args, "--baseline", "dgx-h100", "-f", "json")
    assert code == 0, err
    assert note in json.loads(out)["rows"][0]["notes"]
    kept = reliability(capsys, *args[:-1], "reliability.checkpoint_interval=60 min")
    assert kept["notes"] == [] and kept["checkpoint_interval_s"] == pytest.approx(3600.0)


def test_reliability_says_whether_the_fabric_is_feasible_in_its_json(capsys):
    """An infeasible design's reliability budget is its parts' alone: the JSON says so (`feasible`, `violations`,
    as `check` finds them), the command exits 0 as budget and cost do."""
    code, out, err = run(capsys, "reliability", "--set", "laser.power_per_line=0.1 mW", "-f", "json")
    data = json.loads(out)
    assert code == 0 and data["feasible"] is False, err
    assert "power_budget" in {v["name"] for v in data["violations"]}
    for row in data["sensitivity"]:  # not priced: no goodput per $, the swing ETTR's alone
        assert row["goodput_per_dollar_low"] is None and row["goodput_per_dollar_high"] is None
        assert row["swing"] == pytest.approx(abs(row["ettr_high"] - row["ettr_low"]))
    code, out, _ = run(capsys, "reliability", "-f", "json")
    assert json.loads(out)["feasible"] is True and json.loads(out)["violations"] == []


def test_a_torus_cube_s_optics_take_the_cube_out_and_its_switch_path_rides_through(capsys):
    """reliability.md Y16, torus of cubes: "chip, host or optics in a cube" takes that cube out (the job restarts on
    a slice rebuilt from healthy cubes); "one OCS" is re-routed or runs degraded. A link-end's chiplet and laser
    lines stop the job as its copper links do; the fibre and the OCS port do not."""
    data = reliability(capsys, "ocs-torus-v4", "--set", "fabric.job_gpus=2048")
    parts = {l["component"]: l for l in data["lines"] if l["recovery"] != "in place"}  # software restarts in place
    for key in ("sip.optical_io_chiplet", "laser.comb_line", "cable.ici_copper", "gpu.h100_sxm5"):
        assert parts[key]["interrupts"] == 1 and parts[key]["recovery"] == "spare", key
    for key in ("ocs.palomar_136", "cable.fiber_patch"):
        assert parts[key]["interrupts"] == 0 and parts[key]["restart_s"] is None, key
    assert math.isclose(data["interruptions_per_day"], sum(l["interruptions_per_day"] for l in data["lines"]),
                        rel_tol=1e-9)


def _blocked(spares: int, loads: dict) -> dict:
    """Each class's blocking in a loss system of `spares` units, class b (holding b units) offered loads[b]: the
    product form P(n) ∝ Π a_b^n_b / n_b! over the states that fit, summed over the states where b more do not."""
    import itertools

    sizes = sorted(loads)
    states = [n for n in itertools.product(*(range(spares // b + 1) for b in sizes))
              if sum(k * b for k, b in zip(n, sizes)) <= spares]
    weight = {n: math.prod(loads[b] ** k / math.factorial(k) for k, b in zip(n, sizes)) for n in states}
    total = sum(weight.values())
    return {b: sum(w for n, w in weight.items() if sum(k * c for k, c in zip(n, sizes)) > spares - b) / total
            for b in sizes}


@pytest.mark.parametrize("spares", [1, 4, 8, 16])
def test_a_pool_of_hot_spares_covers_failures_while_enough_are_free(capsys, spares):
    """Llama 3 405B on 16,384 GPUs: the failures hot spares take over arrive at λ (the 'spare' lines), each holding
    its spares for [reliability] spare_repair_time T_r (24 h): one for a GPU's part, a host's 8 GPUs for a host's.
    The share that finds enough free is the loss system's (the product form, counted state by state); each of
    those swaps in, the rest is rescheduled — so one spare buys little (it bought the whole benefit) and spares
    beyond the load buy nothing more."""
    argv = ("dgx-h100", "-m", "llama3-405b", "--set", "fabric.gpus=16384")
    data = reliability(capsys, *argv, "--set", f"reliability.spare_gpus={spares}")
    spared = [l for l in data["lines"] if l["recovery"] == "spare"]
    assert {l["component"].split(".")[0] for l in spared} >= {"gpu", "server", "nic", "transceiver"}
    size = {id(l): 8 if l["component"].startswith("server.") else 1 for l in spared}
    loads = {b: sum(l["interruptions_per_day"] for l in spared if size[id(l)] == b) for b in (1, 8)}  # × 1 day
    blocked = _blocked(spares, loads)
    covered = {b: 1 - blocked[b] for b in loads}
    assert data["spare_coverage"] == pytest.approx(sum(loads[b] * covered[b] for b in loads) / sum(loads.values()),
                                                   rel=1e-9)
    read = data["read_s"]
    for line in spared:
        c = covered[size[id(line)]]
        assert line["restart_s"] == pytest.approx(120 + c * 60 + (1 - c) * 180 + 120 + read, rel=1e-9)
    if spares < 8:
        assert covered[8] == 0  # a host's failure needs its 8 GPUs' spares
    plain = reliability(capsys, *argv)
    full = reliability(capsys, *argv, "--set", "reliability.spare_gpus=64")  # far beyond the load: all but covered
    assert full["spare_coverage"] == pytest.approx(1, abs=1e-4) and plain["ettr"] < data["ettr"] < full["ettr"]
    gain = (data["ettr"] - plain["ettr"]) / (full["ettr"] - plain["ettr"])
    assert gain == pytest.approx(data["spare_coverage"], abs=0.03)  # the benefit in proportion to what is covered
    if spares == 1:
        assert gain < 0.25


@pytest.mark.parametrize("design", ["sip-ring", "ocs-torus-v4"])
def test_hot_spare_gpus_are_refused_where_a_gpu_cannot_be_replaced_by_one(capsys, design):
    """A SiP-Ring GPU is a node of the fiber ring (no bypass); a torus failure takes its whole cube out (the pod's
    spare cubes replace it): hot-spare GPUs there are refused, with the reason, not priced as if they helped."""
    code, _, err = run(capsys, "reliability", design, "--set", "reliability.spare_gpus=8")
    assert code == 2 and "spare_gpus = 8" in err and ("bypass" in err or "cube" in err) and err.count("\n") == 1


@pytest.mark.parametrize(("bandwidth", "bytes_per_s"), [("1 GB/s", 1e9), ("20 GB/s", 20e9), ("2 TB/s", 2e12)])
def test_an_asynchronous_checkpoint_is_safe_only_once_written(capsys, bandwidth, bytes_per_s):
    """Asynchronous checkpoints: training pauses for the copy to host memory, the write W goes on behind it and a
    failure before it ends goes back to the checkpoint before. A Poisson simulation of that schedule — failures
    also during restarts, each cycle keeping the checkpoints whose write ended before the failure — gives the
    command's ETTR (a million failures; a planned stop, after a checkpoint, waits for its write: its restart is the
    start-up, the read and W)."""
    import numpy as np

    data = reliability(capsys, "dgx-h100", "-m", "llama3-405b", "--set", "fabric.gpus=16384", "--set",
                       "reliability.checkpoint_write=asynchronous", "--set",
                       f"reliability.storage_write_bandwidth={bandwidth}")
    m, r, tau, delta = data["job_mtti_s"], data["restart_s"], data["checkpoint_interval_s"], data["pause_s"]
    write = data["checkpoint_bytes"] / bytes_per_s
    assert data["rework_s"] == pytest.approx(write, rel=1e-12) and tau >= write
    clock = np.random.default_rng(7).exponential(m, 1_000_000)  # from each restart's start to the next failure
    running = clock - r
    kept = np.where(running >= write, np.floor((running - write) / (tau + delta)), 0.0)  # checkpoints written
    planned = 1 + data["planned_per_day"] / 86400 * (120 + data["read_s"] + write)  # once its checkpoint is written
    ettr = kept.sum() * tau / clock.sum() / planned
    assert data["ettr"] == pytest.approx(ettr, rel=0.01)


def test_a_ring_rides_through_one_fiber_s_parts_and_stops_with_one_fiber(capsys):
    """SiP-Ring: an amplifier, the comb source of one fiber's lines or one patch cable cuts one of the node's 10
    fibers: the ring's others carry the job, which rides through (as SiP-OCS rides through one port); on a ring of
    one fiber the same parts stop it. The GPU's own chiplet stops it either way. Its [assumed] rates that stop the
    job each get a row in the sensitivity."""
    per_fiber = ("laser.comb_line", "amplifier.soa", "cable.fiber_patch")
    ten = reliability(capsys, "sip-ring")
    one = reliability(capsys, "sip-ring", "--set", "link.fibers_per_direction=1", "--set", "sip_ring.directions=1")
    for data, stops in ((ten, 0.0), (one, 1.0)):
        parts = {l["component"]: l for l in data["lines"]}
        assert all(parts[k]["interrupts"] == stops and (parts[k]["interruptions_per_day"] > 0) == bool(stops)
                   for k in per_fiber)
        assert parts["sip.optical_io_chiplet"]["interrupts"] == 1.0
    assert any(r["assumption"].startswith("silicon-photonic optical I/O chiplet MTBF") for r in ten["sensitivity"])
    assert any(r["assumption"].startswith("optical amplifier (SOA, PDFA) MTBF") for r in one["sensitivity"])


@pytest.mark.parametrize("design", ["fattree-200", "dgx-h100", "cpo-800g"])
def test_a_hot_spare_comes_with_its_own_link(capsys, design):
    """What stops the job on one GPU's link — its NIC and module, the cable, the leaf's module or laser facing it —
    is swapped with a hot-spare GPU, which comes with a link of its own (fattree-200's modules at both ends were
    rescheduled); a leaf switch or a co-packaged engine, which takes its switch, is not."""
    data = reliability(capsys, design, "-m", "llama3-405b", "--set", "reliability.spare_gpus=8")
    recovery = {l["component"].split(".")[0]: l["recovery"] for l in data["lines"] if l["interrupts"] > 0}
    assert recovery["nic"] == recovery["transceiver"] == recovery["cable"] == "spare"
    assert recovery["switch"] == "restart" and recovery.get("cpo", "restart") == "restart"
    assert any(r["assumption"].startswith("hot spares' repair time") for r in data["sensitivity"])


def test_an_axis_that_gives_a_set_key_its_effect_sweeps_in_either_order(capsys):
    """`--vary reliability.checkpoint_write=synchronous,asynchronous --set reliability.host_copy_bandwidth=10GB/s`:
    the copy's bandwidth has an effect when asynchronous, so the sweep runs whichever value comes first (it was
    refused with synchronous first), the synchronous row saying why; hot spares on the torus are refused before any
    row, its reason named."""
    rows = []
    for values in ("synchronous,asynchronous", "asynchronous,synchronous"):
        code, out, err = run(capsys, "sweep", "dgx-h100", "--vary", f"reliability.checkpoint_write={values}", "--set",
                             "reliability.host_copy_bandwidth=10GB/s", "-f", "jsonl")
        assert code == 0, err
        rows.append(sorted(out.splitlines()))
    assert rows[0] == rows[1] and sum('"error": ""' in line for line in rows[0]) == 1
    code, _, err = run(capsys, "sweep", "ocs-torus-v4", "-m", "gpt2-355m", "--set", "reliability.spare_gpus=8",
                       "--vary", "fabric.gpus=4096", "-f", "jsonl")
    assert code == 2 and "spare_gpus = 8: on ocs-torus" in err and err.count("\n") == 1


@pytest.mark.parametrize(("job_gpus", "spare_cubes"), [(2048, 32), (3968, 2), (4032, 1)])
def test_a_pod_s_spare_cubes_are_a_pool(capsys, job_gpus, spare_cubes):
    """OCS torus v4 (64 cubes of 64 chips): the cubes beyond the job's slice are its spares, each wired in for a
    failed cube until that is repaired (spare_repair_time, 24 h): the share of cube failures that find one free is
    Erlang's 1 − B(spares, λ·T_r); the rest are rescheduled — with one spare cube most are (it never ran out)."""
    data = reliability(capsys, "ocs-torus-v4", "--set", f"fabric.job_gpus={job_gpus}")
    cube = [l for l in data["lines"] if l["recovery"] == "spare"]
    offered = sum(l["interruptions_per_day"] for l in cube)  # × 1 day
    blocked = _blocked(spare_cubes, {1: offered})[1]
    assert data["spare_coverage"] == pytest.approx(1 - blocked, rel=1e-9)
    for line in cube:
        c = 1 - blocked
        assert line["restart_s"] == pytest.approx(120 + c * 10 + (1 - c) * 180 + 120 + data["read_s"], rel=1e-9)
    if spare_cubes == 1:
        assert data["spare_coverage"] < 0.5


def test_hot_spares_are_powered_in_goodput_per_watt(capsys):
    """64 hot spares beside 1,024 GPUs: goodput per watt counts their nameplate share as goodput per dollar counts
    their price (the baseline has none): (goodput speedup / speedup) × speedup per W × 1,024 / 1,088."""
    code, out, err = run(capsys, "speedup", "dgx-h100", "-m", "gpt2-355m", "--set", "reliability.spare_gpus=64",
                         "-f", "json")
    assert code == 0, err
    [row] = json.loads(out)["rows"]
    assert row["goodput_speedup_per_watt"] == pytest.approx(
        row["goodput_speedup"] / row["speedup"] * row["speedup_per_watt"] * 1024 / 1088, rel=1e-12)
    assert row["goodput_energy_kwh"] == pytest.approx(row["energy_kwh"] / row["ettr"] * 1088 / 1024, rel=1e-12)


def test_reliability_reads_a_users_catalog(capsys, tmp_path):
    """`sipml reliability --catalog FILE`: a GPU a catalog file adds gets its reliability budget, its price in the
    goodput per $ (it ran in `speedup`'s goodput table but had no budget of its own)."""
    extra = tmp_path / "extra.toml"
    extra.write_text('[gpu.b300]\ndescription = "B300"\nunit = "GPU"\nrole = "compute"\nprice_low = "40000 USD"\n'
                     'price_typical = "45000 USD"\nprice_high = "50000 USD"\npower = "1200 W"\nsource = "a quote"\n'
                     'date = "2026"\ntag = "[assumed]"\nnotes = "[assumed] a quote"\n')
    sets = ["--set", "fabric.gpu=gpu.b300", "--set", "fabric.host=server.dgx_b200_host"]
    code, _, err = run(capsys, "reliability", *sets)
    assert code == 2 and "no catalog entry 'gpu.b300'" in err
    data = reliability(capsys, *sets, "--catalog", str(extra))
    assert any(line["component"] == "gpu.b300" for line in data["lines"]) and 0 < data["ettr"] < 1
    import sipml  # the Python API takes the same file to the same JSON

    job = sipml.reliability("sip-ring", "gpt3-175b", {"fabric.gpu": "gpu.b300", "fabric.host": "server.dgx_b200_host"},
                            catalog_files=[extra])
    assert job.to_dict() == data


def test_the_baselines_run_the_job_as_the_design_does(capsys):
    """A checkpoint policy is how a job is run, not what is bought: `--set reliability.…` reaches the baselines as the
    GPU does (the goodput speedup compared the design's asynchronous 2 s checkpoints with the baselines' defaults);
    the same as giving each baseline the settings itself, and not their hot spares."""
    job = ["speedup", "cpo-800g", "-m", "gpt2-355m", "--gpus", "64", "--baseline", "fattree-200", "-f", "json"]
    policy = ["reliability.checkpoint_write=asynchronous", "reliability.checkpoint_interval=2 s"]

    def versus(*sets):
        code, out, err = run(capsys, *job, *(f for s in sets for f in ("--set", s)))
        assert code == 0, err
        row = json.loads(out)["rows"][0]
        return row["baselines"]["fattree-200"], row["ettr"]

    def baseline_ettr(sets) -> float:  # goodput speedup = speedup × the design's ETTR / the baseline's
        b, ettr = versus(*sets)
        return ettr * b["speedup"] / b["goodput_speedup"]

    assert versus(*policy) == versus(*policy, *(f"fattree-200:{s}" for s in policy))
    assert baseline_ettr(policy) != pytest.approx(baseline_ettr([]), rel=1e-9)
    assert baseline_ettr(["reliability.spare_gpus=8"]) == pytest.approx(baseline_ettr([]), rel=1e-12)  # the
    # design's hot spares are its purchase alone


def test_a_sweep_over_a_reliability_key_measures_each_point_against_its_own_baseline(capsys, tmp_path):
    """The saved baseline of a sweep is keyed on how its job is run: a sweep over checkpoint_write gives each point
    `speedup`'s goodput speedup for that setting, whichever order the values come in (it reused the first point's
    baseline); a baseline keeps a reliability key it sets itself and takes the design's others."""
    def speedup_at(*sets):
        code, out, err = run(capsys, "speedup", "cpo-800g", "-m", "gpt2-355m", "--baseline", "fattree-200",
                             *(f for s in sets for f in ("--set", s)), "-f", "json")
        assert code == 0, err
        return json.loads(out)["rows"][0]["baselines"]["fattree-200"]["goodput_speedup"]

    expected = {mode: speedup_at(f"reliability.checkpoint_write={mode}") for mode in ("asynchronous", "synchronous")}
    assert expected["asynchronous"] != expected["synchronous"]
    for order in ("asynchronous,synchronous", "synchronous,asynchronous"):
        code, out, err = run(capsys, "sweep", "cpo-800g", "--vary", f"reliability.checkpoint_write={order}", "-m",
                             "gpt2-355m", "-q", "-f", "jsonl")
        assert code == 0, err
        for row in map(json.loads, out.splitlines()):
            assert row["goodput_speedup"] == pytest.approx(expected[row["reliability.checkpoint_write"]], rel=1e-12)
    # a key the baseline sets itself is kept; the design's other settings still reach it
    mixed = speedup_at("reliability.checkpoint_write=asynchronous", "fattree-200:reliability.startup_time=120 s")
    assert mixed == pytest.approx(expected["asynchronous"], rel=1e-12)


def test_the_job_table_gives_each_duration_in_the_unit_that_reads_it(capsys):
    """64 GPUs write GPT-3's 2.44 TB through their ports at 800 GB/s: the asynchronous write redone after a failure
    is 3.06 s, printed so (it read '0.0509 min'); the interval and restart stay in minutes."""
    code, out, err = run(capsys, "reliability", "dgx-h100", "--set", "fabric.job_gpus=64", "--set",
                         "reliability.checkpoint_write=asynchronous")
    assert code == 0, err
    rows = {line.rsplit("  ", 2)[0].strip(): line.split()[-2:] for line in out.splitlines() if "  " in line}
    redone = next(v for k, v in rows.items() if k.startswith("work redone per failure"))
    assert redone == ["3.06", "s"]
    assert next(v for k, v in rows.items() if k.startswith("checkpoint interval"))[1] == "min"


def test_the_hot_spares_row_moves_around_the_designs_own_count(capsys):
    """A design with 64 hot spares: its sensitivity row steps to none and 128 (it stepped to none and 8, both
    below the design, and named them so); a design with none steps to 8."""
    data = reliability(capsys, "dgx-h100", "--set", "reliability.spare_gpus=64")
    [row] = [r for r in data["sensitivity"] if r["assumption"].startswith("hot spares for the job")]
    assert row["assumption"] == "hot spares for the job (none / 128; 64 as designed)"
    assert row["goodput_per_dollar_low"] != row["goodput_per_dollar_high"]
    data = reliability(capsys, "dgx-h100")
    assert any(r["assumption"] == "a spare for the job (none / 8 hot spares)" for r in data["sensitivity"])


def test_a_catalog_file_lays_failure_causes_over_the_shipped_rates(capsys, tmp_path):
    """`[cause.NAME]` in a catalog file: a shipped cause's MTBF halved doubles its line's interruptions (the change
    said on stderr, the source saying which file made it), speedup's goodput moves with it; a new cause (an NVSwitch
    tray's, which the shipped rates leave out) adds a line; an unknown key, a bad MTBF or a new cause missing keys is
    refused in one line (exit 2). (A `[cause.…]` table was refused as a catalog entry without a price.)"""
    shipped = reliability(capsys, "dgx-h100")
    faulty = next(line for line in shipped["lines"] if line["cause"] == "faulty GPU")
    rates = tmp_path / "rates.toml"
    rates.write_text(f'[cause.gpu_faulty]\nmtbf = "{faulty["mtbf_s"] / 2 / 3600:.6f} h"\n\n'
                     '[cause.nvswitch_tray]\nwhat = "NVSwitch"\napplies = ["nvswitch."]\nmtbf = "2000000 h"\n'
                     'source = "a test"\ntag = "[assumed]"\n')
    code, out, err = run(capsys, "reliability", "dgx-h100", "--catalog", str(rates), "-f", "json")
    assert code == 0 and f"{rates}: [cause.gpu_faulty] mtbf" in err, err
    mine = json.loads(out)
    halved = next(line for line in mine["lines"] if line["cause"] == "faulty GPU")
    assert halved["interruptions_per_day"] == pytest.approx(2 * faulty["interruptions_per_day"], rel=1e-5)
    assert halved["source"].endswith(f"MTBF overridden in {rates}")
    assert any(line["component"].startswith("nvswitch.") and line["cause"] == "NVSwitch" for line in mine["lines"])
    assert mine["ettr"] < shipped["ettr"]
    code, out, err = run(capsys, "speedup", "dgx-h100", "-m", "gpt2-355m", "--catalog", str(rates), "-f", "json")
    assert code == 0 and json.loads(out)["rows"][0]["ettr"] < json.loads(run(
        capsys, "speedup", "dgx-h100", "-m", "gpt2-355m", "-f", "json")[1])["rows"][0]["ettr"]
    for text, said in (('[cause.gpu_faulty]\nwho = "x"\n', "unknown key 'who'"),
                       ('[cause.gpu_faulty]\nmtbf = "-3 h"\n', "expected a time above zero"),
                       ('[cause.new_one]\nmtbf = "3 h"\n', "a new cause needs what, applies, source, tag"),
                       ('[cause.switch]\napplies = []\n', "applies = []: names no part"),
                       ('[cause.switch]\napplies = ["widget."]\n', "'widget.' begins no catalog entry"),
                       ('[cause.gpu_faulty]\nreading = "percentagez"\n', "expected one of '', 'counts', "),
                       ('[cause.gpu_faulty]\ntag = "[guess]"\n', "tag = '[guess]': expected one of")):
        rates.write_text(text)
        code, _, err = run(capsys, "reliability", "dgx-h100", "--catalog", str(rates))
        assert code == 2 and said in err and err.count("sipml: error") == 1, err


def test_each_change_a_cause_file_makes_is_said_and_a_restated_mtbf_keeps_the_percentages_reading(capsys, tmp_path):
    """Every key a `[cause.NAME]` changes is said (only the MTBF and tag were); restating a cause's own MTBF
    changes nothing (it dropped the percentages reading's MTBF, moving that reading's ETTR); files apply in the
    order given, a file given again last winning; the GPU hardware sensitivity row scales both readings' MTBFs."""
    same, other = tmp_path / "same.toml", tmp_path / "other.toml"
    faulty = next(line for line in reliability(capsys, "dgx-h100")["lines"] if line["cause"] == "faulty GPU")
    same.write_text(f'[cause.gpu_faulty]\nmtbf = "{faulty["mtbf_s"] / 3600:.17g} h"\n\n[cause.switch]\n'
                    'what = "a switch"\n')
    reading = ["--set", "reliability.table5_reading=percentages"]
    code, out, err = run(capsys, "reliability", "dgx-h100", *reading, "--catalog", str(same), "-f", "json")
    assert code == 0 and "[cause.switch] what = 'a switch' (was 'packet switch')" in err and "mtbf" not in err, err
    assert json.loads(out)["ettr"] == reliability(capsys, "dgx-h100", *reading)["ettr"]
    other.write_text('[cause.gpu_faulty]\nmtbf = "50000 h"\n')
    own = faulty["mtbf_s"] / 3600
    for files, hours in (([same, other], 50000), ([other, same], own), ([other, same, other], 50000),
                         ([same, other, same], own)):
        args = [a for f in files for a in ("--catalog", str(f))]
        line = next(x for x in reliability(capsys, "dgx-h100", *args)["lines"] if x["cause"] == "faulty GPU")
        assert line["mtbf_s"] == pytest.approx(hours * 3600)
    rows = {r["assumption"][:20]: r for r in reliability(capsys, "dgx-h100", *reading)["sensitivity"]}
    gpu = rows["GPU hardware MTBFs ("]
    shipped = reliability(capsys, "dgx-h100", *reading)["ettr"]
    assert gpu["ettr_low"] < shipped < gpu["ettr_high"]
    data = reliability(capsys, "dgx-h100", "--set", "reliability.spare_gpus=600")  # twice is past the job's 1 024
    assert any(r["assumption"] == "hot spares for the job (none / 1024; 600 as designed)" for r in data["sensitivity"])
