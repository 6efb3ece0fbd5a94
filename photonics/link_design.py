"""The design point of one GPU's silicon-photonic I/O, section by section, with every default sourced.

Tags follow the project's reference notes: [verbatim] the source states it, [restated] a secondary source
or a conversion, [inferred] computed from a source's formula or a typical value, [assumed] chosen here
with the reason given. Every default is a user-editable field.

Defaults describe SiP-ML's optical interface (Khani et al., SIGCOMM 2021): 25 Gbps per wavelength, a GPU's
80 wavelengths carried as 8 per fiber over 10 transmit fibers (2 ring directions × 5 fibers) = 2 Tbps per
direction; the device numbers come from DSENT, PhoenixSim and the datasheets cited per field. With every sourced
default the 16-line 3 mW comb closes all 8 wavelengths with 0.60 dB to spare (the drop filter's own ISI, E18b,
costs 0.11 dB, the modulator's photon lifetime 0.07 dB, E18e, the comb's RIN 0.13 dB); the built-in designs
(`sipml/designs`) choose the laser power their fabric needs.
A point-to-point link ([link] kind) is described by [transmitter], [fiber], [loss] and [receiver] instead.
"""

from __future__ import annotations

from typing import ClassVar

from core.fields import Composite, Section, all_of, default_part, non_negative, param, positive, when
from core.records import record
from photonics.fieldspecs import LossListSpec, RinSpec, SpectralSpec, declare

_SIPML = "SiP-ML simulator (MLNetwork/rostam), Khani et al. SIGCOMM 2021"
LASER_KINDS = ("comb", "dfb", "dml", "vcsel")
CW_LASER_KINDS = ("comb", "dfb")  # continuous-wave sources a modulator imprints the data on
# Each source type's own RIN, (dB/Hz, what it is referred to), read where [laser] rin = 'source' (the default):
SOURCE_RIN = {
    "comb": (-135.0, "average"),  # QD comb < −135 dB/Hz per mode, Buyalo et al. Sci. Rep. 14, 2024 [verbatim]
    "dfb": (-155.0, "average"),  # DFB lasers −155…−165 dB/Hz, the worse end (RF Essentials; photonics-2.md §6)
    # [restated, secondary]
    "dml": (-136.0, "oma"),  # the IEEE 802.3 single-mode PAM4 transmitters' limit, RIN21.4OMA (400GBASE-DR4) and
    # RIN17.1OMA (400GBASE-FR4) ≤ −136 dB/Hz (Edgecore ET7502-DR4/-FR4 datasheets) [verbatim]; [assumed] a directly
    # modulated DFB, whose relaxation-oscillation peak lifts its RIN above a CW DFB's, is held to it
    "vcsel": (-128.0, "oma"),  # 10GBASE-SR RIN12OMA ≤ −128 dB/Hz (Finisar FTLX8561E2, IEEE 802.3 clause 52)
    # [verbatim]
}


# [tuning] strategy names renamed, old → new: the old name is still read (as the new one) with a warning
TUNING_RENAMED = {"athermal": "athermal-untrimmed"}
TUNING_STRATEGIES = ("nearest-channel", "full-thermal", "athermal-untrimmed", "athermal-with-trim", *TUNING_RENAMED)
_FULL_THERMAL = when("tuning", "strategy", "full-thermal")
# the strategies whose heaters cover the fabrication variation (its sigmas and the lock yield apply)
_THERMAL_OR_ATHERMAL = when("tuning", "strategy", "full-thermal", "athermal-untrimmed", *TUNING_RENAMED)
_TRIMMED = when("tuning", "strategy", "athermal-with-trim")

# Bounds of the design space on counts, so the work a design causes is bounded.
MAX_CHANNELS = 4096  # [inferred] wavelengths, lines, fibers: photonics.link searches wavelength counts up to 4096
MAX_PATH_ELEMENTS = 1000  # [assumed] bends, crossings, connectors, passes: 1000 of any cost ≥ 20 dB (defaults)
MAX_CHIPLETS = 256  # [assumed] far beyond the ~44 chiplets of 5 mm that fit a 55 mm package's edge
# Bounds on values, so every design inside them evaluates in floating point (no overflow, no division by zero).
MAX_DB = 100.0  # [assumed] a loss, gain or margin of 10^10 in power: beyond any link budget
MAX_DB_PER_M = 1e5  # [assumed] 1000 dB/cm, beyond the lossiest waveguide (plasmonic, ~100 dB/cm)
MAX_Q = 1e8  # [assumed] above the record microring Qs (~10^7–10^8)
MIN_EXTINCTION_DB = 0.1  # [assumed] the ER penalty 10·log10((r+1)/(r−1)) grows without bound as ER → 0 dB
MAX_ENERGY_J_PER_BIT = 1e-9  # [assumed] 1000 pJ/bit, 100× the most power-hungry optical links
MAX_POWER_W = 10.0  # [assumed] 40 dBm: beyond any laser line, waveguide or heater on a chip
MAX_FIBER_M = 1e6  # [assumed] 1000 km, far beyond any link inside a data centre
MAX_LATENCY_S = 1.0  # [assumed] a second, beyond any code's or network step's latency
MAX_DISPERSION_SLOPE_S_PER_M3 = 1e4  # [assumed] 10 ps/(nm²·km), 100× standard SMF's 0.092
MAX_MODAL_BANDWIDTH_HZ_M = 1e15  # [assumed] 10^6 MHz·km, 200× OM4's 4700 MHz·km
MAX_TUNING_HZ_PER_K = 1e12  # [assumed] 1 THz/K, 100× a silicon ring's ~10 GHz/K
MAX_BANDWIDTH_HZ = 1e13  # [assumed] 10 THz, beyond any modulator or photodiode
MAX_SPECTRAL_WIDTH_M = 1e-7  # [assumed] 100 nm, beyond the widest multimode VCSEL spectrum (~1 nm)
MAX_TEMPERATURE_K = 1000.0  # [assumed] the tuning model's temperatures, far beyond a chip's operating range

_RING_WDM = when("link", "kind", "ring-wdm")
_COMPUTED_EYE = when("transmitter", "eye_closure", "model")  # the channel's own penalties, not a measured TDECQ
_POINT_TO_POINT = when("link", "kind", "point-to-point")

LINK_KINDS = ("ring-wdm", "point-to-point")
FEC_CHOICES = ("none", "kr4", "kp4", "given")


@record(kw_only=True)
class LinkSection(Section):
    """The link's kind, line rate and modulation, wavelength grid and fibers, target BER, FEC and margin kept."""

    section_name: ClassVar[str] = "link"

    kind: str = param("ring-wdm", "choice", "link type: 'ring-wdm' (micro-ring modulators and drop filters on CW comb "
                      "or DFB lines, many wavelengths per fiber: SiP-ML's optical I/O) or 'point-to-point' (one "
                      "modulated source per fiber: the textbook budget of [transmitter], [loss] and [receiver])",
                      "[assumed] SiP-ML's interface", choices=LINK_KINDS)
    data_rate: float = param("25 Gbit/s", "bit/s", "line rate per wavelength (with FEC the coded rate: the capacity "
                             "counts the payload)", f"{_SIPML} [sim]", lo=1e6, hi=1e12)
    modulation: str = param("nrz", "choice", "intensity modulation: 'nrz' (on-off keying) or 'pam4' (4 levels, 2 bits "
                            "per symbol, E22–E24)", f"{_SIPML}: NRZ at 25 Gbps per wavelength [sim]",
                            choices=("nrz", "pam4"))
    wavelengths_per_fiber: int = param(8, "1", "wavelengths requested per fiber per direction",
                                       f"{_SIPML}: 80 λ over 2 × 5 fibers [sim]", lo=1, hi=4096, integer=True,
                                       applies_when=_RING_WDM)
    fibers_per_direction: int = param(10, "1", "transmit fibers (lanes) per GPU (as many receive fibers)",
                                      f"{_SIPML}: 2 directions × 5 fibers [sim]", lo=1, integer=True, hi=MAX_CHANNELS)
    channel_spacing: float = declare(SpectralSpec, "200 GHz", "Hz | m", "wavelength-grid spacing, in GHz or in nm at "
                                     "the centre wavelength", "Intel OCI chiplet, 200 GHz spacing [verbatim]",
                                     lo=1e9, hi=10e12, applies_when=_RING_WDM)
    wavelength: float = param("1310 nm", "m", "centre wavelength (O-band; C-band 1550 nm; 850 nm for VCSELs on "
                              "multimode fiber)", "TeraPHY / Innolume QD comb operate in the O-band [restated]",
                              lo=0.8e-6, hi=1.7e-6)
    ber: float = param(1e-12, "1", "target bit-error ratio without FEC (with FEC the code's pre-FEC threshold is "
                       "the target)", "typical for links; DSENT uses 1e-15, PhoenixSim 1e-9 [restated]",
                       lo=0.0, hi=0.5, lo_open=True, hi_open=True, applies_when=when("link", "fec", "none"))
    fec: str = param("none", "choice", "forward error correction, which sets the target BER and takes its overhead "
                     "off the capacity: 'none', 'kr4' RS(528,514) at 5e-5, 'kp4' RS(544,514) at 2.4e-4, 'given' "
                     "(fec_threshold, fec_overhead, fec_latency)", "[assumed] none, as TeraPHY + Stratix 10 (2020) "
                     "ran with 'no FEC' [verbatim]", choices=FEC_CHOICES)
    fec_target: str = param("threshold", "choice", "what sets the pre-FEC BER a standard code (kr4, kp4) must "
                            "reach: 'threshold' the standard's, 'post-fec' the highest whose post-FEC BER (F41–F42, "
                            "random errors) meets post_fec_ber, 'frame-error' the highest whose frame (codeword) "
                            "error ratio (E27) meets frame_error_ratio", "IEEE 802.3 specifies the threshold "
                            "[verbatim]", choices=("threshold", "post-fec", "frame-error"),
                            applies_when=when("link", "fec", "kr4", "kp4"))
    post_fec_ber: float = param(1e-13, "1", "BER after the decoder the link is designed to (fec_target = post-fec)",
                                "[assumed] the 1e-13 of IEEE 802.3bs/cd objectives at the MAC service interface",
                                lo=1e-30, hi=1e-3, applies_when=all_of(when("link", "fec", "kr4", "kp4"),
                                                                      when("link", "fec_target", "post-fec")))
    frame_error_ratio: float = param(1e-12, "1", "frame (codeword) error ratio after the decoder the link is "
                                     "designed to (fec_target = frame-error): the share of codewords with more errors "
                                     "than the code corrects", "[assumed] the 1e-12 scale of IEEE 802.3's error "
                                     "objectives, read per codeword", lo=1e-30, hi=1e-3,
                                     applies_when=all_of(when("link", "fec", "kr4", "kp4"),
                                                         when("link", "fec_target", "frame-error")))
    fec_threshold: float = param(2.4e-4, "1", "pre-FEC BER the code corrects to its output target (fec = given)",
                                 "KP4's 2.4e-4, IEEE 802.3 Clause 136 [verbatim]", lo=0.0, hi=0.5, lo_open=True,
                                 hi_open=True, applies_when=when("link", "fec", "given"))
    fec_overhead: float = param(0.0584, "1", "rate overhead n/k − 1 of the code (fec = given)",
                                "KP4 RS(544,514): 544/514 − 1 = 5.84 % [inferred]", lo=0.0, hi=1.0,
                                applies_when=when("link", "fec", "given"))
    fec_latency: float = non_negative("51.2 ns", "s", "latency the code adds (fec = given)",
                                      "one KP4 codeword, 5440 b at 106.25 Gb/s = 51.2 ns [inferred]",
                                      applies_when=when("link", "fec", "given"), hi=MAX_LATENCY_S)
    system_margin: float = non_negative("0 dB", "dB", "margin reserved for ageing/temperature (the surplus is "
                                        "reported as margin_db)", "[assumed] report the whole surplus", hi=MAX_DB)


@record(kw_only=True)
class FiberSection(Section):
    """The fiber's type and dispersion (zero-dispersion wavelength, slope, model); multimode bandwidth and noise."""

    section_name: ClassVar[str] = "fiber"

    type: str = param("smf", "choice", "'smf' single-mode fiber (O- to L-band, 1260–1675 nm) or 'mmf' multimode "
                      "fiber (770–1380 nm: the 850 nm and 1300 nm windows, where OM1–OM5 are rated)",
                      "G.652 SMF in the O-band [assumed]",
                      choices=("smf", "mmf"))
    zero_dispersion_wavelength: float = param("1312 nm", "m", "zero-dispersion wavelength λ0 of E28",
                                              "G.652: 1300–1324 nm; 1312 nm with S0 = 0.092 gives D(1550 nm) = 17.3 "
                                              "ps/(nm·km), 17 in the Cisco G.652 text [inferred]", lo=0.8e-6, hi=1.8e-6)
    dispersion_slope: float = non_negative("0.092 ps/nm**2/km", "s/m**3", "zero-dispersion slope S0 of E28",
                                           "standard SMF ≈ 0.092 ps/(nm²·km), Keiser, Optical Fiber Communications "
                                           "ch. 3 [restated]", hi=MAX_DISPERSION_SLOPE_S_PER_M3)
    dispersion_model: str = param("chirped-gaussian", "choice", "chromatic-dispersion penalty: 'chirped-gaussian' "
                                  "a Gaussian pulse of RMS width T/4 broadened by the fiber's β₂ and β₃, the "
                                  "source's chirp and spectral width (F32), charged as the eye it leaves against the "
                                  "unbroadened one's (closes near three times the width); 'gaussian-channel' "
                                  "(point-to-point) the spread 2.567·|D|·L·σ_λ as one more rise time of the channel's "
                                  "ISI, as the IEEE 802.3 link model does (F26); 'agrawal' −5·log10(1 − (4BLDσ)²), 95 % "
                                  "of the pulse energy in the bit slot at the receiver, with a hard reach where the "
                                  "spread fills the slot (E29a); 'agrawal-tx' the same criterion at the transmitter "
                                  "(E29b); 'bellcore' 5·log10(1 + 2πε²) (E29c); 'none' (a budget that keeps dispersion "
                                  "inside its margin)", "Agrawal, Fiber-Optic Communication Systems §2.4 and §5.4 "
                                  "[restated]; 10GEPBud [verbatim]",
                                  choices=("chirped-gaussian", "agrawal", "agrawal-tx", "bellcore", "gaussian-channel",
                                           "none"))
    modal_bandwidth: float = positive("4700 MHz*km", "Hz*m", "effective modal bandwidth–length product at the "
                                      "wavelength (type = mmf), optical 3 dB: its rise time 0.480·L/BW enters the "
                                      "channel's ISI (F26)", "OM4 at 850 nm [verbatim]; OM3 2000, OM5 2470 MHz·km at "
                                      "953 nm, TIA; OM1–OM4 500 MHz·km at 1300 nm (overfilled launch) [restated]",
                                      applies_when=all_of(when("fiber", "type", "mmf"), _COMPUTED_EYE),
                                      hi=MAX_MODAL_BANDWIDTH_HZ_M)


    modal_noise: float = non_negative("0.3 dB", "dB", "modal-noise allocation of multimode fiber (type = mmf), "
                                      "combined with the other noises on the closed eye", "10GEPBud: 0.3 dB on 50 µm, "
                                      "0.15 dB on 62.5 µm fiber [verbatim]", hi=MAX_DB,
                                      applies_when=all_of(when("fiber", "type", "mmf"), _COMPUTED_EYE))


@record(kw_only=True)
class TransmitterSection(Section):
    """A point-to-point link's transmitter, described as its datasheet does."""

    section_name: ClassVar[str] = "transmitter"

    launch_power: float = positive("5 dBm", "W", "power launched into the fiber (launch_power_type: average or OMA)",
                                   "1.3 µm InGaAlAs ridge DFB laser, directly modulated at 50 Gb/s: mean output "
                                   "> 5.0 dBm [restated]", level=True, hi=MAX_POWER_W)
    launch_power_type: str = param("average", "choice", "what launch_power is: 'average' power or 'oma' "
                                   "(modulation amplitude, converted at the extinction ratio, E24)",
                                   "[assumed] average, as the DML figure is", choices=("average", "oma"))
    extinction_ratio: float = positive("4.5 dB", "dB", "extinction ratio of the launched signal (PAM4: outer levels; "
                                       "inf: ideal)", "the same DML: dynamic ER 4.5 dB [verbatim]", allow_inf=True)
    eye_closure: str = param("model", "choice", "how the eye the transmitter and the fiber close is found: 'model' "
                             "computes it (channel ISI, dispersion, RIN, mode partition, modal noise); 'tdecq' "
                             "takes the transmitter's measured TDECQ (PAM4; TDEC for NRZ) in their place, the "
                             "penalty of its eye through the standard's reference receiver and worst-case fiber "
                             "(IEEE 802.3 clauses 121, 124, 151)", "[assumed] model",
                             choices=("model", "tdecq"))
    tdecq: float = non_negative("3.4 dB", "dB", "transmitter and dispersion eye closure (eye_closure = tdecq): TDECQ "
                                "of a PAM4 transmitter, TDEC of an NRZ one", "IEEE 802.3bs/cu 400GBASE-DR4, FR4: "
                                "TDECQ ≤ 3.4 dB (compliant modules' datasheets) [restated]", hi=MAX_DB,
                                applies_when=when("transmitter", "eye_closure", "tdecq"))
    bandwidth: float = positive("34 GHz", "Hz", "electro-optic 3-dB bandwidth of the modulated source: its rise time "
                                "0.340/f enters the channel's ISI (F24; a 20–80 % rise time t is f = 0.223/t)",
                                "the same DML: 34 GHz [verbatim]", hi=MAX_BANDWIDTH_HZ, applies_when=_COMPUTED_EYE)
    spectral_width: float = positive("0.1 nm", "m", "RMS spectral width of a directly modulated source, modulated "
                                     "(chirp, modes; laser kind dml or vcsel): sets the dispersion penalty (the "
                                     "chirped-gaussian model counts only what the chirped pulse does not span)",
                                     "[assumed] the 0.1 nm of "
                                     "the photonics-2 dispersion example; no sourced DML or VCSEL figure",
                                     applies_when=all_of(when("laser", "kind", "dml", "vcsel"), _COMPUTED_EYE),
                                     hi=MAX_SPECTRAL_WIDTH_M)
    duty_cycle_distortion: float = non_negative("0 ps", "s", "duty-cycle distortion of the launched signal: "
                                                "shortens the symbol the channel's eye opens over (IEEE 802.3 link "
                                                "model)", "[assumed] none; 6–7.7 ps in the 10GBASE-S link model "
                                                "(10GEPBud) [verbatim]", hi=1e-6, applies_when=_COMPUTED_EYE)
    deterministic_jitter: float = non_negative("0 ps", "s", "deterministic jitter of the launched signal, the "
                                               "duty-cycle distortion included: the eye is sampled (DJ − DCD) off "
                                               "centre", "[assumed] none; 96 ps in the 10GBASE-LX4 link model "
                                               "(10GEPBud) [verbatim]", hi=1e-6, applies_when=_COMPUTED_EYE)
    mode_partition_k: float = param(0.3, "1", "mode-partition coefficient k of a multimode source (laser kind "
                                    "vcsel): its noise σ = (k/√2)(1 − e^(−(πRDLσ_λ)²)) (F28)", "10GEPBud: 'MPN k "
                                    "factor reduced to 0.3 (850 nm)' [verbatim]", lo=0.0, hi=1.0,
                                    applies_when=all_of(when("laser", "kind", "vcsel"), _COMPUTED_EYE))
    chirp: float = param(-5.0, "1", "chirp parameter C of a directly modulated laser (laser kind dml; "
                         "negative for a DML: pulses broaden fast in anomalous fiber): enters the chirped-gaussian "
                         "dispersion model (F32)", "Agrawal §2.4: DMLs C ≈ −4 … −6 [restated]; midpoint",
                         lo=-20.0, hi=20.0, applies_when=all_of(when("laser", "kind", "dml"), _COMPUTED_EYE))
    energy: float = non_negative("0.228 pJ/bit", "J/bit", "transmitter energy per bit (laser, driver)",
                                 "850 nm oxide-relief VCSEL at 41 Gb/s: 228 fJ/bit [verbatim]; no DML figure found",
                                 hi=MAX_ENERGY_J_PER_BIT)


@record(kw_only=True)
class RingSection(Section):
    """A ring-wdm link's micro-rings: radius, group index, Qs, losses and bend fit, filter ISI, thermal tuning."""

    section_name: ClassVar[str] = "ring"

    radius: float = param("3 um", "m", "micro-ring radius", "DSENT default [verbatim]", lo=1e-6, hi=1e-3)
    group_index: float = param(4.0, "1", "group index of the ring waveguide", "DSENT at 1300 nm [verbatim]",
                               lo=1.0, hi=10.0)
    filter_q: float = positive(6500, "1", "loaded Q of the receive (drop) filters",
                               "PhoenixSim filter-array model test case, Q_demux 6500 [verbatim]", lo=1.0, hi=MAX_Q)
    max_q: float = positive(150e3, "1", "largest loaded Q a ring may have", "DSENT cap [verbatim]", lo=1.0, hi=MAX_Q)
    loss_model: str = param("given", "choice", "intrinsic loss: 'given' uses propagation_loss, 'bend-fit' "
                            "adds the UBC bending-loss fit (valid for R ≥ 5 µm)", "—",
                            choices=("given", "bend-fit"))
    propagation_loss: float = non_negative(
        "7 dB/cm", "dB/m", "intrinsic round-trip loss of the ring waveguide",
        "[inferred] Cheng et al. Photonics Research 7(2) 2019 measured 0.5 dB drop loss; with Q_L 6500 "
        "at 1310 nm (E3, E4) that is ~7 dB/cm (0: a lossless ring, whose Q is the coupling's)",
        applies_when=when("ring", "loss_model", "given"), hi=MAX_DB_PER_M)
    bend_fit_coefficient: float = non_negative(
        "1.044e9 dB/cm", "dB/m", "bending-loss fit coefficient (loss = c·R[µm]^−k + straight)",
        "PhoenixSim UBCModelOptimistic, 450 nm Si strip [verbatim]", sweepable=False,
                                               applies_when=when("ring", "loss_model", "bend-fit"), hi=1e15)
    bend_fit_exponent: float = positive(10.13, "1", "bending-loss fit exponent k",
                                        "PhoenixSim UBCModelOptimistic [verbatim]", sweepable=False,
                                        applies_when=when("ring", "loss_model", "bend-fit"), hi=30.0)
    bend_fit_straight_loss: float = non_negative("1.2 dB/cm", "dB/m", "bending-loss fit straight term",
                                                 "PhoenixSim UBCModelOptimistic [verbatim]", sweepable=False,
                                                 applies_when=when("ring", "loss_model", "bend-fit"), hi=MAX_DB_PER_M)
    filter_isi: str = param("eye", "choice", "filter ISI of the drop ring on its own channel (E18): 'eye' the "
                            "worst-case eye of the link's format (NRZ or PAM4, at its extinction ratio) after the "
                            "ring's single-pole field response, E18b; 'energy' the share of a zero-mean symbol's "
                            "energy the Lorentzian passes, E18a (PhoenixSim's default; pessimistic for on-off keying, whose "
                            "carrier passes); 'lab-fit' PhoenixSim's NRZ lab fit, E18c",
                            "E18b derived for intensity-modulated light, checked against a numerical eye [inferred]",
                            choices=("eye", "energy", "lab-fit"))
    through_excess_loss: float = non_negative("0 dB", "dB", "scattering loss per passed ring beyond its resonance "
                                              "tail, which the model computes at the actual detuning (E20)",
                                              "DSENT's flat 0.01 dB per ring [verbatim] is that tail itself (a Q 10⁴ "
                                              "ring at 200 GHz, R10), so no excess is assumed; Cheng 2019 measured "
                                              "0.1 dB per ring in all [verbatim]", hi=MAX_DB)
    tuning_model: str = param("dn-dt", "choice", "resonance shift per kelvin: 'dn-dt' from the thermo-optic "
                              "coefficient (E12), 'given' tuning_efficiency", "—", choices=("dn-dt", "given"))
    dn_dt: float = positive("1.86e-4 / K", "1/K", "thermo-optic coefficient of silicon: sets the resonance "
                            "shift per kelvin f·(dn/dT)/n_g (E12; ≈ 10.6 GHz/K at 1310 nm, n_g 4, DSENT uses 10 GHz/K)",
                            "E12, photonics reference [inferred]", sweepable=False, lo=1e-6, hi=1e-3,
                            applies_when=when("ring", "tuning_model", "dn-dt"))
    tuning_efficiency: float = declare(SpectralSpec, "10 GHz/K", "Hz/K | m/K", "resonance shift per kelvin, in GHz/K "
                                       "or nm/K (tuning_model = given)", "DSENT 10 GHz/K [verbatim]", lo=1e6,
                                       applies_when=when("ring", "tuning_model", "given"), hi=MAX_TUNING_HZ_PER_K)


_GIVEN_ENERGY = when("modulator", "energy_model", "given")
_CIRCUIT_ENERGY = when("modulator", "energy_model", "circuit")
_DEPLETION = all_of(_CIRCUIT_ENERGY, when("modulator", "swing_model", "depletion"))
_RX_CIRCUIT = all_of(when("link", "kind", "ring-wdm"), when("receiver", "energy_model", "circuit"))
_RX_TIA = all_of(_RX_CIRCUIT, when("receiver", "front_end", "tia"))


@record(kw_only=True)
class ModulatorSection(Section):
    """A ring-wdm link's modulators: kind, Q, insertion loss, extinction ratio and energy (given or from the drive)."""

    section_name: ClassVar[str] = "modulator"

    kind: str = param("add-drop", "choice", "'add-drop': each ring drops its line from the laser bus onto the "
                      "output (one drop loss; unused laser lines stay off the fiber; needed for wavelength reuse on "
                      "a ring); 'all-pass': rings modulate the laser bus itself (unused comb lines reach the fiber)",
                      "[assumed] add-drop, as a ring fabric requires", choices=("add-drop", "all-pass"))
    q: float = positive(6000, "1", "loaded Q of the ring modulators", "Bahadori et al., DATE 2017 [restated]", lo=1.0,
                        hi=MAX_Q)
    insertion_loss: float = non_negative("2 dB", "dB", "loss of the '1' level below the ring's resonance peak "
                                         "(for add-drop modulators the peak drop loss is added from E4)",
                                         "[assumed] mid-range of depletion-mode ring modulators at 25 Gb/s", hi=MAX_DB)
    extinction_ratio: float = positive("7 dB", "dB", "extinction ratio between '1' and '0'",
                                       "[assumed] mid-range of depletion-mode ring modulators at 25 Gb/s",
                                       lo=MIN_EXTINCTION_DB, hi=MAX_DB)
    energy_model: str = param("given", "choice", "modulator + driver energy per bit: 'given' (the `energy` figure, "
                              "e.g. a datasheet's) or 'circuit' (DSENT-class: the swing the ER and IL need from a "
                              "depletion junction, a driver and pre-driver chain sized for the symbol rate at `node`; "
                              "photonics.driver_energy, E60–E67; NRZ)", "Sun et al., DSENT, NOCS 2012 "
                              "(photonics-4.md)", choices=("given", "circuit"))
    energy: float = non_negative("0.106 pJ/bit", "J/bit", "modulator + driver energy per bit",
                                 "'Single-chip 1 Tb/s optical transmitter' preprint: 106 fJ/bit at 32 Gb/s "
                                 "[restated, low confidence]", hi=MAX_ENERGY_J_PER_BIT, applies_when=_GIVEN_ENERGY)
    node: str = param("45nm", "choice", "CMOS node of the driver (DSENT's technology files)", "[assumed] 45 nm, "
                      "the node of the monolithic silicon-photonics platforms the optical I/O chiplets of SiP-ML's era "
                      "were built in", choices=("45nm", "32nm", "22nm", "11nm"), applies_when=_CIRCUIT_ENERGY)
    swing_model: str = param("linear", "choice", "how the swing follows from the shift: 'linear' (shift_per_volt; "
                             "the driver loads the junction's capacitance, E62) or 'depletion' (DSENT's charge model "
                             "of an abrupt junction, E63: a weak modulator at its default device)",
                             "photonics-4.md E62, E63", choices=("linear", "depletion"), applies_when=_CIRCUIT_ENERGY)
    shift_per_volt: float = positive("30 pm/V", "m/V", "resonance shift per volt of the modulator (swing_model = "
                                     "linear)", "[assumed] the scale of photonics-4.md R42 (published values by node "
                                     "and junction were not found: set it from the device's datasheet)", lo=1e-14,
                                     hi=1e-9, applies_when=all_of(_CIRCUIT_ENERGY,
                                                                  when("modulator", "swing_model", "linear")))
    notch_transmission: float = positive(0.01, "1", "through-port transmission on resonance (the notch's depth)",
                                         "DSENT Photonics.model [verbatim]", lo=1e-6, hi=0.5, lo_open=True,
                                         applies_when=_CIRCUIT_ENERGY)
    index_per_carrier: float = positive("3e-27 m**3", "m**3", "refractive index change per carrier density (n_f; "
                                        "swing_model = depletion)", "DSENT Photonics.model [verbatim]", lo=1e-30,
                                        hi=1e-24, applies_when=_DEPLETION)
    confinement: float = positive(0.3, "1", "optical confinement in the junction (Γ; swing_model = depletion)",
                                  "DSENT Photonics.model [verbatim]", lo=0.01, hi=1.0, applies_when=_DEPLETION)
    junction_fraction: float = positive(0.8, "1", "share of the ring's circumference the junction covers",
                                        "DSENT Photonics.model [verbatim]", lo=0.01, hi=1.0,
                                        applies_when=_CIRCUIT_ENERGY)
    junction_height: float = positive("500 nm", "m", "junction (waveguide) height", "DSENT Photonics.model "
                                      "[verbatim]", lo=50e-9, hi=5e-6, applies_when=_CIRCUIT_ENERGY)
    junction_width: float = positive("500 nm", "m", "junction (waveguide) width", "DSENT Photonics.model [verbatim]",
                                     lo=50e-9, hi=5e-6, applies_when=_CIRCUIT_ENERGY)
    doping_p: float = positive("3e24 1/m**3", "1/m**3", "acceptor doping N_A", "DSENT Photonics.model [verbatim]",
                               lo=1e20, hi=1e27, applies_when=_CIRCUIT_ENERGY)
    doping_n: float = positive("1e24 1/m**3", "1/m**3", "donor doping N_D", "DSENT Photonics.model [verbatim]",
                               lo=1e20, hi=1e27, applies_when=_CIRCUIT_ENERGY)
    supply_boost: float = positive(1.2, "1", "driver supply over the swing it must produce (V_H/V_a)",
                                   "DSENT Photonics.model [verbatim]", lo=1.0, hi=10.0, lo_open=True,
                                   applies_when=_CIRCUIT_ENERGY)
    parasitic_resistance: float = non_negative("100 ohm", "ohm", "series resistance between driver and junction",
                                               "DSENT Photonics.model [verbatim]", hi=1e5,
                                               applies_when=_CIRCUIT_ENERGY)
    parasitic_capacitance: float = non_negative("5 fF", "F", "parasitic capacitance the driver also switches",
                                                "DSENT Photonics.model [verbatim]", hi=1e-11,
                                                applies_when=_CIRCUIT_ENERGY)


@record(kw_only=True)
class LaserSection(Section):
    """The laser: kind, lines and power per line, flatness, coupling, wall-plug efficiency, sharing, limits, RIN."""

    section_name: ClassVar[str] = "laser"

    kind: str = param("comb", "choice", "laser source: 'comb' generates all its lines, 'dfb' (an array) lights only "
                      "the lines used — both CW, modulated by rings or an external modulator; 'dml' and 'vcsel' are "
                      "directly modulated (point-to-point links only)", "—", choices=LASER_KINDS)
    lines: int = param(16, "1", "lines per laser source on the channel grid",
                       "[assumed] inside the 4–160 channels of the Optica 2023 comb review", lo=1, integer=True,
                       hi=MAX_CHANNELS, applies_when=_RING_WDM)
    power_per_line: float = positive("3 mW", "W", "mean optical power per line at the laser output",
                                     "[inferred] Buyalo et al. Sci. Rep. 2024 QD comb: 270 mW over 89 lines ≈ 3 mW; "
                                     "inside the 0.5–50 mW per channel of the Optica 2023 comb review", level=True,
                                     hi=MAX_POWER_W, applies_when=_RING_WDM)
    flatness: float = non_negative("3 dB", "dB", "weakest comb line below the mean (kind = comb; a DFB array "
                                   "has none)", "[assumed] typical comb envelope",
                                   applies_when=all_of(_RING_WDM, when("laser", "kind", "comb")), hi=MAX_DB)
    coupling_loss: float = non_negative("1.25 dB", "dB", "laser-to-chip coupling loss",
                                        "[inferred] 75 % coupling, Buyalo et al. Sci. Rep. 2024", hi=MAX_DB,
                                        applies_when=_RING_WDM)
    wall_plug_efficiency: float = param(0.25, "1", "electrical-to-optical efficiency",
                                        "DSENT [verbatim]; PhoenixSim 0.10; Innolume > 0.30 peak",
                                        lo=1e-3, hi=1.0, applies_when=_RING_WDM)  # [assumed] ≥ 0.1 %
    fibers_per_source: int = param(1, "1", "transmit fibers one source feeds through a splitter",
                                   "[assumed] one source per fiber", lo=1, integer=True, hi=MAX_CHANNELS,
                                   applies_when=_RING_WDM)
    aggregate_power_limit: float = positive("20 dBm", "W", "total optical power a silicon waveguide "
                                            "carries before nonlinear absorption", "PhoenixSim [verbatim]",
                                            level=True, hi=MAX_POWER_W, applies_when=_RING_WDM)
    eye_safety_limit: float = positive("17 dBm", "W", "total optical power allowed in one fiber",
                                       "Keiser, Optical Communications Essentials (E15) [restated]", sweepable=False,
                                       level=True, hi=MAX_POWER_W)
    rin: float | None = declare(RinSpec, "source", "dB/Hz", "relative intensity noise of a line (one-sided; "
                                "-inf: none): its penalty E30. 'source': the source type's own figure and its "
                                "reference (rin_type not read): comb −135 dB/Hz average, DFB −155 dB/Hz average, "
                                "DML −136 dB/Hz RIN_OMA, VCSEL −128 dB/Hz RIN_OMA", "comb: Buyalo et al. Sci. Rep. "
                                "2024, < −135 dB/Hz per mode [verbatim]; DFB: −155…−165 dB/Hz, the worse end "
                                "[restated, secondary]; DML: IEEE 802.3 400GBASE-DR4/FR4 RIN_OMA ≤ −136 dB/Hz "
                                "[verbatim], a DML held to it [assumed]; VCSEL: 10GBASE-SR RIN12OMA ≤ −128 dB/Hz "
                                "[verbatim] (photonics-2.md §6)", hi=0.0, allow_minus_inf=True)
    rin_type: str = param("average", "choice", "what a given rin is referred to: 'average' power, or 'oma' "
                          "(RIN_OMA, as IEEE 802.3 specifies transmitters; converted at the link's extinction ratio, "
                          "E26); with rin = 'source' the figure's own reference is used",
                          "the comb figure is average-referenced [restated]", choices=("average", "oma"))

    def __post_init__(self) -> None:
        """rin = 'source' resolved once, to the kind's figure: a copy by `dataclasses.replace(kind=…)` keeps the
        figure it holds, so pass rin='source' with a new kind to take that kind's."""
        Section.__post_init__(self)  # (a slots dataclass is a new class: no zero-argument super())
        if self.rin is None:  # 'source': the source type's own figure, referred as it is (SOURCE_RIN)
            rin, rin_type = SOURCE_RIN[self.kind]
            object.__setattr__(self, "rin", rin)
            object.__setattr__(self, "rin_type", rin_type)


@record(kw_only=True)
class LossSection(Section):
    """The path's passive losses: couplers, waveguides, bends, crossings, splitters, connectors, fiber, switches."""

    section_name: ClassVar[str] = "loss"

    coupler: float = non_negative("1.5 dB", "dB", "chip-to-fiber coupler loss per facet",
                                  "edge coupler < 1.52 dB (TE, O-band), Adv. Photon. Nexus 2025 [verbatim]", hi=MAX_DB,
                                  applies_when=_RING_WDM)
    waveguide_loss: float = non_negative("1 dB/cm", "dB/m", "on-chip waveguide loss",
                                         "DSENT, PhoenixSim [verbatim]", hi=MAX_DB_PER_M, applies_when=_RING_WDM)
    tx_waveguide_length: float = non_negative("0.5 cm", "m", "waveguide from laser input to output coupler",
                                              "[assumed] chiplet-scale routing", hi=1.0, applies_when=_RING_WDM)
    rx_waveguide_length: float = non_negative("0.5 cm", "m", "waveguide from input coupler to detector",
                                              "[assumed] chiplet-scale routing", hi=1.0, applies_when=_RING_WDM)
    bends: int = param(4, "1", "waveguide bends on the path", "[assumed]", lo=0, integer=True, hi=MAX_PATH_ELEMENTS,
                       applies_when=_RING_WDM)
    bend_loss: float = non_negative("0.02 dB", "dB", "loss per bend", "PhoenixSim [verbatim]", hi=MAX_DB,
                                    applies_when=_RING_WDM)
    crossings: int = param(0, "1", "waveguide crossings on the path", "[assumed]", lo=0, integer=True,
                           hi=MAX_PATH_ELEMENTS, applies_when=_RING_WDM)
    crossing_loss: float = non_negative("0.028 dB", "dB", "loss per crossing", "PhoenixSim [verbatim]", hi=MAX_DB,
                                        applies_when=_RING_WDM)
    splitters: int = param(0, "1", "Y-junctions on the path (other than the laser splitter)", "[assumed]",
                           lo=0, integer=True, hi=MAX_PATH_ELEMENTS, applies_when=_RING_WDM)
    splitter_loss: float = non_negative("0.28 dB", "dB", "excess loss per Y-junction (beyond the 3 dB split)",
                                        "PhoenixSim [verbatim]", hi=MAX_DB, applies_when=_RING_WDM)
    connectors: int = param(2, "1", "fiber connectors on the path", "[assumed] one at each end", lo=0,
                            integer=True, hi=MAX_PATH_ELEMENTS)
    connector_loss: float = non_negative("0.5 dB", "dB", "loss per connector",
                                         "MTP vs LC penalty, Calient S320 guide [verbatim]", hi=MAX_DB)
    fiber_length: float = non_negative("10 m", "m", "fiber length between GPUs", "[assumed] within a row",
                                       hi=MAX_FIBER_M)
    fiber_loss: float = non_negative("0.35 dB/km", "dB/m", "fiber attenuation (SMF 0.2 dB/km at 1550 nm; MMF "
                                     "3.5 dB/km at 850 nm in the IEEE models)", "G.652 at 1310 nm [verbatim]",
                                     hi=MAX_DB_PER_M)
    splices: int = param(0, "1", "fiber splices on the path", "[assumed] none", lo=0, integer=True,
                         hi=MAX_PATH_ELEMENTS)
    splice_loss: float = non_negative("0.1 dB", "dB", "loss per splice", "[assumed] a fusion splice; set the "
                                      "plant's figure", hi=MAX_DB)
    extra_losses: str = declare(LossListSpec, "", "losses", "further named losses on the path, 'name: loss; …' "
                                "(e.g. 'patch panel: 0.5 dB; WDM filter: 1.2 dB')", "—", sweepable=False)
    switch_ports: int = param(0, "1", "optical-switch passes on the path (an OCS fabric adds its own passes "
                              "to these)", "point-to-point link", lo=0, integer=True, hi=MAX_PATH_ELEMENTS)
    switch_loss: float = non_negative("2 dB", "dB", "insertion loss per optical-switch pass",
                                      "MEMS OCS 'sub-2 dB' [restated]", hi=MAX_DB)
    switch_connectors: int = param(2, "1", "patch connectors each switch pass adds (at connector_loss each)",
                                   "[assumed] a patch at each switch port", lo=0, integer=True, hi=MAX_PATH_ELEMENTS)
    mux_demux_loss: float = non_negative("0 dB", "dB", "extra multiplexer/demultiplexer loss", "none: rings "
                                         "mux and demux", hi=MAX_DB)


@record(kw_only=True)
class ReceiverSection(Section):
    """The receiver: sensitivity (given, or from responsivity, dark current, noise density), bandwidth, energy."""

    section_name: ClassVar[str] = "receiver"

    model: str = param("ge-photodiode", "choice", "how sensitivity is found: a Ge photodiode and TIA (the "
                       "PhoenixSim fit, E16), a thermal-noise-limited TIA, DSENT's integrating front end and sense "
                       "amplifier (E70–E72: energy_model = 'circuit', front_end = 'integrating'), or given", "—",
                       choices=("ge-photodiode", "thermal-noise", "integrating", "given"))
    sensitivity: float = positive("-9.7 dBm", "W", "sensitivity (model = given), average power or OMA "
                                  "(sensitivity_type)", "SiP receiver at 25 Gbps, Sci. Rep. 7:13857 (2017) [verbatim]",
                                  applies_when=when("receiver", "model", "given"), level=True, hi=MAX_POWER_W)
    sensitivity_type: str = param("average", "choice", "what the given sensitivity is: 'average' power, or 'oma' "
                                  "(converted at the link's extinction ratio, E24, with no ER penalty)",
                                  "Sci. Rep. 7:13857 quotes average power [restated]", choices=("average", "oma"),
                                  applies_when=when("receiver", "model", "given"))
    sensitivity_extinction: str = param("link", "choice", "extinction ratio the given average-power sensitivity "
                                        "holds at: 'link' the link's own (no ER penalty, as a plain power budget "
                                        "reads a sensitivity); 'given' reference_extinction_ratio, charging only the "
                                        "link's ER penalty beyond it (E8)", "[assumed] a datasheet sensitivity is "
                                        "quoted at the transmitter it is used with", choices=("link", "given"),
                                        applies_when=all_of(when("receiver", "model", "given"),
                                                            when("receiver", "sensitivity_type", "average")))
    reference_extinction_ratio: float = positive("8.9 dB", "dB", "extinction ratio the given average-power "
                                                 "sensitivity was measured at (sensitivity_extinction = given; inf: an "
                                                 "ideal transmitter)", "Sci. Rep. 7:13857 (2017), "
                                                 "Table 1: 8.9 dB extinction of the ring modulator in the link the "
                                                 "floor was measured on [restated]", allow_inf=True,
                                                 applies_when=all_of(when("receiver", "model", "given"),
                                                                     when("receiver", "sensitivity_type", "average"),
                                                                     when("receiver", "sensitivity_extinction",
                                                                          "given")),
                                                 lo=MIN_EXTINCTION_DB, hi=MAX_DB)
    bandwidth_to_symbol_rate: float = positive(0.8, "1", "receiver 3-dB bandwidth over the symbol rate "
                                               "(point-to-point): its rise time 0.329/f enters the channel's ISI",
                                               "10GEPBud 10GBASE-S: 8250 MHz at 10312.5 MBd [verbatim]", lo=0.05,
                                               hi=10.0, applies_when=all_of(when("link", "kind", "point-to-point"),
                                                                            _COMPUTED_EYE))
    baseline_wander: float = non_negative(0.0, "1", "RMS baseline wander of the receiver over the OMA "
                                          "(point-to-point): a noise on the closed eye beyond what the sensitivity "
                                          "holds", "[assumed] none (a DC-balanced code); 0.025 in the 10GBASE-S link "
                                          "model (10GEPBud) [verbatim]", hi=0.1,
                                          applies_when=all_of(when("link", "kind", "point-to-point"), _COMPUTED_EYE))
    sensitivity_floor: float = non_negative("0 mW", "W", "the least OMA the receiver works at whatever the eye "
                                            "(eye_closure = tdecq): the budget needs max(sensitivity + TDECQ, "
                                            "floor), as a standard's receiver sensitivity max(floor, SECQ + the ideal "
                                            "eye's) reads (0: none)", "IEEE 802.3bs 400GBASE-DR4: −4.4 dBm OMA, "
                                            "compliant modules' datasheets (photonics.md) [restated]", level=True,
                                            hi=MAX_POWER_W,
                                            applies_when=all_of(when("link", "kind", "point-to-point"),
                                                                when("transmitter", "eye_closure", "tdecq")))
    responsivity: float = positive("0.7 A/W", "A/W", "photodiode responsivity", "PhoenixSim [verbatim]", lo=0.01,
                                   hi=2.0)
    integration_time_ratio: float = positive(0.7, "1", "share of the bit the integrating front end integrates "
                                             "the photocurrent (the rest resolves the sense amplifier, E71)",
                                             "DSENT Photonics.model Receiver->Int->IntegrationTimeRatio [verbatim]",
                                             hi=1.0, hi_open=True, applies_when=when("receiver", "model",
                                                                                     "integrating"))
    photodiode_capacitance: float = non_negative("5 fF", "F", "capacitance of the photodiode and its wiring on the "
                                                 "integrating node (E70)", "DSENT Photonics.model: Photodetector "
                                                 "Cap 0 F + ParasiticCap 5 fF [verbatim]", hi=1e-12,
                                                 applies_when=when("receiver", "model", "integrating"))
    dark_current: float = non_negative("1 uA", "A", "photodiode dark current", "PhoenixSim [verbatim]",
                                       applies_when=when("receiver", "model", "ge-photodiode"), hi=1e-3)
    noise_density: float = positive("10.9 pA/Hz**0.5", "A/Hz**0.5", "input-referred TIA noise density "
                                    "(model = thermal-noise)", "Xie et al. iWEM 2021, 25 Gb/s TIA "
                                    "(post-layout) [restated]", applies_when=when("receiver", "model",
                                                                                  "thermal-noise"), hi=1e-6)
    energy_model: str = param("given", "choice", "receiver energy per bit: 'given' (the `energy` figure, e.g. a "
                              "datasheet's) or 'circuit' (ring-wdm: front end, sampler, the link's serialiser and "
                              "deserialiser and clocking at `node`, photonics.receiver_energy, E74–E78)",
                              "Sun et al., DSENT, NOCS 2012 (photonics-4.md)", choices=("given", "circuit"),
                              applies_when=when("link", "kind", "ring-wdm"))
    energy: float = non_negative("0.55 pJ/bit", "J/bit", "receiver (TIA + detector) energy per bit",
                                 "K. Li et al. 2020, 54 Gb/s SiGe receiver [restated]", hi=MAX_ENERGY_J_PER_BIT,
                                 applies_when=when("receiver", "energy_model", "given"))
    node: str = param("45nm", "choice", "CMOS node of the sampler and SerDes (DSENT's technology files)",
                      "[assumed] 45 nm, as [modulator] node", choices=("45nm", "32nm", "22nm", "11nm"),
                      applies_when=_RX_CIRCUIT)
    front_end: str = param("tia", "choice", "'tia' (a transimpedance amplifier: tia_energy at tia_reference_rate, "
                           "scaled by tia_rate_exponent) or 'integrating' (DSENT's integrating front end and sense "
                           "amplifier: no static power, E70–E74; its sensitivity its own, model = 'integrating')",
                           "photonics-4.md E74, E75", choices=("tia", "integrating"),
                           applies_when=_RX_CIRCUIT)
    tia_energy: float = non_negative("0.55 pJ/bit", "J/bit", "the TIA front end's energy per bit at "
                                     "tia_reference_rate", "K. Li et al. 2020, 54 Gb/s SiGe receiver: 0.55 pJ/bit "
                                     "[restated]", hi=MAX_ENERGY_J_PER_BIT, applies_when=_RX_TIA)
    tia_reference_rate: float = positive("54 Gbit/s", "bit/s", "the line rate tia_energy was measured at",
                                         "K. Li et al. 2020 [restated]", lo=1e8, hi=1e12, applies_when=_RX_TIA)
    tia_rate_exponent: float = param(1.0, "1", "energy per bit ∝ rate^k: 1 holds the transimpedance (and so the "
                                     "sensitivity) as the rate moves, its gain-bandwidth and bias ∝ rate² (E75); 0 a "
                                     "bias ∝ rate; −1 a fixed bias", "photonics-4.md E75 (the transimpedance limit, "
                                     "Säckinger) [inferred]", lo=-1.0, hi=3.0, applies_when=_RX_TIA)
    core_clock: float = positive("2 GHz", "Hz", "clock of the parallel data the serialiser takes and the "
                                 "deserialiser gives (its ratio to the line rate sets the mux trees' depth, E77)",
                                 "[assumed] a 1–2 GHz logic clock", lo=1e7, hi=1e12, applies_when=_RX_CIRCUIT)
    clock_power: float = non_negative("0 W", "W", "clock generation and recovery per lane (a PLL's share and a CDR, "
                                      "E78)", "DSENT charges none and no per-node figure was found (photonics-4.md "
                                      "E78) [assumed] 0: set it from a design", hi=1.0, applies_when=_RX_CIRCUIT)


@record(kw_only=True)
class TuningSection(Section):
    """How a ring-wdm link's rings hold their channels: strategy, heaters, temperatures, variation and yield."""

    section_name: ClassVar[str] = "tuning"

    strategy: str = param("nearest-channel", "choice", "thermal tuning strategy: 'nearest-channel' (each ring "
                          "heated to the nearest channel, DSENT's ThermalWithBitReshuffle, E81), 'full-thermal' "
                          "(heated through 3σ of fabrication variation and the temperature range, DSENT's "
                          "FullThermal, E80), 'athermal-untrimmed' (temperature-insensitive rings whose heaters still "
                          "correct 3σ of fabrication variation: E80 with no temperature range, E84, not a DSENT "
                          "option), 'athermal-with-trim' (temperature-insensitive rings whose fabrication offsets are "
                          "trimmed: no heater, only trim_power per ring, DSENT's AthermalWithTrim, E83/E85); "
                          "'athermal' is the old name of 'athermal-untrimmed', read as it with a warning",
                          "DSENT strategies (photonics-4.md §3, E80–E85) [restated]; 'athermal-untrimmed' [inferred]",
                          choices=TUNING_STRATEGIES)
    heating_efficiency: float = positive("2.57e4 K/W", "K/W", "ring temperature rise per heater watt",
                                         "[inferred] 257 GHz/mW (2.06 nm/mW at 1550 nm, 'on par with the best "
                                         "microheaters', Atabaki et al. Opt. Express 21(13) 2013) over DSENT's "
                                         "10 GHz/K; DSENT's own 1e5 K/W is 4× better than any measured heater. The "
                                         "shift per kelvin itself follows from [ring] dn_dt (E12)", lo=10.0, hi=1e7)
    sigma_local: float = declare(SpectralSpec, "40 GHz", "Hz | m", "local (within-die) resonance variation, 1σ, "
                                 "in GHz or nm", "DSENT [verbatim]", lo=0.0, applies_when=_THERMAL_OR_ATHERMAL,
                                 hi=10e12)
    sigma_system: float = declare(SpectralSpec, "200 GHz", "Hz | m", "systematic (die-to-die) resonance variation, "
                                  "1σ, in GHz or nm", "DSENT [verbatim]", lo=0.0, applies_when=_THERMAL_OR_ATHERMAL,
                                  hi=10e12)
    target_yield: float = param(0.99, "1", "share of GPUs whose rings in use must all lock (full-thermal, "
                                "athermal-untrimmed): the tuning range and heater power are reported at this yield "
                                "(E34, F46)", "[assumed] 99 %",
                                lo=0.0, hi=1.0, lo_open=True, hi_open=True, applies_when=_THERMAL_OR_ATHERMAL)
    variation_model: str = param("die-shared", "choice", "how resonance offsets combine into the yield "
                                 "(full-thermal, athermal-untrimmed): 'die-shared' the systematic part common to the "
                                 "rings of one chiplet, the local part per ring (F46); 'independent' every ring drawn "
                                 "from the combined σ (E33, pessimistic)", "die-to-die vs within-die split of DSENT's "
                                 "two sigmas; rings 100 µm apart differ by ~0.1 nm (Mohamed et al., E35) [restated]",
                                 choices=("die-shared", "independent"), applies_when=_THERMAL_OR_ATHERMAL)
    t_min: float = positive("280 K", "K", "lowest operating temperature", "DSENT [verbatim]",
                            applies_when=_FULL_THERMAL, lo=1.0, hi=MAX_TEMPERATURE_K)
    t_max: float = positive("380 K", "K", "highest operating temperature", "DSENT [verbatim]",
                            applies_when=_FULL_THERMAL, above="t_min", lo=1.0, hi=MAX_TEMPERATURE_K)
    temperature: float = positive("300 K", "K", "operating temperature for full-thermal power",
                                  "[assumed] room temperature", applies_when=_FULL_THERMAL, at_least="t_min",
                                  at_most="t_max", lo=1.0, hi=MAX_TEMPERATURE_K)
    max_heater_power: float = positive("25 mW", "W", "largest heater power a ring's driver supplies: sets the "
                                       "tuning range", "[assumed] heater powers up to 25 mW are reported "
                                       "(Sci. Rep. 2025)", hi=MAX_POWER_W)
    trim_power: float = non_negative("0 W", "W", "standing power of one ring's fabrication-variation trim "
                                     "(athermal-with-trim): 0 for a one-time permanent trim, as DSENT charges (E83); "
                                     "a standing heater correction measured ≈ 231 µW per device (E85)",
                                     "DSENT AthermalWithTrim: 0 (E83) [restated]; Zortman, Trotter, Watts, Opt. "
                                     "Express 18(23) 2010: 231 µW per microdisk trimmed (E85) [verbatim]",
                                     applies_when=_TRIMMED, hi=MAX_POWER_W)

    @property
    def model(self) -> str:
        """The strategy the tuning model runs: `strategy`, an old name read as its new one (`TUNING_RENAMED`)."""
        return TUNING_RENAMED.get(self.strategy, self.strategy)


@record(kw_only=True)
class PackageSection(Section):
    """The package's size and its optical I/O chiplets' fiber edge and pitch: the shoreline fibers escape through."""

    section_name: ClassVar[str] = "package"

    width: float = positive("55 mm", "m", "GPU package width", "[assumed] SXM-class package", hi=1.0)
    height: float = positive("55 mm", "m", "GPU package height", "[assumed] SXM-class package", hi=1.0)
    chiplets: int = param(1, "1", "optical I/O chiplets on the package edge",
                          "SiP-ML's TeraPHY-class 2 Tbps interface: one chiplet [restated]", lo=1, integer=True,
                          hi=MAX_CHIPLETS)
    chiplet_fiber_edge: float = positive("5 mm", "m", "fiber-attach edge of one chiplet",
                                         "[assumed] chiplet die size not published", hi=1.0)
    fiber_pitch: float = positive("127 um", "m", "fiber-array pitch", "V-groove arrays [verbatim]", lo=10e-6, hi=10e-3)


@record(kw_only=True)
class InterfaceSection(Section):
    """The electrical side of the link: what a bit costs between the GPU die and the optics."""

    section_name: ClassVar[str] = "interface"

    die_to_die_energy: float = non_negative("0.3 pJ/bit", "J/bit", "electrical die-to-die link between the GPU and "
                                            "the optical chiplet, per crossing", "UCIe 2.5D (25–55 µm bumps) above 16 "
                                            "GT/s: 0.25–0.3 pJ/b [verbatim]", hi=MAX_ENERGY_J_PER_BIT)
    crossings: int = param(2, "1", "die-to-die crossings per bit, transmit + receive", "[inferred] GPU → chiplet and "
                           "chiplet → GPU", lo=0, integer=True, hi=MAX_PATH_ELEMENTS)
    dsp_energy: float = non_negative("0 pJ/bit", "J/bit", "SerDes / DSP energy per bit, transmit + receive, beyond "
                                     "the die-to-die link", "[assumed] none: a chiplet driven directly; a 113G PAM4 "
                                     "XSR lane < 1.1 pJ/b, a 112G medium-reach SerDes 2.29 pJ/b [verbatim]",
                                     hi=MAX_ENERGY_J_PER_BIT)


@record(kw_only=True)
class LinkDesign(Composite):
    """A complete design point of one GPU's optical I/O."""

    link: LinkSection = default_part(LinkSection)
    fiber: FiberSection = default_part(FiberSection)
    ring: RingSection = default_part(RingSection)
    modulator: ModulatorSection = default_part(ModulatorSection)
    laser: LaserSection = default_part(LaserSection)
    transmitter: TransmitterSection = default_part(TransmitterSection)
    loss: LossSection = default_part(LossSection)
    receiver: ReceiverSection = default_part(ReceiverSection)
    tuning: TuningSection = default_part(TuningSection)
    package: PackageSection = default_part(PackageSection)
    interface: InterfaceSection = default_part(InterfaceSection)


SECTIONS: dict[str, type] = {
    "link": LinkSection,
    "fiber": FiberSection,
    "ring": RingSection,
    "modulator": ModulatorSection,
    "laser": LaserSection,
    "transmitter": TransmitterSection,
    "loss": LossSection,
    "receiver": ReceiverSection,
    "tuning": TuningSection,
    "package": PackageSection,
    "interface": InterfaceSection,
}

# When a whole section has an effect (besides its fields' own conditions): a point-to-point link has a
# [transmitter] and no rings, modulators, tuning or chiplet package.
SECTION_APPLIES_WHEN = {"ring": _RING_WDM, "modulator": _RING_WDM, "tuning": _RING_WDM, "package": _RING_WDM,
                        "transmitter": _POINT_TO_POINT}
