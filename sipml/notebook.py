"""Results as a notebook shows them: the records and rows of `sipml.api`, displayed as the tables the command line
prints (`repr` as text, `_repr_html_` as HTML) and handed on as pandas DataFrames (`to_pandas()`)."""

from __future__ import annotations

import functools


class _Shown:
    """What a notebook shows of a result with a `report` (a `sipml.render.Report`): its text tables as `repr`, its
    tables as HTML."""

    __slots__ = ()

    def __repr__(self) -> str:
        from sipml.render import render

        return render(self.report, "table").rstrip("\n")

    def _repr_html_(self) -> str:
        from sipml.render import html_fragment

        return html_fragment(self.report, headings=False)


class Result(_Shown):
    """A record (`LinkEstimate`, `FabricEstimate`, `CostSummary`) with the report the command line prints for it.
    Its attributes are the record's (`link.margin_db`) and the `verdict`'s (a cost's `feasible`, `violations` and
    `reason`); `record` is the record itself; a notebook shows the report's tables, `print` their text;
    `to_dict()` is the command's JSON, `to_pandas()` its `--format csv` row: one row, a column per quantity
    (`margin_db [dB]`), typed (flags bool, numbers float)."""

    __slots__ = ("record", "_build", "_verdict", "__dict__")

    def __init__(self, record, build, verdict: dict | None = None):
        object.__setattr__(self, "record", record)
        object.__setattr__(self, "_build", build)  # record → sipml.render.Report
        object.__setattr__(self, "_verdict", dict(verdict or {}))  # attributes the record does not hold

    @functools.cached_property
    def report(self):
        return self._build(self.record)

    def __getattr__(self, name: str):
        if name.startswith("_repr_") or name.startswith("__"):  # IPython's probes are not the record's
            raise AttributeError(name)
        if name in self._verdict:
            return self._verdict[name]
        return getattr(self.record, name)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self.record).__name__} is read-only")

    def __eq__(self, other) -> bool:
        return self.record == (other.record if isinstance(other, Result) else other)

    __hash__ = None

    def __dir__(self):
        return sorted({*dir(self.record), *self._verdict, "record", "report", "to_dict", "to_pandas"})

    def to_dict(self) -> dict:
        """The command's `--format json` as Python: the same keys and values (infinities "inf", no value None)."""
        return _json(self.report)

    def to_pandas(self):
        """The command's `--format csv` row as a DataFrame (`sipml.wide`): one row, a column per quantity named
        with its unit, flags bool, numbers float, no value NaN."""
        return _frame(self.report)


class Rows(_Shown, list):
    """The rows of `sipml speedup` (a list of the JSON dicts) with its report: a notebook shows its tables,
    `print` their text; `to_pandas()` gives its `--format csv` rows, one DataFrame row per design, nested keys
    flattened with dots (`strategy.tp`, `baselines.fattree-200.speedup`), each number's unit in its column's name
    (`iteration_s [s]`), flags bool, numbers float."""

    def __init__(self, rows, build):
        super().__init__(rows)
        self._build = build  # rows → sipml.render.Report

    @functools.cached_property
    def report(self):
        return self._build(list(self))

    def to_dict(self) -> dict:
        """The command's `--format json` as Python ({"rows": [...]})."""
        return _json(self.report)

    def to_pandas(self):
        return _frame(self.report)


def _frame(report):
    """The report's `--format csv` rows (`sipml.wide`) as a typed DataFrame (`sipml.rows.Table.to_pandas`); a report
    whose CSV is its JSON's key,value rows (`reliability`), that JSON as one row."""
    from sipml.rows import Table
    from sipml.wide import wide_rows

    _, rows = wide_rows(report.records if report.records is not None else [report.data])
    return Table.from_rows(rows).to_pandas(numbers_as_float=True)


def _json(report) -> dict:
    import json

    from sipml.render import render

    return json.loads(render(report, "json"))
