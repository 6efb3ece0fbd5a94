"""`core.labels.Labels` gives, point by point, the text of joining by hand the names whose flags hold."""

from __future__ import annotations

import numpy as np
import pytest

from core.labels import Labels

NAMES = ("fsr", "lines", "budget", "escape")


def by_hand(flags, names, sep=";", none=""):
    shape = np.broadcast_shapes(*(np.shape(f) for f in flags))
    flags = [np.broadcast_to(f, shape) for f in flags]
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        out[index] = sep.join(n for f, n in zip(flags, names) if f[index]) or none
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_labels_are_the_names_joined_by_hand(seed):
    rng = np.random.default_rng(seed)
    flags = [rng.random((3, 1, 5)) < 0.5, rng.random((1, 4, 5)) < 0.3, rng.random(5) < 0.6, rng.random((3, 4, 1)) < 0.2]
    labels = Labels.of(flags, NAMES, "+", none="requested")
    want = by_hand(flags, NAMES, "+", "requested")
    assert labels.shape == want.shape and np.array_equal(np.asarray(labels), want)
    assert np.array_equal(labels.none_hold, want == "requested")
    assert np.array_equal(labels == "fsr+budget", want == "fsr+budget")
    assert np.array_equal(labels != "requested", want != "requested")
    assert labels[1, 2, 3] == want[1, 2, 3] and isinstance(labels[1, 2, 3], str)
    assert np.array_equal(np.asarray(labels[1]), want[1])
    assert list(labels.ravel()) == list(want.ravel())
    assert np.array_equal(np.asarray(labels.mapped(str.upper)), np.vectorize(str.upper, otypes=[object])(want))
    more = [rng.random((3, 4, 5)) < 0.5, rng.random((3, 4, 5)) < 0.5]
    assert np.array_equal(np.asarray(labels.with_flags(more, ("ports", "reach"))),
                          by_hand(flags + more, NAMES + ("ports", "reach"), "+", "requested"))
    halves = Labels.concatenate([labels[:1], labels[1:]], axis=0)
    assert np.array_equal(np.asarray(halves), want)
    full = labels.broadcast_to((2, 3, 4, 5))
    assert np.array_equal(np.asarray(full), np.broadcast_to(want, (2, 3, 4, 5)))


def test_one_point_is_a_string_and_a_0_d_array():
    labels = Labels.of([np.array(True), np.array(False), np.array(True)], NAMES[:3])
    assert str(labels) == "fsr;budget"
    as_array = np.asarray(labels)
    assert as_array.shape == () and as_array.item() == "fsr;budget"


@pytest.mark.parametrize("count", [20, 30])  # a table of every code; a sort of the codes present
def test_flags_past_eight_and_sixteen_keep_every_bit(count):
    rng = np.random.default_rng(9)
    names = tuple(f"c{k}" for k in range(count))
    flags = [rng.random(50) < 0.3 for _ in names]
    labels = Labels.of(flags[:7], names[:7]).with_flags(flags[7:], names[7:])
    want = by_hand(flags, names)
    assert np.array_equal(np.asarray(labels), want) and labels.tolist() == want.tolist()
    assert np.array_equal(labels == want[3], want == want[3]) and labels.item(3) == want[3]
