"""The ring modulator's driver energy from its circuit, DSENT-class (Sun et al., NOCS 2012; photonics-4.md E60–E67):
the extinction ratio and insertion loss set how far the resonance must move, the junction how much swing that takes
(a linear shift per volt, E62, loading the driver with the junction's capacitance; or DSENT's charge model of an
abrupt depletion junction, E63), the node and the symbol rate how large a driver and pre-driver chain must switch it.

    x(T) = √((1 − T_n)/(1 − T) − 1)                     detuning in half-linewidths of a Lorentzian notch   (E60)
    γ = x(T₁) − x(T₀),  T₁ = 10^(−IL/10), T₀ = T₁/ER    the shift, in half-linewidths, the bit must make     (E61)
    Q_γ = γ·q·n_g·V_ring / (2·n_f·Q_L·Γ)                 the charge that moves the resonance by γ             (E63)
    V_a = V_bi·[(1 + Q_γ/(2·V_bi·C_j0))² − 1],  C_eff = Q_γ/V_a,  V_H = b·V_a   an abrupt p-n junction's swing  (E63)
    or V_a = γ·λ/(2·Q_L·η_λ),  C_eff = C_j0                                       a linear shift per volt        (E62)
    t_req = 1/(4·BR): driver of S_d unit inverters and an odd pre-driver chain sized to meet it            (E66)
    E₀₁ = V_dd²·[C_d0·ΣS_pre + C_g0·(ΣS_pre + S_d − S_first)] + V_H·max(V_H, V_dd)·(S_d·C_d0 + C_eff + C_par)   (E67)
    E_bit = ¼·E₀₁ (a 0→1 transition every fourth bit of random NRZ)

A design point is infeasible (energy infinite) where the (IL, ER) pair cannot be reached by the notch (E61b), the
depletion region would outgrow the junction, or the node cannot switch the load within t_req (E66). Near that
limit the driver grows as 1/(t_req − t_min), so the energy per bit rises steeply over a few Gbit/s of rate.

Every function is elementwise over numpy arrays (a sweep's grid). The node figures are DSENT's technology files
[verbatim]; the unit inverter built from them (an NMOS of the minimum width and a PMOS twice as wide) is [assumed],
since DSENT's own standard-cell characterisation was not read (photonics-4.md §1.3).
"""

from __future__ import annotations

import numpy as np

from core.records import record


Q_E = 1.602e-19  # C (DSENT Constants [verbatim])
K_B = 1.3806503e-23  # J/K (DSENT Constants [verbatim])
EPS_0 = 8.854187817e-12  # F/m, vacuum permittivity (CODATA)
EPS_SI = 11.7  # relative permittivity of silicon (DSENT Constants [verbatim])
PREDRIVER_STAGES = 20  # at most (DSENT RingModulator [restated])


@record
class Node:
    """A CMOS node as DSENT's technology files give it [verbatim]: supply, temperature, minimum gate width, gate and
    drain capacitance per width, effective resistance × width of NMOS and PMOS."""

    vdd: float
    temperature: float
    w_min: float
    c_gate_per_w: float
    c_drain_per_w: float
    r_n_w: float
    r_p_w: float

    @property
    def unit_inverter(self) -> tuple[float, float, float]:
        """(C_g0, C_d0, R₀) of a unit inverter: an NMOS of W_min and a PMOS of 2·W_min (gate and drain caps of 3·W_min;
        R₀ the mean of the pull-down's R_n·W/W_min and the pull-up's R_p·W/(2·W_min)) [assumed]."""
        w = 3 * self.w_min
        r0 = 0.5 * (self.r_n_w / self.w_min + self.r_p_w / (2 * self.w_min))
        return self.c_gate_per_w * w, self.c_drain_per_w * w, r0


NODES = {  # DSENT Bulk45LVT, Bulk32LVT, Bulk22LVT, TG11LVT (photonics-4.md §1.3) [verbatim]
    "45nm": Node(1.0, 340.0, 160e-9, 1.00e-15 / 1e-6, 0.60e-15 / 1e-6, 1.10e3 * 1e-6, 1.50e3 * 1e-6),
    "32nm": Node(0.9, 340.0, 120e-9, 0.95e-15 / 1e-6, 0.64e-15 / 1e-6, 0.89e3 * 1e-6, 1.27e3 * 1e-6),
    "22nm": Node(0.8, 340.0, 100e-9, 0.90e-15 / 1e-6, 0.62e-15 / 1e-6, 0.70e3 * 1e-6, 0.93e3 * 1e-6),
    "11nm": Node(0.6, 340.0, 80e-9, 0.61e-15 / 1e-6, 0.56e-15 / 1e-6, 1.16e3 * 1e-6, 1.28e3 * 1e-6),
}


def notch_detuning(transmission, notch):
    """E60: the detuning, in half-linewidths, at which a Lorentzian notch of on-resonance transmission `notch`
    passes `transmission`."""
    return np.sqrt((1 - notch) / (1 - transmission) - 1)


def shift_needed(insertion_loss_db, extinction_ratio_db, notch):
    """E61/E61b: (γ, feasible) — the resonance shift in half-linewidths between the '1' level (IL below the
    peak) and the '0' level (ER below that), and whether the notch reaches both."""
    t1 = 10 ** (-np.asarray(insertion_loss_db, dtype=float) / 10)
    t0 = t1 / 10 ** (np.asarray(extinction_ratio_db, dtype=float) / 10)
    ok = (t1 < 1) & (t0 > notch)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = notch_detuning(np.where(ok, t1, 0.5), notch) - notch_detuning(np.where(ok, t0, 0.5), notch)
    return np.where(ok, gamma, np.nan), ok


@record
class Junction:
    """A depletion ring modulator's junction (DSENT Photonics.model defaults [verbatim] unless the design says
    otherwise): carrier index change per density n_f (m³), confinement Γ, junction share of the circumference L_j,
    its height H and width W, doping N_A, N_D and intrinsic density n_i (m⁻³)."""

    n_f: float
    confinement: float
    junction_fraction: float
    height: float
    width: float
    doping_p: float
    doping_n: float
    intrinsic: float = 1e16


def junction_figures(radius, junction: Junction, temperature: float):
    """(V_bi, x_d0, C_j0) of the abrupt p-n junction (E63): built-in voltage, zero-bias depletion width, and the
    capacitance of the junction's share of the ring."""
    j = junction
    v_bi = K_B * temperature / Q_E * np.log(j.doping_p * j.doping_n / j.intrinsic ** 2)
    x_d0 = np.sqrt(2 * EPS_0 * EPS_SI * v_bi * (j.doping_p + j.doping_n) / (Q_E * j.doping_p * j.doping_n))
    c_j0 = EPS_0 * EPS_SI * (2 * np.pi * radius * j.junction_fraction * j.width) / x_d0
    return v_bi, x_d0, c_j0


def linear_swing(gamma, loaded_q, wavelength, shift_per_volt):
    """E62: V_pp = γ·λ/(2·Q_L·η_λ), the swing of a modulator whose resonance moves η_λ (m/V) per volt."""
    return gamma * wavelength / (2 * loaded_q * shift_per_volt)


def depletion_swing(gamma, loaded_q, radius, group_index, junction: Junction, temperature: float):
    """E63: (V_a, C_eff, feasible) — the reverse swing an abrupt junction needs to move the resonance by γ
    half-linewidths, the load it presents (Q_γ/V_a), and whether the depletion region stays inside the junction."""
    j = junction
    v_ring = 2 * np.pi * radius * j.height * j.width
    charge = gamma * Q_E * group_index * v_ring / (2 * j.n_f * loaded_q * j.confinement)
    v_bi, x_d0, c_j0 = junction_figures(radius, junction, temperature)
    v_a = v_bi * ((1 + charge / (2 * v_bi * c_j0)) ** 2 - 1)
    ok = np.isfinite(v_a) & (x_d0 * np.sqrt(1 + v_a / v_bi) < j.height)
    with np.errstate(divide="ignore", invalid="ignore"):
        c_eff = np.where(v_a > 0, charge / np.where(v_a > 0, v_a, 1.0), 0.0)
    return v_a, c_eff, ok


@record
class DriverEnergy:
    """The driver's figures, elementwise: swing, supply, load, sizes, energy per bit (J, inf where infeasible)."""

    swing_v: object
    supply_v: object
    load_f: object
    driver_size: object
    predriver_size: object  # Σ of the pre-driver chain's stage sizes
    energy_j_per_bit: object
    settle_s: object = None  # the fastest the node settles the swing into its load (t_min)
    quarter_s: object = None  # the quarter symbol it must settle in (t_req)


def driver_energy(v_a, c_eff, symbol_rate, node: Node, supply_boost: float, parasitic_r: float,
                  parasitic_c: float, feasible=True) -> DriverEnergy:
    """E66–E67: the driver and its pre-driver chain sized for t_req = 1/(4·BR), and their energy per bit."""
    c_g0, c_d0, r0 = node.unit_inverter
    v_h = supply_boost * v_a
    t_req = 1 / (4 * np.asarray(symbol_rate, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        k_t = np.log(v_h / (v_h - v_a))
    t_int = k_t * r0 * c_d0
    t_min = t_int + k_t * parasitic_r * c_eff
    ok = np.asarray(feasible) & (t_min < t_req) & (t_int < t_req) & (v_a > 0)
    slack = np.where(ok, t_req - t_min, 1.0)
    s_d = np.maximum(1.0, k_t * r0 * (c_eff + parasitic_c) / slack)
    # the pre-driver chain: stages added until the input load is one unit gate and their count is odd
    stage_slack = np.where(ok, t_req - t_int, 1.0)
    load = s_d * c_g0
    total = np.zeros(np.shape(load))
    first = np.ones(np.shape(load))
    stages = np.zeros(np.shape(load))
    active = np.ones(np.shape(load), dtype=bool)
    for _ in range(PREDRIVER_STAGES):
        size = np.maximum(1.0, r0 * load / stage_slack)
        total = np.where(active, total + size, total)
        first = np.where(active, size, first)
        stages = np.where(active, stages + 1, stages)
        load = np.where(active, size * c_g0, load)
        active = active & ~((load <= c_g0 * (1 + 1e-12)) & (stages % 2 == 1))
    e01 = (node.vdd ** 2 * (c_d0 * total + c_g0 * (total + s_d - first))
           + v_h * np.maximum(v_h, node.vdd) * (s_d * c_d0 + c_eff + parasitic_c))
    return DriverEnergy(swing_v=v_a, supply_v=v_h, load_f=c_eff, driver_size=s_d, predriver_size=total,
                        energy_j_per_bit=np.where(ok, 0.25 * e01, np.inf), settle_s=t_min, quarter_s=t_req)

