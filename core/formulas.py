"""Formulas of reported numbers: a sympy expression whose terms carry a design's numbers.

A `Formula` is lhs = rhs, its right-hand side a sympy expression of symbols named as its `terms` ({LaTeX name: (SI
value, unit, meaning)}); evaluated with those numbers it is the model's value (the tests check each one). A
`Terms` builder records each term as a formula names it. Every floor builds formulas with these: a fabric kind its
own (`fabric.kind.FabricKind.formulas`), the application the rest (`sipml.quantities`). sympy is imported when a
formula is built, not when this module is.
"""

from __future__ import annotations

from core.records import record


@record(slots=False)
class Formula:
    """lhs = rhs, the rhs a sympy expression of symbols named as `terms`: {LaTeX name: (SI value, unit, meaning)}."""

    lhs: str
    rhs: object
    terms: dict

    def evaluate(self) -> float:
        return float(self.rhs.subs({symbol(name): value for name, (value, _, _) in self.terms.items()}))

    def latex(self) -> str:
        import sympy as sp

        return sp.latex(sp.Eq(symbol(self.lhs), self.rhs, evaluate=False), order="none")


def symbol(name: str):
    """The real sympy symbol called `name` (a LaTeX name)."""
    import sympy as sp

    return sp.Symbol(name, real=True)


class Terms:
    """Builds a formula's terms: `t("P_{launch}", value, "dBm", "meaning")` returns the symbol and records it."""

    def __init__(self):
        self.terms: dict = {}

    def __call__(self, name: str, value, unit: str = "", meaning: str = ""):
        self.terms[name] = (float(value), unit, meaning)
        return symbol(name)


def sum_terms(symbols):
    """The sum of `symbols` as written, unevaluated (0 for none)."""
    import sympy as sp

    return sp.Add(*symbols, evaluate=False) if symbols else sp.Integer(0)
