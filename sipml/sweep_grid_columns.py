"""The columns of a sweep for the whole grid at once, equal to the per-point rows: the link's by the grid kernel
(`photonics.link_grid`), and the fabric's and its bill's by the fabric kind's floor over a grid of that link
(`fabric.kind.FabricKind.grid_floor`, read through the quantity table as the per-point rows read the estimate).

The axes split into names (kinds, models) and fields outside the link (the fabric's: one grid per combination of
their values) and the link's numbers. For each combination the design is loaded once through the design rules, and
each numeric axis value once on top of it: that checks every value as a `--set` would and reads the value the link
really gets (a fabric may add to it, as SiP-OCS adds its switch passes). Values two numeric axes of one section must
keep in order (t_min < t_max) are checked across the grid. A value written as a wavelength span enters in Hz at the
design's wavelength, as `evaluate` converts it. A point any of that refuses, that the kernel leaves to `evaluate`,
or that the fabric's estimate refuses, is evaluated alone by the per-point path, so its row (its error included) is
the one that path writes; so is every point of a combination whose fabric kind has no floor over a grid (and
when no combination has one, the sweep is left to the per-point path whole).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from core.fields import TEXT_SPECS, specs

LINK_SECTIONS = ("link", "fiber", "ring", "modulator", "laser", "transmitter", "loss", "receiver", "tuning",
                 "package", "interface")


def link_table(design, overrides: tuple, axes: tuple, progress=None, fabric: bool = False, trained=None,
               files=None):
    """The sweep's table of link columns (sipml.rows.Table). With `fabric`, the fabric and cost columns too, where
    the design's fabric kind has a floor over a grid (`fabric.kind.FabricKind.grid_floor`), and with `trained`
    (`sipml.sweep_point_rows.Trained`) its training columns, the feasible points of each combination searched as
    one batch (`workloads.speedup.evaluate_model_points`); the combinations of the name and fabric axes
    without a floor go point by point, and None when none has one. `files`: the user's catalog and GPU files
    (`sipml.sweep_point_rows.DataFiles`; None: the shipped ones)."""
    from core.labels import Labels
    from sipml.rows import Table
    from sipml.sweep_point_rows import FABRIC_COLUMNS, PHYSICS_COLUMNS, SHIPPED, TRAINING_COLUMNS, evaluate_chunk

    files = files or SHIPPED

    if not axes:
        return None
    shape = tuple(len(a.values) for a in axes)
    names_at = [i for i, a in enumerate(axes) if _is_name(a) or a.section not in LINK_SECTIONS]  # one grid each
    numbers_at = [i for i in range(len(axes)) if i not in names_at]
    columns: dict = {}
    alone = np.zeros(shape, dtype=bool)  # points for the per-point path
    errors = np.full(shape, "", dtype=object)
    untrained = np.zeros(shape, dtype=bool)  # where the training columns are absent (the row's error says why)
    gridded = False
    combos = list(itertools.product(*(range(shape[i]) for i in names_at)))
    if progress:  # the total before the first point ends
        progress(0, len(combos))
    for done, combo in enumerate(combos, 1):
        where = [slice(None)] * len(axes)
        for i, j in zip(names_at, combo):
            where[i] = j
        where = tuple(where)
        sets = [*overrides, *(_set(axes[i], j) for i, j in zip(names_at, combo))]
        result = _group(design, sets, [axes[i] for i in numbers_at], fabric, trained, files)
        if result is None:
            alone[where] = True
        else:
            gridded = True
            values, refused = result
            error = values.pop("error", "")  # a 0-d array where the group is one point: its text, not the array
            errors[where] = error.item() if isinstance(error, np.ndarray) and error.ndim == 0 else error
            untrained[where] = values.pop(_UNTRAINED, False)
            for name, value in values.items():
                if name not in columns:
                    columns[name] = np.empty(shape, dtype=np.asarray(value).dtype if name not in _TEXT else object)
                value = np.asarray(value) if isinstance(value, Labels) else value
                columns[name][where] = value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value
            alone[where] = refused
        if progress:
            progress(done, len(combos))
    if fabric and not gridded:
        return None  # no combination has a floor over a grid: the per-point path (on every worker) writes them all
    order = [*PHYSICS_COLUMNS, *FABRIC_COLUMNS, *(TRAINING_COLUMNS if trained is not None else ())]
    table = Table.from_columns(axes, {name: columns[name].ravel() for name in order if name in columns},
                               len(alone.ravel()))
    table.data["error"] = errors.ravel()
    if untrained.any():
        for name in TRAINING_COLUMNS:
            table.present[name] = ~untrained.ravel()
    flat = np.flatnonzero(alone.ravel())
    if flat.size:
        points = [tuple(int(k) for k in np.unravel_index(i, shape)) for i in flat]
        table.replace_rows(flat, evaluate_chunk(design, overrides, axes, tuple(points), trained, not fabric, files))
    return table


_TEXT = ("binding_limit", "link_violations", "fabric_violations", "training_error")


def _is_name(axis) -> bool:
    from sipml.design_files import ALL_SECTIONS

    return specs(ALL_SECTIONS[axis.section])[axis.key].unit in TEXT_SPECS


def _set(axis, index: int) -> str:
    return f"{axis.section}.{axis.key}={axis.texts[index]}"


def _group(design, sets: list[str], axes: list, fabric: bool = False, trained=None, files=None):
    """(columns over the numeric axes, points to evaluate alone) for one combination of the name axes; None when
    the whole combination goes point by point."""
    from core.errors import SipmlError
    from fabric.evaluate import effective_link
    from photonics.link_grid import evaluate_grid, supported
    from photonics.resolve import resolve
    from sipml.quantities import FABRIC, PRICED_KEYS, SWEEP, column, priced_only
    from sipml.sweep_point_rows import Points, infeasible_text, link_columns

    try:
        points = Points(design)
        cluster = points.load(sets)
        base = effective_link(cluster)
        if base is None or not supported(base):
            return None
        resolved = resolve(base)
    except SipmlError:
        return None
    floor = None
    if fabric and (cluster.has_fabric or design is not None):
        floor = _fabric_columns(cluster, trained, files)
        if floor is None:
            return None
    shape = tuple(len(a.values) for a in axes)
    refused = np.zeros(shape, dtype=bool)
    varied: dict[str, dict[str, np.ndarray]] = {}
    points = points.within(sets, cluster)
    for dim, axis in enumerate(axes):
        values = []
        for j in range(len(axis.values)):
            try:  # the value the link gets, in Hz for a span (at the design's wavelength)
                link = resolve(effective_link(points.load([_set(axis, j)])))
            except SipmlError:
                values.append(getattr(getattr(resolved, axis.section), axis.key))
                index = [slice(None)] * len(axes)
                index[dim] = j
                refused[tuple(index)] = True
                continue
            value = getattr(getattr(link, axis.section), axis.key)
            if not _only_moved(link, resolved, axis):
                return None  # the value moves other fields (a wavelength converts the design's spans): per point
            values.append(value)
        dims = [1] * len(axes)
        dims[dim] = len(values)
        varied.setdefault(axis.section, {})[axis.key] = np.asarray(values).reshape(dims)
    refused |= _out_of_order(resolved, varied, shape)
    grid = evaluate_grid(resolved, varied, floor)
    values = link_columns(grid)  # the grid's figures carry the estimate's names: read as a point's are
    if floor is not None:
        more = dict(grid.more)
        refused |= more.pop(_REFUSED)
        broken = [k for k in more if k.startswith(_BROKEN)]
        names = grid.violations.with_flags([more.pop(k) for k in broken], [k[len(_BROKEN):] for k in broken])
        for key in SWEEP[FABRIC]:  # where the grid's fabric cannot be built, its price and bill are not reported
            if key in PRICED_KEYS and column(key) in more:
                more[column(key)] = priced_only(more[column(key)], names.none_hold)
        values.update({"fabric_feasible": names.none_hold, **more, "fabric_violations": names})
        if trained is not None:  # an infeasible point's training says which limits its fabric breaks
            kind = cluster.fabric.kind
            values["training_error"] = np.where(names.none_hold, values["training_error"],
                                                names.mapped(lambda text: infeasible_text(kind, text.split(";"))))
    return values, refused | grid.fallback


_REFUSED, _BROKEN, _UNTRAINED = "refused", "broken:", "untrained"  # the fabric's entries in the grid's `more`


def _fabric_columns(cluster, trained=None, files=None):
    """The grid's `more` for the fabric and cost columns of a sweep over the link of `cluster` (and with `trained`,
    the training columns it asks for): a function of the link's stage arrays, or None when the fabric kind has
    no floor over a grid (or not for this design). The columns are read from the floor, its priced bill and the
    batched search's result through the quantity table, as the per-point rows read them from the estimate, its cost
    summary and its training result. Points the search leaves out (infeasible, or refused) go point by point."""
    from types import SimpleNamespace

    from fabric.cost import fabric_bill, summarize
    from fabric.registry import get_kind
    from photonics.link_grid import fabric_inputs
    from sipml.quantities import FABRIC, Reading
    from sipml.sweep_point_rows import priced_with, stage_columns

    kind = get_kind(cluster.fabric.kind)
    over_grid = None if kind.grid_floor is None else kind.grid_floor(cluster)
    if over_grid is None or (trained is not None and kind.floor_estimate is None):
        return None
    catalog, gpus = priced_with(files)
    columns_of = None if trained is None else _training(cluster, trained, catalog, gpus)
    if columns_of is False:
        return None

    def more(a, shape):
        inputs = fabric_inputs(a)
        floor, refused = over_grid(a.sections, inputs)
        io = SimpleNamespace(**a.sections)
        cost = summarize(cluster, fabric_bill(cluster, floor.bom, catalog, inputs, io), float("nan"))
        reading = Reading(fabric=floor, cost=cost)
        out = {_REFUSED: refused}
        out.update({_BROKEN + name: broken for name, broken in floor.broken.items()})
        out.update(stage_columns(reading, FABRIC))  # NaN where the fabric has none, as per point
        if columns_of is not None:
            estimate = kind.floor_estimate(cluster, a.sections, floor, inputs)
            searched = ~np.broadcast_to(refused | a.fallback | _link_broken(a)
                                        | np.any(np.broadcast_arrays(False, *floor.broken.values()), axis=0), shape)
            out.update(columns_of(estimate, searched, cost))
        return out
    return more


def _link_broken(a):
    """Where the link itself breaks a constraint (its row's training is refused with the violations' messages)."""
    from photonics import constraints

    return np.any(np.broadcast_arrays(False, *constraints.broken(constraints.RING_WDM, a)), axis=0)


def _training(cluster, trained, catalog, gpus):
    """A function (grid estimate, points to search, grid cost) → the training columns over the grid, searched at
    those points as one batch; False when the model cannot be had here (the combination goes point by point).
    Where the search is refused (no strategy at this size), the searched points' training error says so; where the
    baseline is, their error, without training columns — as per point."""
    from core.errors import SipmlError
    from sipml.quantities import QUANTITIES, SWEEP, TRAINING, Reading, column
    from sipml.sweep_point_rows import sweep_baseline
    from workloads.models import load_model
    from workloads.speedup import default_batch, evaluate_model_points

    try:
        model = load_model(trained.model)
        size = trained.batch if trained.batch is not None else default_batch(model, cluster.job_gpus)[0]
    except SipmlError:
        return False
    numbers = [key for key in SWEEP[TRAINING] if key in QUANTITIES]
    baseline = []

    def columns(estimate, searched, cost):
        out = {"training_feasible": np.zeros(searched.shape, dtype=bool),
               **{column(k): np.full(searched.shape, math.nan) for k in numbers},
               "training_error": np.full(searched.shape, "", dtype=object),
               "error": np.full(searched.shape, "", dtype=object), _UNTRAINED: np.zeros(searched.shape, dtype=bool)}
        if not searched.any():
            return out
        try:
            result, errors = evaluate_model_points(model, cluster, estimate, searched, "point", size, cost, gpus=gpus)
        except SipmlError as exc:  # no strategy at this size: each searched row's training error, as per point
            return {**out, "training_error": np.where(searched, str(exc), "")}
        try:
            if not baseline:
                baseline.append(sweep_baseline(trained.model, size, cluster, catalog, gpus, trained.baseline))
        except SipmlError as exc:  # no baseline: each searched row's error
            return {**out, "error": np.where(searched, str(exc), ""), _UNTRAINED: searched}
        reading = Reading(result=result, baseline=baseline[0])
        ok = searched & (errors == "")  # a figure of a row not trained (its goodput too) is NaN, as per point
        return {**out, "training_feasible": ok,
                **{column(key): np.where(ok, QUANTITIES[key].value(reading), math.nan) for key in numbers},
                "training_error": errors}
    return columns


def _only_moved(link, base, axis) -> bool:
    """Whether `link` equals `base` with the axis's field set to the link's value (and that value equals itself:
    not NaN), field by field as the designs' equality compares them."""
    from dataclasses import fields

    if type(link) is not type(base):
        return False
    for f in (f for f in fields(link) if f.compare):
        mine, theirs = getattr(link, f.name), getattr(base, f.name)
        if f.name != axis.section:
            if mine is not theirs and mine != theirs:
                return False
            continue
        if type(mine) is not type(theirs):
            return False
        for g in (g for g in fields(mine) if g.compare):
            if g.name == axis.key:
                value = getattr(mine, g.name)
                if value != value:
                    return False
            elif getattr(mine, g.name) != getattr(theirs, g.name):
                return False
    return True


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
