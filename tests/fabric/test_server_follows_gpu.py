"""The server a GPU ships in: `[fabric] host = "gpu"` (the default) prices each GPU with its own server's share, so
a design moved to another GPU with `--set fabric.gpu=…` no longer keeps the old GPU's host; a host given by name
is kept; pricing a GPU the calculator knows no server for is refused, saying how to give one. Through `sipml
cost`."""

from __future__ import annotations

import json

import pytest

from fabric.catalog import load_catalog
from fabric.cluster_design import SERVERS, FabricSection
from sipml.design_files import builtin_designs, load_design
from tests.sipml.cli_run import refused, run


def _server_line(capsys, *sets) -> tuple[str, float]:
    """The server-share line of sip-ring's bill (its key) and the cluster's typical cost per GPU, with --set items
    `sets`."""
    argv = ["cost", "sip-ring", "-f", "json"]
    for item in sets:
        argv += ["--set", item]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    row = json.loads(out)["designs"][0]
    lines = [line for line in row["breakdown"] if line["key"].startswith("server.")]
    assert len(lines) == 1, lines
    return lines[0]["key"], row["cluster_cost_usd"] / row["gpus"]


def test_a_gpu_set_on_the_command_line_brings_its_own_server(capsys):
    assert _server_line(capsys)[0] == "server.dgx_a100_host"
    moved, moved_cost = _server_line(capsys, "fabric.gpu=gpu.h100_sxm5")
    named, named_cost = _server_line(capsys, "fabric.gpu=gpu.h100_sxm5", "fabric.host=server.dgx_h100_host")
    assert moved == named == "server.dgx_h100_host" and moved_cost == named_cost
    # the H100 host's share costs more than the A100's ($15,250 against $7,925 typical): the bill moved with it
    kept, kept_cost = _server_line(capsys, "fabric.gpu=gpu.h100_sxm5", "fabric.host=server.dgx_a100_host")
    assert kept == "server.dgx_a100_host" and kept_cost == pytest.approx(moved_cost - (15250.0 - 7925.0))
    assert _server_line(capsys, "fabric.gpu=gpu.b200_sxm")[0] == "server.dgx_b200_host"


def test_a_gpu_with_no_known_server_is_refused_unless_a_host_is_named(capsys):
    err = refused(capsys, "cost", "sip-ring", "--set", "fabric.gpu=gpu.h100_nvl", fragment="host = 'gpu'")
    assert "gpu.h100_nvl" in err and "'none'" in err
    for command in ("check", "fabric"):  # neither prices a server: nothing to refuse
        assert run(capsys, command, "sip-ring", "--set", "fabric.gpu=gpu.h100_nvl")[0] == 0, command
    code, out, err = run(capsys, "cost", "sip-ring", "--set", "fabric.gpu=gpu.h100_nvl", "--set", "fabric.host=none",
                         "-f", "json")
    assert code == 0, err
    assert not [line for line in json.loads(out)["designs"][0]["breakdown"] if line["key"].startswith("server.")]


def test_every_pairing_names_a_catalog_gpu_and_server_and_the_built_in_designs_follow_it():
    catalog = load_catalog()
    for gpu, server in SERVERS.items():
        assert catalog.get(gpu).key == gpu and catalog.get(server).key == server
    for name in builtin_designs():
        fabric = load_design(name).fabric
        assert fabric.host == "gpu" and fabric.server == SERVERS[fabric.gpu], name
    assert FabricSection(gpu="gpu.v100_sxm2").server == "server.dgx1_v100_host"


def test_the_dgx_b200_host_follows_epochs_server_ratio_and_the_dgx_b200_power():
    """Hand calculation, as for the DGX H100 host (tests/fabric/test_catalog.py): 0.64 × $35,000 − $2,000 − $750 =
    $19,650 typical; EPR's ratios 1.3 and 2.1 give $7,750 and $35,750; DGX B200 ≈ 14.3 kW for 8 GPUs of 1,000 W
    (workloads-2.md §8): 14,300 / 8 − 1,000 − 100 − 25 = 662.5 W."""
    catalog = load_catalog()
    parts = ["gpu.b200_sxm", "server.dgx_b200_host", "nvswitch.h100_share", "nic.connectx7_ndr_400g"]
    assert sum(catalog.get(k).power_w[1] for k in parts) == pytest.approx(14300.0 / 8)
    gpu = catalog.get("gpu.b200_sxm").price_usd[1]
    nic_and_switch = (catalog.get("nic.connectx7_ndr_400g").price_usd[1]
                      + catalog.get("nvswitch.h100_share").price_usd[1])
    host = catalog.get("server.dgx_b200_host").price_usd
    assert host == pytest.approx((0.3 * gpu - nic_and_switch, 0.64 * gpu - nic_and_switch, 1.1 * gpu - nic_and_switch))
    assert host[1] == pytest.approx(19650.0)


def test_a_gpu_or_a_host_of_another_category_is_refused(capsys):
    """A GPU priced as a host (two GPUs per GPU) or a server as the GPU was taken silently; each is refused naming
    the category it must be."""
    refused(capsys, "cost", "sip-ring", "--set", "fabric.host=gpu.a100_sxm4",
            fragment="not a server entry (server.…)")
    refused(capsys, "cost", "sip-ring", "--set", "fabric.gpu=server.dgx_h100_host",
            fragment="not a GPU entry (gpu.…)")


def test_a_sweep_or_optimize_that_prices_a_gpu_with_no_known_server_is_refused_once(capsys, tmp_path):
    """Every priced row would fail alike (a sweep wrote rows of errors, exit 0; optimize said 'no point is feasible',
    exit 1): refused up front, exit 2, unless an axis changes the GPU or the host."""
    nvl = ["--set", "fabric.gpu=gpu.h100_nvl"]
    refused(capsys, "sweep", "dgx-h100", "--vary", "fabric.gpus=512,1024", *nvl, "-q", "-o", str(tmp_path / "s.csv"),
            fragment="host = 'gpu': gpu.h100_nvl ships in no server")
    assert not (tmp_path / "s.csv").exists()
    refused(capsys, "optimize", "dgx-h100", "--minimize", "network_cost_usd_per_gpu", "--vary", "fabric.gpus=512,1024",
            *nvl, "-q", fragment="host = 'gpu': gpu.h100_nvl ships in no server")
    code, _, err = run(capsys, "sweep", "dgx-h100", "--vary", "fabric.gpu=gpu.h100_nvl,gpu.h100_sxm5", "-q", "-o",
                       str(tmp_path / "t.csv"))
    assert code == 0, err  # the GPU an axis: its rows say which point fails
