"""Every built-in design at 1 024, 16 384, 131 072 and 10⁶ GPUs: `sipml check` answers (feasible or not, never an
error), and what it calls feasible is a network that can be built — the switch planes hold the GPUs, a circuit's
passes are the ones the budget pays for."""

import json
import math

import pytest

from fabric.evaluate import evaluate_fabric
from fabric.fattree import fat_tree_max_endpoints, leaf_ports
from sipml.cli import main
from sipml.design_files import builtin_designs, load_design

SIZES = (1024, 16_384, 131_072, 1_000_000)


@pytest.mark.parametrize("gpus", SIZES)
@pytest.mark.parametrize("name", sorted(builtin_designs()))
def test_check_refuses_or_builds_every_network(name, gpus, capsys):
    code = main(["check", name, "--set", f"fabric.gpus={gpus}", "-f", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == (0 if data["feasible"] else 1)
    est = evaluate_fabric(load_design(name, [f"fabric.gpus={gpus}"]))
    assert est.feasible == data["feasible"]
    top = est.design.topology
    if est.kind == "sip-ocs":
        det = est.details
        if top.topology == "single":
            assert est.feasible <= (top.radix >= gpus)
            assert det.switch_passes == 1 and det.ocs_count == top.switches
        elif top.topology == "clos":  # the fewest passes that hold the GPUs: 1 up to R, 3 up to R², then folded
            half, r = (top.radix - top.radix % 2) // 2, top.radix
            need = 1 if gpus <= r else 3 if gpus <= r * r else 2 * min(t for t in range(3, 17)
                                                                      if 2 * half ** t >= gpus) - 1
            assert det.switch_passes == need
        # the budget pays for every pass a circuit makes
        assert est.link.design.loss.switch_ports >= det.switch_passes
    elif est.kind == "electrical" and (top.pod_gpus or top.leaf_endpoints):  # pods: the fewest tiers hold a pod
        det, k = est.details, top.switch_radix
        per_plane = math.ceil(gpus / det.rails)
        pod = min(top.pod_gpus or per_plane, per_plane)
        pods = math.ceil(per_plane / pod)
        leaf_down, leaf_up = ((top.leaf_endpoints, math.ceil(top.leaf_endpoints / top.oversubscription))
                              if top.leaf_endpoints else leaf_ports(k, top.oversubscription))
        # a pod's top tier keeps 1 port up for every o down; a single pod faces down with all k
        top_down = k if pods == 1 else math.floor(k * top.pod_oversubscription / (top.pod_oversubscription + 1) + 1e-9)
        pod_tiers = next(t for t in range(2, 9) if leaf_down * (k // 2) ** (t - 2) * top_down >= pod)
        above = 0 if pods == 1 else 1 if pods <= k else None
        assert leaf_up + leaf_down <= top.switch_radix
        assert det.tiers == pod_tiers + above if above is not None else det.tiers > pod_tiers + 1
    elif est.kind == "electrical":
        det = est.details
        per_plane = math.ceil(gpus / det.rails)
        assert fat_tree_max_endpoints(radix=top.switch_radix, tiers=det.tiers,
                                      oversubscription=top.oversubscription) >= per_plane
        assert det.tiers == 1 or fat_tree_max_endpoints(radix=top.switch_radix, tiers=det.tiers - 1,
                                                        oversubscription=top.oversubscription) < per_plane
    elif est.kind == "sip-ring" and top.amplifier_every:
        assert est.details.amplifiers == math.ceil(gpus / top.amplifier_every) * est.design.link.link.fibers_per_direction
        assert est.feasible <= (top.loop_control != "none")
