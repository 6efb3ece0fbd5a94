"""Frozen records: `record` declares a class as `dataclasses.dataclass(frozen=True, slots=True)` does — the same
fields, `__init__`, immutability, equality, hash and repr, `dataclasses.fields` and `replace` — at about half the
cost of declaring it.

Python 3.11 compiles each method a dataclass generates with an `exec` of its own (~0.15 ms each; a frozen class has
six: `__init__`, `__setattr__`, `__delattr__`, `__eq__`, `__hash__`, `__repr__`). The first three depend on the
fields' defaults and on immutability and stay the dataclass's; equality, hash and repr are the same three functions
for every record, each reading the fields through one attribute getter made for the class. Every command declares
its records at start-up (~60 for a link budget), so this is start-up time a user waits for.
"""

from __future__ import annotations

import dataclasses
import reprlib
from operator import attrgetter


def record(cls=None, /, **options):
    """`@record` or `@record(kw_only=True, slots=False, ...)`: `dataclasses.dataclass(frozen=True, slots=True)` with
    `options` (any of dataclass's but eq, repr, frozen and unsafe_hash, which a record fixes, and order: a record
    has no ordering)."""
    fixed = {"eq", "repr", "frozen", "unsafe_hash", "order"} & set(options)
    if fixed:
        raise TypeError(f"record: {', '.join(sorted(fixed))} cannot be chosen (a record is frozen, compared and shown "
                        "by its fields, and not ordered)")

    def wrap(cls):
        own = cls.__dict__  # what the class body defines stays, as dataclass leaves it
        own_hash = own.get("__hash__", dataclasses.MISSING)
        keep = {name for name in ("__eq__", "__repr__") if name in own}
        if not (own_hash is dataclasses.MISSING or (own_hash is None and "__eq__" in own)):
            keep.add("__hash__")  # a hash of its own (not the None that defining __eq__ leaves)
        cls = dataclasses.dataclass(cls, **{"slots": True, **options}, frozen=True, eq=False, repr=False)
        fields = dataclasses.fields(cls)
        _give_methods(cls, keep, compared=_values([f.name for f in fields if f.compare]),
                      hashed=_values([f.name for f in fields if (f.compare if f.hash is None else f.hash)]),
                      shown=[f.name for f in fields if f.repr])
        return cls

    return wrap if cls is None else wrap(cls)


def _values(names: list[str]):
    """A function of an instance giving the named fields' values as one tuple, as a dataclass's methods build it."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return lambda self: ()


def _give_methods(cls, keep: set, compared, hashed, shown: list[str]) -> None:
    """The equality, hash and repr `dataclass(frozen=True)` would generate for `cls`, but those in `keep` (its
    own)."""
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self):
        return hash(hashed(self))

    @reprlib.recursive_repr()
    def __repr__(self):
        return (self.__class__.__qualname__ + "("
                + ", ".join(f"{name}={getattr(self, name)!r}" for name in shown) + ")")

    for method in (__eq__, __hash__, __repr__):
        if method.__name__ in keep:
            continue
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)
