"""Display figures of a fabric estimate: each kind's own (`fabric.kind.FabricKind.figures`), names and printing
units chosen by the kind; a kind that gives none is shown field by field from its details record.
"""

from __future__ import annotations

import dataclasses
import numbers
from typing import TYPE_CHECKING

from fabric.registry import get_kind

if TYPE_CHECKING:  # the estimate is read, never built, here: a link command imports no fabric code
    from fabric.estimate import FabricEstimate


def _generic(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    """Every number of the estimate's details record, named by its field, without a unit."""
    if not dataclasses.is_dataclass(est.details):
        return {}
    return {f.name.replace("_", " "): (float(getattr(est.details, f.name)), "")
            for f in dataclasses.fields(est.details)
            if isinstance(getattr(est.details, f.name), numbers.Real)}


def figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    """name → (value, unit) of the fabric's own figures, in the order a reader wants them."""
    own = get_kind(est.kind).figures
    return (own or _generic)(est)
