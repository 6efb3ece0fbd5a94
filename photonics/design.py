"""The design point of one GPU's silicon-photonic I/O, section by section, with every default sourced.

Tags follow the project's reference notes: [verbatim] the source states it, [restated] a secondary source
or a conversion, [inferred] computed from a source's formula or a typical value, [assumed] chosen here
with the reason given. Every default is a user-editable field.

Defaults reproduce SiP-ML's optical interface (Khani et al., SIGCOMM 2021): 25 Gbps per wavelength, a GPU's
80 wavelengths carried as 8 per fiber over 10 transmit fibers (2 ring directions × 5 fibers) = 2 Tbps per
direction; the device numbers come from DSENT, PhoenixSim and the datasheets cited per field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from core.fields import Composite, Section, non_negative, param, positive, when

_SIPML = "SiP-ML simulator (MLNetwork/rostam), Khani et al. SIGCOMM 2021"

_FULL_THERMAL = when("tuning", "strategy", "full-thermal")
_THERMAL_OR_ATHERMAL = when("tuning", "strategy", "full-thermal", "athermal")

# Bounds of the design space on counts, so the work a design causes is bounded.
MAX_CHANNELS = 4096  # [inferred] wavelengths, lines, fibers: photonics.link searches wavelength counts up to 4096
MAX_PATH_ELEMENTS = 1000  # [assumed] bends, crossings, connectors, passes: 1000 of any cost ≥ 20 dB (defaults)
MAX_CHIPLETS = 256  # [assumed] far beyond the ~44 chiplets of 5 mm that fit a 55 mm package's edge
# Bounds on values, so every design inside them evaluates in floating point (no overflow, no division by zero).
MAX_DB = 100.0  # [assumed] a loss, gain or margin of 10^10 in power: beyond any link budget
MAX_DB_PER_M = 1e5  # [assumed] 1000 dB/cm, beyond the lossiest waveguide (plasmonic, ~100 dB/cm)
MIN_WAVEGUIDE_LOSS_DB_PER_M = 0.1  # [assumed] 0.001 dB/cm, below record low-loss SiN rings (~0.1 dB/m)
MAX_Q = 1e8  # [assumed] above the record microring Qs (~10^7–10^8)
MIN_EXTINCTION_DB = 0.1  # [assumed] the ER penalty 10·log10((r+1)/(r−1)) grows without bound as ER → 0 dB
MAX_ENERGY_J_PER_BIT = 1e-9  # [assumed] 1000 pJ/bit, 100× the most power-hungry optical links
MAX_POWER_W = 10.0  # [assumed] 40 dBm: beyond any laser line, waveguide or heater on a chip
MAX_FIBER_M = 1e6  # [assumed] 1000 km, far beyond any link inside a data centre
MAX_TEMPERATURE_K = 1000.0  # [assumed] the tuning model's temperatures, far beyond a chip's operating range


@dataclass(frozen=True, kw_only=True, slots=True)
class LinkSection(Section):
    section_name: ClassVar[str] = "link"

    data_rate: float = param("25 Gbit/s", "bit/s", "data rate per wavelength (NRZ/OOK)", f"{_SIPML} [sim]",
                             lo=1e6, hi=1e12)
    wavelengths_per_fiber: int = param(8, "1", "wavelengths requested per fiber per direction",
                                       f"{_SIPML}: 80 λ over 2 × 5 fibers [sim]", lo=1, hi=MAX_CHANNELS, integer=True)
    fibers_per_direction: int = param(10, "1", "transmit fibers per GPU (as many receive fibers)",
                                      f"{_SIPML}: 2 directions × 5 fibers [sim]", lo=1, hi=MAX_CHANNELS, integer=True)
    channel_spacing: float = param("200 GHz", "Hz", "wavelength-grid spacing", "Intel OCI chiplet, 200 GHz "
                                   "spacing [verbatim]", lo=1e9, hi=10e12)
    wavelength: float = param("1310 nm", "m", "centre wavelength (O-band)",
                              "TeraPHY / Innolume QD comb operate in the O-band [restated]",
                              lo=1.2e-6, hi=1.7e-6)
    ber: float = param(1e-12, "1", "target bit-error ratio",
                       "typical for links; DSENT uses 1e-15, PhoenixSim 1e-9 [restated]",
                       lo=0.0, hi=0.5, lo_open=True, hi_open=True)
    system_margin: float = non_negative("0 dB", "dB", "margin reserved for ageing/temperature (the surplus is "
                                        "reported as margin_db)", "[assumed] report the whole surplus", hi=MAX_DB)


@dataclass(frozen=True, kw_only=True, slots=True)
class RingSection(Section):
    section_name: ClassVar[str] = "ring"

    radius: float = param("3 um", "m", "micro-ring radius", "DSENT default [verbatim]", lo=1e-6, hi=1e-3)
    group_index: float = param(4.0, "1", "group index of the ring waveguide", "DSENT at 1300 nm [verbatim]",
                               lo=1.0, hi=10.0)
    filter_q: float = param(6500, "1", "loaded Q of the receive (drop) filters",
                            "PhoenixSim filter-array model test case, Q_demux 6500 [verbatim]", lo=1.0,
                            hi=MAX_Q)
    max_q: float = param(150e3, "1", "largest loaded Q a ring may have", "DSENT cap [verbatim]", lo=1.0,
                         hi=MAX_Q)
    loss_model: str = param("given", "choice", "intrinsic loss: 'given' uses propagation_loss, 'bend-fit' "
                            "adds the UBC bending-loss fit (valid for R ≥ 5 µm)", "—",
                            choices=("given", "bend-fit"))
    propagation_loss: float = param(
        "7 dB/cm", "dB/m", "intrinsic round-trip loss of the ring waveguide",
        "[inferred] Cheng et al. Photonics Research 7(2) 2019 measured 0.5 dB drop loss; with Q_L 6500 "
        "at 1310 nm (E3, E4) that is ~7 dB/cm", applies_when=when("ring", "loss_model", "given"),
        lo=MIN_WAVEGUIDE_LOSS_DB_PER_M, hi=MAX_DB_PER_M)
    bend_fit_coefficient: float = non_negative(
        "1.044e9 dB/cm", "dB/m", "bending-loss fit coefficient (loss = c·R[µm]^−k + straight)",
        "PhoenixSim UBCModelOptimistic, 450 nm Si strip [verbatim]", sweepable=False,
        applies_when=when("ring", "loss_model", "bend-fit"), hi=1e15)
    bend_fit_exponent: float = positive(10.13, "1", "bending-loss fit exponent k",
                                        "PhoenixSim UBCModelOptimistic [verbatim]", sweepable=False,
                                        applies_when=when("ring", "loss_model", "bend-fit"), hi=30.0)
    bend_fit_straight_loss: float = non_negative("1.2 dB/cm", "dB/m", "bending-loss fit straight term",
                                                 "PhoenixSim UBCModelOptimistic [verbatim]", sweepable=False,
                                                 applies_when=when("ring", "loss_model", "bend-fit"),
                                                 hi=MAX_DB_PER_M)
    through_excess_loss: float = non_negative("0.01 dB", "dB", "excess loss per passed off-resonance ring",
                                              "DSENT Photonics.model [verbatim]; 0.1 dB measured by Cheng 2019",
                                              hi=MAX_DB)
    dn_dt: float = param("1.86e-4 / K", "1/K", "thermo-optic coefficient of silicon: sets the resonance "
                         "shift per kelvin f·(dn/dT)/n_g (E12; ≈ 10.6 GHz/K at 1310 nm, n_g 4, DSENT uses 10 GHz/K)",
                         "E12, photonics reference [inferred]", sweepable=False, lo=1e-6, hi=1e-3)


@dataclass(frozen=True, kw_only=True, slots=True)
class ModulatorSection(Section):
    section_name: ClassVar[str] = "modulator"

    kind: str = param("add-drop", "choice", "'add-drop': each ring drops its line from the laser bus onto the "
                      "output (one drop loss; unused laser lines stay off the fiber; needed for wavelength reuse on "
                      "a ring); 'all-pass': rings modulate the laser bus itself (unused comb lines reach the fiber)",
                      "[assumed] add-drop, as a ring fabric requires", choices=("add-drop", "all-pass"))
    q: float = param(6000, "1", "loaded Q of the ring modulators", "Bahadori et al., DATE 2017 [restated]", lo=1.0,
                     hi=MAX_Q)
    insertion_loss: float = non_negative("2 dB", "dB", "loss of the '1' level below the ring's resonance peak "
                                         "(for add-drop modulators the peak drop loss is added from E4)",
                                         "[assumed] mid-range of depletion-mode ring modulators at 25 Gb/s", hi=MAX_DB)
    extinction_ratio: float = param("7 dB", "dB", "extinction ratio between '1' and '0'",
                                    "[assumed] mid-range of depletion-mode ring modulators at 25 Gb/s",
                                    lo=MIN_EXTINCTION_DB, hi=MAX_DB)
    energy: float = non_negative("0.106 pJ/bit", "J/bit", "modulator + driver energy per bit",
                                 "'Single-chip 1 Tb/s optical transmitter' preprint: 106 fJ/bit at 32 Gb/s "
                                 "[restated, low confidence]", hi=MAX_ENERGY_J_PER_BIT)


@dataclass(frozen=True, kw_only=True, slots=True)
class LaserSection(Section):
    section_name: ClassVar[str] = "laser"

    kind: str = param("comb", "choice", "laser source: a comb generates all its lines, a DFB array lights "
                      "only the lines used", "—", choices=("comb", "dfb"))
    lines: int = param(16, "1", "lines per laser source on the channel grid",
                       "[assumed] inside the 4–160 channels of the Optica 2023 comb review", lo=1,
                       hi=MAX_CHANNELS, integer=True)
    power_per_line: float = positive("3 mW", "W", "mean optical power per line at the laser output",
                                     "[inferred] Buyalo et al. Sci. Rep. 2024 QD comb: 270 mW over 89 lines ≈ 3 mW; "
                                     "inside the 0.5–50 mW per channel of the Optica 2023 comb review",
                                     hi=MAX_POWER_W)
    flatness: float = non_negative("3 dB", "dB", "weakest comb line below the mean (kind = comb; a DFB array "
                                   "has none)", "[assumed] typical comb envelope",
                                   applies_when=when("laser", "kind", "comb"), hi=MAX_DB)
    coupling_loss: float = non_negative("1.25 dB", "dB", "laser-to-chip coupling loss",
                                        "[inferred] 75 % coupling, Buyalo et al. Sci. Rep. 2024", hi=MAX_DB)
    wall_plug_efficiency: float = param(0.25, "1", "electrical-to-optical efficiency",
                                        "DSENT [verbatim]; PhoenixSim 0.10; Innolume > 0.30 peak",
                                        lo=1e-3, hi=1.0)
    fibers_per_source: int = param(1, "1", "transmit fibers one source feeds through a splitter",
                                   "[assumed] one source per fiber", lo=1, hi=MAX_CHANNELS, integer=True)
    aggregate_power_limit: float = positive("20 dBm", "W", "total optical power a silicon waveguide "
                                            "carries before nonlinear absorption", "PhoenixSim [verbatim]",
                                            hi=MAX_POWER_W)
    eye_safety_limit: float = positive("17 dBm", "W", "total optical power allowed in one fiber",
                                       "Keiser, Optical Communications Essentials (E15) [restated]", sweepable=False,
                                       hi=MAX_POWER_W)


@dataclass(frozen=True, kw_only=True, slots=True)
class LossSection(Section):
    section_name: ClassVar[str] = "loss"

    coupler: float = non_negative("1.5 dB", "dB", "chip-to-fiber coupler loss per facet",
                                  "edge coupler < 1.52 dB (TE, O-band), Adv. Photon. Nexus 2025 [verbatim]", hi=MAX_DB)
    waveguide_loss: float = non_negative("1 dB/cm", "dB/m", "on-chip waveguide loss",
                                         "DSENT, PhoenixSim [verbatim]", hi=MAX_DB_PER_M)
    tx_waveguide_length: float = non_negative("0.5 cm", "m", "waveguide from laser input to output coupler",
                                              "[assumed] chiplet-scale routing", hi=1.0)
    rx_waveguide_length: float = non_negative("0.5 cm", "m", "waveguide from input coupler to detector",
                                              "[assumed] chiplet-scale routing", hi=1.0)
    bends: int = param(4, "1", "waveguide bends on the path", "[assumed]", lo=0, hi=MAX_PATH_ELEMENTS,
                       integer=True)
    bend_loss: float = non_negative("0.02 dB", "dB", "loss per bend", "PhoenixSim [verbatim]", hi=MAX_DB)
    crossings: int = param(0, "1", "waveguide crossings on the path", "[assumed]", lo=0, hi=MAX_PATH_ELEMENTS,
                           integer=True)
    crossing_loss: float = non_negative("0.028 dB", "dB", "loss per crossing", "PhoenixSim [verbatim]", hi=MAX_DB)
    splitters: int = param(0, "1", "Y-junctions on the path (other than the laser splitter)", "[assumed]",
                           lo=0, hi=MAX_PATH_ELEMENTS, integer=True)
    splitter_loss: float = non_negative("0.28 dB", "dB", "excess loss per Y-junction (beyond the 3 dB split)",
                                        "PhoenixSim [verbatim]", hi=MAX_DB)
    connectors: int = param(2, "1", "fiber connectors on the path", "[assumed] one at each end", lo=0,
                            hi=MAX_PATH_ELEMENTS, integer=True)
    connector_loss: float = non_negative("0.5 dB", "dB", "loss per connector",
                                         "MTP vs LC penalty, Calient S320 guide [verbatim]", hi=MAX_DB)
    fiber_length: float = non_negative("10 m", "m", "fiber length between GPUs", "[assumed] within a row",
                                       hi=MAX_FIBER_M)
    fiber_loss: float = non_negative("0.35 dB/km", "dB/m", "single-mode fiber loss", "G.652 at 1310 nm "
                                     "[verbatim]", hi=MAX_DB_PER_M)
    switch_ports: int = param(0, "1", "optical-switch passes on the path (an OCS fabric adds its own passes "
                              "to these)", "point-to-point link", lo=0, hi=MAX_PATH_ELEMENTS,
                              integer=True)
    switch_loss: float = non_negative("2 dB", "dB", "insertion loss per optical-switch pass",
                                      "MEMS OCS 'sub-2 dB' [restated]", hi=MAX_DB)
    switch_connectors: int = param(2, "1", "patch connectors each switch pass adds (at connector_loss each)",
                                   "[assumed] a patch at each switch port", lo=0, hi=MAX_PATH_ELEMENTS,
                                   integer=True)
    mux_demux_loss: float = non_negative("0 dB", "dB", "extra multiplexer/demultiplexer loss", "none: rings "
                                         "mux and demux", hi=MAX_DB)


@dataclass(frozen=True, kw_only=True, slots=True)
class ReceiverSection(Section):
    section_name: ClassVar[str] = "receiver"

    model: str = param("ge-photodiode", "choice", "how sensitivity is found", "—",
                       choices=("ge-photodiode", "thermal-noise", "given"))
    sensitivity: float = positive("-9.7 dBm", "W", "average-power sensitivity (model = given)",
                                  "SiP receiver at 25 Gbps, Sci. Rep. 7:13857 (2017) [verbatim]",
                                  applies_when=when("receiver", "model", "given"), hi=MAX_POWER_W)
    reference_extinction_ratio: float = param("inf dB", "dB", "extinction ratio the given sensitivity "
                                              "assumes (inf: an ideal transmitter)", "—", allow_inf=True,
                                              applies_when=when("receiver", "model", "given"), lo=MIN_EXTINCTION_DB,
                                              hi=MAX_DB)
    responsivity: float = param("0.7 A/W", "A/W", "photodiode responsivity", "PhoenixSim [verbatim]", lo=0.01,
                                hi=2.0)
    dark_current: float = non_negative("1 uA", "A", "photodiode dark current", "PhoenixSim [verbatim]",
                                       applies_when=when("receiver", "model", "ge-photodiode"), hi=1e-3)
    noise_density: float = positive("10.9 pA/Hz**0.5", "A/Hz**0.5", "input-referred TIA noise density "
                                    "(model = thermal-noise)", "Xie et al. iWEM 2021, 25 Gb/s TIA "
                                    "(post-layout) [restated]", applies_when=when("receiver", "model", "thermal-noise"),
                                    hi=1e-6)
    energy: float = non_negative("0.55 pJ/bit", "J/bit", "receiver (TIA + detector) energy per bit",
                                 "K. Li et al. 2020, 54 Gb/s SiGe receiver [restated]", hi=MAX_ENERGY_J_PER_BIT)


@dataclass(frozen=True, kw_only=True, slots=True)
class TuningSection(Section):
    section_name: ClassVar[str] = "tuning"

    strategy: str = param("nearest-channel", "choice", "thermal tuning strategy", "DSENT strategies",
                          choices=("nearest-channel", "full-thermal", "athermal"))
    heating_efficiency: float = param("2.57e4 K/W", "K/W", "ring temperature rise per heater watt",
                                      "[inferred] 257 GHz/mW (2.06 nm/mW at 1550 nm, 'on par with the best "
                                      "microheaters', Atabaki et al. Opt. Express 21(13) 2013) over DSENT's "
                                      "10 GHz/K; DSENT's own 1e5 K/W is 4× better than any measured heater. The "
                                      "shift per kelvin itself follows from [ring] dn_dt (E12)", lo=10.0,
                                      hi=1e7)
    sigma_local: float = non_negative("40 GHz", "Hz", "local (within-die) resonance variation, 1σ",
                                      "DSENT [verbatim]", applies_when=_THERMAL_OR_ATHERMAL, hi=10e12)
    sigma_system: float = non_negative("200 GHz", "Hz", "systematic (die-to-die) resonance variation, 1σ",
                                       "DSENT [verbatim]", applies_when=_THERMAL_OR_ATHERMAL, hi=10e12)
    t_min: float = param("280 K", "K", "lowest operating temperature", "DSENT [verbatim]",
                         applies_when=_FULL_THERMAL, lo=1.0, hi=MAX_TEMPERATURE_K)
    t_max: float = param("380 K", "K", "highest operating temperature", "DSENT [verbatim]",
                         applies_when=_FULL_THERMAL, above="t_min", lo=1.0, hi=MAX_TEMPERATURE_K)
    temperature: float = param("300 K", "K", "operating temperature for full-thermal power",
                               "[assumed] room temperature", applies_when=_FULL_THERMAL, at_least="t_min",
                               at_most="t_max", lo=1.0, hi=MAX_TEMPERATURE_K)
    max_heater_power: float = positive("25 mW", "W", "largest heater power a ring's driver supplies: sets the "
                                       "tuning range", "[assumed] heater powers up to 25 mW are reported "
                                       "(Sci. Rep. 2025)", hi=MAX_POWER_W)
    retune_time: float = non_negative("20 us", "s", "time to retune a ring to a new wavelength",
                                      f"{_SIPML} [sim]", applies_when=when("fabric", "kind", "sip-ring"), hi=1.0)


@dataclass(frozen=True, kw_only=True, slots=True)
class PackageSection(Section):
    section_name: ClassVar[str] = "package"

    width: float = positive("55 mm", "m", "GPU package width", "[assumed] SXM-class package", hi=1.0)
    height: float = positive("55 mm", "m", "GPU package height", "[assumed] SXM-class package", hi=1.0)
    chiplets: int = param(1, "1", "optical I/O chiplets on the package edge",
                          "SiP-ML's TeraPHY-class 2 Tbps interface: one chiplet [restated]", lo=1,
                          hi=MAX_CHIPLETS, integer=True)
    chiplet_fiber_edge: float = positive("5 mm", "m", "fiber-attach edge of one chiplet",
                                         "[assumed] chiplet die size not published", hi=1.0)
    fiber_pitch: float = param("127 um", "m", "fiber-array pitch", "V-groove arrays [verbatim]", lo=10e-6,
                               hi=10e-3)


@dataclass(frozen=True, kw_only=True, slots=True)
class LinkDesign(Composite):
    """A complete design point of one GPU's optical I/O."""

    link: LinkSection = field(default_factory=LinkSection)
    ring: RingSection = field(default_factory=RingSection)
    modulator: ModulatorSection = field(default_factory=ModulatorSection)
    laser: LaserSection = field(default_factory=LaserSection)
    loss: LossSection = field(default_factory=LossSection)
    receiver: ReceiverSection = field(default_factory=ReceiverSection)
    tuning: TuningSection = field(default_factory=TuningSection)
    package: PackageSection = field(default_factory=PackageSection)


SECTIONS: dict[str, type] = {
    "link": LinkSection,
    "ring": RingSection,
    "modulator": ModulatorSection,
    "laser": LaserSection,
    "loss": LossSection,
    "receiver": ReceiverSection,
    "tuning": TuningSection,
    "package": PackageSection,
}
