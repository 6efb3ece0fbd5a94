"""Insertion-loss ledger: named lines, each a count × a loss per item, summed in dB.

Typical per-item values (the defaults of `photonics.link_design`) come from DSENT `Photonics.model`,
PhoenixSim, and the datasheets listed in the field declarations. `fiber_path` is the part of the ledger every link
kind shares: the fiber plant between the transmitter's output and the receiver's input.

Each line has a stable `key` that consumers select it by (the `name` is for reading). Values are floats for one
design point or arrays over a grid of them; a line's `detail` text is written for a single point only.
"""

from __future__ import annotations

import numpy as np

from core.records import record
from photonics.link_design import LinkDesign
from photonics.fieldspecs import named_losses


@record
class LedgerLine:
    """One line of a link budget: `count` items of `each_db` dB (or a length × a loss per length)."""

    name: str
    value_db: float
    detail: str = ""
    key: str = ""


def ndim(value) -> int:
    """Dimensions of a number (0) or an array: `np.ndim` without its overhead, for the per-point path."""
    return getattr(value, "ndim", 0)


def _scalar(*values) -> bool:
    return all(ndim(v) == 0 for v in values)


def line(key: str, name: str, count, each_db, what: str) -> LedgerLine:
    """A ledger line of `count` × `each_db`, with a detail text such as '7 × 0.01 dB'."""
    if _scalar(count, each_db):
        return LedgerLine(name, float(count) * float(each_db), f"{count:g} × {each_db:g} dB {what}".rstrip(), key)
    return LedgerLine(name, np.asarray(count, dtype=float) * each_db, "", key)


def distributed(key: str, name: str, length_m, loss_db_per_m, shown_unit: str = "cm") -> LedgerLine:
    """A ledger line for a distributed loss: length × loss per length."""
    scale = {"cm": 1e-2, "m": 1.0, "km": 1e3}[shown_unit]
    detail = (f"{length_m / scale:g} {shown_unit} × {loss_db_per_m * scale:g} dB/{shown_unit}"
              if _scalar(length_m, loss_db_per_m) else "")
    return LedgerLine(name, np.asarray(length_m) * loss_db_per_m if not _scalar(length_m) else length_m * loss_db_per_m,
                      detail, key)


def total_db(lines):
    """Sum of a ledger, in dB, in its order (a float for one point, an array over a grid)."""
    total = 0.0
    for item in lines:
        total = total + item.value_db
    return float(total) if ndim(total) == 0 else total


def fiber_path(d: LinkDesign, ls=None) -> list[LedgerLine]:
    """The fiber plant between the two couplers, shared with point-to-point links: connectors, splices, fiber, named
    extra items, switch passes, mux/demux. `ls`: the loss section's numbers (default the design's)."""
    ls = d.loss if ls is None else ls
    items = [line("connectors", "connectors", ls.connectors, ls.connector_loss, "each")]
    if np.any(np.asarray(ls.splices) != 0):
        items.append(line("splices", "splices", ls.splices, ls.splice_loss, "each"))
    long = _scalar(ls.fiber_length) and ls.fiber_length >= 1e3
    items.append(distributed("fiber", "fiber", ls.fiber_length, ls.fiber_loss, "km" if long else "m"))
    items += [LedgerLine(name, value, "extra item", f"extra:{name}") for name, value in named_losses(d.loss.extra_losses)]
    per_pass = np.asarray(ls.switch_loss) + np.asarray(ls.switch_connectors) * ls.connector_loss
    items += [line("switch_passes", "optical-switch passes", ls.switch_ports, float(per_pass) if _scalar(per_pass)
                   else per_pass, f"each: {ls.switch_loss:g} dB port + {ls.switch_connectors} patch connectors"
                   if _scalar(ls.switch_loss, ls.switch_connectors) else ""),
              line("mux_demux", "mux/demux", 1, ls.mux_demux_loss, "")]
    return items
