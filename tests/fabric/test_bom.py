"""Bill-of-materials roll-ups and fat-tree sizing: arithmetic against hand sums, conservation of shares,
the network/compute split, Al-Fares' closed form, and two sanity bounds from the literature built from the
shipped catalog."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric.bom import (
    BomLine,
    Range,
    component_share,
    facility_power_w,
    interconnect_cost_share,
    roll_up,
)
from fabric.catalog import load_catalog
from fabric.fattree import fat_tree, fat_tree_max_endpoints, leaf_ports, min_fat_tree_tiers
from core.errors import InputError

TOY = """
[serdes.beyond_rating]
description = "toy correction, in watts"
unit = "W"
role = "network"
price_low = "0 USD"
price_typical = "0 USD"
price_high = "0 USD"
power = "1 W"
source = "test"
date = "2024"
tag = "[assumed]"

[gpu.toy]
description = "toy GPU"
unit = "GPU"
role = "compute"
price_low = "8 USD"
price_typical = "10 USD"
price_high = "12 USD"
power = "100 W"
source = "test"
date = "2024"
tag = "[assumed]"

[switch.toy]
description = "toy switch"
unit = "switch"
role = "network"
price_low = "40 USD"
price_typical = "100 USD"
price_high = "200 USD"
power_low = "10 W"
power_typical = "20 W"
power_high = "30 W"
source = "test"
date = "2024"
tag = "[assumed]"

[ocs.toy]
description = "toy OCS port"
unit = "port"
role = "network"
price_low = "1 USD"
price_typical = "2 USD"
price_high = "3 USD"
power = "0.5 W"
source = "test"
date = "2024"
tag = "[assumed]"
"""


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    path = tmp_path_factory.mktemp("catalog") / "toy.toml"
    path.write_text(TOY, encoding="utf-8")
    return load_catalog(base=path)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


TOY_LINES = [("gpu.toy", 1, "per_gpu"), ("switch.toy", 0.25, "per_gpu"), ("ocs.toy", 10, "per_cluster")]


# --- arithmetic ---------------------------------------------------------------------------------------------
def test_roll_up_matches_hand_sums(toy):
    result = roll_up(TOY_LINES, toy, 8)
    # 8 GPUs × (8, 10, 12) + 2 switches × (40, 100, 200) + 10 ports × (1, 2, 3)
    assert result.cost_per_cluster_usd == Range(64 + 80 + 10, 80 + 200 + 20, 96 + 400 + 30)
    assert result.cost_per_gpu_usd.typical == pytest.approx(300 / 8)
    # 8 × 100 W + 2 × (10, 20, 30) W + 10 × 0.5 W
    assert result.power_per_cluster_w == Range(800 + 20 + 5, 800 + 40 + 5, 800 + 60 + 5)
    assert result.power_per_gpu_w.high == pytest.approx(865 / 8)
    switch = result.line("switch.toy")
    assert switch.count_per_cluster == 2.0 and switch.count_per_gpu == 0.25
    assert switch.cost_share == pytest.approx(200 / 300) and switch.power_share == pytest.approx(40 / 845)
    assert result.line("ocs.toy").count_per_gpu == pytest.approx(10 / 8)


def test_network_compute_split(toy):
    result = roll_up(TOY_LINES, toy, 8)
    assert result.compute_cost_usd == Range(64, 80, 96)
    assert result.network_cost_usd == Range(80 + 10, 200 + 20, 400 + 30)
    assert result.compute_power_w == Range(800, 800, 800)
    assert result.network_power_w == Range(25, 45, 65)
    assert result.network_cost_share.typical == pytest.approx(220 / 300)
    assert interconnect_cost_share(result) == pytest.approx(220 / 300)
    assert result.network_cost_share.low == pytest.approx(90 / 154)  # each scenario's own share


def test_line_flag_overrides_the_catalog_role(toy):
    result = roll_up([("gpu.toy", 1, "per_gpu"), ("switch.toy", 0.25, "per_gpu", False)], toy, 8)
    assert result.network_cost_usd == Range.zero()
    assert not result.line("switch.toy").network
    result = roll_up([BomLine(key="gpu.toy", count=1, network=True)], toy, 4)
    assert result.network_cost_usd == result.cost_per_cluster_usd


def test_same_component_lines_merge(toy):
    split = roll_up([("switch.toy", 0.25, "per_gpu"), ("switch.toy", 2, "per_cluster")], toy, 8)
    assert len(split.lines) == 1 and split.lines[0].count_per_cluster == 4.0
    both_sides = roll_up([("switch.toy", 1, "per_cluster"), ("switch.toy", 1, "per_cluster", False)], toy, 8)
    assert [l.network for l in both_sides.lines] == [True, False]


def test_breakdown_sorted_by_cost(toy):
    order = [l.key for l in roll_up(TOY_LINES, toy, 8).lines_by_cost()]
    assert order == ["switch.toy", "gpu.toy", "ocs.toy"]


@settings(max_examples=60, deadline=None)
@given(
    gpus=st.integers(1, 100_000),
    counts=st.lists(st.floats(0, 1e4, allow_nan=False), min_size=3, max_size=3),
    scopes=st.lists(st.sampled_from(["per_gpu", "per_cluster"]), min_size=3, max_size=3),
)
def test_shares_sum_to_one_and_sides_add_up(toy, gpus, counts, scopes):
    keys = ["gpu.toy", "switch.toy", "ocs.toy"]
    result = roll_up(list(zip(keys, counts, scopes)), toy, gpus)
    total = result.cost_per_cluster_usd
    if total.typical > 0:
        assert sum(l.cost_share for l in result.lines) == pytest.approx(1.0)
    if result.power_per_cluster_w.typical > 0:
        assert sum(l.power_share for l in result.lines) == pytest.approx(1.0)
    for side_sum, whole in ((result.network_cost_usd + result.compute_cost_usd, total),
                            (result.network_power_w + result.compute_power_w, result.power_per_cluster_w)):
        for a, b in zip(side_sum.as_tuple(), whole.as_tuple()):
            assert a == pytest.approx(b)
    assert total.low <= total.typical <= total.high
    assert result.cost_per_gpu_usd.typical * gpus == pytest.approx(total.typical)


@settings(max_examples=40, deadline=None)
@given(gpus=st.integers(1, 10_000), factor=st.floats(1.01, 10))
def test_per_gpu_lines_scale_with_the_cluster(toy, gpus, factor):
    # per-GPU lines cost the same per GPU at any cluster size; per-cluster lines are diluted
    small = roll_up([("gpu.toy", factor, "per_gpu")], toy, gpus)
    large = roll_up([("gpu.toy", factor, "per_gpu")], toy, 2 * gpus)
    assert small.cost_per_gpu_usd.typical == pytest.approx(large.cost_per_gpu_usd.typical)
    fixed_small = roll_up([("ocs.toy", factor, "per_cluster")], toy, gpus)
    fixed_large = roll_up([("ocs.toy", factor, "per_cluster")], toy, 2 * gpus)
    assert fixed_large.cost_per_gpu_usd.typical == pytest.approx(fixed_small.cost_per_gpu_usd.typical / 2)


def test_numpy_counts_are_accepted(toy):
    import numpy as np

    result = roll_up([("gpu.toy", np.int64(1), "per_gpu"), ("ocs.toy", np.float64(10), "per_cluster")], toy,
                     np.int64(8))
    assert result.cost_per_cluster_usd.typical == pytest.approx(80 + 20)


def test_empty_bom_has_zero_totals(toy):
    result = roll_up([], toy, 8)
    assert result.cost_per_cluster_usd == Range.zero() and result.network_cost_share == Range.zero()


# --- bad input ----------------------------------------------------------------------------------------------
def test_bad_lines(toy):
    with pytest.raises(InputError, match=r"scope = 'per-gpu'.*did you mean 'per_gpu'"):
        roll_up([("gpu.toy", 1, "per-gpu")], toy, 8)
    with pytest.raises(InputError, match=r"'gpu.toy': count = -1"):
        roll_up([("gpu.toy", -1, "per_gpu")], toy, 8)
    with pytest.raises(InputError, match=r"count = nan"):
        roll_up([("gpu.toy", float("nan"), "per_gpu")], toy, 8)
    with pytest.raises(InputError, match=r"no catalog entry 'gpu.tyo'; close names: gpu.toy"):
        roll_up([("gpu.tyo", 1, "per_gpu")], toy, 8)
    with pytest.raises(InputError, match=r"expected \(component_key, count, scope\)"):
        roll_up([("gpu.toy", 1)], toy, 8)
    with pytest.raises(InputError, match=r"gpus = 0"):
        roll_up(TOY_LINES, toy, 0)
    with pytest.raises(InputError, match="not in this bill of materials; did you mean 'gpu.toy'"):
        roll_up(TOY_LINES, toy, 8).line("gpu.tox")


def test_a_correction_counts_with_either_sign_and_only_on_an_unpriced_entry(toy):
    """A `correction` line (the host SerDes power the boxes' ratings leave out or count beyond need) adds its watts,
    negative ones included, to the power and nothing to the cost; a priced entry or a negative count of items is
    refused."""
    base = roll_up(TOY_LINES, toy, 8)
    for watts in (-30.0, 12.5):
        fixed = roll_up([*TOY_LINES, BomLine(key="serdes.beyond_rating", count=watts, scope="per_cluster",
                                             network=True, per="correction")], toy, 8)
        assert fixed.power_per_cluster_w.typical == pytest.approx(base.power_per_cluster_w.typical + watts)
        assert fixed.network_power_w.typical == pytest.approx(base.network_power_w.typical + watts)
        assert fixed.cost_per_cluster_usd.as_tuple() == pytest.approx(base.cost_per_cluster_usd.as_tuple())
    with pytest.raises(InputError, match="'switch.toy' corrects other lines' power: it must be priced 0 USD"):
        roll_up([BomLine(key="switch.toy", count=-1.0, scope="per_cluster", per="correction")], toy, 8)
    with pytest.raises(InputError, match=r"'switch.toy': count = -1.0"):
        roll_up([BomLine(key="switch.toy", count=-1.0, scope="per_cluster")], toy, 8)


# --- helpers ------------------------------------------------------------------------------------------------
def test_facility_power():
    # Epoch AI (costs-power.md): draw during training 0.75 × TDP, PUE 1.1 hyperscale
    assert facility_power_w(1000.0, pue=1.1, load_fraction=0.75) == pytest.approx(825.0)
    assert facility_power_w(Range(1, 2, 3), pue=1.25) == Range(1.25, 2.5, 3.75)
    with pytest.raises(InputError, match="pue = 0.9"):
        facility_power_w(1000.0, pue=0.9)
    with pytest.raises(InputError, match="load_fraction = 0"):
        facility_power_w(1000.0, pue=1.1, load_fraction=0)


def test_component_share(toy):
    result = roll_up(TOY_LINES, toy, 8)
    assert component_share(result, ["ocs."]).typical == pytest.approx(20 / 300)
    assert component_share(result, ["ocs.", "switch."], what="power").typical == pytest.approx(45 / 845)
    with pytest.raises(InputError, match="what = 'weight'"):
        component_share(result, ["ocs."], what="weight")


# --- fat-tree sizing (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008) ---------------------------------------------
@pytest.mark.parametrize("k", [4, 8, 16, 24, 32, 40, 48, 64])
def test_full_three_tier_fat_tree_matches_al_fares(k):
    hosts = k**3 // 4
    tree = fat_tree(hosts, radix=k, tiers=3)
    assert tree.max_endpoints == hosts
    assert tree.switches == 5 * k * k // 4
    # k pods × k/2 edge switches, k pods × k/2 aggregation switches, (k/2)² core switches
    assert tree.switches_per_tier == (k * k // 2, k * k // 2, k * k // 4)
    assert tree.links_per_tier == (hosts, hosts, hosts)


def test_al_fares_worked_example():
    # "a fat-tree built with 48-port switches supports 27,648 hosts" (Al-Fares et al. 2008): 2,880 switches
    tree = fat_tree(27_648, radix=48, tiers=3)
    assert tree.switches == 2880


@pytest.mark.parametrize("k", [4, 40, 64])
def test_two_tier_and_one_tier(k):
    tree = fat_tree(k * k // 2, radix=k, tiers=2)
    assert tree.switches_per_tier == (k, k // 2) and tree.links == k * k
    assert fat_tree(k, radix=k, tiers=1).switches == 1


def test_oversubscription_moves_leaf_ports_down():
    assert leaf_ports(40, 1.0) == (20, 20)
    assert leaf_ports(40, 3.0) == (30, 10)
    assert fat_tree_max_endpoints(radix=40, tiers=2, oversubscription=3.0) == 30 * 40
    tree = fat_tree(1200, radix=40, tiers=2, oversubscription=3.0)
    assert tree.switches_per_tier == (40, 10) and tree.links_per_tier == (1200, 400)


def test_fat_tree_errors():
    with pytest.raises(InputError, match="holds at most 800.*use 3 tiers"):
        fat_tree(1024, radix=40, tiers=2)
    with pytest.raises(InputError, match="even radix"):
        fat_tree(10, radix=5, tiers=2)
    with pytest.raises(InputError, match="oversubscription = 0.5"):
        fat_tree(10, radix=8, tiers=2, oversubscription=0.5)
    assert min_fat_tree_tiers(1024, radix=40) == 3 and min_fat_tree_tiers(800, radix=40) == 2


@settings(max_examples=80, deadline=None)
@given(
    k=st.sampled_from([4, 8, 16, 32, 40, 64]),
    tiers=st.integers(1, 4),
    r=st.sampled_from([1.0, 1.5, 2.0, 3.0]),
    fraction=st.floats(0.0, 1.0),
)
def test_fat_tree_ports_are_conserved(k, tiers, r, fraction):
    capacity = fat_tree_max_endpoints(radix=k, tiers=tiers, oversubscription=r)
    n = max(1, round(fraction * capacity))
    tree = fat_tree(n, radix=k, tiers=tiers, oversubscription=r)
    ports_used = tree.endpoints + 2 * tree.switch_links  # every switch–switch link uses a port at each end
    assert ports_used <= tree.switches * k
    bigger = fat_tree(min(capacity, n + 1), radix=k, tiers=tiers, oversubscription=r)
    assert bigger.switches >= tree.switches and bigger.links >= tree.links


# --- sanity bounds from the literature, built from the shipped catalog -----------------------------------------
def test_tpu_v4_like_ocs_share_is_small(catalog):
    """Jouppi et al., ISCA 2023 ("TPU v4: An Optically Reconfigurable Supercomputer"): 4096 chips, 48 OCSes of
    136 ports; OCSes < 5 % of system cost and < 3 % of system power. TPU v4 prices are not public: the A100
    (its contemporary, compared against in the paper) and the DGX A100 host stand in for chip and host.
    6144 optical links (64 cubes × 96 face links), each with a 400G module and a patch cable."""
    lines = [
        ("gpu.a100_sxm4", 1, "per_gpu"),
        ("server.dgx_a100_host", 1, "per_gpu"),
        ("ocs.palomar_136", 48 * 136, "per_cluster"),
        ("transceiver.ndr_400g_osfp_dr4", 6144, "per_cluster"),
        ("cable.fiber_patch", 6144, "per_cluster"),
    ]
    result = roll_up(lines, catalog, 4096)
    cost = component_share(result, ["ocs."])
    power = component_share(result, ["ocs."], what="power")
    optics = component_share(result, ["ocs.", "transceiver.", "cable."])
    shown = (f"OCS cost share {cost.typical:.2%} (low {cost.low:.2%}, high {cost.high:.2%}); "
             f"OCS power share {power.typical:.2%}; OCS + optics cost share {optics.typical:.2%}")
    assert cost.typical < 0.05, shown
    assert power.typical < 0.03, shown


@pytest.mark.parametrize(("name", "gpus"), [("dgx-a100", 512), ("dgx-a100", 1024), ("dgx-a100", 4096),
                                           ("dgx-h100", 1024)])
def test_dgx_cluster_interconnect_share_is_near_epoch(catalog, name, gpus):
    """Epoch AI cost model (costs-power.md): cluster-level interconnect ≈ 19 % of hardware cost. The built-in
    DGX designs' own bill of materials (NIC per GPU, fat-tree switches, transceivers, patch cables, fiber; the
    NVSwitch inside the server left in the server's cost, as Epoch does). Tolerance band 10–30 %."""
    import dataclasses

    from fabric.cost import cluster_bom, scale_out_cost_share
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design

    design = load_design(name)
    design = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, gpus=gpus))
    result = cluster_bom(design, evaluate_fabric(design), catalog)
    share = scale_out_cost_share(result)
    shown = f"{name}, {gpus} GPUs: interconnect share {share:.1%} vs Epoch AI 19 %"
    assert 0.10 <= share <= 0.30, shown


def test_a_cluster_of_one_server_buys_no_scale_out_network():
    """8 GPUs in one DGX A100 talk over NVLink: no rail switches, optics, cables or fiber (one 40-port switch per
    GPU, one port used, was bought: 28,085 USD and 370 W of network per GPU); the NICs come with the server. Two
    servers build the rails as before."""
    from fabric.cost import cost_summary
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design

    one, two = (evaluate_fabric(load_design("dgx-a100", [f"fabric.gpus={n}"])) for n in (8, 16))
    assert {line.key.split(".")[0] for line in one.bom} == {"nvswitch", "nic"}
    assert one.details.switches == 0 and one.host_serdes_w == 0.0
    assert {"switch", "transceiver", "cable", "fiber"} <= {line.key.split(".")[0] for line in two.bom}
    from fabric.catalog import load_catalog

    network = cost_summary(one.design, one, load_catalog()).network_cost_per_gpu_usd.typical
    assert network == 1200 + 750  # the NIC and the NVSwitch share, as the catalog prices them
    assert one.bisection_bps == 8 / 2 * 2400e9  # across the NVSwitch (the DGX A100's NVLink), not the NICs
    far = evaluate_fabric(load_design("dgx-a100", ["fabric.gpus=8", "electrical.link_length=1000 m"]))
    assert far.feasible  # optics it does not buy set no limit
    partial = evaluate_fabric(load_design("dgx-a100", ["fabric.gpus=6"]))  # 6 GPUs of a server: NVLink too
    assert {line.key.split(".")[0] for line in partial.bom} == {"nvswitch", "nic"}
    from fabric.evaluate import job_collectives

    schedules = {op: t.schedule for op, t in job_collectives(partial, 100e6).items()}
    assert all("NVLink" in text for text in schedules.values()), schedules  # none across servers or NICs
