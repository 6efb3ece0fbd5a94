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
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ReedSolomonCode:
    """An RS(n, k) code correcting t symbols of `symbol_bits` bits, and the pre-FEC BER its standard assumes."""

    name: str
    n: int
    k: int
    t: int
    symbol_bits: int
    threshold_ber: float
    source: str

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


def frame_error_ratio(ber: float, n: int, t: int, symbol_bits: int) -> float:
    """Probability a codeword of n symbols has more than t symbol errors (uncorrectable), random bit errors:
    Σ_{i>t} C(n,i)·p_s^i·(1 − p_s)^(n−i)  (E27). Summed in log space, without scipy."""
    p = symbol_error_probability(ber, symbol_bits)
    if p <= 0.0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
             for i in range(t + 1, n + 1)]
    top = max(terms)
    return math.exp(top) * math.fsum(math.exp(x - top) for x in terms)


def codeword_time_s(codeword_bits: float, rate_bps: float) -> float:
    """Time one codeword takes to arrive at `rate_bps`: the store-and-forward latency a block decoder adds before
    its logic, codeword bits / rate (KP4: 5440 b / 106.25 Gb/s = 51.2 ns) [inferred]."""
    return codeword_bits / rate_bps
