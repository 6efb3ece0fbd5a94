"""Fixtures of the application's tests: the HTML report with its figures, run once per test process for the
modules that read it (a report runs ~140 searches)."""

import pytest

from tests.sipml.report_runs import html_report


@pytest.fixture(scope="session")
def html_report_run(tmp_path_factory):
    """(the page's text, the figures written, the folder) of `sipml report -f html -o … --plots …`."""
    pytest.importorskip("matplotlib")
    return html_report(tmp_path_factory.mktemp("report"))
