"""The workload floor: models, GPUs, the formulas of transformer training (parameters, FLOPs, memory, pipeline
bubble, mixture-of-experts and DLRM traffic) and the achieved-compute model that turns a layer into seconds.

Modules: `gpus` (GPU data), `models` (the model zoo and its loader), `transformer` (closed-form Megatron /
Korthikanti formulas), `memory` (activations and ZeRO model states), `pipeline` (bubble), `moe`, `dlrm`,
`gemm` (GEMM time on a GPU), `compute` (per-layer forward/backward seconds). Imports core, photonics and fabric,
never sipml.
"""
