"""The power budget as an executable specification: sympy solves it for each inverse problem.

The budget of one wavelength, all terms in dB/dBm (E9–E10):

    P_launch − IL_fixed − α·L − k·h − PP − S − M = 0,   P_launch = P_max − 10·log10(N) when the aggregate cap binds

Solving it for N, the laser power, the span L or the hop count k gives the closed forms that
`photonics.budget` implements numerically; tests check the two agree, and `sipml explain` prints them.
sympy is imported inside the functions (it costs ~0.3 s at start-up).
"""

from __future__ import annotations

from functools import lru_cache

SYMBOLS = {
    "P_max": "aggregate optical power cap per waveguide (dBm)",
    "P": "launch power per wavelength (dBm)",
    "S": "receiver sensitivity (dBm)",
    "PP": "sum of power penalties (dB)",
    "IL": "sum of insertion losses not solved for (dB)",
    "M": "reserved system margin (dB)",
    "N": "wavelengths per waveguide",
    "alpha": "loss per unit length of the span solved for (dB/m)",
    "L": "span length (m)",
    "h": "loss per hop (dB)",
    "k": "hops (intermediate nodes or switch passes)",
}


@lru_cache(maxsize=1)
def _symbols():
    import sympy as sp

    return {name: sp.Symbol(name, real=True, positive=name in ("N", "alpha", "L", "h")) for name in SYMBOLS}


def budget_equations():
    """The budget equation in each form used by the inverse problems (sympy expressions equal to zero)."""
    import sympy as sp

    s = _symbols()
    margin = -s["IL"] - s["PP"] - s["S"] - s["M"]
    return {
        "max_wavelengths": s["P_max"] - 10 * sp.log(s["N"], 10) + margin,
        "min_line_power": s["P"] + margin,
        "max_length": s["P"] - s["alpha"] * s["L"] + margin,
        "max_hops": s["P"] - s["k"] * s["h"] + margin,
    }


UNKNOWNS = {"max_wavelengths": "N", "min_line_power": "P", "max_length": "L", "max_hops": "k"}


def condition(problem: str):
    """Where a solution holds (a sympy relation), or None where it always does. The least line power P holds where
    the aggregate cap leaves each of the N lines what the budget needs, P_max − 10·log10 N ≥ IL + PP + S + M (the
    max_wavelengths equation at N, ≥ 0): the launch is min(P, P_max − 10·log10 N), so where the cap's share falls
    short no line power closes (E10)."""
    if problem != "min_line_power":
        return None
    import sympy as sp

    s = _symbols()
    return sp.GreaterThan(s["P_max"] - 10 * sp.log(s["N"], 10), closed_form("min_line_power"))


def holds(problem: str):
    """`condition(problem)` as a numpy function of its symbols (keyword arguments), True where none applies."""
    import sympy as sp

    relation = condition(problem)
    if relation is None:
        return lambda **kw: True
    args = sorted(relation.free_symbols, key=lambda sym: sym.name)
    fn = sp.lambdify(args, relation, "numpy")
    return lambda **kw: fn(*(kw[a.name] for a in args))


def closed_form(problem: str):
    """The solution of one inverse problem: 'max_wavelengths' → N, 'min_line_power' → P,
    'max_length' → L, 'max_hops' → k."""
    return _closed_forms()[problem]


@lru_cache(maxsize=1)
def _closed_forms() -> dict:
    """Every inverse problem solved once (sympy takes a while; the forms are constants of the model)."""
    import sympy as sp

    forms = {}
    for problem, unknown in UNKNOWNS.items():
        solutions = sp.solve(sp.Eq(budget_equations()[problem], 0), _symbols()[unknown], dict=True)
        if len(solutions) != 1:
            raise RuntimeError(f"{problem}: expected one solution, sympy found {len(solutions)}")
        forms[problem] = sp.simplify(solutions[0][_symbols()[unknown]])
    return forms


def numeric(problem: str):
    """The closed form of `problem` as a numpy function of its symbols (keyword arguments)."""
    import sympy as sp

    expr = closed_form(problem)
    args = sorted(expr.free_symbols, key=lambda sym: sym.name)
    fn = sp.lambdify(args, expr, "numpy")
    return lambda **kw: fn(*(kw[a.name] for a in args))


def readable(expr) -> str:
    """An expression as an engineer writes a budget: 10**(x/10) rather than exp(x·log(10)/10), log10(N) rather than
    log(N)/log(10)."""
    import re

    import sympy as sp

    expr = expr.replace(lambda e: e.func == sp.exp and e.args[0].has(sp.log(10)),
                        lambda e: sp.Pow(sp.UnevaluatedExpr(10), sp.simplify(e.args[0] / sp.log(10)), evaluate=False))
    return re.sub(r"log\(([^()]+)\)/log\(10\)", r"log10(\1)", sp.sstr(expr))


def explain() -> str:
    """Human-readable derivation: the budget equation and each solved form."""
    lines = ["Budget of one wavelength (all terms in dB / dBm):", ""]
    for problem, eq in budget_equations().items():
        unknown = closed_form(problem)
        name = {"max_wavelengths": "N", "min_line_power": "P", "max_length": "L", "max_hops": "k"}[problem]
        lines.append(f"  {problem}:  {readable(eq)} = 0   ⇒   {name} = {readable(unknown)}")
        relation = condition(problem)
        if relation is not None:
            lines.append(f"      where {readable(relation.lhs)} >= {readable(relation.rhs)} (the aggregate cap leaves "
                         "each of N lines that much); otherwise no line power closes")
    lines += ["", "Symbols:"] + [f"  {k:6s} {v}" for k, v in SYMBOLS.items()]
    lines += ["", "Integer answers (N, k) are the floor of the solution; crosstalk makes PP depend on N and",
              "the channel spacing, so those problems are solved numerically (wavelength-count search,",
              "Brent's method for the spacing); the dispersion penalty grows with L, so when it is counted the",
              "longest fiber is found by bisection below the attenuation-only L above."]
    return "\n".join(lines)
