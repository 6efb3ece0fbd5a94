"""The ring-wdm link over a whole grid of design points in one pass: the figures a sweep reports (margin, capacity
and the limit that binds it, the largest wavelength count, the violated constraints, optical energy per bit, least
laser power per line) read from `photonics.ring_wdm.ring_arrays` — the same stages `photonics.link.evaluate` reads
one point's records from, run on arrays.

A grid is a base design and, per varied numeric field, an array shaped to broadcast: one array dimension per sweep
axis. Every intermediate carries only the dimensions of the fields it depends on, so a quantity of one axis is
computed once per value of that axis, and the full grid is touched only by the few figures that depend on every
axis.

Choices (kinds, models, strategies) are those of the base design: a sweep over a choice runs one grid per value.
Points the kernel leaves to `evaluate` are flagged in `GridResult.fallback`: a receiver beyond the quantum limit or a
wavelength outside the fiber's band (both are input errors there), and temperature limits out of order.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from core.labels import Labels
from core.records import record
from photonics import constraints
from photonics.link_design import LinkDesign
from photonics.link import hop_pass_loss_db
from photonics.loss import total_db
from photonics.link_records import FabricInputs
from photonics.ring_wdm import TooLarge, ring_arrays, transmit_loss_db


@record(slots=False)
class GridResult:
    """One array per figure, all of the grid's shape (C order: the last axis varies fastest); the texts as
    `core.labels.Labels` (`np.asarray` gives the strings)."""

    margin_db: np.ndarray
    capacity_bps: np.ndarray
    binding_limit: Labels  # str per point
    max_wavelengths_per_fiber: np.ndarray  # int
    power_budget_count: np.ndarray  # int
    total_energy_j_per_bit: np.ndarray  # optical: laser, modulators, receivers, heaters (NaN at zero capacity)
    min_laser_power_per_line_dbm: np.ndarray
    violations: Labels  # str per point: constraint keys joined by ';' in the table's order
    fallback: np.ndarray  # bool: points to evaluate one by one
    more: dict = dataclasses.field(default_factory=dict)  # what `evaluate_grid`'s `more` read of the stages

    @property
    def feasible(self) -> np.ndarray:
        return self.violations.none_hold


def product_grid(axes: dict[tuple[str, str], object]) -> dict[str, dict[str, np.ndarray]]:
    """The `varied` argument of `evaluate_grid` for the full product of {(section, key): values}: axis k's values
    along array dimension k, in the order given."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for dim, ((section, key), values) in enumerate(axes.items()):
        shape = [1] * len(axes)
        shape[dim] = len(values)
        out.setdefault(section, {})[key] = np.asarray(values).reshape(shape)
    return out


def supported(d: LinkDesign) -> bool:
    """Whether the grid kernel evaluates this kind of link (ring-wdm; point-to-point links go point by point)."""
    return d.link.kind == "ring-wdm"


def evaluate_grid(d: LinkDesign, varied: dict[str, dict[str, np.ndarray]], more=None) -> GridResult:
    """The figures of every point of the grid: `d` a resolved ring-wdm design (spectral fields in Hz), `varied`
    {section: {key: array}} with arrays that broadcast to the grid's shape and SI values in Hz (no wavelength
    spans). Points flagged in `fallback` are not meaningful here and must be evaluated by `evaluate`. A grid whose
    count tables would not fit `table_elements` (core.speed_knobs) is evaluated in halves along its longest axis (a
    point's figures do not depend on the rest of its grid, so the halves give the same numbers). `more(stages, shape)`:
    further figures read of the stage arrays (`ring_wdm.RingWdm`) of a grid of `shape`, {name: array}, in
    `GridResult.more` at the grid's shape."""
    shape = np.broadcast_shapes(*(np.shape(a) for keys in varied.values() for a in keys.values()))
    try:
        return _columns(ring_arrays(d, varied, math.prod(shape)), shape, more)
    except TooLarge:
        axis = int(np.argmax(shape))
        half = shape[axis] // 2
        parts = []
        for part in (slice(0, half), slice(half, shape[axis])):
            parts.append(evaluate_grid(d, {section: {key: _part(a, axis - len(shape), part) for key, a in keys.items()}
                                           for section, keys in varied.items()}, more))
        joined_more = {name: np.concatenate([p.more[name] for p in parts], axis=axis) for name in parts[0].more}
        return GridResult(*(_concatenate([getattr(p, f.name) for p in parts], axis)
                            for f in dataclasses.fields(GridResult) if f.name != "more"), more=joined_more)


def _part(value, axis: int, part: slice):
    """`value` (broadcasting to the grid) at `part` of the grid's axis `axis` (counted from the last, < 0)."""
    a = np.asarray(value)
    return a[(Ellipsis, part) + (slice(None),) * (-axis - 1)] if a.ndim >= -axis and a.shape[axis] > 1 else a


def _concatenate(parts: list, axis: int):
    return Labels.concatenate(parts, axis) if isinstance(parts[0], Labels) else np.concatenate(parts, axis=axis)


def fabric_inputs(a) -> FabricInputs:
    """What a fabric reads of the link at every point of a grid (`photonics.link_records.FabricInputs`), from its stage
    arrays: the figures `photonics.link.fabric_inputs` reads of one point's records."""
    s, ring = a.sections, a.ring
    rings = ((ring.modulator_fwhm, ring.modulator_on_resonance), (ring.fwhm, ring.on_resonance))
    return FabricInputs(capacity_bps=a.capacity.capacity, margin_db=a.budget.margin, launch_dbm=a.budget.launch_dbm,
                        sensitivity_dbm=10.0 * np.log10(a.receiver.sensitivity_w / 1e-3),
                        penalty_db=sum(p.value_db for p in a.budget.penalties), ledger_db=total_db(a.budget.ledger),
                        system_margin_db=s["link"].system_margin,
                        pass_loss_db=hop_pass_loss_db(a.design, s, ring.fsr, rings), power_w=dict(a.optical_power),
                        transmit_loss_db=transmit_loss_db(a.budget.ledger),
                        penalty_after_er_db=sum(p.value_db for p in a.budget.penalties if p.key != "extinction_ratio"),
                        sensitivity_w=a.receiver.sensitivity_w, reference_extinction_ratio=a.receiver.reference_er,
                        filter_fwhm_hz=ring.fwhm, symbol_rate_baud=a.signal.symbol_rate, eye_q=a.signal.eye_q)


def _columns(a, shape: tuple, more=None) -> GridResult:
    table = constraints.RING_WDM
    full = (lambda v: v.broadcast_to(shape) if isinstance(v, Labels) else np.broadcast_to(v, shape))
    return GridResult(margin_db=full(a.budget.margin), capacity_bps=full(a.capacity.capacity),
                      binding_limit=full(a.capacity.binding), max_wavelengths_per_fiber=full(a.capacity.max_wavelengths),
                      power_budget_count=full(a.budget.count), total_energy_j_per_bit=full(a.energy_j_per_bit),
                      min_laser_power_per_line_dbm=full(a.budget.min_line_dbm),
                      violations=full(Labels.of(constraints.broken(table, a), [c.key for c in table])),
                      fallback=full(a.fallback),
                      more={} if more is None else {name: full(v) for name, v in more(a, shape).items()})
