"""GPUs as data: peak FLOP/s by precision, HBM size and bandwidth, NVLink, SM count and the best achievable
matmul rate (MAMF), from `gpus.toml` beside this module; price and TDP from the fabric catalog entry each GPU
names, never a second copy (read where a catalog is given: the compute model needs none).

    gpu = get_gpu("a100_sxm4_80gb")
    gpu.peak_flops("bf16")        # 3.12e14 FLOP/s, dense
    gpu.mamf_flops("bf16")        # 2.679e14 FLOP/s (BK, workloads-2.md §7)
    gpu.hbm_bandwidth_bytes_per_s # 2.039e12
    load_gpus(catalog=load_catalog())["a100_sxm4_80gb"].price_usd  # fabric/catalog/components.toml

User files of the same format add GPUs or override single keys (`load_gpus(path)`); every number keeps a source
with its tag, and an override without a new source says which file changed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from collections.abc import Mapping

from core import toml_files
from core.errors import InputError, did_you_mean
from core.fields import Spec
from fabric.catalog import Catalog
from workloads.files import check_known, check_source, parse_spec, read_toml
from workloads.flop_units import PRECISIONS, parse_flops

ARCHITECTURES = ("volta", "ampere", "hopper", "blackwell")
_SPECS = {
    "architecture": Spec(unit="choice", help="GPU generation", source="—", default_text="", choices=ARCHITECTURES),
    "description": Spec(unit="prose", help="what the GPU is", source="—", default_text=""),
    "catalog": Spec(unit="text", help="fabric catalog entry for price and TDP", source="—", default_text=""),
    "sm_count": Spec(unit="1", help="streaming multiprocessors", source="—", default_text="", lo=1,
                     integer=True),
    "hbm": Spec(unit="B", help="HBM capacity", source="—", default_text="", lo=0.0, lo_open=True),
    "hbm_bandwidth": Spec(unit="B/s", help="HBM bandwidth", source="—", default_text="", lo=0.0, lo_open=True),
    "nvlink_bandwidth": Spec(unit="bit/s", help="NVLink bandwidth per GPU per direction", source="—",
                             default_text="", lo=0.0),
}
_NUMBERS = ("sm_count", "hbm", "hbm_bandwidth", "nvlink_bandwidth")
_TABLES = ("peak", "mamf", "mamf_shape", "attention", "sources")
# fused-attention kernel families, newest last: a GPU without a family's figures runs the one before it
ATTENTION_KERNELS = ("flash2", "flash3")
_KNOWN = tuple(_SPECS) + _TABLES


@dataclass(frozen=True, kw_only=True, eq=False)
class Gpu:
    """One GPU in SI: FLOP/s, bytes, bytes/s, bit/s; price in USD and power in W from its catalog entry."""

    name: str
    architecture: str
    description: str
    catalog_key: str
    sm_count: int
    hbm_bytes: float
    hbm_bandwidth_bytes_per_s: float
    nvlink_bandwidth_bps: float  # per direction
    peak: Mapping[str, float]  # precision → dense FLOP/s
    mamf: Mapping[str, float]  # precision → measured best matmul FLOP/s
    mamf_shape: Mapping[str, tuple[int, int, int]]
    attention: Mapping[str, tuple[float, float]]  # kernel family → (forward, backward) share of the 16-bit peak
    price_usd_range: tuple[float, float, float] | None = None  # low, typical, high (the catalog, where given)
    tdp_w_range: tuple[float, float, float] | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    files: tuple[str, ...] = ()

    @property
    def price_usd(self) -> float:
        return self._from_catalog(self.price_usd_range)[1]

    @property
    def tdp_w(self) -> float:
        return self._from_catalog(self.tdp_w_range)[1]

    def _from_catalog(self, value):
        if value is None:
            raise InputError(f"GPU {self.name!r} was loaded without a catalog: its price and TDP are the catalog's "
                             f"[{self.catalog_key}] (load_gpus(catalog=...))")
        return value

    @property
    def precisions(self) -> tuple[str, ...]:
        return tuple(p for p in PRECISIONS if p in self.peak)

    @property
    def default_precision(self) -> str:
        """The 16-bit mode mixed-precision training uses on this GPU: bf16, or fp16 where there is no bf16."""
        return "bf16" if "bf16" in self.peak else "fp16"

    def peak_flops(self, precision: str) -> float:
        """Dense peak FLOP/s in `precision`; InputError if the GPU has no such mode."""
        if precision not in self.peak:
            raise InputError(f"GPU {self.name!r} has no {precision} peak; it has {', '.join(self.precisions)}")
        return self.peak[precision]

    def mamf_flops(self, precision: str) -> float:
        """Best achievable matmul FLOP/s in `precision`: the measured MAMF where the data has one, else the peak
        times the GPU's own MAMF/peak ratio in bf16 (fp16 where it has no bf16) [assumed: the same software
        efficiency in every tensor-core precision]; see `mamf_source`."""
        peak = self.peak_flops(precision)
        if precision in self.mamf:
            return self.mamf[precision]
        reference = self._reference_precision()
        return peak * self.mamf[reference] / self.peak[reference]

    def mamf_source(self, precision: str) -> str:
        self.peak_flops(precision)
        if precision in self.mamf:
            return self.sources.get(f"mamf.{precision}", "")
        reference = self._reference_precision()
        return (f"[assumed] {precision} MAMF = peak × the {reference} MAMF/peak ratio "
                f"({self.mamf[reference] / self.peak[reference]:.3f}); no {precision} measurement")

    def mamf_best_shape(self, precision: str) -> tuple[int, int, int] | None:
        """The M×N×K the MAMF was measured at (None where the data has none)."""
        if precision in self.mamf:
            return self.mamf_shape.get(precision)
        return self.mamf_shape.get(self._reference_precision())

    def attention_kernel(self, wanted: str) -> str:
        """The fused-attention family the GPU runs when software asks for `wanted`: that one, or the newest older
        one the GPU has figures for; 'unfused' when it has none (V100: FlashAttention-2 needs Ampere)."""
        if wanted == "unfused":
            return wanted
        for kernel in reversed(ATTENTION_KERNELS[:ATTENTION_KERNELS.index(wanted) + 1]):
            if kernel in self.attention:
                return kernel
        return "unfused"

    def _reference_precision(self) -> str:
        for precision in ("bf16", "fp16"):
            if precision in self.mamf and precision in self.peak:
                return precision
        raise InputError(f"GPU {self.name!r} has no bf16 or fp16 MAMF to scale from; give [{self.name}.mamf]")


def default_gpus_path() -> Path:
    return Path(__file__).with_name("gpus.toml")


def load_gpus(*user_files, base=None, catalog: Catalog | None = None) -> dict[str, Gpu]:
    """The shipped GPUs (or `base`), with each user file merged on top: a table for a new GPU adds it (and must
    be complete), a table for a known one overrides the keys it gives. Price and TDP come from `catalog`, which
    must have each GPU's entry (the shipped catalog where user files are given, so their `catalog` keys are
    checked); for the shipped GPUs alone without one they are left unread (the compute model needs neither)."""
    raw: dict[str, dict] = {}
    files: dict[str, list[str]] = {}
    for path in (base or default_gpus_path(), *user_files):
        _merge_file(raw, files, str(path), read_toml(path))
    if catalog is None and user_files:
        from fabric.catalog import load_catalog

        catalog = load_catalog()
    gpus = {gpu: _build(gpu, table, tuple(files[gpu]), catalog) for gpu, table in raw.items()}
    named: dict[str, str] = {}
    for gpu in gpus.values():  # a design names its GPU by the catalog entry: one GPU per entry
        if gpu.catalog_key in named:
            raise InputError(f"{' / '.join(gpu.files)}: [{gpu.name}] catalog = {gpu.catalog_key!r}: GPU "
                             f"[{named[gpu.catalog_key]}] names it too (a design's [fabric] gpu picks its GPU by it)")
        named[gpu.catalog_key] = gpu.name
    return gpus


def _merge_file(raw: dict, files: dict, name: str, parsed: dict) -> None:
    """A file's GPU tables (`parsed`, read from `name`) merged into `raw` (GPU → its keys), `files` told which files
    each GPU's keys came from: a table for a new GPU adds it, one for a known GPU overrides the keys it gives."""
    for gpu, table in parsed.items():
        where = f"{name}: [{gpu}]"
        if not isinstance(table, dict):
            raise InputError(f"{name}: '{gpu}' must be a [table] of GPU keys, got {table!r}")
        check_known(where, table, _KNOWN)
        merged = raw.setdefault(gpu, {})
        for key, value in table.items():
            if key in _TABLES:
                if not isinstance(value, dict):
                    raise InputError(f"{where} {key}: expected a table [{gpu}.{key}], got {value!r}")
                merged.setdefault(key, {}).update(value)
            else:
                merged[key] = value
        if files.get(gpu):  # an override of a GPU an earlier file defined
            _note_override_sources(merged, table, name)
        files.setdefault(gpu, []).append(name)


def _note_override_sources(merged: dict, table: dict, name: str) -> None:
    """A user override of a number without its own source keeps the old source, marked as overridden."""
    sources = merged.setdefault("sources", {})
    given = table.get("sources", {})
    changed = [key for key in table if key in _NUMBERS] + [f"{t}.{k}" for t in ("peak", "mamf", "mamf_shape",
                                                                                 "attention")
                                                            for k in table.get(t, {})]
    for key in changed:
        if key not in given:
            sources[key] = f"overridden in {name} (was: {sources.get(key, 'no source')}) [assumed]"


def _build(gpu: str, table: dict, files: tuple[str, ...], catalog: Catalog | None) -> Gpu:
    shipped = str(default_gpus_path())
    named = [f for f in dict.fromkeys(files) if f != shipped] or [shipped]  # a user's files: the shipped one is checked
    where = f"{' / '.join(named)}: [{gpu}]"
    missing = [key for key in (*_SPECS, "peak", "mamf", "sources") if key not in table]
    if missing:
        raise InputError(f"{where} missing key(s): {', '.join(missing)}")
    values = {key: parse_spec(where, key, spec, table[key]) for key, spec in _SPECS.items()}
    if not values["catalog"].startswith("gpu."):
        raise InputError(f"{where} catalog = {values['catalog']!r}: a GPU names a gpu. entry of the catalog (its "
                         "price and power), e.g. 'gpu.h100_sxm5'")
    peak = _flops_table(where, "peak", table["peak"])
    mamf = _flops_table(where, "mamf", table.get("mamf", {}))
    for precision, rate in mamf.items():
        if precision not in peak:
            raise InputError(f"{where} mamf.{precision}: the GPU has no {precision} peak")
        if rate > peak[precision]:
            raise InputError(f"{where} mamf.{precision}: {rate / 1e12:g} TFLOP/s exceeds the peak "
                             f"{peak[precision] / 1e12:g} TFLOP/s")
    if not any(p in mamf for p in ("bf16", "fp16")):
        raise InputError(f"{where} mamf: give at least a bf16 or fp16 MAMF (the other precisions scale from it)")
    shapes = {}
    for precision, shape in table.get("mamf_shape", {}).items():
        check_known(f"{where} mamf_shape", [precision], tuple(mamf), "precision")
        if (not isinstance(shape, list) or len(shape) != 3
                or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in shape)):
            raise InputError(f"{where} mamf_shape.{precision} = {shape!r}: expected [M, N, K], three whole numbers")
        shapes[precision] = tuple(shape)
    attention = _attention_table(where, table.get("attention", {}))
    sources = table.get("sources", {})
    numbers = [*_NUMBERS, *(f"peak.{p}" for p in peak), *(f"mamf.{p}" for p in mamf),
               *(f"mamf_shape.{p}" for p in shapes), *(f"attention.{k}" for k in attention)]
    check_known(f"{where} sources", sources, numbers)
    for key in numbers:
        if key not in sources:
            raise InputError(f"{where} sources: no source for {key!r}; every number needs one, with its tag")
        check_source(where, key, sources[key])
    component = None
    if catalog is not None:
        try:
            component = catalog.get(values["catalog"])
        except InputError as exc:
            raise InputError(f"{where} catalog = {values['catalog']!r}: {exc}") from None
    return Gpu(
        name=gpu, architecture=values["architecture"], description=values["description"],
        catalog_key=values["catalog"],
        sm_count=values["sm_count"], hbm_bytes=values["hbm"], hbm_bandwidth_bytes_per_s=values["hbm_bandwidth"],
        nvlink_bandwidth_bps=values["nvlink_bandwidth"],
        peak=MappingProxyType(peak), mamf=MappingProxyType(mamf), mamf_shape=MappingProxyType(shapes),
        attention=MappingProxyType(attention), price_usd_range=component and component.price_usd,
        tdp_w_range=component and component.power_w,
        sources=MappingProxyType(dict(sources)), files=files,
    )


def _attention_table(where: str, table: dict) -> dict[str, tuple[float, float]]:
    check_known(f"{where} attention", table, ATTENTION_KERNELS, "kernel family")
    out = {}
    for kernel, pair in table.items():
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 1 for v in pair)):
            raise InputError(f"{where} attention.{kernel} = {pair!r}: expected [forward, backward], two shares of "
                             "the 16-bit peak in (0, 1]")
        out[kernel] = (float(pair[0]), float(pair[1]))
    return out


def _flops_table(where: str, name: str, table: dict) -> dict[str, float]:
    check_known(f"{where} {name}", table, PRECISIONS, "precision")
    out = {}
    for precision, text in table.items():
        try:
            out[precision] = parse_flops(text, rate=True)
        except InputError as exc:
            raise InputError(f"{where} {name}.{precision} = {text!r}: {exc}") from None
        if out[precision] <= 0:
            raise InputError(f"{where} {name}.{precision} = {text!r}: expected a rate > 0")
    return out


def gpu_changes(gpus: Mapping[str, Gpu]) -> list[str]:
    """What users' GPU files changed against the shipped GPUs, a line each: a GPU added (with its catalog entry), or
    each figure of a shipped GPU changed (old and new, and the source the file gives it)."""
    shipped = shipped_gpus()
    lines = []
    for name, gpu in gpus.items():
        files = ", ".join(f for f in gpu.files if f != str(default_gpus_path()))
        if name not in shipped:
            lines.append(f"{files}: adds GPU [{name}] ({gpu.architecture}, catalog {gpu.catalog_key})")
            continue
        for key, old, new in _changed_figures(shipped[name], gpu):
            lines.append(f"{files}: [{name}] {key} = {new} (was {old}); source: {gpu.sources.get(key, '—')}")
    return lines


_SHOWN = {"sm_count": ("sm_count", 1.0, ""), "hbm": ("hbm_bytes", 1e9, " GB"),
          "hbm_bandwidth": ("hbm_bandwidth_bytes_per_s", 1e9, " GB/s"),
          "nvlink_bandwidth": ("nvlink_bandwidth_bps", 1e9, " Gbit/s")}


def _changed_figures(before: Gpu, after: Gpu):
    """(key, old, new) of each figure `after` gives differently from `before`, in the GPU file's spelling."""
    for key, (field_name, scale, unit) in _SHOWN.items():
        old, new = getattr(before, field_name), getattr(after, field_name)
        if old != new:
            yield key, f"{old / scale:g}{unit}", f"{new / scale:g}{unit}"
    for table in ("peak", "mamf"):
        old, new = getattr(before, table), getattr(after, table)
        for precision in dict.fromkeys([*old, *new]):
            if old.get(precision) != new.get(precision):
                yield (f"{table}.{precision}", *(f"{v / 1e12:g} TFLOP/s" if v is not None else "none"
                                                 for v in (old.get(precision), new.get(precision))))
    for table in ("mamf_shape", "attention"):
        old, new = getattr(before, table), getattr(after, table)
        for key in dict.fromkeys([*old, *new]):
            if old.get(key) != new.get(key):
                yield f"{table}.{key}", str(list(old[key]) if key in old else "none"), str(
                    list(new[key]) if key in new else "none")


class ShippedGpus(toml_files.OnDemand):
    """The shipped GPUs (`gpus.toml`) for the compute model, each read from its own tables when first asked for
    (no catalog read: `load_gpus(catalog=...)` adds price and TDP): a process that trains on one GPU parses that
    GPU's tables alone. Each GPU is the one `load_gpus()` reads (a test compares every one)."""

    def __init__(self, path: Path):
        self._path = str(path)
        self._tables = toml_files.tables_by_name(path.read_text(encoding="utf-8"))
        super().__init__(self._tables, self._read_one)

    def _read_one(self, name: str) -> Gpu:
        raw: dict[str, dict] = {}
        files: dict[str, list[str]] = {}
        _merge_file(raw, files, self._path, toml_files.loads(self._tables[name]))
        return _build(name, raw[name], tuple(files[name]), None)

    def with_catalog_key(self, key: str) -> Gpu | None:
        """The GPU whose `catalog` is `key` (read alone), or None."""
        for name, text in self._tables.items():
            found = _CATALOG_LINE.search(text)
            if found and found.group(1) == key:
                return self[name]
        return None


_CATALOG_LINE = re.compile(r'^catalog\s*=\s*"([^"]*)"', re.MULTILINE)


@lru_cache(maxsize=1)
def shipped_gpus() -> ShippedGpus:
    """The shipped GPUs, each read once when first asked for (`ShippedGpus`)."""
    return ShippedGpus(default_gpus_path())


def get_gpu(name: str, gpus: Mapping[str, Gpu] | None = None) -> Gpu:
    """A GPU by name; InputError listing the known names when there is none. The fabric catalog key
    ('gpu.a100_sxm4') is accepted too, for the GPU that names it."""
    gpus = shipped_gpus() if gpus is None else gpus
    if name in gpus:
        return gpus[name]
    by_catalog = [g for g in gpus.values() if g.catalog_key == name]
    if by_catalog:
        return by_catalog[0]
    raise InputError(f"unknown GPU {name!r}{did_you_mean(name, gpus)}; known GPUs: {', '.join(gpus)}")
