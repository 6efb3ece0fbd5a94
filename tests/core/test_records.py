"""`core.records.record` against `dataclasses.dataclass(frozen=True, slots=True)`: the same behaviour, method by
method, on classes of every shape a record takes (no field, one, several, defaults and factories, fields left out of
the comparison, the hash or the repr, keyword-only, without slots, nested)."""

from __future__ import annotations

import dataclasses
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
