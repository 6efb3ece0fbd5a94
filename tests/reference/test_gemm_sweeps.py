"""The GEMM model (workloads.gemm) against a published sweep by shape and precision: OpenXLA's default matmul
performance table (tests/reference/xla_gemm_table.csv, its source in the file's header), 375 shapes per GPU and
operand type — batch 1, 2, 4 and M, N, K from 256 to 4,096 — on H100 (sm_90) and B200, BF16 and FP8 (e4m3).

What it shows: efficiency falls as the work per kernel shrinks (the fixed kernel time, tile and wave quantization,
the byte roofline) and FP8's gain over BF16 shrinks with it, as measured — the model ranks the shapes as the
measurements do and reproduces the FP8/BF16 ratio in every decade of work.

Where it is off, said as measured: on H100 BF16 the model is 6.9 % from the table on average (+1.8 % bias); on
B200 it is 12–14 % fast at every size, BF16 and FP8 alike — its ceiling is BK's MAMF (1,745 TFLOP/s BF16 at
1792×16128×3072), above the best this grid reaches (1,670 at 4×4096³): a ceiling question, not a shape one. The
table's H100 FP8 rows are left out: 29 of them exceed the H100's dense FP8 peak (1,979 TFLOP/s), which no dense
GEMM can do, so they do not count FLOPs as the rest of the table does."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from workloads.gemm import achieved_flops
from workloads.gpus import get_gpu

TABLE = Path(__file__).with_name("xla_gemm_table.csv")
GPUS = {"sm_90": "h100_sxm5", "sm_100_B200": "b200_sxm"}
PRECISIONS = {"bf16xbf16->bf16": "bf16", "f8e4m3fnxf8e4m3fn->bf16": "fp8"}


def _rows(gpu: str, precision: str):
    with TABLE.open(encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = [r for r in csv.DictReader(lines) if r["gpu"] == gpu and PRECISIONS[r["dtype"]] == precision]
    assert len(rows) == 375, (gpu, precision, len(rows))
    b, m, n, k, measured = (np.array([float(r[key]) for r in rows]) for key in ("b", "m", "n", "k", "flops"))
    return b, m, n, k, measured


def _model(gpu: str, precision: str):
    b, m, n, k, measured = _rows(gpu, precision)
    return achieved_flops(get_gpu(GPUS[gpu]), b, m, n, k, precision=precision), measured, 2 * b * m * n * k


JUDGED = [("sm_90", "bf16", 0.08, 0.03), ("sm_100_B200", "bf16", 0.15, 0.15), ("sm_100_B200", "fp8", 0.15, 0.15)]


@pytest.mark.parametrize("gpu, precision, mean_error, bias", JUDGED)
def test_the_model_ranks_and_times_the_shapes_as_measured(gpu, precision, mean_error, bias):
    """Ranks: Spearman ≥ 0.98 over the 375 shapes (measured efficiency spans 0.4 % to 98 % of the best; a
    shape-blind model would rank by FLOPs alone). Times: mean |log(model/measured)| within the bound, bias
    within its bound (H100 BF16: 6.9 %, +1.8 %; B200: 12.9 % / 12.5 %, +12.7 % / +12.2 %)."""
    from scipy.stats import spearmanr  # here, not at collection: scipy.stats takes ~1 s to import

    predicted, measured, _ = _model(gpu, precision)
    assert spearmanr(predicted, measured).statistic >= 0.98
    error = np.log(predicted / measured)
    assert np.mean(np.abs(error)) <= mean_error
    assert abs(np.mean(error)) <= bias


def test_efficiency_falls_with_the_work_per_kernel_as_measured():
    """Achieved over best, by decade of FLOPs per GEMM, model and measurement alike (H100 BF16): each decade's
    median is below the next one's in both, and the model's is within 15 % of the measured at each."""
    predicted, measured, work = _model("sm_90", "bf16")
    edges = (1e8, 1e9, 1e10, 1e11, 1e12)
    ours = [np.median(predicted[(work >= lo) & (work < hi)]) for lo, hi in zip(edges, edges[1:])]
    theirs = [np.median(measured[(work >= lo) & (work < hi)]) for lo, hi in zip(edges, edges[1:])]
    assert all(a < b for a, b in zip(ours, ours[1:])) and all(a < b for a, b in zip(theirs, theirs[1:]))
    assert np.allclose(ours, theirs, rtol=0.15)


def test_fp8_gains_less_over_bf16_the_smaller_the_gemm():
    """B200, the same 375 shapes in both precisions: FP8 over BF16 by decade of work, measured 1.05 (< 1 GFLOP),
    1.16, 1.56, 1.98 (> 100 GFLOP) — the fixed kernel time and the bytes do not halve with the precision — and the
    model's ratio within 10 % of the measured in every decade, rising as it does."""
    fp8, fp8_measured, work = _model("sm_100_B200", "fp8")
    bf16, bf16_measured, _ = _model("sm_100_B200", "bf16")
    edges = (0.0, 1e9, 1e10, 1e11, 1e13)
    ours, theirs = [], []
    for lo, hi in zip(edges, edges[1:]):
        inside = (work >= lo) & (work < hi)
        ours.append(np.median(fp8[inside] / bf16[inside]))
        theirs.append(np.median(fp8_measured[inside] / bf16_measured[inside]))
    assert np.allclose(ours, theirs, rtol=0.10)
    assert all(a < b for a, b in zip(ours, ours[1:])) and all(a < b for a, b in zip(theirs, theirs[1:]))
    assert theirs[0] < 1.1 and theirs[-1] > 1.9


def test_the_h100_fp8_rows_left_out_exceed_the_dense_peak():
    *_, measured = _rows("sm_90", "fp8")
    peak = get_gpu("h100_sxm5").peak_flops("fp8")
    assert np.sum(measured > peak) == 29
