"""`sipml sweep`: a design space evaluated point by point — the link budget always, the fabric and its cost when
the design has one, the training speedup of a model with `--model` — one row per point, every input and output
column named with its unit. Infeasible points stay, with what binds them.

The grid is the full product of the `--vary` axes (`key=start:stop:count[:log]` with units on start and stop, or
`key=a,b,c`), each value checked by the key's declaration. Points are cut into fixed chunks in grid order and
evaluated locally across processes or on a Dask cluster; either way the rows come back in grid order and equal.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import replace

import numpy as np

from core import speed_knobs
from core.fields import TEXT_SPECS
from core.records import record
from sipml.rows import Table, columns
from sipml.sweep_point_rows import (BASELINE, FABRIC_COLUMNS, PHYSICS_COLUMNS, SHIPPED, TRAINING_COLUMNS, DataFiles,
                                Trained, evaluate_chunk, given_as, load_point)

# Bounds on what a sweep may ask for, so every sweep either finishes in bounded memory or is refused before any
# work. Measured (0.5.0, 2-core machine): a row of the per-point path holds ~2.5 kB of Python objects and takes
# 1–30 ms, so 200 000 rows are ≤ ~0.5 GB and an hour or two on one core; a link-only grid of 2^20 points peaks at
# ~260 MB resident (~250 B per point in arrays and the rows' text), so 2^22 points stay near ~1 GB.
MAX_POINTS = 200_000
SCHEDULER_TIMEOUT_S = 10  # [assumed] a scheduler that does not answer in 10 s is not there
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")  # the addresses dask.distributed connects to
MAX_GRID_POINTS = 1 << 22


@record(slots=False)
class Axis:
    """One swept design field: its values (SI) and their design-file text, unit, and how the user wrote them."""
    section: str
    key: str
    values: tuple  # parsed values (SI floats, ints, or choice names)
    texts: tuple  # the same as design-file text, for --set
    unit: str
    log: bool = False  # a geometric range (':log', or even steps in dBm)
    written_unit: str = ""  # the unit the user wrote its values in ('mW', 'dBm', 'GHz'; '' for a plain number)
    written_factor: float = 1.0  # SI value of one written unit (dBm: none, it is logarithmic)

    @property
    def column(self) -> str:
        return f"{self.section}.{self.key}" + (f" [{self.unit}]" if self.unit not in ("", "1") else "")

    @property
    def written_column(self) -> str | None:
        """The axis's column in the unit its values were written in ('laser.power_per_line [dBm]'), beside the SI
        one; None where they were written in the SI unit or none."""
        if not self.written_unit or self.written_unit == self.unit:
            return None
        return f"{self.section}.{self.key} [{self.written_unit}]"

    def written(self, si) -> np.ndarray:
        """SI values (an array) in the unit the user wrote, to the precision a range's values carry (6
        significant digits, as a design file writes them; dBm: 10·log10 of the power in mW, to 10⁻⁴ dB)."""
        from core.units import w_to_dbm

        si = np.asarray(si, dtype=float)
        if self.written_unit == "dBm":
            return np.round(w_to_dbm(si), 4) + 0.0  # + 0.0: no −0.0
        return np.array([float(f"{v:.6g}") for v in (si / self.written_factor).tolist()])


def parse_axis(spec: str, sections: dict, most: tuple[int, str] | None = None) -> Axis:
    """One --vary item. InputError for an unknown key, a key without a sweepable value, wrong units, a count < 1.
    `most`: (the points the caller holds, what says so): an axis of more values of a number is refused before
    they are read (each is read as a --set value; a grid of more points is refused anyway)."""
    from core.errors import InputError
    from core.fields import specs

    target, sep, text = spec.partition("=")
    section, dot, key = target.strip().partition(".")
    if not sep or not dot:
        raise InputError(f"--vary {spec!r}: expected section.key=start:stop:count[:log] or section.key=a,b,c")
    if section not in sections:
        raise InputError(f"--vary {spec!r}: unknown section [{section}]; known: {', '.join(sections)}")
    declared = specs(sections[section])
    if key not in declared:
        raise InputError(f"--vary {spec!r}: [{section}] has no key {key!r}; known: {', '.join(declared)}")
    field = declared[key]
    text = text.strip()
    if ":" in text:
        parts = text.split(":")
        if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "log"):
            raise InputError(f"--vary {spec!r}: a range is start:stop:count or start:stop:count:log")
        if field.unit in TEXT_SPECS:
            raise InputError(f"--vary {spec!r}: [{section}] {key} is a name; list its values: {key}=a,b,c")
        from core.units import whole_number

        try:  # ASCII digits only, as everywhere (core.units.whole_number); at most ~30 of them before int() reads them
            count = whole_number(parts[2])
        except InputError:
            raise InputError(f"--vary {spec!r}: count {parts[2]!r} is not a whole number (digits 0-9)") from None
        if count < 1:
            raise InputError(f"--vary {spec!r}: count must be ≥ 1, got {count}")
        if count > MAX_GRID_POINTS:
            raise InputError(f"--vary {spec!r}: {count} values on one axis; a sweep holds at most "
                             f"{MAX_GRID_POINTS:,} points (--link-only) or {MAX_POINTS:,} (per point)")
        if not field.sweepable:
            raise InputError(f"--vary {spec!r}: [{section}] {key} is a constant of a fit, a material or a "
                             f"standard, not a design axis; list the values to compare: {key}=a,b,c")
        if most is not None and not field.integer and count > most[0]:  # (whole numbers: each count once)
            raise InputError(f"--vary {spec!r}: {count:,} values on one axis; {most[1]}")
        lo, hi = (_parse(field, p.strip(), spec) for p in parts[:2])
        form = type(lo)
        if type(hi) is not form:
            raise InputError(f"--vary {spec!r}: write both ends in the same form (both frequencies or both "
                             "wavelength spans)")
        in_dbm = all(p.strip().lower().endswith("dbm") for p in parts[:2])  # even steps in dBm: geometric in W
        if len(parts) == 4 or in_dbm:
            if lo <= 0 or hi <= 0:
                raise InputError(f"--vary {spec!r}: a log range needs positive ends")
            grid = np.geomspace(lo, hi, count)
        else:
            grid = np.linspace(lo, hi, count)
        if field.integer:
            grid = list(dict.fromkeys(int(v) for v in np.round(grid)))  # in the order asked, each count once
            values = tuple(grid)
        else:  # each value as a design file writes it; a column shows 0.00102105, not 0.0010210500000000001
            values = tuple(_tidy(_parse(field, field.show(form(v)), spec)) for v in grid)
            if len(set(values)) < len(values):
                raise InputError(f"--vary {spec!r}: the range repeats values ({count} points between "
                                 f"{field.show(form(lo))} and {field.show(form(hi))}); the rows would repeat: "
                                 "fewer points, or ends further apart")
    else:
        values = _listed(field, text, spec, most)
    texts = tuple(set_text(field, v) for v in values)
    log = ":" in text and (len(text.split(":")) == 4 or all(p.strip().lower().endswith("dbm")
                                                            for p in text.split(":")[:2]))
    ends = text.split(":")[:2] if ":" in text else text.split(",")
    units = {_written_unit(v, field) for v in ends}
    if len(units) > 1:
        raise InputError(f"--vary {spec!r}: write every value of an axis in one unit (got "
                         f"{', '.join(sorted(u or 'none' for u, _ in units))})")
    written, factor = units.pop()
    return Axis(section, key, values, texts, _column_unit(field, values), log=log, written_unit=written,
                written_factor=factor)


def _listed(field, text: str, spec: str, most) -> tuple:
    """The values of a listed axis (a,b,c), each read as a --set value: InputError for an empty one, too many, or
    one value given twice (the rows would repeat)."""
    from collections import Counter

    from core.errors import InputError

    items = text.split(",")
    if not text or any(not v.strip() for v in items):
        raise InputError(f"--vary {spec!r}: an empty value in the list (write a,b,c)")
    if len(items) > MAX_GRID_POINTS:
        raise InputError(f"--vary {spec!r}: {len(items)} values on one axis; at most {MAX_GRID_POINTS:,}")
    if most is not None and len(items) > most[0]:
        raise InputError(f"--vary {spec!r}: {len(items):,} values on one axis; {most[1]}")
    values = tuple(_parse(field, v.strip(), spec) for v in items)
    seen = Counter(values)
    same = [items[i].strip() for i, value in enumerate(values) if seen[value] > 1]
    if same:
        said = f"{same[0]} is listed twice" if len(set(same)) == 1 else f"{' and '.join(same[:2])} are one value"
        raise InputError(f"--vary {spec!r}: {said} (each value once: the rows would repeat)")
    return values


def _written_unit(first: str, field) -> tuple[str, float]:
    """(unit, SI value of one of it) as the user wrote an axis's first value: figures show the axis in it. A name (a
    choice such as a CMOS node, '45nm') has none."""
    from core.fields import TEXT_SPECS
    from core.units import parse_value, split_quantity, table_unit

    if field.unit in TEXT_SPECS:
        return "", 1.0
    try:
        _, unit = split_quantity(first.strip().strip("'\""))
    except Exception:  # a name, or a text the field parsed its own way: no unit to show
        return "", 1.0
    if unit.lower() == "dbm":
        return "dBm", 1.0
    found = table_unit(unit) if unit and unit not in ("1",) and field.unit not in ("dB", "1") else None
    if not found:
        return "", 1.0
    try:  # one of it in the field's own SI unit, as the field reads it (a byte field: 1 MB is 10⁶ bytes, not bits)
        return unit, parse_value(f"1 {unit}", field.unit)
    except Exception:
        return unit, found[0]


def _tidy(value):
    """A plain float to 12 significant digits (a unit conversion's last-digit noise dropped); others unchanged."""
    return float(f"{value:.12g}") if type(value) is float else value


def _column_unit(field, values) -> str:
    """The unit of an axis column: none for names; of a field written in two forms ('Hz | m'), the form the
    values take (a column holds one)."""
    if field.unit in TEXT_SPECS:
        return ""
    if "|" not in field.unit:
        return field.unit
    frequency, wavelength = (u.strip() for u in field.unit.split("|"))
    spans = {type(v).__name__ == "WavelengthSpan" for v in values}
    if len(spans) > 1:
        from core.errors import InputError

        raise InputError("--vary: write every value of an axis in the same form (frequencies or wavelength spans)")
    return wavelength if spans == {True} else frequency


def _parse(field, text: str, spec: str):
    from core.errors import InputError

    try:
        value = _toml_value(text)
        return field.parse(value)
    except InputError as exc:
        raise InputError(f"--vary {spec!r}: {exc}") from None


def _toml_value(text: str):
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def set_text(field, value) -> str:
    """A field's value as the text of a `--set` (TOML: quoted with its unit, a bare count or ratio)."""
    if field.unit in TEXT_SPECS:
        return f'"{value}"'
    if field.integer:
        return str(int(value))
    if field.unit == "1":
        return repr(float(value))
    return f'"{field.show(value)}"'


def grid_points(axes: list[Axis]) -> list[tuple]:
    return list(itertools.product(*(range(len(a.values)) for a in axes)))


def link_chunk(design: str | None, overrides: tuple, axes: tuple, fabric: bool = False, trained: Trained | None = None,
               files: DataFiles = SHIPPED):
    """The link columns of a (sub-)grid by the grid kernel, as a Table (with `fabric`, the fabric and cost columns
    too, and with `trained` the training columns: None where the fabric has no floor over a grid). Runs locally or
    on a Dask worker."""
    from sipml.sweep_grid_columns import link_table

    table = link_table(design, overrides, axes, fabric=fabric, trained=trained, files=files)
    if table is None and not fabric:
        points = tuple(grid_points(list(axes)))
        table = Table.from_rows(evaluate_chunk(design, overrides, axes, points, None, True, files))
    return table


def _check_baseline(baseline: str, model) -> None:
    """InputError where --baseline has nothing to measure (no --model) or names no design."""
    from core.errors import InputError
    from sipml.design_files import load_design

    if model is None:
        raise InputError(f"--baseline {baseline}: a baseline measures the training columns, which --model asks for")
    try:
        load_design(baseline)
    except InputError as exc:
        raise InputError(f"--baseline {baseline}: {exc}") from None


def check_axes_once(axes) -> None:
    """InputError where one key is varied twice (the grid would hold each of its points twice over)."""
    from core.errors import InputError

    seen = [f"{a.section}.{a.key}" for a in axes]
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise InputError(f"--vary {twice[0]} is given twice: give one axis its values once (a,b,c or a range)")


def check_server(base, design, axes) -> None:
    """InputError where the base design's GPU has no server to price (host = 'gpu', a GPU the calculator knows none
    for) and no axis changes the GPU or the host: every priced row would fail alike."""
    from core.errors import InputError

    refusal = base.fabric.server_refusal()
    if refusal is not None and not any((a.section, a.key) in (("fabric", "gpu"), ("fabric", "host")) for a in axes):
        raise InputError(f"{design or 'the default design'}: {refusal}")


def run_sweep(design, overrides, specs, model=None, batch=None, scheduler=None, workers=None, progress=None,
              link_only=False, files: DataFiles = SHIPPED, baseline: str = BASELINE):
    """(axes, Table of every row in grid order). `link_only`: the link columns alone, by the grid kernel where the
    axes allow (`sipml.sweep_grid_columns`), else point by point. `files`: the user's catalog and GPU files;
    `baseline`: the design the training columns' speedups are over (as `sipml speedup --baseline` takes one)."""
    from core.errors import InputError
    from sipml.design_files import ALL_SECTIONS

    specs = [specs] if isinstance(specs, str) else list(specs)
    if not specs:
        raise InputError("sweep needs at least one --vary axis, e.g. --vary link.wavelengths_per_fiber=4,8,16")
    if link_only and model is not None:
        raise InputError("--link-only leaves out the fabric a --model trains on: use one or the other")
    if baseline != BASELINE:
        _check_baseline(baseline, model)
    axes = tuple(parse_axis(s, ALL_SECTIONS, (_most(link_only), _limit_text(link_only))) for s in specs)
    check_axes_once(axes)
    _check_size(axes, link_only)
    if scheduler is not None:
        check_scheduler(scheduler)
    args = (design, tuple(overrides or ()), axes)
    base = _base_design(design, list(args[1]), axes)
    spares_vary = any((a.section, a.key) == ("reliability", "spare_gpus") for a in axes)  # then the rows say
    if model is not None and base is not None and not spares_vary:  # its goodput: hot spares its fabric cannot use
        _check_hot_spares(base, design, bool(args[1]))
    if not link_only and base is not None:  # every row prices the GPUs' server
        check_server(base, design, axes)
    if link_only:
        from fabric.evaluate import effective_link

        if base is not None and effective_link(base) is None:
            raise InputError(f"{design or 'the default design'}: its [fabric] kind = '{base.fabric.kind}' has no "
                             "optical link: --link-only has no columns to write")
        _check_effects(design, list(args[1]), axes)
        _check_moves_the_link(design, list(args[1]), axes)
        return axes, _with_written_columns(_link_sweep(*args, scheduler, progress, files=files), axes)
    _check_effects(design, list(args[1]), axes)
    # the link, fabric, cost (and training) columns of the whole grid at once, where the fabric allows
    trained = None if model is None else Trained(model, batch, baseline)
    table = _link_sweep(*args, scheduler, progress, fabric=True, trained=trained, workers=workers, files=files) \
        if _may_have_a_floor(base, axes) else None
    if table is not None:
        return axes, _with_written_columns(table, axes)
    points = grid_points(list(axes))
    step = speed_knobs.KNOBS.points_per_task
    chunks = [tuple(points[i:i + step]) for i in range(0, len(points), step)]
    calls = [(*args, c, trained, False, files) for c in chunks]
    return axes, _with_written_columns(Table.from_rows(
        [row for part in _map(evaluate_chunk, calls, scheduler, workers, progress) for row in part]), axes)


def _may_have_a_floor(base, axes) -> bool:
    """Whether a combination of the grid may have its fabric columns over the grid: the design's fabric kind has a
    floor (`fabric.kind.FabricKind.grid_floor`), or an axis over [fabric] kind or a base the rules refuse leaves it
    open. Where none may, the per-point path is the only one sent out (no round of tasks that find no floor)."""
    from fabric.registry import get_kind

    if base is None or any((a.section, a.key) == ("fabric", "kind") for a in axes):
        return True
    return get_kind(base.fabric.kind).grid_floor is not None


def _with_written_columns(table: Table, axes) -> Table:
    """Each axis written in a unit other than its SI one ('mW', 'dBm', 'GHz') gets a second column in that unit,
    right after the SI column: machine readers keep SI, a reader sees the values as typed."""
    for a in axes:
        if a.written_column is not None:
            distinct, inverse = np.unique(np.asarray(table.data[a.column], dtype=float), return_inverse=True)
            table.insert_after(a.column, a.written_column, a.written(distinct)[inverse.ravel()])
    return table


def sweep_report(rows: Table, axes, title: str):
    """The rows as a table to read (`-f table|markdown|html`): each axis in the unit its values were written in
    (its SI column left out), as `Table.report` rounds them."""
    return rows.report(title, hidden={a.column for a in axes if a.written_column})


def check_scheduler(address: str) -> None:
    """InputError for an address no Dask scheduler can have: SCHEME://HOST:PORT with a known scheme and a port
    (inproc:// has neither host nor port)."""
    import re

    from core.errors import InputError

    match = re.fullmatch(r"([a-z]+)://(.+)", address.strip())
    if match is None or match.group(1) not in SCHEDULER_SCHEMES:
        raise InputError(f"--scheduler {address!r}: expected SCHEME://HOST:PORT, SCHEME one of "
                         f"{', '.join(SCHEDULER_SCHEMES)} (e.g. tcp://10.0.0.5:8786)")
    if match.group(1) != "inproc":
        host, _, port = match.group(2).rpartition(":")
        if not host or not re.fullmatch(r"[0-9]{1,5}", port) or not 0 < int(port) < 65536:
            raise InputError(f"--scheduler {address!r}: expected HOST:PORT after {match.group(1)}://, the port a "
                             "number from 1 to 65535")


def _check_size(axes, link_only: bool) -> None:
    """Refuse, before any work, a grid larger than its path can hold (MAX_POINTS, MAX_GRID_POINTS)."""
    from core.errors import InputError

    points = math.prod(len(a.values) for a in axes)
    if points > _most(link_only):
        product = " × ".join(f"{len(a.values)} ({a.section}.{a.key})" for a in axes)
        raise InputError(f"the grid has {product} = {points:,} points; {_limit_text(link_only)}")


def _most(link_only: bool) -> int:
    return MAX_GRID_POINTS if link_only else MAX_POINTS


def _limit_text(link_only: bool) -> str:
    return (f"a sweep holds at most {_most(link_only):,}"
            + (" (--link-only holds up to {:,})".format(MAX_GRID_POINTS) if not link_only else "")
            + ": use fewer values or split the sweep")


def _check_effects(design, overrides: list, axes) -> None:
    """An axis whose key has no effect in the design is refused (exit 2), as the same key given to --set is: every
    one of its rows would be that refusal. Whether a key applies depends on the other fields, not on its own value,
    so its first value tells; a --set key the axis's values make apply (or not) is the rows' to say, not the
    axis's fault."""
    from core.errors import SipmlError
    from sipml.design_files import NoEffect

    for a in axes:
        try:
            load_point(design, [*overrides, f"{a.section}.{a.key}={a.texts[0]}"], given_as(overrides))
        except NoEffect as exc:
            if f"[{a.section}] {a.key} has no effect" in exc.problem or f"section [{a.section}] " in exc.problem:
                raise exc from None
        except SipmlError:  # any other refusal is a row's to say (another axis may resolve it)
            continue


TRIED_VALUES = 64  # an axis's values the up-front check tries, evenly spaced, ends included: enough to see whether
# the axis moves an error at all, and a 200 000-value axis tried in milliseconds, not a minute


def _tried(texts) -> list:
    """At most TRIED_VALUES of an axis's distinct value texts, evenly spaced, the first and the last included."""
    distinct = list(dict.fromkeys(texts))
    if len(distinct) <= TRIED_VALUES:
        return distinct
    step = (len(distinct) - 1) / (TRIED_VALUES - 1)
    return [distinct[round(k * step)] for k in range(TRIED_VALUES)]


def _base_design(design, overrides: list, axes):
    """The design with the --set values: an error no axis value changes (a missing file, an unknown key, a --set
    the link's rules refuse at every point) is refused here, exit 2; one the axes may resolve (t_min above the
    default t_max, with t_max an axis; job_gpus above a default gpus, with gpus an axis) is left to the rows. The
    axes are tried all at their first values, then each at its values (up to TRIED_VALUES of them, evenly spaced,
    the shortest axes first; whatever order they list them in): the error must stay the same at each to be
    refused."""
    from core.errors import SipmlError

    try:
        return _checked_point(design, overrides, "--set")
    except SipmlError as exc:
        same = _unlabelled(exc)
        trials = [[f"{a.section}.{a.key}={a.texts[0]}" for a in axes],
                  *([f"{a.section}.{a.key}={text}"] for a in sorted(axes, key=lambda a: len(a.values))
                    for text in _tried(a.texts))]
        for trial in trials:
            try:
                _checked_point(design, [*overrides, *trial], given_as(overrides))
            except SipmlError as other:
                if _unlabelled(other) == same:
                    continue
            return None
        raise exc from None


def _check_hot_spares(base, design, with_set: bool) -> None:
    """The hot-spare refusal of a training sweep's design (`fabric.reliability.check_hot_spares`), named as its
    rows are: before any row, where its --set (not an axis) asks for them."""
    from core.errors import InputError
    from fabric.registry import get_kind
    from fabric.reliability import check_hot_spares
    from sipml.design_files import DEFAULT_DESIGN

    try:
        check_hot_spares(base, get_kind(base.fabric.kind))
    except InputError as exc:
        raise InputError(f"{design or DEFAULT_DESIGN}{' (with --set)' if with_set else ''}: {exc}") from None


def _checked_point(design, sets: list, given: str):
    """The point loaded, and its optical link through the cross-section rules every row applies (a receiver that
    cannot detect the modulation, …)."""
    from core.errors import InputError
    from fabric.evaluate import effective_link
    from photonics.resolve import resolve
    from sipml.design_files import DEFAULT_DESIGN

    loaded = load_point(design, sets, given)
    link = effective_link(loaded)
    if link is not None:
        try:
            resolve(link)
        except InputError as exc:
            raise InputError(f"{design or DEFAULT_DESIGN}{f' (with {given})' if sets else ''}: {exc}") from None
    return loaded


def _unlabelled(exc) -> str:
    """An error's text without what it says the values came from ('(with --set)', '(with --vary)', …)."""
    import re

    return re.sub(r" \(with (--set|--vary|--set and --vary)\)", "", str(exc))


def _check_moves_the_link(design, overrides: list, axes) -> None:
    """Under --link-only, an axis outside the link's sections must change the link (as SiP-OCS's topology changes
    its switch passes); one that cannot is refused, as a key without effect is."""
    from core.errors import InputError, SipmlError
    from fabric.evaluate import effective_link
    from sipml.sweep_grid_columns import LINK_SECTIONS

    for a in axes:
        if a.section in LINK_SECTIONS:
            continue
        links = set()
        for text in a.texts:
            try:
                links.add(effective_link(load_point(design, [*overrides, f"{a.section}.{a.key}={text}"],
                                                    given_as(overrides))))
            except SipmlError:
                links.add(text)  # a refused value: its rows say why
        if len(links) < 2 and len(a.values) > 1:
            raise InputError(f"--vary {a.section}.{a.key}: it does not change the link, so --link-only's columns "
                             "would not move; drop --link-only to see the fabric")


def _link_sweep(design, overrides, axes, scheduler, progress, fabric: bool = False, trained: Trained | None = None,
                workers=None, files: DataFiles = SHIPPED):
    """Link columns by the grid kernel (with `fabric`, the fabric and cost columns too, with `trained` the training
    columns; None where the fabric has no floor over a grid): one task locally, or sub-grids on a Dask cluster (along
    the first axis; with `trained`, along the axis local processes split, `_split_axis`, so no fabric group is
    searched by two tasks), and with `trained` on `workers` local processes (a point's figures do not depend on the
    rest of its grid, so the rows are the same); each sub-grid takes every n-th value of that axis, so that values
    that cost alike (neighbours) spread over the tasks."""
    if scheduler is not None:  # with a model, split where local processes split: each task searches its own points
        dim, parts = (_split_axis(axes) if trained is not None else 0), speed_knobs.KNOBS.dask_tasks
    elif trained is not None and (workers or 1) > 1:  # training dominates: each process searches its share
        dim, parts = _split_axis(axes), workers
    else:  # one task here: the bar counts it
        return _one_task(design, overrides, axes, fabric, trained, progress, files)
    split = axes[dim]
    count = len(split.values)
    picks = [range(k, count, min(parts, count)) for k in range(min(parts, count))]  # every parts-th value
    calls = [(design, overrides, (*axes[:dim], replace(split, values=tuple(split.values[i] for i in pick),
                                                       texts=tuple(split.texts[i] for i in pick)), *axes[dim + 1:]),
              fabric, trained, files) for pick in picks]
    tables = list(_map(link_chunk, calls, scheduler, workers, progress))
    return None if any(t is None for t in tables) else Table.concat_axis(tables, axes, dim, picks)


def _one_task(design, overrides, axes, fabric, trained, progress, files):
    """`link_chunk` of the whole grid, `progress` told 0 of 1 before and 1 of 1 after."""
    return list(_map(link_chunk, [(design, overrides, axes, fabric, trained, files)], None, None, progress))[0]


def _split_axis(axes) -> int:
    """The axis a model sweep splits between processes: the first that is a name or outside the link (each of
    its values a grid of its own, searched apart), else the first."""
    from sipml.sweep_grid_columns import LINK_SECTIONS, _is_name

    return next((i for i, a in enumerate(axes) if len(a.values) > 1 and (_is_name(a) or a.section not in
                                                                          LINK_SECTIONS)), 0)


def max_workers() -> int:
    """The most local processes `--workers` may ask for: 4 per core (os.cpu_count()); a process holds ~100 MB of
    imports and arrays, so more would only trade memory for waiting."""
    import os

    return 4 * (os.cpu_count() or 1)


def _worker_start(then) -> None:
    """A local worker process's start: SIGTERM and SIGHUP end it at once (the default action; under `fork` it
    would inherit the command's handler, raise inside a task and carry the signal back as a result, and an idle
    one would print a traceback), Ctrl-C is left to the command, which cancels the pending tasks and closes the
    pool; a signal the command was started to ignore (nohup) stays ignored. Then `then()`."""
    import signal

    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    then()


@contextlib.contextmanager
def _pool_manager_quiet():
    """While a process pool runs, an exception in its manager thread (workers killed by a signal to the whole
    process group) prints no traceback: the main thread meets the same failure as BrokenProcessPool, or ends on
    the signal, and says so in one line."""
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    previous = threading.excepthook

    def hook(args):
        if not isinstance(args.thread, _ExecutorManagerThread):
            previous(args)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous


def _end_workers(pool) -> None:
    """Stop a process pool's workers at once and drop its pending tasks: `shutdown` alone would wait for every
    running task, minutes for a model sweep's sub-grid. SIGKILL: a worker writes nothing, and one still starting
    has no handler of its own yet. Python 3.14 has `kill_workers`; before it, the pool's process table."""
    kill = getattr(pool, "kill_workers", None)
    if kill is not None:
        kill()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.is_alive():
            process.kill()
    # a worker killed while sending a result leaves part of it in the result pipe, and the pool's manager thread
    # waits for the rest for ever (the shutdown with it, then the interpreter's exit): this process's end of the
    # pipe closed, the read ends once the killed workers' ends are gone, and the pool closes as broken
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
    pool.shutdown(wait=True, cancel_futures=True)


SCHEDULER_STARTUP_S = 3.0  # [measured] the command's start and dask's import: ~0.8 s on a shared core, 2026, and up
# to ~2.5 s on a machine running six test workers; out of SCHEDULER_TIMEOUT_S: a scheduler that does not answer is
# refused ~7 s after it is asked, ~8 s after the command starts


def _client(scheduler: str):
    """A Dask client of the scheduler at `scheduler`, or an InputError within SCHEDULER_TIMEOUT_S of the command's
    start: an address over TCP is tried with a plain connection first (a refused port answers at once; dask would
    retry until its timeout), then dask gets what is left of the time."""
    import socket
    import time

    from core.errors import InputError

    deadline = time.monotonic() + SCHEDULER_TIMEOUT_S - SCHEDULER_STARTUP_S
    scheme, _, rest = scheduler.strip().partition("://")
    if scheme in ("tcp", "tls", "ws", "wss"):
        host, _, port = rest.rpartition(":")
        host = host.strip("[]")
        try:
            with socket.create_connection((host, int(port)), timeout=max(0.1, deadline - time.monotonic())):
                pass
        except (OSError, ValueError) as exc:
            reason = "no answer" if isinstance(exc, TimeoutError) else (getattr(exc, "strerror", None) or str(exc))
            raise InputError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({reason})") from None
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError("--scheduler needs dask: pip install 'sipml[dask]'") from None
    import threading

    # dask's timeout covers the connection, not the handshake after it (a server that accepts and stays silent
    # holds it until the server closes): the client is made in a thread of its own, waited for until the deadline
    made: dict = {}

    def connect():
        try:
            made["client"] = Client(scheduler, timeout=max(1.0, deadline - time.monotonic()))
        except BaseException as exc:  # noqa: BLE001 — handed to the waiting thread
            made["error"] = exc

    thread = threading.Thread(target=connect, name="sipml-dask-connect", daemon=True)
    thread.start()
    thread.join(max(0.5, deadline - time.monotonic()))
    if thread.is_alive():
        raise InputError(f"--scheduler {scheduler}: the Dask scheduler did not answer within {SCHEDULER_TIMEOUT_S} s")
    exc = made.get("error")
    if isinstance(exc, (OSError, TimeoutError, ValueError)):
        raise InputError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc})") from None
    if isinstance(exc, MemoryError):  # a server that is not a scheduler: its first bytes read as a frame of exabytes
        raise InputError(f"--scheduler {scheduler}: what answers there is not a Dask scheduler") from None
    if exc is not None:
        raise exc
    client = made["client"]
    try:  # a scheduler without workers would hold the tasks until one joins: wait for one until the deadline
        client.wait_for_workers(1, timeout=max(0.5, deadline - time.monotonic()))
    except (TimeoutError, OSError):
        client.close()
        raise InputError(f"--scheduler {scheduler}: the Dask scheduler has no workers (none joined within "
                         f"{SCHEDULER_TIMEOUT_S} s of the command's start)") from None
    return client


def _map(fn, calls: list[tuple], scheduler, workers, progress):
    """fn(*call) for every call, in order: on a Dask cluster, in local processes, or here; `progress(done, total)`
    told the total before the first call returns."""
    if progress:
        progress(0, len(calls))
    import multiprocessing

    from core.errors import InputError
    from workloads.kinds import plugged

    if plugged() and scheduler is not None:
        raise InputError(f"workload kind(s) {', '.join(plugged())} registered in this process do not reach a Dask "
                         "cluster's workers: sweep without --scheduler")
    if plugged() and multiprocessing.get_start_method() != "fork":
        workers = 1  # a plug-in kind reaches only forked workers: here, in this process
    if scheduler is not None:
        import os

        from core.allocator import HUGE_PAGES, as_a_command

        with _client(scheduler) as client:
            # each worker's memory as this process's (core.allocator): its array temporaries reuse memory (without
            # it the workers spend as much CPU again in the kernel, mapping and zeroing pages) and numpy's large
            # arrays take ordinary pages unless this command's user asks otherwise; a worker that cannot (not glibc,
            # or failing) runs the sweep as it is
            client.run(as_a_command, os.environ.get(HUGE_PAGES), on_error="ignore")
            futures = client.map(fn, *zip(*calls), pure=False)
            for done, future in enumerate(futures, 1):
                yield future.result()
                if progress:
                    progress(done, len(calls))
        return
    if (workers or 1) > 1 and len(calls) > 1:
        from concurrent.futures import ProcessPoolExecutor

        from core.allocator import as_a_command

        pool = ProcessPoolExecutor(max_workers=min(workers, len(calls)), initializer=_worker_start,
                                   initargs=(as_a_command,))
        with _pool_manager_quiet():
            try:
                for done, result in enumerate(pool.map(fn, *zip(*calls)), 1):
                    yield result
                    if progress:
                        progress(done, len(calls))
            except BaseException:  # Ctrl-C, SIGTERM, SIGHUP, an error: end the workers now, not after their tasks
                _end_workers(pool)
                raise
            pool.shutdown()
        return
    for done, call in enumerate(calls, 1):
        yield fn(*call)
        if progress:
            progress(done, len(calls))


def check_plot(spec: str, vary=(), training: bool = False, link_only: bool = False) -> list[str]:
    """The column names of a --plot spec, checked (with matplotlib's presence) before any point is computed: each
    must be a column the sweep of `vary` writes."""
    from core.errors import InputError
    from sipml.design_files import ALL_SECTIONS

    names = [s.strip() for s in spec.split(",")]
    if len(names) not in (2, 3) or not all(names):
        raise InputError(f"--plot {spec!r}: expected x,y or x,y,color")
    if vary:
        axes = [parse_axis(v, ALL_SECTIONS) for v in vary]
        known = list(dict.fromkeys([  # each once: an axis without a unit is its own bare name
            *(c for a in axes for c in (a.column, a.written_column, f"{a.section}.{a.key}") if c), *PHYSICS_COLUMNS,
            *(() if link_only else FABRIC_COLUMNS), *(TRAINING_COLUMNS if training else ()), "error"]))
        from sipml.plotting import column_named

        names = [column_named(name, known) for name in names]  # 'margin_db' is 'margin_db [dB]'
        for name in names:
            if name not in known:
                raise InputError(f"--plot {spec!r}: no column {name!r}; columns: {', '.join(known)}")
        from sipml.quantities import LABELS

        text = next((n for n in names[:2] if n.split(" [")[0] in LABELS), None)
        if text is not None:
            raise InputError(f"--plot {spec!r}: {text} holds text ({LABELS[text.split(' [')[0]]}), not numbers: "
                             "x and y are numeric columns; a text column may colour the points (x,y,color)")
    from sipml.story_report import require_matplotlib

    require_matplotlib("--plot")
    return names


def plot(rows: list[dict], spec: str, path, vary=(), design: str = "", model: str | None = None,
         baseline: str = BASELINE) -> None:
    """A PNG of column y against column x (coloured by a third column if given), in the house style
    (sipml.plotting.sweep_plot), as `figure_spec` lays it out, titled with the design and the model it trained (and
    the baseline of a speedup plotted)."""
    from sipml.plotting import sweep_plot

    from sipml.design_files import DEFAULT_DESIGN

    names, log, order = figure_spec(rows, spec, vary)
    title = design or DEFAULT_DESIGN
    if model is not None:
        title += f", {model}"
        if any("speedup" in n for n in names):
            title += f"; speedups over {baseline} on the same GPUs"
    sweep_plot(rows, names, path, log, order, title)


def figure_spec(rows, spec: str, vary=()) -> tuple[list[str], set, dict]:
    """(columns, log columns, group order) of a --plot spec: an axis named bare in the unit its values were written
    in, a column named with its unit as named; log scales for the axes given as ':log' ranges (not in dBm: those
    are already logarithmic), groups in the order of their axis."""
    from core.errors import InputError
    from sipml.design_files import ALL_SECTIONS

    names = check_plot(spec)
    axes = [parse_axis(v, ALL_SECTIONS) for v in vary]
    cols = list(dict.fromkeys([*columns(rows), *(f"{a.section}.{a.key}" for a in axes)]))
    from sipml.plotting import column_named

    names = [column_named(name, cols) for name in names]  # a quantity's bare key: its column with the unit
    for name in names:
        if name not in cols:
            raise InputError(f"--plot {spec!r}: no column {name!r}; columns: {', '.join(cols)}")
    # an axis named bare ('laser.power_per_line') is drawn in the unit it was written in; a column named with its
    # unit ('… [W]') as named
    bare = {f"{a.section}.{a.key}": a.written_column or a.column for a in axes}
    names = [bare.get(n, n) for n in names]
    log = {c for a in axes if a.log for c in (a.column, a.written_column) if c and not c.endswith("[dBm]")}
    order = {a.column: list(a.values) for a in axes}
    order.update({a.written_column: a.written(a.values).tolist() for a in axes if a.written_column})
    return names, log, order
