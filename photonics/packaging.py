"""Multi-chip-module packaging: optical chiplets on the GPU package edge, fiber escape, shoreline.

References
----------
- Fiber-array pitch 127 µm (V-groove), 250 µm older: 7.87 / 4.0 fibers per mm of edge.
- Reticle 26 × 33 mm = 858 mm², 118 mm of die edge; CoWoS interposers ~3.3× reticle.
- Shoreline density at 127 µm pitch ≈ 7.87 × (Gbps per fiber) per mm per direction  [inferred].
- Capacity per fiber = N_λ · R_λ (Ayar Labs, E14).
"""

from __future__ import annotations

import numpy as np


def package_perimeter_m(width_m, height_m):
    """Edge length around a rectangular package, 2·(W + H)."""
    return 2.0 * (np.asarray(width_m, dtype=float) + height_m)


def fibers_per_edge(edge_m, pitch_m):
    """Fibers that fit along an edge at a given pitch, ⌊edge / pitch⌋."""
    return np.floor(np.asarray(edge_m, dtype=float) / pitch_m * (1.0 + 1e-12))


def chiplets_on_edge(chiplets, fiber_edge_m, perimeter_m=np.inf):
    """The chiplets whose fiber edges the package's perimeter holds, min(chiplets, ⌊perimeter/edge⌋): more chiplets
    than the edge holds add no fiber."""
    return np.minimum(chiplets, np.floor(np.asarray(perimeter_m, dtype=float) / fiber_edge_m * (1.0 + 1e-12)))


def escape_fibers_per_direction(chiplets, fiber_edge_m, pitch_m, perimeter_m=np.inf):
    """Fibers each direction can use when every chiplet attaches ⌊edge/pitch⌋ fibers and transmit and receive
    use separate fibers: ⌊n · ⌊edge/pitch⌋ / 2⌋, n the chiplets the perimeter holds (`chiplets_on_edge`)."""
    return np.floor(chiplets_on_edge(chiplets, fiber_edge_m, perimeter_m) * fibers_per_edge(fiber_edge_m, pitch_m)
                    / 2.0)


def shoreline_density_bps_per_m(capacity_bps, edge_used_m):
    """Bandwidth per unit of package edge used by optics (per direction)."""
    return np.asarray(capacity_bps, dtype=float) / edge_used_m


def io_power_w(capacity_bps, energy_j_per_bit):
    """I/O power of a GPU sending and receiving `capacity_bps` per direction at a Tx+Rx energy per bit
    (TeraPHY: 1.024 Tbps × 4.96–5.56 pJ/bit = 5.08–5.69 W)."""
    return np.asarray(capacity_bps, dtype=float) * energy_j_per_bit


def energy_per_bit_j(power_w, rate_bps):
    """Energy per bit of a power claim, E = P / R  (E32: 5.5 W per 800 Gb/s = 6.875 pJ/bit); say whether the rate
    is per direction and what the power includes."""
    return np.asarray(power_w, dtype=float) / rate_bps
