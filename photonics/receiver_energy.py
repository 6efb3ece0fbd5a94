"""The receiver's and the SerDes' energy per bit from their circuits, DSENT-class (Sun et al., NOCS 2012;
photonics-4.md E74–E78), beside the driver's (photonics.driver_energy):

    E_front = E_ref·(BR/BR_ref)^k                      a TIA front end: its energy per bit at a reference rate, scaled
                                                       (k = 1: the transimpedance limit holds R_T only if the
                                                       amplifier's gain-bandwidth, hence its bias, grows ∝ BR², E75);
                                                       0 for DSENT's integrating front end (no static power)
    E_samp = V_dd²·(C_samp + ¼·C_RS)                   the clocked sense amplifier and its RS latch          (E74);
                                                       (M − 1)/log₂M of them a bit for M levels
             C_samp = 40·u_g + 24·u_d + C_g,INV + C_d,INV,  C_RS = 4·u_g + 12·u_d + C_g,INV + C_d,INV
    E_mux  = ⌈log₂ S⌉·½·C_mux·V_dd² + C_clk·V_dd²      one mux tree (S = line rate / core clock): each datum passes
                                                       ⌈log₂ S⌉ 2:1 muxes, the select clocks ≈ one edge per bit (E77b);
                                                       the serialiser at the transmitter, the deserialiser mirrored
    E_clk  = P_clk/BR                                  clock generation and recovery per lane (a PLL's share and a CDR,
                                                       E78: (P_PLL + N·P_CDR)/(N·BR); DSENT charges none)

u_g, u_d are the node's minimum-width gate and drain capacitances (W_min·C/W, DSENT's technology files [verbatim]);
C_g,INV, C_d,INV the unit inverter's (photonics.driver_energy.Node.unit_inverter, [assumed]); C_mux (2 unit
inverters' gate and drain) and C_clk (a flip-flop's clock pin, 4 unit gates, and a divider's output) are [assumed],
DSENT's standard-cell characterisation not having been read. Every function is elementwise over numpy arrays.
"""

from __future__ import annotations

import numpy as np

from core.records import record
from photonics.driver_energy import Node

MUX_UNITS = 2.0  # unit inverters of gate and drain a 2:1 mux switches per datum [assumed]
CLOCK_UNITS = 4.0  # unit gates a flip-flop's clock pin loads [assumed]
ACTIVITY = 0.5  # a random datum changes on half of the bits


@record
class ReceiverEnergy:
    """Energy per bit of each part of one lane's receive and serialise path (J/bit)."""

    front_end: object
    sampler: object
    serdes: object  # the transmitter's serialiser and the receiver's deserialiser together
    clocking: object

    @property
    def total(self):
        return self.front_end + self.sampler + self.serdes + self.clocking


def sampler_energy(node: Node) -> float:
    """E74: the sense amplifier switching every bit and its RS latch on a quarter of them (random data)."""
    u_g, u_d = node.w_min * node.c_gate_per_w, node.w_min * node.c_drain_per_w
    c_g, c_d, _ = node.unit_inverter
    c_samp = 40 * u_g + 24 * u_d + c_g + c_d
    c_rs = 4 * u_g + 12 * u_d + c_g + c_d
    return node.vdd ** 2 * (c_samp + 0.25 * c_rs)


def mux_stages(line_rate, core_clock):
    """⌈log₂ S⌉ stages of a mux tree, S = ⌈line rate / core clock⌉ (none where the core runs at the line rate)."""
    ratio = np.ceil(np.asarray(line_rate, dtype=float) / np.asarray(core_clock, dtype=float) - 1e-9)
    return np.ceil(np.log2(np.maximum(ratio, 1.0)))


def mux_tree_energy(line_rate, core_clock, node: Node):
    """E77b: one mux tree's energy per bit — each datum through ⌈log₂ S⌉ 2:1 muxes, about one select-clock edge per
    bit (none without a tree)."""
    c_g, c_d, _ = node.unit_inverter
    stages = mux_stages(line_rate, core_clock)
    per_stage = ACTIVITY * MUX_UNITS * (c_g + c_d) * node.vdd ** 2
    clock = (CLOCK_UNITS * c_g + c_d) * node.vdd ** 2
    return stages * per_stage + np.where(stages > 0, clock, 0.0)


def front_end_energy(front_end: str, line_rate, reference_energy, reference_rate, exponent):
    """The front end per bit: a TIA's, scaled from its reference point; none for an integrating front end."""
    if front_end == "integrating":
        return 0.0 * np.asarray(line_rate, dtype=float)
    return reference_energy * (np.asarray(line_rate, dtype=float) / reference_rate) ** exponent


def receiver_energy(line_rate, node: Node, *, front_end: str, reference_energy, reference_rate, exponent,
                    core_clock, clock_power, levels: int = 2) -> ReceiverEnergy:
    """E74–E78 for one lane at `line_rate` (bit/s): front end, sampler, the serialiser and deserialiser, clocking
    (`clock_power` per lane). An M-level signal is sliced by M − 1 samplers a symbol of log₂M bits [inferred: E74
    is one NRZ sampler; PAM4's three comparators a symbol, 1.5 a bit]."""
    rate = np.asarray(line_rate, dtype=float)
    samplers_per_bit = (levels - 1) / np.log2(levels)
    return ReceiverEnergy(front_end=front_end_energy(front_end, rate, reference_energy, reference_rate, exponent),
                          sampler=samplers_per_bit * sampler_energy(node) + 0.0 * rate,
                          serdes=2.0 * mux_tree_energy(rate, core_clock, node),
                          clocking=clock_power / rate)
