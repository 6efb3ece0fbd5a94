"""One registry of fabric kinds: adding a kind is one `register` call; [fabric] kind then accepts its name and the
design files its section (`sipml.design_files` reads the sections from here at every load). The built-in four
(`fabric.cluster_design.KINDS`) are registered when the `fabric` package is imported (`fabric.shipped`), each by what the
design reader asks of every kind (`Deferred`: its name, its section's name, whether it is optical) and imported on
first use: a command on a SiP-Ring design does not import the electrical fabrics' models."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from core.errors import InputError, did_you_mean
from core.records import record
from fabric.kind import FabricKind


@record(slots=False)
class Deferred:
    """A kind known by what every design load asks of it, its FabricKind `attribute` of `module` imported on first
    use (and checked to say the same)."""

    name: str
    section: str | None
    optical: bool
    module: str
    attribute: str


_ENTRIES: dict[str, FabricKind | Deferred] = {}  # by name, in registration order
_CHANGES = [0]  # registrations and removals so far


def register(kind: FabricKind) -> FabricKind:
    """Add a fabric kind (replacing one of the same name); TypeError naming the required attributes it lacks."""
    if kind.missing():
        raise TypeError(f"fabric kind {kind.name!r} lacks {', '.join(kind.missing())} (fabric.kind.FabricKind "
                        "says what a kind must have)")
    _ENTRIES[kind.name] = kind
    _CHANGES[0] += 1
    return kind


def defer(entry: Deferred) -> None:
    """Add a kind to import on first use (replacing one of the same name)."""
    _ENTRIES[entry.name] = entry
    _CHANGES[0] += 1


def unregister(name: str) -> None:
    """Remove a registered kind (a kind a test or a plug-in added)."""
    _ENTRIES.pop(name, None)
    _CHANGES[0] += 1


def _loaded(name: str) -> FabricKind:
    entry = _ENTRIES[name]
    if isinstance(entry, FabricKind):
        return entry
    kind = getattr(importlib.import_module(entry.module), entry.attribute)
    said, found = (entry.name, entry.section, entry.optical), (kind.name, kind.section, kind.optical)
    if said != found:
        raise RuntimeError(f"fabric kind {name!r}: {entry.module}.{entry.attribute} is (name, section, optical) = "
                        f"{found}, registered as {said}")
    _ENTRIES[name] = kind  # the same facts: nothing a reader derived from the registry changes
    return kind


def kinds() -> dict[str, FabricKind]:
    """Every registered kind by name (each imported)."""
    return {name: _loaded(name) for name in list(_ENTRIES)}


def declared() -> list[FabricKind | Deferred]:
    """Every registered kind as far as the design reader needs it (name, section, optical), none imported."""
    return list(_ENTRIES.values())


def get_kind(name: str) -> FabricKind:
    """The kind called `name`; InputError naming the registered ones otherwise."""
    if not isinstance(name, str) or name not in _ENTRIES:
        raise InputError(f"[fabric] kind = {name!r} is not a fabric kind{did_you_mean(name, _ENTRIES)}; known: "
                         f"{', '.join(_ENTRIES)}")
    return _loaded(name)


def changes() -> int:
    """How many times the registry has changed: a reader of `sections()` rebuilds what it derived when this moves."""
    return _CHANGES[0]


class _Sections(Mapping):
    """Design-file section name → its dataclass for every kind that has one; a deferred kind is imported when its
    section's dataclass is asked for, not when its name is."""

    def _owners(self) -> dict[str, str]:
        return {entry.section: entry.name for entry in _ENTRIES.values() if entry.section}

    def __getitem__(self, section: str) -> type:
        return _loaded(self._owners()[section]).section_type

    def __iter__(self):
        return iter(self._owners())

    def __len__(self) -> int:
        return len(self._owners())

    def __contains__(self, section) -> bool:
        return section in self._owners()


_SECTIONS = _Sections()


def sections() -> Mapping[str, type]:
    """Design-file section name → its dataclass, for every kind that has one (read-only: it follows the registry)."""
    return _SECTIONS
