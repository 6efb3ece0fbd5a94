"""`core.records.record` against `dataclasses.dataclass(frozen=True, slots=True)`: the same behaviour, method by
method, on classes of every shape a record takes (no field, one, several, defaults and factories, fields left out of
the comparison, the hash or the repr, keyword-only, without slots, nested)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import pytest

from core.records import record


def _both(body: dict, **options):
    """The class of `body` declared by the dataclass and by `record`, with `options`."""
    made = []
    for declare in (lambda c: dataclasses.dataclass(c, frozen=True, **{"slots": True, **options}),
                    lambda c: record(c, **options)):
        namespace = {k: (dataclasses.field(**v) if isinstance(v, dict) else v) for k, v in body.items()
                     if k != "__annotations__"}
        namespace["__annotations__"] = dict(body["__annotations__"])
        namespace["__qualname__"] = "Shape"
        made.append(declare(type("Shape", (), namespace)))
    return made


def _hashed(value):
    try:
        return hash(value)
    except TypeError as exc:
        return str(exc)


SHAPES = {
    "no field": ({"__annotations__": {}}, {}),
    "one field": ({"__annotations__": {"a": "float"}}, {"a": 1.5}),
    "several, defaults and a factory": ({"__annotations__": {"a": "int", "b": "str", "c": "tuple", "d": "dict"},
                                         "b": "x", "c": (1, 2), "d": {"default_factory": dict}}, {"a": 3}),
    "left out of compare, hash and repr": ({"__annotations__": {"a": "int", "b": "int", "c": "int", "d": "int"},
                                            "b": {"default": 2, "compare": False}, "c": {"default": 3, "hash": False},
                                            "d": {"default": 4, "repr": False}}, {"a": 1}),
    "hashed though not compared": ({"__annotations__": {"a": "int", "b": "int"},
                                    "b": {"default": 5, "compare": False, "hash": True}}, {"a": 1}),
}


@pytest.mark.parametrize("options", [{}, {"kw_only": True}, {"slots": False}], ids=["plain", "kw_only", "no slots"])
@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_a_record_behaves_as_the_frozen_dataclass(shape, options):
    body, values = SHAPES[shape]
    data_cls, record_cls = _both(body, **options)
    made = [cls(**values) for cls in (data_cls, record_cls)]
    assert repr(made[0]) == repr(made[1])
    assert [f.name for f in dataclasses.fields(made[0])] == [f.name for f in dataclasses.fields(made[1])]
    assert hasattr(made[1], "__dict__") == hasattr(made[0], "__dict__")
    for a, b in ((cls(**values), cls(**values)) for cls in (data_cls, record_cls)):
        assert a == b and not (a != b)
    assert _hashed(made[0]) == _hashed(made[1])  # the same hash, or the same refusal (a dict field)
    if values:  # a changed field compares (and hashes) as the dataclass says
        name = next(iter(values))
        changed = [dataclasses.replace(m, **{name: values[name] * 2}) for m in made]
        assert (changed[0] == made[0]) == (changed[1] == made[1])
        assert repr(changed[0]) == repr(changed[1])
    for m in made:
        if values:  # (a field-less slotted class refuses with a TypeError, dataclass's own, Python 3.11)
            with pytest.raises(dataclasses.FrozenInstanceError):
                m.a = 0
        assert m.__eq__(object()) is NotImplemented


def test_equal_records_hash_alike_and_unequal_ones_differ_where_the_dataclass_says():
    data_cls, record_cls = _both({"__annotations__": {"a": "int", "b": "int"},
                                  "b": {"default": 0, "compare": False}})
    for cls in (data_cls, record_cls):
        assert cls(1, 2) == cls(1, 3) and hash(cls(1, 2)) == hash(cls(1, 3))
        assert cls(1, 2) != cls(2, 2)
    assert hash(record_cls(7, 0)) == hash(data_cls(7, 0)) == hash((7,))
    assert record_cls(1) != data_cls(1)  # another class: never equal, as two dataclasses


def test_records_of_records_show_and_compare_as_dataclasses_do():
    @record
    class Inner:
        x: float

    @record
    class Outer:
        inner: Inner
        items: tuple = ()

    a = Outer(Inner(1.0), (Inner(2.0),))
    assert repr(a) == "test_records_of_records_show_and_compare_as_dataclasses_do.<locals>.Outer(" \
                      "inner=test_records_of_records_show_and_compare_as_dataclasses_do.<locals>.Inner(x=1.0), " \
                      "items=(test_records_of_records_show_and_compare_as_dataclasses_do.<locals>.Inner(x=2.0),))"
    assert a == Outer(Inner(1.0), (Inner(2.0),)) and a != Outer(Inner(1.5))
    assert {a: 1}[Outer(Inner(1.0), (Inner(2.0),))] == 1


def test_a_record_pickles_and_refuses_the_options_it_fixes():
    from core.fields import When  # a record of the project, importable by name

    w = When("link", "kind", ("ring-wdm",))
    assert pickle.loads(pickle.dumps(w)) == w
    for option in ("eq", "repr", "frozen", "unsafe_hash", "order"):
        with pytest.raises(TypeError, match=option):
            record(**{option: True})


def test_methods_a_class_defines_itself_stay_as_with_the_dataclass():
    def body():
        def __eq__(self, other):
            return True

        def __repr__(self):
            return "mine"
        return {"__annotations__": {"a": "int"}, "__eq__": __eq__, "__repr__": __repr__}

    def hashed_body():
        return {"__annotations__": {"a": "int"}, "__hash__": lambda self: 42}

    for make in (body, hashed_body):
        data_cls, record_cls = _both(make())
        for cls in (data_cls, record_cls):
            one = cls(1)
            assert (one == cls(2)) == (data_cls(1) == data_cls(2))
            assert repr(one).replace(record_cls.__qualname__, "") == repr(data_cls(1)).replace(
                data_cls.__qualname__, "")
        assert hash(record_cls(1)) == hash(data_cls(1))  # the class's own hash, or the fields' where it has __eq__


def test_a_record_is_built_and_refuses_changes_as_the_frozen_dataclass():
    def body():
        def __post_init__(self):
            object.__setattr__(self, "seen", [self.a, self.b])
        return {"__annotations__": {"a": "int", "b": "list", "seen": "list"}, "b": {"default_factory": list},
                "seen": None, "__post_init__": __post_init__}

    for options in ({}, {"kw_only": True}, {"slots": False}):
        data_cls, record_cls = _both(body(), **options)
        assert str(inspect.signature(record_cls)) == str(inspect.signature(data_cls))
        assert record_cls.__dataclass_params__.frozen and data_cls.__dataclass_params__.frozen
        made = [cls(a=1) for cls in (data_cls, record_cls)]
        assert made[0].seen == made[1].seen == [1, []] and made[1].b is not record_cls(a=1).b  # a fresh list each
        for m in made:
            for change in (lambda m=m: setattr(m, "a", 2), lambda m=m: delattr(m, "a"),
                           lambda m=m: setattr(m, "other", 2)):
                with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)) as refused:
                    change()
                if refused.type is dataclasses.FrozenInstanceError:
                    assert "'a'" in str(refused.value) or "'other'" in str(refused.value)
            copied = copy.deepcopy(m)  # through __reduce_ex__ and the state, as pickling (a local class: unpicklable)
            assert copied == m and copied.seen == [1, []]
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
            made[1].a = 2
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        record(type("Shape", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 0}))


def test_records_derive_from_records_and_frozen_dataclasses_from_records():
    @record
    class Base:
        a: int
        b: int = 2

    @record
    class Derived(Base):
        c: int = 3

    @dataclasses.dataclass(frozen=True)
    class PlugIn(Base):  # a plug-in's own frozen dataclass on a record of the project
        c: int = 4

    assert Derived(1) == Derived(1, 2, 3) and Derived(1) != Derived(1, c=4) and repr(Derived(1)).endswith(
        "Derived(a=1, b=2, c=3)")
    assert PlugIn(1).c == 4 and PlugIn(1) != Derived(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Derived(1).c = 0


def test_an_init_var_or_a_field_left_out_of_init_is_the_dataclass_s_own():
    @record
    class Scaled:
        a: float
        factor: dataclasses.InitVar[float] = 1.0
        twice: float = dataclasses.field(init=False, default=0.0)

        def __post_init__(self, factor):
            object.__setattr__(self, "a", self.a * factor)
            object.__setattr__(self, "twice", 2 * self.a)

    s = Scaled(2.0, 3.0)
    assert (s.a, s.twice) == (6.0, 12.0) and [f.name for f in dataclasses.fields(s)] == ["a", "twice"]


def test_a_subclass_s_fields_are_copied_and_an_undocumented_record_is_documented_as_by_the_dataclass():
    from core.fields import When

    @dataclasses.dataclass(frozen=True)
    class Weighted(When):  # a plug-in's own frozen dataclass on a slotted record of the project
        weight: float = 1.0

    @record(slots=False)
    class Loose(When):
        extra: int = 0

    for made, name, value in ((Weighted("link", "kind", ("a",), weight=5.0), "weight", 5.0),
                              (Loose("link", "kind", extra=7), "extra", 7)):
        for copied in (copy.copy(made), copy.deepcopy(made)):
            assert getattr(copied, name) == value and copied == made
    data_cls, record_cls = _both({"__annotations__": {"a": "int", "self": "int"}, "self": 2})
    assert record_cls.__doc__ == data_cls.__doc__ == "Shape(a: 'int', self: 'int' = 2)"
    assert record_cls(1, self=3).self == 3 and record_cls.__dataclass_params__.init


def test_a_records_init_resolves_its_annotations_in_its_module():
    import typing

    from core.fields import Spec

    hints = typing.get_type_hints(Spec.__init__)
    assert hints["unit"] is str and Spec.__init__.__module__ == "core.fields"
