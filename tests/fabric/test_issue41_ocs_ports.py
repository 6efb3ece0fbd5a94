"""Issue 41: the OCS ports per GPU, one number everywhere. `cost sip-ocs-384 --set fabric.gpus=4096` priced 61.88
switch ports per GPU in its bill and said "20 OCS ports per GPU" in the note below it. Both were true of different
things: each of the 20 planes is a folded Clos of 384-port switches, 4096 / 192 = 21.3 → 22 leaves of 192 GPU and
192 spine ports and 22 × 192 / 384 = 11 spines (Clos 1953; fabric.fattree), so 20 × 33 × 384 / 4096 = 61.875 ports
are bought per GPU, of which 20 face the GPU (one per plane). The note, the fabric's figure and the bill now read
the one count and name the 20 as what they are."""

import json

import pytest

from sipml.cli import main

BOUGHT = 20 * (22 + 11) * 384 / 4096  # 61.875


def run_json(capsys, *argv):
    code = main([*argv, "-f", "json"])
    out, _ = capsys.readouterr()
    assert code == 0
    return json.loads(out)


def test_issue41_ocs_ports_per_gpu_are_the_bills_count_in_the_note_and_the_figures(capsys):
    cost = run_json(capsys, "cost", "sip-ocs-384", "--set", "fabric.gpus=4096")["designs"][0]
    bill = next(line["count_per_gpu"] for line in cost["breakdown"] if line["key"] == "ocs.polatis_384")
    assert bill == pytest.approx(BOUGHT)
    note = next(n for n in cost["notes"] if "OCS ports" in n)
    assert note.startswith(f"{BOUGHT:.4g} OCS ports bought per GPU")  # the bill's number, not the degree
    assert "20 face the GPU (one per switch plane, its degree)" in note
    assert f"the other {BOUGHT - 20:.4g} are the Clos's inner stages" in note
    assert "20 OCS ports per GPU" not in note

    fabric = run_json(capsys, "fabric", "sip-ocs-384", "--set", "fabric.gpus=4096")
    assert fabric["figures"]["OCS ports bought per GPU"]["value"] == pytest.approx(BOUGHT)
    assert fabric["degree"] == 20


def test_issue41_a_single_layer_buys_the_ports_its_gpus_face_and_no_more_when_full(capsys):
    """One layer of 20 1024-port switches for 1024 GPUs buys exactly the 20 ports each GPU faces; for 256 GPUs it
    buys 80, 60 of them unused."""
    full = run_json(capsys, "cost", "sip-ocs")["designs"][0]
    note = next(n for n in full["notes"] if "OCS ports" in n)
    assert note.startswith("20 OCS ports bought per GPU") and "the other" not in note
    part = run_json(capsys, "cost", "sip-ocs", "--set", "fabric.gpus=256")["designs"][0]
    note = next(n for n in part["notes"] if "OCS ports" in n)
    assert note.startswith("80 OCS ports bought per GPU") and "the other 60 are ports left unused" in note
    assert next(line["count_per_gpu"] for line in part["breakdown"] if line["key"].startswith("ocs.")) == 80
