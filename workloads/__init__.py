"""The workload floor: models, GPUs, the formulas of transformer training (parameters, FLOPs, memory, pipeline
bubble, mixture-of-experts and DLRM traffic) and the achieved-compute model that turns a layer into seconds.

Modules: `gpus` (GPU data, `gpus.toml`), `models` (the model zoo in `zoo/` and its strict loader; SiP-ML's
gradient sizes in `sipml_cases.toml`), `transformer` (closed-form Megatron / Korthikanti formulas, counts from a
model's shape, parameters per GPU, tensor/pipeline message sizes), `memory` (activations and ZeRO model states),
`pipeline` (bubble), `moe`, `dlrm`, `gemm` (GEMM time on a GPU), `compute` (per-layer forward/backward seconds of
a transformer), `compute_totals` (models known only by totals, and DLRM), `quantities` (FLOP units, precisions),
`files` (TOML reading). Imports core, photonics and fabric, never sipml.
"""
