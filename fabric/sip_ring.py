"""SiP-Ring: GPUs on a fiber ring, micro-rings add and drop wavelengths, wavelengths reused on disjoint arcs.

The optical reach — how many GPUs a wavelength can travel — comes from the photonics budget with the real loss
of passing one GPU (its input and output couplers, the rings it passes off resonance, its waveguide, the hop's
connectors and fiber). Optional amplifiers every k hops restore the power; the ASE they add limits the reach
through the OSNR (photonics.amplifier).

References: SiP-ML simulator (MLNetwork/rostam) [sim] for the ring (2 directions × 5 fibers, N_λ/(2·5) per
fiber), the 20 µs retune every 100 µs (useful time 100/120) and the 16-GPU placement locality.
"""

from __future__ import annotations

import math

import numpy as np

from fabric.bom import BomLine
from fabric.design import ClusterDesign
from fabric.estimate import FabricEstimate, useful_time_fraction
from fabric.optical_io import optical_io_bom
from photonics import amplifier, link, microring, receiver
from core.errors import InputError
from photonics.link import LinkEstimate, Violation, evaluate, sensitivity, transmit_loss_db
from core.units import db_to_lin, dbm_to_w


def pass_through_loss_db(design: ClusterDesign, est: LinkEstimate) -> float:
    """Loss of passing one intermediate GPU of the design's ring: `photonics.link.pass_through_loss_db` of its link
    estimate (couplers, waveguides, the rings of the fiber at their own detunings, the next hop's fiber plant)."""
    return link.pass_through_loss_db(est)


def unamplified_reach_hops(est: LinkEstimate, pass_loss_db: float) -> int:
    """Hops a wavelength can travel with no amplifier: `photonics.link.hop_reach` (1 + the intermediate GPUs the
    neighbour's margin pays for; 0 when even the neighbour does not close)."""
    return link.hop_reach(est, pass_loss_db)


def amplified_reach_hops(design: ClusterDesign, est: LinkEstimate, pass_loss_db: float, every: int) -> tuple[int, dict]:
    """Reach with an amplifier every `every` hops, each restoring the fiber-launch level. The worst destination sits
    `every` hops past the last amplifier it passed; its Q combines the receiver's own noise (from its sensitivity
    and the extinction ratio that sensitivity assumes), the signal–ASE beat on both levels at the link's extinction
    ratio and the ASE–ASE beat of n amplifiers (photonics.amplifier); crosstalk and the reserved margin are taken off
    the signal (the extinction ratio is in the levels, not a penalty here). A wavelength may pass the largest n with
    Q ≥ Q(BER). The worst-placed source sits one hop before an amplifier: reach = 1 + every·n hops."""
    lk, rx = design.link.link, design.link.receiver
    f0 = float(microring.frequency_hz(lk.wavelength))
    b_o = est.ring.filter_fwhm_hz  # the drop ring is the optical filter in front of the detector
    b_e = 0.75 * lk.data_rate  # noise bandwidth of the receiver fits (E16)
    q_need = receiver.q_from_ber(lk.ber)
    er = float(db_to_lin(design.link.modulator.extinction_ratio))
    fiber_launch_dbm = est.launch_dbm - transmit_loss_db(est.ledger)  # average power per wavelength in the fiber
    amp_in_dbm = fiber_launch_dbm - every * pass_loss_db
    rx_dbm = est.received_dbm - (every - 1) * pass_loss_db
    penalties = sum(p.value_db for p in est.penalties if p.name != "extinction ratio") + lk.system_margin
    p_eff_w = float(dbm_to_w(rx_dbm - penalties))
    sensitivity_w, reference_er = sensitivity(design.link)
    sigma_th = float(amplifier.thermal_sigma_a(sensitivity_w, reference_er, rx.responsivity, q_need))
    amps = np.arange(1, design.fabric.gpus + 1)
    osnr = amplifier.chain_osnr_db(amp_in_dbm, design.sip_ring.amplifier_noise_figure, amps, f0, b_o)
    ase = amplifier.ase_psd_w_per_hz(dbm_to_w(rx_dbm), osnr, b_o)
    q = amplifier.q_amplified(p_eff_w, er, rx.responsivity, sigma_th, ase, b_o, b_e)
    max_amps = int(np.max(np.nonzero(q >= q_need)[0]) + 1) if (q >= q_need).any() else 0
    reach = min(design.fabric.gpus - 1, 1 + every * max_amps)
    return reach, {"OSNR after one amplifier": (float(osnr[0]), f"dB in {b_o / 1e9:.0f} GHz"),
                   "Q after one amplifier": (float(q[0]), f"needed {q_need:.2f}"),
                   "amplifiers a wavelength may pass": (float(max_amps), ""),
                   "amplifier input per channel": (amp_in_dbm, "dBm average")}


def evaluate_ring(design: ClusterDesign) -> FabricEstimate:
    fab, ring, lk = design.fabric, design.sip_ring, design.link.link
    if lk.fibers_per_direction % ring.directions:
        raise InputError(f"[sip_ring] directions = {ring.directions} must divide [link] fibers_per_direction = "
                         f"{lk.fibers_per_direction}")
    fibers_per_ring_direction = lk.fibers_per_direction // ring.directions
    est = evaluate(design.link)
    pass_loss = pass_through_loss_db(design, est)
    violations = list(est.violations)
    if design.link.modulator.kind != "add-drop":
        violations.append(Violation("modulator_kind", "all-pass modulators put every local laser line on the ring "
                                    "fiber, on top of the wavelengths passing through: wavelength reuse needs "
                                    "add-drop modulators ([modulator] kind = 'add-drop')"))
    figures = {"wavelengths per fiber": (float(lk.wavelengths_per_fiber), ""),
               "fibers per ring direction": (float(fibers_per_ring_direction), ""),
               "loss of passing one GPU": (pass_loss, "dB"),
               "neighbour margin": (est.margin_db, "dB")}
    reach = unamplified_reach_hops(est, pass_loss)
    figures["unamplified reach"] = (float(reach), "hops")
    amps = 0
    bom = [*optical_io_bom(design.link),
           BomLine(key="fiber.smf_per_m", count=design.link.loss.fiber_length * lk.fibers_per_direction,
                   scope="per_gpu", network=True),
           BomLine(key="cable.fiber_patch", count=lk.fibers_per_direction, scope="per_gpu", network=True)]
    if ring.amplifier_every:
        section = ring.amplifier_every * pass_loss
        if ring.amplifier_gain < section:
            violations.append(Violation("amplifier_gain", f"amplifier gain {ring.amplifier_gain:g} dB < loss of "
                                        f"{ring.amplifier_every} hops {section:.2f} dB"))
        if reach < ring.amplifier_every:
            violations.append(Violation("amplifier_spacing", f"an amplifier every {ring.amplifier_every} hops, but "
                                        f"the unamplified reach is {reach} hops"))
        if reach >= ring.amplifier_every:  # each amplified section closes on its own: noise sets the reach
            reach, osnr = amplified_reach_hops(design, est, pass_loss, ring.amplifier_every)
            figures.update(osnr)
        amps = math.ceil(fab.gpus / ring.amplifier_every) * lk.fibers_per_direction
        bom.append(BomLine(key=ring.amplifier, count=amps, scope="per_cluster", network=True))
    reach = min(reach, fab.gpus - 1)
    notes = [f"each hop: {design.link.loss.fiber_length:g} m of fiber, {design.link.loss.connectors} connectors"]
    if ring.amplifier_every:
        notes.append("a closed ring whose amplifiers restore every span has unit round-trip gain: out-of-band ASE "
                     "circulates unless a filter breaks the loop or the gain is clamped (not modelled)")
    figures["optical reach"] = (float(reach), "hops")
    figures["amplifiers"] = (float(amps), "")
    if reach < min(ring.locality, fab.gpus - 1):
        if est.margin_db < 0:
            why = f"the link to the neighbouring GPU does not close (margin {est.margin_db:.2f} dB)"
        elif not ring.amplifier_every:
            why = (f"passing a GPU costs {pass_loss:.2f} dB against a {est.margin_db:.2f} dB neighbour margin "
                   "(add amplifiers: [sip_ring] amplifier_every)")
        elif reach < ring.amplifier_every:
            why = f"an amplified section of {ring.amplifier_every} hops does not close"
        else:
            why = ("the amplifiers' noise limits it (raise the launch power, lower the noise figure or amplify more "
                   "often)")
        violations.append(Violation("ring_reach", f"a wavelength reaches {reach} GPU(s) but SiP-ML places "
                                    f"model-parallel partitions within {ring.locality} GPUs: {why}"))
    useful = useful_time_fraction(ring.decision_interval, design.link.tuning.retune_time)
    capacity = est.capacity_bps
    total_wavelengths = lk.wavelengths_per_fiber * lk.fibers_per_direction
    return FabricEstimate(
        kind="sip-ring", gpus=fab.gpus, per_gpu_bandwidth_bps=capacity, useful_fraction=useful,
        # per direction: traffic from one half to the other leaves on the clockwise fibers at one cut point and on
        # the counter-clockwise fibers at the other, together the whole capacity of one GPU's fibers
        degree=int(min(total_wavelengths, ring.directions * reach)), bisection_bps=capacity,
        alpha_s=fab.latency, link=est, figures=figures, bom=tuple(bom), violations=tuple(violations),
        notes=tuple(notes))
