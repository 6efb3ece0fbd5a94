"""A design checked across its sections and put in the units the kernels use, before it is evaluated.

Field declarations check each value on its own; the rules here need several sections at once (a laser kind the
link kind cannot use, a fiber outside its band, a receiver model that cannot detect the modulation) or the link's
centre wavelength (spacings and tuning efficiencies written in nm, variations in nm). Each failure is one
InputError naming the section and key.
"""

from __future__ import annotations

from dataclasses import replace

from core.errors import InputError
from core.fields import specs
from core.units import format_si
from photonics.link_design import CW_LASER_KINDS, LinkDesign
from photonics.modulation import LEVELS
from photonics.fieldspecs import WavelengthSpan, to_hz

SILICON_MIN_WAVELENGTH_M = 1.2e-6  # silicon absorbs below ~1.1 µm: ring-wdm links run at 1.2 µm and above
SMF_BAND_M = (1.26e-6, 1.675e-6)  # G.652 cable cut-off ≤ 1260 nm (ITU-T G.652) to the end of the U-band [restated]
# multimode fiber carries 770–860 nm (1000BASE-SX), 840–953 nm (OM5 SWDM) and the 1300 nm window (100BASE-FX
# 1270–1380 nm, 1000BASE-LX and 10GBASE-LRM 1260–1355 nm on MMF; IEEE 802.3 Clauses 26, 38, 68) [restated]
MMF_BAND_M = (0.77e-6, 1.38e-6)


def _in_hz(section, key: str, wavelength_m: float) -> float:
    """A spectral field in Hz (or Hz/K), checked against its declared bounds once converted."""
    value = getattr(section, key)
    hz = to_hz(value, wavelength_m)
    if isinstance(value, WavelengthSpan):
        spec = specs(type(section))[key]
        try:
            spec.check(hz)
        except InputError:
            raise InputError(f"{key} = {spec.show(value)} is {format_si(hz, spec.unit.split('|')[0].strip())} at "
                             f"{format_si(wavelength_m, 'm')}, out of range: expected {spec.range_text()}") from None
    return hz


def _check_kinds(d: LinkDesign) -> None:
    lk, lz, fb = d.link, d.laser, d.fiber
    if lk.kind == "ring-wdm" and lz.kind not in CW_LASER_KINDS:
        raise InputError(f"[laser] kind = '{lz.kind}' is directly modulated: a ring-wdm link modulates CW lines with "
                         "its rings, so it needs kind 'comb' or 'dfb' (a directly modulated source needs [link] kind = "
                         "'point-to-point')")
    if lk.kind == "point-to-point" and lz.kind == "comb":
        raise InputError("[laser] kind = 'comb' feeds many wavelengths through rings: a point-to-point link carries "
                         "one modulated source per fiber, 'dfb' (with an external modulator), 'dml' or 'vcsel'")
    if lk.kind == "ring-wdm" and lk.wavelength < SILICON_MIN_WAVELENGTH_M:
        raise InputError(f"[link] wavelength = {format_si(lk.wavelength, 'm')}: silicon rings absorb below 1.1 µm; a "
                         "ring-wdm link needs ≥ 1.2 µm")
    if lk.kind == "ring-wdm" and fb.dispersion_model == "gaussian-channel":
        raise InputError("[fiber] dispersion_model = 'gaussian-channel' counts dispersion in a point-to-point "
                         "channel's ISI; a ring-wdm link has none: use 'chirped-gaussian' (or another model)")
    band = SMF_BAND_M if fb.type == "smf" else MMF_BAND_M
    if not band[0] <= lk.wavelength <= band[1]:
        what = ("single-mode fiber is single-mode above its 1260 nm cut-off" if fb.type == "smf" else
                "multimode fiber is rated from the 850 nm window (770–953 nm) to the 1300 nm window (to 1380 nm)")
        raise InputError(f"[fiber] type = '{fb.type}' at [link] wavelength = {format_si(lk.wavelength, 'm')}: {what}; "
                         f"expected {format_si(band[0], 'm')} to {format_si(band[1], 'm')}")
    if lk.modulation != "nrz" and d.receiver.model == "ge-photodiode":
        raise InputError(f"[receiver] model = 'ge-photodiode' is a fit to NRZ receivers (E16) and cannot detect "
                         f"[link] modulation = '{lk.modulation}': use 'thermal-noise' or 'given'")
    _check_front_end(d)


def _check_front_end(d: LinkDesign) -> None:
    """An integrating front end senses with its own circuit (E70–E72), not a TIA's fit or noise: its sensitivity
    model and its energy model name the same receiver; NRZ only (one sampler a bit, as DSENT's)."""
    integrating = (d.link.kind == "ring-wdm" and d.receiver.energy_model == "circuit"
                   and d.receiver.front_end == "integrating")
    if d.receiver.model == "integrating" and not integrating:
        raise InputError("[receiver] model = 'integrating' is the sensitivity of DSENT's integrating front end: it "
                         "needs energy_model = 'circuit' and front_end = 'integrating' on a ring-wdm link")
    if integrating and d.receiver.model in ("ge-photodiode", "thermal-noise"):
        raise InputError(f"[receiver] front_end = 'integrating' senses with its own circuit, not a TIA: model = "
                         f"'{d.receiver.model}' is a TIA receiver's sensitivity; set model = 'integrating' (E70–E72) "
                         "or give the sensitivity (model = 'given')")
    levels = LEVELS[d.link.modulation]
    if d.receiver.model == "integrating" and levels != 2:
        raise InputError(f"[receiver] model = 'integrating' is DSENT's NRZ sense amplifier; [link] modulation = "
                         f"'{d.link.modulation}' needs {levels - 1} slicers a symbol: use a TIA front end")


def resolve(d: LinkDesign) -> LinkDesign:
    """The design with every spectral interval in Hz (Hz/K), after the cross-section rules (InputError otherwise)."""
    tn = d.tuning
    if tn.t_min >= tn.t_max:
        raise InputError(f"[tuning] t_min ({tn.t_min:g} K) must be below t_max ({tn.t_max:g} K)")
    _check_kinds(d)
    lam = d.link.wavelength
    link = _spectral_in_hz(d.link, "link", ("channel_spacing",), lam)
    ring = _spectral_in_hz(d.ring, "ring", ("tuning_efficiency",), lam)
    tuning = _spectral_in_hz(tn, "tuning", ("sigma_local", "sigma_system"), lam)
    if link is d.link and ring is d.ring and tuning is tn:
        return d  # already in Hz: nothing to rebuild (and revalidate)
    return replace(d, link=link, ring=ring, tuning=tuning)


def _spectral_in_hz(section, name: str, keys, wavelength_m: float):
    if not any(isinstance(getattr(section, key), WavelengthSpan) for key in keys):
        return section
    try:
        return replace(section, **{key: _in_hz(section, key, wavelength_m) for key in keys})
    except InputError as exc:
        raise InputError(f"[{name}] {exc}") from None
