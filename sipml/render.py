"""Rendering of reports as table, JSON, CSV or Markdown, and atomic output files.

A report is data: a JSON-ready mapping plus titled tables of rows (each row a mapping column → text), and the
records its CSV writes one row each. JSON and CSV carry raw numbers (booleans as true/false, never a negative
zero); tables show no "-0.00". CSV (the csv module) is one row per design (`budget`, `check`, `fabric`, `cost`,
`speedup`: `sipml.wide`, a column per quantity named `key [unit]` as a sweep's columns are) or, as `csv-long` and for
reports without records, the JSON flattened to key,value rows.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import re
import sys
import signal
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import InputError

FORMATS = ("table", "json", "csv", "csv-long", "markdown", "html")


@dataclass
class Table:
    """A titled table: column names and one dict per row."""
    title: str
    columns: list[str]
    rows: list[dict] = field(default_factory=list)


@dataclass
class Report:
    """A command's output before rendering: its JSON data, tables, footer, equations and figures."""
    data: dict
    tables: list[Table]
    footer: list[str] = field(default_factory=list)
    equations: list[str] = field(default_factory=list)  # LaTeX, shown after the first table of an HTML page only
    figures: list = field(default_factory=list)  # (title, PNG bytes), embedded in an HTML page
    # the JSON records of `--format csv`, one row each (`sipml.wide.wide_rows`: one row per design, a column per
    # quantity `key [unit]`); None: the CSV is the JSON's key,value rows (as `csv-long` always is)
    records: list | None = None
    preface: list[str] = field(default_factory=list)  # paragraphs before the first table (a report's summary)
    stamp: str = ""  # version, date and command line: under an HTML page's title, the last line of a table


def _json_safe(value):
    """Infinities become the strings "inf"/"-inf", NaN (an undefined quantity) becomes null, -0.0 is 0.0."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, float) and value == 0.0:
        return 0.0
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _flatten(value, prefix: str = ""):
    """(dotted key, raw value) rows of a JSON-ready structure: the CSV form, one number per row."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _flatten(item, f"{prefix}.{index}")
    elif isinstance(value, bool):
        yield prefix, "true" if value else "false"
    else:
        yield prefix, "" if value is None else value


_NEGATIVE_ZERO = re.compile(r"(?<![\w.])[-−](0(?:\.0+)?)(?![\w.])")


def _cell(value) -> str:
    """A table cell as text, a number rounded to zero shown without its sign ("-0.00" → "0.00")."""
    return _NEGATIVE_ZERO.sub(r"\1", str(value))


MIN_WRAPPED_COLUMN = 16  # [assumed] narrowest a wrapped text column gets before the table is left to overflow


def _fit(widths: dict, width: int | None) -> dict:
    """Column widths that fit `width` characters (two spaces between columns): the widest columns are narrowed,
    each to no less than MIN_WRAPPED_COLUMN, their cells then wrapped. None: as wide as the cells."""
    if width is None:
        return widths
    fitted = dict(widths)
    while (excess := sum(fitted.values()) + 2 * (len(fitted) - 1) - width) > 0:
        widest = max(fitted, key=fitted.get)
        if fitted[widest] <= MIN_WRAPPED_COLUMN:
            break
        second = max((v for k, v in fitted.items() if k != widest), default=0)
        step = min(excess, fitted[widest] - max(MIN_WRAPPED_COLUMN, second)) or 1  # ties shrink one at a time
        fitted[widest] -= step
    return fitted


def _text_table(t: Table, width: int | None = None) -> str:
    import textwrap

    widths = {c: max(len(c), *(len(_cell(r.get(c, ""))) for r in t.rows)) if t.rows else len(c) for c in t.columns}
    fitted = _fit(widths, width)
    if width is not None and sum(fitted.values()) + 2 * (len(fitted) - 1) > width:
        return _folded_table(t, width)  # too many columns to wrap: one block of 'column: value' lines per row
    lines = [t.title if width is None else textwrap.fill(t.title, width),
             "  ".join(c.ljust(fitted[c]) for c in t.columns).rstrip(),
             "  ".join("-" * fitted[c] for c in t.columns)]
    for r in t.rows:
        cells = {c: (textwrap.wrap(_cell(r.get(c, "")), fitted[c], break_on_hyphens=False) or [""])
                 if len(_cell(r.get(c, ""))) > fitted[c] else [_cell(r.get(c, ""))] for c in t.columns}
        for i in range(max(len(v) for v in cells.values())):
            lines.append("  ".join((cells[c][i] if i < len(cells[c]) else "").ljust(fitted[c])
                                   for c in t.columns).rstrip())
    return "\n".join(lines)


def _folded_table(t: Table, width: int) -> str:
    """A table too wide for the terminal, folded: each row a block of 'column  value' lines, values wrapped."""
    import textwrap

    name_width = max(len(c) for c in t.columns)
    lines = [textwrap.fill(t.title, width)]
    for r in t.rows:
        lines.append("")
        for c in t.columns:
            text = _cell(r.get(c, ""))
            if not text:
                continue
            wrapped = textwrap.wrap(text, max(20, width - name_width - 2), break_on_hyphens=False) or [""]
            lines.append(f"{c.ljust(name_width)}  {wrapped[0]}")
            lines += [" " * (name_width + 2) + more for more in wrapped[1:]]
    return "\n".join(lines)


def terminal_width() -> int | None:
    """The width tables are wrapped to: the terminal's when stdout is one, else `COLUMNS` when the user sets it
    (a pipe into a pager or a file of a given width); None (nothing wrapped) when piped without it."""
    import os
    import shutil

    if not sys.stdout.isatty():
        columns = os.environ.get("COLUMNS", "")
        return max(40, int(columns)) if columns.isascii() and columns.isdigit() and int(columns) > 0 else None
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _markdown_table(t: Table) -> str:
    def cell(v):
        return _cell(v).replace("|", "\\|")

    lines = [f"### {t.title}", "", "| " + " | ".join(t.columns) + " |", "|" + "---|" * len(t.columns)]
    lines += ["| " + " | ".join(cell(r.get(c, "")) for c in t.columns) + " |" for r in t.rows]
    return "\n".join(lines)


_HTML_STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem auto; max-width: 76rem;
       color: #222; line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.85rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; } figcaption { font-size: 0.85rem; color: #555; }
ul.notes { font-size: 0.85rem; color: #444; } pre { background: #f7f7f7; padding: 0.5rem; overflow-x: auto; }
.nw { white-space: nowrap; } p.stamp { font-size: 0.8rem; color: #666; margin-top: -0.5rem; }
"""
_NUMBER = re.compile(r"^[-+−]?[\d,]*\.?\d+(?:e[-+]?\d+)?\s*%?$")


def html_fragment(report: Report, headings: bool = True) -> str:
    """The report's tables, equations (as LaTeX text), embedded figures and notes as HTML elements, without a page
    around them (a notebook cell shows this)."""
    import base64
    import html

    def cell(value, tag="td"):
        text = _cell(value)
        classes = ["num"] if tag == "td" and _NUMBER.match(text.strip() or "x") else []
        if text and not any(c.isspace() for c in text):
            classes.append("nw")  # one word (a design name, 'fattree-400') is never broken at its hyphen
        css = f' class="{" ".join(classes)}"' if classes else ""
        return f"<{tag}{css}>{html.escape(text)}</{tag}>"

    def figures():
        parts.append("<h2>Figures</h2>")
        for caption, payload in report.figures:
            data = base64.b64encode(payload).decode("ascii")
            parts.append(f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    parts = [f"<p>{html.escape(paragraph)}</p>" for paragraph in report.preface]
    # the figures follow the third table (the report's training comparison), before the long reference tables
    after = min(2, len(report.tables) - 1)
    for i, t in enumerate(report.tables):
        parts.append(f"<h2>{html.escape(t.title)}</h2>" if headings else f"<p><b>{html.escape(t.title)}</b></p>")
        parts.append("<table><thead><tr>" + "".join(cell(c, "th") for c in t.columns) + "</tr></thead><tbody>"
                     + "".join("<tr>" + "".join(cell(r.get(c, "")) for c in t.columns) + "</tr>" for r in t.rows)
                     + "</tbody></table>")
        if i == 0 and report.equations:
            parts += [f"<pre>{html.escape(eq)}</pre>" for eq in report.equations]
        if i == after and report.figures:
            figures()
    if report.figures and not report.tables:
        figures()
    if report.footer:
        parts.append(('<h2>Notes</h2>' if headings else "") + '<ul class="notes">'
                     + "".join(f"<li>{html.escape(n)}</li>" for n in report.footer) + "</ul>")
    return "\n".join(parts)


def _html(report: Report, title: str) -> str:
    """One self-contained HTML page: `html_fragment` under its title, with its style — nothing fetched from
    elsewhere, so it can be mailed."""
    import html

    stamp = (f'<meta name="generator" content="{html.escape(report.stamp)}">' if report.stamp else "")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title>{stamp}<style>{_HTML_STYLE}</style></head><body>\n"
            f"<h1>{html.escape(title)}</h1>\n"
            + (f'<p class="stamp">{html.escape(report.stamp)}</p>\n' if report.stamp else "")
            + html_fragment(report) + "\n</body></html>\n")


def render(report: Report, fmt: str, width: int | None = None, title: str = "sipml") -> str:
    """The report in one of FORMATS; `width`: wrap a `table` to that many characters (None: cells as they are, as
    when piped)."""
    if fmt == "json":
        import json

        return json.dumps(_json_safe(report.data), indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv" and report.records is not None:  # one row per design, a column per quantity (sipml.wide)
        from sipml.wide import csv_text, wide_rows

        names, rows = wide_rows(report.records)
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([csv_text(row.get(name)) for name in names] for row in rows)
        return buf.getvalue()
    if fmt in ("csv", "csv-long"):
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["key", "value"])
        writer.writerows(_flatten(_json_safe(report.data)))
        return buf.getvalue()
    if fmt == "html":
        return _html(report, title)
    if fmt == "markdown":
        # for reading as text: the equations' LaTeX stays in HTML and JSON (the tables carry the formula as text)
        tables = [_markdown_table(t) for t in report.tables]
        return "\n\n".join([*report.preface, *tables, *report.footer,
                            *([f"*{report.stamp}*"] if report.stamp else [])]) + "\n"
    if fmt == "table":
        import textwrap

        preface = [textwrap.fill(paragraph, width or 100) for paragraph in report.preface]
        blocks = [*preface, *(_text_table(t, width) for t in report.tables)]
        footer = [*report.footer, *([report.stamp] if report.stamp else [])]
        if footer:
            blocks.append("\n".join(footer if width is None else
                                    (textwrap.fill(line, width, subsequent_indent="  ") for line in footer)))
        return "\n\n".join(blocks) + "\n"
    raise InputError(f"unknown format '{fmt}', expected one of {', '.join(FORMATS)}")


def count_text(value: float) -> str:
    """A count or a number for a table: whole numbers as integers ("10240", never "1.024e+04"), others with
    four significant digits."""
    if isinstance(value, (int, float)) and math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def duration_parts(seconds: float) -> tuple[str, str]:
    """A duration as (number, unit) in the unit that reads it: seconds under a minute (not 0.0509 min), minutes
    under an hour, hours beyond."""
    if seconds < 60.0:
        return f"{seconds:.3g}", "s"
    return (f"{seconds / 60.0:.3g}", "min") if seconds < 3600.0 else (f"{seconds / 3600.0:.3g}", "h")


# --- output files ---------------------------------------------------------------------------------------------
class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived (`args[0]`, the signal's number): raised in the main thread so that every `finally`
    and cleanup runs."""


_DEFERRED: list[int] = []  # signals that arrived while a temporary file was being created
_DEFERRING = threading.Event()


def _on_signal(signum, frame) -> None:
    if _DEFERRING.is_set():
        _DEFERRED.append(signum)
        return
    raise Terminated(signum)


@contextlib.contextmanager
def terminate_on_signal():
    """While the block runs, SIGTERM and SIGHUP (the terminal closed) raise Terminated (instead of killing the
    process outright), so atomic writes remove their temporary file and worker processes are ended. A SIGHUP the
    process was started to ignore (nohup) stays ignored. Only the main thread can install the handlers; elsewhere
    a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hangup = getattr(signal, "SIGHUP", None)
    caught = [signal.SIGTERM] + ([hangup] if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN
                                 else [])
    previous = {sig: signal.signal(sig, _on_signal) for sig in caught}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _DEFERRED.clear()


@contextlib.contextmanager
def _signals_deferred():
    """A SIGTERM during the block is raised when it ends, once the caller knows what to clean up."""
    _DEFERRING.set()
    try:
        yield
    finally:
        _DEFERRING.clear()
        if _DEFERRED:
            signum = _DEFERRED[0]
            _DEFERRED.clear()
            raise Terminated(signum)


def check_output(target: str | Path) -> None:
    """InputError unless `target` is a new name in an existing, writable folder or an existing regular file:
    every output is checked so before any work is done, and again when written."""
    if not str(target).strip():  # Path('') is '.', the working folder: an empty name is no file name
        raise InputError(f"{str(target)!r}: an empty file name (give a file, or '-' for stdout)")
    target = Path(target)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{target}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{target}: folder {folder} is not writable")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{target}: is a directory, expected a file name")
    if not stat.S_ISREG(mode):
        kind = ("a symbolic link" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise InputError(f"{target}: is {kind}; refusing to replace it (write to a regular file or '-' for stdout)")


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically; see `write_atomic_bytes`."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: str | Path, payload) -> None:
    """Write `payload` (bytes, or an iterable of bytes written in turn: a large table need not be held whole) to
    `path` through a temporary file in the same folder and a rename, so a reader never sees a half-written file,
    an existing file survives a failure, and no temporary is left behind (not on SIGTERM either, under
    `terminate_on_signal`). Symlinks, FIFOs and devices are refused, not replaced."""
    target = Path(path)
    check_output(target)
    folder = target.parent if str(target.parent) else Path(".")
    tmp = None
    try:
        with _signals_deferred():
            import tempfile

            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fh.fileno(), 0o666 & ~umask)  # the permissions a plain open() would give
            for part in ((payload,) if isinstance(payload, (bytes, bytearray)) else payload):
                fh.write(part)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise InputError(f"{target}: cannot write ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
