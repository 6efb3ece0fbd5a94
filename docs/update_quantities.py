"""Regenerate docs/quantities.md from the quantity table (sipml.quantities): python docs/update_quantities.py"""

from pathlib import Path

from sipml.render import render
from sipml.design_reports import quantities_report

DOC = Path(__file__).with_name("quantities.md")
HEAD = """# Reported quantities

Every number `budget`, `check`, `fabric`, `cost`, `speedup` and `sweep` report, declared once in
`sipml/quantities.py`: its JSON key (a sweep column is the key with its unit, `margin_db [dB]`), unit, the record it
is read from, and whether `optimize` may target it. `sipml explain KEY [DESIGN]` shows its formula with the design's
numbers. Generated from the table; do not edit by hand.

"""

if __name__ == "__main__":
    DOC.write_text(HEAD + render(quantities_report(), "markdown"), encoding="utf-8")
    print(f"updated {DOC}")
