"""`sipml report`'s printed output for the tests that only read it: each command line run once per test process
(a report runs ~140 searches), through the real entry point, exit 0 checked."""

import contextlib
import functools
import io

from sipml.cli import main


@functools.cache
def report_output(*argv: str) -> str:
    """What `sipml report ARGV…` prints (its tables, or its JSON with `-f json`)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["report", *argv])
    assert code == 0, err.getvalue()
    return out.getvalue()
