"""Physical properties that must hold for any input (hypothesis)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from photonics import budget, microring
from photonics.link_design import LaserSection, LinkDesign, LinkSection, LossSection, ModulatorSection, RingSection
from photonics.link import evaluate

finite = dict(allow_nan=False, allow_infinity=False)


@given(q_l=st.floats(1e2, 1e6), q_i=st.floats(1e2, 1e7), x=st.floats(-50, 50, **finite))
def test_drop_plus_through_never_exceeds_one(q_l, q_i, x):
    """Energy conservation of a passive ring (Lorentzian forms, symmetric add-drop): D(δ) + T(δ) ≤ 1."""
    drop = microring.drop_lorentzian(x, 1.0, microring.drop_peak_symmetric(q_l, q_i))
    thru = microring.through_lorentzian(x, 1.0, microring.through_on_resonance_symmetric(q_l, q_i))
    assert 0.0 <= drop <= 1.0 and 0.0 <= thru <= 1.0
    assert drop + thru <= 1.0 + 1e-12


@given(a=st.floats(0.5, 1.0), r1=st.floats(0.5, 0.9999), r2=st.floats(0.5, 1.0), phi=st.floats(0, 2 * np.pi))
def test_exact_drop_plus_through_never_exceeds_one(a, r1, r2, phi):
    total = microring.through_exact(phi, a, r1, r2) + microring.drop_exact(phi, a, r1, r2)
    assert total <= 1.0 + 1e-9


@given(a=st.floats(0.5, 0.99999), r1=st.floats(0.5, 0.9999), r2=st.floats(0.5, 0.9999), phi=st.floats(0, 2 * np.pi))
def test_exact_ring_loses_power_when_lossy(a, r1, r2, phi):
    """With a < 1 some power is always absorbed: D + T < 1 strictly."""
    assert microring.through_exact(phi, a, r1, r2) + microring.drop_exact(phi, a, r1, r2) < 1.0


@given(radius=st.floats(1e-6, 100e-6), ng=st.floats(2.0, 5.0), ra=st.floats(0.5, 0.999), lam=st.floats(1.2e-6, 1.7e-6))
def test_finesse_of_the_exact_ring(radius, ng, ra, lam):
    """FSR over the exact FWHM gives the textbook finesse π·√(r·a)/(1 − r·a) (Bogaerts 2012), for any ring."""
    length = microring.circumference_m(radius)
    fsr_m = microring.fsr_wavelength_m(lam, ng, length)
    fwhm_m = microring.fwhm_exact_m(lam, ng, length, ra, 1.0, 1.0)
    assert microring.finesse(fsr_m, fwhm_m) == pytest.approx(np.pi * np.sqrt(ra) / (1 - ra), rel=1e-9)


@given(radius=st.floats(1e-6, 100e-6), ng=st.floats(2.0, 5.0), lam=st.floats(1.2e-6, 1.7e-6))
def test_fsr_in_wavelength_and_frequency_agree(radius, ng, lam):
    fsr = microring.fsr_frequency_hz(ng, microring.circumference_m(radius))
    # the wavelength and frequency FSRs describe the same spacing: FSR_λ = λ²·FSR_f / c
    fsr_m = microring.fsr_wavelength_m(lam, ng, microring.circumference_m(radius))
    assert fsr_m == pytest.approx(lam**2 * fsr / 299792458.0, rel=1e-12)


@given(launch=st.floats(-20, 20), loss=st.floats(0, 40), extra=st.floats(0, 20), pp=st.floats(0, 10),
       sens=st.floats(-40, 0))
def test_more_loss_never_raises_margin_kernel(launch, loss, extra, pp, sens):
    assert budget.margin_db(launch, loss + extra, pp, sens) <= budget.margin_db(launch, loss, pp, sens)


LOSS_FIELDS = ["coupler", "connector_loss", "bend_loss", "switch_loss", "splice_loss", "fiber_length",
               "waveguide_loss", "mux_demux_loss"]


def _with_more_loss(base: LinkDesign, field: str, extra: float) -> LinkDesign:
    """`base` with `extra` more of one loss: a larger per-item loss or length, or an extra named item."""
    scale = {"fiber_length": 1e3, "waveguide_loss": 100.0}.get(field, 1.0)  # km of fiber, dB/cm of waveguide
    if field == "extra_losses":
        return dataclasses.replace(base, loss=dataclasses.replace(base.loss, extra_losses=f"added item: {extra} dB"))
    return dataclasses.replace(base, loss=dataclasses.replace(base.loss, **{field: getattr(base.loss, field)
                                                                                  + extra * scale}))


@settings(max_examples=40, deadline=None)
@given(extra=st.floats(0.0, 5.0), field=st.sampled_from([*LOSS_FIELDS, "extra_losses"]),
       switches=st.integers(0, 3), splices=st.integers(0, 4), wavelength=st.sampled_from([1310e-9, 1550e-9]))
def test_more_loss_never_raises_margin_design(extra, field, switches, splices, wavelength):
    """Margin, wavelength count and fiber reach never rise when a loss is added (dispersion included: more fiber
    also means more spread)."""
    base = LinkDesign(loss=LossSection(switch_ports=switches, splices=splices), link=LinkSection(wavelength=wavelength))
    worse = _with_more_loss(base, field, extra)
    e0, e1 = evaluate(base), evaluate(worse)
    assert e1.margin_db <= e0.margin_db + 1e-12
    assert e1.max_wavelengths_per_fiber <= e0.max_wavelengths_per_fiber
    reach = [e.max_fiber_length_m if e.max_fiber_length_m == e.max_fiber_length_m else -1.0 for e in (e0, e1)]
    assert reach[1] <= reach[0] + 1e-9  # NaN (no reach: the budget fails with no fiber) ranks lowest


designs = st.builds(
    lambda n, fibers, rate_g, spacing_g, lines, mw, fq, mq, mil: LinkDesign(
        link=LinkSection(wavelengths_per_fiber=n, fibers_per_direction=fibers, data_rate=rate_g * 1e9,
                         channel_spacing=spacing_g * 1e9),
        laser=LaserSection(lines=lines, power_per_line=mw * 1e-3),
        ring=RingSection(filter_q=fq), modulator=ModulatorSection(q=mq, insertion_loss=mil)),
    st.integers(1, 40), st.integers(1, 200), st.floats(5, 60), st.floats(25, 400), st.integers(1, 64),
    st.floats(0.1, 20), st.floats(1e3, 3e4), st.floats(1e3, 3e4), st.floats(0, 6))


@settings(max_examples=60, deadline=None)
@given(designs)
def test_capacity_never_exceeds_any_single_limit(d):
    est = evaluate(d)
    assert est.capacity_bps >= 0
    for name, limit in est.limits_bps.items():
        assert est.capacity_bps <= limit * (1 + 1e-12), name
    # the product form: min(wavelength counts) × the rate × min(fibers, escape) (the rings' linewidths are in the
    # budget's count, as ISI, not a cut-off of the rate)
    lk, counts = d.link, est.wavelength_limits
    expected = min(counts.values()) * lk.data_rate * min(lk.fibers_per_direction, est.escape_fibers_per_direction)
    assert est.capacity_bps == pytest.approx(expected, rel=1e-12)
    names = est.binding_limit.split("+")
    assert set(names) <= set(est.limits_bps)
    if names == ["requested"]:
        assert est.capacity_bps == pytest.approx(est.limits_bps["requested"])
    else:
        assert est.capacity_bps < est.limits_bps["requested"]
        assert all(est.limits_bps[name] < est.limits_bps["requested"] for name in names)
    assert est.max_capacity_bps >= est.capacity_bps
    # feasible designs deliver what they ask for, and close their budget
    if est.feasible:
        assert est.capacity_bps == pytest.approx(est.limits_bps["requested"])
        assert est.margin_db >= 0


@settings(max_examples=30, deadline=None)
@given(designs)
def test_power_budget_count_is_consistent_with_margin(d):
    """The design's own count closes exactly when it is within the power-budget count (the margin falls
    monotonically with N: a larger grid holds every victim of a smaller one with more aggressors, more rings
    passed and a lower share of the aggregate power)."""
    est = evaluate(d)
    n = d.link.wavelengths_per_fiber
    assert (est.margin_db >= 0) == (est.wavelength_limits["power_budget"] >= n)


@given(cap=st.floats(0, 30), sens=st.floats(-30, -5), pp=st.floats(0, 10), il=st.floats(0, 20))
def test_closed_form_wavelengths_close_and_one_more_does_not(cap, sens, pp, il):
    n = int(budget.max_wavelengths_closed_form(cap, sens, pp, il))
    if n >= 1:
        assert cap - 10 * np.log10(n) - il - pp - sens >= -1e-9
    assert cap - 10 * np.log10(n + 1) - il - pp - sens < 1e-9


@settings(max_examples=40, deadline=None)
@given(extra=st.floats(0.0, 5.0), field=st.sampled_from(["connector_loss", "splice_loss", "fiber_length",
                                                         "switch_loss", "extra_losses"]),
       kind=st.sampled_from(["dfb", "dml"]), wavelength=st.sampled_from([1310e-9, 1550e-9]),
       model=st.sampled_from(["agrawal", "agrawal-tx", "bellcore", "none"]))
def test_more_loss_never_raises_margin_point_to_point(extra, field, kind, wavelength, model):
    from photonics.link_design import FiberSection, ReceiverSection

    base = LinkDesign(link=LinkSection(kind="point-to-point", wavelength=wavelength, fibers_per_direction=1),
                      laser=LaserSection(kind=kind), fiber=FiberSection(dispersion_model=model),
                      loss=LossSection(splices=2, switch_ports=1),
                      receiver=ReceiverSection(model="given", sensitivity=1e-5))
    e0, e1 = evaluate(base), evaluate(_with_more_loss(base, field, extra))
    assert e1.margin_db <= e0.margin_db + 1e-12
    assert e1.capacity_bps <= e0.capacity_bps


single_wavelength = st.builds(
    lambda rate_g, mw, fq, mil, n_fibers, model: LinkDesign(
        link=LinkSection(wavelengths_per_fiber=1, data_rate=rate_g * 1e9, fibers_per_direction=n_fibers),
        laser=LaserSection(lines=1, power_per_line=mw * 1e-3), modulator=ModulatorSection(insertion_loss=mil),
        ring=RingSection(filter_q=fq, filter_isi=model)),
    st.floats(5, 60), st.floats(0.1, 20), st.floats(1e3, 5e4), st.floats(0, 6), st.integers(1, 20),
    st.sampled_from(["energy", "eye"]))  # the physical models; the lab fit's shallow wiggle is bounded below


@settings(max_examples=40, deadline=None)
@given(single_wavelength, st.floats(1.0, 4.0))
def test_capacity_never_rises_when_the_filter_narrows(d, factor):
    """One wavelength per fiber (no aggressor to reject): a narrower drop filter (higher loaded Q) loses more on
    resonance (E4) and more to its own ISI (E18), so neither the margin nor the capacity can rise."""
    narrower = dataclasses.replace(d, ring=dataclasses.replace(d.ring, filter_q=d.ring.filter_q * factor))
    e0, e1 = evaluate(d), evaluate(narrower)
    assert e1.margin_db <= e0.margin_db + 1e-12
    assert e1.capacity_bps <= e0.capacity_bps


@settings(max_examples=30, deadline=None)
@given(designs, st.floats(1.0, 4.0))
def test_the_filter_limit_never_rises_when_the_filter_narrows(d, factor):
    """With many wavelengths a narrower filter also rejects more crosstalk (E6), so the margin may rise (the
    Bahadori trade-off: the default Q sits near the optimum); its own ISI never improves."""
    narrower = dataclasses.replace(d, ring=dataclasses.replace(d.ring, filter_q=d.ring.filter_q * factor))
    e0, e1 = evaluate(d), evaluate(narrower)
    isi = [next(p.value_db for p in e.penalties if p.name == "filter ISI") for e in (e0, e1)]
    assert isi[1] >= isi[0] - 1e-12


def test_crosstalk_makes_the_filter_trade_off_real():
    """The other side of the trade-off: 8 channels at 200 GHz, the 5 mW default link: Q 4000 → 6500 raises the
    margin (crosstalk falls faster than ISI and drop loss rise), Q 6500 → 10 000 lowers it."""
    m = [evaluate(LinkDesign(ring=RingSection(filter_q=q), laser=LaserSection(power_per_line=5e-3))).margin_db
         for q in (4000, 6500, 10000)]
    assert m[0] < m[1] > m[2]


@given(q=st.floats(1e3, 1e5), factor=st.floats(1.0, 10.0), rate=st.floats(1e9, 100e9))
def test_filter_isi_grows_as_the_filter_narrows(q, factor, rate):
    """E18a and E18b: a narrower filter (smaller Δ = FWHM/R_s) never distorts less."""
    from photonics import filtering

    f0 = 299792458.0 / 1310e-9
    for model in (filtering.energy_penalty_db, filtering.eye_penalty_db):
        wide, narrow = (float(model(f0 / (q * s) / rate)) for s in (1.0, factor))
        assert narrow >= wide - 1e-9


def test_the_lab_fit_is_monotone_but_for_a_shallow_wiggle():
    """E18c is a polynomial fit: it falls to 0.0412 dB at Δ = 2.52, rises to 0.0447 dB at Δ = 2.87 and ends at the
    0.04 dB floor beyond Δ = 3, so it is monotone in Δ only to within 0.004 dB."""
    from photonics import filtering

    values = filtering.lab_fit_penalty_db(np.linspace(0.05, 6.0, 20001))
    assert np.max(np.diff(values)) > 0.0
    assert np.max(np.maximum.accumulate(values[::-1])[::-1] - values) == pytest.approx(0.0447 - 0.0412, abs=2e-4)


@given(n=st.integers(1, 40), spacing=st.floats(25e9, 400e9), q=st.floats(2e3, 3e4))
def test_a_bus_loses_more_with_every_ring_added(n, spacing, q):
    """The worst channel of a bus of n + 1 rings passes every ring the worst of n did, and one more (E20)."""
    f0 = 299792458.0 / 1310e-9
    table = microring.bus_through_loss_by_count(n + 1, spacing, f0 / q, 0.003, 0.01, 4e12)
    assert table[n] >= table[n - 1]
