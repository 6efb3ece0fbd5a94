"""Parallelisation strategies of a transformer training job, as arrays: every valid combination for N GPUs is one
entry, so the iteration model evaluates them all in one vectorised pass.

A strategy is data (dp), tensor (tp) and pipeline (pp) parallel sizes with tp·dp·pp = N; the microbatch b (m =
B/(dp·b) microbatches per pipeline); v interleaved model chunks per GPU; sequence parallelism; no / selective /
full activation recomputation; ZeRO stage 0–3 (optimizer, gradient and parameter sharding over dp); expert
parallelism ep (MoE: ep divides dp and the experts); and the rank order — Megatron-LM's tp-dp-pp (tensor fastest,
pipeline stages farthest apart) or tp-pp-dp (pipeline stages next to each other, the placement a ring or circuit
fabric prefers for chatty groups; SiP-ML places model-parallel partitions within the optical reach).

Rules [Megatron-LM, N21 §2–3]: tp divides the heads (and key/value heads); pp divides the layers; interleaving
needs pp > 1, v dividing the layers per stage and m a multiple of pp; b divides B/dp. ZeRO stages 2 and 3 shard
gradients that pipelining accumulates over microbatches: with pp > 1 only stage 0 or 1 (DeepSpeed refuses
ZeRO-2/3 with pipeline parallelism; Megatron-LM's distributed optimizer is stage 1) [restated].
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, fields

import numpy as np

from core.errors import InputError
from workloads.models import TransformerModel

RECOMPUTE = ("none", "selective", "full")
ORDERS = ("tp-dp-pp", "tp-pp-dp")
STRATEGY_KEYS = ("dp", "tp", "pp", "microbatch", "interleave", "sp", "recompute", "zero", "ep", "order")
MAX_MICROBATCH = 64  # [assumed] larger microbatches gain nothing once the GEMMs are large (N21 §3.4: ≤ 1.3×)


@dataclass(frozen=True)
class Strategies:
    """One entry per candidate strategy (all arrays of one length)."""

    dp: np.ndarray
    tp: np.ndarray
    pp: np.ndarray
    microbatch: np.ndarray
    interleave: np.ndarray
    sp: np.ndarray  # bool
    recompute: np.ndarray  # 0 none, 1 selective, 2 full
    zero: np.ndarray
    ep: np.ndarray
    order: np.ndarray  # index into ORDERS

    def __len__(self) -> int:
        return int(self.dp.size)

    def take(self, index) -> Strategies:
        return Strategies(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

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
        """Rank stride of each parallel group under the strategy's rank order (fabric.kind groups)."""
        pp_inner = self.order == 1
        return {"tp": np.ones_like(self.tp), "dp": np.where(pp_inner, self.tp * self.pp, self.tp),
                "pp": np.where(pp_inner, self.tp, self.tp * self.dp),
                "ep": np.where(pp_inner, self.tp * self.pp, self.tp)}


def _divisors(n: int, limit: int | None = None) -> list[int]:
    top = n if limit is None else min(n, limit)
    return [d for d in range(1, top + 1) if n % d == 0]


def _powers_of_two(limit: int) -> list[int]:
    return [1 << k for k in range(limit.bit_length()) if (1 << k) <= limit]


def parse_strategy(text: str | None) -> dict:
    """'tp=8,pp=4,microbatch=1,recompute=full' → {key: value}; InputError naming the unknown key or bad value."""
    if not text:
        return {}
    out = {}
    for item in text.split(","):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key not in STRATEGY_KEYS:
            raise InputError(f"--strategy {text!r}: '{item.strip()}' is not key=value with key one of "
                             f"{', '.join(STRATEGY_KEYS)}")
        if key == "recompute":
            if value not in RECOMPUTE:
                raise InputError(f"--strategy recompute={value!r}: expected one of {', '.join(RECOMPUTE)}")
            out[key] = RECOMPUTE.index(value)
        elif key == "order":
            if value not in ORDERS:
                raise InputError(f"--strategy order={value!r}: expected one of {', '.join(ORDERS)}")
            out[key] = ORDERS.index(value)
        elif key == "sp":
            if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise InputError(f"--strategy sp={value!r}: expected true or false")
            out[key] = value.lower() in ("true", "1", "yes")
        else:
            if not value.isdigit() or int(value) < (0 if key == "zero" else 1):
                raise InputError(f"--strategy {key}={value!r}: expected a whole number ≥ {0 if key == 'zero' else 1}")
            out[key] = int(value)
    return out


def transformer_strategies(model: TransformerModel, gpus: int, batch: int, fixed: dict | None = None) -> Strategies:
    """Every valid strategy for `model` on `gpus` GPUs at global batch `batch` (sequences), with the keys of
    `fixed` held at the given values. The same arguments give the same (read-only) arrays: a sweep enumerates a
    model's strategies once per job size and batch."""
    return _transformer_strategies(model, gpus, batch, tuple(sorted((fixed or {}).items())))


@functools.lru_cache(maxsize=64)
def _transformer_strategies(model: TransformerModel, gpus: int, batch: int, fixed_items: tuple) -> Strategies:
    fixed = dict(fixed_items)
    kv = model.kv
    tps = [t for t in _divisors(gpus) if model.heads % t == 0 and kv % t == 0 and t <= 64]
    pps = _divisors(model.layers)
    options = {
        "tp": tps, "pp": [p for p in pps if gpus % p == 0],
        "microbatch": _powers_of_two(min(batch, MAX_MICROBATCH)),
        "interleave": _divisors(model.layers, 8), "sp": [False, True], "recompute": [0, 1, 2], "zero": [0, 1, 2, 3],
        "ep": _divisors(model.experts) if model.is_moe else [1], "order": [0, 1],
    }
    options.update({key: [value] for key, value in fixed.items() if key != "dp"})
    grid = np.array(list(itertools.product(*options.values())), dtype=np.int64).reshape(-1, len(options))
    cols = dict(zip(options, grid.T))
    tp, pp, b, v = cols["tp"], cols["pp"], cols["microbatch"], cols["interleave"]
    dp = gpus // np.maximum(tp * pp, 1)
    ok = (tp * pp * dp == gpus) & (model.heads % tp == 0) & (model.layers % pp == 0)
    ok &= (batch % np.maximum(dp * b, 1) == 0) & (batch >= dp * b)
    m = batch // np.maximum(dp * b, 1)
    ok &= (v == 1) | ((pp > 1) & ((model.layers // pp) % v == 0) & (m % pp == 0))
    ok &= ~(cols["sp"].astype(bool) & (tp == 1))  # sequence parallelism splits over tp: a no-op at tp = 1
    ok &= (cols["zero"] == 0) | (dp > 1)
    ok &= (cols["zero"] <= 1) | (pp == 1)  # gradient and parameter sharding do not combine with pipelining
    ok &= (dp % cols["ep"] == 0)
    ok &= (cols["order"] == 0) | ((pp > 1) & (dp > 1))  # the two orders differ only with both
    if "dp" in fixed:
        ok &= dp == fixed["dp"]
    keep = np.flatnonzero(ok)
    if keep.size == 0:
        raise InputError(f"no valid strategy for {model.name} on {gpus} GPUs at batch {batch}"
                         + (f" with {_describe(fixed)}" if fixed else "")
                         + f" (tp must divide {model.heads} heads, pp the {model.layers} layers, dp·microbatch the "
                         "batch)")
    st = Strategies(dp=dp[keep], tp=tp[keep], pp=pp[keep], microbatch=b[keep], interleave=v[keep],
                    sp=cols["sp"][keep].astype(bool), recompute=cols["recompute"][keep],
                    zero=cols["zero"][keep], ep=cols["ep"][keep], order=cols["order"][keep])
    for f in fields(st):
        getattr(st, f.name).flags.writeable = False
    return st


def _describe(fixed: dict) -> str:
    shown = []
    for key, value in fixed.items():
        if key == "recompute":
            value = RECOMPUTE[value]
        elif key == "order":
            value = ORDERS[value]
        shown.append(f"{key}={value}")
    return ", ".join(shown)

