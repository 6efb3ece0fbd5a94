"""The link columns of a sweep for the whole grid at once (`photonics.link_grid`), equal to the per-point rows.

The axes split into names (kinds, models: one grid per combination of their values) and numbers. For each
combination the design is loaded once through the design rules, and each numeric axis value once on top of it:
that checks every value as a `--set` would and reads the value the link really gets (a fabric may add to it, as
SiP-OCS adds its switch passes). Values two numeric axes of one section must keep in order (t_min < t_max) are
checked across the grid. A value written as a wavelength span enters in Hz at the design's wavelength, as `evaluate`
converts it. A point any of that refuses, or that the kernel leaves to `evaluate`, is evaluated alone by the
per-point path, so its row (its error included) is the one that path writes.
"""

from __future__ import annotations

import itertools

import numpy as np

from core.fields import TEXT_SPECS, specs

LINK_SECTIONS = ("link", "fiber", "ring", "modulator", "laser", "transmitter", "loss", "receiver", "tuning",
                 "package", "interface")


def link_table(design, overrides: tuple, axes: tuple, progress=None):
    """The sweep's table of link columns (sipml.rows.Table), or None when the axes are not all link fields."""
    from sipml.rows import Table
    from sipml.sweep_points import PHYSICS_COLUMNS, evaluate_chunk

    if not axes or any(a.section not in LINK_SECTIONS for a in axes):
        return None
    shape = tuple(len(a.values) for a in axes)
    names_at = [i for i, a in enumerate(axes) if _is_name(a)]
    numbers_at = [i for i in range(len(axes)) if i not in names_at]
    columns = {name: np.empty(shape, dtype=dtype) for name, dtype in zip(PHYSICS_COLUMNS, (
        bool, float, float, object, np.int64, float, float, object))}
    alone = np.zeros(shape, dtype=bool)  # points for the per-point path
    combos = list(itertools.product(*(range(shape[i]) for i in names_at)))
    for done, combo in enumerate(combos, 1):
        where = [slice(None)] * len(axes)
        for i, j in zip(names_at, combo):
            where[i] = j
        where = tuple(where)
        sets = [*overrides, *(_set(axes[i], j) for i, j in zip(names_at, combo))]
        result = _group(design, sets, [axes[i] for i in numbers_at])
        if result is None:
            alone[where] = True
        else:
            values, refused = result
            for name in PHYSICS_COLUMNS:
                columns[name][where] = values[name]
            alone[where] = refused
        if progress:
            progress(done, len(combos))
    table = Table.from_columns(axes, {name: col.ravel() for name, col in columns.items()}, len(alone.ravel()))
    flat = np.flatnonzero(alone.ravel())
    if flat.size:
        points = [tuple(int(k) for k in np.unravel_index(i, shape)) for i in flat]
        table.replace_rows(flat, evaluate_chunk(design, overrides, axes, tuple(points), None, None, True))
    return table


def _is_name(axis) -> bool:
    from sipml.design import ALL_SECTIONS

    return specs(ALL_SECTIONS[axis.section])[axis.key].unit in TEXT_SPECS


def _set(axis, index: int) -> str:
    return f"{axis.section}.{axis.key}={axis.texts[index]}"


def _group(design, sets: list[str], axes: list):
    """(columns over the numeric axes, points to evaluate alone) for one combination of the name axes; None when
    the whole combination goes point by point."""
    from core.errors import SipmlError
    from fabric.evaluate import effective_link
    from photonics.link_grid import evaluate_grid, supported
    from photonics.resolve import resolve
    from sipml.quantities import QUANTITIES, column
    from sipml.sweep_points import Points

    try:
        points = Points(design)
        base = effective_link(points.load(sets))
        if base is None or not supported(base):
            return None
        resolved = resolve(base)
    except SipmlError:
        return None
    shape = tuple(len(a.values) for a in axes)
    refused = np.zeros(shape, dtype=bool)
    varied: dict[str, dict[str, np.ndarray]] = {}
    for dim, axis in enumerate(axes):
        values = []
        for j in range(len(axis.values)):
            try:  # the value the link gets, in Hz for a span (at the design's wavelength)
                link = resolve(effective_link(points.load([*sets, _set(axis, j)])))
            except SipmlError:
                values.append(getattr(getattr(resolved, axis.section), axis.key))
                index = [slice(None)] * len(axes)
                index[dim] = j
                refused[tuple(index)] = True
                continue
            value = getattr(getattr(link, axis.section), axis.key)
            if link != _with(resolved, axis, value):
                return None  # the value moves other fields (a wavelength converts the design's spans): per point
            values.append(value)
        dims = [1] * len(axes)
        dims[dim] = len(values)
        varied.setdefault(axis.section, {})[axis.key] = np.asarray(values).reshape(dims)
    refused |= _out_of_order(resolved, varied, shape)
    grid = evaluate_grid(resolved, varied)
    values = {"link_feasible": grid.feasible, column("margin_db"): grid.margin_db,
              column("capacity_gbps"): QUANTITIES["capacity_gbps"].scaled(grid.capacity_bps),
              "binding_limit": grid.binding_limit, column("max_wavelengths_per_fiber"): grid.max_wavelengths_per_fiber,
              column("energy_pj_per_bit"): QUANTITIES["energy_pj_per_bit"].scaled(grid.total_energy_j_per_bit),
              column("min_laser_power_per_line_dbm"): grid.min_laser_power_per_line_dbm,
              "link_violations": grid.violations}
    return values, refused | grid.fallback


def _with(link, axis, value):
    from dataclasses import replace

    return replace(link, **{axis.section: replace(getattr(link, axis.section), **{axis.key: value})})


def _out_of_order(design, varied: dict, shape) -> np.ndarray:
    """Points where two varied fields of one section break an order their declarations ask for (at_least,
    at_most, above): the design rules refuse them, the per-point path says so."""
    out = np.zeros(shape, dtype=bool)
    for section, keys in varied.items():
        declared = specs(type(getattr(design, section)))
        for key, values in keys.items():
            spec = declared[key]
            for other, fails in ((spec.at_least, np.less), (spec.at_most, np.greater),
                                 (spec.above, np.less_equal)):
                if other is not None and other in keys:
                    out |= np.broadcast_to(fails(values, keys[other]), shape)
    return out
