"""Time of one (batched) GEMM on a GPU: a roofline over the SMs the kernel's tiles actually keep busy.

    t = t_kernel + max( 2·batch·M·N·K / (C · η_q),  bytes / (B_HBM · η_HBM) )

- C, the ceiling: the rate of all SMs at full tensor-core efficiency, set from the measured best achievable
  matmul rate (MAMF, workloads-2.md §7) and the quantization of the shape it was measured at,
  C = MAMF / η_q(best shape). So every GPU's ceiling is its own measurement, not a fitted number.
- η_q, tile and wave quantization (NVIDIA's Matrix Multiplication Background guide §3, workloads-2.md §7): the
  output is cut into tiles of 128×128 (or 128×64 / 64×128 at a lower per-SM efficiency); a partial tile
  computes padding, and the last wave of tiles leaves SMs idle. When the tiles do not fill the SMs, K is split
  (split-K, up to 16 ways, each slice padded to whole 32-deep k-steps) at the price of writing and re-reading
  fp32 partial sums. The kernel takes the fastest of these choices, as cuBLAS heuristics do.
- bytes: each operand read once and the output written once (operands in the GEMM precision, output in
  `output_bytes`); B_HBM · η_HBM is the HBM bandwidth a streaming kernel achieves.
- t_kernel: the fixed time of a kernel (launch, prologue, pipeline fill and drain) — the floor every small GEMM
  of the XLA-MM table sits on.

The few constants are global (one set for every GPU and every model) and physical; `GemmConstants` names
them with their sources. Validated against the H100 GEMM table of workloads-2.md §7 (XLA-MM) and the MAMF
ceilings in tests/workloads/test_gemm.py.
"""

from __future__ import annotations

import math

import numpy as np

from core import speed_knobs
from core.distinct import distinct_columns
from core.fields import MIN_EFFICIENCY, param, positive
from core.records import record
from workloads.gpus import Gpu
from workloads.flop_units import OPERAND_BYTES, activation_bytes

_XLA = "OpenXLA xla/service/gpu/model/matmul_interpolator_data.h (XLA-MM), H100 bf16 table"


@record(kw_only=True)
class GemmConstants:
    """The GEMM model's global constants."""

    kernel_time: float = param("5 us", "s", "fixed time of one kernel: launch, prologue, pipeline fill and drain",
                               f"[inferred] the small-size floor of {_XLA}: 256³ to 512×512×256 GEMMs all take "
                               "5–6 µs; the same floor fits the table's B200 rows", lo=0.0)
    hbm_efficiency: float = param(0.85, "1", "fraction of the HBM bandwidth a streaming kernel achieves",
                                  "[assumed] copy and STREAM-type kernels reach ~84–92 % of the HBM spec on "
                                  "A100/H100 (third-party measurements, low confidence); 0.8–0.9 fit "
                                  "XLA-MM equally", lo=MIN_EFFICIENCY, hi=1.0)
    tile: int = param(128, "1", "edge of the large output tile (M and N)", "[inferred] the 128×128 CTA "
                      "tile of cuBLAS/CUTLASS tensor-core kernels on sm80/sm90 (NVIDIA Matrix Multiplication "
                      "Background §3); with it alone XLA-MM is fit to 10 % mean error", lo=16, integer=True)
    half_tile_efficiency: float = param(0.85, "1", "per-SM efficiency of the 128×64 and 64×128 tiles relative "
                                        "to 128×128 (less operand reuse in shared memory)",
                                        f"[inferred] 0.75–0.9 fit {_XLA} equally (mean error 7.7–8.0 %)",
                                        lo=MIN_EFFICIENCY, hi=1.0)
    max_split_k: int = param(16, "1", "largest split-K factor", "[assumed] cuBLAS splits K up to 16-32 ways",
                             lo=1, integer=True)
    k_tile: int = positive(32, "1", "depth of one k-step of a tensor-core tile: K is padded to it, per split-K "
                           "slice", "[assumed] the 32-deep (fp16/bf16) k-tiles of small cuBLAS/CUTLASS kernels; "
                           "head dimensions 64–128 are whole multiples", integer=True)


DEFAULT_GEMM = GemmConstants()


def _tile_choices(constants: GemmConstants):
    t = constants.tile
    half = max(1, t // 2)
    return ((t, t, 1.0), (t, half, constants.half_tile_efficiency), (half, t, constants.half_tile_efficiency))


def _splits(constants: GemmConstants):
    s, out = 1, []
    while s <= constants.max_split_k:
        out.append(s)
        s *= 2
    return out


def _choices(batch, m, n, k, sm_count, constants: GemmConstants):
    """(η_q, split) of every tile shape and split-K factor a kernel could use, on two leading axes (tile shapes,
    split factors) before the broadcast shape of the arguments. K is padded to whole k-tiles of every slice; K is
    split only when the output tiles alone leave SMs idle (fewer tiles than SMs)."""
    depth = constants.k_tile
    lead = (1,) * np.ndim(np.broadcast(batch, m, n, k, sm_count))
    tm, tn, rel = (np.reshape(column, (-1, 1) + lead) for column in zip(*_tile_choices(constants)))
    split = np.reshape(_splits(constants), (1, -1) + lead)
    tiles = batch * np.ceil(m / tm) * np.ceil(n / tn)
    fill = m * n * batch / (tiles * tm * tn)
    slices = tiles * split
    padded_k = split * np.ceil(k / (split * depth)) * depth
    eta = fill * (k / padded_k) * slices / (np.ceil(slices / sm_count) * sm_count) * rel
    return np.where((split == 1) | (tiles < sm_count), eta, 0.0), split


def quantization_efficiency(batch, m, n, k, sm_count, constants: GemmConstants = DEFAULT_GEMM):
    """η_q without split-K partial sums' traffic: the best over tile shapes and split factors of useful MACs
    over the MACs the busy SMs could do (what the quantization alone costs). Broadcasts over arrays."""
    batch, m, n, k = (np.asarray(x, dtype=float) for x in (batch, m, n, k))
    eta, _ = _choices(batch, m, n, k, sm_count, constants)
    return np.max(eta, axis=(0, 1), initial=0.0)


def ceiling_flops(gpu: Gpu, precision: str, constants: GemmConstants = DEFAULT_GEMM) -> float:
    """C = MAMF / η_q(best shape): the all-SMs rate whose quantized share at the shape MAMF was measured at is
    the MAMF (the MAMF itself where the best shape is not known). The fixed kernel time comes on top, so no
    shape quantized like the best one is predicted faster than the measured best."""
    mamf = gpu.mamf_flops(precision)
    shape = gpu.mamf_best_shape(precision)
    if shape is None:
        return mamf
    return mamf / float(quantization_efficiency(1, *shape, gpu.sm_count, constants))


def gemm_time_s(batch, m, n, k, *, ceiling_flops_per_s, sm_count, hbm_bandwidth_bytes_per_s,
                operand_bytes=2.0, output_bytes=2.0, constants: GemmConstants = DEFAULT_GEMM, moved_bytes=None):
    """Seconds for `batch` independent M×K · K×N products (broadcasting over arrays): the fastest of the tile
    and split-K choices, each a roofline of its compute and its HBM traffic (each operand read once and the
    output written once, or `moved_bytes` where the operands are not stored as matrices: an implicit-GEMM
    convolution reads its input image, not the im2col matrix)."""
    batch, m, n, k = (np.asarray(x, dtype=float) for x in (batch, m, n, k))
    moved = (batch * (operand_bytes * (m * k + k * n) + output_bytes * m * n) if moved_bytes is None
             else np.asarray(moved_bytes, dtype=float))
    shape = np.broadcast(batch, m, n, k, moved).shape
    # a strategy set's GEMMs repeat (dp, pp, ZeRO leave them alone)
    if math.prod(shape) >= speed_knobs.KNOBS.gemm_distinct_from:
        shapes = np.stack([np.broadcast_to(a, shape).ravel() for a in (batch, m, n, k, moved)])
        first, inverse = distinct_columns(shapes)
        if len(first) <= shapes.shape[1] // 2:  # each distinct one timed once (the time is elementwise)
            return _gemm_time_s(*shapes[:, first], ceiling_flops_per_s, sm_count, hbm_bandwidth_bytes_per_s,
                                constants)[inverse].reshape(shape)
    return _gemm_time_s(batch, m, n, k, moved, ceiling_flops_per_s, sm_count, hbm_bandwidth_bytes_per_s, constants)


def _gemm_time_s(batch, m, n, k, moved, ceiling_flops_per_s, sm_count, hbm_bandwidth_bytes_per_s, constants):
    batch, m, n, k = np.broadcast_arrays(batch, m, n, k, moved)[:4]  # the moved bytes may carry axes of their own
    flops = 2.0 * batch * m * n * k
    bandwidth = hbm_bandwidth_bytes_per_s * constants.hbm_efficiency
    eta, split = _choices(batch, m, n, k, sm_count, constants)
    partials = np.where(split > 1, 2.0 * 4.0 * split * batch * m * n, 0.0)  # fp32 partial sums, out and back in
    with np.errstate(divide="ignore"):
        compute_s = flops / (ceiling_flops_per_s * eta)
    best = np.min(np.maximum(compute_s, (moved + partials) / bandwidth), axis=(0, 1))  # the fastest choice
    return constants.kernel_time + best


def gpu_gemm_time_s(gpu: Gpu, batch, m, n, k, *, precision=None, output_bytes=None,
                    constants: GemmConstants = DEFAULT_GEMM):
    """`gemm_time_s` on `gpu` in `precision` (default: its 16-bit training mode; operands in that precision,
    output 16-bit unless given)."""
    precision = precision or gpu.default_precision
    return gemm_time_s(batch, m, n, k, ceiling_flops_per_s=ceiling_flops(gpu, precision, constants),
                       sm_count=gpu.sm_count, hbm_bandwidth_bytes_per_s=gpu.hbm_bandwidth_bytes_per_s,
                       operand_bytes=OPERAND_BYTES[precision],
                       output_bytes=activation_bytes(precision) if output_bytes is None else output_bytes,
                       constants=constants)


def achieved_flops(gpu: Gpu, batch, m, n, k, *, precision=None, constants: GemmConstants = DEFAULT_GEMM):
    """FLOP/s the model predicts for one GEMM shape."""
    batch, m, n, k = (np.asarray(x, dtype=float) for x in (batch, m, n, k))
    return 2.0 * batch * m * n * k / gpu_gemm_time_s(gpu, batch, m, n, k, precision=precision, constants=constants)
