"""The documented design-file format stays in step with the field declarations."""

from pathlib import Path

from sipml.render import render
from sipml.design_reports import fields_report

DOC = Path(__file__).resolve().parents[2] / "docs" / "design-format.md"


def test_design_format_doc_matches_the_declarations():
    table = render(fields_report(), "markdown")
    assert table in DOC.read_text(encoding="utf-8"), "regenerate with `python docs/update_design_format.py`"


def test_the_quantity_doc_matches_the_table():
    from sipml.design_reports import quantities_report

    doc = DOC.with_name("quantities.md")
    assert render(quantities_report(), "markdown") in doc.read_text(encoding="utf-8"), \
        "regenerate with `python docs/update_quantities.py`"
