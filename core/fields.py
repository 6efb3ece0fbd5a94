"""Field declarations: one place per design parameter for its unit, bounds, help text, source, the condition
under which it has an effect, and whether a sweep may vary it.

A declaration drives parsing (text with units → SI float), validation on construction, `sipml fields`, the
no-effect check of design files and report headers. Values are stored in SI (or dB for ratios) inside frozen
dataclasses that derive from `Section`, so a section built from Python is checked exactly as one read from a
file: `LinkSection(data_rate=25)` is refused as a bare number, `wavelengths_per_fiber=0` as out of range.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import typing
from typing import ClassVar

from core.errors import InputError, shown
from core.records import record
from core.units import format_si, parse_value

TEXT_SPECS = ("choice", "text", "prose")  # unit specs whose values are words, not numbers
MAX_PROSE_CHARS = 2000  # a description or a note is a sentence or a paragraph
MAX_NAME_CHARS = 100  # a catalog entry's name is a few dozen characters
MIN_EFFICIENCY = 1e-3  # [assumed] an efficiency below 0.1 % describes no real device (and overflows the times)


MAX_COUNT = 2**53  # a count is an exact float64 integer: anything larger is no count of anything [assumed]


@record
class When:
    """The condition under which a field (or a section) has an effect: the field `key` of section `section`
    holds one of `values`, or, with `above`, a number above it. Conditions are data, so a lower floor can name a
    key of a higher one ('[fabric] kind') without importing it; the design file reader evaluates them."""

    section: str
    key: str
    values: tuple = ()
    above: float | None = None

    def holds(self, value) -> bool:
        return value > self.above if self.above is not None else value in self.values

    def text(self) -> str:
        if self.above is not None:
            return f"[{self.section}] {self.key} > {self.above:g}"
        return f"[{self.section}] {self.key} = " + " or ".join(f"'{v}'" for v in self.values)


def when(section: str, key: str, *values) -> When:
    """A field applies only when [section] key is one of `values`."""
    return When(section, key, values=tuple(values))


def when_above(section: str, key: str, number: float) -> When:
    """A field applies only when [section] key is above `number`."""
    return When(section, key, above=number)


@record
class AllOf:
    """Several conditions that must all hold."""

    conditions: tuple[When, ...]

    def text(self) -> str:
        return " and ".join(c.text() for c in self.conditions)


def all_of(*conditions) -> When | AllOf | None:
    """The conditions together (None ones dropped, nested ones flattened); one condition stays itself."""
    flat: list[When] = []
    for c in conditions:
        if c is None:
            continue
        flat.extend(c.conditions if isinstance(c, AllOf) else (c,))
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else AllOf(tuple(flat))


def conditions_of(cond) -> tuple[When, ...]:
    """The single conditions a When or AllOf (or None) is made of."""
    if cond is None:
        return ()
    return cond.conditions if isinstance(cond, AllOf) else (cond,)


@record
class Spec:
    """What a field accepts. `unit` is a spec understood by `core.units.parse_value`, 'choice' (one of
    `choices`), 'text' (a name, e.g. a catalog key; `choices` then lists the words that are not names, such as
    'none') or 'prose' (a line of free text: a description). `at_least`, `at_most` and `above` name another field of the same section this value is bounded by;
    `applies_when` says when the field has an effect; `sweepable` marks a numeric design axis a sweep may vary
    (constants of a fit, a material or a standard are not)."""

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
    allow_inf: bool = False  # +inf is accepted (beyond `hi` too): a limit that is not there
    allow_minus_inf: bool = False  # -inf is accepted: a level that is not there (a RIN of -inf dB/Hz: none)
    applies_when: When | AllOf | None = None
    sweepable: bool = False
    at_least: str | None = None
    at_most: str | None = None
    above: str | None = None
    level: bool = False  # an optical power, read as a level: shown in dBm, stepped in dB (`sipml explain`)

    @property
    def numeric(self) -> bool:
        return self.unit not in TEXT_SPECS

    def parse(self, value):
        """Value from a design file or a --set → validated SI float, int (counts) or string. Strict: a
        dimensioned value must be written with its unit."""
        if self.unit == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise InputError(f"got {shown(value)}, expected one of {', '.join(self.choices)}")
            return value
        if self.unit == "text":
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"got {shown(value)}, expected a non-empty name")
            if value not in self.choices and not _is_name(value):
                raise InputError(f"got {shown(value)}, expected a name of at most {MAX_NAME_CHARS} letters, digits, "
                                 f"'_', '-' and '.'")
            return value
        if self.unit == "prose":
            if not isinstance(value, str) or not value.strip() or len(value) > MAX_PROSE_CHARS or not all(
                    c.isprintable() for c in value):
                raise InputError(f"got {shown(value)}, expected one line of text of at most {MAX_PROSE_CHARS} "
                                 "characters")
            return value
        if self.integer:
            return self._count(value)
        try:
            number = parse_value(value, self.unit)
        except OverflowError:
            raise InputError(f"got {shown(value)[:40]}…, a number beyond float range") from None
        self.check(number)
        return number

    def accept(self, value):
        """Value given to a section's constructor → validated value. As `parse`, except that a float for a
        dimensioned field is taken as already in the declared SI unit (what the field holds, and what code
        passes on); an int there is refused as a bare number, since a whole number is where a forgotten unit
        shows (25 meant as Gbit/s)."""
        if self.numeric and not self.integer and self.unit != "1" and isinstance(value, float):
            self.check(value)
            return value
        return self.parse(value)

    def _count(self, value) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InputError(f"got {shown(value)}, expected a whole number")
        value = int(value)
        self._check_range(value)
        if abs(value) > MAX_COUNT:
            raise InputError(f"got a count of {len(str(abs(value)))} digits, expected at most {MAX_COUNT:.0e}")
        return value

    def check(self, number: float) -> None:
        """Reject NaN, infinities (unless allowed) and values outside the declared range."""
        if math.isnan(number):
            raise InputError("got NaN, expected a number")
        if number == math.inf and not self.allow_inf or number == -math.inf and not self.allow_minus_inf:
            raise InputError(f"got an infinite value ({'' if number > 0 else '-'}inf), expected a finite number"
                             + (" or -inf" if self.allow_minus_inf else " or inf" if self.allow_inf else ""))
        self._check_range(number)

    def _check_range(self, number) -> None:
        if self.lo is not None and (number < self.lo or (self.lo_open and number == self.lo)):
            raise InputError(f"{self.show(number)} is out of range, expected {self.range_text()}")
        if self.hi is not None and (number > self.hi or (self.hi_open and number == self.hi)) and not (
                self.allow_inf and number == math.inf):
            raise InputError(f"{self.show(number)} is out of range, expected {self.range_text()}")

    def show(self, number) -> str:
        if self.unit in TEXT_SPECS:
            return str(number)
        if self.integer:
            return shown(int(number))
        return format_si(number, self.unit)

    def range_text(self) -> str:
        if self.unit == "choice":
            return " | ".join(self.choices)
        if self.unit == "text":
            return "a name" + "".join(f" or '{c}'" for c in self.choices)
        if self.unit == "prose":
            return f"a line of text (≤ {MAX_PROSE_CHARS} characters)"
        parts = []
        if self.lo is not None:
            parts.append(("> " if self.lo_open else "≥ ") + self.show(self.lo))
        if self.hi is not None:
            parts.append(("< " if self.hi_open else "≤ ") + self.show(self.hi))
        if self.allow_inf:
            parts.append("or inf")
        if self.allow_minus_inf:
            parts.append("or -inf")
        parts += [f"{sign} {key}" for sign, key in (("≥", self.at_least), ("≤", self.at_most), (">", self.above))
                  if key]
        return ", ".join(parts) if parts else "any"


def _is_name(text: str) -> bool:
    return len(text) <= MAX_NAME_CHARS and text.isascii() and all(c.isalnum() or c in "_-." for c in text)


def param(default, unit: str, help: str, source: str, **bounds):
    """Declare a dataclass field: default written with its unit (parsed to SI), unit spec, help and source.
    `bounds` are Spec keywords (lo, hi, lo_open, hi_open, integer, choices, allow_inf, allow_minus_inf, applies_when,
    sweepable, at_least, at_most, above, level); lo/hi in SI. Numeric fields are sweepable unless `sweepable=False`."""
    if "choices" in bounds:
        bounds["choices"] = tuple(bounds["choices"])
    bounds.setdefault("sweepable", unit not in TEXT_SPECS)
    spec = Spec(unit=unit, help=help, source=source, default_text=str(default), **bounds)
    value = spec.parse(default)
    return dataclasses.field(default=value, metadata={"spec": spec})


def positive(default, unit: str, help: str, source: str, **bounds):
    """A field that must be strictly greater than zero (or at least a stricter `lo`)."""
    return param(default, unit, help, source, **{"lo": 0.0, "lo_open": True, **bounds})


def non_negative(default, unit: str, help: str, source: str, **bounds):
    """A field that must be zero or more (or at least a stricter `lo`)."""
    return param(default, unit, help, source, **{"lo": 0.0, **bounds})


@functools.cache
def specs(cls) -> dict[str, Spec]:
    """Field name → Spec of a declared dataclass, in declaration order."""
    return {f.name: f.metadata["spec"] for f in dataclasses.fields(cls) if "spec" in f.metadata}


def sweepable(cls) -> tuple[str, ...]:
    """The fields of a declared section that a sweep may vary."""
    return tuple(name for name, spec in specs(cls).items() if spec.sweepable)


class FieldError(InputError):
    """A value a section refused on construction. `detail` names the key, shows the value and says why; the
    message prefixes it with the section, and a design file reader with the file as well."""

    def __init__(self, section: str, detail: str):
        super().__init__(f"[{section}] {detail}")
        self.section = section
        self.detail = detail


class Section:
    """Base of the declared sections (frozen, keyword-only dataclasses of `param` fields). Construction
    validates every field against its declaration and the bounds one field puts on another (`at_least`,
    `at_most`, `above`), and stores the SI value; each refusal is a FieldError naming the section and key."""

    __slots__ = ()
    section_name: ClassVar[str] = ""

    def __post_init__(self) -> None:
        declared = specs(type(self))
        for key, spec in declared.items():
            value = getattr(self, key)
            try:
                checked = spec.accept(value)
            except InputError as exc:
                raise FieldError(self.section_name, f"{key} = {shown(value)}: {exc}") from None
            if checked is not value:
                object.__setattr__(self, key, checked)
        for key, spec in _related(type(self)):
            self._check_relations(key, spec, declared)

    def applies(self, spec: Spec) -> bool:
        """False when a condition of the field on this section's own fields fails (other conditions are the
        design reader's to judge)."""
        return all(c.section != self.section_name or c.holds(getattr(self, c.key))
                   for c in conditions_of(spec.applies_when))

    def _check_relations(self, key: str, spec: Spec, declared: dict[str, Spec]) -> None:
        for other, fails, words in ((spec.at_least, lambda a, b: a < b, "below"),
                                    (spec.at_most, lambda a, b: a > b, "above"),
                                    (spec.above, lambda a, b: a <= b, "not above")):
            if other is None or not (self.applies(spec) and self.applies(declared[other])):
                continue
            mine, theirs = getattr(self, key), getattr(self, other)
            if fails(mine, theirs):
                raise FieldError(self.section_name, f"{key} = {spec.show(mine)} is {words} {other} = "
                                                    f"{declared[other].show(theirs)}: expected {spec.range_text()}")


@functools.cache
def _related(cls) -> tuple[tuple[str, Spec], ...]:
    """The fields of a section that bound another of its fields (at_least, at_most, above)."""
    return tuple((key, spec) for key, spec in specs(cls).items()
                 if spec.at_least is not None or spec.at_most is not None or spec.above is not None)


@functools.cache
def default_of(cls):
    """The default instance of a section (or composite) class, built once: sections are frozen, so every design
    that leaves a section out can share one (`field(default_factory=functools.partial(default_of, cls))`)."""
    return cls()


def default_part(cls):
    """A composite's field that defaults to `cls()` built once and shared (`default_of`)."""
    return dataclasses.field(default_factory=functools.partial(default_of, cls))


class Composite:
    """Base of designs made of sections: construction checks that each part is the declared section type, so
    `LinkDesign(link=5)` is refused as clearly as a bad value."""

    __slots__ = ()

    def __post_init__(self) -> None:
        for name, expected in _part_types(type(self)).items():
            value = getattr(self, name)
            if not isinstance(value, expected):
                raise InputError(f"{type(self).__name__} {name} = {shown(value)}: expected a {expected.__name__}")


@functools.cache
def _part_types(cls) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if isinstance(hints.get(f.name), type)}
