"""`sipml report`'s printed output for the tests that only read it: each command line run once per test process
(a report runs ~140 searches), through the real entry point, exit 0 checked."""

import contextlib
import functools
import io
from pathlib import Path

from sipml.cli import main


@functools.cache
def report_output(*argv: str) -> str:
    """What `sipml report ARGV…` prints (its tables, or its JSON with `-f json`)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["report", *argv])
    assert code == 0, err.getvalue()
    return out.getvalue()


def html_report(folder: Path) -> tuple[str, list[Path], Path]:
    """`sipml report -f html -o FOLDER/report.html --plots FOLDER/figures`: (the page's text, the figures written,
    the folder)."""
    page = folder / "report.html"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["report", "-f", "html", "-o", str(page), "--plots", str(folder / "figures")])
    assert code == 0, err.getvalue()
    return page.read_text(encoding="utf-8"), sorted((folder / "figures").glob("*.png")), folder
