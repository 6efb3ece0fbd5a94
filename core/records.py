"""Frozen records: `record` declares a class as `dataclasses.dataclass(frozen=True, slots=True)` does — the same
fields, `__init__`, immutability, equality, hash and repr, pickling, `dataclasses.fields` and `replace` — at a
fraction of the cost of declaring it.

Python 3.11 compiles each method a dataclass generates with an `exec` of its own (~0.15 ms each; a frozen class has
six: `__init__`, `__setattr__`, `__delattr__`, `__eq__`, `__hash__`, `__repr__`). Every command declares its records
at start-up (~60 for a link budget), so this is start-up time a user waits for. Here the dataclass builds the fields
and the slots; equality, hash, repr, the frozen `__setattr__`/`__delattr__` and a slotted class's pickling are the
same functions for every record, reading the fields through one attribute getter made for the class; `__init__`,
which depends on the fields' defaults, is compiled with one `exec`, as the frozen dataclass would write it. A record
derived from a record (or another dataclass), or one with an `InitVar` or a field left out of `__init__`, is declared
by the dataclass itself (a frozen dataclass's subclass must be one).
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
import sys
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
        chosen = {"slots": True, **options}
        if _dataclass_base(cls) or _beyond_fields(cls):
            return _give_methods(dataclasses.dataclass(cls, **chosen, frozen=True, eq=False, repr=False), keep)
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        init, documented = chosen.pop("init", True), bool(own.get("__doc__"))
        cls = dataclasses.dataclass(cls, **chosen, init=False, frozen=False, eq=False, repr=False)
        cls.__dataclass_params__.frozen, cls.__dataclass_params__.init = True, init
        _freeze(cls, slotted=chosen["slots"])
        made = _init(cls, dataclasses.fields(cls)) if init else None  # (checks the defaults' order, as dataclass)
        if made is not None and "__init__" not in own:
            made.__qualname__ = f"{cls.__qualname__}.__init__"
            cls.__init__ = made
        if not documented:  # the dataclass's doc: the name and the signature
            cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
        return _give_methods(cls, keep)

    return wrap if cls is None else wrap(cls)


def _dataclass_base(cls) -> bool:
    """Whether a base of `cls` is a dataclass (a record is one: a frozen dataclass's subclass is declared by the
    dataclass, which also refuses a frozen class on a base that is not)."""
    return any("__dataclass_fields__" in base.__dict__ for base in cls.__mro__[1:])


def _beyond_fields(cls) -> bool:
    """Whether the class body declares what only the dataclass's own `__init__` handles: an `InitVar` (by that
    name), or a field left out of `__init__`."""
    return (any("InitVar" in str(kind) for kind in cls.__dict__.get("__annotations__", {}).values())
            or any(isinstance(v, dataclasses.Field) and not v.init for v in cls.__dict__.values()))


def _values(names: list[str]):
    """A function of an instance giving the named fields' values as one tuple, as a dataclass's methods build it."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return lambda self: ()


def _freeze(cls, slotted: bool) -> None:
    """The frozen dataclass's `__setattr__` and `__delattr__` (a field, or any attribute of the class itself, is
    refused) and its pickling of a slotted class (the fields of the instance's own class: a subclass's too)."""
    names = tuple(f.name for f in dataclasses.fields(cls))

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    methods = [__setattr__, __delattr__]
    if slotted:
        values = _values(list(names))

        def __getstate__(self):
            if type(self) is cls:
                return list(values(self))
            return [getattr(self, f.name) for f in dataclasses.fields(self)]

        def __setstate__(self, state):
            for name, value in zip(names if type(self) is cls else [f.name for f in dataclasses.fields(self)], state):
                object.__setattr__(self, name, value)

        methods += [m for m in (__getstate__, __setstate__) if m.__name__ not in cls.__dict__]
    for method in methods:
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)


def _init(cls, fields: tuple):
    """The `__init__` the frozen dataclass generates for `cls` (the same parameters, defaults and factories, each
    field set through `object.__setattr__`, then `__post_init__` where the class has one), compiled with one `exec`
    in the class's module (its annotations resolve there, as the dataclass's do)."""
    scope = {"__record_set": object.__setattr__, "__record_factory": _FACTORY}
    me = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    params, keywords, body = [], [], []
    for f in fields:
        value = f.name
        if f.default_factory is not dataclasses.MISSING:
            scope[f"__record_make_{f.name}"] = f.default_factory
            value = f"__record_make_{f.name}() if {f.name} is __record_factory else {f.name}"
            param = f"{f.name}=__record_factory"
        elif f.default is not dataclasses.MISSING:
            scope[f"__record_default_{f.name}"] = f.default
            param = f"{f.name}=__record_default_{f.name}"
        elif params and "=" in params[-1] and not f.kw_only:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            param = f.name
        (keywords if f.kw_only else params).append(param)
        body.append(f"__record_set({me}, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append(f"{me}.__post_init__()")
    signature = ", ".join([me, *params, *(["*", *keywords] if keywords else [])])
    source = (f"def __make__({', '.join(scope)}):\n def __init__({signature}):\n  " + "\n  ".join(body or ["pass"])
              + "\n return __init__")
    module, made = sys.modules.get(cls.__module__), {}
    exec(source, module.__dict__ if module is not None else {}, made)
    made = made["__make__"](**scope)
    made.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    return made


def _give_methods(cls, keep: set):
    """`cls` with the equality, hash and repr `dataclass(frozen=True)` would generate for it, but those in `keep`
    (its own)."""
    fields = dataclasses.fields(cls)
    compared = _values([f.name for f in fields if f.compare])
    hashed = _values([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    shown = [f.name for f in fields if f.repr]

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
    return cls


class _Factory:
    """The default of a parameter whose field's default is made by its factory (shown as the dataclass shows it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()
