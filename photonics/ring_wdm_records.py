"""The records of one ring-wdm design point (`photonics.link_records`), read from the stage arrays of
`photonics.ring_wdm.ring_arrays` at that point: the ring figures, the budget, every capacity limit, tuning and ring
yield, packaging, and the warnings for models used outside their range.
"""

from __future__ import annotations

import math

import numpy as np

from photonics import filtering, microring, packaging, variation
from photonics.link_records import (BudgetFigures, CapacityFigures, PackageFigures, RingFigures, RingYield,
                               TuningFigures)
from photonics.ring_wdm import (BEND_FIT_MIN_RADIUS_M, LIMITS, MAX_SEARCH_WAVELENGTHS, WAVELENGTH_LIMITS, RingWdm,
                                bend_fit_loss_db_per_m)


def ring_figures(a: RingWdm) -> RingFigures:
    ring, lk, r = a.ring, a.sections["link"], a.sections["ring"]
    length = microring.circumference_m(r.radius)
    return RingFigures(
        fsr_hz=float(ring.fsr), fsr_m=float(microring.fsr_wavelength_m(lk.wavelength, r.group_index, length)),
        filter_fwhm_hz=float(ring.fwhm), modulator_fwhm_hz=float(ring.modulator_fwhm),
        finesse=float(microring.finesse(ring.fsr, ring.fwhm)), intrinsic_q=float(ring.intrinsic_q),
        drop_loss_db=float(ring.drop_db), filter_on_resonance=float(ring.on_resonance),
        modulator_on_resonance=float(ring.modulator_on_resonance),
        through_loss_db=float(microring.through_loss_db(lk.channel_spacing, ring.fwhm, ring.on_resonance,
                                                        r.through_excess_loss)),
        modulator_drop_loss_db=float(ring.modulator_drop_db), modulator_max_rate_bps=float(ring.modulator_max_rate),
        filter_max_rate_bps=float(ring.filter_max_rate), filter_to_symbol_rate=float(ring.filter_to_symbol_rate))


def budget_figures(a: RingWdm) -> BudgetFigures:
    b, lz, laser_s = a.budget, a.laser, a.sections["laser"]
    launch = float(b.launch_dbm)
    return BudgetFigures(
        ledger=b.ledger, penalties=b.penalties, laser_line_dbm=float(lz.line_dbm), launch_dbm=launch,
        aggregate_cap_binds=bool(lz.mean_in_bus_dbm > lz.cap_dbm - 10.0 * np.log10(b.lit)),
        received_dbm=launch - float(b.total_db), margin_db=float(b.margin), power_budget_count=int(b.count),
        fiber_launch_dbm=float(b.fiber_launch_dbm), crosstalk_leakage=float(b.leakage),
        source_to_launch_db=float(laser_s.coupling_loss + lz.split_db + lz.flatness),
        cap_share_dbm=float(b.cap_share_dbm), lines_in_bus=int(b.lit), min_line_dbm=float(b.min_line_dbm))


def capacity_figures(a: RingWdm) -> CapacityFigures:
    c, n_req = a.capacity, a.sections["link"].wavelengths_per_fiber
    counts = dict(zip(WAVELENGTH_LIMITS, (int(a.ring.fsr_channels), int(a.laser.lines), int(a.budget.count))))
    return CapacityFigures(
        wavelength_limits={**counts, "requested": n_req},
        limits_bps={k: float(c.limits[k]) for k in (*LIMITS, "requested")}, capacity_bps=float(c.capacity),
        binding_limit=str(c.binding), max_capacity_bps=float(c.max_capacity), max_binding_limit=str(c.max_binding),
        lifted_limits_bps={k: float(v) for k, v in c.lifted_limits.items()},
        max_wavelengths_per_fiber=int(c.max_wavelengths), wavelengths_used=int(c.wavelengths_used),
        fibers_used=int(c.fibers_used))


def tuning_figures(a: RingWdm) -> TuningFigures:
    t, tn = a.tuning, a.sections["tuning"]
    ring_yield = None
    if t.io_yield is not None:
        rings = int(t.rings_used)
        needed = variation.gpu_range_for_yield(a.design.tuning.variation_model, tn.sigma_local, tn.sigma_system,
                                               tn.target_yield, rings, a.sections["package"].chiplets)
        at_operating = needed + (tn.t_max - tn.temperature) * float(t.per_kelvin) if t.temperature_hz else needed
        ring_yield = RingYield(sigma_hz=float(t.sigma), rings=rings, range_hz=float(t.available),
                               lock_probability=float(t.lock_probability), io_yield=float(t.io_yield),
                               target_yield=tn.target_yield, range_at_target_hz=needed,
                               power_at_target_w=float(microring.heater_power_w(t.rings_used, at_operating,
                                                                                t.efficiency)))
    return TuningFigures(float(t.power_w), float(t.shift), float(t.heater_reach), ring_yield)


def package_figures(a: RingWdm) -> PackageFigures:
    pk = a.sections["package"]
    return PackageFigures(int(a.capacity.escape), float(packaging.shoreline_density_bps_per_m(
        a.capacity.capacity, pk.chiplets * pk.chiplet_fiber_edge)))


MIN_FINESSE = 10.0  # [assumed] a resonance whose tails reach the next order (FWHM above a tenth of the FSR) is not
# the single Lorentzian E4–E6 describe (microring.py's validity: high-finesse rings)
GAP_WARNING = 1.25  # a bank's nearest-channel heater power over E11's FSR/η above which the gap is said [assumed:
# a quarter more heater power than the grid that fills the FSR is worth a designer's look; the default design's 1.004
# is not]


def warnings(a: RingWdm) -> list[str]:
    """Models used outside their range, and search bounds reached."""
    d, lk, r, ring = a.design, a.sections["link"], a.sections["ring"], a.ring
    out = []
    if d.tuning.strategy != d.tuning.model:
        out.append(f"[tuning] strategy '{d.tuning.strategy}' is read as its new name '{d.tuning.model}' (heaters still "
                   "correct 3σ of fabrication variation); DSENT's athermal rings with trim, no heater, are "
                   "'athermal-with-trim'")
    grid_hz = lk.wavelengths_per_fiber * lk.channel_spacing
    over_e11 = lk.wavelengths_per_fiber * float(a.tuning.shift) / float(ring.fsr)  # a bank's heaters over FSR/η
    if d.tuning.model == "nearest-channel" and ring.fsr > grid_hz and over_e11 > GAP_WARNING:  # a gap in the FSR
        # (an FSR under the grid is fsr_channels' violation)
        matched_radius = float(microring.C / (r.group_index * grid_hz * 2 * math.pi))
        centres_hz = (lk.wavelengths_per_fiber - 1) * lk.channel_spacing
        out.append(f"[tuning] the grid's channels span {centres_hz / 1e12:.2f} THz of a {float(ring.fsr) / 1e12:.2f} "
                   f"THz FSR: nearest-channel tuning may cross the {float(a.tuning.shift) / 1e12:.2f} THz gap between "
                   f"the last channel and the next order of the first, and each ring is heated for it: "
                   f"{over_e11:.2g}× the FSR/η per ring bank of a grid that fills the FSR (E11); a ring of radius "
                   f"{matched_radius * 1e6:.1f} µm (an FSR of {lk.wavelengths_per_fiber} spacings) matches the grid")
    if a.budget.count >= MAX_SEARCH_WAVELENGTHS:
        out.append(f"[link] the power budget closes at least {MAX_SEARCH_WAVELENGTHS} wavelengths per fiber; "
                   "the search stops there")
    fit = float(bend_fit_loss_db_per_m(r))
    if r.radius < BEND_FIT_MIN_RADIUS_M * (1.0 - 1e-12):  # '5 um' reads an ulp below 5e-6 ('5000 nm' does not)
        what = ("the bending-loss fit is extrapolated" if d.ring.loss_model == "bend-fit" else
                "the given propagation loss is not checked against bending loss")
        out.append(f"[ring] radius {r.radius * 1e6:g} µm is below the 5 µm the bending-loss data cover: {what}")
    elif d.ring.loss_model == "given" and r.propagation_loss < fit:
        out.append(f"[ring] the given propagation loss {r.propagation_loss / 100:g} dB/cm is below the bending-loss "
                   f"fit at {r.radius * 1e6:g} µm ({fit / 100:.3g} dB/cm): its intrinsic Q {float(ring.intrinsic_q):.3g} "
                   "is beyond what the bend-loss data allow")
    for which, fwhm in (("drop filter", ring.fwhm), ("modulator", ring.modulator_fwhm)):
        finesse = float(microring.finesse(ring.fsr, fwhm))
        if finesse < MIN_FINESSE:
            out.append(f"[ring] the {which}'s finesse is {finesse:.3g} (FWHM {float(fwhm) / 1e9:.4g} GHz in a "
                       f"{float(ring.fsr) / 1e9:.4g} GHz FSR), below the {MIN_FINESSE:g} the Lorentzian forms "
                       "(E4–E6, one resonance far from the next order) hold for")
    if ring.filter_to_symbol_rate < filtering.MIN_VALID_RATIO:
        out.append(f"[ring] the drop filter's FWHM is {float(ring.filter_to_symbol_rate):.3f} × the symbol rate, "
                   "below the tenth the filter-ISI models (E18) hold for")
    return out
