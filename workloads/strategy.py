"""Parallelisation strategies of a transformer training job, as arrays: every valid combination for N GPUs is one
entry, so the iteration model evaluates them all in one vectorised pass.

A strategy is data (dp), tensor (tp), context (cp) and pipeline (pp) parallel sizes with tp·cp·dp·pp = N; the
microbatch b (m = B/(dp·b) microbatches per pipeline); v interleaved model chunks per GPU; sequence parallelism;
no / selective / full activation recomputation; ZeRO stage 0–3 (optimizer, gradient and parameter sharding over
dp); expert parallelism ep (MoE: ep divides the experts) with each expert's matrices split over etp GPUs — etp =
tp, Megatron-Core's default, or fewer (MoE parallel folding); either way ep·etp divides a stage's tp·cp·dp GPUs,
the expert group next to each expert's etp GPUs; and the rank order — Megatron-LM's tp-cp-dp-pp (tensor fastest,
pipeline stages farthest apart) or tp-cp-pp-dp (pipeline stages next to each other, the placement a ring or circuit
fabric prefers for chatty groups; SiP-ML places model-parallel partitions within the optical reach). The software
stack (workloads.stacks) and the GEMM precision are chosen for the whole search (`stack=`, `precision=` in
--strategy); the stack limits what is searched.

Rules [Megatron-LM, N21 §2–3; workloads-3.md §6]: tp divides the heads (and key/value heads); pp divides the
layers — or, where the stack has uneven stages, the interior stages hold ⌈L/p⌉ layers and the first and last share
the rest (Llama 3 405B: 126 layers on 16 stages, 7 + 14 × 8 + 7); cp splits the sequence into 2·cp chunks;
interleaving needs pp > 1, v dividing the layers per stage and m a multiple of pp; b divides B/dp. ZeRO stages 2 and
3 shard gradients that pipelining accumulates over microbatches: with pp > 1 only stage 0 or 1 (DeepSpeed refuses
ZeRO-2/3 with pipeline parallelism; Megatron-LM's distributed optimizer is stage 1) [restated]. A search that
leaves nothing names the rule that removed the last candidates.
"""

from __future__ import annotations

import functools
from dataclasses import fields

import numpy as np

from core.errors import InputError
from core.integers import divisors
from core.records import record
from workloads.models import TransformerModel, model_label
from workloads.pipeline import stage_layers

RECOMPUTE = ("none", "selective", "full")
ORDERS = ("tp-dp-pp", "tp-pp-dp")
STRATEGY_KEYS = ("dp", "tp", "pp", "cp", "microbatch", "interleave", "sp", "recompute", "recompute_layers", "zero",
                 "ep", "etp", "order", "precision", "stack")
SEARCH_KEYS = ("precision", "stack")  # chosen for the whole search, not per candidate
PRECISIONS = ("bf16", "fp16", "fp8")
MAX_MICROBATCH = 64  # [assumed] larger microbatches gain nothing once the GEMMs are large (N21 §3.4: ≤ 1.3×)
MAX_CONTEXT_PARALLEL = 32  # [assumed] Llama 3 trains 131 072-token sequences at CP16 (workloads-3.md §6)
MIN_CONTEXT_CHUNK = 8192  # [inferred] Llama 3 trains 8,192-token sequences at CP1 and 131,072-token ones at CP16 (8,192 per GPU), workloads-3.md §6


@record(slots=False)
class Strategies:
    """One entry per candidate strategy (all arrays of one length)."""

    dp: np.ndarray
    tp: np.ndarray
    pp: np.ndarray
    cp: np.ndarray
    microbatch: np.ndarray
    interleave: np.ndarray
    sp: np.ndarray  # bool
    recompute: np.ndarray  # 0 none, 1 selective, 2 full
    recompute_layers: np.ndarray  # with full recomputation, the layers of each stage recomputed (0 otherwise)
    zero: np.ndarray
    ep: np.ndarray
    etp: np.ndarray  # the GPUs each expert's matrices are split over: tp, or fewer where the ep group folds over tp
    order: np.ndarray  # index into ORDERS

    def __len__(self) -> int:
        return int(self.dp.size)

    def take(self, index) -> Strategies:
        return Strategies(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def order_runs(self) -> tuple[np.ndarray, np.ndarray]:
        """(the first of each run of neighbouring strategies that differ in their rank order alone; each
        strategy's run): along a run only the groups' strides change, so what a plan finds of memory and compute
        is found once per run. The enumeration puts a strategy's orders next to each other (the order is its last
        key); strategies alike but apart are runs of their own."""
        new = np.ones(len(self), dtype=bool)
        if len(self) > 1:
            same = np.ones(len(self) - 1, dtype=bool)
            for f in fields(self):
                if f.name != "order":
                    column = getattr(self, f.name)
                    same &= column[1:] == column[:-1]
            np.logical_not(same, out=new[1:])
        return np.flatnonzero(new), np.cumsum(new) - 1

    def row(self, i: int) -> dict:
        """One strategy as plain values, for reports."""
        out = {f.name: getattr(self, f.name)[i].item() for f in fields(self)}
        out["recompute"] = RECOMPUTE[out["recompute"]]
        out["order"] = ORDERS[out["order"]]
        out["sp"] = bool(out["sp"])
        return out

    def microbatches(self, batch: int) -> np.ndarray:
        return batch // (self.dp * self.microbatch)

    def strides(self) -> dict[str, np.ndarray]:
        """Rank stride of each parallel group under the strategy's rank order (fabric.kind groups): the context
        group next to the tensor group, then data and pipeline in the strategy's order; the expert group next to
        each expert's etp GPUs (Megatron-Core's expert ranks run tp-ep-dp-pp with the expert tensor size in place of
        tp and no context parallelism: NVIDIA/Megatron-LM megatron/core/parallel_state.py)."""
        pp_inner = self.order == 1
        inner = self.tp * self.cp
        return {"tp": np.ones_like(self.tp), "cp": self.tp, "dp": np.where(pp_inner, inner * self.pp, inner),
                "pp": np.where(pp_inner, inner, inner * self.dp), "ep": self.etp}


def _powers_of_two(limit: int) -> list[int]:
    return [1 << k for k in range(limit.bit_length()) if (1 << k) <= limit]


def parse_strategy(text: str | None) -> dict:
    """'tp=8,pp=4,microbatch=1,recompute=full,stack=megatron-2021' → {key: value}; InputError naming the unknown
    key, the bad value or a key given twice."""
    if not text:
        return {}
    out = {}
    for item in text.split(","):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key not in STRATEGY_KEYS:
            raise InputError(f"--strategy {text!r}: '{item.strip()}' is not key=value with key one of "
                             f"{', '.join(STRATEGY_KEYS)}")
        if key in out:
            raise InputError(f"--strategy {text!r}: {key} is given twice")
        out[key] = _strategy_value(key, value)
    return out


def _strategy_value(key: str, value: str):
    if key == "recompute":
        if value not in RECOMPUTE:
            raise InputError(f"--strategy recompute={value!r}: expected one of {', '.join(RECOMPUTE)}")
        return RECOMPUTE.index(value)
    if key == "order":
        if value not in ORDERS:
            raise InputError(f"--strategy order={value!r}: expected one of {', '.join(ORDERS)}")
        return ORDERS.index(value)
    if key == "sp":
        if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise InputError(f"--strategy sp={value!r}: expected true or false")
        return value.lower() in ("true", "1", "yes")
    if key == "precision":
        if value not in PRECISIONS:
            raise InputError(f"--strategy precision={value!r}: expected one of {', '.join(PRECISIONS)}")
        return value
    if key == "stack":
        from workloads.stacks import get_stack

        get_stack(value)
        return value
    from core.units import whole_number

    top = 3 if key == "zero" else MAX_STRATEGY_VALUE
    low = 0 if key in ("zero", "recompute_layers") else 1
    return whole_number(value, lo=low, hi=top, what=f"--strategy {key}=")


MAX_STRATEGY_VALUE = 1 << 20  # no parallel size or microbatch exceeds the largest job
# [assumed] 256× the largest published global batches (65 536 samples: MLPerf DLRM-DCNv2, the zoo's largest; ResNet-50
# at scale): 2^24 sequences or samples. Larger batches are typing errors (10^18 priced a 1.2e16 s iteration).
MAX_BATCH = 1 << 24


def check_batch(batch, what: str = "--batch") -> int:
    """A global batch (sequences, or samples) as a whole number from 1 to MAX_BATCH; InputError otherwise."""
    from core.errors import shown

    if isinstance(batch, str):
        from core.units import whole_number

        return whole_number(batch, lo=1, hi=MAX_BATCH, what=what)
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise InputError(f"{what} {shown(batch)}: expected a whole number from 1 to {MAX_BATCH:,} (sequences or "
                         "samples per iteration)")
    return batch


def transformer_strategies(model: TransformerModel, gpus: int, batch: int, fixed: dict | None = None,
                           stack=None) -> Strategies:
    """Every valid strategy for `model` on `gpus` GPUs at global batch `batch` (sequences) that `stack` (default
    workloads.stacks.DEFAULT_STACK) can run, with the keys of `fixed` held at the given values. The same
    arguments give the same (read-only) arrays: a sweep enumerates a model's strategies once per job size."""
    if stack is None:
        from workloads.stacks import DEFAULT_STACK, get_stack

        stack = get_stack(DEFAULT_STACK)
    fixed = {k: v for k, v in (fixed or {}).items() if k not in SEARCH_KEYS}
    if "etp" in fixed and not model.is_moe:  # a strategy row of a dense model says etp = tp: nothing to fix
        if fixed["etp"] != fixed.get("tp"):
            raise InputError(f"--strategy etp={fixed['etp']}: etp splits experts over GPUs and {model_label(model)} "
                             "has none (leave etp out, or give it with tp at the same value)")
        del fixed["etp"]
    for key, value in fixed.items():
        why = stack.refusal(key, RECOMPUTE[value] if key == "recompute" else value)
        if why:
            raise InputError(f"--strategy {key}={RECOMPUTE[value] if key == 'recompute' else value}: {why}")
    found = _transformer_strategies(model, gpus, batch, tuple(sorted(fixed.items())), stack)
    if isinstance(found, str):
        raise InputError(found)
    return found


@functools.lru_cache(maxsize=64)  # the candidates of a model, job size and batch, enumerated once per process
def _transformer_strategies(model: TransformerModel, gpus: int, batch: int, fixed_items: tuple,
                            stack) -> Strategies | str:
    """The strategies, or why there is none (kept as well: a sweep asks again at every point of that size)."""
    fixed = dict(fixed_items)
    options = _options(model, gpus, batch, fixed, stack)
    if not all(options.values()):
        return (f"no valid strategy for {model_label(model)} on {gpus} GPU{'' if gpus == 1 else 's'} at batch {batch}: "
                "nothing to search")

    grid = _Product(options, _derived(model.layers, gpus))
    for keys, rule, text in _rules(model, gpus, batch, fixed, stack):
        grid.extend(*keys)
        if not grid.keep(rule(grid.cols)):
            return (f"no valid strategy for {model_label(model)} on {gpus} GPU{'' if gpus == 1 else 's'} at batch "
                    f"{batch}"
                    + (f" with {_describe(fixed)}" if fixed else "") + f" under stack {stack.name!r}: " + text)
    c = grid.rows()
    st = Strategies(dp=c["dp"], tp=c["tp"], pp=c["pp"], cp=c["cp"], microbatch=c["microbatch"],
                    interleave=c["interleave"], sp=c["sp"].astype(bool), recompute=c["recompute"],
                    recompute_layers=np.where(c["full"], np.minimum(c["recomputed"], c["per_chunk"]), 0),
                    zero=c["zero"], ep=c["ep"], etp=np.where(c["etp"] == 0, c["tp"], c["etp"]), order=c["order"])
    for f in fields(st):
        getattr(st, f.name).flags.writeable = False
    return st


def _options(model: TransformerModel, gpus: int, batch: int, fixed: dict, stack) -> dict:
    """Each strategy key's values the stack supports for the model (the fixed keys at their given value)."""
    sup = stack.supports
    layers = model.layers
    options = {
        "tp": [t for t in divisors(gpus, 64) if model.heads % t == 0 and model.kv % t == 0]
        if sup.tensor_parallel else [1],
        "pp": [p for p in divisors(gpus, layers) if sup.uneven_pipeline or layers % p == 0]
        if sup.pipeline_parallel else [1],
        "cp": [1] + [c for c in _powers_of_two(MAX_CONTEXT_PARALLEL)[1:] if gpus % c == 0
                     and model.seq_len % (2 * c) == 0 and model.seq_len // c >= MIN_CONTEXT_CHUNK]
        if sup.context_parallel else [1],
        "microbatch": _powers_of_two(min(batch, MAX_MICROBATCH)),
        "interleave": list(range(1, 9)) if sup.interleave and sup.pipeline_parallel else [1],
        "sp": [False, True] if sup.sequence_parallel else [False],
        "recompute": [RECOMPUTE.index(r) for r in sup.recompute],
        "recompute_layers": [1, 2, 3, 4],  # quarters of the fullest stage (Megatron's --recompute-num-layers)
        "zero": list(sup.zero),
        "ep": divisors(model.experts) if model.is_moe and sup.expert_parallel else [1],
        # 0: each expert split over the tensor-parallel GPUs as the dense layers (etp = tp); 1: each whole on a GPU,
        # the expert group folded over the tensor-parallel GPUs
        "etp": [0, 1] if _can_fold(model, stack) else [0],
        "order": [0, 1],
    }
    options.update({key: [(-value or 4) if key == "recompute_layers" else value] for key, value in fixed.items()
                    if key != "dp"})  # recompute_layers = 0: no partial recomputation
    if "recompute" in fixed and not fixed.get("recompute_layers"):
        options["recompute_layers"] = [4]  # recompute=full means every layer, as Megatron's uniform method
    return options


def _can_fold(model: TransformerModel, stack) -> bool:
    """Whether the stack can fold the model's expert-parallel group over its tensor-parallel GPUs (etp < tp)."""
    sup = stack.supports
    return model.is_moe and sup.expert_parallel and sup.expert_folding and sup.tensor_parallel


def _derived(layers: int, gpus: int) -> dict:
    """Columns derived once their keys are in and carried with the rows (what the rules and the strategies read
    later): dp and the fullest stage's layers once pp is in, the recomputed layers once recompute_layers is."""
    def stages(c):
        first, interior, last = stage_layers(layers, c["pp"])
        return {"dp": gpus // np.maximum(c["tp"] * c["pp"] * c["cp"], 1),
                "per_chunk": np.maximum(np.maximum(first, interior), last), "first": first, "last": last}

    def recomputed(c):  # the layers a stage recomputes (quarters of the fullest, or a fixed count: negative); with
        # v chunks, quarters of a chunk's layers in each (Megatron-Core's --recompute-num-layers counts a chunk's)
        quarters, v = c["recompute_layers"], c["interleave"]
        return {"full": c["recompute"] == 2,
                "recomputed": np.where(quarters < 0, -quarters, v * -(-quarters * (c["per_chunk"] // v) // 4))}
    return {"cp": stages, "recompute_layers": recomputed}


def _rules(model: TransformerModel, gpus: int, batch: int, fixed: dict, stack) -> list:
    """(keys a rule needs beyond the earlier rules', the rule over the grid's columns, what it says when it leaves
    nothing), in the order they are applied; what only one rule reads, it finds itself."""
    sup = stack.supports
    layers = model.layers

    def ends_hold_layers(c):  # the first and last stages (which hold the embedding and the head) hold a layer
        first, _, last = stage_layers(layers, c["pp"])
        return np.minimum(first, last) >= 1

    def above_previous_quarter(c):  # a quarter's count is above the quarter before (no two quarters alike)
        v = c["interleave"]
        return c["recomputed"] > v * -(-(c["recompute_layers"] - 1) * (c["per_chunk"] // v) // 4)

    micro = (lambda c: np.maximum(c["dp"] * c["microbatch"], 1))

    def chunks_even(c):  # every stage's layers split into v whole chunks (Megatron-Core refuses uneven stages whose
        # layer counts v does not divide: transformer_config.py), an end stage one short where the embedding or the
        # loss counts as a layer (account_for_embedding/loss_in_pipeline_split: Llama 3.1 405B's 126 + 2 on 8 × 16)
        v, full = c["interleave"], c["per_chunk"]
        return (full % v == 0) & ((c["first"] % v == 0) | (c["first"] + 1 == full)) & (
            (c["last"] % v == 0) | (c["last"] + 1 == full))
    can_fold, fixed_etp = _can_fold(model, stack), "etp" in fixed
    folded = (lambda c: (c["etp"] > 0) & (c["etp"] < c["tp"]))  # the expert group folded over tensor parallelism
    rules = [  # (keys the rule needs beyond the earlier rules', the rule, what it says when it leaves nothing)
        (("tp", "pp", "cp"), lambda c: c["tp"] * c["pp"] * c["cp"] * c["dp"] == gpus, "tp·cp·pp must divide the GPUs"),
        ((), lambda c: (model.heads % c["tp"] == 0) & (model.kv % c["tp"] == 0),
         f"tp must divide the {model.heads} heads" + (f" and the {model.kv} key/value heads (Megatron-Core splits the "
                                                      "query groups over tp)" if model.kv != model.heads else "")),
        ((), lambda c: (c["cp"] == 1) | (model.seq_len % (2 * c["cp"]) == 0),
         f"cp must cut the {model.seq_len}-token sequence into 2·cp equal chunks"),
        ((), lambda c: (layers % c["pp"] == 0) | (sup.uneven_pipeline & ends_hold_layers(c)),
         f"pp must divide the {layers} layers" + ("" if sup.uneven_pipeline else
                                                   f" (stack {stack.name!r} has no uneven stages)")),
        (("microbatch",), lambda c: (batch % micro(c) == 0) & (batch >= c["dp"] * c["microbatch"]),
         f"dp·microbatch must divide the batch of {batch}" + ("" if sup.tensor_parallel or sup.pipeline_parallel else
                                                             f" (stack {stack.name!r} runs data parallelism alone: "
                                                             f"dp = the {gpus:,} GPUs; give --batch or --gpus)")),
        (("interleave",), lambda c: (c["interleave"] == 1) | ((c["pp"] > 1) & chunks_even(c)
                                                              & (batch // micro(c) % c["pp"] == 0)),
         "interleaving needs pp > 1, v dividing the layers of every stage (an end stage may hold one layer less, "
         "its slot taken by the embedding or the loss) and the microbatches a multiple of pp"),
        (("sp",), lambda c: ~(c["sp"].astype(bool) & (c["tp"] == 1)), "sequence parallelism needs tp > 1"),
        (("recompute", "recompute_layers"),
         lambda c: (c["recompute_layers"] == 4) | ((c["recompute_layers"] < 0) & c["full"])
         | (c["full"] & (c["recomputed"] < c["per_chunk"]) & above_previous_quarter(c)),
         "recompute_layers needs recompute=full"),
        ((), lambda c: c["recomputed"] <= c["per_chunk"], "recompute_layers cannot exceed the layers of a stage"),
        # Megatron-Core's --recompute-num-layers counts each model chunk's layers (a chunk is built on its own:
        # get_num_layers_to_build per virtual stage), so with v chunks a stage recomputes a multiple of v
        ((), lambda c: ~c["full"] | (c["recomputed"] % c["interleave"] == 0),
         "with interleaving a stage recomputes the same layers of each of its v chunks: recompute_layers must be a "
         "multiple of interleave"),
        # ZeRO shards over the GPUs that reduce the gradients, dp·cp > 1 (Megatron-Core's distributed optimizer: the
        # data-parallel group with context parallelism); a one-GPU job runs a ZeRO stack unsharded
        (("zero",), lambda c: (c["zero"] == 0) | (c["dp"] * c["cp"] > 1) | (gpus == 1), "ZeRO needs dp·cp > 1"),
        ((), lambda c: (c["zero"] <= 1) | (c["pp"] == 1), "ZeRO-2/3 does not combine with pipeline parallelism"),
        (("ep",), lambda c: (c["ep"] == 1) | model.is_moe, f"ep shares experts out: {model.name} has none (ep = 1)"),
        ((), lambda c: model.experts % c["ep"] == 0, f"ep must divide the {model.experts} experts"),
        (("etp",), lambda c: (c["etp"] == 0) | ((c["tp"] % np.maximum(c["etp"], 1) == 0)
                                                & ((c["etp"] < c["tp"]) | fixed_etp)
                                                & ((c["etp"] == c["tp"]) | can_fold)),
         "etp must divide tp" + ("" if can_fold else f" and equal it ({model.name} under stack {stack.name!r} "
                                                     "cannot fold its experts over the tensor-parallel GPUs)")),
        ((), lambda c: ~folded(c) | c["sp"].astype(bool), "etp < tp needs sequence parallelism (sp=true)"),
        ((), lambda c: c["tp"] * c["cp"] * c["dp"] % (c["ep"] * np.where(c["etp"] == 0, c["tp"], c["etp"])) == 0,
         "ep·etp must divide the tp·cp·dp GPUs of a pipeline stage"),
        (("order",), lambda c: (c["order"] == 0) | ((c["pp"] > 1) & (c["dp"] > 1)),
         "the rank orders differ only with pp > 1 and dp > 1"),
        ((), lambda c: (c["order"] == 0) | (c["cp"] == 1), "the tp-pp-dp order keeps context parallelism off (cp = 1)"),
        ((), lambda c: (c["order"] == 0) | (c["ep"] == 1),
         "expert parallelism needs the tp-dp-pp order (Megatron-Core lays out its expert ranks with the pipeline "
         "outermost)"),
    ]
    if "dp" in fixed:
        left = gpus / fixed["dp"]
        rules.append(((), lambda c: c["dp"] == fixed["dp"],
                      f"dp = {fixed['dp']} leaves tp·cp·pp = {left:g}" if left == int(left) else
                      f"dp = {fixed['dp']} does not divide the {gpus:,} GPUs"))
    return rules


class _Product:
    """The product of option lists built key by key in itertools.product's order (the last key fastest), the rows
    a rule refuses dropped before the next key is in: the rows that survive every rule, in the full product's
    order, without building the product. `derive`: {key: function of the columns → further columns}, computed
    once that key is in. The rules between two keys refuse rows of the same columns, so their refusals are
    joined and the rows dropped once (`rows()`)."""

    def __init__(self, options: dict, derive: dict):
        self.options, self.derive, self.cols, self.kept = options, derive, {}, None

    def extend(self, *keys) -> None:
        if keys:
            self.rows()
        for key in keys:
            values = np.asarray(self.options[key], dtype=np.int64)
            rows = len(next(iter(self.cols.values()))) if self.cols else 1
            if len(values) > 1:  # one option leaves the rows as they are
                self.cols = {name: np.repeat(col, len(values)) for name, col in self.cols.items()}
            self.cols[key] = np.tile(values, rows)
            if key in self.derive:
                self.cols.update(self.derive[key](self.cols))

    def keep(self, rows) -> bool:
        """Keep the `rows` (a mask) that a rule lets through, with those the rules since the last key let through;
        False when together they let none."""
        kept = rows if self.kept is None else self.kept & rows
        if not kept.any():
            return False
        self.kept = None if kept.all() else kept
        return True

    def rows(self) -> dict:
        """The columns of the rows every rule so far lets through."""
        if self.kept is not None:
            self.cols = {name: col[self.kept] for name, col in self.cols.items()}
            self.kept = None
        return self.cols


def _describe(fixed: dict) -> str:
    shown = []
    for key, value in fixed.items():
        if key == "recompute":
            value = RECOMPUTE[value]
        elif key == "order":
            value = ORDERS[value]
        shown.append(f"{key}={value}")
    return ", ".join(shown)
