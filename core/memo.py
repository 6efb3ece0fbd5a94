"""Keeping the last few results of a function whose arguments are immutable but costly to hash or compare (designs,
estimates, arrays): found again by the arguments' identity, numbers and strings by value.

A sweep evaluates one point in several stages (its fabric columns, then its training row), and a strategy search
prices one traffic mix many times; each stage holds the very objects the previous one made, so identity finds
them without hashing a whole design. The stored arguments are kept alive with the result, so an identity cannot be
reused by another object while its entry stands.
"""

from __future__ import annotations

import functools

_BY_VALUE = (int, float, str, bool, type(None))


def last_results(size: int):
    """Decorator: the last `size` results of the function, by its positional arguments' identity (numbers, strings
    and None by value). Keyword arguments are not allowed: a call is its positional arguments."""

    def decorate(fn):
        kept: dict[tuple, tuple] = {}

        @functools.wraps(fn)
        def wrapper(*args):
            key = tuple((type(a), a) if type(a) in _BY_VALUE else id(a) for a in args)
            seen = kept.get(key)
            if seen is not None and all(a is b or type(a) in _BY_VALUE for a, b in zip(seen[0], args)):
                return seen[1]
            result = fn(*args)
            if len(kept) >= size:
                kept.pop(next(iter(kept)))
            kept[key] = (args, result)
            return result

        wrapper.cache_clear = kept.clear
        return wrapper

    return decorate
