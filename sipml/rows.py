"""A sweep's rows kept by column (`Table`, a sequence of dicts to its readers) and their writers: CSV and JSON
lines built column by column in blocks of rows (the same text the csv and json modules write for those rows),
Parquet from the columns."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence

import numpy as np

from sipml.figures_text import figure_text

from sipml.wide import csv_text

_cell = csv_text  # a cell's text: one rule for the sweep's writer and the commands' CSV
_NATIVE = {"f": float, "b": bool, "i": int}  # a numpy column's kind → the Python type of a value it holds as is
SHOWN_DIGITS = 4  # significant digits of a number in a table to read (CSV, JSON lines and Parquet keep every digit)
SHOWN_ROWS = 20  # rows a notebook shows of a longer table: the first and the last, with a count between


class Table(Sequence):
    """A sweep's rows, kept by column: `names` in order (first seen first), one numpy array per column and a mask of
    the rows that have it. Indexing and iteration give each row as a dict (Python values), as the per-point path
    builds them; the writers read the columns."""

    def __init__(self, names: list[str], data: dict, present: dict, length: int):
        self.names, self.data, self.present, self.length = names, data, present, length

    @classmethod
    def from_rows(cls, rows: list[dict]) -> Table:
        names = columns(rows)
        data, present = {}, {}
        for name in names:
            have = np.fromiter((name in r for r in rows), dtype=bool, count=len(rows))
            data[name] = _typed([r.get(name) for r in rows], have)
            present[name] = None if have.all() else have
        return cls(names, data, present, len(rows))

    @classmethod
    def from_columns(cls, axes, columns: dict, length: int) -> Table:
        """The axis columns of the full grid (grid order) followed by `columns`, then an empty 'error' column."""
        shape = tuple(len(a.values) for a in axes)
        data = {}
        for dim, a in enumerate(axes):
            values = np.asarray(a.values) if all(type(v) in (int, float) for v in a.values) else _objects(a.values)
            index = np.arange(len(a.values)).reshape([-1 if d == dim else 1 for d in range(len(axes))])
            data[a.column] = values[np.broadcast_to(index, shape).ravel()]
        data.update(columns)
        data["error"] = np.full(length, "", dtype=object)
        return cls(list(data), data, dict.fromkeys(data), length)

    @classmethod
    def concat_axis(cls, parts: list[Table], axes, dim: int, picks: list) -> Table:
        """Tables of sub-grids along axis `dim` of `axes` (each part's rows in its own grid order; part k holds the
        values `picks[k]` of that axis, ascending), as one table of the whole grid, its rows in grid order."""
        names = columns([dict.fromkeys(p.names) for p in parts])
        data, present = {}, {}
        for name in names:
            chunks, masks = [], []
            for p in parts:
                if name in p.data:
                    chunks.append(p.data[name])
                    masks.append(p.present[name] if p.present[name] is not None else np.ones(p.length, dtype=bool))
                else:
                    chunks.append(np.full(p.length, None, dtype=object))
                    masks.append(np.zeros(p.length, dtype=bool))
            kinds = {c.dtype for c in chunks}
            data[name] = np.concatenate(chunks if len(kinds) == 1 else [c.astype(object) for c in chunks])
            have = np.concatenate(masks)
            present[name] = None if have.all() else have
        length = sum(p.length for p in parts)
        # the parts' rows, one part after another, put at their places in the grid
        grid = np.arange(length).reshape([len(a.values) for a in axes])
        at = np.concatenate([grid.take(list(pick), axis=dim).ravel() for pick in picks])
        order = np.empty_like(at)
        order[at] = np.arange(length)
        data = {n: v[order] for n, v in data.items()}
        present = {n: None if m is None else m[order] for n, m in present.items()}
        return cls(names, data, present, length)

    def replace_rows(self, index, rows: list[dict]) -> None:
        """Rows `index` (grid positions, ascending) become `rows`, computed by the per-point path; the column order
        stays first seen first, over the rows in grid order."""
        kept = np.ones(self.length, dtype=bool)
        kept[index] = False
        if kept.any():
            first = int(np.argmax(kept))
            names = columns([*(r for i, r in zip(index, rows) if i < first), dict.fromkeys(self.names),
                             *(r for i, r in zip(index, rows) if i > first)])
        else:
            names = columns(rows)
        for name in set(self.names) - set(names):
            del self.data[name], self.present[name]
        for name in names:
            if name not in self.data:
                self.data[name] = np.full(self.length, None, dtype=object)
                self.present[name] = np.zeros(self.length, dtype=bool)
            have = self.present[name] if self.present[name] is not None else np.ones(self.length, dtype=bool)
            given = [(i, r[name]) for i, r in zip(index, rows) if name in r]
            native = _NATIVE.get(self.data[name].dtype.kind)
            if native is None or any(type(v) is not native for _, v in given):  # the rows' values as they are
                self.data[name] = self.data[name].astype(object)
            column = self.data[name]
            if given:  # each a value of the column's own type (a float in a float column) or objects
                at, values = zip(*given)
                column[list(at)] = values if column.dtype != object else _objects(values)
            have[index] = False
            have[[i for i, _ in given]] = True
            self.present[name] = None if have.all() else have
        self.names = names

    def insert_after(self, after: str, name: str, values: np.ndarray) -> None:
        """A new column `name` (a value in every row of `after`) placed right after column `after`."""
        self.data[name] = values
        have = self.present[after]
        self.present[name] = None if have is None else have.copy()
        if have is not None:
            self.data[name] = values.astype(object)
            self.data[name][~have] = None
        i = self.names.index(after)
        self.names = [*self.names[:i + 1], name, *self.names[i + 1:]]

    def rows_between(self, start: int, stop: int) -> Table:
        """Rows start … stop − 1 as a table of the same columns (views, not copies)."""
        return Table(self.names, {name: self.data[name][start:stop] for name in self.names},
                     {name: None if self.present[name] is None else self.present[name][start:stop]
                      for name in self.names}, stop - start)

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.length))]
        i = range(self.length)[i]
        return {name: _python(self.data[name][i]) for name in self.names
                if self.present[name] is None or self.present[name][i]}

    def __eq__(self, other) -> bool:
        """Same rows, cell for cell (NaN equals NaN: a table that says 'no value' twice is the same table)."""
        return len(self) == len(other) and all(a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
                                               for a, b in zip(self, other))

    __hash__ = None

    def report(self, title: str, hidden=(), rows: range | None = None):
        """The rows (or `rows` of them) as a `sipml.render.Report` to read: numbers to SHOWN_DIGITS significant
        digits, yes/NO flags, '–' for no value, the columns in `hidden` left out, the error column only when a
        point has one."""
        from sipml.render import Report
        from sipml.render import Table as Shown

        hidden = set(hidden)
        if "error" in self.data and not any(self.column("error")):
            hidden.add("error")
        names = [n for n in self.names if n not in hidden]
        index = range(self.length) if rows is None else rows
        cells = {}
        for n in names:
            column = self.column(n)
            cells[n] = [_shown(column[i]) for i in index]
        return Report({}, [Shown(title, names, [{n: cells[n][k] for n in names} for k in range(len(index))])])

    def _preview(self):
        """The report a notebook shows: every row up to SHOWN_ROWS, else the first and last halves of that."""
        if self.length <= SHOWN_ROWS:
            return self.report(f"{self.length} rows")
        half = SHOWN_ROWS // 2
        head, tail = self.report("", rows=range(half)), self.report("", rows=range(self.length - half, self.length))
        shown = head.tables[0]
        shown.rows += [dict.fromkeys(shown.columns, "…"), *tail.tables[0].rows]
        shown.title = f"{self.length:,} rows (the first and last {half})"
        return head

    def __repr__(self) -> str:
        from sipml.render import render

        return render(self._preview(), "table").rstrip("\n")

    def _repr_html_(self) -> str:
        from sipml.render import html_fragment

        return html_fragment(self._preview(), headings=False)

    def to_dict(self) -> dict:
        """The rows as `sipml sweep -f jsonl` writes them, as Python: {"rows": [...]}, each row with its own keys, a
        number without a value None (NaN in the rows themselves), an infinity "inf" or "-inf" — what `json.dumps`
        writes as standard JSON."""
        import json

        return {"rows": [json.loads(line) for line in to_jsonl(self).splitlines()]}

    def to_pandas(self, numbers_as_float: bool = False):
        """The rows as a pandas DataFrame, one column per column, typed: flags as bool, numbers as numbers (SI where
        the name says so; NaN where a row has no value; with `numbers_as_float` whole numbers too as float), texts
        as texts. Needs pandas (`pip install 'sipml[notebook]'`)."""
        pd = _pandas()
        frame = pd.DataFrame({n: self.data[n] if self.present[n] is None and self.data[n].dtype != object
                              else self.column(n) for n in self.names}, columns=self.names)
        if numbers_as_float:  # a flag column is no number; a column without a value is NaN, pandas' "no value"
            frame = frame.astype({n: float for n in self.names if frame[n].dtype.kind in "iu"
                                  or frame[n].dtype == object and frame[n].isna().all()})
        return frame.copy()  # its columns in one block a dtype: a frame of a block a column warns of fragmentation
        # when the user adds a column

    def column(self, name: str) -> list:
        """One column as Python values: None where a row lacks the column, NaN where a number has no value (as the
        rows hold it; `sipml.rows.to_jsonl` writes both as null, as `sipml sweep -f jsonl` does)."""
        values = self.data[name].tolist()
        have = self.present[name]
        return values if have is None else [v if h else None for v, h in zip(values, have)]


def _shown(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return "–" if math.isnan(value) else figure_text(value, SHOWN_DIGITS)
    return str(value)


def _pandas():
    from core.errors import InputError

    try:
        import pandas
    except ImportError:
        raise InputError("to_pandas() needs pandas: pip install 'sipml[notebook]'") from None
    return pandas


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


_FILL = {bool: False, float: math.nan, int: 0}  # a typed column's value in the rows that lack it (masked)


def _typed(values: list, have: np.ndarray) -> np.ndarray:
    """A column of Python values as a typed array where the values the rows have are all bools, all floats or all
    whole numbers of int64 (so it writes and converts as the grid's own columns do); else as objects."""
    given = [v for v, h in zip(values, have) if h]
    kinds = set(map(type, given))
    if any(issubclass(k, np.generic) for k in kinds):  # numpy's scalars as Python's (np.float64's repr is no number)
        values = [_python(v) for v in values]
        given = [v for v, h in zip(values, have) if h]
        kinds = set(map(type, given))
    if len(kinds) == 1 and (kind := kinds.pop()) in _FILL and (
            kind is not int or all(-2 ** 63 <= v < 2 ** 63 for v in given)):
        return np.array([v if h else _FILL[kind] for v, h in zip(values, have)], dtype=kind)
    out = _objects(values)
    out[~have] = None
    return out


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def columns(rows) -> list[str]:
    """Every column, first seen first, `error` last (as each row holds its keys), whichever point failed first."""
    out: dict[str, None] = {}
    for r in rows:
        out.update(dict.fromkeys(r))
    if "error" in out:
        del out["error"]
        out["error"] = None
    return list(out)


def to_csv(rows) -> str:
    """The table as CSV: one header line of column names, one line per row; numbers as Python writes them (floats
    by repr), booleans as true/false, empty cells for NaN and missing values; text quoted as the csv module does
    (only when it holds a comma, a quote or a line break). Written column by column rather than by the csv module
    (which writes the commands' one-row-per-design CSV, `sipml.render`): 1.8× faster on a 200,000-point sweep
    (0.58 s against 1.06 s for csv.writer on the same cells; 2.1 s converting each cell as it writes), with the
    same text (tested)."""
    return "".join(csv_parts(rows))


CSV_ROWS_PER_PART = 1 << 16


def csv_parts(rows):
    """`to_csv` as consecutive pieces of text (the header, then blocks of CSV_ROWS_PER_PART rows), so a large sweep
    is written without holding all of its text."""
    table = rows if isinstance(rows, Table) else Table.from_rows(list(rows))
    yield ",".join(_quoted(name) for name in table.names) + "\n"
    for start in range(0, table.length, CSV_ROWS_PER_PART):
        block = table.rows_between(start, min(start + CSV_ROWS_PER_PART, table.length))
        cells = [_column_cells(block, name) for name in block.names]
        if len(cells) == 1:  # a lone empty cell is quoted, as the csv module does: an empty line is no row
            cells = [[c or '""' for c in cells[0]]]
        yield "\n".join(map(",".join, zip(*cells))) + "\n"


def _column_cells(table: Table, name: str) -> list[str]:
    values = table.data[name]
    if values.dtype == bool:
        cells = np.where(values, "true", "false").tolist()
    elif values.dtype.kind in "fiu":
        cells = _number_cells(values)
    else:
        items = values.tolist()
        if {*map(type, items)} <= {str}:  # names and messages repeat: quote each distinct one once
            quoted = {v: _quoted(v) for v in set(items)}
            cells = list(map(quoted.__getitem__, items))
        else:
            cells = [_quoted(csv_text(v)) for v in items]
    have = table.present[name]
    if have is not None:
        for i in np.flatnonzero(~have):
            cells[i] = ""
    return cells


def _number_cells(values: np.ndarray) -> list[str]:
    """repr of each number ('' for NaN). Axis columns and counts repeat a few values: those are written once per
    distinct bit pattern (so −0.0 stays '-0.0')."""
    if not len(values):
        return []
    bits = values.view(np.int64) if values.dtype == np.float64 else values
    distinct, inverse = np.unique(bits, return_inverse=True)
    if 4 * len(distinct) < len(values):
        texts = _reprs(distinct.view(values.dtype) if values.dtype == np.float64 else distinct)
        return list(map(texts.__getitem__, inverse.ravel().tolist()))
    return _reprs(values)


def _reprs(values: np.ndarray) -> list[str]:
    cells = repr(values.tolist())[1:-1].split(", ")  # every repr in one call
    if values.dtype.kind == "f":
        for i in np.flatnonzero(np.isnan(values)):
            cells[i] = ""
    return cells


def _quoted(text) -> str:
    text = str(text)
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_jsonl(rows) -> str:
    """One JSON object per row (the row's own keys; NaN as null, infinities as "inf"/"-inf")."""
    return "".join(jsonl_parts(rows))


def jsonl_parts(rows):
    """`to_jsonl` in blocks of CSV_ROWS_PER_PART rows, each value's JSON text made column by column."""
    import json

    table = rows if isinstance(rows, Table) else Table.from_rows(list(rows))
    keys = {name: json.dumps(name, ensure_ascii=False) + ": " for name in table.names}
    for start in range(0, table.length, CSV_ROWS_PER_PART):
        block = table.rows_between(start, min(start + CSV_ROWS_PER_PART, table.length))
        cells = [_json_cells(block, name, keys[name]) for name in block.names]
        yield "".join("{" + ", ".join(c for c in row if c) + "}\n" for row in zip(*cells))


def _json_cells(table: Table, name: str, key: str) -> list[str]:
    """'"name": value' for each row of one column ('' where the row has no such key)."""
    import json

    values = table.data[name]
    if values.dtype == bool:
        texts = np.where(values, key + "true", key + "false").tolist()
    elif values.dtype.kind in "fiu":
        texts = [key + t if t else key + "null" for t in _number_cells(values)]
        if values.dtype.kind == "f":
            for i in np.flatnonzero(np.isinf(values)):
                texts[i] = key + ('"inf"' if values[i] > 0 else '"-inf"')
    else:
        def text(v):
            if isinstance(v, float) and not math.isfinite(v):
                v = None if math.isnan(v) else ("inf" if v > 0 else "-inf")
            return key + json.dumps(v, ensure_ascii=False)

        items = values.tolist()
        if {*map(type, items)} <= {str}:
            memo = {v: text(v) for v in set(items)}
            texts = list(map(memo.__getitem__, items))
        else:
            texts = [text(v) for v in items]
    have = table.present[name]
    if have is not None:
        for i in np.flatnonzero(~have):
            texts[i] = ""
    return texts


def _bits(pa, flags):
    """An Arrow bitmap of boolean flags (least significant bit first): a validity map or a boolean column's data."""
    return pa.py_buffer(np.packbits(np.asarray(flags, dtype=bool), bitorder="little"))


def _arrow_numbers(pa, values: np.ndarray, valid=None):
    """A float64, int64 or boolean Arrow array over a numpy column, built from its buffers (pa.array would import
    pandas, where it is installed, to ask whether the column is a pandas Series: +0.2 s per process)."""
    validity = None if valid is None or valid.all() else _bits(pa, valid)
    if values.dtype.kind == "b":
        return pa.Array.from_buffers(pa.bool_(), len(values), [validity, _bits(pa, values)])
    kind = pa.float64() if values.dtype.kind == "f" else pa.int64()
    data = np.ascontiguousarray(values, dtype=np.float64 if values.dtype.kind == "f" else np.int64)
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(data)])


def _arrow_values(pa, items: list):
    """An Arrow array of Python values (None: null): texts, flags, whole numbers or numbers from their buffers,
    anything else by pa.array."""
    kinds = set(map(type, items)) - {type(None)}
    valid = np.fromiter(map(operator.is_not, items, itertools.repeat(None)), dtype=bool, count=len(items))
    if not kinds:
        return pa.nulls(len(items))
    if kinds == {str}:
        texts = _utf8(items)
        if texts is not None:
            validity = None if valid.all() else _bits(pa, valid)
            return pa.Array.from_buffers(pa.string(), len(items), [validity, *(pa.py_buffer(b) for b in texts)])
    elif kinds == {bool}:
        return _arrow_numbers(pa, np.array([bool(v) for v in items]), valid)
    elif kinds <= {int, float} and (float in kinds or all(abs(v) < 2 ** 63 for v in items if v is not None)):
        kind = np.float64 if float in kinds else np.int64
        return _arrow_numbers(pa, np.array([0 if v is None else v for v in items], dtype=kind), valid)
    return pa.array(items)


def _utf8(items: list):
    """(int32 offsets, UTF-8 bytes) of texts (None as ''), each distinct text encoded once and the bytes gathered
    by numpy; None when they pass Arrow's 2 GiB of a string array."""
    distinct = {text: i for i, text in enumerate(dict.fromkeys(items))}
    at = np.fromiter(map(distinct.__getitem__, items), dtype=np.intp, count=len(items))
    encoded = [b"" if text is None else text.encode("utf-8") for text in distinct]
    sizes = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    lengths = sizes[at]
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] >= 2 ** 31:
        return None
    starts = np.cumsum(sizes) - sizes  # of each distinct text in the pool
    pool = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    gathered = pool[np.repeat(starts[at] - offsets[:-1], lengths) + np.arange(offsets[-1])]
    return offsets.astype(np.int32), gathered.tobytes()


def to_parquet(rows: list[dict]) -> bytes:
    from core.errors import InputError

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("Parquet output needs pyarrow: pip install pyarrow") from None
    import io

    table = rows if isinstance(rows, Table) else Table.from_rows(list(rows))
    arrays = []
    for name in table.names:
        values, have = table.data[name], table.present[name]
        if have is None and values.dtype.kind in "fib":  # NaN (no value) is null, as in JSON lines
            arrays.append(_arrow_numbers(pa, values, ~np.isnan(values) if values.dtype.kind == "f" else None))
        else:
            items = table.column(name)
            if values.dtype.kind in "fO" and float in set(map(type, items)):  # NaN (no value) is null
                items = [None if isinstance(v, float) and math.isnan(v) else v for v in items]
            arrays.append(_arrow_values(pa, items))
    table = pa.Table.from_arrays(arrays, names=table.names)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()
