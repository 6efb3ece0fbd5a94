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
    Its attributes are the record's (`link.margin_db`); `record` is the record itself; a notebook shows the
    report's tables, `print` their text; `to_pandas()` gives the report's numbers, one row per key (the
    `--format csv` rows: raw SI numbers under their JSON keys)."""

    __slots__ = ("record", "_build", "__dict__")

    def __init__(self, record, build):
        object.__setattr__(self, "record", record)
        object.__setattr__(self, "_build", build)  # record → sipml.render.Report

    @functools.cached_property
    def report(self):
        return self._build(self.record)

    def __getattr__(self, name: str):
        if name.startswith("_repr_") or name.startswith("__"):  # IPython's probes are not the record's
            raise AttributeError(name)
        return getattr(self.record, name)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self.record).__name__} is read-only")

    def __eq__(self, other) -> bool:
        return self.record == (other.record if isinstance(other, Result) else other)

    __hash__ = None

    def __dir__(self):
        return sorted({*dir(self.record), "record", "report", "to_pandas"})

    def to_pandas(self):
        from sipml.render import _flatten, _json_safe
        from sipml.rows import _pandas

        return _pandas().DataFrame(list(_flatten(_json_safe(self.report.data))), columns=["key", "value"])


class Rows(_Shown, list):
    """The rows of `sipml speedup` (a list of the JSON dicts) with its report: a notebook shows its tables,
    `print` their text; `to_pandas()` gives one DataFrame row per design, nested keys flattened with dots
    (`strategy.tp`, `baselines.fattree-200.speedup`)."""

    def __init__(self, rows, build):
        super().__init__(rows)
        self._build = build  # rows → sipml.render.Report

    @functools.cached_property
    def report(self):
        return self._build(list(self))

    def to_pandas(self):
        from sipml.rows import _pandas

        return _pandas().json_normalize(list(self), sep=".")
