"""Convolutions as implicit GEMMs (NVIDIA's Convolutional Layers guide, workloads-3.md §5): the forward, data- and
weight-gradient products at their own shapes, reading images not im2col matrices; BatchNorm, ReLU and adds as
memory-bound passes that fusion shortens; and the per-image throughput of ResNet-50 that follows."""

from __future__ import annotations

import numpy as np
import pytest

from workloads import cnn
from workloads.gemm import DEFAULT_GEMM, gemm_time_s
from workloads.gpus import get_gpu
from workloads.models import zoo

A100 = get_gpu("a100_sxm4_80gb")
KW = dict(ceiling_flops_per_s=250e12, sm_count=108, stream_bytes_per_s=1.5e12, hbm_bandwidth_bytes_per_s=2.0e12,
          constants=DEFAULT_GEMM, nchw=False)


def test_one_convolution_is_three_gemms_at_the_guides_shapes():
    """3×3, 64 → 128 channels, 56×56 → 28×28 (stride 2), 32 images: forward M = N·P·Q = 32·28², N = K = 128,
    K = C·R·S = 576; data gradient M = N·H·W = 32·56², N = C = 64, K = K·R·S = 1152; weight gradient
    M = C·R·S = 576, N = 128, K = N·P·Q."""
    conv = cnn.Conv(64, 128, 3, 2, 56, norm=False, relu=False)
    t = cnn.step_times([conv], 32, norm_fusion="separate", **KW)
    x, y, w = 32 * 56 * 56 * 64, 32 * 28 * 28 * 128, 64 * 9 * 128
    g = dict(ceiling_flops_per_s=250e12, sm_count=108, hbm_bandwidth_bytes_per_s=2.0e12, constants=DEFAULT_GEMM)
    expected = (gemm_time_s(1, 32 * 28 * 28, 128, 576, moved_bytes=2 * (x + w + y), **g)
                + gemm_time_s(1, 32 * 56 * 56, 64, 1152, moved_bytes=2 * (y + w + x), **g)
                + gemm_time_s(1, 576, 128, 32 * 28 * 28, moved_bytes=2 * (x + y + w), **g))
    assert float(t.gemm_s) == pytest.approx(float(expected), rel=1e-12)
    assert float(t.memory_s) == 0.0 and t.kernels == 3


def test_the_first_layer_has_no_data_gradient_and_pads_three_channels_to_four():
    stem = cnn.resnet_layers([1], 64, 224, 10, True)[0]
    assert stem.first and stem.c_in == 3 and stem.h_out == 112
    t = cnn.step_times([stem], 8, norm_fusion="separate", **KW)
    assert t.kernels == 2 + 2 + 2  # forward and weight gradient; BatchNorm and ReLU, forward and backward
    assert float(t.gemm_s) == pytest.approx(float(
        gemm_time_s(1, 8 * 112 ** 2, 64, 4 * 49, ceiling_flops_per_s=250e12, sm_count=108,
                    hbm_bandwidth_bytes_per_s=2.0e12, moved_bytes=2 * (8 * 224 ** 2 * 4 + 4 * 49 * 64
                                                                       + 8 * 112 ** 2 * 64))
        + gemm_time_s(1, 4 * 49, 64, 8 * 112 ** 2, ceiling_flops_per_s=250e12, sm_count=108,
                      hbm_bandwidth_bytes_per_s=2.0e12, moved_bytes=2 * (8 * 224 ** 2 * 4 + 8 * 112 ** 2 * 64
                                                                         + 4 * 49 * 64))), rel=1e-12)


def test_fusion_and_layout_move_the_memory_bound_time_only():
    layers = zoo()["resnet-50"].layers
    times = {f: cnn.step_times(layers, 64, norm_fusion=f, **KW) for f in ("separate", "fused", "conv")}
    assert times["separate"].gemm_s == times["fused"].gemm_s == times["conv"].gemm_s
    assert times["separate"].memory_s > times["fused"].memory_s > times["conv"].memory_s
    nchw = cnn.step_times(layers, 64, norm_fusion="separate", **{**KW, "nchw": True})
    assert nchw.memory_s > times["separate"].memory_s and nchw.gemm_s == times["separate"].gemm_s


def test_resnet50_throughput_lands_where_published_runs_are():
    """On A100 at 256 images per GPU, eager PyTorch-style kernels (separate BatchNorm, ReLU, add) at the global
    in-situ share: near DLE's PyTorch 21.03 row (2,470 img/s on one A100 80 GB, channels-last AMP) — the same
    number validate judges on 8 GPUs."""
    from workloads.settings import DEFAULT_SETTINGS
    from workloads.compute_totals import cnn_compute

    t = cnn_compute(zoo()["resnet-50"], A100, samples=256, settings=DEFAULT_SETTINGS)
    assert 2000 < 256 / float(t.total_s) < 3000


@pytest.mark.parametrize("model", ["resnet-50", "vgg-16"])
@pytest.mark.parametrize("fusion,nchw", [("separate", True), ("fused", False), ("conv", False)])
def test_a_network_step_is_the_sum_of_its_layers_alone_over_arrays_of_images_and_splits(model, fusion, nchw):
    """The network timed at once (every GEMM in one call, the kernels' bytes summed in order) equals each layer
    timed alone and added, at every (images, mp) of a broadcast grid."""
    layers = zoo()[model].layers
    images, mp = np.array([[1.0], [32.0], [256.0]]), np.array([1.0, 2.0, 3.0, 8.0])
    kw = {**KW, "nchw": nchw, "norm_fusion": fusion}
    whole = cnn.step_times(layers, images, model_parallel=mp, **kw)
    alone = [cnn.step_times([layer], images, model_parallel=mp, **kw) for layer in layers]
    assert whole.gemm_s.shape == (3, 4) and whole.kernels == sum(t.kernels for t in alone)
    assert np.allclose(whole.gemm_s, sum(t.gemm_s for t in alone), rtol=1e-12, atol=0)
    assert np.allclose(whole.memory_s, sum(t.memory_s for t in alone), rtol=1e-12, atol=0)


def test_a_memory_bound_convolution_moves_its_input_filter_and_output_once_per_gemm():
    """A 1×1 convolution of 128 channels over 64 images of 56² pixels: its forward and data-gradient GEMMs do
    ~64 FLOPs a byte, under the ridge, so their time is their bytes' — input, filter and output once each (the
    guide's implicit GEMM)."""
    conv = cnn.Conv(128, 128, 1, 1, 56, norm=False, relu=False)
    x = y = 64 * 56 * 56 * 128
    w = 128 * 128
    g = dict(ceiling_flops_per_s=250e12, sm_count=108, hbm_bandwidth_bytes_per_s=2.0e12, constants=DEFAULT_GEMM)
    shapes = ((64 * 56 * 56, 128, 128), (64 * 56 * 56, 128, 128), (128, 128, 64 * 56 * 56))
    expected = sum(gemm_time_s(1, *mnk, moved_bytes=2 * (x + y + w), **g) for mnk in shapes)
    less = sum(gemm_time_s(1, *mnk, moved_bytes=2 * (x + w), **g) for mnk in shapes)
    assert float(less) < 0.9 * float(expected)  # the bytes decide: GEMMs that skipped their output would be faster
    t = cnn.step_times([conv], 64, norm_fusion="separate", **KW)
    assert float(t.gemm_s) == pytest.approx(float(expected), rel=1e-12)


def test_a_layer_beyond_int64_is_timed_as_floats_not_refused_with_an_overflow():
    """An absurd image (5·10⁹ pixels a side: h² beyond int64) is timed in floats, as Python's own integers are
    against an array; the search then refuses it for its memory, not with an internal error."""
    huge = cnn.Conv(64, 64, 3, 1, 5_000_000_000)
    t = cnn.step_times([huge], 8, norm_fusion="separate", **KW)
    assert np.isfinite(t.gemm_s) and t.gemm_s > 1e6 and t.kernels == 3 + 2 + 2  # GEMMs, BatchNorm, ReLU
