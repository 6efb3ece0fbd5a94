"""The software settings of a training step, each default with its source: the kernels and their memory-bound
constants (`ComputeSettings`, read by `workloads.compute`) and how communication is scheduled against compute
(`TrainingSettings`, read by `workloads.training`). A stack (`workloads.stacks`) sets the ones its software differs
in.
"""

from __future__ import annotations

from dataclasses import field
from statistics import NormalDist

import numpy as np

from core.fields import MIN_EFFICIENCY, param
from core.records import record
from workloads.gemm import GemmConstants


@record(kw_only=True)
class ComputeSettings:
    """Software choices and the constants of the memory-bound and fused-attention kernels."""

    attention: str = param("flash3", "choice", "attention kernel: 'unfused' (QKᵀ and attention·V GEMMs with the "
                           "s×s scores in HBM, softmax and dropout as separate kernels: Megatron-LM 2021–22), "
                           "'flash2' (FlashAttention-2) or 'flash3' (FlashAttention-3 / cuDNN fused attention on "
                           "Hopper and newer); a GPU without figures for the family runs the next older one "
                           "(workloads.gpus)", "—", choices=("unfused", "flash2", "flash3"))
    flash_half_length: float = param(235.0, "1", "keys per fused-attention call at which the kernel reaches half "
                                     "its long-sequence rate (rate ∝ L/(L + L½))", "[inferred] FlashAttention-2's "
                                     "50–73 % forward range on A100 (workloads-3.md §4) spans 512 to 16k tokens: "
                                     "512·(73/50 − 1) ≈ 235", lo=0.0)
    flash_block: float = param(128.0, "1", "tokens of the fused-attention kernel's outer tile (the query block the "
                               "forward iterates keys for, the key block the backward iterates queries for): a causal "
                               "kernel runs the tiles that cross the diagonal whole and pays each outer tile's "
                               "pipeline fill however few keys it visits", "Dao-AILab/flash-attention: "
                               "FlashAttention-2 on sm80, head dim 128: forward kBlockM 128, backward kBlockN 128 "
                               "(csrc/flash_attn/src/flash_fwd_launch_template.h, flash_bwd_launch_template.h); "
                               "FlashAttention-3, head dim 128: forward kBlockM 128, backward kBlockN 128 (hopper/) "
                               "[verbatim]; each outer tile's fill paid however few keys it visits [inferred]",
                               lo=1.0)
    grad_accumulation: str = param("fused", "choice", "'separate': each microbatch's 16-bit weight gradients "
                                   "are added into fp32 main gradients by a separate kernel (Megatron-LM "
                                   "2021); 'fused': the weight-gradient GEMM accumulates into fp32 directly; "
                                   "'sharded': the GEMM writes 16-bit gradients that each microbatch reduce-"
                                   "scatters, accumulated on the 1/dp shard only (Megatron-FSDP; the shard's "
                                   "pass, 10 B per parameter over dp GPUs, left out: ~1 % of an 8-GPU step)",
                                   "—", choices=("separate", "fused", "sharded"))
    conv_layout: str = param("nhwc", "choice", "activation layout of convolutions: 'nhwc' (channels last, what "
                             "tensor cores read) or 'nchw' (the library transposes each input and output)",
                             "workloads-3.md §5: NVIDIA Convolutional Layers guide, NHWC recommended [restated]",
                             choices=("nhwc", "nchw"))
    norm_fusion: str = param("separate", "choice", "'separate': BatchNorm, ReLU and the residual add as their own "
                             "kernels (PyTorch eager); 'fused': one BatchNorm-add-ReLU kernel (cuDNN "
                             "BatchNormalizationForwardTrainingEx); 'conv': that, with the BatchNorm statistics "
                             "computed in the convolution's epilogue (cuDNN runtime fusion)", "workloads-3.md §5 [restated]", choices=("separate", "fused", "conv"))
    layer_kernels: str = param("fused", "choice", "how a transformer layer's memory-bound ops run: 'fused' (one "
                               "kernel per activation and rotary embedding: Megatron-LM, Transformer Engine, "
                               "Apex, torch.compile; the norm is norm_kernel's) or 'eager' (PyTorch eager "
                               "autograd, op by op, as torchtitan's Llama modules write them: rotary embedding "
                               "through fp32 complex numbers, SwiGLU as silu then multiply, the attention output "
                               "and grouped-query keys and values copied; workloads.compute._ops)",
                               "—", choices=("fused", "eager"))
    norm_kernel: str = param("fused", "choice", "RMSNorm: 'fused' (one kernel each way: Apex, Transformer Engine, "
                             "torchtitan's fused_rmsnorm) or 'eager' (torchtitan's RMSNorm module op by op in fp32; "
                             "workloads.compute._ops)", "—", choices=("fused", "eager"))
    expert_gemms: str = param("per-expert", "choice", "how a GPU's local experts run each of their matrix products: "
                              "'per-expert' (a GEMM kernel of its own for every local expert, expert_gemm_streams "
                              "of them at a time, each its own launch and wave quantization: Transformer "
                              "Engine's GroupedLinear, which Megatron-Core's TEGroupedMLP runs) or 'grouped' (one "
                              "grouped kernel for them all)", "NVIDIA/TransformerEngine "
                              "transformer_engine/common/gemm/cublaslt_gemm.cu, multi_stream_cublas_gemm: a "
                              "cuBLAS GEMM per group member on compute stream i % num_streams; the CUTLASS "
                              "grouped GEMM only behind NVTE_USE_CUTLASS_GROUPED_GEMM on Hopper in BF16 "
                              "[restated]", choices=("per-expert", "grouped"))
    expert_gemm_streams: int = param(4, "1", "CUDA streams the per-expert GEMMs run on at once",
                                     "NVIDIA/TransformerEngine transformer_engine/common/util/multi_stream.cpp: "
                                     "get_num_compute_streams() returns 4 [verbatim]", lo=1, integer=True)
    moe_dispatch: str = param("sorted", "choice", "how a MoE layer's dispatcher lays out the token copies: "
                              "'sorted' (Megatron-Core's all-to-all dispatcher: the copies permuted by expert before "
                              "the all-to-all, then, with more than one expert on a GPU, sorted again by local "
                              "expert after it, and both undone on the way back: 4 passes over the copies each way) "
                              "or 'direct' (received already grouped by expert: permute and unpermute only, 2 "
                              "passes)", "NVIDIA/Megatron-LM megatron/core/transformer/moe/token_dispatcher.py, "
                              "MoEAlltoAllTokenDispatcher: 'Permutation 2: Sort tokens by local expert' and "
                              "'Unpermutation 2' when num_local_experts > 1 [verbatim]",
                              choices=("sorted", "direct"))
    gemm_precision: str = param("16-bit", "choice", "the precision of a run's GEMMs when the strategy names none: "
                                "'16-bit' (the GPU's bf16, or fp16 without it) or 'fp8' (FP8 where the GPU has FP8 "
                                "tensor cores, 16-bit elsewhere)", "—", choices=("16-bit", "fp8"))
    fp8_scaling: str = param("delayed", "choice", "how FP8 GEMM operands are scaled: 'delayed' (the scale from "
                             "earlier steps' amax history, the new amax found inside the cast kernel), 'current' (each "
                             "tensor's own amax first, in a pass of its own that reads it: Transformer Engine's "
                             "Float8CurrentScaling, NeMo's FP8-CS) or 'blockwise' (a scale per tile or block, its "
                             "maximum found inside the quantizing kernel: DeepSeek-V3's 1×128 and 128×128)",
                             "Transformer Engine recipes DelayedScaling and Float8CurrentScaling; DS3 §3.3.2 "
                             "[restated]", choices=("delayed", "current", "blockwise"))
    fp8_cast_bytes: float = param(4.0, "1", "HBM bytes per element an FP8 GEMM's operand casts move (read the "
                                  "16-bit tensor, write its FP8 copy and its FP8 transpose for the backward)",
                                  "[inferred] Transformer Engine's fused cast-transpose: read 2 B, write 1 + 1 B "
                                  "(workloads-3.md §4: delayed scaling leaves no other per-step cost)", lo=0.0)
    optimizer_bytes_per_param: float = param(34.0, "1", "HBM bytes the optimizer step moves per parameter",
                                             "[inferred] fused mixed-precision Adam: reads fp32 gradient, "
                                             "master weight, momentum, variance (16 B), writes the last three "
                                             "and a 16-bit weight copy (14 B), plus the gradient-norm pass (4 B)",
                                             lo=0.0)
    shard_copy_bytes_per_param: float = param(0.0, "1", "HBM bytes per parameter ZeRO-3's buffer copies move "
                                              "for each microbatch (gathered parameters copied out of the "
                                              "all-gather buffer, gradients copied into the reduce-scatter "
                                              "buffer)", "[inferred] 0 where parameters and gradients are views "
                                              "of the collectives' flat buffers (Megatron-Core's buffers, FSDP1's "
                                              "FlatParameter); a stack that copies sets its own", lo=0.0)
    cross_entropy_forward_bytes: float = param(18.0, "1", "bytes per logit the vocabulary-parallel "
                                               "cross-entropy moves forward", "[inferred] Megatron-LM: read the "
                                               "16-bit logit, write an fp32 copy, two reduction passes (max, sum) "
                                               "and the fp32 softmax: 2 + 4 + 8 + 4", lo=0.0)
    cross_entropy_backward_bytes: float = param(6.0, "1", "bytes per logit of its backward", "[inferred] read "
                                                "the fp32 softmax, write the 16-bit gradient", lo=0.0)
    activation_passes: float = param(3.0, "1", "passes over a generic model's stored activations per training "
                                     "step (workloads.compute_totals)", "[inferred] each stored tensor written "
                                     "in the forward pass, read and its gradient written in the backward",
                                     lo=0.0)
    embedding_passes: float = param(6.0, "1", "bytes a DLRM step moves per embedding byte looked up "
                                    "(workloads.compute_totals)", "[inferred] the forward read; the gradient "
                                    "rows written; a row-wise optimizer reading and writing each row and its "
                                    "state", lo=0.0)
    software_efficiency: float = param(0.76, "1", "share of the GPU's single-kernel benchmark rates (MAMF for "
                                       "matrix products, streaming HBM bandwidth for the rest) kernels reach "
                                       "inside a training step: sustained clocks at the power limit, cold caches "
                                       "between kernels, launch gaps (the wait for the slowest GPU is "
                                       "TrainingSettings.step_jitter's); on Ampere GPUs ampere_efficiency instead",
                                       "[inferred] fitted: least squares on the logarithm of the seven H100 rows "
                                       "of sipml/cases/training_runs.toml whose layout and recomputation their "
                                       "sources state, priced as run: NVIDIA's DGX Cloud GPT-3 175B in BF16 and "
                                       "FP8 on 128 and 2,048 GPUs and NeMo 25.11's FP8 Llama 3 8B, 70B and 3.1 "
                                       "405B (tests/workloads/test_fitted.py checks it is their optimum; their "
                                       "residuals span −8.6 … +10.3 %); every other case tests it. MAMF is a best "
                                       "case, 5 %+ apart between GPUs of one node (workloads-3.md §1.1)",
                                       lo=MIN_EFFICIENCY, hi=1.0)
    ampere_efficiency: float = param(0.855, "1", "software_efficiency on Ampere GPUs (A100): their MAMF, 87 % of "
                                     "the dense peak against the H100's 80 %, is further from what a training step "
                                     "sustains", "[inferred] fitted: least squares on the logarithm of the 8 K22 "
                                     "Table 5 rows (A100; tests/workloads/test_fitted.py); torchtitan's five A100 "
                                     "runs, fitted alone, give the same 0.855. In a step an A100 then runs its "
                                     "GEMMs at about 0.74 of the dense peak, an H100 at about 0.60 (software_"
                                     "efficiency × its MAMF's 80 %)", lo=MIN_EFFICIENCY, hi=1.0)
    gemm: GemmConstants = field(default_factory=GemmConstants)

    def efficiency_on(self, gpu) -> float:
        """The in-situ share on `gpu`: `ampere_efficiency` on an Ampere GPU, `software_efficiency` on the others."""
        return self.ampere_efficiency if gpu.architecture == "ampere" else self.software_efficiency


DEFAULT_SETTINGS = ComputeSettings()  # the current stack's kernels; workloads.stacks sets the others


@record(kw_only=True)
class TrainingSettings:
    """How the training software schedules communication against compute; each default with its source. A stack
    (workloads.stacks) sets the ones its software differs in."""

    dp_overlap: str = param("backward", "choice", "data-parallel gradient reduction: 'backward', in buckets "
                            "launched as the last microbatch's backward produces them, the last bucket exposed "
                            "(PyTorch DDP, Megatron-Core --overlap-grad-reduce); 'none', one collective after the "
                            "backward (Megatron-LM 2021–22, SiP-ML's fat-tree term)",
                            "workloads-3.md §3.1–3.2 [restated]", choices=("backward", "none"))
    bucket_parameters: float = param(40e6, "1", "parameters in one gradient bucket (at least)",
                                     "workloads-3.md §3.2: Megatron-Core max(40 000 000, 1 000 000 × dp) "
                                     "parameters [verbatim]", lo=1.0)
    bucket_parameters_per_replica: float = param(1e6, "1", "bucket parameters added per data-parallel "
                                                 "replica (larger groups, larger buckets)", "workloads-3.md §3.2: "
                                                 "1 000 000 × dp_size [verbatim]", lo=0.0)
    param_gather_overlap: str = param("forward", "choice", "ZeRO-1 (distributed optimizer) parameter all-gather: "
                                      "'forward', in buckets under the next iteration's first forward "
                                      "(Megatron-Core --overlap-param-gather), the first bucket exposed; 'none', "
                                      "after the optimizer step", "workloads-3.md §3.2 [restated]",
                                      choices=("forward", "none"))
    p2p_overlap: str = param("interleaved", "choice", "pipeline sends in the steady state: 'interleaved', "
                             "overlapped with the other model chunk's compute when chunks are interleaved "
                             "(Megatron-Core overlap_p2p_comm with v > 1), else on the critical path; 'none', "
                             "always on the critical path", "workloads-3.md §6 [restated]",
                             choices=("interleaved", "none"))
    tp_overlap: str = param("none", "choice", "tensor-parallel collectives: 'none', on the critical path; "
                            "'backward', the column-parallel layers' backward ones (the input gradient's reduce-"
                            "scatter or all-reduce, and with sequence parallelism the input gathered again) under "
                            "their backward GEMMs (Megatron-LM since 2022: LinearWithGradAccumulationAndAsync"
                            "Communication); 'gemm', every one pipelined with the GEMMs beside it (Transformer "
                            "Engine user-buffer overlap, --tp-comm-overlap), the GEMMs it pipelines with cut into tp "
                            "GEMMs of M/tp rows (workloads.compute._tp_chunks)", "workloads-3.md §2: Megatron-Core "
                            "nccl_ub [restated]; NVIDIA/Megatron-LM megatron/core/tensor_parallel/layers.py "
                            "[restated]; NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/training/comm_overlap.py "
                            "(the ring-exchange and pipeline splits) [restated]", choices=("none", "backward", "gemm"))
    ep_overlap: str = param("none", "choice", "expert-parallel all-to-alls: 'none', on the critical path "
                            "(Megatron-Core's default); 'compute', each microbatch's dispatch and combine run under "
                            "another microbatch's compute (DeepSeek-V3's DualPipe; Megatron-Core "
                            "--overlap-moe-expert-parallel-comm)", "DS3 §3.2.1 [restated]",
                            choices=("none", "compute"))
    ep_dispatch_bytes: float = param(0.0, "1", "bytes per hidden element a token's dispatch to its experts "
                                     "carries (0: activation_bytes)", "mixed-precision training: the activations' "
                                     "own 16 bits [restated]", lo=0.0, hi=4.0)
    ep_combine_bytes: float = param(0.0, "1", "bytes per hidden element of the experts' outputs combined back "
                                    "(0: activation_bytes)", "mixed-precision training: the activations' own 16 bits "
                                    "[restated]", lo=0.0, hi=4.0)
    overlap_slowdown: float = param(0.189, "1", "how much longer compute kernels run while a communication "
                                    "kernel overlaps them (NCCL's CTAs take SMs and HBM bandwidth)",
                                    "workloads-3.md §2: Lee et al. 2025 (CCO): compute kernels 18.9 % slower on "
                                    "average when overlapped (max 40 %) [verbatim]", lo=0.0, hi=1.0)
    activation_bytes: float = param(2.0, "1", "bytes per activation element on the wire (16-bit)",
                                    "mixed-precision training [restated]", lo=1.0, hi=4.0)
    grad_reduce_bytes: float = param(4.0, "1", "bytes per gradient element in the data-parallel reduction",
                                     "Megatron-LM keeps fp32 main gradients and reduces them in fp32 with bf16 "
                                     "(--accumulate-allreduce-grads-in-fp32) [restated]", lo=1.0, hi=4.0)
    grad_buffer_passes: float = param(0.0, "1", "passes each step makes over this GPU's main-gradient buffer "
                                      "(grad_reduce_bytes an element) outside the optimizer and the reduction: "
                                      "zeroing it before the step is one write, a norm for the NaN check one read",
                                      "[assumed] none where the stack's source does not say", lo=0.0, hi=16.0)
    grad_average: str = param("collective", "choice", "how the data-parallel gradients are averaged: "
                              "'collective' (the reduction averages, NCCL's ReduceOp.AVG, or a sum the optimizer "
                              "scales) or 'in-place' (the buffer multiplied by 1/(dp·cp) before a summing reduction: "
                              "a read and a write of it each step when dp·cp > 1)", "[assumed] the cheaper where the "
                              "stack's source does not say", choices=("collective", "in-place"))
    param_gather_bytes: float = param(2.0, "1", "bytes per parameter in ZeRO's parameter all-gather (16-bit "
                                      "weights)", "R20 §7 [restated]", lo=1.0, hi=4.0)
    step_jitter: float = param(0.005, "1", "relative standard deviation of one GPU's compute time in a step about "
                               "the mean of all (clocks under power management, OS and runtime noise): each "
                               "synchronous step waits for the slowest of the job's GPUs (`straggler_s`)",
                               "[inferred] the healthy sample trace of ByteDance's straggler study (LIN25, "
                               "github.com/ByteDance-Seed/StragglerAnalysis): per-worker compute times of a step "
                               "about their mean, σ 0.49 %, symmetric (p99 +1.2 %). Persistently slow GPUs "
                               "(SINHA22) and unsynchronised garbage collection add more where operators do not "
                               "screen or align them", lo=0.0, hi=0.5)
    usable_memory: float = param(0.9, "1", "share of HBM a job can fill (the rest: CUDA context, allocator "
                                 "fragmentation, workspace)", "[assumed] ~8 GB of 80 GB lost in practice",
                                 lo=0.1, hi=1.0)

    @property
    def hidden_share(self) -> float:
        """σ = 1 − 1/(1 + slowdown): the share of an overlapped collective's time that still costs compute time.
        Compute C overlapped by a collective X runs at 1/(1 + slowdown) of its rate while both run, so the two
        together take max(X, C + σ·X) (workloads-3.md §2)."""
        return 1.0 - 1.0 / (1.0 + self.overlap_slowdown)

    def straggler_s(self, compute_s, gpus):
        """Seconds a synchronous step waits for its slowest GPU: each of the n GPUs computes for T·(1 + σ·z_i),
        z_i independent standard normals, and the step ends with the last, so it waits σ·T·E[max z_i] past the
        mean. E[max of n standard normals] by Blom's approximation Φ⁻¹((n − 0.375)/(n + 0.25)) (exact at n = 1;
        4.5 % high at n = 2, within 1 % from n = 8 to 2²⁰): 3.23 at 1,024 GPUs, 3.96 at 16,384 — growing as
        √(2 ln n)."""
        n = max(int(gpus), 1)
        return self.step_jitter * expected_maximum(n) * np.asarray(compute_s, dtype=float)

    def overlapped(self, comm_s, window_s, tail_s=0.0):
        """Exposed seconds of a collective of `comm_s` overlapped with `window_s` of compute, of which `tail_s`
        (the last bucket) can only start once the window's compute is done: tail + max(X − W, σ·X) for the rest."""
        comm = np.asarray(comm_s, dtype=float)
        if isinstance(tail_s, float) and tail_s == 0.0:  # no last bucket: the same, in two array operations
            return np.maximum(comm - window_s, self.hidden_share * comm)
        with np.errstate(invalid="ignore"):  # a collective that never ends, its last bucket too: inf − inf
            rest = np.where(comm < np.inf, np.maximum(comm - tail_s, 0.0), comm)
        tail = np.minimum(tail_s, comm_s)
        return tail + np.maximum(rest - window_s, self.hidden_share * rest)


def expected_maximum(n: int) -> float:
    """E[max of n independent standard normals], Blom's approximation (Blom 1958; n ≥ 1)."""
    return NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


DEFAULT_TRAINING = TrainingSettings()
