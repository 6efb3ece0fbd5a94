"""Power budget of one wavelength: received power, margin, feasibility, and the inverse problems.

Every function takes dB / dBm / SI floats and broadcasts over numpy arrays, so a grid of design points
is one call.

References
----------
- DSENT and PhoenixSim: laser power needed, P_λ = S · 10^(ΣPP/10) · 10^(ΣIL/10)  (E9).
- PhoenixSim; Hendry et al., HOTI 2014: N wavelengths fit when P_max − S ≥ ΣPP + ΣIL + 10·log10 N  (E10).
- Classic fiber-link budget (e.g. *Introduction to Information Optics*, Table 12.3):
  P_launch − S − margin − connectors = fiber loss × length.
The closed forms here are the solutions `photonics.symbolic` derives from the same budget equation.
"""

from __future__ import annotations

import numpy as np

from core.errors import DomainError


def launch_power_dbm(line_power_dbm, aggregate_cap_dbm, wavelengths):
    """Power per wavelength entering the bus: the laser line, or the aggregate cap shared by all lines,
    whichever is lower, min(P_line, P_max − 10·log10 N)  (E10)."""
    return np.minimum(line_power_dbm, aggregate_cap_dbm - 10.0 * np.log10(wavelengths))


def margin_db(launch_dbm, loss_db, penalty_db, sensitivity_dbm, system_margin_db=0.0):
    """Link margin: received power minus sensitivity, penalties and the reserved system margin (dB)."""
    return launch_dbm - loss_db - penalty_db - sensitivity_dbm - system_margin_db


def power_after_rings_mw(*, line_power_mw, aggregate_cap_mw, lines_in_bus, rings_transmission, penalty_factor):
    """The count-dependent side of the budget kernel, in linear power: the worst wavelength's launch power, the
    line or the aggregate cap shared by N_bus lines (E10), through the rings it passes, over the penalties that grow
    with the count (crosstalk): min(P_line, P_max / N_bus) · T_rings / PP_count, in mW. The budget closes where it
    is at least the sensitivity times the fixed ledger, the other penalties and the system margin (E9); in dB, its
    excess over that is the link margin (`margin_db` of the same terms)."""
    return np.minimum(line_power_mw, aggregate_cap_mw / lines_in_bus) * rings_transmission / penalty_factor


# --- inverse problems (closed forms; see photonics.symbolic) ------------------------------------------
def max_wavelengths_closed_form(aggregate_cap_dbm, sensitivity_dbm, penalty_db, loss_db, system_margin_db=0.0):
    """Largest N with P_max − S ≥ ΣPP + ΣIL + margin + 10·log10 N: N = ⌊10^((P_max − S − ΣPP − ΣIL − M)/10)⌋
    (E10). Zero when even one wavelength does not close."""
    exponent = (aggregate_cap_dbm - sensitivity_dbm - penalty_db - loss_db - system_margin_db) / 10.0
    n = np.floor(np.power(10.0, exponent) * (1.0 + 1e-12))
    return np.where(exponent >= 0.0, n, 0.0)


def min_line_power_dbm(sensitivity_dbm, loss_db, penalty_db, system_margin_db=0.0):
    """Smallest laser power per line that closes the budget, P = S + ΣIL + ΣPP + margin  (E9 in dB)."""
    return sensitivity_dbm + loss_db + penalty_db + system_margin_db


def min_line_power_capped_dbm(sensitivity_dbm, loss_db, penalty_db, system_margin_db=0.0, *, source_loss_db=0.0,
                              cap_share_dbm=np.inf):
    """Smallest laser power per line that closes the budget with the aggregate cap applied (E9, E10): the launch is
    min(P_line − IL_source, P_cap), P_cap = P_max − 10·log10 N_bus the cap's share of a line entering the bus, so
    P = S + ΣIL + ΣPP + margin + IL_source where P_cap ≥ S + ΣIL + ΣPP + margin, and none (NaN) where the cap's
    share falls short: there no line power closes. `loss_db`: the losses after the launch point; `source_loss_db`:
    from the laser's output to the launch point (coupling, split, a comb's envelope)."""
    need_dbm = min_line_power_dbm(sensitivity_dbm, loss_db, penalty_db, system_margin_db)
    line_dbm = min_line_power_dbm(sensitivity_dbm, loss_db + source_loss_db, penalty_db, system_margin_db)
    return np.where(np.asarray(cap_share_dbm) >= need_dbm, line_dbm, np.nan)


def max_length_m(launch_dbm, sensitivity_dbm, penalty_db, other_loss_db, loss_db_per_m, system_margin_db=0.0):
    """Longest span (fiber, waveguide) that closes the budget:
    L = (P − S − ΣPP − ΣIL_other − margin) / loss per length. Negative when even L = 0 fails."""
    return (launch_dbm - sensitivity_dbm - penalty_db - other_loss_db - system_margin_db) / loss_db_per_m


def max_hops(launch_dbm, sensitivity_dbm, penalty_db, fixed_loss_db, loss_per_hop_db, system_margin_db=0.0):
    """Most intermediate elements (nodes, switches) a wavelength can pass, each costing `loss_per_hop_db`:
    ⌊(P − S − ΣPP − ΣIL_fixed − margin) / loss per hop⌋, or −1 when the budget fails with none."""
    headroom = launch_dbm - sensitivity_dbm - penalty_db - fixed_loss_db - system_margin_db
    return np.where(headroom >= 0.0, np.floor(headroom / loss_per_hop_db * (1.0 + 1e-12)), -1.0)


def hop_reach(launch_dbm, sensitivity_dbm, penalty_db, fixed_loss_db, loss_per_hop_db, system_margin_db=0.0):
    """Hops a wavelength travels on a ring with no amplifier: 1 (the neighbour) + the intermediate elements the
    neighbour's margin pays for at `loss_per_hop_db` each (`max_hops`); 0 when even the neighbour does not close."""
    extra = max_hops(launch_dbm, sensitivity_dbm, penalty_db, fixed_loss_db, loss_per_hop_db, system_margin_db)
    return np.where(extra >= 0, extra + 1, 0).astype(np.int64)


def largest_feasible_count(margins_by_count) -> int:
    """Largest count n (1-based index into `margins_by_count`, non-increasing in n) with margin ≥ 0;
    0 when none closes."""
    ok = np.asarray(margins_by_count) >= 0.0
    return int(np.max(np.nonzero(ok)[0]) + 1) if ok.any() else 0


def bisect_decreasing(func, lo: float, hi: float, *, rtol: float = 1e-12) -> float:
    """Root of a decreasing `func` with func(lo) ≥ 0 > func(hi), by bisection in pure Python (no scipy import on the
    path of `sipml budget`); the last point where func ≥ 0."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if func(mid) >= 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= rtol * hi:
            break
    return lo


def section_decreasing(func, lo: float, hi: float, *, points: int = 65, rtol: float = 1e-12) -> float:
    """`bisect_decreasing` for a `func` that takes an array: each step evaluates `points` lengths at once and keeps
    the interval where func changes sign, so ~7 numpy calls replace ~40 scalar ones. The last point where
    func ≥ 0."""
    for _ in range(60):
        grid = np.linspace(lo, hi, points)
        holds = np.flatnonzero(np.asarray(func(grid)) >= 0.0)
        if holds.size == 0:
            return lo
        last = int(holds[-1])
        lo, hi = float(grid[last]), float(grid[min(last + 1, points - 1)])
        if hi - lo <= rtol * hi:
            break
    return lo


def solve_decreasing(func, lo: float, hi: float, what: str, *, xtol: float = 1e-9) -> float:
    """Root of `func` on [lo, hi] by Brent's method, after checking the bracket; 'no sign change' becomes a
    DomainError that says which quantity has no solution."""
    f_lo, f_hi = func(lo), func(hi)
    if not (np.isfinite(f_lo) and np.isfinite(f_hi)) or f_lo * f_hi > 0.0:
        raise DomainError(f"no {what} in [{lo:g}, {hi:g}] closes the budget "
                          f"(margin {f_lo:.3g} dB to {f_hi:.3g} dB, no sign change)")
    from scipy.optimize import brentq

    return float(brentq(func, lo, hi, xtol=xtol))
