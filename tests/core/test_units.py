import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InputError
from core.units import db_to_lin, dbm_to_w, lin_to_db, parse_value, w_to_dbm


def test_ghz_is_rejected_where_a_data_rate_is_expected():
    with pytest.raises(InputError, match=r"\[information\]"):
        parse_value("25 GHz", "bit/s")
    from core.units import Q_  # pint's registry, built when asked for (not at the suite's collection)

    with pytest.raises(InputError):
        parse_value(Q_(25, "GHz"), "bit/s")


def test_data_rate_units_convert():
    assert parse_value("25 Gbit/s", "bit/s") == 25e9
    assert parse_value("25 Gbps", "bit/s") == 25e9
    assert parse_value("1 GB/s", "bit/s") == 8e9
    assert parse_value("2 Tbit/s", "bit/s") == 2e12


def test_bit_is_not_dimensionless():
    from core.units import Q_

    assert not Q_(1, "bit").dimensionless
    assert Q_(1, "byte").to("bit").magnitude == 8


def test_currency_has_its_own_dimension():
    assert parse_value("2 kUSD", "USD") == 2000
    with pytest.raises(InputError):
        parse_value("2 kW", "USD")


@pytest.mark.parametrize("text, spec, expected", [
    ("0.5 dB/cm", "dB/m", 50.0), ("0.35 dB/km", "dB/m", 3.5e-4), ("1 dB/m", "dB/m", 1.0),
    ("-3 dB", "dB", -3.0), ("3 dBm", "W", 10 ** 0.3 * 1e-3), ("2 mW", "W", 2e-3), ("5 um", "m", 5e-6),
    ("1310 nm", "m", 1.31e-6), ("10 %", "1", 0.1), ("25 degC", "K", 298.15),
])
def test_parse_value(text, spec, expected):
    assert parse_value(text, spec) == pytest.approx(expected)


@pytest.mark.parametrize("text, spec", [
    (5, "m"), ("3 dB", "W"), ("5 mW", "dB"), ("1 dB/s", "dB/m"), ("xyz", "m"), ("3 m", "1"), (True, "1"),
    ("2 dBm/cm", "dB/m"),
])
def test_parse_value_rejects(text, spec):
    with pytest.raises(InputError):
        parse_value(text, spec)


@given(st.floats(min_value=-200, max_value=200, allow_nan=False))
def test_db_round_trip(db):
    assert float(lin_to_db(db_to_lin(db))) == pytest.approx(db, abs=1e-9)
    assert float(w_to_dbm(dbm_to_w(db))) == pytest.approx(db, abs=1e-9)


@given(st.floats(min_value=1e-15, max_value=1e3))
def test_watt_round_trip(power_w):
    assert float(dbm_to_w(w_to_dbm(power_w))) == pytest.approx(power_w, rel=1e-12)


def test_zero_dbm_is_one_milliwatt():
    assert float(dbm_to_w(0.0)) == pytest.approx(1e-3)
    assert math.isinf(float(lin_to_db(0.0)))


# --- the quantity grammar: one number and a unit, nothing evaluated -------------------------------------------
@pytest.mark.parametrize("text, spec, expected", [
    ("25Gbit/s", "bit/s", 25e9), ("+.5 m", "m", 0.5), ("5. m", "m", 5.0), ("2.5e9 bit/s", "bit/s", 2.5e9),
    ("1.86e-4 / K", "1/K", 1.86e-4), ("10.9 pA/Hz**0.5", "A/Hz**0.5", 10.9e-12), ("3 DBM", "W", 10 ** 0.3 * 1e-3),
    ("inf dB", "dB", math.inf), ("1e-12", "1", 1e-12), ("  7.45 um  ", "m", 7.45e-6),
])
def test_one_number_and_a_unit_is_read(text, spec, expected):
    assert parse_value(text, spec) == pytest.approx(expected)


@pytest.mark.parametrize("text, fragment", [
    ("2,5 Gbit/s", "decimals with a point"),
    ("1,5 mW", "decimals with a point"),
    ("1.5.2 mm", "one decimal point"),
    ("Gbit/s", "starts with no number"),
    ("'50 Gbit/s", "stray quote"),
    ('50 Gbit/s"', "stray quote"),
    ("10**10**10 Gbit/s", "no arithmetic"),
    ("2*3 mW", "no arithmetic"),
    ("(25000 USD + 31250 USD) / 2", "no arithmetic"),
    ("0.8 * 15000 USD", "no arithmetic"),
    ("1 m 2", "cannot read"),
    ("", "cannot read"),
    ("1" * 5000 + " Gbit/s", "characters long"),
    ("1" * 40 + " Gbit/s", "more than 30 digits"),
    ("1e400 Gbit/s", "beyond the range of a float"),
    ("25 lightyears", "unknown unit"),
    ("25 __class__", "cannot read"),
    ("２５ Gbit/s", "cannot read"),  # digits are ASCII
    ("−25 m", "cannot read"),  # and so is the minus sign
])
def test_anything_but_one_number_and_a_unit_is_refused_showing_the_text(text, fragment):
    with pytest.raises(InputError, match=re.escape(fragment)) as info:
        parse_value(text, "bit/s" if "bit" in text else "W" if "mW" in text else "USD" if "USD" in text else "m")
    assert "\n" not in str(info.value) and len(str(info.value)) < 300
    assert text[:20] in str(info.value) or "characters long" in str(info.value)


def test_huge_integers_are_refused_not_converted():
    with pytest.raises(InputError, match="5001-digit number"):
        parse_value(10 ** 5000, "1")


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_any_float_written_out_reads_back_exactly(x):
    assert parse_value(f"{x!r} m", "m") == x


@given(st.text(max_size=40))
def test_arbitrary_text_is_a_value_or_an_input_error(text):
    try:
        value = parse_value(text, "bit/s")
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(value, float)


def test_a_symbol_rate_is_not_a_bit_rate():
    # a PAM4 symbol carries two bits: "50 GBd" for a bit rate would silently halve or double it
    with pytest.raises(InputError, match=r"\[symbol\] / \[time\]"):
        parse_value("50 GBd", "bit/s")
    assert parse_value("25 GBd", "Bd") == 25e9


def test_gb_per_s_is_a_gigabit_per_second():
    assert parse_value("25 Gb/s", "bit/s") == parse_value("25 Gbit/s", "bit/s") == 25e9
    assert parse_value("1 GB", "bit") == 8e9  # B stays the byte


def test_the_everyday_unit_table_agrees_with_the_registry():
    """Every prefixed table symbol, alone and per another, converts to its SI unit as pint converts it (the table
    only spares the import; pint stays the definition)."""
    from core.units import BASE_UNITS, PREFIXES, _NO_PREFIX, registry, table_unit

    ureg = registry()
    si = {"m": "m", "s": "s", "Hz": "Hz", "bit": "bit", "b": "bit", "B": "bit", "bps": "bit/s", "W": "W", "J": "J",
          "A": "A", "V": "V", "K": "K", "USD": "USD", "Bd": "Bd", "byte": "bit", "1": "dimensionless", "Wh": "J",
          "h": "s", "yr": "s", "ohm": "ohm", "F": "F"}
    for symbol in BASE_UNITS:
        for prefix in PREFIXES:
            if prefix and symbol in _NO_PREFIX:
                continue
            name = prefix + symbol
            factor, _ = table_unit(name)
            got = ureg.Quantity(1.0, ureg.parse_units(name)).to(si[symbol]).magnitude
            assert got == pytest.approx(factor, rel=1e-12), name
    for num, num_si in (("Gbit", "bit"), ("pJ", "J"), ("mW", "W"), ("GHz", "Hz"), ("km", "m"), ("MBd", "Bd"),
                        ("kB", "bit"), ("V", "V")):
        for den in ("s", "bit", "m", "K", "Hz", "W", "USD"):
            text = f"{num}/{den}"
            factor, _ = table_unit(text)
            got = ureg.Quantity(1.0, ureg.parse_units(text)).to(f"{num_si}/{si[den]}").magnitude
            assert got == pytest.approx(factor, rel=1e-12), text


@pytest.mark.parametrize("text, spec", [("25 Gbit/s", "bit/s"), ("7.45 um", "m"), ("0.106 pJ/bit", "J/bit"),
                                        ("200 GHz", "Hz"), ("3 mW", "W"), ("100 MB", "bit"), ("1 uA", "A"),
                                        ("10 km", "m"), ("0.7 A/W", "A/W"), ("4700 MHz*km", "Hz*m"),
                                        ("25 GBd", "Bd"), ("15000 USD", "USD"), ("2 Tbps", "bit/s")])
def test_the_fast_path_and_pint_give_the_same_number(text, spec):
    from core.units import registry, split_quantity

    number, unit = split_quantity(text)
    ureg = registry()
    assert parse_value(text, spec) == pytest.approx(ureg.Quantity(number, ureg.parse_units(unit)).to(spec).magnitude,
                                                    rel=1e-12)


def test_reading_design_files_does_not_import_pint():
    import subprocess
    import sys

    code = ("import sys; from sipml.cli import main; main(['budget', '-f', 'json']); "
            "sys.stderr.write(str('pint' in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stderr.strip().endswith("False")


def test_a_capital_kilo_is_refused_with_the_spelling_that_works():
    from core.errors import InputError
    from core.units import parse_value

    with pytest.raises(InputError, match="kilo is a small k: 'kB' \\(or 'KiB' for 1024\\)"):
        parse_value("64 KB", "byte")
    assert parse_value("64 kB", "byte") == 64e3 and parse_value("64 KiB", "byte") == 64 * 1024


def test_a_power_in_dbw_is_a_power():
    """0 dBW is 1 W, 30 dBm: a power written in dBW reads as the same watts its dBm would (it was refused)."""
    from core.units import parse_value

    assert parse_value("0 dBW", "W") == pytest.approx(1.0)
    assert parse_value("-20 dBW", "W") == pytest.approx(parse_value("10 dBm", "W"))
    with pytest.raises(Exception, match="is not"):
        parse_value("3 dBW", "dB")
