"""Regenerate the field table of docs/design-format.md from the declarations: python docs/update_design_format.py"""

from pathlib import Path

from sipml.render import render
from sipml.design_reports import fields_report

DOC = Path(__file__).with_name("design-format.md")
MARK = "### Design-file fields"

if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text[: text.index(MARK)] + render(fields_report(), "markdown"), encoding="utf-8")
    print(f"updated {DOC}")
