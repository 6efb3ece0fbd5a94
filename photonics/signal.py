"""The signal a link carries: modulation format, symbol rate, forward error correction and the BER the receiver must
reach (E22, E27)."""

from __future__ import annotations

from photonics import fec, modulation
from photonics.link_design import LinkSection
from photonics.link_records import FecFigures, SignalFigures


def fec_figures(lk: LinkSection) -> FecFigures:
    """The FEC of [link] fec: the standard codes from their table (the threshold or the pre-FEC BER a post-FEC target
    needs, overhead, one codeword at the line rate plus the decoder's logic as latency, E27's frame error ratio and
    F42's post-FEC BER at that target), a given code from its fields, or none (the link's BER)."""
    if lk.fec == "none":
        return FecFigures("none", lk.ber, 0.0, 0.0, None)
    if lk.fec == "given":
        return FecFigures("given", lk.fec_threshold, lk.fec_overhead, lk.fec_latency, None, "given code")
    code = fec.CODES[lk.fec]
    target = fec.pre_fec_target(code, lk.fec_target, lk.post_fec_ber, lk.frame_error_ratio)
    return FecFigures(lk.fec, target, fec.overhead(code.n, code.k),
                      fec.codeword_time_s(code.codeword_bits, lk.data_rate) + code.decoder_latency_s,
                      fec.frame_error_ratio(target, code.n, code.t, code.symbol_bits), code.name,
                      fec.output_ber(target, code.n, code.t, code.symbol_bits))


def signal_figures(lk: LinkSection) -> SignalFigures:
    """Levels, symbol rate (line rate / log2 M), target BER (the FEC threshold when a code runs) and the eye Q the
    receiver needs for it (E22)."""
    levels = modulation.LEVELS[lk.modulation]
    code = fec_figures(lk)
    return SignalFigures(modulation=lk.modulation, levels=levels,
                         symbol_rate_baud=lk.data_rate / modulation.bits_per_symbol(levels),
                         target_ber=code.threshold_ber, eye_q=modulation.eye_q_for_ber(levels, code.threshold_ber),
                         fec=code)


def baud_text(symbol_rate_baud: float) -> str:
    """A symbol rate to four significant digits with an SI prefix, e.g. '25 GBd', '11.44 GBd', '500 MBd'."""
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if symbol_rate_baud >= scale:
            return f"{symbol_rate_baud / scale:.4g} {prefix}Bd"
    return f"{symbol_rate_baud:.4g} Bd"
