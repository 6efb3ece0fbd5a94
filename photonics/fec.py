"""Forward error correction: the IEEE 802.3 Reed–Solomon codes, their pre-FEC BER thresholds, overhead, frame
error ratio and codeword latency (E27).

References
----------
- Intel, "AN 846: Intel Stratix 10 Forward Error Correction", 2018, §5.2 (100GBASE-KR4, RS(528,514), t = 7) and §5.3
  (100GBASE-KP4, RS(544,514), t = 15); 10-bit symbols [verbatim].
- IEEE P802.3cd reflector, "Relating DER, BER and Q in Draft 1.2", March 2017: Clause 136 "BER of 2.4E-4" for KP4;
  Q(3.8906) = 5e-5 (Eq. 95-1 usage) for KR4 [verbatim / restated].
- E27 (photonics-2 reference, standard, [inferred]): with random bit errors, p_s = 1 − (1 − BER)^m for m-bit symbols,
  FER = Σ_{i>t} C(n,i)·p_s^i·(1 − p_s)^(n−i); overhead n/k − 1. Burst errors (DFE) make it worse.
- F41–F42 (fabric-photonics-3 reference, bounded-distance decoder, [inferred]): a failed codeword keeps its i symbol
  errors, SER_out = (1/n)·Σ_{i>t} i·C(n,i)·p_s^i·(1 − p_s)^(n−i); a wrong m-bit symbol has 2^(m−1)/(2^m − 1) of its
  bits wrong, BER_out = SER_out·2^(m−1)/(2^m − 1).
- Decoder latency: the RS100 Clause 91 decoder core takes a codeword on a 160-bit datapath (16 symbols per clock) and
  outputs it 49 clocks after its first word (ipcores.com RS100 datasheet [verbatim]); with 33 clocks spent receiving
  a 528-symbol codeword, its logic adds 16 clocks, 24.8 ns at 100GBASE-R's 103.125 Gb/s / 160 b = 644.5 MHz
  [inferred]; the KP4 option's latency is not given and is taken as the same [assumed].
"""

from __future__ import annotations

import math

from core.records import record


@record
class ReedSolomonCode:
    """An RS(n, k) code correcting t symbols of `symbol_bits` bits, and the pre-FEC BER its standard assumes."""

    name: str
    n: int
    k: int
    t: int
    symbol_bits: int
    threshold_ber: float
    source: str
    decoder_latency_s: float = 24.8e-9  # the decode logic after the codeword has arrived (module docstring)

    @property
    def codeword_bits(self) -> int:
        return self.n * self.symbol_bits


CODES = {
    "kr4": ReedSolomonCode("RS(528,514) KR4", 528, 514, 7, 10, 5e-5,
                           "AN 846 §5.2 [verbatim]; pre-FEC BER 5e-5, P802.3cd reflector 2017 [restated]"),
    "kp4": ReedSolomonCode("RS(544,514) KP4", 544, 514, 15, 10, 2.4e-4,
                           "AN 846 §5.3 [verbatim]; Clause 136 'BER of 2.4E-4', P802.3cd reflector 2017 [verbatim]"),
}


def overhead(n: int, k: int) -> float:
    """Rate overhead of an (n, k) block code, n/k − 1  (E27)."""
    return n / k - 1.0


def symbol_error_probability(ber: float, symbol_bits: int) -> float:
    """Probability an m-bit symbol holds at least one error under random bit errors, 1 − (1 − BER)^m  (E27)."""
    return -math.expm1(symbol_bits * math.log1p(-ber))


def _uncorrectable_sum(ber: float, n: int, t: int, symbol_bits: int, weight) -> float:
    """Σ_{i>t} weight(i)·C(n,i)·p_s^i·(1 − p_s)^(n−i), summed in log space (no scipy)."""
    p = symbol_error_probability(ber, symbol_bits)
    if p <= 0.0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [math.log(weight(i)) + math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p
             + (n - i) * log_q for i in range(t + 1, n + 1)]
    top = max(terms)
    return math.exp(top) * math.fsum(math.exp(x - top) for x in terms)


def frame_error_ratio(ber: float, n: int, t: int, symbol_bits: int) -> float:
    """Probability a codeword of n symbols has more than t symbol errors (uncorrectable), random bit errors:
    Σ_{i>t} C(n,i)·p_s^i·(1 − p_s)^(n−i)  (E27)."""
    return _uncorrectable_sum(ber, n, t, symbol_bits, lambda i: 1.0)


def output_ber(ber: float, n: int, t: int, symbol_bits: int) -> float:
    """Post-FEC BER of a bounded-distance decoder under random bit errors: failed codewords keep their i symbol
    errors, each wrong symbol has 2^(m−1)/(2^m − 1) of its bits wrong  (F41–F42)."""
    ser = _uncorrectable_sum(ber, n, t, symbol_bits, float) / n
    return ser * 2.0 ** (symbol_bits - 1) / (2.0**symbol_bits - 1.0)


def pre_fec_ber_for(post_fec_ber: float, code: ReedSolomonCode) -> float:
    """Highest pre-FEC BER whose post-FEC BER (F41–F42) stays within `post_fec_ber`."""
    return _highest_ber(lambda ber: output_ber(ber, code.n, code.t, code.symbol_bits), post_fec_ber)


def pre_fec_ber_for_frames(frame_error_ratio_target: float, code: ReedSolomonCode) -> float:
    """Highest pre-FEC BER whose frame (codeword) error ratio (E27) stays within `frame_error_ratio_target`: the
    inverse of `frame_error_ratio`, as a standard's frame-loss objective is turned into the BER a lane must reach."""
    return _highest_ber(lambda ber: frame_error_ratio(ber, code.n, code.t, code.symbol_bits), frame_error_ratio_target)


def pre_fec_target(code: ReedSolomonCode, target: str, post_fec_ber: float, frame_error_ratio_target: float) -> float:
    """The pre-FEC BER a standard code must reach under [link] fec_target: its standard's threshold ('threshold'),
    or the highest meeting a post-FEC BER ('post-fec') or a frame error ratio ('frame-error')."""
    if target == "post-fec":
        return pre_fec_ber_for(post_fec_ber, code)
    if target == "frame-error":
        return pre_fec_ber_for_frames(frame_error_ratio_target, code)
    return code.threshold_ber


def _highest_ber(measure, limit: float) -> float:
    """Highest BER in [1e-15, 0.5] whose `measure` (growing with the BER) stays within `limit`: bisection in
    log10(BER)."""
    lo, hi = -15.0, math.log10(0.5)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if measure(10.0**mid) <= limit else (lo, mid)
    return 10.0**lo


def codeword_time_s(codeword_bits: float, rate_bps: float) -> float:
    """Time one codeword takes to arrive at `rate_bps`: the store-and-forward latency a block decoder adds before
    its logic, codeword bits / rate (KP4: 5440 b / 106.25 Gb/s = 51.2 ns) [inferred]."""
    return codeword_bits / rate_bps
