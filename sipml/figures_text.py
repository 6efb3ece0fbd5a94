"""Numbers as a table shows them: significant digits, thousands grouped, an exponent only at the extremes. Beneath
every report (`sipml.render`, `sipml.quantities`' formula terms), importing nothing of the project."""

from __future__ import annotations

import math


def figure_text(value: float, digits: int = 4, whole: bool = False) -> str:
    """A measured or computed number for a table: rounded to `digits` significant digits, thousands grouped, no
    trailing zeros after the point, and no exponent from 10⁻⁴ up to 10¹⁵ ("18,920", "0.01235", "280", never
    "1.892e+04"); beyond, in scientific notation ("1e-12", "2.5e+15"). With `whole`, the digits before the point
    are all kept (a cluster's 53,428,480 USD, not 53,428,500)."""
    if not math.isfinite(value) or value == 0:
        return f"{value:g}"
    if whole and 1.0 <= abs(value) < 1e15:
        digits = max(digits, math.floor(math.log10(abs(value))) + 1)
    rounded = float(f"{value:.{digits - 1}e}")
    magnitude = math.floor(math.log10(abs(rounded)))
    if not -4 <= magnitude < 15:
        return f"{value:.{digits}g}"
    text = f"{rounded:,.{max(0, digits - 1 - magnitude)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
