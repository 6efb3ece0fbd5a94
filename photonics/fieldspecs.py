"""Field specs for the optical link beyond core's unit specs: spectral intervals written as a frequency or a
wavelength span, noise densities in dB/Hz, and lists of named losses.

Each is a `core.fields.Spec` (same parse / check / show / range_text protocol), so design files, `sipml fields`,
`sipml init` and the docs treat them like every other field. A wavelength span cannot become Hz without the link's
centre wavelength, so it is stored as a `WavelengthSpan` and converted by `to_hz` when the link is evaluated.
"""

from __future__ import annotations

import dataclasses
import math
import re

from core.errors import InputError
from core.fields import Spec
from core.units import format_si, parse_value
from photonics.constants import SPEED_OF_LIGHT_M_PER_S as C


class WavelengthSpan(float):
    """A spectral interval written as a wavelength span: the float is in metres (or metres per kelvin)."""

    __slots__ = ()


def to_hz(value, wavelength_m: float) -> float:
    """A spectral interval in Hz (or Hz/K): a frequency as it is, a wavelength span Δλ as c·Δλ/λ² at λ."""
    if isinstance(value, WavelengthSpan):
        return C * float(value) / wavelength_m**2
    return float(value)


class SpectralSpec(Spec):
    """A frequency interval ('200 GHz', '10 GHz/K') or a wavelength span ('1.6 nm', '0.08 nm/K'). `unit` names both
    forms, e.g. 'Hz | m'; bounds are in the frequency form and apply once the span is converted."""

    __slots__ = ()

    def _units(self) -> tuple[str, str]:
        frequency, wavelength = (part.strip() for part in self.unit.split("|"))
        return frequency, wavelength

    def parse(self, value):
        frequency, wavelength = self._units()
        try:
            number = parse_value(value, frequency)
        except InputError:
            try:
                number = WavelengthSpan(parse_value(value, wavelength))
            except InputError:
                raise InputError(f"got {value!r}, expected a frequency interval ({frequency}) or a wavelength span "
                                 f"({wavelength}) with its unit, e.g. '{self.default_text}'") from None
        self.check(number)
        return number

    def check(self, number: float) -> None:
        if isinstance(number, WavelengthSpan):
            if not (math.isfinite(number) and number > 0.0):
                raise InputError(f"{self.show(number)} is out of range, expected a positive, finite span")
            return
        super().check(number)

    def show(self, number) -> str:
        frequency, _ = self._units()
        per = frequency.removeprefix("Hz")  # '' or '/K'
        if isinstance(number, WavelengthSpan):
            return f"{float(number) * 1e9:.12g} nm{per}"
        return format_si(number, frequency) if not per else f"{float(number) / 1e9:.12g} GHz{per}"

    def range_text(self) -> str:
        frequency, _ = self._units()
        limits = [("> " if self.lo_open else "≥ ") + format_si(self.lo, frequency)] if self.lo is not None else []
        if self.hi is not None:
            limits.append(("< " if self.hi_open else "≤ ") + format_si(self.hi, frequency))
        return ", ".join(limits) + " (a wavelength span counts at the centre wavelength)"


_DB_PER_HZ = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf)\s*dB\s*/\s*Hz\s*$",
                        re.IGNORECASE | re.ASCII)  # ASCII digits only, as every number read (core.units.whole_number)


class DbPerHzSpec(Spec):
    """A spectral density in decibels per hertz, written '-135 dB/Hz' (RIN)."""

    __slots__ = ()

    def parse(self, value):
        match = _DB_PER_HZ.match(value) if isinstance(value, str) else None
        if match is None:
            raise InputError(f"got {value!r}, expected a density in dB/Hz, e.g. '-135 dB/Hz'")
        number = float(match.group(1))
        self.check(number)
        return number

    def show(self, number) -> str:
        return f"{number:g} dB/Hz"


SOURCE_WORD = "source"  # a RIN left to the source type (photonics.link_design.SOURCE_RIN)


class RinSpec(DbPerHzSpec):
    """A laser's RIN in dB/Hz, or the word 'source' (held as None): the source type's own figure."""

    __slots__ = ()

    def parse(self, value):
        if value is None or (isinstance(value, str) and value.strip().lower() == SOURCE_WORD):
            return None
        try:
            return super().parse(value)
        except InputError:
            raise InputError(f"got {value!r}, expected a density in dB/Hz, e.g. '-135 dB/Hz', or '{SOURCE_WORD}' "
                             "(the source type's own figure)") from None

    def show(self, number) -> str:
        return SOURCE_WORD if number is None else super().show(number)

    def range_text(self) -> str:
        return f"{super().range_text()}, or '{SOURCE_WORD}'"


class LossListSpec(Spec):
    """Named losses written 'name: loss; name: loss' (each a ratio in dB, ≥ 0), or a TOML table {name = "loss"}.
    Stored as the normalised text; `named_losses` reads it."""

    __slots__ = ()

    def parse(self, value):
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, str):
            parts = [part for part in value.split(";") if part.strip()]
            bare = [part.strip() for part in parts if ":" not in part]
            if bare:
                raise InputError(f"{bare[0]!r}: each item is 'name: loss', e.g. 'patch panel: 0.5 dB'")
            items = [part.rpartition(":")[::2] for part in parts]
        else:
            raise InputError(f"got {value!r}, expected 'name: loss; …' e.g. 'patch panel: 0.5 dB'")
        out = []
        for name, loss in items:
            name = str(name).strip()
            if not name:
                raise InputError(f"got {value!r}: each item needs a name before ':', e.g. 'patch panel: 0.5 dB'")
            db = parse_value(loss.strip() if isinstance(loss, str) else loss, "dB")
            if not (math.isfinite(db) and db >= 0.0):
                raise InputError(f"{name}: {loss!r} is out of range, expected a finite loss ≥ 0 dB")
            out.append(f"{name}: {db:g} dB")
        return "; ".join(out)

    def check(self, number) -> None:
        named_losses(number)

    def show(self, number) -> str:
        return str(number)

    def range_text(self) -> str:
        return "'name: loss; …', each loss ≥ 0 dB (empty: none)"


def named_losses(text: str) -> tuple[tuple[str, float], ...]:
    """(name, loss in dB) of every item of a normalised loss list (see `LossListSpec`)."""
    pairs = (part.rpartition(":") for part in text.split(";") if part.strip())
    return tuple((name.strip(), float(loss.strip().removesuffix("dB"))) for name, _, loss in pairs)


def declare(spec_type: type[Spec], default, unit: str, help: str, source: str, **bounds):
    """A dataclass field declared like `core.fields.param`, with a spec of `spec_type` (sweepable unless
    `sweepable=False`)."""
    bounds.setdefault("sweepable", True)
    spec = spec_type(unit=unit, help=help, source=source, default_text=str(default), **bounds)
    return dataclasses.field(default=spec.parse(default), metadata={"spec": spec})
