"""Laser sources: DFB arrays and frequency combs, per-line power, electrical power, power caps.

References
----------
- DSENT and PhoenixSim laser models: P_el = N_λ · P_λ / η_WPE  (E9).
- Buyalo et al., Sci. Rep. 2024 (Innolume quantum-dot comb): up to 89 lines at 25 GHz, up to 270 mW usable,
  > 30 % peak wall-plug efficiency, 75 % coupling to fiber.
- PhoenixSim default aggregate power limit per waveguide 20 dBm; Hendry et al., HOTI 2014 (100 mW)  (E10).
"""

from __future__ import annotations

import numpy as np

from core.units import db_to_lin

def weakest_line_power_w(mean_line_power_w, flatness_db):
    """Power of the weakest comb line, `flatness_db` below the mean line power (0 dB for a DFB array)."""
    return np.asarray(mean_line_power_w, dtype=float) / db_to_lin(flatness_db)


def lit_lines(kind: str, lines_available, wavelengths_used):
    """Lines that draw power: a comb generates all its lines, a DFB array lights only the lasers used."""
    return lines_available if kind == "comb" else np.minimum(lines_available, wavelengths_used)


def electrical_power_w(optical_power_w, wall_plug_efficiency):
    """Electrical power drawn to emit `optical_power_w`, P_el = P_opt / η_WPE  (E9)."""
    return np.asarray(optical_power_w, dtype=float) / wall_plug_efficiency


def split_loss_db(ways):
    """Ideal power-splitting loss of dividing one source over `ways` outputs, 10·log10(ways)."""
    return 10.0 * np.log10(np.asarray(ways, dtype=float))
