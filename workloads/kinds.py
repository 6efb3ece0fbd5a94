"""One registry of workload kinds: a model file's `kind = "..."` names one, and adding a kind is one `register`
call, as for fabric kinds (fabric.registry). A kind supplies what the strategy search and the reports ask of its
models: the record a model file of it parses to, the stack its models run under unless told, what its throughput
counts (tokens or samples) and how many of them one iteration carries, a run's default length, its strategies
with their time breakdown, and whether its search takes a fabric's points and ways in one bounded batch (the
transformer plan's), a fabric's ways in one breakdown (`ways`), or one breakdown each.

A kind also counts its models' weights (what a checkpoint stores) and says their shape in a listing; the keys of a
model file that contradict each other, or have no effect, the model record's `check_keys(data, source)` says.

The built-in four are registered by their record and the module that defines the kind, imported on first use:
reading a model file imports no training model.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from core.errors import InputError, did_you_mean
from core.records import record


@record(slots=False)
class WorkloadKind:
    """A workload kind. `breakdown(model, gpu, estimate, batch, per_candidate, *, stack, precision,
    gradient_bytes)` returns (its strategies on the estimate's job GPUs, their workloads.training.Breakdown), the
    per-candidate keys of --strategy fixed; `gradient_bytes` overrides the data-parallel all-reduce (SiP-ML's
    cases) where the kind has one."""

    name: str
    model: type  # the frozen dataclass a model file of this kind parses to (core.fields declarations)
    default_stack: str  # workloads.stacks name
    unit: str  # what throughput counts: "tokens" or "samples"
    per_iteration: Callable  # (model, batch) → units one iteration carries
    breakdown: Callable
    default_amount: float  # a run's length in `unit` unless told (speedup's days, energy and cost)
    amount_source: str  # where that length comes from
    parameters: Callable  # model → every weight a checkpoint stores
    shape: Callable  # model → its shape in a listing (`sipml models`)
    batched: bool = False  # the transformer plan's bounded search over every way and point of a fabric at once
    # (workloads.speedup reads the model's shape through workloads.training): only for TransformerModel records
    ways: bool = False  # `breakdown` takes the ways a fabric runs a job as one batched view
    # (`fabric.estimate.joined_points`): its figures that the fabric enters are (ways, candidates) arrays, the rest
    # one per candidate (`Breakdown.point` reads way i), its fabric-free work done once

    @property
    def throughput_unit(self) -> str:
        return f"{self.unit}/s"


@record(slots=False)
class Deferred:
    """A kind known by its name and model record, its WorkloadKind `attribute` of `module` imported on first
    use (and checked to say the same)."""

    name: str
    model: type
    module: str
    attribute: str


_ENTRIES: dict[str, WorkloadKind | Deferred] = {}  # by name, in registration order
_PLUGGED: set[str] = set()  # the names `register` added in this process (a plug-in's, not the built-ins')


def register(kind: WorkloadKind) -> WorkloadKind:
    """Add a workload kind (replacing one of the same name). It lives in this process: a sweep's worker processes
    see it only when forked, so a sweep with a plug-in kind runs in this process where they would not, and Dask
    refuses it (`plugged`)."""
    _ENTRIES[kind.name] = kind
    _PLUGGED.add(kind.name)
    return kind


def defer(entry: Deferred) -> None:
    """Add a kind to import on first use (replacing one of the same name)."""
    _ENTRIES[entry.name] = entry


def unregister(name: str) -> None:
    """Remove a registered kind (one a test or a plug-in added)."""
    _ENTRIES.pop(name, None)
    _PLUGGED.discard(name)


def plugged() -> list[str]:
    """The kinds `register` added in this process."""
    return sorted(_PLUGGED)


def names() -> list[str]:
    return list(_ENTRIES)


def model_record(name: str) -> type:
    """The record a model file of kind `name` parses to (nothing imported); InputError naming the kinds."""
    if name not in _ENTRIES:
        raise InputError(f"kind = {name!r}: expected one of {', '.join(_ENTRIES)}{did_you_mean(name, _ENTRIES)}")
    return _ENTRIES[name].model


def get(name: str) -> WorkloadKind:
    """The kind called `name`, imported if deferred."""
    model_record(name)
    entry = _ENTRIES[name]
    if isinstance(entry, WorkloadKind):
        return entry
    kind = getattr(importlib.import_module(entry.module), entry.attribute)
    if (kind.name, kind.model) != (entry.name, entry.model):
        raise RuntimeError(f"workload kind {name!r}: {entry.module}.{entry.attribute} is ({kind.name!r}, "
                           f"{kind.model.__name__}), registered as ({entry.name!r}, {entry.model.__name__})")
    _ENTRIES[name] = kind
    return kind


def of(model) -> WorkloadKind:
    """The kind of a model (by its file's `kind`)."""
    return get(model.info.kind)


def is_model(value) -> bool:
    """Whether `value` is a model of a registered kind."""
    info = getattr(value, "info", None)
    kind = getattr(info, "kind", None)
    return isinstance(kind, str) and kind in _ENTRIES and isinstance(value, _ENTRIES[kind].model)
