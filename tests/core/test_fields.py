"""core.fields on a toy section: parsing, construction-time validation, bounds between fields, conditions."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from core.errors import InputError
from core.fields import Composite, FieldError, Section, param, positive, sweepable, when, when_above


@dataclass(frozen=True, kw_only=True, slots=True)
class Toy(Section):
    section_name: ClassVar[str] = "toy"

    mode: str = param("a", "choice", "mode", "—", choices=("a", "b"))
    length: float = positive("2 m", "m", "a length", "[assumed]", hi=10.0)
    count: int = param(3, "1", "a count", "[assumed]", lo=0, hi=100, integer=True, at_most="limit")
    limit: int = param(50, "1", "the count's limit", "[assumed]", lo=0, hi=100, integer=True)
    only_b: float = positive("1 s", "s", "used in mode b", "[assumed]", applies_when=when("toy", "mode", "b"),
                             above="floor")
    floor: float = positive("0.5 s", "s", "only_b's floor", "[assumed]", sweepable=False)
    name: str = param("x.y", "text", "an entry", "—", choices=("none",))


@dataclass(frozen=True, kw_only=True, slots=True)
class Pair(Composite):
    toy: Toy = Toy()


def test_defaults_are_parsed_to_si():
    t = Toy()
    assert (t.length, t.count, t.only_b, t.name) == (2.0, 3, 1.0, "x.y")


@pytest.mark.parametrize("kwargs, fragment", [
    ({"length": 2}, "length = 2: got the bare number 2; write it with its unit"),
    ({"length": "20 m"}, "length = '20 m': 20 m is out of range, expected > 0 m, ≤ 10 m"),
    ({"length": "2 s"}, "has dimension [time]"),
    ({"length": float("inf")}, "infinite"),
    ({"count": 2.5}, "count = 2.5: got 2.5, expected a whole number"),
    ({"count": True}, "expected a whole number"),
    ({"count": 10 ** 400}, "count = a 401-digit number: a 401-digit number is out of range"),
    ({"mode": "c"}, "expected one of a, b"),
    ({"name": "x y"}, "expected a name"),
    ({"count": 60}, "count = 60 is above limit = 50"),
])
def test_construction_refuses_with_section_key_and_value(kwargs, fragment):
    with pytest.raises(FieldError) as info:
        Toy(**kwargs)
    assert str(info.value).startswith("[toy] ") and fragment in str(info.value)
    assert info.value.exit_code == 2 and isinstance(info.value, InputError)


def test_a_bound_between_fields_counts_only_where_both_apply():
    assert Toy(only_b=0.1, floor=0.5).only_b == 0.1  # mode a: only_b has no effect
    with pytest.raises(FieldError, match="only_b = 100 ms is not above floor = 500 ms"):
        Toy(mode="b", only_b=0.1, floor=0.5)


def test_words_that_are_not_names_are_declared():
    assert Toy(name="none").name == "none"


def test_conditions_say_when_they_hold():
    cond = when("toy", "mode", "b", "c")
    assert cond.holds("b") and not cond.holds("a") and cond.text() == "[toy] mode = 'b' or 'c'"
    above = when_above("ring", "every", 0)
    assert above.holds(1) and not above.holds(0) and above.text() == "[ring] every > 0"


def test_sweepable_defaults_to_the_numeric_fields():
    assert sweepable(Toy) == ("length", "count", "limit", "only_b")


def test_a_composite_checks_its_parts():
    with pytest.raises(InputError, match="Pair toy = 'x': expected a Toy"):
        Pair(toy="x")
