"""One registry of fabric kinds: adding a kind is one `register` call; [fabric] kind then accepts its name and the
design files its section (`sipml.design` reads the sections from here at every load). The built-in four
(`fabric.design.KINDS`) are registered when the `fabric` package is imported (`fabric.shipped`)."""

from __future__ import annotations

from core.errors import InputError, did_you_mean
from fabric.kind import FabricKind

_KINDS: dict[str, FabricKind] = {}
_SECTIONS: dict[str, type] = {}  # section name → dataclass of the registered kinds, kept with _KINDS
_CHANGES = [0]  # registrations and removals so far


def register(kind: FabricKind) -> FabricKind:
    """Add a fabric kind (replacing one of the same name)."""
    _KINDS[kind.name] = kind
    _index_sections()
    return kind


def unregister(name: str) -> None:
    """Remove a registered kind (a kind a test or a plug-in added)."""
    _KINDS.pop(name, None)
    _index_sections()


def _index_sections() -> None:
    _CHANGES[0] += 1
    _SECTIONS.clear()
    _SECTIONS.update({k.section: k.section_type for k in _KINDS.values() if k.section})


def kinds() -> dict[str, FabricKind]:
    """Every registered kind by name."""
    return dict(_KINDS)


def get_kind(name: str) -> FabricKind:
    """The kind called `name`; InputError naming the registered ones otherwise."""
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        raise InputError(f"[fabric] kind = {name!r} is not a fabric kind{did_you_mean(name, _KINDS)}; known: "
                         f"{', '.join(_KINDS)}") from None


def changes() -> int:
    """How many times the registry has changed: a reader of `sections()` rebuilds what it derived when this moves."""
    return _CHANGES[0]


def sections() -> dict[str, type]:
    """Design-file section name → its dataclass, for every kind that has one (read-only: it follows the registry)."""
    return _SECTIONS
