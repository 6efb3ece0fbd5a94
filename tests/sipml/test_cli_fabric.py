"""`sipml fabric`, `sipml cost` and `sipml check` on cluster designs, end to end."""

import json

import pytest

from sipml.cli import main

COST_KEYS = {"fabric", "gpus", "per_gpu_bandwidth_gbps", "degree", "bisection_gbps", "network_cost_usd_per_gpu",
             "network_power_w_per_gpu", "cluster_cost_usd", "cluster_power_w", "breakdown"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cost_json_has_the_documented_keys_for_every_builtin(capsys):
    code, out, _ = run(capsys, "cost", "-f", "json")
    assert code == 0
    designs = json.loads(out)["designs"]
    names = ["sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "ideal"]
    assert [d["design"] for d in designs] == names
    _, shown, _ = run(capsys, "cost", "--help")  # the help names the designs compared when none is named
    assert f"(default:{','.join(names)})" in "".join(shown.split())
    for d in designs:
        assert COST_KEYS <= d.keys()
        total_share = sum(b["cost_share"] for b in d["breakdown"])
        assert total_share == pytest.approx(1.0)
        # per-GPU network cost is the network lines' per-GPU costs summed
        net = sum(b["cost_usd_per_gpu"][1] for b in d["breakdown"] if b["network"])
        if d["design"] == "ideal":  # a reference switch: no network line, and its network not costed (null)
            assert net == 0 and d["network_cost_usd_per_gpu"] is None and d["network_cost_share"] is None
        else:
            assert d["network_cost_usd_per_gpu"] == pytest.approx(net)
        assert d["cluster_cost_usd"] == pytest.approx(d["gpus"] * sum(b["cost_usd_per_gpu"][1] for b in d["breakdown"]))


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_cost_formats(capsys, fmt):
    code, out, _ = run(capsys, "cost", "sip-ring", "dgx-a100", "-f", fmt)
    assert code == 0 and "sip-ring" in out and "dgx-a100" in out and "network cost per GPU" in out


def test_cost_csv_is_one_raw_value_per_row(capsys):
    import csv
    import io

    code, out, _ = run(capsys, "cost", "sip-ring", "dgx-a100", "-f", "csv-long")  # `csv` is one row per design
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and rows[0] == ["key", "value"] and all(len(r) == 2 for r in rows)
    values = dict(rows[1:])
    _, js, _ = run(capsys, "cost", "sip-ring", "dgx-a100", "-f", "json")
    data = json.loads(js)["designs"]
    assert float(values["designs.1.network_cost_usd_per_gpu"]) == pytest.approx(data[1]["network_cost_usd_per_gpu"])
    assert values["designs.0.design"] == "sip-ring"


def test_cost_with_a_user_catalog_override(capsys, tmp_path):
    override = tmp_path / "prices.toml"
    override.write_text('[amplifier.soa]\nprice_typical = "100 USD"\nprice_low = "50 USD"\n')
    _, before, _ = run(capsys, "cost", "sip-ring", "-f", "json")
    code, after, err = run(capsys, "cost", "sip-ring", "-f", "json", "--catalog", str(override))
    assert code == 0 and "amplifier.soa" in err
    b, a = json.loads(before)["designs"][0], json.loads(after)["designs"][0]
    assert b["network_cost_usd_per_gpu"] - a["network_cost_usd_per_gpu"] == pytest.approx(10 * (500 - 100))


def test_cost_missing_catalog_entry_is_exit_2(capsys, tmp_path):
    design = tmp_path / "d.toml"
    design.write_text('[fabric]\nkind = "sip-ring"\ngpu = "gpu.b200"\n')
    code, _, err = run(capsys, "cost", str(design))
    assert code == 2 and "gpu.b200" in err


def test_fabric_ring_json(capsys):
    code, out, _ = run(capsys, "fabric", "sip-ring", "-f", "json", "--message-size", "100 MB")
    data = json.loads(out)
    assert code == 0
    assert data["useful_time_fraction"] == 1.0  # the static allocation's times are shown: no periodic retune
    assert data["figures"]["optical reach"]["value"] >= 16
    assert set(data["collective_times_s"]) == {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p"}
    # 100 MB over the 1024-GPU ring, one direction's capacity C = 1 Tbps (static allocation), 3.4 µs per step,
    # 8.4 µs launch, each ring's steps pipelined: max(Σα, transfer) + min(α, transfer/steps).
    # Flat (the whole ring closes: 2C per rank): 2·(1023/1024)·8e8/2C = 0.8 ms against 2046 steps = 7.0 ms. Two levels:
    # lines of h (the reach) at C, then rings of g = ⌈1024/h⌉ GPUs h apart at 2C/h, each ring its own pipeline:
    # ≈ 1.9 ms, the faster, so it is reported (each step also pays its hops' fiber and chiplet delay).
    c, hop = 1e12, 2 * 4.896e-9 + 10e-9
    h = int(data["figures"]["optical reach"]["value"])
    g = -(-1024 // h)

    def pipe(latency, transfer, steps, alpha):
        return max(latency, transfer) + min(alpha, transfer / steps)

    a, a_in, a_out = 3.4e-6 + hop, 3.4e-6 + (h - 1) * hop, 3.4e-6 + h * hop
    flat = pipe(2046 * a, 2 * 1023 / 1024 * 8e8 / (2 * c), 2046, a)
    two = (pipe(2 * (h - 1) * a_in, 2 * (h - 1) / h * 8e8 / c, 2 * (h - 1), a_in)
           + pipe(2 * (g - 1) * a_out, 2 * (g - 1) / g * (8e8 / h) / (2 * c / h), 2 * (g - 1), a_out))
    assert data["collective_times_s"]["all_reduce"] == pytest.approx(8.4e-6 + min(flat, two), rel=1e-4)
    assert data["collective_algorithms"]["all_reduce"] == "two-level ring"


def test_fabric_infeasible_ring_exits_1(capsys):
    code, out, _ = run(capsys, "fabric", "sip-ring", "--set", "sip_ring.amplifier_every=0")
    assert code == 1 and "ring_reach" in out


def test_check_covers_the_fabric(capsys):
    assert run(capsys, "check", "sip-ocs")[0] == 0
    assert run(capsys, "check", "sip-ocs-384")[0] == 0
    code, out, _ = run(capsys, "check", "sip-ocs-384", "--set", "sip_ocs.topology=single")
    assert code == 1 and "ocs_radix" in out
    code, out, _ = run(capsys, "check", "sip-ocs-384", "--set", "sip_ocs.topology=partitioned")
    assert code == 1 and "pod_size" in out
    assert run(capsys, "check", "sip-ocs-384", "--set", "sip_ocs.topology=partitioned",
               "--set", "fabric.job_gpus=256")[0] == 0


def test_budget_of_an_ocs_design_includes_the_switch(capsys):
    code, out, _ = run(capsys, "budget", "sip-ocs", "-f", "json")
    rows = {r["name"]: r for r in json.loads(out)["ledger"]}
    # one pass: a 2 dB port and two 0.5 dB patch connectors
    assert code == 0 and rows["optical-switch passes"]["value"] == pytest.approx(-3.0)


def test_budget_of_an_electrical_design_is_refused(capsys):
    code, _, err = run(capsys, "budget", "dgx-a100")
    assert code == 2 and "no optical link" in err


def test_section_that_does_not_apply(capsys, tmp_path):
    design = tmp_path / "d.toml"
    design.write_text('[fabric]\nkind = "sip-ring"\n[sip_ocs]\nswitches = 4\n')
    code, _, err = run(capsys, "check", str(design))
    assert code == 2 and "does not apply" in err and str(design) in err


def test_unknown_builtin_name(capsys):
    code, _, err = run(capsys, "fabric", "sip-rng")
    assert code == 2 and "did you mean 'sip-ring'" in err


def test_bad_message_size(capsys):
    code, _, err = run(capsys, "fabric", "sip-ring", "--message-size", "100 GHz")
    assert code == 2 and "--message-size" in err


def test_a_design_that_cannot_be_built_gets_no_price(capsys):
    """sip-ocs at 4 096 GPUs needs 4 096-port switches for its one layer: infeasible, so no network cost, no cluster
    total (JSON null, '–' in the table, no breakdown), while the feasible dgx-h100 beside it is priced."""
    code, out, _ = run(capsys, "cost", "sip-ocs", "dgx-h100", "--set", "fabric.gpus=4096", "-f", "json")
    ocs, dgx = json.loads(out)["designs"]
    assert code == 0 and not ocs["feasible"] and dgx["feasible"]
    for key in ("network_cost_usd_per_gpu", "cluster_cost_usd", "cluster_power_w", "breakdown"):
        assert ocs[key] is None and dgx[key] is not None
    code, out, _ = run(capsys, "cost", "sip-ocs", "dgx-h100", "--set", "fabric.gpus=4096")
    cost_row = next(line for line in out.splitlines() if line.startswith("network cost per GPU"))
    assert cost_row.split()[-2:] == ["–", "8,801"]
    assert "Breakdown per GPU: sip-ocs" not in out and "sip-ocs: not priced" in out


def test_set_can_change_one_design_of_a_comparison(capsys):
    """`--set DESIGN:section.key=value` changes that design alone: the fix a violation suggests can be tried in the
    same comparison; a scope that names no design compared is refused (exit 2, with a suggestion)."""
    code, out, _ = run(capsys, "cost", "sip-ocs", "dgx-h100", "--set", "fabric.gpus=4096", "--set",
                       "sip-ocs:sip_ocs.topology=partitioned", "--set", "sip-ocs:fabric.job_gpus=1024", "-f", "json")
    ocs, dgx = json.loads(out)["designs"]
    assert code == 0 and ocs["feasible"] and ocs["network_cost_usd_per_gpu"] > 0
    assert any("4 independent pods" in n for n in ocs["notes"])
    code, _, err = run(capsys, "cost", "sip-ocs", "dgx-h100", "--set", "sip-oc:sip_ocs.topology=clos")
    assert code == 2 and "did you mean 'sip-ocs'" in err
    code, out, _ = run(capsys, "speedup", "sip-ocs", "-m", "gpt2-355m", "--baseline", "fattree-200", "--set",
                       "fattree-200:electrical.nic_bandwidth=400 Gbit/s", "--set",
                       "fattree-200:electrical.switch_port_rate=400 Gbit/s", "-f", "json")
    assert code == 0 and json.loads(out)["rows"][0]["per_gpu_bandwidth_gbps"] == 2000


def test_cost_says_not_costed_for_a_reference_switch_as_the_report_does(capsys):
    """`cost ideal` showed a network of 0 USD (range 0 – 0), where `report` says 'not costed' (its JSON 0.0, where
    it is null now, the API's None, explain's refusal); the share outside the servers sits under the network's share
    (it sat under the GPU's)."""
    import sipml

    money = sipml.cost("ideal")
    assert money.network_cost_per_gpu_usd is None and money.cluster_cost_usd.typical > 0
    code, _, err = run(capsys, "explain", "network_cost_usd_per_gpu", "ideal")
    assert code == 2 and "its network is not costed" in err
    code, out, _ = run(capsys, "cost", "ideal", "sip-ring")
    assert code == 0
    rows = {line.strip().split("  ")[0]: line for line in out.splitlines() if line.strip()}
    assert "not costed" in rows["network cost per GPU"] and "not costed" in rows["network share of cost"]
    assert "not costed" not in rows["GPU share of cost"] and "10,260" in rows["network cost per GPU"]
    lines = out.splitlines()
    assert lines.index(rows["outside the servers"]) == lines.index(rows["network share of cost"]) + 1


def test_fabric_json_carries_the_busbw_the_table_shows(capsys):
    """The table's busbw column was in no JSON key; the Q an amplified ring needs sat in another figure's unit."""
    code, out, _ = run(capsys, "fabric", "sip-ring", "-f", "json")
    data = json.loads(out)
    code, table, _ = run(capsys, "fabric", "sip-ring")
    busbw = data["collective_busbw_gbps"]
    assert busbw["p2p"] is None and set(busbw) == set(data["collective_times_s"])
    for op in ("all_reduce", "all_to_all"):
        row = next(line for line in table.splitlines() if line.startswith(op + " "))
        assert f"{busbw[op]:.4g}" in row.split()
    assert data["figures"]["Q needed"]["unit"] == "" and data["figures"]["Q needed"]["value"] > 0
