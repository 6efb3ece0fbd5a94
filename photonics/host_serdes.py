"""The electrical channel between a switch or NIC ASIC and its optics, and the SerDes class that closes it.

The loss of a host trace at a PAM4 lane's Nyquist frequency (a quarter of the lane's bit rate) grows in proportion to
that frequency where the loss is dielectric [inferred]: ≈ 22 dB to a front-panel pluggable and ≈ 4 dB to a
co-packaged engine at 200 Gb/s per lane (fabrics-2026.md K7) are ≈ 11 and 2 dB at 100 Gb/s per lane. A retimed (DSP)
module and a co-packaged engine end the electrical channel at the optics, so each host SerDes closes its own trace; a
linear-drive (LPO) module has no retimer, so one host transmitter and the far host receiver close both traces with
the modules' linear drivers and TIAs between them (K13a; the linear parts are taken as adding no loss [assumed]).

A SerDes class closes a channel whose loss is within its budget, and a designer takes the least-energy class that
does: die-to-die XSR (≤ 12 dB, 1.1 pJ/bit), medium reach (≤ 20.8 dB, 2.29 pJ/bit), long reach (≈ 35 dB, 6–10
pJ/bit), each Tx + Rx per bit (K15; photonics-2.md §8 [XSR], [MR]). The host lanes of a port moving R bit/s each way
draw that energy × R: what the whole-port boundary (B2) adds to the optics (B1).
"""

from __future__ import annotations

from core.records import record

REFERENCE_LANE_BPS = 200e9  # the lane rate the trace losses are quoted at (K7)


@record
class SerdesClass:
    """A host SerDes class: its name, the channel loss it closes (dB at its lane's Nyquist frequency) and its energy
    per bit, Tx + Rx."""

    name: str
    reach_db: float
    energy_j_per_bit: float


@record
class HostChannel:
    """What one host SerDes link of a port must close, and the class that closes it (None: none does)."""

    loss_db: float
    traces: int  # host traces in the channel: 1 behind a retimer or an engine, 2 through linear-drive modules
    serdes: SerdesClass | None

    @property
    def closes(self) -> bool:
        return self.serdes is not None

    @property
    def energy_j_per_bit(self) -> float:
        return self.serdes.energy_j_per_bit if self.serdes is not None else 0.0


def trace_loss_db(loss_at_reference_db: float, lane_bps: float) -> float:
    """A host trace's loss at a lane's Nyquist frequency, from its loss at a 200G lane's: proportional to the rate."""
    return loss_at_reference_db * lane_bps / REFERENCE_LANE_BPS


def host_channel(trace_db: float, linear: bool, classes: tuple[SerdesClass, ...]) -> HostChannel:
    """The channel one host SerDes closes: its own trace (`linear` False: a retimer or an engine ends the channel),
    or both ends' traces through linear-drive modules; the least-energy class whose budget covers it."""
    traces = 2 if linear else 1
    loss = traces * trace_db
    closing = [c for c in classes if c.reach_db >= loss]
    return HostChannel(loss, traces, min(closing, key=lambda c: c.energy_j_per_bit) if closing else None)
