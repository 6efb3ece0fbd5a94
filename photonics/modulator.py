"""Ring modulators: extinction ratio and on-off-keying power penalties, rate limit.

References
----------
- M. Bahadori et al., JLT 34(12), 2016, and the PhoenixSim modulator model: PP_ER and PP_OOK (E8).
- DSENT (Sun et al., NOCS 2012): Q ≤ f0/BR for a ring modulator (E13), see `microring.max_rate_for_q`.
"""

from __future__ import annotations

import numpy as np


def extinction_ratio_penalty_db(er_lin):
    """Power penalty of a finite extinction ratio, PP_ER = 10·log10((er+1)/(er−1))  (E8).
    er is the linear ratio of '1' to '0' power (> 1); er = ∞ gives 0 dB."""
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isinf(er), 0.0, 10.0 * np.log10((er + 1.0) / (er - 1.0)))


def ook_penalty_db(er_lin):
    """Penalty of modulating a CW laser line on/off, average over peak: PP_OOK = 10·log10(2er/(er+1))
    (E8; → 3 dB as er → ∞)."""
    er = np.asarray(er_lin, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(er), 10.0 * np.log10(2.0), 10.0 * np.log10(2.0 * er / (er + 1.0)))


def relative_extinction_penalty_db(er_lin, reference_er_lin):
    """Extra ER penalty of a link with ratio `er_lin` over a receiver whose sensitivity was specified at
    `reference_er_lin`: PP_ER(er) − PP_ER(er_ref). Zero when the sensitivity already assumes the link's ER."""
    return extinction_ratio_penalty_db(er_lin) - extinction_ratio_penalty_db(reference_er_lin)
