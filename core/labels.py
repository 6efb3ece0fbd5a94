"""Per-point texts of a grid that name which of a few flags hold (the limits that bind, the constraints broken),
kept as one integer per point, a bit per flag, and the text of each code made once.

A grid of a million points holds a few dozen distinct texts; building a million Python strings, or comparing them,
costs more than the physics of the grid. `Labels` holds the codes; `np.asarray(labels)` makes the object array of
texts where a writer needs one.
"""

from __future__ import annotations

import functools

import numpy as np


DENSE_NAMES = 20  # names up to which the codes present are found by a table of every code (2^20 entries at most)


class Labels:
    """Per point, the names whose flag holds, joined by `sep` in the names' order (`none` where none holds)."""

    __hash__ = None

    def __init__(self, codes: np.ndarray, names: tuple, sep: str, none: str):
        self.codes, self.names, self.sep, self.none = codes, tuple(names), sep, none

    @classmethod
    def of(cls, flags, names, sep: str = ";", none: str = "") -> Labels:
        """The labels of `flags` (boolean arrays that broadcast together), one per name."""
        shape = np.broadcast_shapes(*(np.shape(flag) for flag in flags))
        dtype = np.min_scalar_type((1 << len(flags)) - 1)  # a bit per flag, in as few bytes as they take
        code = np.zeros(shape, dtype=dtype)
        for bit, flag in enumerate(flags):
            code |= np.asarray(flag, dtype=dtype) << dtype.type(bit)
        return cls(code, names, sep, none)

    def with_flags(self, flags, names) -> Labels:
        """These labels with more flags, whose names follow these in every text."""
        more = Labels.of(flags, names)
        dtype = np.min_scalar_type((1 << (len(self.names) + len(more.names))) - 1)
        code = self.codes.astype(dtype) | (more.codes.astype(dtype) << dtype.type(len(self.names)))
        return Labels(code, self.names + more.names, self.sep, self.none)

    def text(self, code: int) -> str:
        return self.sep.join(name for bit, name in enumerate(self.names) if code >> bit & 1) or self.none

    @functools.cached_property
    def _distinct(self) -> tuple:
        """(the codes present, ascending; each point's place among them): by a table of every code where the names
        are few, by a sort of the codes otherwise."""
        flat = self.codes.ravel()
        if len(self.names) > DENSE_NAMES:
            present, place = np.unique(flat, return_inverse=True)
            return present, place.reshape(self.codes.shape)
        present = np.flatnonzero(np.bincount(flat, minlength=1 << len(self.names)))
        places = np.zeros(1 << len(self.names), dtype=np.intp)
        places[present] = np.arange(len(present))
        return present, places[self.codes]

    def _each(self, function, dtype=object) -> np.ndarray:
        """function(text) at every point, called once per distinct text."""
        present, place = self._distinct
        values = np.empty(len(present), dtype=dtype)
        for i, code in enumerate(present):
            values[i] = function(self.text(int(code)))
        return values[place.reshape(-1)].reshape(self.codes.shape)  # an array, 0-d too

    def mapped(self, function) -> np.ndarray:
        """function(text) at every point, called once per distinct text (an object array of the labels' shape)."""
        return self._each(function)

    @property
    def none_hold(self) -> np.ndarray:
        """Where no flag holds (the text is `none`)."""
        return self.codes == 0

    def __eq__(self, other):
        """Elementwise: where the text is `other` (a string), or equals `other`'s at each point."""
        if isinstance(other, str):
            return self._each(lambda text: text == other, dtype=bool)
        return np.asarray(self) == np.asarray(other)

    def __ne__(self, other):
        return ~np.asarray(self == other)

    @property
    def shape(self) -> tuple:
        return self.codes.shape

    @property
    def ndim(self) -> int:
        return self.codes.ndim

    @property
    def size(self) -> int:
        return self.codes.size

    def _like(self, codes) -> Labels:
        return Labels(codes, self.names, self.sep, self.none)

    dtype = np.dtype(object)

    def __array__(self, dtype=None, copy=None):
        texts = self._each(str)
        return texts if dtype is None else texts.astype(dtype)

    def astype(self, dtype) -> np.ndarray:
        return np.asarray(self, dtype=dtype)

    def tolist(self):
        return np.asarray(self).tolist()

    def item(self, *index) -> str:
        return self.text(int(self.codes.item(*index)))

    def __getitem__(self, index):
        codes = self.codes[index]
        return self.text(int(codes)) if np.ndim(codes) == 0 else self._like(codes)

    def __iter__(self):
        return iter(np.asarray(self))

    def __len__(self) -> int:
        return len(self.codes)

    def __str__(self) -> str:
        return self.text(int(self.codes)) if self.codes.ndim == 0 else str(np.asarray(self))

    def __repr__(self) -> str:
        return f"Labels({np.asarray(self)!r})"

    def ravel(self) -> Labels:
        return self._like(self.codes.ravel())

    def reshape(self, *shape) -> Labels:
        return self._like(self.codes.reshape(*shape))

    def broadcast_to(self, shape: tuple) -> Labels:
        return self._like(np.broadcast_to(self.codes, shape))

    @staticmethod
    def concatenate(parts: list, axis: int = 0) -> Labels:
        """Labels of the same names joined along `axis`."""
        return parts[0]._like(np.concatenate([p.codes for p in parts], axis=axis))
