"""The stages both link kinds share, on arrays: the signal (modulation, FEC, the BER and eye Q the receiver must
reach, E22, E27), the receiver's sensitivity (E16, E17, E22, E24) and the penalties that do not depend on the
wavelength count (extinction ratio E8, RIN E30, chromatic dispersion E28–E29).

Every function takes the design (its choices: kinds, models) and `Fields` views of its sections whose numbers are
floats for a single design point or arrays that broadcast over a grid of them; the same code serves both
(`photonics.link.evaluate` at one point, `photonics.link_grid.evaluate_grid` over a grid).
"""

from __future__ import annotations

import numpy as np

from core.records import record
from core.units import db_to_lin, format_si
from photonics import fec, fiber, microring, modulation, modulator, noise, receiver
from photonics.link_design import LinkDesign
from photonics.loss import LedgerLine, ndim

SECTIONS = ("link", "fiber", "ring", "modulator", "laser", "transmitter", "loss", "receiver", "tuning", "package",
            "interface")


class Fields:
    """A section whose varied keys read from arrays and the others from the design."""

    def __init__(self, section, varied: dict):
        self._section, self._varied = section, varied

    def __getattr__(self, key):
        varied = self.__dict__["_varied"]
        return varied[key] if key in varied else getattr(self.__dict__["_section"], key)


def sections(d: LinkDesign, varied: dict | None = None) -> dict[str, Fields]:
    """Every section of `d` as a Fields view, with the arrays of `varied` ({section: {key: array}}) in place."""
    varied = varied or {}
    return {name: Fields(getattr(d, name), varied.get(name, {})) for name in SECTIONS}


def elementwise(fn, *args):
    """A scalar-only function over the broadcast of its arguments (as small as the axes they depend on)."""
    shaped = np.broadcast_arrays(*(np.asarray(a) for a in args))
    if shaped[0].ndim == 0:
        return np.asarray(float(fn(*(a.item() for a in shaped))))
    return np.vectorize(fn, otypes=[float])(*shaped)


@record(slots=False)
class SignalArrays:
    """The signal a link carries, for a point or a grid: levels, symbol rate, target BER, FEC overhead, eye Q."""

    levels: int
    symbol_rate: object  # baud
    target_ber: object
    overhead: object  # n/k − 1 of the FEC
    eye_q: object

    @property
    def eye_scale(self) -> float:
        """How many times smaller than NRZ's one eye of the format is at equal OMA: M − 1 (E23)."""
        return float(self.levels - 1)


def fec_target(d: LinkDesign, lk):
    """(target BER, overhead) of [link] fec: the link's BER without a code, a given code's fields, or a standard
    code's threshold (or the pre-FEC BER that meets a post-FEC target, F41–F42) and n/k − 1 (E27)."""
    if d.link.fec == "none":
        return np.asarray(lk.ber, dtype=float), 0.0
    if d.link.fec == "given":
        return np.asarray(lk.fec_threshold, dtype=float), np.asarray(lk.fec_overhead, dtype=float)
    code = fec.CODES[d.link.fec]
    if d.link.fec_target == "threshold":
        return np.asarray(code.threshold_ber), fec.overhead(code.n, code.k)
    return elementwise(lambda post, frames: fec.pre_fec_target(code, d.link.fec_target, post, frames),
                       lk.post_fec_ber, lk.frame_error_ratio), fec.overhead(code.n, code.k)


def signal_arrays(d: LinkDesign, lk) -> SignalArrays:
    """Levels, symbol rate (line rate / log2 M), target BER (the FEC threshold when a code runs) and the eye Q the
    receiver needs for it (E22)."""
    levels = modulation.LEVELS[d.link.modulation]
    target_ber, overhead = fec_target(d, lk)
    return SignalArrays(levels=levels, symbol_rate=np.asarray(lk.data_rate) / modulation.bits_per_symbol(levels),
                        target_ber=target_ber, overhead=overhead,
                        eye_q=elementwise(lambda ber: modulation.eye_q_for_ber(levels, ber), target_ber))


def link_extinction_ratio(d: LinkDesign, s: dict):
    """Linear extinction ratio of the signal at the receiver: the ring modulator's, or the transmitter's."""
    section = s["modulator"] if d.link.kind == "ring-wdm" else s["transmitter"]
    return db_to_lin(section.extinction_ratio)


@record(slots=False)
class ReceiverArrays:
    """The receiver's sensitivity at the target BER, the extinction ratio it assumes, the quantum limit."""

    sensitivity_w: object  # average power
    reference_er: object  # linear ER the sensitivity assumes
    quantum_limit_w: object

    @property
    def sensitivity_dbm(self):
        return 10.0 * np.log10(self.sensitivity_w / 1e-3)


def receiver_arrays(d: LinkDesign, s: dict, sig: SignalArrays) -> ReceiverArrays:
    """Average-power sensitivity at the target BER and the extinction ratio it assumes: the Ge-photodiode fit (E16,
    NRZ) or a thermal-noise-limited receiver (PAM-M through E22) at the link's ER, or the given figure (an OMA one
    converted at the link's ER, E24); and the quantum limit (E17) it may not beat."""
    lk, rx = s["link"], s["receiver"]
    er = link_extinction_ratio(d, s)
    if d.receiver.model == "integrating":
        from photonics.driver_energy import NODES

        sens, ref_er = receiver.integrating_sensitivity_w(lk.data_rate, sig.target_ber, er, rx.responsivity,
                                                          NODES[d.receiver.node], rx.integration_time_ratio,
                                                          rx.photodiode_capacitance), er
    elif d.receiver.model == "ge-photodiode":
        sens, ref_er = receiver.ge_photodiode_sensitivity_w(lk.data_rate, er, rx.responsivity, rx.dark_current,
                                                            sig.eye_q), er
    elif d.receiver.model == "thermal-noise":
        sens = elementwise(lambda rate, ber, e, resp, density: receiver.thermal_noise_sensitivity_w(
            rate, ber, e, resp, density, levels=sig.levels), sig.symbol_rate, sig.target_ber, er, rx.responsivity,
            rx.noise_density)
        ref_er = er
    elif d.receiver.sensitivity_type == "oma":
        sens, ref_er = modulation.average_from_oma_w(rx.sensitivity, er), er
    elif d.receiver.sensitivity_extinction == "link":
        sens, ref_er = np.asarray(rx.sensitivity, dtype=float), er
    else:
        sens, ref_er = np.asarray(rx.sensitivity, dtype=float), db_to_lin(rx.reference_extinction_ratio)
    quantum = elementwise(receiver.quantum_limit_w, lk.data_rate, microring.frequency_hz(lk.wavelength),
                          sig.target_ber)
    return ReceiverArrays(np.asarray(sens, dtype=float), np.asarray(ref_er, dtype=float), quantum)


def spectral_width_m(d: LinkDesign, s: dict, symbol_rate):
    """RMS spectral width of the signal: a directly modulated source's own (chirp, modes), else the chirp-free width
    of the modulated CW line (`fiber.transform_limited_rms_width_m`)."""
    if _directly_modulated(d):
        return s["transmitter"].spectral_width
    return fiber.transform_limited_rms_width_m(s["link"].wavelength, symbol_rate)


def dispersion_spread(d: LinkDesign, s: dict, symbol_rate, length_m):
    """ε = B·L·|D|·σ_λ at `length_m` of the design's fiber (E28–E29)."""
    fb = s["fiber"]
    dispersion = fiber.dispersion_s_per_m2(s["link"].wavelength, fb.zero_dispersion_wavelength, fb.dispersion_slope)
    return fiber.spread_product(symbol_rate, length_m, dispersion, spectral_width_m(d, s, symbol_rate))


def _directly_modulated(d: LinkDesign) -> bool:
    return d.link.kind == "point-to-point" and d.laser.kind in ("dml", "vcsel")


def dispersion_broadening(d: LinkDesign, s: dict, symbol_rate, length_m):
    """σ/σ0 of the chirped-Gaussian model (F32) at `length_m`: pulses of RMS width σ0 = T/4 with the source's chirp
    ([transmitter] chirp of a directly modulated source; 0 for a CW line and an external or ring modulator
    [assumed]) and its spectral width beyond what the chirped pulse itself spans, V_ω² = (2σ0·σ_ω)² − (1 + C²)
    floored at 0 (the given width is the modulated source's whole RMS width)."""
    lk, fb = s["link"], s["fiber"]
    dispersion = fiber.dispersion_s_per_m2(lk.wavelength, fb.zero_dispersion_wavelength, fb.dispersion_slope)
    slope = fiber.dispersion_slope_s_per_m3(lk.wavelength, fb.zero_dispersion_wavelength, fb.dispersion_slope)
    sigma0 = 0.25 / np.asarray(symbol_rate, dtype=float)
    chirp, v = 0.0, 0.0
    if _directly_modulated(d):
        chirp = np.asarray(s["transmitter"].chirp if d.laser.kind == "dml" else 0.0, dtype=float)
        sigma_omega = 2.0 * np.pi * fiber.C * s["transmitter"].spectral_width / np.asarray(lk.wavelength) ** 2
        v = np.sqrt(np.maximum((2.0 * sigma0 * sigma_omega) ** 2 - (1.0 + chirp * chirp), 0.0))
    return fiber.chirped_broadening(sigma0, length_m, fiber.beta2_s2_per_m(lk.wavelength, dispersion),
                                    fiber.beta3_s3_per_m(lk.wavelength, dispersion, slope), chirp, v)


def dispersion_penalty_db(d: LinkDesign, s: dict, symbol_rate, length_m):
    """Chromatic-dispersion penalty of the design's model at `length_m` (F32 or E29; 0 with model 'none', and with
    'gaussian-channel', which counts it in a point-to-point channel's ISI)."""
    model = d.fiber.dispersion_model
    if model in ("none", "gaussian-channel"):  # gaussian-channel: counted in the channel's ISI
        return 0.0 * np.asarray(length_m, dtype=float)
    if model == "chirped-gaussian":
        levels = modulation.LEVELS[d.link.modulation]
        return fiber.chirped_gaussian_penalty_db(dispersion_broadening(d, s, symbol_rate, length_m), levels)
    return fiber.DISPERSION_PENALTIES[model](dispersion_spread(d, s, symbol_rate, length_m))


def average_rin_db_per_hz(d: LinkDesign, s: dict):
    """The laser's RIN referred to the average power: as given, or from RIN_OMA at the link's extinction ratio r,
    RIN_avg = RIN_OMA + 20·log10(OMA/P_avg), OMA/P_avg = 2(r − 1)/(r + 1)  (E26)."""
    rin = s["laser"].rin
    if d.laser.rin_type == "average":
        return rin
    er = link_extinction_ratio(d, s)
    return noise.rin_average_from_oma_db(rin, 1.0, modulation.oma_from_average_w(1.0, er))


@record(slots=False)
class PenaltyArrays:
    """The penalties no wavelength count changes: extinction ratio, RIN, chromatic dispersion (dB)."""

    extinction_db: object  # beyond the ER the sensitivity assumes (E8)
    rin_db: object  # laser RIN over the receiver's noise bandwidth (E30)
    noise_bandwidth_hz: object
    dispersion_db: object  # chromatic dispersion at the design's fiber length (E29)


def penalty_arrays(d: LinkDesign, s: dict, sig: SignalArrays, rx: ReceiverArrays) -> PenaltyArrays:
    """The penalties that do not depend on the wavelength count, in ledger order: extinction ratio, RIN,
    dispersion."""
    er = link_extinction_ratio(d, s)
    noise_bw = receiver.NOISE_BANDWIDTH_FRACTION * sig.symbol_rate
    return PenaltyArrays(
        extinction_db=modulator.relative_extinction_penalty_db(er, rx.reference_er),
        rin_db=noise.rin_penalty_db(average_rin_db_per_hz(d, s), noise_bw, sig.eye_q, sig.eye_scale) + 0.0,  # no −0
        noise_bandwidth_hz=noise_bw,
        dispersion_db=dispersion_penalty_db(d, s, sig.symbol_rate, s["loss"].fiber_length))


def _rin_text(d: LinkDesign, s: dict) -> str:
    rin = s["laser"].rin
    if d.laser.rin_type == "average":
        return f"{rin:g} dB/Hz"
    return f"RIN_OMA {rin:g} dB/Hz = {float(average_rin_db_per_hz(d, s)):.4g} dB/Hz of the average (E26)"


def as_number(value):
    """A float for one point (a 0-d value), the array itself over a grid."""
    return float(value) if ndim(value) == 0 else value


def penalty_lines(d: LinkDesign, s: dict, sig: SignalArrays, pen: PenaltyArrays) -> tuple[LedgerLine, ...]:
    """The shared penalties as ledger lines keyed extinction_ratio, rin, dispersion (details for one point only)."""
    one = all(ndim(v) == 0 for v in (pen.extinction_db, pen.rin_db, pen.dispersion_db))
    model = d.fiber.dispersion_model
    if one and model == "chirped-gaussian":
        factor = float(dispersion_broadening(d, s, sig.symbol_rate, s["loss"].fiber_length))
        chirp = float(s["transmitter"].chirp) if d.link.kind == "point-to-point" and d.laser.kind == "dml" else 0.0
        disp = f"σ/σ0 = {factor:.4g} (chirp {chirp:g}), chirped-gaussian model (F32)"
    elif one and model == "gaussian-channel":
        disp = "in the channel ISI (gaussian-channel, F26)"
    elif one and model != "none":
        eps = float(dispersion_spread(d, s, sig.symbol_rate, s["loss"].fiber_length))
        disp = f"ε = B·L·|D|·σ = {eps:.3g}, {model} model (E29)"
    else:
        disp = "not counted ([fiber] dispersion_model = 'none')" if one else ""
    return (LedgerLine("extinction ratio", as_number(pen.extinction_db),
                       "beyond the ER the sensitivity assumes (E8)" if one else "", "extinction_ratio"),
            LedgerLine("RIN", as_number(pen.rin_db), f"{_rin_text(d, s)} over "
                       f"{format_si(float(pen.noise_bandwidth_hz), 'Hz')} (E30)" if one else "", "rin"),
            LedgerLine("dispersion", as_number(pen.dispersion_db), disp, "dispersion"))
