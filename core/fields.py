"""Field declarations: one place per design parameter for its unit, bounds, help text and source.

A declaration drives parsing (text with units → SI float), validation, `sipml fields`, and report
headers. Values are stored in SI (or dB for ratios) inside frozen dataclasses.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from core.errors import InputError
from core.units import format_si, parse_value


@dataclass(frozen=True, slots=True)
class Spec:
    """What a field accepts. `unit` is a spec understood by `core.units.parse_value`, 'choice' (one of
    `choices`) or 'text' (a name, e.g. a catalog key)."""

    unit: str
    help: str
    source: str
    default_text: str
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False
    choices: tuple[str, ...] = ()
    allow_inf: bool = False

    def parse(self, value):
        """Value from a design file or API call → validated SI float (or a choice string)."""
        if self.unit == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise InputError(f"got {value!r}, expected one of {', '.join(self.choices)}")
            return value
        if self.unit == "text":
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"got {value!r}, expected a non-empty text")
            return value
        if self.integer and not (isinstance(value, int) and not isinstance(value, bool)):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise InputError(f"got {value!r}, expected a whole number")
        number = parse_value(value, self.unit)
        self.check(number)
        return int(number) if self.integer else number

    def check(self, number: float) -> None:
        """Reject NaN, infinities (unless allowed) and values outside the declared range."""
        if math.isnan(number):
            raise InputError("got NaN, expected a number")
        if math.isinf(number) and not self.allow_inf:
            raise InputError("got an infinite value, expected a finite number")
        if self.lo is not None and (number < self.lo or (self.lo_open and number == self.lo)):
            raise InputError(f"{self.show(number)} is out of range, expected {self.range_text()}")
        if self.hi is not None and (number > self.hi or (self.hi_open and number == self.hi)):
            raise InputError(f"{self.show(number)} is out of range, expected {self.range_text()}")

    def show(self, number) -> str:
        if self.unit in ("choice", "text"):
            return str(number)
        if self.integer:
            return f"{int(number)}"
        return format_si(number, self.unit)

    def range_text(self) -> str:
        if self.unit == "choice":
            return " | ".join(self.choices)
        if self.unit == "text":
            return "a name"
        parts = []
        if self.lo is not None:
            parts.append(("> " if self.lo_open else "≥ ") + self.show(self.lo))
        if self.hi is not None:
            parts.append(("< " if self.hi_open else "≤ ") + self.show(self.hi))
        return ", ".join(parts) if parts else "any"


def param(default, unit: str, help: str, source: str, **bounds):
    """Declare a dataclass field: default written with its unit (parsed to SI), unit spec, help and source.
    `bounds` are Spec keywords (lo, hi, lo_open, hi_open, integer, choices, allow_inf); lo/hi in SI."""
    if "choices" in bounds:
        bounds["choices"] = tuple(bounds["choices"])
    spec = Spec(unit=unit, help=help, source=source, default_text=str(default), **bounds)
    value = spec.parse(default)
    return dataclasses.field(default=value, metadata={"spec": spec})


def positive(default, unit: str, help: str, source: str, **bounds):
    """A field that must be strictly greater than zero."""
    return param(default, unit, help, source, lo=0.0, lo_open=True, **bounds)


def non_negative(default, unit: str, help: str, source: str, **bounds):
    """A field that must be zero or more."""
    return param(default, unit, help, source, lo=0.0, **bounds)


def specs(cls) -> dict[str, Spec]:
    """Field name → Spec of a declared dataclass, in declaration order."""
    return {f.name: f.metadata["spec"] for f in dataclasses.fields(cls) if "spec" in f.metadata}
