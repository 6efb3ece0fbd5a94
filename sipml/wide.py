"""A command's JSON records as the rows of a wide table, one per design (or speedup row): the rows `--format csv`
writes and `to_pandas()` gives, a column per quantity named with its unit as a sweep names its columns
(`sipml.quantities.unit_column`), a column per nested number (`limits_gbps.fsr_channels [Gbit/s]`, a cost
component's `breakdown.<entry>.cost_usd_per_gpu [USD]`)."""

from __future__ import annotations

import math

import numpy as np


def wide_row(record: dict) -> dict:
    """One JSON record of a command (a design's `budget`, `fabric`, `cost` entry, `speedup` row) as one table row:
    {column: value}, columns named `key [unit]`, values bool, int, float, text or None (no value). Nested records
    are flattened by these rules:

    - a record's keys go under `key.` (`limits_gbps.fsr_channels`, `strategy.tp`); a record of numbers directly
      under a key takes the key's unit (`collective_times_s.all_reduce [s]`), any number its own key's
      (`sipml.quantities.key_unit`); a {value, unit} record (`figures`) is one number in that unit;
    - `X_range` [low, typical, high] gives `X_low` and `X_high` (the typical is `X`'s own column);
    - a list of {name, value, unit} (the budget's `ledger`) gives one column per item, `ledger.NAME [unit]`;
    - a list of {name, message} (`violations`) gives the names joined by ';' (as the sweep's violation columns),
      a list of texts (`notes`, `warnings`) the texts joined by '; ';
    - a list of records with a `key` or a `name` (the cost breakdown's components, fabric `groups`) goes under
      that key or name, any other list under its indices."""
    out: dict = {}
    for key, value in record.items():
        _wide(out, key, key, value, key)
    return out


def _wide(out: dict, path: str, key: str, value, parent: str) -> None:
    from sipml.quantities import key_unit, unit_column

    if isinstance(value, dict):
        if value.keys() == {"value", "unit"}:
            _put(out, unit_column(path, value["unit"]), value["value"])
            return
        for k, v in value.items():  # the key's unit reaches only its own record's numbers, not a named entry's
            _wide(out, f"{path}.{k}", str(k), v, key if path == parent else "")
    elif key.endswith("_range") and (value is None or _range(value)):
        base = key[:-len("_range")]
        for end, v in zip(("_low", "_high"), (None, None) if value is None else (value[0], value[-1])):
            _put(out, unit_column(path[:-len("_range")] + end, key_unit(base)), v)
    elif isinstance(value, (list, tuple)):
        records = all(isinstance(v, dict) for v in value) and value
        if all(isinstance(v, str) for v in value):
            _put(out, path, "; ".join(value))
        elif records and all(v.keys() == {"name", "message"} for v in value) or not value and key == "violations":
            _put(out, path, ";".join(v["name"] for v in value))
        elif records and all({"name", "value", "unit"} <= v.keys() for v in value):
            for v in value:
                _put(out, unit_column(f"{path}.{v['name']}", v["unit"]), v["value"])
        elif records and all("key" in v for v in value) or records and all("name" in v for v in value):
            field = "key" if "key" in value[0] else "name"
            for v in value:
                _wide(out, f"{path}.{v[field]}", "", {k: x for k, x in v.items() if k != field}, "")
        else:
            for i, v in enumerate(value):
                _wide(out, f"{path}.{i}", "", v, "")
    else:
        _put(out, unit_column(path, key_unit(key, parent)), value)


def _range(value) -> bool:
    return isinstance(value, (list, tuple)) and len(value) == 3 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)


def _put(out: dict, name: str, value) -> None:
    """`out[name] = value` as a Python value (a numpy scalar's `item()`, never a negative zero), a repeated name
    numbered (`name (2)`)."""
    if isinstance(value, np.generic):  # np.float64's repr is no number
        value = value.item()
    if isinstance(value, float) and value == 0.0:
        value = 0.0

    column, n = name, 1
    while column in out:
        n += 1
        column = f"{name} ({n})"
    out[column] = value


def wide_rows(records) -> tuple[list[str], list[dict]]:
    """(the columns, one row per record): every record's columns, first seen first; a record with no value where
    another has a nested one (an infeasible design's null `breakdown` beside a priced one's components) leaves
    that record's cells of it empty, not a column of its own."""
    rows = [wide_row(r) for r in records]
    names = list(dict.fromkeys(name for row in rows for name in row))
    bare = (lambda n: n.split(" [", 1)[0])  # the key without its unit
    empty = {n for n in names if all(r.get(n) is None for r in rows)
             and any(m.startswith(bare(n) + ".") for m in names)}
    for row in rows:
        for n in empty:
            row.pop(n, None)
    return [n for n in names if n not in empty], rows


def csv_text(value) -> str:
    """A cell of CSV: a number as Python writes it (a float by repr, every digit), a flag true/false, no value
    (None, NaN) empty, a text as itself."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return "" if value is None else str(value)
