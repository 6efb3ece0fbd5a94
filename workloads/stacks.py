"""Training software stacks as data: what a framework fuses, how it overlaps communication, and which strategies it
can run at all — `stacks.toml` beside this module, one table per stack, every value with its source.

A stack is the software half of a training run: the same model, GPUs and fabric train at different speeds under
Megatron-LM as SC21 ran it (unfused attention, no overlap of the gradient reduction, full recomputation) and under
today's Megatron-Core with Transformer Engine (fused attention, bucketed overlap of the gradient reduction,
distributed optimizer). Each stack sets the `ComputeSettings` (kernels) and `TrainingSettings` (schedule) fields it
differs in and says what it supports; the strategy search only proposes what the stack can run. Selected with
`--strategy stack=NAME`, a model file's `stack` key, or `stack=` in the Python API; `sipml models` lists them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from core.errors import InputError, did_you_mean
from core.fields import specs
from core.records import record
from core.toml_files import OnDemand, loads, tables_by_name
from workloads.settings import ComputeSettings, TrainingSettings
from workloads.files import check_known, check_source, parse_spec

RECOMPUTE = ("none", "selective", "full")
_SUPPORT_FLAGS = ("tensor_parallel", "pipeline_parallel", "interleave", "sequence_parallel", "context_parallel",
                  "expert_parallel", "expert_folding", "uneven_pipeline", "fp8")
_KEYS = ("description", "source", "extends", "compute", "training", "supports", "architecture_efficiency", "sources")


@record(kw_only=True)
class Supports:
    """The strategies a stack can run."""

    zero: tuple[int, ...] = (0,)
    recompute: tuple[str, ...] = RECOMPUTE
    tensor_parallel: bool = True
    pipeline_parallel: bool = True
    interleave: bool = True
    sequence_parallel: bool = True
    context_parallel: bool = False
    expert_parallel: bool = True
    expert_folding: bool = False  # experts split over fewer GPUs than tp, the expert group over tp·cp·dp (etp < tp)
    uneven_pipeline: bool = False  # pipeline stages with different layer counts (Megatron-Core's first/last stage)
    fp8: bool = False


@dataclass(frozen=True, kw_only=True, eq=False)
class Stack:
    """One training software stack. Compared by identity: the shipped stacks are loaded once."""

    name: str
    description: str
    source: str
    compute: ComputeSettings
    training: TrainingSettings
    supports: Supports
    sources: Mapping[str, str]
    # GPU generation → share of the stack's kernel rates it reaches there (software not yet tuned for a new
    # generation); a generation not listed gets 1
    architecture_efficiency: Mapping[str, float] = dataclasses.field(default_factory=dict)

    def compute_for(self, gpu) -> ComputeSettings:
        """The stack's kernel settings on `gpu`: its software efficiency times its figure for the GPU's generation."""
        factor = self.architecture_efficiency.get(gpu.architecture, 1.0)
        if factor == 1.0:
            return self.compute
        return dataclasses.replace(self.compute, software_efficiency=self.compute.software_efficiency * factor,
                                   ampere_efficiency=self.compute.ampere_efficiency * factor)

    def refusal(self, key: str, value) -> str | None:
        """Why the stack cannot run `key = value` of a strategy (None: it can)."""
        s = self.supports
        rules = {"zero": value in s.zero, "recompute": value in s.recompute,
                 "tp": value == 1 or s.tensor_parallel, "pp": value == 1 or s.pipeline_parallel,
                 "interleave": value == 1 or s.interleave, "sp": not value or s.sequence_parallel,
                 "cp": value == 1 or s.context_parallel, "ep": value == 1 or s.expert_parallel,
                 "precision": value != "fp8" or s.fp8}
        if rules.get(key, True):
            return None
        allowed = {"zero": f"ZeRO stage{'s' if len(s.zero) > 1 else ''} {', '.join(map(str, s.zero))}",
                   "recompute": f"recomputation {', '.join(s.recompute)}"}.get(key, f"{key} = {value}")
        verb = "runs only" if key in ("zero", "recompute") else "cannot run"
        return f"stack {self.name!r} {verb} {allowed} ({self.description.split(':')[0]})"

    def summary(self) -> dict:
        """The stack as plain data (for `sipml models -f json`)."""
        return {"name": self.name, "description": self.description, "source": self.source,
                "compute": {k: getattr(self.compute, k) for k in specs(ComputeSettings)},
                "training": {k: getattr(self.training, k) for k in specs(TrainingSettings)},
                "supports": {f.name: getattr(self.supports, f.name) for f in dataclasses.fields(Supports)},
                "architecture_efficiency": dict(self.architecture_efficiency), "sources": dict(self.sources)}


DEFAULT_STACK = "megatron-core"  # transformers, unless the model file names another
DEFAULT_DATA_PARALLEL_STACK = "pytorch-ddp"  # models given by their totals, CNNs and DLRM


def stacks_path() -> Path:
    return Path(__file__).with_name("stacks.toml")


class ShippedStacks(OnDemand):
    """The shipped stacks by name, each parsed from its own tables (and those of the stacks it extends) when first
    asked for: a command that trains under one stack reads that one of the sixteen."""

    def __init__(self, path: Path):
        self._path = path
        texts = tables_by_name(path.read_text(encoding="utf-8"))  # the file's text of each stack's tables
        self._parsed = OnDemand(texts, lambda name: self._parse(name, texts[name]))
        super().__init__(texts, lambda name: _stack(f"{path}: [{name}]", name, _merged(path, name, self._parsed)))

    def _parse(self, name: str, text: str) -> dict:
        try:
            return loads(text)[name]
        except InputError as exc:
            raise InputError(f"{self._path}: [{name}]: {exc}") from None


@lru_cache(maxsize=1)
def shipped_stacks() -> Mapping[str, Stack]:
    """The shipped stacks by name, each read once when first asked for (`ShippedStacks`)."""
    return ShippedStacks(stacks_path())


def _merged(path, name: str, tables: dict, seen=()) -> dict:
    """A stack's table with the one it `extends` underneath: the parent's values and their sources, each part
    (compute, training, supports, architecture_efficiency) overridden key by key."""
    table = tables[name]
    parent = table.get("extends") if isinstance(table, dict) else None
    if not parent:
        return table
    if parent not in tables or parent in seen:
        raise InputError(f"{path}: [{name}] extends = {parent!r}: expected another stack of the file, not a cycle")
    base = _merged(path, parent, tables, (*seen, name))
    out = {k: v for k, v in table.items() if k != "extends"}
    for part in ("compute", "training", "supports", "architecture_efficiency", "sources"):
        out[part] = {**base.get(part, {}), **table.get(part, {})}
    return out


def get_stack(name: str) -> Stack:
    stacks = shipped_stacks()
    if name not in stacks:
        raise InputError(f"unknown stack {name!r}{did_you_mean(name, stacks)}; stacks: {', '.join(stacks)}")
    return stacks[name]


def _stack(where: str, name: str, table) -> Stack:
    if not isinstance(table, dict):
        raise InputError(f"{where}: expected a table of stack keys")
    check_known(where, table, _KEYS)
    for key in ("description", "source"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise InputError(f"{where}: give the stack a {key} (a text)")
    sources = table.get("sources", {})
    check_source(where, "source", table["source"])
    compute = _settings(where, "compute", ComputeSettings, table.get("compute", {}), sources)
    training = _settings(where, "training", TrainingSettings, table.get("training", {}), sources)
    supports = _supports(where, table.get("supports", {}), sources)
    architectures = _architectures(where, table.get("architecture_efficiency", {}), sources)
    given = {f"{part}.{key}" for part in ("compute", "training", "supports", "architecture_efficiency")
             for key in table.get(part, {})}
    check_known(f"{where} sources", sources, sorted(given))
    return Stack(name=name, description=table["description"], source=table["source"], compute=compute,
                 training=training, supports=supports, sources=MappingProxyType(dict(sources)),
                 architecture_efficiency=MappingProxyType(architectures))


def _architectures(where: str, values: dict, sources: dict) -> dict[str, float]:
    from workloads.gpus import ARCHITECTURES

    check_known(f"{where} architecture_efficiency", values, ARCHITECTURES, "GPU generation")
    out = {}
    for key, raw in values.items():
        _sourced(where, f"architecture_efficiency.{key}", sources)
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 < raw <= 1:
            raise InputError(f"{where} architecture_efficiency.{key} = {raw!r}: expected a share in (0, 1]")
        out[key] = float(raw)
    return out


def _settings(where: str, part: str, cls, values: dict, sources: dict):
    declared = specs(cls)
    check_known(f"{where} {part}", values, tuple(declared))
    parsed = {}
    for key, raw in values.items():
        _sourced(where, f"{part}.{key}", sources)
        parsed[key] = parse_spec(f"{where} {part}", key, declared[key], raw)
    if "software_efficiency" in parsed and "ampere_efficiency" not in parsed:  # a stack's own share, on every GPU
        parsed["ampere_efficiency"] = parsed["software_efficiency"]
    return cls(**parsed)


def _supports(where: str, values: dict, sources: dict) -> Supports:
    check_known(f"{where} supports", values, ("zero", "recompute", *_SUPPORT_FLAGS))
    parsed = {}
    for key, raw in values.items():
        _sourced(where, f"supports.{key}", sources)
        if key == "zero":
            if not isinstance(raw, list) or not raw or not all(v in (0, 1, 2, 3) and not isinstance(v, bool)
                                                               for v in raw):
                raise InputError(f"{where} supports.zero = {raw!r}: expected a list of ZeRO stages 0–3")
            parsed[key] = tuple(sorted(set(raw)))
        elif key == "recompute":
            if not isinstance(raw, list) or not raw or not all(v in RECOMPUTE for v in raw):
                raise InputError(f"{where} supports.recompute = {raw!r}: expected a list of {', '.join(RECOMPUTE)}")
            parsed[key] = tuple(v for v in RECOMPUTE if v in raw)
        elif not isinstance(raw, bool):
            raise InputError(f"{where} supports.{key} = {raw!r}: expected true or false")
        else:
            parsed[key] = raw
    return Supports(**parsed)


def _sourced(where: str, key: str, sources: dict) -> None:
    if key not in sources:
        raise InputError(f"{where} sources: no source for {key!r}; every value a stack sets needs one, with its tag")
    check_source(where, key, sources[key])
