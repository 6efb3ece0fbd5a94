"""Convolutional networks by their layers: the layer table of a ResNet or VGG built from its architecture, and the
seconds one training step of it takes on one GPU, layer by layer.

Each convolution runs as an implicit GEMM (NVIDIA's Convolutional Layers guide, workloads-3.md §5): forward
M = N·P·Q (images × output pixels), N = K (output channels), K = C·R·S (input channels × filter); the data
gradient M = N·H·W, N = C, K = K·R·S; the weight gradient M = C·R·S, N = K, K = N·P·Q — each timed by
`workloads.gemm` (tile and wave quantization over the SMs, the MAMF ceiling), reading its input and filter and
writing its output once (the implicit GEMM never materialises the im2col matrix). The first layer's 3 input
channels are padded to 4 (the guide's alignment rule). BatchNorm, ReLU, the residual add and the pools are
memory-bound kernels: bytes moved / the streaming HBM bandwidth, plus the fixed time of a kernel each; a stack
that fuses BatchNorm with its ReLU and residual add (cuDNN's BatchNormalizationForwardTrainingEx, as NVIDIA's
MXNet ResNet-50 runs it) moves those tensors once instead of in separate kernels, and an NCHW layout makes the
library transpose each convolution's input and output (workloads-3.md §5). Mixed precision: 16-bit activations.

Channel-split model parallelism over `mp` GPUs gives each GPU K/mp of every layer's filters; the outputs are
all-gathered forward and their gradients reduce-scattered backward (the traffic `model_parallel_bytes` counts).
"""

from __future__ import annotations

import numpy as np

from core.records import record
from workloads.gemm import gemm_time_s

ELEMENT_BYTES = 2.0  # 16-bit activations and operands (mixed precision)


@record
class Conv:
    """One convolution (and the BatchNorm / ReLU / residual add after it) on one image."""

    c_in: int
    c_out: int
    kernel: int
    stride: int
    h_in: int  # input height (= width)
    bias: bool = False
    norm: bool = True  # a BatchNorm follows
    relu: bool = True
    residual: bool = False  # the block's shortcut is added before the ReLU
    first: bool = False  # the network's input layer: no data gradient

    @property
    def h_out(self) -> int:
        return -(-self.h_in // self.stride)

    @property
    def parameters(self) -> int:
        return (self.c_in * self.c_out * self.kernel ** 2 + (self.c_out if self.bias else 0)
                + (2 * self.c_out if self.norm else 0))

    @property
    def macs(self) -> int:
        return self.c_in * self.c_out * self.kernel ** 2 * self.h_out ** 2

    @property
    def outputs(self) -> int:
        return self.c_out * self.h_out ** 2

    @property
    def inputs(self) -> int:
        return self.c_in * self.h_in ** 2


@record
class Dense:
    """A fully connected layer on one image (ReLU after it unless it is the classifier)."""

    f_in: int
    f_out: int
    relu: bool = True

    @property
    def parameters(self) -> int:
        return self.f_in * self.f_out + self.f_out

    @property
    def macs(self) -> int:
        return self.f_in * self.f_out


@record
class Pool:
    """A max (or average) pool: `elements_in` read, `elements_out` written per image."""

    elements_in: int
    elements_out: int


def resnet_layers(blocks, width: int, image: int, classes: int, bottleneck: bool) -> list:
    """ResNet v1.5 (He et al. 2016 with the stride on the 3×3 convolution, torchvision's layout): a 7×7/2 stem and
    3×3/2 max pool, stages of `blocks` blocks at widths width·2^i (bottlenecks expand 4×; the first block of each
    stage projects its shortcut), global average pool, the classifier."""
    layers: list = [Conv(3, width, 7, 2, image, first=True)]
    size = layers[0].h_out
    pooled = -(-size // 2)
    layers.append(Pool(width * size ** 2, width * pooled ** 2))
    size, c_in = pooled, width
    expansion = 4 if bottleneck else 1
    for stage, count in enumerate(blocks):
        w = width * 2 ** stage
        for block in range(count):
            stride = 2 if (block == 0 and stage > 0) else 1
            out = w * expansion
            if bottleneck:
                layers += [Conv(c_in, w, 1, 1, size), Conv(w, w, 3, stride, size),
                           Conv(w, out, 1, 1, -(-size // stride), relu=True, residual=True)]
            else:
                layers += [Conv(c_in, w, 3, stride, size), Conv(w, out, 3, 1, -(-size // stride), residual=True)]
            if block == 0 and (stride > 1 or c_in != out):
                layers.append(Conv(c_in, out, 1, stride, size, relu=False))  # projection shortcut
            size, c_in = -(-size // stride), out
    layers.append(Pool(c_in * size ** 2, c_in))
    layers.append(Dense(c_in, classes, relu=False))
    return layers


def vgg_layers(channels, fully_connected, image: int, classes: int) -> list:
    """VGG (Simonyan and Zisserman 2015): 3×3 convolutions with biases and ReLU, no BatchNorm, 0 in `channels`
    a 2×2 max pool; then the fully connected layers and the classifier."""
    layers: list = []
    c_in, size = 3, image
    for c in channels:
        if c == 0:
            half = size // 2
            layers.append(Pool(c_in * size ** 2, c_in * half ** 2))
            size = half
        else:
            layers.append(Conv(c_in, c, 3, 1, size, bias=True, norm=False, first=not layers))
            c_in = c
    f_in = c_in * size ** 2
    for f in fully_connected:
        layers.append(Dense(f_in, f))
        f_in = f
    layers.append(Dense(f_in, classes, relu=False))
    return layers


def parameters(layers) -> int:
    return sum(layer.parameters for layer in layers if not isinstance(layer, Pool))


def forward_flops(layers) -> float:
    """2 FLOPs per multiply–accumulate of the convolutions and fully connected layers, per image."""
    return 2.0 * sum(layer.macs for layer in layers if not isinstance(layer, Pool))


def stored_activation_bytes(layers) -> float:
    """Bytes per image kept for the backward pass: each convolution's output (the BatchNorm input) and the
    tensor after its BatchNorm (the ReLU input), 16-bit; pools and dense layers keep their inputs."""
    total = 0.0
    for layer in layers:
        if isinstance(layer, Conv):
            total += ELEMENT_BYTES * layer.outputs * (2 if layer.norm else 1)
        elif isinstance(layer, Dense):
            total += ELEMENT_BYTES * layer.f_in
        else:
            total += ELEMENT_BYTES * layer.elements_in
    return total


def model_parallel_bytes(layers) -> float:
    """Bytes per image channel-split model parallelism moves: every convolution's output all-gathered forward and
    its gradient reduce-scattered backward, 16-bit."""
    return sum(2.0 * ELEMENT_BYTES * layer.outputs for layer in layers if isinstance(layer, Conv))


@record
class StepTimes:
    """Seconds of one training step's compute on one GPU, arrays over the cases given."""

    gemm_s: np.ndarray  # convolutions and dense layers, forward and both gradients
    memory_s: np.ndarray  # BatchNorm, ReLU, residual adds, pools, layout transposes
    kernels: int  # kernels launched per step

    @property
    def total_s(self):
        return self.gemm_s + self.memory_s


def step_times(layers, images, *, model_parallel=1, ceiling_flops_per_s, sm_count, stream_bytes_per_s,
               hbm_bandwidth_bytes_per_s, constants, norm_fusion: str, nchw: bool) -> StepTimes:
    """Forward and backward of `images` images (per GPU) through `layers`, each GPU holding 1/`model_parallel` of
    every layer's output channels. Broadcasts over arrays of images and model_parallel. Every layer's GEMMs are
    timed in one array call and its memory-bound kernels summed in layer order (`_LayerTable`)."""
    n, mp = (np.asarray(x, dtype=float) for x in (images, model_parallel))
    shape = np.broadcast(n, mp).shape
    t = _LayerTable(layers, norm_fusion, nchw, len(shape))
    gemms, streams = t.blocks(n, mp)
    in_order = (lambda parts, order: np.take(np.concatenate([np.broadcast_to(p, p.shape[:1] + shape) for p in parts]),
                                             order, axis=0))  # the blocks' rows as the layers run them
    gemm = np.zeros(shape)
    if t.gemm_order:  # (m, n, k, bytes moved) of every GEMM: (GEMMs, *shape)
        m, n_out, k, moved_bytes = (in_order(parts, t.gemm_order) for parts in zip(*gemms))
        gemm = np.sum(gemm_time_s(1.0, m, n_out, k, ceiling_flops_per_s=ceiling_flops_per_s, sm_count=sm_count,
                                  hbm_bandwidth_bytes_per_s=hbm_bandwidth_bytes_per_s, constants=constants,
                                  moved_bytes=moved_bytes), axis=0)
    moved = np.zeros(shape)
    if t.stream_order:  # each kernel's bytes added in the layers' order, one after another
        moved = moved + np.cumsum(in_order(streams, t.stream_order), axis=0)[-1]
    return StepTimes(gemm_s=gemm, memory_s=np.where(moved > 0, moved / stream_bytes_per_s, 0.0)
                     + t.streams_launched * constants.kernel_time, kernels=t.kernels)


class _LayerTable:
    """A layer list as columns over its convolutions, fully connected layers and pools (each a column vector
    against the images and model-parallel arrays of `dims` dimensions), with the order in which the layers run
    their GEMMs and memory-bound kernels. Each GEMM's sizes and bytes are the implicit-GEMM shapes of the module
    docstring, computed with the same operations in the same order for every layer at once."""

    def __init__(self, layers, fusion: str, nchw: bool, dims: int):
        conv, dense, pools = [], [], []
        gemm_at, stream_at = [], []  # per GEMM / kernel pass in running order: (block, row in the block)
        self.kernels = self.streams_launched = 0
        for layer in layers:
            if isinstance(layer, Pool):
                stream_at.append(("pool", len(pools)))
                pools.append(layer.elements_in + layer.elements_out)
                self._launch(2, streams=True)
            elif isinstance(layer, Dense):
                gemm_at += [(block, len(dense)) for block in ("dense_forward", "dense_data", "dense_weight")]
                dense.append((layer.f_in, layer.f_out))
                self._launch(3)
            else:
                c_in = 4 if layer.c_in == 3 else layer.c_in  # channel padding for the tensor cores
                factor, kernels = _pointwise(layer, fusion)
                gemm_at += [(block, len(conv)) for block in ("conv_forward", "conv_data", "conv_weight")
                            if not (block == "conv_data" and layer.first)]
                stream_at += [(block, len(conv)) for block in ("transpose", "pointwise")
                              if nchw or block == "pointwise"]
                conv.append((c_in, c_in * layer.kernel ** 2, layer.kernel ** 2, layer.c_out, layer.h_in ** 2,
                             layer.h_out ** 2, factor))
                self._launch(2 if layer.first else 3)
                self._launch(4 if nchw else 0, streams=True)
                self._launch(kernels, streams=True)
        # float columns: each whole number becomes the float a Python int does against an array (no int64 to
        # overflow on an absurd image size)
        column = (lambda values: np.reshape(np.array(values, dtype=float), (-1,) + (1,) * dims))
        convs = list(zip(*conv)) or [()] * 7
        self.c_in, self.crs, self.rs, self.c_out, self.h_in2, self.h_out2, self.factor = (column(c) for c in convs)
        self.f_in, self.f_out = (column(d) for d in (list(zip(*dense)) or [()] * 2))
        self.pool_elements = column(pools)
        self.gemm_order = _order(gemm_at, {"conv_forward": len(conv), "conv_data": len(conv),
                                           "conv_weight": len(conv), "dense_forward": len(dense),
                                           "dense_data": len(dense), "dense_weight": len(dense)})
        self.stream_order = _order(stream_at, {"pool": len(pools), "transpose": len(conv), "pointwise": len(conv)})

    def _launch(self, count: int, streams: bool = False) -> None:
        self.kernels += count
        if streams:
            self.streams_launched += count

    def blocks(self, n, mp) -> tuple[list, list]:
        """The blocks of `gemm_order` ((m, n, k, bytes) each) and of `stream_order` (bytes each), in their
        orders, for `n` images per GPU and `mp` GPUs splitting each layer's output channels."""
        el = ELEMENT_BYTES
        k_out = self.c_out / mp
        pixels_in, pixels_out = n * self.h_in2, n * self.h_out2
        x, y = pixels_in * self.c_in, pixels_out * k_out  # elements in and out (this GPU's channels)
        w = self.crs * k_out
        f_in, d_out, images = self.f_in, self.f_out / mp, n * np.ones_like(self.f_in)
        dx, dy, dw = n * f_in, n * d_out, f_in * d_out
        gemms = [(pixels_out, k_out, self.crs, el * (x + w + y)),  # forward
                 (pixels_in, self.c_in, k_out * self.rs, el * (y + w + x)),  # data gradient
                 (self.crs, k_out, pixels_out, el * (x + y + w)),  # weight gradient
                 (images, d_out, f_in, el * (dx + dw + dy)),  # a dense layer's forward,
                 (images, f_in, d_out, el * (dy + dw + dx)),  # data gradient
                 (f_in, d_out, images, el * (dx + dy + dw))]  # and weight gradient
        streams = [2.0 * el * n * self.pool_elements / mp,  # a pool, forward and backward
                   2.0 * el * 2.0 * (x + y),  # NCHW: input and output transposed to NHWC and back, both ways
                   el * y * self.factor]  # BatchNorm, ReLU, the residual add (`_pointwise`)
        return gemms, streams


def _order(at: list, sizes: dict) -> list:
    """Positions in the blocks joined in `sizes`' order of each (block, row)."""
    starts = dict(zip(sizes, np.cumsum([0, *sizes.values()])[:-1].tolist()))
    return [starts[block] + row for block, row in at]


def _pointwise(layer: Conv, fusion: str) -> tuple[float, int]:
    """(bytes per output element over ELEMENT_BYTES, kernels) of what follows a convolution, forward and backward:
    BatchNorm forward reads its input twice (statistics, then normalise) and writes once, backward reads input
    and output gradient twice and writes once; ReLU reads and writes, its backward reads two and writes one; the
    residual add reads two and writes one, and its gradient is summed where the branches meet. 'fused': the ReLU
    and the add ride in the BatchNorm's passes (reading the shortcut, writing and reading the ReLU mask).
    'conv': the statistics come from the convolution's epilogue (cuDNN runtime fusion), so the forward BatchNorm
    reads its input once, not twice."""
    if not layer.norm:  # VGG: bias in the GEMM epilogue, ReLU separate
        return (2.0 + 3.0, 2) if layer.relu else (0.0, 0)
    passes, kernels = 3.0 + 5.0, 2  # BatchNorm forward and backward
    extra = (1.0 if layer.residual else 0.0) + (1.0 if layer.relu else 0.0)
    if fusion in ("fused", "conv"):
        return passes - (1.0 if fusion == "conv" else 0.0) + 2.0 * extra, kernels
    relu = (2.0 + 3.0) if layer.relu else 0.0
    add = (3.0 + 3.0) if layer.residual else 0.0
    return passes + relu + add, kernels + 2 * int(layer.relu) + 2 * int(layer.residual)
