"""Insertion-loss ledger: named lines, each a count × a loss per item, summed in dB.

Typical per-item values (the defaults of `photonics.design`) come from DSENT `Photonics.model`,
PhoenixSim, and the datasheets listed in the field declarations.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One line of a link budget: `count` items of `each_db` dB (or a length × a loss per length)."""

    name: str
    value_db: float
    detail: str = ""


def line(name: str, count: float, each_db: float, what: str) -> LedgerLine:
    """A ledger line of `count` × `each_db`, with a detail text such as '7 × 0.01 dB'."""
    return LedgerLine(name, float(count) * float(each_db), f"{count:g} × {each_db:g} dB {what}".rstrip())


def distributed(name: str, length_m: float, loss_db_per_m: float, shown_unit: str = "cm") -> LedgerLine:
    """A ledger line for a distributed loss: length × loss per length."""
    scale = {"cm": 1e-2, "m": 1.0, "km": 1e3}[shown_unit]
    return LedgerLine(name, length_m * loss_db_per_m,
                      f"{length_m / scale:g} {shown_unit} × {loss_db_per_m * scale:g} dB/{shown_unit}")


def total_db(lines) -> float:
    """Sum of a ledger, in dB."""
    return float(sum(item.value_db for item in lines))
