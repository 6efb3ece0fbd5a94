"""FLOP counts and rates at the boundary, and the bytes each training precision stores per element.

The project's unit registry (core/units.txt) has no FLOP unit, so FLOP counts and rates are read here:
"312 TFLOP/s", "4.1 GFLOP", "9.7e14 FLOP/s", with the decimal prefixes k, M, G, T, P, E. Inside, they are
plain floats in FLOP and FLOP/s, like every other SI float of the project.
"""

from __future__ import annotations

import re

from core.errors import InputError

_PREFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_FLOP = re.compile(rf"^\s*({_NUMBER})\s*([kMGTPE]?)FLOPS?\s*(/\s*s)?\s*$", re.ASCII)  # ASCII digits, as everywhere

# Bytes of one element as the GEMM operands are read, by precision; activations of mixed-precision training
# are stored in 16 bits whatever the GEMM precision (fp32 training stores 32 bits).
OPERAND_BYTES = {"fp32": 4.0, "tf32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "fp4": 0.5}
PRECISIONS = tuple(OPERAND_BYTES)


def activation_bytes(precision: str) -> float:
    """Bytes per stored activation element: 4 in fp32/tf32 training, 2 otherwise (mixed precision keeps
    activations in 16 bits even when the GEMMs run in fp8/fp4) [inferred, Micikevicius et al. ICLR 2018]."""
    return 4.0 if precision in ("fp32", "tf32") else 2.0


def parse_flops(value, *, rate: bool) -> float:
    """'312 TFLOP/s' → 3.12e14 (rate=True) or '4.1 GFLOP' → 4.1e9 (rate=False). A bare number is refused:
    the unit must be written."""
    expected = "a FLOP rate such as '312 TFLOP/s'" if rate else "a FLOP count such as '4.1 GFLOP'"
    if not isinstance(value, str):
        raise InputError(f"got {value!r}, expected {expected}")
    match = _FLOP.match(value)
    if not match or bool(match.group(3)) != rate:
        raise InputError(f"cannot read {value!r}, expected {expected}")
    number = float(match.group(1)) * _PREFIX[match.group(2)]
    if not number >= 0 or number == float("inf"):
        raise InputError(f"{value!r}: expected a finite value ≥ 0")
    return number


def check_precision(precision: str) -> str:
    """The precision name, or InputError listing the known ones."""
    if precision not in OPERAND_BYTES:
        raise InputError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    return precision
