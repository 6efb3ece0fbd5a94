"""Insertion-loss ledger: named lines, each a count × a loss per item, summed in dB.

Typical per-item values (the defaults of `photonics.design`) come from DSENT `Photonics.model`,
PhoenixSim, and the datasheets listed in the field declarations. `fiber_path` is the part of the ledger every link
kind shares: the fiber plant between the transmitter's output and the receiver's input.
"""

from __future__ import annotations

from dataclasses import dataclass

from photonics.design import LinkDesign
from photonics.fieldspecs import named_losses


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


def fiber_path(d: LinkDesign) -> list[LedgerLine]:
    """The fiber plant between the two couplers, shared with point-to-point links: connectors, splices, fiber, named
    extra items, switch passes, mux/demux."""
    ls = d.loss
    items = [line("connectors", ls.connectors, ls.connector_loss, "each")]
    if ls.splices:
        items.append(line("splices", ls.splices, ls.splice_loss, "each"))
    items.append(distributed("fiber", ls.fiber_length, ls.fiber_loss, "km" if ls.fiber_length >= 1e3 else "m"))
    items += [LedgerLine(name, value, "extra item") for name, value in named_losses(ls.extra_losses)]
    items += [line("optical-switch passes", ls.switch_ports, ls.switch_loss + ls.switch_connectors * ls.connector_loss,
                   f"each: {ls.switch_loss:g} dB port + {ls.switch_connectors} patch connectors"),
              line("mux/demux", 1, ls.mux_demux_loss, "")]
    return items
