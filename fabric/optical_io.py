"""The bill of materials of one GPU's silicon-photonic I/O, shared by the SiP fabrics — the chiplets, their assembly
and fiber-array attach (one array per chiplet), and the laser lines the link model lights — and the latency its
path adds to a collective step."""

from __future__ import annotations

import numpy as np

from fabric.bom import BomLine
from photonics.constants import FIBER_GROUP_INDEX, SPEED_OF_LIGHT_M_PER_S
from photonics.link_design import LinkDesign
from photonics.laser import lit_lines

CHIPLET_LATENCY_S = 5e-9  # per optical I/O chiplet crossed (Ayar Labs optical I/O chiplet page, ~5 ns [verbatim])


def fiber_delay_s(length_m):
    """Propagation delay of single-mode fiber, L·n_g/c (4.9 ns/m)."""
    return length_m * FIBER_GROUP_INDEX / SPEED_OF_LIGHT_M_PER_S


def laser_sources(link: LinkDesign):
    """Laser sources per GPU: one per `fibers_per_source` transmit fibers. `link`: a design, or its sections with
    arrays in place (`photonics.common_stages.sections`, as attributes) for a grid of design points."""
    return -(-link.link.fibers_per_direction // link.laser.fibers_per_source)


def laser_lines_per_gpu(link: LinkDesign):
    """Lines the GPU's sources generate: all of a comb's lines, a DFB array's lasers in use."""
    lines = laser_sources(link) * lit_lines(link.laser.kind, link.laser.lines, link.link.wavelengths_per_fiber)
    return lines.astype(np.int64) if isinstance(lines, np.ndarray) and lines.ndim else int(lines)


def optical_io_bom(link: LinkDesign) -> list[BomLine]:
    chiplets = link.package.chiplets
    return [BomLine(key="sip.optical_io_chiplet", count=chiplets, scope="per_gpu", network=True),
            BomLine(key="packaging.chiplet_assembly", count=chiplets, scope="per_gpu", network=True),
            BomLine(key="packaging.fiber_attach", count=chiplets, scope="per_gpu", network=True),
            BomLine(key="laser.comb_line", count=laser_lines_per_gpu(link), scope="per_gpu", network=True)]
