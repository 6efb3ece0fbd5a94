"""Rendering of reports as table, JSON, CSV or Markdown, and atomic output files.

A report is data: a JSON-ready mapping plus titled tables of rows (each row a mapping column → text).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import InputError

FORMATS = ("table", "json", "csv", "markdown")


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[dict] = field(default_factory=list)


@dataclass
class Report:
    data: dict
    tables: list[Table]
    footer: list[str] = field(default_factory=list)


def _json_safe(value):
    """Infinities become the strings "inf"/"-inf" and NaN (an undefined quantity) becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
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
    else:
        yield prefix, "" if value is None else value


def _text_table(t: Table) -> str:
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in t.rows)) if t.rows else len(c) for c in t.columns}
    lines = [t.title, "  ".join(c.ljust(widths[c]) for c in t.columns).rstrip(),
             "  ".join("-" * widths[c] for c in t.columns)]
    for r in t.rows:
        lines.append("  ".join(str(r.get(c, "")).ljust(widths[c]) for c in t.columns).rstrip())
    return "\n".join(lines)


def _markdown_table(t: Table) -> str:
    def cell(v):
        return str(v).replace("|", "\\|")

    lines = [f"### {t.title}", "", "| " + " | ".join(t.columns) + " |", "|" + "---|" * len(t.columns)]
    lines += ["| " + " | ".join(cell(r.get(c, "")) for c in t.columns) + " |" for r in t.rows]
    return "\n".join(lines)


def render(report: Report, fmt: str) -> str:
    """The report in one of FORMATS."""
    if fmt == "json":
        return json.dumps(_json_safe(report.data), indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["key", "value"])
        writer.writerows(_flatten(_json_safe(report.data)))
        return buf.getvalue()
    if fmt == "markdown":
        return "\n\n".join([*(_markdown_table(t) for t in report.tables), *report.footer]) + "\n"
    if fmt == "table":
        blocks = [_text_table(t) for t in report.tables]
        if report.footer:
            blocks.append("\n".join(report.footer))
        return "\n\n".join(blocks) + "\n"
    raise InputError(f"unknown format '{fmt}', expected one of {', '.join(FORMATS)}")


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename, so a reader never
    sees a half-written file and an existing file survives a failure."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{target}: folder {folder} does not exist")
    if target.is_dir():
        raise InputError(f"{target}: is a directory, expected a file name")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # the permissions a plain open() would give
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic_bytes(path: str | Path, payload: bytes) -> None:
    """`write_atomic` for binary content (figures)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
