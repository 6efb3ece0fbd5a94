"""The project's one unit registry, quantity parsing at the boundary, and decibel helpers.

Inside the physics everything is an SI float (or a numpy array of them) with the unit in the name
(`radius_m`, `rate_bps`, `power_w`). Quantities with units exist only where values enter: design files,
CLI options and the public Python API. Decibels are plain floats handled by the helpers below, because
pint's logarithmic units cannot multiply dB/cm by cm.

The registry is built from `units.txt` beside this file: `bit`, `byte` and `baud` carry an
`[information]` dimension, so `25 Gbit/s` and `25 GHz` are different things, and `USD` carries a
`[currency]` dimension.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pint

from core.errors import InputError

ureg = pint.UnitRegistry(
    str(Path(__file__).with_name("units.txt")),
    autoconvert_offset_to_baseunit=True,
    cache_folder=":auto:",
)
Q_ = ureg.Quantity

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


# --- parsing values with units ------------------------------------------------------------------------
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan"
_DB_FORM = re.compile(rf"^\s*({_NUMBER})\s*(dBm|dB)\s*(?:/\s*(.+?))?\s*$", re.IGNORECASE)

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
    if spec == "1":
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                q = ureg.Quantity(value)
            except Exception as exc:  # pint raises several unrelated types for bad text
                raise InputError(f"cannot read {value!r} as a number") from exc
            if not q.dimensionless:
                raise InputError(f"{value!r} has units ({q.units}), expected a plain number")
            return float(q.to("").magnitude)
        raise InputError(f"got {value!r}, expected a plain number")
    if isinstance(value, (int, float)):
        raise InputError(f"got the bare number {value!r}; write it with its unit ({_describe(spec)})")
    if isinstance(value, pint.Quantity):
        return _convert_quantity(value, spec, repr(value))
    if not isinstance(value, str):
        raise InputError(f"got {value!r}, expected {_describe(spec)}")

    m = _DB_FORM.match(value)
    if m:
        number, log_unit, per = float(m.group(1)), m.group(2), m.group(3)
        log_unit = "dBm" if log_unit.lower() == "dbm" else "dB"
        if spec == "dB" and log_unit == "dB" and per is None:
            return number
        if spec == "W" and log_unit == "dBm" and per is None:
            return float(dbm_to_w(number))
        if spec == "dB/m" and log_unit == "dB" and per is not None:
            try:
                length_m = ureg.Quantity(1.0, per).to("m").magnitude
            except Exception as exc:
                raise InputError(f"{value!r}: '{per}' is not a length") from exc
            return number / length_m
        raise InputError(f"{value!r} is not {_describe(spec)}")
    if spec in SPECIAL_SPECS:
        raise InputError(f"{value!r} is not {_describe(spec)}")
    try:
        q = ureg.Quantity(value)
    except Exception as exc:
        raise InputError(f"cannot read {value!r} as a quantity ({_describe(spec)})") from exc
    return _convert_quantity(q, spec, repr(value))


def _convert_quantity(q, spec: str, shown: str) -> float:
    if spec in SPECIAL_SPECS:
        raise InputError(f"{shown} is not {_describe(spec)}")
    try:
        return float(q.to(spec).magnitude)
    except pint.DimensionalityError as exc:
        raise InputError(
            f"{shown} has dimension {q.dimensionality}, expected {_describe(spec)} "
            f"({ureg.Unit(spec).dimensionality})"
        ) from exc
    except Exception as exc:
        raise InputError(f"cannot convert {shown} to {spec}") from exc


_COMPACT_SPECS = {"m", "s", "Hz", "bit/s", "W", "J/bit", "A", "bit", "USD"}  # shown with an SI prefix


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
    q = ureg.Quantity(value, spec).to_compact()
    return f"{q.magnitude:.6g} {q.units:~}".replace(" / ", "/")
