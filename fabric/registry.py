"""One registry of fabric kinds: adding a kind is one `register` call ([fabric] kind then accepts its name). The
built-in four (`fabric.design.KINDS`) register themselves the first time a kind is looked up."""

from __future__ import annotations

from core.errors import InputError, did_you_mean
from fabric.kind import FabricKind

_KINDS: dict[str, FabricKind] = {}
_LOADED = []


def register(kind: FabricKind) -> FabricKind:
    """Add a fabric kind (replacing one of the same name)."""
    _KINDS[kind.name] = kind
    return kind


def _builtins() -> None:
    if not _LOADED:
        _LOADED.append(True)
        from fabric.electrical import ELECTRICAL
        from fabric.ideal import IDEAL
        from fabric.sip_ocs import SIP_OCS
        from fabric.sip_ring import SIP_RING

        for kind in (SIP_RING, SIP_OCS, ELECTRICAL, IDEAL):
            _KINDS.setdefault(kind.name, kind)


def kinds() -> dict[str, FabricKind]:
    """Every registered kind by name."""
    _builtins()
    return dict(_KINDS)


def get_kind(name: str) -> FabricKind:
    """The kind called `name`; InputError naming the registered ones otherwise."""
    _builtins()
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        raise InputError(f"[fabric] kind = {name!r} is not a fabric kind{did_you_mean(name, _KINDS)}; known: "
                         f"{', '.join(_KINDS)}") from None


def sections() -> dict[str, type]:
    """Design-file section name → its dataclass, for every kind that has one."""
    return {k.section: k.section_type for k in kinds().values() if k.section}
