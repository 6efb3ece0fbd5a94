"""The ring-wdm link, stage by stage, on arrays: micro-ring modulators on CW comb or DFB lines, N wavelengths per
fiber, drop filters at the receiver. One implementation for a design point and for a grid of them: every stage takes
`photonics.common_stages.Fields` views whose numbers are floats (one point) or arrays that broadcast (a grid, one array
dimension per sweep axis), and every intermediate carries only the dimensions of the fields it depends on.
`photonics.link.evaluate` reads the records of one point from `ring_arrays`; `photonics.link_grid.evaluate_grid`
reads a grid's columns from the same arrays.

The worst wavelength is the weakest comb line in the worst position of the grid: on the transmit bus it passes the
other N−1 modulator rings, on the receive bus the other N−1 drop filters, each at its own detuning k·spacing folded
by the FSR (E19–E20); it meets crosstalk from every channel in the fiber (E6–E7) and is filtered by its own drop
ring (E18). On-off keying turns the CW line into the data's average power (E8), so the received power and the
sensitivity are both average powers. The wavelength-count search (E10 with the rings passed and the crosstalk of
every count) builds per-count tables once per distinct spectral point and finds each point's largest closing count.

The constraints on these arrays are one table (`photonics.constraints.RING_WDM`); `photonics.ring_wdm_records` reads one
point's records from them.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from core import speed_knobs
from core.errors import InputError

from core.labels import Labels
from core.records import record
from core.units import db_to_lin, dbm_to_w, format_si, lin_to_db, w_to_dbm
from photonics import budget, crosstalk, filtering, laser, microring, modulation, modulator, packaging, variation
from photonics.link_design import LinkDesign
from photonics.channel_grid import offset_detuning_hz, worst_victim_sum_by_count, wrapped_detuning_hz
from photonics.loss import LedgerLine, distributed, fiber_path, line, ndim, total_db
from photonics.common_stages import (PenaltyArrays, ReceiverArrays, SignalArrays, as_number, elementwise,
                              link_extinction_ratio, penalty_arrays, penalty_lines, receiver_arrays, sections,
                              signal_arrays)

MAX_SEARCH_WAVELENGTHS = 4096  # the wavelength-count search stops here (a warning says when it is reached)
BEND_FIT_MIN_RADIUS_M = 5e-6  # the UBC bending-loss fit covers R ≥ 5 µm; below it extrapolates (15,000 dB/cm at 3 µm)
PARKED_DETUNING_SPACINGS = 0.5  # an idle ring of an intermediate GPU waits half a spacing from every channel [assumed]


class TooLarge(Exception):
    """A grid's count tables would pass `table_elements` (core.speed_knobs): evaluate it in pieces."""


def _f(value, dtype=None):
    return np.asarray(value, dtype=dtype)


# --- ring figures -----------------------------------------------------------------------------------------------
@record(slots=False)
class RingArrays:
    """The rings' figures: FSR, linewidths, Q, drop and through losses, the rates they pass, their ISI."""

    f0: object
    fsr: object  # Hz
    fwhm: object  # drop filter
    modulator_fwhm: object
    intrinsic_q: object
    on_resonance: object  # drop filter's through transmission t0
    modulator_on_resonance: object
    drop_db: object
    modulator_drop_db: object
    modulator_max_rate: object  # f0/Q (E13)
    filter_max_rate: object
    fsr_channels: object  # ⌊FSR / spacing⌋
    filter_to_symbol_rate: object  # Δ (E18)
    isi_db: object  # the drop filter's (E18)
    modulator_to_symbol_rate: object  # Δ of the modulator ring: its FWHM / symbol rate
    modulator_isi_db: object  # the modulator's photon lifetime on the signal, a single-pole field filter (E18e)


def bend_fit_loss_db_per_m(r):
    """The UBC bending-loss fit at the ring radius (PhoenixSim)."""
    return microring.bending_loss_db_per_m(r.radius, _f(r.bend_fit_coefficient) / 100.0, r.bend_fit_exponent,
                                           _f(r.bend_fit_straight_loss) / 100.0)


def ring_loss_db_per_m(d: LinkDesign, r):
    """Intrinsic loss of the ring waveguide: the given value, or the bending-loss fit at the ring radius."""
    return bend_fit_loss_db_per_m(r) if d.ring.loss_model == "bend-fit" else _f(r.propagation_loss, dtype=float)


def shift_per_kelvin_hz(d: LinkDesign, r, f0):
    """Resonance shift per kelvin: the given tuning efficiency, or f·(dn/dT)/n_g from the thermo-optic coefficient
    (E12)."""
    if d.ring.tuning_model == "given":
        return _f(r.tuning_efficiency, dtype=float)
    return microring.thermo_optic_shift_hz_per_k(f0, r.dn_dt, r.group_index)


def ring_stage(d: LinkDesign, s: dict, sig: SignalArrays) -> RingArrays:
    lk, r, mod = s["link"], s["ring"], s["modulator"]
    f0 = microring.frequency_hz(lk.wavelength)
    fsr = microring.fsr_frequency_hz(r.group_index, microring.circumference_m(r.radius))
    fwhm = microring.fwhm_hz(f0, r.filter_q)
    qi = microring.intrinsic_q(r.group_index, lk.wavelength, ring_loss_db_per_m(d, r))
    t0_mod = (microring.through_on_resonance_symmetric(mod.q, qi) if d.modulator.kind == "add-drop"
              else microring.through_on_resonance_all_pass(mod.q, qi))
    delta = fwhm / sig.symbol_rate
    delta_mod = microring.fwhm_hz(f0, mod.q) / sig.symbol_rate
    er = link_extinction_ratio(d, s)
    return RingArrays(
        f0=f0, fsr=fsr, fwhm=fwhm, modulator_fwhm=microring.fwhm_hz(f0, mod.q), intrinsic_q=qi,
        on_resonance=microring.through_on_resonance_symmetric(r.filter_q, qi), modulator_on_resonance=t0_mod,
        drop_db=microring.drop_loss_db(r.filter_q, qi), modulator_drop_db=microring.drop_loss_db(mod.q, qi),
        modulator_max_rate=microring.max_rate_for_q(f0, mod.q), filter_max_rate=microring.max_rate_for_q(f0, r.filter_q),
        fsr_channels=np.floor(fsr / _f(lk.channel_spacing) * (1 + 1e-12)).astype(int), filter_to_symbol_rate=delta,
        isi_db=filtering.isi_penalty_db(d.ring.filter_isi, delta, sig.levels, er),
        modulator_to_symbol_rate=delta_mod,
        modulator_isi_db=filtering.eye_penalty_db(delta_mod, sig.levels, er))


# --- ledger --------------------------------------------------------------------------------------------------------
def _laser_lines_in_bus(d: LinkDesign, lines, counts):
    """Laser lines the transmit bus carries: a comb brings all its lines, a DFB array only the ones used."""
    return np.maximum(lines, counts) if d.laser.kind == "comb" else np.asarray(counts)


def modulation_loss(d: LinkDesign, mod, levels: int) -> LedgerLine:
    """Modulating a CW line: its average power over its peak (E8; PAM levels average to the same mid level)."""
    value = modulator.ook_penalty_db(db_to_lin(mod.extinction_ratio))
    scalar = ndim(value) == 0
    value = float(value) if scalar else value
    if levels == 2:
        return LedgerLine("on-off keying", value, f"average of '1' and '0' at ER {mod.extinction_ratio:g} dB (E8)"
                          if scalar else "", "modulation")
    return LedgerLine(f"PAM{levels} levels", value, f"average of {levels} levels, outer ER {mod.extinction_ratio:g} dB "
                      "(E8, E24)" if scalar else "", "modulation")


def ledger(d: LinkDesign, s: dict, ring: RingArrays, levels: int, through_tx, through_rx) -> tuple[LedgerLine, ...]:
    """Losses of the worst wavelength from the transmit bus to the detector, in path order."""
    ls, mod, lk = s["loss"], s["modulator"], s["link"]
    scalar = ndim(lk.channel_spacing) == 0 and ndim(lk.wavelengths_per_fiber) == 0
    n, spacing = lk.wavelengths_per_fiber, format_si(lk.channel_spacing, "Hz") if scalar else ""
    items = [distributed("tx_waveguide", "transmit waveguide", ls.tx_waveguide_length, ls.waveguide_loss),
             line("bends", "bends", ls.bends, ls.bend_loss, "each"),
             line("crossings", "crossings", ls.crossings, ls.crossing_loss, "each"),
             line("splitters", "Y-junctions", ls.splitters, ls.splitter_loss, "each")]
    if d.modulator.kind == "add-drop":
        items.append(line("modulator_drop", "modulator drop port", 1, as_number(ring.modulator_drop_db),
                          "add-drop modulator (E4)"))
    items += [line("modulator_insertion", "modulator insertion", 1, mod.insertion_loss, "'1' level"),
              modulation_loss(d, mod, levels),
              LedgerLine("rings passed, transmit", as_number(through_tx), f"{n - 1} modulator rings at k × {spacing}, "
                         "FSR-folded (E19–E20)" if scalar else "", "rings_transmit"),
              line("output_coupler", "output coupler", 1, ls.coupler, "per facet"),
              *fiber_path(d, ls),
              line("input_coupler", "input coupler", 1, ls.coupler, "per facet"),
              LedgerLine("rings passed, receive", as_number(through_rx), f"{n - 1} drop filters at k × {spacing}, "
                         "FSR-folded (E19–E20)" if scalar else "", "rings_receive"),
              distributed("rx_waveguide", "receive waveguide", ls.rx_waveguide_length, ls.waveguide_loss),
              line("drop_filter", "drop filter", 1, as_number(ring.drop_db), "on resonance (E4)")]
    return tuple(items)


def transmit_loss_db(ledger_lines):
    """Loss from the transmit bus into the fiber: the ledger up to and including the output coupler."""
    keys = [item.key for item in ledger_lines]
    return total_db(ledger_lines[: keys.index("output_coupler") + 1])


# --- the wavelength-count search -----------------------------------------------------------------------------------
@functools.lru_cache(maxsize=512)  # per-count tables of a spectral point, shared by points that differ elsewhere
def _scalar_tables(*args) -> tuple:
    """The per-count tables of one spectral point, kept read-only: design points that differ off the spectrum
    (power, losses) share them — this cache saves rebuilding them for every point of a per-point sweep."""
    tables = _tables(*args)
    for table in tables:
        table.flags.writeable = False
    return tables


def _point_blocks(lead: tuple, arrays):
    """(the block's points in the flattened grid, their shape, each array there) for consecutive blocks of about
    `points_per_block` design points of the shape `lead`. `arrays`: (array, how many of its leading and of its
    trailing axes are its own: an offset's counts lead, a table's trail). Where one row of the points' first axis
    holds no more than a block, whole rows make a block and each array is sliced there where it spans that axis
    (broadcast nowhere); otherwise each is broadcast and flattened over the points."""
    points, row, block = math.prod(lead), math.prod(lead[1:]), speed_knobs.KNOBS.points_per_block
    if lead and row <= block:
        step = max(1, block // max(row, 1))
        for start in range(0, lead[0], step):
            stop = min(start + step, lead[0])
            rows = (slice(start, stop),)
            yield slice(start * row, stop * row), (stop - start,) + lead[1:], [
                a[(slice(None),) * head + rows] if np.ndim(a) - head - extra == len(lead) and np.shape(a)[head] > 1
                else a for a, head, extra in arrays]
        return
    flat = []
    for a, head, extra in arrays:
        shape = np.shape(a)
        own, tail = shape[:head], shape[len(shape) - extra:]
        flat.append(np.broadcast_to(a, own + lead + tail).reshape(own + (points,) + tail))
    for start in range(0, points, block):
        part = slice(start, min(start + block, points))
        yield part, (part.stop - start,), [a[(slice(None),) * head + (part,)] for a, (_, head, _) in zip(flat, arrays)]


def _tables(n_max: int, leak_n: int, spacing, mod_fwhm, t0_mod, fwhm, t0, excess, fsr, rate, at=None) -> tuple:
    """The three per-count tables of `_count_tables`, each over the dimensions of its own inputs (the transmit rings'
    table does not vary with the drop filter's Q), computed `points_per_block` design points at a time (the same
    numbers: each point's tables are its own). Every table reads one folded grid, computed once, and the crosstalk
    its phase, which depends on the grid and the rate alone. `at`: the grid's points (np.nonzero's arrays) to
    tabulate, one row each (the points that go on to longer tables); a table, folded grid or phase whose inputs
    take no more values over the grid than there are points is computed over its inputs' own dimensions and read
    at the points, the others point by point."""
    grid_dims = max(np.ndim(a) for a in (mod_fwhm, t0_mod, fwhm, t0, excess, rate)) if at is None else len(at)
    width = max(n_max, leak_n)

    def whole(*inputs) -> bool:
        return at is None or math.prod(np.broadcast_shapes(*(np.shape(v) for v in inputs))) <= len(at[0])

    def on_points(value, head: int = 0, tail: int = 0):
        return _at_points(value, at, head, tail)

    @functools.cache
    def grid_offsets():  # the folded detuning of every offset, the points' axes aligned after it
        return offset_detuning_hz(width, spacing, fsr, grid_dims)

    @functools.cache
    def point_offsets():
        if whole(spacing, fsr):
            return on_points(grid_offsets(), head=1)
        return offset_detuning_hz(width, on_points(spacing), on_points(fsr), 1)

    @functools.cache
    def grid_phase():  # (cos θ, sin θ) of the crosstalk at each offset
        return crosstalk.aggressor_phase(grid_offsets()[:leak_n], rate)

    @functools.cache
    def point_phase():
        if whole(spacing, fsr, rate):
            return tuple(on_points(p, head=1) for p in grid_phase())
        return crosstalk.aggressor_phase(point_offsets()[:leak_n], on_points(rate))

    def table(function, n: int, args, phased: bool = False):
        if whole(spacing, fsr, *args):
            found = _blocked(function, n, (grid_offsets()[:n], *(grid_phase() if phased else ())), *args)
            return found if at is None else on_points(found, tail=1)
        return _blocked(function, n, (point_offsets()[:n], *(point_phase() if phased else ())),
                        *(on_points(a) for a in args))

    def leaked(det, cos, sin, *a):
        return crosstalk.worst_channel_leakage_at(det, *a, phase=(cos, sin))

    through = microring.bus_through_transmission_at
    return (table(through, n_max, (mod_fwhm, t0_mod, excess)), table(through, n_max, (fwhm, t0, excess)),
            table(leaked, leak_n, (fwhm, rate), phased=True))


def _blocked(table, width: int, offsets: tuple, *args):
    """`table(*offsets, *args)` (arrays with the offsets on their first axis, then the rest; the result's counts on
    its last) over the broadcast shape of its inputs, `points_per_block` points at a time."""
    shape = np.broadcast_shapes(*(o.shape[1:] for o in offsets), *(np.shape(a) for a in args))
    points = math.prod(shape)
    if points <= speed_knobs.KNOBS.points_per_block:
        return table(*offsets, *args)
    out = np.empty((points, width))
    for part, lead, block in _point_blocks(shape, [*((o, 1, 0) for o in offsets), *((a, 0, 0) for a in args)]):
        out[part].reshape(lead + (width,))[...] = table(*block)  # one copy (a table's counts may come last by a view)
    return out.reshape(shape + (width,))


def _count_tables(d: LinkDesign, spectral, n_max: int, lines, at=None):
    """Per-count tables (transmit rings, receive rings, crosstalk ΣX) of the worst wavelength, per distinct
    spectral point (at the grid's points `at`, one row each, where given): transmit and receive up to `n_max`,
    crosstalk up to the lines present (a comb's lines pass the all-pass modulators whether used or not)."""
    leak_n = n_max if d.modulator.kind == "add-drop" else max(n_max, int(np.max(lines)))
    if all(ndim(a) == 0 for a in spectral):
        return _scalar_tables(n_max, leak_n, *(float(a) for a in spectral))
    return _tables(n_max, leak_n, *spectral, at=at)


def _at_count(table, index):
    """table[..., index] for an index array that broadcasts with the table's leading axes."""
    return _along_counts(table, np.asarray(index)[..., None])[..., 0]


def _along_counts(table, index):
    """The table's last axis gathered at `index`, whose leading axes broadcast with the table's and whose last axis
    lists the counts wanted."""
    index = np.asarray(index)
    lead = np.broadcast_shapes(table.shape[:-1], index.shape[:-1])
    return np.take_along_axis(np.broadcast_to(table, lead + table.shape[-1:]),
                              np.broadcast_to(index, lead + index.shape[-1:]), axis=-1)


@record(slots=False)
class LaserArrays:
    """The laser lines: mean power per line, the comb's envelope, the split, the power in the bus, the cap."""

    flatness: object  # weakest line below the mean (a comb's envelope; 0 for a DFB array)
    line_dbm: object  # mean laser output per line
    split_db: object
    mean_in_bus_dbm: object
    cap_dbm: object  # aggregate power cap of one source
    lines: object


def laser_stage(d: LinkDesign, s: dict) -> LaserArrays:
    lz = s["laser"]
    line_dbm = w_to_dbm(lz.power_per_line)
    split_db = laser.split_loss_db(lz.fibers_per_source)
    return LaserArrays(flatness=_f(lz.flatness, dtype=float) if d.laser.kind == "comb" else 0.0, line_dbm=line_dbm,
                       split_db=split_db, mean_in_bus_dbm=line_dbm - lz.coupling_loss - split_db,
                       cap_dbm=w_to_dbm(lz.aggregate_power_limit), lines=_f(lz.lines))


def _after_rings_by_count(d: LinkDesign, tables, inputs, n_max: int):
    """The worst wavelength's power after the rings and crosstalk (`budget.power_after_rings_mw`) for every count
    1..n_max, from the count tables (the transmit and receive rings' transmissions, the leaked power ΣX) and the
    search's per-point inputs: the count closes where it is at least the point's need."""
    line_mw, cap_mw, lines, _, weight = (np.asarray(v, dtype=float)[..., None] for v in inputs)
    tx, rx, leak = tables
    counts = np.arange(1, n_max + 1)
    present = _lines_present(d, lines, counts)
    leaked = leak[..., :n_max] if present is counts else _along_counts(leak, present.astype(np.int64) - 1)
    return budget.power_after_rings_mw(line_power_mw=line_mw, aggregate_cap_mw=cap_mw,
                                       lines_in_bus=_laser_lines_in_bus(d, lines, counts),
                                       rings_transmission=tx[..., :n_max] * rx[..., :n_max],
                                       penalty_factor=1.0 + weight * leaked)


def _lines_present(d: LinkDesign, lines, counts):
    """The channels whose crosstalk reaches the worst wavelength: the count's, or with all-pass modulators (which do
    not drop the lines they do not use) every line in the bus."""
    return counts if d.modulator.kind == "add-drop" else _laser_lines_in_bus(d, lines, counts)


def _count_search(d: LinkDesign, s: dict, ring: RingArrays, lz: LaserArrays, sig, inputs, grid_points: int):
    """The largest count each point's budget closes, with the per-count tables of the first round (they reach the
    design's own count and its lines). The first tables go to `first_search_wavelengths` counts (further where the
    design's count or its lines are more); the points that still close at their end go on, alone, in tables
    `first_search_growth`, then `search_growth` times as long, while one does (up to MAX_SEARCH_WAVELENGTHS). An entry
    for n channels does not depend on how far a table goes, and a budget that fails at n fails at every count above
    it (the rings passed, their crosstalk and the power shared between the lines only grow with the count), so the
    count found does not depend on where the tables start, nor on the other points of the grid."""
    lk, r = s["link"], s["ring"]
    first = speed_knobs.KNOBS.first_search_wavelengths
    table_n = int(max(first, np.max(lk.wavelengths_per_fiber), np.max(lz.lines)))
    spectral = [_f(v, dtype=float) for v in (lk.channel_spacing, ring.modulator_fwhm, ring.modulator_on_resonance,
                                             ring.fwhm, ring.on_resonance, r.through_excess_loss, ring.fsr,
                                             sig.symbol_rate)]
    spectral_points = math.prod(np.broadcast_shapes(*(v.shape for v in spectral)))
    points = math.prod(np.broadcast_shapes(*(v.shape for v in spectral), *(np.shape(v) for v in inputs)))
    if max(points, 2 * spectral_points) * table_n > speed_knobs.KNOBS.table_elements and grid_points > 1:
        raise TooLarge
    tables = _count_tables(d, spectral, table_n, lz.lines)
    count = _closed_counts(d, tables, inputs, table_n)
    growth = speed_knobs.KNOBS.first_search_growth
    return _counted_on(d, spectral, inputs, count, table_n, growth=growth), tables


def _counted_on(d: LinkDesign, spectral, inputs, count, table_n: int, at=None, growth: float | None = None):
    """`count` (over the grid, or at its points `at`) with each point that closes at the end of its tables of
    `table_n` counts counted on, alone, in tables `growth` times as long (to the search's end where they would
    pass half of it: no round just short of the end before it)."""
    growth = speed_knobs.KNOBS.search_growth if growth is None else growth
    next_n = max(math.ceil(table_n * growth), table_n + 1)
    next_n = MAX_SEARCH_WAVELENGTHS if 2 * next_n > MAX_SEARCH_WAVELENGTHS else next_n
    at_end = count == table_n
    if table_n >= MAX_SEARCH_WAVELENGTHS or not at_end.any():
        return count
    if count.ndim == 0:
        return _counts_from(d, spectral, inputs, next_n)
    index = np.nonzero(at_end)
    count[index] = _counts_from(d, spectral, inputs, next_n, index if at is None else tuple(i[index] for i in at))
    return count


def _at_points(value, index, head: int = 0, tail: int = 0):
    """An array over the grid (broadcast: any grid axis may be 1), with `head` axes of its own before the grid's
    and `tail` after, at the grid's points `index` (np.nonzero's arrays, one per grid axis): one value per point on
    the axis after the head (or an axis of 1 where it spans none of the grid); a value of one number stays one."""
    a = np.asarray(value)
    if a.size == 1 and not head and not tail:
        return a.reshape(())
    grid = a.ndim - head - tail
    a = a.reshape(a.shape[:head] + (1,) * (len(index) - grid) + a.shape[head:])
    spans = [n > 1 for n in a.shape[head:head + len(index)]]
    if not any(spans):
        return a.reshape(a.shape[:head] + (1,) + a.shape[a.ndim - tail:])
    return a[(slice(None),) * head + tuple(i if n else 0 for i, n in zip(index, spans))]


def _counts_from(d: LinkDesign, spectral, inputs, table_n: int, at=None):
    """The largest count each point closes, each known to close at the end of the round's shorter tables: the one
    point of a grid of no axes, or the grid's points `at` (np.nonzero's arrays), `table_elements` at a time; tables
    to `table_n`, longer again for the points that still close at their end."""
    if at is not None:
        step = max(1, speed_knobs.KNOBS.table_elements // (2 * table_n))
        if len(at[0]) > step:
            return np.concatenate([_counts_from(d, spectral, inputs, table_n, tuple(i[k:k + step] for i in at))
                                   for k in range(0, len(at[0]), step)])
    here = inputs if at is None else [_at_points(v, at) for v in inputs]
    count = _closed_counts(d, _count_tables(d, spectral, table_n, here[2], at), here, table_n)
    return _counted_on(d, spectral, inputs, count, table_n, at)


def _closed_counts(d: LinkDesign, tables, inputs, n_max: int):
    """The largest count ≤ n_max each point's budget closes, 0 where none, from the power after the rings by count
    against the point's need, `points_per_block` points at a time."""
    lead = np.broadcast_shapes(*(t.shape[:-1] for t in tables), *(np.shape(v) for v in inputs))
    points = math.prod(lead)

    def closed(tables_, inputs_):
        ok = _after_rings_by_count(d, tables_, inputs_, n_max) >= np.asarray(inputs_[3], dtype=float)[..., None]
        ok = np.broadcast_to(ok, np.broadcast_shapes(ok.shape[:-1], *(np.shape(v) for v in inputs_)) + (n_max,))
        return np.where(ok.any(axis=-1), n_max - np.argmax(ok[..., ::-1], axis=-1), 0)

    if points <= speed_knobs.KNOBS.points_per_block:
        return closed(tables, inputs)
    count = np.empty(points, dtype=np.int64)
    for part, shape, block in _point_blocks(lead, [*((t, 0, 1) for t in tables), *((v, 0, 0) for v in inputs)]):
        count[part] = np.broadcast_to(closed(block[:len(tables)], block[len(tables):]), shape).reshape(-1)
    return count.reshape(lead)


@record(slots=False)
class BudgetArrays:
    """The worst wavelength's budget: the count it closes, the ledger and penalties, crosstalk and margin."""

    ledger: tuple  # LedgerLine values at the design's count
    penalties: tuple  # LedgerLine: extinction ratio, crosstalk, filter ISI, RIN, dispersion
    count: object  # wavelengths per fiber the budget closes
    through_tx: object
    through_rx: object
    leakage: object  # ΣX at the worst victim
    crosstalk_db: object
    margin: object
    launch_dbm: object  # the weakest line entering the transmit bus
    lit: object  # lines in the bus at the design's count
    total_db: object
    penalty_db: object
    min_line_dbm: object  # least laser power per line that closes (NaN where none does: the aggregate cap binds)
    cap_share_dbm: object  # the aggregate cap's share of the weakest line entering the bus, whatever the laser gives
    fiber_launch_dbm: object  # total power into one fiber (eye safety)


def budget_stage(d: LinkDesign, s: dict, ring: RingArrays, lz: LaserArrays, sig: SignalArrays, rx: ReceiverArrays,
                 pen: PenaltyArrays, er, grid_points: int = 1) -> BudgetArrays:
    """The largest count the worst wavelength's budget closes (the power-budget count: the power after the rings
    and crosstalk against what it needs, count by count), and the ledger, penalties and margin (dB) at the design's
    own count."""
    lk = s["link"]
    constant_db = 0.0 + pen.extinction_db + ring.isi_db + ring.modulator_isi_db + pen.rin_db + pen.dispersion_db
    unpassed = ledger(d, s, ring, sig.levels, 0.0, 0.0)  # the ledger with no ring passed
    fixed_db = total_db(unpassed)
    need_dbm = fixed_db + constant_db + rx.sensitivity_dbm + lk.system_margin  # what the rings must leave
    with np.errstate(over="ignore"):  # a need past a float's range (thousands of dB) is infinite: nothing closes
        inputs = (db_to_lin(lz.mean_in_bus_dbm - lz.flatness), db_to_lin(lz.cap_dbm - lz.flatness), lz.lines,
                  db_to_lin(need_dbm), crosstalk.leakage_weight(sig.eye_q, er, sig.eye_scale) * db_to_lin(lz.flatness))
    count, (tx_t, rx_t, leak_t) = _count_search(d, s, ring, lz, sig, inputs, grid_points)
    n_req = _f(lk.wavelengths_per_fiber)
    passing = (_at_count(tx_t, n_req - 1), _at_count(rx_t, n_req - 1),
               _at_count(leak_t, _lines_present(d, lz.lines, n_req) - 1))  # the tables at the design's count
    spectral = (lk.channel_spacing, ring.fsr, s["ring"].through_excess_loss)
    through_tx, through_rx = (_bus_loss_db(t, n_req, *spectral, *rings) for t, rings in zip(passing, (
        (ring.modulator_fwhm, ring.modulator_on_resonance), (ring.fwhm, ring.on_resonance))))
    leak = passing[2] * db_to_lin(lz.flatness)
    xt_db = crosstalk.penalty_db(leak, sig.eye_q, er, sig.eye_scale)
    lit = _laser_lines_in_bus(d, lz.lines, n_req)
    launch = budget.launch_power_dbm(lz.mean_in_bus_dbm, lz.cap_dbm, lit) - lz.flatness
    # the margin in dB, so that a ledger of any size keeps it: the launch through the rings and crosstalk over the
    # need (`budget.power_after_rings_mw` over the need, as the search compares them)
    margin = launch - (through_tx + through_rx) - xt_db - need_dbm
    # the design's own count closes where its margin says (the search's powers may round the other way at 0 dB)
    closes = margin >= 0.0
    if np.any(closes != (count >= n_req)):
        count = np.where(closes, np.maximum(count, n_req), np.minimum(count, n_req - 1))
    passed = {"rings_transmit": as_number(through_tx), "rings_receive": as_number(through_rx)}
    items = tuple(dataclasses.replace(item, value_db=passed[item.key]) if item.key in passed else item
                  for item in unpassed)
    total = total_db(items)
    penalties = _penalty_lines(d, s, sig, ring, pen, xt_db, leak, lz.flatness)
    penalty_db = (0.0 + pen.extinction_db + xt_db + ring.isi_db + ring.modulator_isi_db + pen.rin_db
                  + pen.dispersion_db)
    # the least line power that closes, with the aggregate cap applied (E9 in dB, E10): none where the cap's share
    # of the weakest line leaves no margin however strong the laser
    cap_share = budget.launch_power_dbm(np.inf, lz.cap_dbm, lit) - lz.flatness
    min_line = budget.min_line_power_capped_dbm(rx.sensitivity_dbm, total, penalty_db, lk.system_margin,
                                                source_loss_db=s["laser"].coupling_loss + lz.split_db + lz.flatness,
                                                cap_share_dbm=cap_share)
    return BudgetArrays(ledger=items, penalties=penalties, count=count, through_tx=through_tx, through_rx=through_rx,
                        leakage=leak, crosstalk_db=xt_db, margin=margin, launch_dbm=launch, lit=lit, total_db=total,
                        penalty_db=penalty_db, min_line_dbm=min_line, cap_share_dbm=cap_share,
                        fiber_launch_dbm=_fiber_launch_dbm(d, s, ring, items, launch + lz.flatness, lit, through_tx))


def _bus_loss_db(transmission, count, spacing, fsr, excess, fwhm, t0):
    """The worst wavelength's loss in dB through a bus of `count` rings, from its transmission (a count table's
    entry); where that leaves a float's range (below its smallest normal number: thousands of dB), from the sum of
    each ring's loss in dB (`microring.bus_through_loss_by_count`) at those points, `table_elements` at a time."""
    loss = 0.0 - lin_to_db(transmission)
    lost = np.asarray(transmission) < np.finfo(float).tiny
    if not np.any(lost):
        return loss
    inputs = (count, spacing, fwhm, t0, excess, fsr)
    if not np.ndim(loss):
        n = int(count)
        return microring.bus_through_loss_by_count(n, *(float(v) for v in inputs[1:]))[..., n - 1]
    loss = np.array(np.broadcast_to(loss, np.broadcast_shapes(np.shape(loss), *(np.shape(v) for v in inputs))))
    index = np.nonzero(np.broadcast_to(lost, loss.shape))
    n, *rest = (_at_points(v, index) for v in inputs)
    width = int(np.max(n))
    step = max(1, speed_knobs.KNOBS.table_elements // width)
    found = np.concatenate([_at_count(microring.bus_through_loss_by_count(width, *(v[k:k + step] if np.ndim(v) else v
                                                                                   for v in rest)),
                                      (n[k:k + step] if np.ndim(n) else n) - 1)
                            for k in range(0, len(index[0]), step)])
    loss[index] = found
    return loss


def _penalty_lines(d: LinkDesign, s: dict, sig, ring: RingArrays, pen: PenaltyArrays, xt_db, leak,
                   flatness_db=0.0) -> tuple:
    """The penalties as ledger lines, in order: extinction ratio, crosstalk, filter ISI, modulator ISI, RIN,
    dispersion (details for one point only). `leak`: ΣX relative to the weakest line, E6's sum over aggressors at
    the mean line power, `flatness_db` above it."""
    extinction, rin, dispersion = penalty_lines(d, s, sig, pen)
    one = ndim(xt_db) == 0 and ndim(ring.isi_db) == 0
    n = s["link"].wavelengths_per_fiber
    flat = float(flatness_db) if one and ndim(flatness_db) == 0 else 0.0
    weighted = (f" (E6's sum {float(leak) / db_to_lin(flat):.4f} of aggressors at the mean line power, the victim "
                f"{flat:g} dB below)" if flat else "")
    return (extinction,
            LedgerLine("crosstalk", as_number(xt_db), f"ΣX {float(leak):.4f} at the weakest line{weighted}, {n} "
                       "channels (E6–E7)" if one else "", "crosstalk"),
            LedgerLine("filter ISI", as_number(ring.isi_db), f"Δ = FWHM/symbol rate = "
                       f"{float(ring.filter_to_symbol_rate):.2f}, {d.ring.filter_isi} model (E18)" if one else "",
                       "filter_isi"),
            LedgerLine("modulator ISI", as_number(ring.modulator_isi_db), f"Δ = modulator FWHM/symbol rate = "
                       f"{float(ring.modulator_to_symbol_rate):.2f}: its photon lifetime, a single-pole field "
                       "filter, eye model (E18e)" if one else "", "modulator_isi"),
            rin, dispersion)


def _fiber_launch_dbm(d: LinkDesign, s: dict, ring: RingArrays, items, mean_line_dbm, lit, data_through_db):
    """Total power entering one fiber (eye safety): the N data lines, and with all-pass modulators the unused CW comb
    lines too, each passing the N modulators at its own detuning but no modulator of its own."""
    n = _f(s["link"].wavelengths_per_fiber)
    tx_db = transmit_loss_db(items)
    total_w = n * dbm_to_w(mean_line_dbm - tx_db)
    if d.modulator.kind != "all-pass" or not np.any(np.asarray(lit) > n):
        return w_to_dbm(total_w)
    mod = s["modulator"]
    base_db = tx_db - mod.insertion_loss - modulator.ook_penalty_db(db_to_lin(mod.extinction_ratio)) - data_through_db

    def unused_lines_w(n_, lit_, spacing_, fsr_, fwhm_, t0_, excess_, line_dbm):
        n_, lit_ = int(n_), int(lit_)
        if lit_ <= n_:
            return 0.0
        offsets = np.arange(n_, lit_)[:, None] - np.arange(n_)[None, :]
        passing = microring.through_loss_db(wrapped_detuning_hz(offsets * spacing_, fsr_), fwhm_, t0_,
                                            excess_).sum(axis=1)
        return float(np.sum(dbm_to_w(line_dbm - passing)))

    unused = elementwise(unused_lines_w, n, lit, s["link"].channel_spacing, ring.fsr, ring.modulator_fwhm,
                         ring.modulator_on_resonance, s["ring"].through_excess_loss, mean_line_dbm - base_db)
    return w_to_dbm(total_w + unused)


# --- capacity ------------------------------------------------------------------------------------------------------
WAVELENGTH_LIMITS = ("fsr_channels", "laser_lines", "power_budget")
LIMITS = (*WAVELENGTH_LIMITS, "package_escape")


@record(slots=False)
class CapacityArrays:
    """The capacity: each limit's wavelength count, the one that binds, the wavelengths and fibers used."""

    escape: object  # fibers per direction the package escapes
    payload: object  # bit/s per wavelength after the FEC overhead
    counts: tuple  # FSR channels, laser lines, budget count
    requested: object  # wavelengths per fiber
    fibers: object  # fibers per direction
    max_wavelengths: object  # min(FSR channels, laser lines, budget count)
    capacity: object
    wavelengths_used: object
    fibers_used: object
    binding: Labels  # names, '+'-joined; 'requested' when none binds

    def _limits_for(self, n_rate, n_fibers, n_escape) -> dict:
        fsr_n, lines, budget_n = self.counts
        payload = self.payload
        return {"fsr_channels": fsr_n * payload * n_fibers, "laser_lines": lines * payload * n_fibers,
                "power_budget": budget_n * payload * n_fibers,
                "package_escape": n_rate * payload * n_escape}

    @functools.cached_property
    def limits(self) -> dict:
        """Every limit's capacity at the design's own counts, and 'requested' (computed when read: a grid's
        columns do not need it)."""
        return {**self._limits_for(self.requested, self.fibers, self.escape),
                "requested": self.requested * self.payload * self.fibers}

    @functools.cached_property
    def lifted_limits(self) -> dict:
        """Every limit's capacity with the design's own wavelength and fiber counts lifted: a wavelength limit at
        the package's fibers, the package at the most wavelengths the limits allow. The smallest is `max_capacity`,
        and the limits `max_binding` names are the ones at it."""
        return self._limits_for(self.max_wavelengths, self.escape, self.escape)

    @functools.cached_property
    def max_capacity(self):
        """The capacity with the design's own wavelength and fiber counts lifted."""
        return self.max_wavelengths * self.payload * self.escape

    @functools.cached_property
    def max_binding(self) -> Labels:
        """The limits that bind the lifted capacity (`binding_labels` with no count requested): the tightest
        wavelength limit (the first on ties) and the package, whose fibers the lifted capacity takes (where it
        carries anything: with no wavelength, no fiber count binds)."""
        return binding_labels(self.counts, np.inf, self.escape, np.where(self.max_wavelengths > 0, np.inf, 0))


def binding_labels(counts, requested, escape, fibers) -> Labels:
    """The limits that bind a capacity of min(FSR channels, laser lines, budget count, `requested`) wavelengths per
    fiber on min(`fibers`, `escape`) fibers: the tightest wavelength limit (the first on ties) where it is below the
    requested count, the package where it escapes fewer fibers than asked for; 'requested' where none does. The
    capacity at the design's counts and the lifted one (nothing requested: np.inf) name their limits by it."""
    fsr_n, lines, budget_n = counts
    below = np.minimum(np.minimum(fsr_n, lines), budget_n) < requested
    fsr_first = (fsr_n <= lines) & (fsr_n <= budget_n)  # the tightest wavelength limit, the first on ties
    lines_first = ~fsr_first & (lines <= budget_n)
    flags = [below & fsr_first, below & lines_first, below & ~fsr_first & ~lines_first, escape < fibers]
    return Labels.of(flags, LIMITS, "+", none="requested")


def capacity_stage(d: LinkDesign, s: dict, ring: RingArrays, lz: LaserArrays, sig: SignalArrays,
                   power: BudgetArrays) -> CapacityArrays:
    """Every limit on the wavelength count and the fibers; the capacity they allow (payload after the FEC overhead)
    and the limit(s) that bind: the tightest wavelength limit (first on ties) if below the requested count, then the
    package. The rings' linewidths are no cut-off: their ISI is in the budget (filter and modulator ISI), which
    closes or not."""
    lk, pk = s["link"], s["package"]
    escape = packaging.escape_fibers_per_direction(pk.chiplets, pk.chiplet_fiber_edge, pk.fiber_pitch,
                                                   packaging.package_perimeter_m(pk.width, pk.height)).astype(int)
    payload = _f(lk.data_rate) * (1.0 / (1.0 + sig.overhead))
    fibers, n_req = _f(lk.fibers_per_direction), _f(lk.wavelengths_per_fiber)
    rate_run = payload
    counts = (ring.fsr_channels, lz.lines, power.count)
    fsr_n, lines, budget_n = counts
    n_phys = np.minimum(np.minimum(fsr_n, lines), budget_n)
    used = np.minimum(n_phys, n_req)
    capacity = used * rate_run * np.minimum(fibers, escape)
    binding = binding_labels(counts, n_req, escape, fibers)
    return CapacityArrays(
        escape=escape, payload=payload, counts=counts, requested=n_req,
        fibers=fibers, max_wavelengths=n_phys, capacity=capacity,
        wavelengths_used=np.where(capacity > 0, used, 0), fibers_used=np.minimum(fibers, escape), binding=binding)


# --- tuning and ring yield -----------------------------------------------------------------------------------------
@record(slots=False)
class TuningArrays:
    """Tuning the rings in use: the shift each must make, heater reach and power, lock probability, yield."""

    per_kelvin: object  # resonance shift per kelvin (E12 or given)
    efficiency: object  # Hz per W of heater power
    rings_used: object
    heater_reach: object  # the largest shift the heater driver supplies
    shift: object  # largest shift one ring of the designed grid must make
    operating: object  # the shift it holds at the operating temperature
    power_w: object
    temperature_hz: object  # the heater range the temperature swing takes (full-thermal)
    available: object  # one-way range left for the variation (full-thermal, athermal)
    sigma: object
    lock_probability: object  # one ring, its die offset unknown (None with nearest-channel tuning)
    io_yield: object  # every ring in use, on its die (None with nearest-channel tuning)


def tuning_stage(d: LinkDesign, s: dict, ring: RingArrays, cap: CapacityArrays) -> TuningArrays:
    """Heater power for the rings the capacity uses (a modulator and a filter per wavelength per fiber), each heated
    through the worst-case shift of the designed grid under the strategy (E11, E11b), and for full-thermal and
    athermal-untrimmed tuning the probability that every ring in use locks under fabrication variation, the rings of
    one chiplet sharing its die offset (F46) or each on its own (E33). Athermal rings with trim (DSENT's
    AthermalWithTrim, E83) are neither heated nor at risk of not locking: their power is the trim's alone (E85)."""
    lk, r, tn = s["link"], s["ring"], s["tuning"]
    per_kelvin = shift_per_kelvin_hz(d, r, ring.f0)
    eta = microring.heater_efficiency_hz_per_w(per_kelvin, tn.heating_efficiency)
    rings_used = 2 * cap.fibers_used * cap.wavelengths_used
    reach = _f(tn.max_heater_power) * eta
    temperature_hz = available = sigma = p_lock = io_yield = None
    strategy = d.tuning.model  # an old strategy name read as its new one
    if strategy == "athermal-with-trim":
        shift = operating = 0.0 * rings_used  # no heater shift: the offsets are trimmed
        return TuningArrays(per_kelvin=per_kelvin, efficiency=eta, rings_used=rings_used, heater_reach=reach,
                            shift=shift, operating=operating,
                            power_w=microring.athermal_trim_power_w(rings_used, tn.trim_power), temperature_hz=0.0,
                            available=None, sigma=None, lock_probability=None, io_yield=None)
    if strategy == "nearest-channel":
        shift = operating = microring.nearest_channel_shift_hz(ring.fsr, lk.wavelengths_per_fiber, lk.channel_spacing)
    else:
        if strategy == "full-thermal":
            operating = microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min,
                                                        tn.t_max, tn.temperature)
            shift = microring.full_thermal_shift_hz(tn.sigma_local, tn.sigma_system, per_kelvin, tn.t_min, tn.t_max,
                                                    tn.t_min)
            temperature_hz = (_f(tn.t_max) - tn.t_min) * per_kelvin
        else:
            operating = shift = microring.athermal_shift_hz(tn.sigma_local, tn.sigma_system)
            temperature_hz = 0.0
        sigma = variation.combined_sigma(tn.sigma_local, tn.sigma_system)
        available = np.maximum(reach - temperature_hz, 0.0)
        p_lock = elementwise(lambda a, sg: variation.lock_probability(a, 0.5 * a, sg), available, sigma)
        io_yield = variation.gpu_yield(d.tuning.variation_model, available, tn.sigma_local, tn.sigma_system,
                                       rings_used, s["package"].chiplets)
    return TuningArrays(per_kelvin=per_kelvin, efficiency=eta, rings_used=rings_used, heater_reach=reach, shift=shift,
                        operating=operating, power_w=microring.heater_power_w(rings_used, operating, eta),
                        temperature_hz=temperature_hz, available=available, sigma=sigma, lock_probability=p_lock,
                        io_yield=io_yield)


# --- optical power -------------------------------------------------------------------------------------------------
def optical_power_stage(d: LinkDesign, s: dict, lz: LaserArrays, cap: CapacityArrays, tune: TuningArrays) -> dict:
    """Laser wall-plug power for the lines lit (a comb all its lines, a DFB array the wavelengths used) at the output
    the design sets — what the aggregate cap (E10) keeps out of the waveguide is made all the same, and lost —,
    modulator and receiver energy at the capacity, heater power (W)."""
    laser_s = s["laser"]
    sources = np.ceil(cap.fibers_used / _f(laser_s.fibers_per_source))
    emitted_line_w = dbm_to_w(lz.line_dbm)
    lit = laser.lit_lines(d.laser.kind, lz.lines, cap.wavelengths_used)
    return {"laser": laser.electrical_power_w(sources * lit * emitted_line_w, laser_s.wall_plug_efficiency),
            "modulator": _carried(modulator_energy_j_per_bit(d, s), cap.capacity),
            "receiver": _carried(receiver_energy_j_per_bit(d, s), cap.capacity), "tuning": tune.power_w}


def _carried(energy_j_per_bit, capacity):
    """Power of a part that spends `energy_j_per_bit` on the capacity carried (none where nothing is carried, even
    where the energy is infinite)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.asarray(capacity) > 0, energy_j_per_bit * capacity, 0.0)


def modulator_energy_j_per_bit(d: LinkDesign, s: dict):
    """The modulator and its driver per bit: the design's figure ('given'), or from the circuit ('circuit',
    photonics.driver_energy: the swing the ER and IL need, a driver sized for the symbol rate at the node)."""
    mod = s["modulator"]
    if d.modulator.energy_model == "given":
        return _f(mod.energy)
    return circuit_driver(d, s).energy_j_per_bit


def receiver_energy_j_per_bit(d: LinkDesign, s: dict):
    """The receiver per bit: the design's figure ('given'), or from its circuits ('circuit': front end, sampler,
    the serialiser and deserialiser, clocking at the lane's rate; photonics.receiver_energy)."""
    rx = s["receiver"]
    if d.receiver.energy_model == "given":
        return _f(rx.energy)
    return circuit_receiver(d, s).total


def circuit_receiver(d: LinkDesign, s: dict):
    """The receive path's parts per bit (elementwise over a grid), at the line rate of one wavelength."""
    from photonics import driver_energy as de
    from photonics import receiver_energy as re_

    rx = s["receiver"]
    return re_.receiver_energy(s["link"].data_rate, de.NODES[d.receiver.node], front_end=d.receiver.front_end,
                               reference_energy=rx.tia_energy, reference_rate=rx.tia_reference_rate,
                               exponent=rx.tia_rate_exponent, core_clock=rx.core_clock, clock_power=rx.clock_power,
                               levels=modulation.LEVELS[d.link.modulation])


def circuit_driver(d: LinkDesign, s: dict):
    """The DSENT-class driver of the design's ring modulators (elementwise over a grid): NRZ, one bit a symbol."""
    from photonics import driver_energy as de

    if d.link.modulation != "nrz":
        raise InputError(f"[modulator] energy_model = 'circuit' is DSENT's NRZ driver; [link] modulation = "
                         f"'{d.link.modulation}': give the driver's energy ([modulator] energy_model = 'given')")
    mod, ring, node = s["modulator"], s["ring"], de.NODES[d.modulator.node]
    gamma, reachable = de.shift_needed(mod.insertion_loss, mod.extinction_ratio, mod.notch_transmission)
    junction = de.Junction(n_f=mod.index_per_carrier, confinement=mod.confinement,
                           junction_fraction=mod.junction_fraction, height=mod.junction_height,
                           width=mod.junction_width, doping_p=mod.doping_p, doping_n=mod.doping_n)
    gamma = np.where(reachable, gamma, 0.0)
    if d.modulator.swing_model == "depletion":
        v_a, c_eff, fits = de.depletion_swing(gamma, mod.q, ring.radius, ring.group_index, junction, node.temperature)
    else:
        v_a = de.linear_swing(gamma, mod.q, s["link"].wavelength, mod.shift_per_volt)
        c_eff, fits = de.junction_figures(ring.radius, junction, node.temperature)[2] + 0.0 * v_a, True
    return de.driver_energy(v_a, c_eff, s["link"].data_rate, node, mod.supply_boost, mod.parasitic_resistance,
                            mod.parasitic_capacitance, feasible=reachable & fits)


def optical_energy_j_per_bit(parts: dict, capacity):
    """Optical energy per bit, Σ part / capacity (NaN at zero capacity: undefined)."""
    carried = capacity > 0
    per_bit = np.where(carried, capacity, 1.0)
    energy = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        for part in parts.values():
            energy = energy + part / per_bit
    return np.where(carried, energy, np.nan)


# --- the whole link ------------------------------------------------------------------------------------------------
@record(slots=False)
class RingWdm:
    """Every stage of the ring-wdm link for a point (floats and 0-d arrays) or a grid (arrays)."""

    design: LinkDesign
    sections: dict
    signal: SignalArrays
    receiver: ReceiverArrays
    penalties: PenaltyArrays
    ring: RingArrays
    laser: LaserArrays
    budget: BudgetArrays
    capacity: CapacityArrays
    tuning: TuningArrays
    optical_power: dict
    energy_j_per_bit: object
    fallback: object  # grid points `evaluate` refuses (input errors there)


def ring_arrays(d: LinkDesign, varied: dict | None = None, grid_points: int = 1) -> RingWdm:
    """The ring-wdm link of `d` (resolved: spectral fields in Hz), with the arrays of `varied` ({section: {key:
    array}}, SI, broadcasting to a grid of `grid_points`) in place of the design's numbers. TooLarge when a grid's
    count tables would pass `table_elements` (core.speed_knobs)."""
    from photonics.resolve import MMF_BAND_M, SILICON_MIN_WAVELENGTH_M, SMF_BAND_M

    s = sections(d, varied)
    sig = signal_arrays(d, s["link"])
    rx = receiver_arrays(d, s, sig)
    pen = penalty_arrays(d, s, sig, rx)
    er = db_to_lin(s["modulator"].extinction_ratio)
    ring = ring_stage(d, s, sig)
    lz = laser_stage(d, s)
    power = budget_stage(d, s, ring, lz, sig, rx, pen, er, grid_points)
    cap = capacity_stage(d, s, ring, lz, sig, power)
    tune = tuning_stage(d, s, ring, cap)
    parts = optical_power_stage(d, s, lz, cap, tune)
    wavelength = _f(s["link"].wavelength, dtype=float)
    band = SMF_BAND_M if d.fiber.type == "smf" else MMF_BAND_M
    fallback = ((rx.sensitivity_w < rx.quantum_limit_w) | (wavelength < SILICON_MIN_WAVELENGTH_M)
                | (wavelength < band[0]) | (wavelength > band[1]) | (_f(s["tuning"].t_min) >= _f(s["tuning"].t_max)))
    return RingWdm(design=d, sections=s, signal=sig, receiver=rx, penalties=pen, ring=ring, laser=lz, budget=power,
                   capacity=cap, tuning=tune, optical_power=parts,
                   energy_j_per_bit=optical_energy_j_per_bit(parts, cap.capacity), fallback=fallback)


# --- passing an intermediate GPU (SiP-Ring) ------------------------------------------------------------------------
def pass_through_rings_db(count, spacing, fsr, rings, excess):
    """Through loss of the worst wavelength passing one intermediate GPU's rings of its fiber: the N−1 modulators and
    N−1 drop filters of the other channels at their own detunings (E19–E20), and the GPU's own modulator and filter
    for this channel, parked half a spacing away. `count`: N; `rings`: the (FWHM, on-resonance t0) of the modulator
    and of the drop filter. Floats for one point, arrays over a grid of them."""
    n = _f(count)
    detuning = offset_detuning_hz(int(np.max(n)), spacing, fsr,
                                  max(np.ndim(v) for v in (count, excess, *(x for ring in rings for x in ring))))
    parked = wrapped_detuning_hz(PARKED_DETUNING_SPACINGS * _f(spacing, dtype=float), fsr)
    per_offset = sum(microring.through_loss_db(detuning, fwhm, t0, excess) for fwhm, t0 in rings)
    own = sum(microring.through_loss_db(parked, fwhm, t0, excess) for fwhm, t0 in rings)
    return _at_count(worst_victim_sum_by_count(per_offset), n - 1) + own
