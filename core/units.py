"""The project's one unit registry, quantity parsing at the boundary, and decibel helpers.

Inside the physics everything is an SI float (or a numpy array of them) with the unit in the name
(`radius_m`, `rate_bps`, `power_w`). Quantities with units exist only where values enter: design files,
CLI options and the public Python API. Decibels are plain floats handled by the helpers below, because
pint's logarithmic units cannot multiply dB/cm by cm.

The registry is built from `units.txt` beside this file: `bit` and `byte` carry an `[information]` dimension,
so `25 Gbit/s` and `25 GHz` are different things, the baud a `[symbol]` per second, and `USD` a `[currency]`.
pint is imported on first need (`ureg`, `Q_` are built then): the units design files use every day — an SI
prefix on m, s, Hz, bit, B, W, J, A, K, V, USD, Bd, optionally per one of them — are converted by a table
that a test checks against the registry, so a command that only reads design files starts without pint.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
import sys
from pathlib import Path

import numpy as np

from core.errors import InputError, shown


@functools.cache
def registry():
    """The project's pint registry (built once, on first use)."""
    import pint

    return pint.UnitRegistry(str(Path(__file__).with_name("units.txt")), autoconvert_offset_to_baseunit=True,
                             cache_folder=":auto:")


def __getattr__(name: str):
    if name == "ureg":
        return registry()
    if name == "Q_":
        return registry().Quantity
    raise AttributeError(f"module 'core.units' has no attribute {name!r}")


def _is_quantity(value) -> bool:
    pint = sys.modules.get("pint")
    return pint is not None and isinstance(value, pint.Quantity)


# --- the table of everyday units (checked against the registry by tests/core/test_units.py) ----------------
PREFIXES = {"E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "": 1.0, "c": 1e-2, "m": 1e-3,
            "u": 1e-6, "µ": 1e-6, "μ": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18,
            "Ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40}  # IEC binary prefixes
# symbol → (factor to the base unit, dimension exponents over length, time, information, mass, current,
# temperature, currency, symbol)
BASE_UNITS = {
    "m": (1.0, (1, 0, 0, 0, 0, 0, 0, 0)), "s": (1.0, (0, 1, 0, 0, 0, 0, 0, 0)),
    "Hz": (1.0, (0, -1, 0, 0, 0, 0, 0, 0)), "bit": (1.0, (0, 0, 1, 0, 0, 0, 0, 0)),
    "b": (1.0, (0, 0, 1, 0, 0, 0, 0, 0)), "B": (8.0, (0, 0, 1, 0, 0, 0, 0, 0)),
    "bps": (1.0, (0, -1, 1, 0, 0, 0, 0, 0)), "W": (1.0, (2, -3, 0, 1, 0, 0, 0, 0)),
    "J": (1.0, (2, -2, 0, 1, 0, 0, 0, 0)), "A": (1.0, (0, 0, 0, 0, 1, 0, 0, 0)),
    "V": (1.0, (2, -3, 0, 1, -1, 0, 0, 0)), "K": (1.0, (0, 0, 0, 0, 0, 1, 0, 0)),
    "ohm": (1.0, (2, -3, 0, 1, -2, 0, 0, 0)), "F": (1.0, (-2, 4, 0, -1, 2, 0, 0, 0)),
    "USD": (1.0, (0, 0, 0, 0, 0, 0, 1, 0)), "Bd": (1.0, (0, -1, 0, 0, 0, 0, 0, 1)),
    "byte": (8.0, (0, 0, 1, 0, 0, 0, 0, 0)), "1": (1.0, (0, 0, 0, 0, 0, 0, 0, 0)),
    "Wh": (3600.0, (2, -2, 0, 1, 0, 0, 0, 0)), "h": (3600.0, (0, 1, 0, 0, 0, 0, 0, 0)),
    "yr": (365.25 * 86400.0, (0, 1, 0, 0, 0, 0, 0, 0)),  # pint's year: the Julian year of 365.25 days
}
_NO_PREFIX = {"K", "USD", "byte", "1", "h", "yr"}  # no prefix in the table for these (pint decides such spellings)


@functools.cache
def _simple_unit(text: str):
    """(factor, dimensions) of a prefixed table symbol, or None."""
    for symbol, (factor, dims) in BASE_UNITS.items():
        if text == symbol:
            return factor, dims
    for symbol, (factor, dims) in BASE_UNITS.items():
        if symbol in _NO_PREFIX or not text.endswith(symbol):
            continue
        prefix = text[: -len(symbol)]
        if prefix in PREFIXES and prefix:
            return factor * PREFIXES[prefix], dims
    return None


_FACTOR = re.compile(r"([^^]+?)(?:\^([-+]?\d+(?:\.\d+)?))?", re.ASCII)


@functools.cache
def table_unit(text: str):
    """(factor to SI, dimensions) of a product/quotient of table symbols with numeric powers ('ps/nm**2/km',
    'pA/Hz**0.5', '1/K'; no spaces), read left to right as pint reads it; None when a part is not in the table or
    the factor passes a float."""
    text = re.sub(r"\s*(\*\*|[*/])\s*", r"\1", text.strip())
    if not text or " " in text:
        return None
    tokens = re.split(r"([*/])", ("1" + text if text.startswith("/") else text).replace("**", "^"))
    factor, dims, sign = 1.0, (0.0,) * 8, 1
    for i, token in enumerate(tokens):
        if i % 2:
            sign = -1 if token == "/" else 1
            continue
        match = _FACTOR.fullmatch(token)
        if not token or match is None:
            return None
        found = _simple_unit(match.group(1))
        if found is None:
            return None
        power = sign * float(match.group(2) or 1)
        try:
            factor *= found[0] ** power
        except OverflowError:  # 'km**400': beyond a float, not a unit of the table
            return None
        dims = tuple(d + power * e for d, e in zip(dims, found[1]))
    return factor, dims


# --- decibels ---------------------------------------------------------------------------------------
def db_to_lin(db):
    """Power ratio from decibels: 10^(dB/10)."""
    return np.power(10.0, np.asarray(db, dtype=float) / 10.0)


def lin_to_db(ratio):
    """Decibels from a power ratio: 10·log10(ratio). A ratio of 0 gives -inf."""
    with np.errstate(divide="ignore"):
        return 10.0 * np.log10(np.asarray(ratio, dtype=float))


def dbm_to_w(dbm):
    """Watts from dBm (0 dBm = 1 mW)."""
    return 1e-3 * db_to_lin(dbm)


def w_to_dbm(power_w):
    """dBm from watts."""
    return lin_to_db(np.asarray(power_w, dtype=float) / 1e-3)


# --- the quantity grammar ------------------------------------------------------------------------------
# A quantity is one number (optional sign, decimals, exponent) and a unit, nothing else. The text is matched
# against this grammar before anything reads it, and only the unit (names, '/', '*', small powers) reaches pint:
# no arithmetic, no expressions, nothing evaluated as code, in a design file, a --set value or a catalog.
MAX_QUANTITY_CHARS = 100  # longer text is refused before it is matched
MAX_NUMBER_DIGITS = 30  # a float carries 17 significant digits; more are a typing error or an attack

_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?i:inf(?:inity)?)|(?i:nan)"  # ASCII
_UNIT_NAME = r"(?:[^\W\d_]\w*|°[CF]|%)"  # a letter (µ, Ω included), then letters, digits, '_'; °C, °F; or '%'
_TERM = rf"{_UNIT_NAME}(?:(?:\*\*|\^)[-+]?[0-9]{{1,2}}(?:\.[0-9]{{1,3}})?)?"
_UNIT = rf"(?:1?\s*/\s*)?{_TERM}(?:\s*[*/]\s*{_TERM}|\s+{_TERM})*"
_QUANTITY = re.compile(rf"\s*(?P<number>{_NUMBER})\s*(?P<unit>{_UNIT})?\s*")
_LOG_UNIT = re.compile(r"(dBm|dBW|dB)(?:\s*/\s*(.+))?", re.IGNORECASE)


def is_unit(text: str) -> bool:
    """Whether `text` alone is a unit of the table or a decibel form ('Gbit/s', 'mW', 'dB', 'dBm', 'dB/km'):
    pint's further spellings aside, as a hint needs no more."""
    text = text.strip()
    return bool(text) and (table_unit(text) is not None or _LOG_UNIT.fullmatch(text) is not None)


def split_quantity(text: str) -> tuple[float, str]:
    """(number, unit text) of a quantity written as one number and a unit ('' when it has none). Anything
    else (a decimal comma, two dots, a unit alone, quotes, arithmetic) is an InputError showing the text."""
    if len(text) > MAX_QUANTITY_CHARS:
        raise InputError(f"{shown(text)} is {len(text)} characters long, expected a number and a unit "
                         f"(at most {MAX_QUANTITY_CHARS} characters)")
    m = _QUANTITY.fullmatch(text)
    if m is None:
        raise InputError(f"cannot read {shown(text)} as one number and a unit{_grammar_hint(text)}")
    number_text, unit = m.group("number"), (m.group("unit") or "").strip()
    if sum(c.isdigit() for c in number_text) > MAX_NUMBER_DIGITS:
        raise InputError(f"{shown(text)}: the number has more than {MAX_NUMBER_DIGITS} digits")
    number = float(number_text)
    if math.isinf(number) and "inf" not in number_text.lower():
        raise InputError(f"{shown(text)}: the number is beyond the range of a float (about 1.8e308)")
    if unit.startswith("/"):
        unit = "1" + unit
    return number, _DEGREES.get(unit, unit)


_DEGREES = {"°C": "degC"}  # the symbol pint writes (a quantity's `~` format) and cannot read back


def _grammar_hint(text: str) -> str:
    stripped = text.strip()
    if "," in stripped:
        return " (write decimals with a point, e.g. '2.5 Gbit/s', and no thousands separators)"
    if any(q in stripped for q in "'\"`"):
        return " (a stray quote)"
    if re.search(r"\d\.\d*\.", stripped):
        return " (a number has one decimal point)"
    if re.search(r"[*/+\-^(]\s*[\d(.]|\)", stripped):
        return " (no arithmetic: write the value out)"
    if stripped and not (stripped[0].isdigit() or stripped[0] in "+-."):
        return " (it starts with no number; write e.g. '1 Gbit/s')"
    return ""


# --- plain numbers on the command line ----------------------------------------------------------------------
# One rule for digits everywhere a number is read from text (the quantity grammar above, TOML, --strategy,
# --groups, --vary counts, the CLI's counts): ASCII digits 0-9 only. Python's int() and float() also read every
# Unicode decimal digit ('８' full-width is 8) and refuse other digits ('²' superscript), so they are called only
# on text this grammar has matched.
_WHOLE = re.compile(r"[0-9]+")
_PLAIN_NUMBER = re.compile(_NUMBER)


def whole_number(text: str, *, lo: int = 0, hi: int | None = None, what: str = "") -> int:
    """A whole number written in ASCII digits ('8', ' 1024 '), within lo … hi; InputError (prefixed by `what`, e.g.
    '--batch') for a sign, a decimal point, an underscore, a non-ASCII digit ('８', '²'), too many digits, or a value
    out of range. A `what` ending in '=' ('--strategy tp=') is followed by the text directly."""
    prefix = f"{what}{'' if not what or what.endswith('=') else ' '}{shown(text)}: "
    digits = str(text).strip()
    top = hi if hi is not None else 10 ** MAX_NUMBER_DIGITS
    expected = f"expected a whole number {f'from {lo:,} to {top:,}' if hi is not None else f'≥ {lo:,}'}"
    if _WHOLE.fullmatch(digits) is None:
        raise InputError(f"{prefix}{expected}, in digits 0-9")
    if len(digits.lstrip("0")) > len(str(top)) or not lo <= int(digits) <= top:
        raise InputError(f"{prefix}{expected}")
    return int(digits)


def plain_number(text: str, what: str = "") -> float:
    """A number written as the quantity grammar writes one (ASCII digits, a point, an exponent; 'inf', 'nan'),
    without a unit; InputError otherwise. Range checks are the caller's."""
    prefix = f"{what}{'' if not what or what.endswith('=') else ' '}{shown(text)}: "
    stripped = str(text).strip()
    if len(stripped) > MAX_QUANTITY_CHARS or _PLAIN_NUMBER.fullmatch(stripped) is None:
        raise InputError(f"{prefix}expected a number (digits 0-9, a decimal point, an exponent: '3e11')")
    if sum(c.isdigit() for c in stripped) > MAX_NUMBER_DIGITS:
        raise InputError(f"{prefix}the number has more than {MAX_NUMBER_DIGITS} digits")
    number = float(stripped)
    if math.isinf(number) and "inf" not in stripped.lower():
        raise InputError(f"{prefix}the number is beyond the range of a float (about 1.8e308)")
    return number


def _finite_number(value) -> float:
    """A plain number from a file or an API call as a float; integers beyond a float's range are refused."""
    try:
        return float(value)
    except OverflowError:
        raise InputError(f"{shown(value)} is beyond the range of a float (about 1.8e308)") from None


# Unit specs used by field declarations and kernels, with the SI unit they are stored in.
#   "dB"      a ratio in decibels, written "3 dB"
#   "dB/m"    a loss per length, written "0.5 dB/cm", "0.35 dB/km"
#   "W"       a power, written "2 mW" or "3 dBm"
#   anything else: a pint unit expression; the value is converted to it
SPECIAL_SPECS = {"dB", "dB/m"}


def _describe(spec: str) -> str:
    return {
        "dB": "a ratio in dB, e.g. '3 dB'",
        "dB/m": "a loss per length, e.g. '0.5 dB/cm'",
        "W": "a power, e.g. '2 mW' or '3 dBm'",
        "1": "a plain number",
    }.get(spec, f"a quantity convertible to {spec}")


def parse_value(value, spec: str) -> float:
    """Convert `value` (a string with units, a number for dimensionless specs, or a pint Quantity)
    to a float in the SI unit named by `spec`. Raises InputError with a message saying what was
    expected; never assumes a unit for a bare number unless `spec` is dimensionless ("1")."""
    if isinstance(value, bool):
        raise InputError(f"got {value!r}, expected {_describe(spec)}")
    if isinstance(value, numbers.Real):
        if spec == "1":
            return _finite_number(value)
        raise InputError(f"got the bare number {shown(value)}; write it with its unit ({_describe(spec)})")
    if _is_quantity(value):
        return _convert_quantity(value, spec, shown(value))
    if not isinstance(value, str):
        raise InputError(f"got {shown(value)}, expected {_describe(spec)}")

    number, unit = split_quantity(value)
    m = _LOG_UNIT.fullmatch(unit)
    if m:
        log_unit = {"dbm": "dBm", "dbw": "dBW"}.get(m.group(1).lower(), "dB")
        per = m.group(2)
        if spec == "dB" and log_unit == "dB" and per is None:
            return number
        if spec == "W" and log_unit in ("dBm", "dBW") and per is None:  # 0 dBW = 1 W = 30 dBm
            with np.errstate(over="ignore"):
                watts = float(dbm_to_w(number + (30.0 if log_unit == "dBW" else 0.0)))
            if math.isinf(watts) and math.isfinite(number):
                raise InputError("beyond any power a number holds (they end near 1.8e308 W, 3,112 dBm)")
            return watts
        if spec == "dB/m" and log_unit == "dB" and per is not None:
            try:
                known = table_unit(per)
                if known is not None and known[1] == BASE_UNITS["m"][1]:
                    length_m = known[0]
                else:
                    length_m = registry().Quantity(1.0, registry().parse_units(per)).to("m").magnitude
            except Exception as exc:  # pint raises several unrelated types for a bad unit
                raise InputError(f"{shown(value)}: '{per}' is not a length") from exc
            return number / length_m
        raise InputError(f"{shown(value)} is not {_describe(spec)}")
    if not unit:
        if spec == "1":
            return number
        raise InputError(f"{shown(value)} has no unit; write it with its unit ({_describe(spec)})")
    if spec in SPECIAL_SPECS:
        raise InputError(f"{shown(value)} is not {_describe(spec)}")
    known, target = table_unit(unit), table_unit(spec)
    if known is not None and target is not None and known[1] == target[1]:
        return number * known[0] / target[0]
    ureg = registry()
    try:
        q = ureg.Quantity(number, ureg.parse_units(unit))
    except Exception as exc:  # pint raises several unrelated types for a bad unit
        hint = ""
        if re.match(r"K(B|b|bit|byte|Hz|m|W)\b", unit):  # SI's kilo is a small k; 1024 is Ki
            hint = f"; kilo is a small k: '{'k' + unit[1:]}' (or '{'Ki' + unit[1:]}' for 1024)"
        raise InputError(f"{shown(value)}: unknown unit '{unit}' ({_describe(spec)}){hint}") from exc
    return _convert_quantity(q, spec, shown(value))


def _convert_quantity(q, spec: str, shown_text: str) -> float:
    if spec in SPECIAL_SPECS:
        raise InputError(f"{shown_text} is not {_describe(spec)}")
    if spec == "1" and not q.dimensionless:
        raise InputError(f"{shown_text} has units ({q.units}), expected a plain number")
    import pint

    try:
        return float(q.to(spec).magnitude)
    except pint.DimensionalityError as exc:
        raise InputError(
            f"{shown_text} has dimension {q.dimensionality}, expected {_describe(spec)} "
            f"({registry().Unit(spec).dimensionality})"
        ) from exc
    except Exception as exc:
        raise InputError(f"cannot convert {shown_text} to {spec}") from exc


_COMPACT_SPECS = {"m", "s", "Hz", "bit/s", "W", "J/bit", "A", "bit"}  # shown with an SI prefix
_SHOWN_PREFIXES = {24: "Y", 21: "Z", 18: "E", 15: "P", 12: "T", 9: "G", 6: "M", 3: "k", 0: "", -3: "m", -6: "µ",
                   -9: "n", -12: "p", -15: "f", -18: "a", -21: "z", -24: "y"}


def format_si(value: float, spec: str) -> str:
    """Human text for an SI float in the unit `spec` (used when printing defaults)."""
    if spec == "dB":
        return f"{value:g} dB"
    if spec == "dB/m":
        return f"{value / 100:g} dB/cm" if abs(value) >= 1 else f"{value * 1000:g} dB/km"
    if spec == "1":
        return f"{value:g}"
    if spec == "W":
        return f"{value * 1e3:g} mW"
    if spec not in _COMPACT_SPECS or not math.isfinite(value) or value == 0:
        return f"{value:g} {spec}"  # the declared unit itself: always parses back
    exponent = min(max(3 * math.floor(math.log10(abs(value)) / 3), -24), 24)
    return f"{value / 10.0 ** exponent:.6g} {_SHOWN_PREFIXES[exponent]}{spec}"
