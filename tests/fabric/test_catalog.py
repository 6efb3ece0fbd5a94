"""The component catalog: the shipped data is complete, sourced and ordered; bad files fail with the file, the
entry and the key in the message; user files override and extend it."""

from __future__ import annotations

import math
import re

import pytest

from fabric.catalog import TAGS, Catalog, load_catalog
from core.errors import InputError

REQUIRED_ENTRIES = [
    "gpu.v100_sxm2", "gpu.a100_sxm4", "gpu.h100_sxm5",
    "server.dgx1_v100_host", "server.dgx_a100_host", "server.dgx_h100_host",
    "nic.connectx6_hdr_200g", "nic.connectx7_ndr_400g",
    "transceiver.ndr_400g_osfp_dr4", "transceiver.osfp_800g_dr8",
    "switch.ib_hdr_40p", "switch.ib_ndr_64p",
    "nvswitch.a100_share", "nvswitch.h100_share",
    "ocs.calient_s320", "ocs.polatis_384", "ocs.palomar_136",
    "sip.optical_io_chiplet", "laser.comb_line",
    "fiber.smf_per_m", "cable.fiber_patch",
    "amplifier.soa", "amplifier.pdfa_oband",
    "tuning.ring_thermal",
    "packaging.si_interposer_area", "packaging.organic_substrate_area", "packaging.chiplet_assembly",
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the shipped catalog ------------------------------------------------------------------------------------
def test_shipped_catalog_has_the_required_entries(catalog):
    missing = [key for key in REQUIRED_ENTRIES if key not in catalog]
    assert not missing, f"missing catalog entries: {missing}"


def test_every_entry_has_source_date_tag_and_ordered_ranges(catalog):
    for key, c in catalog.items():
        assert c.source.strip(), key
        assert re.fullmatch(r"\d{4}(-\d{2})?", c.date), (key, c.date)
        assert c.tag in TAGS, (key, c.tag)
        assert c.description.strip() and c.unit.strip(), key
        assert c.role in ("compute", "network"), key
        for name, (low, typical, high) in (("price", c.price_usd), ("power", c.power_w)):
            assert all(math.isfinite(v) and v >= 0 for v in (low, typical, high)), (key, name)
            assert low <= typical <= high, (key, name, low, typical, high)


def test_assumed_entries_say_why(catalog):
    # An [assumed] number needs its reason: the notes (or the source) must carry one.
    for key, c in catalog.items():
        if c.tag == "[assumed]":
            assert "[assumed]" in c.notes or "convention" in c.source, key


@pytest.mark.parametrize(
    ("key", "power_w", "reference"),
    [
        ("gpu.v100_sxm2", 300.0, "workloads.md GPU table: V100 SXM2 TDP 300 W"),
        ("gpu.a100_sxm4", 400.0, "workloads.md GPU table: A100 SXM4 TDP 400 W"),
        ("gpu.h100_sxm5", 700.0, "workloads.md GPU table: H100 SXM5 TDP 700 W"),
        ("switch.ib_hdr_40p", 274.0, "costs-power.md: QM8700 274 W"),
        ("switch.ib_ndr_64p", 747.0, "costs-power.md: IB NDR 64 × 400G, 747 W"),
        ("switch.ib_edr_36p", 136.0, "costs-power.md: SB7800 136 W"),
        ("transceiver.ndr_400g_osfp_dr4", 9.0, "costs-power.md: 400G OSFP DR4 9 W max"),
        ("ocs.palomar_136", 108.0 / 136, "costs-power.md: Palomar 136 ports, 108 W"),
        ("ocs.calient_s320", 45.0 / 320, "costs-power.md: Calient S320 45 W"),
        ("ocs.polatis_384", 100.0 / 384, "costs-power.md: Polatis 7000 384 ports, 100 W"),
        ("sip.optical_io_chiplet", 10.0, "costs-power.md: Ayar Labs chiplet ~10 W"),
        ("nvswitch.a100_share", 12 * 100.0 / 18, "costs-power.md: NVSwitch ~100 W per 18 ports; 12 links per A100"),
    ],
)
def test_typical_power_matches_the_reference(catalog, key, power_w, reference):
    assert catalog[key].power_w[1] == pytest.approx(power_w, rel=1e-9), reference


@pytest.mark.parametrize(
    ("key", "price_usd", "reference"),
    [
        ("gpu.v100_sxm2", (None, 11458.0, None), "Epoch AI: V100 ~$11,458"),
        ("gpu.a100_sxm4", (None, 15000.0, None), "Epoch AI: A100 ~$15,000"),
        ("gpu.h100_sxm5", (25000.0, None, 31250.0), "Epoch AI: H100 $25,000–31,250"),
        ("transceiver.osfp_800g_dr8", (1000.0, None, 1400.0), "vendor blog: 800G $1,000–1,400"),
        ("transceiver.ndr_400g_osfp_dr4", (600.0, None, 800.0), "vendor blog: 400G $600–800"),
        ("switch.eth_800g_64p", (150000.0, None, 250000.0), "vendor blog: 64 × 800G $150,000–250,000"),
        ("ocs.palomar_136", (300.0, None, 1000.0), "costs-power.md: a few hundred to ~$1,000 per OCS port"),
    ],
)
def test_prices_match_the_reference(catalog, key, price_usd, reference):
    for expected, got in zip(price_usd, catalog[key].price_usd):
        if expected is not None:
            assert got == pytest.approx(expected), reference


def test_dgx_a100_parts_add_back_to_the_dgx_price_and_power(catalog):
    # Epoch AI (costs-power.md): DGX A100 $24,875 per GPU (320 GB); node power 6.5 kW for 8 GPUs.
    parts = ["gpu.a100_sxm4", "server.dgx_a100_host", "nvswitch.a100_share", "nic.connectx6_hdr_200g"]
    assert sum(catalog[k].price_usd[1] for k in parts) == pytest.approx(24875.0)
    assert sum(catalog[k].power_w[1] for k in parts) == pytest.approx(6500.0 / 8)


def test_dgx_h100_host_follows_epochs_server_ratio_and_its_low_end_is_the_dgx_price(catalog):
    """Epoch AI (costs-power.md): server/chip ratio 1.64 (default), 1.66 for A100; DGX H100 ≈ $270,000 ($33,750 per
    GPU), 10.2 kW for 8 GPUs. Hand calculation: 0.64 × $28,125 − $2,000 − $750 = $15,250; the DGX price's residual
    $33,750 − $28,125 − $2,000 − $750 = $2,875 is the low end. The ratio method on the A100 (0.66 × $15,000 −
    $1,200 − $750 = $7,950) lands within $25 of the DGX A100 split ($7,925), which is why it is the typical."""
    parts = ["gpu.h100_sxm5", "server.dgx_h100_host", "nvswitch.h100_share", "nic.connectx7_ndr_400g"]
    assert sum(catalog[k].power_w[1] for k in parts) == pytest.approx(10200.0 / 8)
    host = catalog["server.dgx_h100_host"].price_usd
    gpu = catalog["gpu.h100_sxm5"].price_usd[1]
    nic_and_switch = catalog["nic.connectx7_ndr_400g"].price_usd[1] + catalog["nvswitch.h100_share"].price_usd[1]
    assert host[1] == pytest.approx(0.64 * gpu - nic_and_switch) == pytest.approx(15250.0)
    assert host[0] + gpu + nic_and_switch == pytest.approx(270000.0 / 8)
    a100_by_ratio = 0.66 * catalog["gpu.a100_sxm4"].price_usd[1] - (
        catalog["nic.connectx6_hdr_200g"].price_usd[1] + catalog["nvswitch.a100_share"].price_usd[1])
    assert abs(a100_by_ratio - catalog["server.dgx_a100_host"].price_usd[1]) <= 25.0


def test_chiplet_power_range_is_energy_per_bit_times_rate(catalog):
    # costs-power.md: 818 fJ/bit (Columbia model) and 5.56 pJ/bit (TeraPHY, OFC 2021), 2 Tb/s per direction.
    low, _, high = catalog["sip.optical_io_chiplet"].power_w
    assert low == pytest.approx(0.818e-12 * 2e12)
    assert high == pytest.approx(5.56e-12 * 2e12)


def test_lookup_of_a_missing_entry_lists_close_names(catalog):
    with pytest.raises(InputError, match=r"gpu\.a100_sxm4") as info:
        catalog.get("gpu.a100")
    assert "no catalog entry 'gpu.a100'" in str(info.value)
    with pytest.raises(InputError, match="ocs.palomar_136"):
        catalog["ocs.palomar"]


def test_input_error_maps_to_exit_code_2(tmp_path):
    with pytest.raises(InputError) as info:
        load_catalog(tmp_path / "absent.toml")
    assert info.value.exit_code == 2


# --- bad files ----------------------------------------------------------------------------------------------
def test_missing_file(tmp_path):
    path = tmp_path / "nope.toml"
    with pytest.raises(InputError, match=re.escape(str(path)) + ".*not found"):
        load_catalog(path)


def test_wrong_unit_names_file_entry_and_key(tmp_path):
    path = write(tmp_path, "user.toml", '[gpu.a100_sxm4]\nprice_typical = "15000 W"\n')
    with pytest.raises(InputError) as info:
        load_catalog(path)
    message = str(info.value)
    assert str(path) in message and "[gpu.a100_sxm4]" in message and "price_typical" in message
    assert "15000 W" in message and "USD" in message


def test_power_with_a_price_unit_is_rejected(tmp_path):
    path = write(tmp_path, "user.toml", '[ocs.palomar_136]\npower = "1 USD"\n')
    with pytest.raises(InputError, match=r"\[ocs\.palomar_136\] power = '1 USD'"):
        load_catalog(path)


def test_bare_number_is_rejected(tmp_path):
    path = write(tmp_path, "user.toml", "[gpu.a100_sxm4]\nprice_typical = 15000\n")
    with pytest.raises(InputError, match=r"\[gpu\.a100_sxm4\] price_typical = 15000: expected a string with a unit"):
        load_catalog(path)


def test_unknown_key_suggests_the_right_one(tmp_path):
    path = write(tmp_path, "user.toml", '[gpu.a100_sxm4]\nprise_low = "1 USD"\n')
    with pytest.raises(InputError) as info:
        load_catalog(path)
    message = str(info.value)
    assert str(path) in message and "[gpu.a100_sxm4]" in message and "'prise_low'" in message
    assert "did you mean 'price_low'" in message


def test_inverted_price_range(tmp_path):
    path = write(tmp_path, "user.toml", '[ocs.palomar_136]\nprice_low = "2000 USD"\n')
    with pytest.raises(InputError) as info:
        load_catalog(path)
    message = str(info.value)
    assert "[ocs.palomar_136]" in message and "price_low ≤ price_typical ≤ price_high" in message
    assert str(path) in message  # the file that broke the order
    assert "price_low = 2000 USD" in message  # each value with its unit


def test_inverted_power_range(tmp_path):
    path = write(
        tmp_path, "user.toml",
        '[amplifier.soa]\npower_low = "5 W"\npower_typical = "1 W"\npower_high = "6 W"\n',
    )
    with pytest.raises(InputError, match=r"\[amplifier\.soa\] power_low, power_typical, power_high: expected.*"
                                         r"got power_low = 5 W, power_typical = 1 W, power_high = 6 W"):
        load_catalog(path)


def test_negative_price(tmp_path):
    path = write(tmp_path, "user.toml", '[fiber.smf_per_m]\nprice_low = "-1 USD"\n')
    with pytest.raises(InputError, match=r"\[fiber\.smf_per_m\] price_low = '-1 USD': expected a value ≥ 0"):
        load_catalog(path)


def test_new_entry_with_missing_keys(tmp_path):
    path = write(tmp_path, "user.toml", '[gpu.b200]\ndescription = "B200"\nunit = "GPU"\nprice_low = "1 USD"\n')
    with pytest.raises(InputError) as info:
        load_catalog(path)
    message = str(info.value)
    assert str(path) in message and "[gpu.b200]" in message and "missing key(s)" in message
    for key in ("role", "source", "date", "tag", "price_typical", "price_high", "power"):
        assert key in message


def test_bad_tag_and_bad_date(tmp_path):
    path = write(tmp_path, "tag.toml", '[gpu.a100_sxm4]\ntag = "[asumed]"\n')
    with pytest.raises(InputError, match=r"\[gpu\.a100_sxm4\] tag = '\[asumed\]'.*did you mean '\[assumed\]'"):
        load_catalog(path)
    path = write(tmp_path, "date.toml", '[gpu.a100_sxm4]\ndate = "2020-13"\n')
    with pytest.raises(InputError, match=r"\[gpu\.a100_sxm4\] date = '2020-13': expected a year or YYYY-MM"):
        load_catalog(path)


def test_bad_role(tmp_path):
    path = write(tmp_path, "user.toml", '[gpu.a100_sxm4]\nrole = "netwrk"\n')
    with pytest.raises(InputError, match=r"role = 'netwrk'.*did you mean 'network'"):
        load_catalog(path)


def test_power_and_power_range_in_one_table(tmp_path):
    text = (
        '[x.y]\ndescription = "d"\nunit = "u"\nrole = "network"\nprice_low = "1 USD"\nprice_typical = "1 USD"\n'
        'price_high = "1 USD"\npower = "1 W"\npower_low = "1 W"\npower_typical = "1 W"\npower_high = "1 W"\n'
        'source = "s"\ndate = "2024"\ntag = "[assumed]"\n'
    )
    path = write(tmp_path, "user.toml", text)
    with pytest.raises(InputError, match=r"\[x\.y\] power: give either `power` or power_low/typical/high"):
        load_catalog(path)


def test_not_toml_and_wrong_nesting(tmp_path):
    path = write(tmp_path, "broken.toml", "[gpu.a100_sxm4\nprice_low = 1\n")
    with pytest.raises(InputError, match=re.escape(str(path)) + ": not valid TOML"):
        load_catalog(path)
    path = write(tmp_path, "flat.toml", 'price_low = "1 USD"\n')
    with pytest.raises(InputError, match="top-level key 'price_low'.*expected a table of entries"):
        load_catalog(path)
    path = write(tmp_path, "shallow.toml", '[gpu]\nprice_low = "1 USD"\n')
    with pytest.raises(InputError, match=r"\[gpu\] price_low = '1 USD': expected an entry table"):
        load_catalog(path)


# --- overrides ----------------------------------------------------------------------------------------------
def test_override_of_one_key_is_applied_and_reported(tmp_path, catalog):
    path = write(tmp_path, "user.toml", '[ocs.palomar_136]\nprice_typical = "800 USD"\n')
    merged = load_catalog(path)
    shipped, changed = catalog["ocs.palomar_136"], merged["ocs.palomar_136"]
    assert changed.price_usd == (shipped.price_usd[0], 800.0, shipped.price_usd[2])
    assert changed.power_w == shipped.power_w
    assert changed.files[-1] == str(path)
    assert f"price_typical overridden in {path}" in changed.source
    assert len(merged.overrides) == 1
    record = merged.overrides[0]
    assert (record.file, record.entry, record.key, record.old, record.new) == (
        str(path), "ocs.palomar_136", "price_typical", "600 USD", "800 USD")
    assert "ocs.palomar_136" in str(record) and "800 USD" in str(record)
    # everything else is the shipped catalog
    assert merged["gpu.a100_sxm4"] == catalog["gpu.a100_sxm4"]
    assert merged.files == (catalog.files[0], str(path))


def test_override_with_its_own_source_replaces_the_source(tmp_path):
    path = write(tmp_path, "user.toml", '[ocs.palomar_136]\nprice_typical = "800 USD"\nsource = "our quote"\n')
    assert load_catalog(path)["ocs.palomar_136"].source == "our quote"


def test_single_power_replaces_a_power_range_and_back(tmp_path):
    path = write(tmp_path, "one.toml", '[sip.optical_io_chiplet]\npower = "7 W"\n')
    merged = load_catalog(path)
    assert merged["sip.optical_io_chiplet"].power_w == (7.0, 7.0, 7.0)
    (record,) = merged.overrides
    assert record.key == "power" and record.old == "1.636 W / 10 W / 11.12 W"
    path = write(
        tmp_path, "three.toml",
        '[gpu.a100_sxm4]\npower_low = "250 W"\npower_typical = "300 W"\npower_high = "400 W"\n',
    )
    merged = load_catalog(path)
    assert merged["gpu.a100_sxm4"].power_w == (250.0, 300.0, 400.0)
    assert [(r.key, r.old, r.new) for r in merged.overrides] == [
        ("power_low", "400 W", "250 W"), ("power_typical", "400 W", "300 W"), ("power_high", "400 W", "400 W")]


def test_partial_power_range_override_is_an_error(tmp_path):
    path = write(tmp_path, "user.toml", '[gpu.a100_sxm4]\npower_high = "500 W"\n')
    with pytest.raises(InputError, match=r"\[gpu\.a100_sxm4\] missing key\(s\): power_low, power_typical") as info:
        load_catalog(path)
    assert str(path) in str(info.value)


def test_user_file_adds_a_new_entry(tmp_path):
    text = (
        '[gpu.b200]\ndescription = "NVIDIA B200"\nunit = "GPU"\nrole = "compute"\n'
        'price_low = "30000 USD"\nprice_typical = "35000 USD"\nprice_high = "40000 USD"\n'
        'power = "1 kW"\nsource = "our purchase order"\ndate = "2025-03"\ntag = "[assumed]"\n'
    )
    path = write(tmp_path, "user.toml", text)
    merged = load_catalog(path)
    b200 = merged["gpu.b200"]
    assert b200.price_usd == (30000.0, 35000.0, 40000.0) and b200.power_w == (1000.0, 1000.0, 1000.0)
    assert b200.date == "2025-03" and b200.files == (str(path),)
    assert merged.added == ((str(path), "gpu.b200"),)
    assert merged.overrides == ()
    assert [c.key for c in merged.category("gpu")][-1] == "gpu.b200"


def test_later_files_win_and_range_errors_name_every_file_involved(tmp_path):
    first = write(tmp_path, "first.toml", '[ocs.palomar_136]\nprice_high = "2000 USD"\n')
    second = write(tmp_path, "second.toml", '[ocs.palomar_136]\nprice_high = "1500 USD"\n')
    assert load_catalog(first, second)["ocs.palomar_136"].price_usd[2] == 1500.0
    bad = write(tmp_path, "bad.toml", '[ocs.palomar_136]\nprice_typical = "1800 USD"\n')
    with pytest.raises(InputError) as info:
        load_catalog(first, second, bad)
    message = str(info.value)
    assert str(bad) in message and str(second) in message


def test_a_date_may_be_a_bare_year(tmp_path):
    path = write(tmp_path, "user.toml", "[gpu.a100_sxm4]\ndate = 2021\n")
    assert load_catalog(path)["gpu.a100_sxm4"].date == "2021"


def test_custom_base_catalog(tmp_path):
    base = write(
        tmp_path, "base.toml",
        '[x.only]\ndescription = "d"\nunit = "u"\nrole = "compute"\nprice_low = "1 USD"\nprice_typical = "2 USD"\n'
        'price_high = "3 USD"\npower = "4 mW"\nsource = "s"\ndate = "2024"\ntag = "[assumed]"\n',
    )
    only = load_catalog(base=base)
    assert list(only) == ["x.only"] and only["x.only"].power_w == (0.004, 0.004, 0.004)
    assert not only["x.only"].is_network


def test_ndr_switch_typical_price_lies_between_the_two_generation_scalings(catalog):
    """No primary price for a 64 × 400G NDR switch: the catalog's EDR (36 × 100G) and HDR (40 × 200G) switches bracket
    it. Hand calculation: constant price per Gb/s, 25.6 Tb/s × min($12,000/3.6 Tb/s, $25,000/8 Tb/s) = $80,000; the
    price per port growing by the EDR → HDR step ($333 → $625, so $917 next), 64 × $917 = $58,667."""
    edr, hdr = catalog["switch.ib_edr_36p"].price_usd[1], catalog["switch.ib_hdr_40p"].price_usd[1]
    per_gbps = min(edr / 3600, hdr / 8000) * 25600
    per_port = 64 * (2 * hdr / 40 - edr / 36)
    assert per_gbps == pytest.approx(80000.0) and per_port == pytest.approx(58666.67, rel=1e-5)
    low, typical, high = catalog["switch.ib_ndr_64p"].price_usd
    assert per_port <= typical <= per_gbps
    assert low < typical < high
