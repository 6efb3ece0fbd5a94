"""Design-point files: TOML with dimensioned values written as strings with units.

    [link]
    data_rate = "25 Gbit/s"
    wavelengths_per_fiber = 8

    [fabric]
    kind = "sip-ring"

Each section maps to a frozen dataclass (`photonics.link_design` for the optical link, `fabric.cluster_design` for the
fabric); each key to a declared field (unit, bounds, help, source, when it has an effect). Unknown sections or
keys, wrong units, out-of-range, NaN or infinite values, contradictions between keys and keys or sections that
have no effect in the design are InputErrors that name the file, the section, the key and the value; every key
without effect is reported at once. Built-in designs (`sipml/designs/*.toml`) are found by name.

What a file means: every key it leaves out takes its declared default (`sipml fields`, column "default"), and
a file without [fabric] has the default fabric (a 1024-GPU SiP-Ring without amplifiers). So an empty file is the
library defaults, for every command alike (`check`, `fabric` and `cost` give it one verdict: infeasible, since
an unamplified ring does not reach SiP-ML's placement locality). Only naming no design at all means the built-in
`sip-ring` (column "sip-ring"), which is the file `sipml init` writes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path

from core import toml_files
from core.errors import InputError, did_you_mean, shown
from core.fields import TEXT_SPECS, AllOf, FieldError, Spec, When, all_of, conditions_of, specs, when
from fabric.cluster_design import ClusterDesign, FabricSection, ReliabilitySection
from fabric.registry import changes, declared, get_kind, sections
from photonics.link_design import SECTION_APPLIES_WHEN, SECTIONS, LinkDesign



class _Sections(Mapping):
    """Section name → its dataclass, read from the fabric registry at every use: a kind registered after import
    brings its section with it."""

    def __init__(self, with_link: bool):
        self._with_link = with_link
        self._seen: tuple = (-1, ())  # (the registry's changes() when last read, the section names then)

    def _names(self) -> tuple:
        if self._seen[0] != changes():
            self._seen = (changes(), (*(SECTIONS if self._with_link else ()), "fabric", *sections(),
                                      *(("reliability",) if self._with_link else ())))
        return self._seen[1]

    def __getitem__(self, name):
        if self._with_link and name in SECTIONS:
            return SECTIONS[name]
        if name == "fabric":
            return FabricSection
        if self._with_link and name == "reliability":
            return ReliabilitySection
        return sections()[name]  # a kind's own: the kind is imported here, if it was not yet

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())

    def __contains__(self, name) -> bool:
        return name in self._names()


FABRIC_SECTIONS: Mapping[str, type] = _Sections(with_link=False)  # [fabric] and every kind's own section
ALL_SECTIONS: Mapping[str, type] = _Sections(with_link=True)  # the link's sections, then FABRIC_SECTIONS
BUILTIN_DIR = Path(__file__).with_name("designs")
DEFAULT_DESIGN = "sip-ring"  # what `budget`, `check`, `fabric` and `init` use when no design is named


def builtin_designs() -> dict[str, Path]:
    """Name → file of every built-in design (a dict of its own: the caller may change it)."""
    return dict(_builtin_files())


@functools.cache  # the package's own folder: listed once per process (a report names a built-in design ~140 times)
def _builtin_files() -> tuple[tuple[str, Path], ...]:
    return tuple((p.stem, p) for p in sorted(BUILTIN_DIR.glob("*.toml")))


# --- which keys have an effect --------------------------------------------------------------------------------
def section_condition(name: str) -> When | AllOf | None:
    """When the keys of section `name` have an effect (None: always): the optical sections for the kinds whose
    GPUs have the optical I/O (and each for the link kind that uses it), a kind's own section for that kind.
    Found once per name (every design a sweep loads asks)."""
    return _FOUND.get(("condition", name), lambda: _section_condition(name))


class _WhileRegistryStands:
    """Values found once per key while the fabric registry stays as it is (a kind registered later brings its own
    sections and conditions), at most `size` of them kept."""

    def __init__(self, size: int):
        self._size, self._seen, self._values = size, -1, {}

    def get(self, key, find):
        if self._seen != changes():
            self._seen, self._values = changes(), {}
        if key not in self._values:
            if len(self._values) >= self._size:
                self._values.clear()
            self._values[key] = find()
        return self._values[key]

    def clear(self) -> None:
        self._values = {}


_FOUND = _WhileRegistryStands(4096)  # sections, their conditions, the fields they read, designs' keys without effect


def _section_condition(name: str) -> When | AllOf | None:
    if name in SECTIONS:
        optical = [k.name for k in declared() if k.optical]
        return all_of(when("fabric", "kind", *optical), SECTION_APPLIES_WHEN.get(name))
    owners = [k.name for k in declared() if k.section == name]
    return when("fabric", "kind", *owners) if owners else None


def section_of(design: ClusterDesign, name: str):
    """The section object `name` of a design (a kind's section: the design's own, or that kind's defaults)."""
    if name in SECTIONS:
        return getattr(design.link, name)
    if name == "fabric":
        return design.fabric
    if name == "reliability":
        return design.reliability
    topology = design.topology
    return topology if isinstance(topology, ALL_SECTIONS[name]) else ALL_SECTIONS[name]()


def _holds(design: ClusterDesign, cond: When | AllOf | None) -> bool:
    return all(c.holds(getattr(section_of(design, c.section), c.key)) for c in conditions_of(cond))


def key_applies(design: ClusterDesign, section: str, key: str) -> bool:
    """Whether [section] key has an effect in `design`."""
    field_cond = specs(ALL_SECTIONS[section])[key].applies_when
    return _holds(design, section_condition(section)) and _holds(design, field_cond)


class NoEffect(InputError):
    """Sections or keys of a design file that have no effect in the design; `problem` says which and when they
    would, without the file's name (so one line can list the designs a --set does not fit)."""

    def __init__(self, source: str, problem: str):
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


def _failing(design: ClusterDesign, cond) -> When | AllOf | None:
    """The parts of `cond` that do not hold in `design` (None: it holds)."""
    return all_of(*(c for c in conditions_of(cond) if not _holds(design, c)))


def _no_effect_problem(data: dict, design: ClusterDesign) -> str | None:
    """Every section and key of `data` without effect in `design`, in one line, or None when all apply. Found
    once per (the sections and keys of `data`, the values of the fields their conditions read, the fabric kind):
    a sweep's points share them."""
    names = tuple((name, tuple(values)) for name, values in data.items())
    atoms = _FOUND.get(("fields", names), lambda: _condition_fields(data))
    key = ("problem", names, design.fabric.kind, tuple(getattr(section_of(design, s), k) for s, k in atoms))
    try:
        hash(key)
    except TypeError:  # a condition on a field whose value is not a plain value
        return _find_no_effect_problem(data, design)
    return _FOUND.get(key, lambda: _find_no_effect_problem(data, design))


def _condition_fields(data: dict) -> tuple:
    """(section, key) of every field the conditions on the sections and keys of `data` (and on the fabric kinds'
    own sections, which the problem text lists) read."""
    conds = [section_condition(n) for n in (*data, *FABRIC_SECTIONS)]
    conds += [specs(ALL_SECTIONS[n])[k].applies_when for n, values in data.items() if n in ALL_SECTIONS
              for k in values if k in specs(ALL_SECTIONS[n])]
    return tuple(dict.fromkeys((c.section, c.key) for cond in conds for c in conditions_of(cond)))


def _find_no_effect_problem(data: dict, design: ClusterDesign) -> str | None:
    sections: dict[tuple[str, bool], list[str]] = {}  # (failing condition, on the fabric kind) → its sections
    keys = []
    for name, values in data.items():
        failing = _failing(design, section_condition(name))
        if failing is not None:
            on_kind = any(c.section == "fabric" and c.key == "kind" for c in conditions_of(failing))
            sections.setdefault((failing.text(), on_kind), []).append(name)
            continue
        for key in values:
            field_cond = specs(ALL_SECTIONS[name])[key].applies_when
            if not _holds(design, field_cond):
                keys.append(f"[{name}] {key} has no effect here: it applies only when {field_cond.text()} "
                            "(remove it, or set that)")
    problems = []
    kind = design.fabric.kind
    live = [f"[{n}]" for n in FABRIC_SECTIONS if n != "fabric" and _holds(design, section_condition(n))]
    for (cond, on_kind), names in sections.items():
        many = len(names) > 1
        listed = ", ".join(f"[{n}] ({', '.join(data[n])})" if data[n] else f"[{n}]" for n in names)
        they = "they apply" if many else "it applies"
        if on_kind:
            where = f" (settings of kind '{kind}' live in {live[0]})" if live and any(
                n in FABRIC_SECTIONS for n in names) else ""
            problems.append(f"section{'s' if many else ''} {listed} {'do' if many else 'does'} not apply to "
                            f"[fabric] kind = '{kind}': {they} only when {cond}{where}")
        else:
            problems.append(f"section{'s' if many else ''} {listed} {'have' if many else 'has'} no effect here: "
                            f"{they} only when {cond}")
    problems += keys
    if not problems:
        return None
    return problems[0] if len(problems) == 1 else f"{len(problems)} settings have no effect: " + "; ".join(problems)


# --- reading --------------------------------------------------------------------------------------------------
def build_section(cls, values: dict, where: str):
    """Build one section dataclass from a mapping of key → raw value, validating each field (strictly: a
    dimensioned value must carry its unit) and the bounds between fields."""
    declared = specs(cls)
    kwargs = {}
    for key, raw in values.items():
        if key not in declared:
            raise InputError(f"{where}: unknown key {shown(key)}{did_you_mean(key, declared)}; "
                             f"known keys: {', '.join(declared)}")
        try:
            kwargs[key] = declared[key].parse(raw)
        except InputError as exc:
            raise InputError(f"{where} {key} = {shown(raw)}: {exc}") from None
    try:
        return cls(**kwargs)
    except FieldError as exc:
        raise InputError(f"{where} {exc.detail}") from None


def _built_section(name: str, values: dict, where: str):
    """The section built from `values`, once per section type and values of the same types, numbers bit for bit
    (sections are frozen: a sweep's points share the one of each value they give)."""
    kind = ALL_SECTIONS[name]
    key = ("section", kind, tuple((k, type(v), v.hex() if type(v) is float else v) for k, v in values.items()))
    try:
        hash(key)
    except TypeError:  # a list value
        return build_section(kind, values, where)
    return _FOUND.get(key, lambda: build_section(kind, values, where))


MOVED = {("tuning", "retune_time"): ("sip_ring", "retune_time", "0.5.0")}  # (section, key) → where it went, since


def _check_names(data: dict, source: str) -> None:
    """One InputError naming every unknown section and key of `data` at once (one alone keeps the full list of
    known names); a key that moved to another section says where."""
    for name, values in data.items():
        for key in values if isinstance(values, dict) else ():
            if (name, key) in MOVED:
                section, new_key, version = MOVED[name, key]
                raise InputError(f"{source}: [{name}] {key} is [{section}] {new_key} since {version}: move it there")
    unknown = []  # (short text, text with the known names)
    for name, values in data.items():
        if name not in ALL_SECTIONS:
            unknown.append((f"unknown section [{name}]{did_you_mean(name, ALL_SECTIONS)}",
                            f"unknown section [{name}]{did_you_mean(name, ALL_SECTIONS)}; known sections: "
                            f"{', '.join(ALL_SECTIONS)}"))
        elif isinstance(values, dict):
            declared = specs(ALL_SECTIONS[name])
            unknown += [(f"[{name}] unknown key {shown(key)}{did_you_mean(key, declared)}",
                         f"[{name}]: unknown key {shown(key)}{did_you_mean(key, declared)}; known keys: "
                         f"{', '.join(declared)}") for key in values if key not in declared]
    if len(unknown) == 1:
        raise InputError(f"{source}: {unknown[0][1]}")
    if unknown:
        raise InputError(f"{source}: {len(unknown)} unknown names: " + "; ".join(short for short, _ in unknown))


def _same_values(a: dict, b: dict) -> bool:
    """The same keys with the same values of the same types (True == 1, but not as input)."""
    return a.keys() == b.keys() and all(type(a[k]) is type(b[k]) and a[k] == b[k] for k in a)


OPTICAL_IO = "optical_io"  # [optical_io] design = NAME: a design takes the optical I/O ([link] … [package]) of NAME
# what of the link sections is the fabric's path between GPUs (a ring hop, a run to a switch), not the optical I/O's:
# a design taking another's optical I/O keeps its own (a chiplet's file gives the reach it is specified for)
PATH_KEYS = {"loss": ("fiber_length", "connectors")}


def with_optical_io(data: dict, source: str) -> dict:
    """`data` with its [optical_io] resolved: the named design's (a built-in name or a design file) link sections
    ([link] … [package]), each with this mapping's own keys of that section on top; `data` itself when it names
    none."""
    io = data.get(OPTICAL_IO)
    if io is None:
        return data
    if not isinstance(io, dict) or set(io) != {"design"} or not isinstance(io["design"], str) or \
            not io["design"].strip():
        raise InputError(f"{source}: [{OPTICAL_IO}] takes one key, design = a built-in design or a design file "
                         "whose [link] … [package] this design takes (e.g. design = 'intel-oci')")
    name = io["design"]
    try:
        other = read_toml(resolve(name))
    except InputError as exc:
        raise InputError(f"{source}: [{OPTICAL_IO}] design: {exc}") from None
    if OPTICAL_IO in other:
        raise InputError(f"{source}: [{OPTICAL_IO}] design = {shown(name)} takes its own optical I/O from another "
                         "design: name that one")
    kind = other.get("fabric", {}).get("kind") if isinstance(other.get("fabric"), dict) else None
    optical = {entry.name for entry in declared() if entry.optical}
    if kind is not None and kind not in optical:
        raise InputError(f"{source}: [{OPTICAL_IO}] design = {shown(name)} is a fabric of kind '{kind}', with no "
                         "optical I/O to take (name a link design or an optical fabric's)")
    out = {name_: values for name_, values in data.items() if name_ != OPTICAL_IO}
    for section in SECTIONS:
        theirs, ours = other.get(section), data.get(section)
        if isinstance(theirs, dict) and (ours is None or isinstance(ours, dict)):
            if "fabric" in data:  # a fabric design's path between GPUs is its own, not the optical I/O's
                theirs = {k: v for k, v in theirs.items() if k not in PATH_KEYS.get(section, ())}
            out[section] = {**theirs, **(ours or {})}
    return out


def design_from_mapping(data: dict, source: str = "<design>", base: dict | None = None,
                        loaded_as: str | None = None) -> ClusterDesign:
    """A design from a parsed TOML mapping; `source` names the file in error messages, `loaded_as` the design (the
    file or built-in name given: `ClusterDesign.name`). Sections and keys left
    out take their declared defaults; a mapping without [fabric] has the default fabric. `base`: {name: (values,
    section)} of sections already built (and their names checked) from a base mapping (`section_values`); a
    section whose values are the same is taken from there, neither checked nor built again (a sweep's points differ
    from their base in a section or two). An [optical_io] section takes another design's link sections
    (`with_optical_io`)."""
    base = base or {}
    data = with_optical_io(data, source)
    kept = {name for name, values in data.items()
            if name in base and isinstance(values, dict) and _same_values(base[name][0], values)}
    _check_names({name: values for name, values in data.items() if name not in kept}, source)  # kept: checked
    built = {}
    for name, values in data.items():
        if not isinstance(values, dict):
            raise InputError(f"{source}: '{name}' must be a [section] table, got {shown(values)}")
        built[name] = base[name][1] if name in kept else _built_section(name, values, f"{source}: [{name}]")
    fabric = built["fabric"] if "fabric" in built else _built_section("fabric", {}, f"{source}: [fabric]")
    kind = get_kind(fabric.kind)
    own = {n: s for n, s in built.items() if n in FABRIC_SECTIONS and n != "fabric"}
    try:
        link = LinkDesign(**{k: v for k, v in built.items() if k in SECTIONS})
        reliability = built.get("reliability") or _built_section("reliability", {}, f"{source}: [reliability]")
        design = ClusterDesign(link=link, fabric=fabric, topology=own.get(kind.section), reliability=reliability,
                               has_fabric="fabric" in data, name=loaded_as)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    if design.has_fabric and kind.optical and link.link.kind != "ring-wdm":
        raise InputError(f"{source}: [link] kind = '{link.link.kind}' does not fit [fabric] kind = '{kind.name}': "
                         "the SiP fabrics are built from ring-wdm chiplets (a point-to-point link is a design "
                         "without [fabric])")
    problem = _no_effect_problem(data, design)
    if problem:
        raise NoEffect(source, problem)
    return design


def section_values(data: dict, design: ClusterDesign) -> dict:
    """{name: (values, section)} of every section `data` gives, as `design` (built from it) holds them: the `base`
    of `design_from_mapping` for mappings that differ from `data` in a few values."""
    return {name: (values, section_of(design, name)) for name, values in data.items()
            if isinstance(values, dict) and name in ALL_SECTIONS}


def resolve(design: str | Path) -> Path:
    """A design file's path: the file itself, or a built-in design of that name."""
    if isinstance(design, str) and not design.strip():  # Path('') is '.', the working folder
        raise InputError(f"{design!r}: an empty design name; built-in: {', '.join(builtin_designs())}, or a TOML file")
    path = Path(design)
    try:
        if path.exists() or path.suffix:
            return path
    except (OSError, ValueError) as exc:  # a name too long for the file system, a NUL: no file, nor a built-in
        raise InputError(f"{shown(str(design))}: no such file or built-in design "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    builtins = builtin_designs()
    if str(design) in builtins:
        return builtins[str(design)]
    raise InputError(f"{design}: no such file or built-in design{did_you_mean(str(design), builtins)}; built-in: "
                     f"{', '.join(builtins)}")


def read_toml(path: Path) -> dict:
    """Parse a design file, turning every failure into an InputError that names the file."""
    return toml_files.read(path, "TOML design file")


def scoped_overrides(name: str, overrides, names) -> list[str]:
    """The `--set` items that apply to design `name` of the designs compared (`names`): every plain
    `section.key=value`, and each `DESIGN:section.key=value` whose DESIGN is `name` (so one design of a comparison
    can be changed alone). A scope that names no design compared is refused."""
    out = []
    for item in overrides or []:
        target = item.partition("=")[0]
        if ":" not in target:
            out.append(item)
            continue
        scope, _, rest = item.partition(":")
        if scope not in names:
            raise InputError(f"--set {shown(item)}: {shown(scope)} is not one of the designs compared "
                             f"({', '.join(names)}){did_you_mean(scope, list(names))}")
        if scope == name:
            out.append(rest)
    return out


def apply_overrides(data: dict, overrides: list[str], source: str = "<design>") -> dict:
    """Apply `section.key=value` overrides (from `--set`) to a parsed design mapping. The value is read as
    TOML when it parses (numbers, quoted strings), else taken as text ("25 Gbit/s" needs no quotes); text with
    a quote in it, or a line break, is refused. `optical_io.design=NAME` replaces the link sections given so far
    by NAME's, but the path between GPUs (PATH_KEYS: fiber length, connectors) (later --set items apply on top)."""
    merged = {name: dict(values) if isinstance(values, dict) else values for name, values in data.items()}
    for item in overrides:
        target, sep, text = item.partition("=")
        section, dot, key = target.strip().partition(".")
        if not sep or not dot or not section or not key:
            raise InputError(f"{source}: --set {shown(item)}: expected section.key=value, e.g. "
                             f"link.data_rate='50 Gbit/s'")
        if ":" in section:  # a DESIGN: scope, which only commands comparing designs take
            raise InputError(f"{source}: --set {shown(item)}: DESIGN:section.key=value changes one design of those "
                             f"compared (cost, speedup, mix); here give section.key=value")
        try:
            value = _override_value(text.strip())
        except InputError as exc:
            raise InputError(f"{source}: --set {shown(item)}: {exc}") from None
        if section == OPTICAL_IO:  # another design's optical I/O in place of the link sections given so far,
            path = {name: {k: v for k, v in merged[name].items() if k in keys}  # a fabric's path between GPUs
                    for name, keys in PATH_KEYS.items() if isinstance(merged.get(name), dict)
                    and "fabric" in merged}
            merged = {name: values for name, values in merged.items() if name not in SECTIONS}
            merged.update({name: values for name, values in path.items() if values})
        if section in merged and not isinstance(merged[section], dict):
            raise InputError(f"{source}: '{section}' must be a [section] table, got {shown(merged[section])} "
                             f"(so --set {section}.{key} has no section to go in)")
        merged.setdefault(section, {})[key] = value
    return merged


def _override_value(text: str):
    """A --set value: TOML when it parses, else the text itself (which may then not hold a quote)."""
    if any(not c.isprintable() for c in text):
        raise InputError("the value has a line break or a control character")
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    except ValueError:  # Python refuses to read an integer of more than 4300 digits
        raise InputError("a number with more than 4300 digits") from None
    except RecursionError:
        raise InputError("arrays nested too deeply") from None
    if any(q in text for q in "'\"`"):
        raise InputError("a stray quote (quote the whole value, or none of it)")
    return text


def _io_beside(data: dict, file: Path) -> dict:
    """`data` with a relative [optical_io] design path read beside the design file that names it."""
    io = data.get(OPTICAL_IO)
    name = io.get("design") if isinstance(io, dict) else None
    if isinstance(name, str) and name.endswith(".toml") and not Path(name).is_absolute() \
            and (file.parent / name).is_file():
        return {**data, OPTICAL_IO: {**io, "design": str(file.parent / name)}}
    return data


def load_design(path: str | Path | None, overrides: list[str] | None = None, given_as: str = "--set") -> ClusterDesign:
    """The design in `path` (a file or a built-in name; None: the built-in sip-ring), with `--set`
    overrides; errors name them as `given_as` says ('--set', or 'changes' from Python)."""
    file = resolve(path if path is not None else DEFAULT_DESIGN)
    data = _io_beside(read_toml(file), file)
    source = loaded_as = str(path) if path is not None else DEFAULT_DESIGN
    if overrides:
        data = apply_overrides(data, overrides, source)
        source += f" (with {given_as})"
    return design_from_mapping(data, source, loaded_as=loaded_as)


# --- catalog entries a design names -----------------------------------------------------------------------
def catalog_entries(design: ClusterDesign) -> list[tuple[str, str, str]]:
    """(section, key, entry) of every catalog entry the design names where it has an effect."""
    out = []
    for name in ALL_SECTIONS:
        if not _holds(design, section_condition(name)):
            continue  # another fabric kind's section (that kind is not imported for it) or an unused one
        for key, spec in specs(ALL_SECTIONS[name]).items():
            if spec.unit != "text" or not key_applies(design, name, key):
                continue
            value = getattr(section_of(design, name), key)
            if (name, key) == ("fabric", "host") and design.fabric.server_refusal() is None:
                value = design.fabric.server  # the GPU's own server where host = 'gpu' (none known: refused where
                # a server is priced)
            if value not in spec.choices:
                out.append((name, key, value))
    return out


def check_catalog_entries(design: ClusterDesign, catalog, source: str) -> None:
    """InputError naming every catalog entry of the design that `catalog` does not have, each with its key."""
    missing = []
    for name, key, entry in catalog_entries(design):
        try:
            catalog.get(entry)
        except InputError as exc:
            missing.append(f"[{name}] {key} = {shown(entry)}: {exc}")
    if missing:
        raise InputError(f"{source}: " + "; ".join(missing) + f" (catalog: {', '.join(catalog.files)})")
    from fabric.cost import check_switch_radix

    try:
        check_switch_radix(design, catalog)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


# --- writing --------------------------------------------------------------------------------------------------
def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a TOML basic string


def toml_value(spec: Spec, value, default) -> str:
    """`value` as TOML text that reads back to exactly `value`: the declaration's own text for the default,
    else the value with an SI prefix, else (when that would round) the SI float with its unit."""
    if spec.unit in TEXT_SPECS:
        return _toml_string(value)
    if spec.integer:
        return str(value)
    if spec.unit == "1":
        return repr(float(value))
    if value == default:
        return _toml_string(spec.default_text)
    text = spec.show(value)
    try:
        if spec.parse(text) == value:
            return _toml_string(text)
    except InputError:
        pass
    return _toml_string(f"{value!r} {spec.unit}")


def _comment(text: str) -> str:
    return " ".join(text.split())


def design_toml(design: ClusterDesign, title: str, notes: tuple[str, ...] = ()) -> str:
    """A complete, commented TOML file of `design` that loads back to it: every key that has an effect with its
    value, range and source; keys that have none in this design are commented out, each saying when it would
    (delete the leading '# ' to use one). `notes` are comment lines to keep at the top."""
    out = [f"# sipml design point: {title}.", "# Values with a dimension are strings with units; see `sipml fields`.",
           "# A line '# key = …' has no effect in this design and says when it would; delete the '# ' to use it.",
           *(f"# {_comment(n)}" if n else "#" for n in notes), ""]
    link_only = not design.has_fabric  # a link design (no [fabric]) is written as one, so it loads back as one
    for name, cls in ALL_SECTIONS.items():
        if not _holds(design, section_condition(name)) or (link_only and (name in FABRIC_SECTIONS
                                                                           or name == "reliability")):
            continue
        out.append(f"[{name}]")
        holder = section_of(design, name)
        for f in dataclasses.fields(cls):
            spec, value = f.metadata["spec"], getattr(holder, f.name)
            line = f"{f.name} = {toml_value(spec, value, f.default)}"
            source = spec.source if value == f.default else f"this design (default {spec.default_text}: {spec.source})"
            note = _comment(f"{spec.help}; {spec.range_text()}; source: {source}")
            if key_applies(design, name, f.name):
                out += [*_wrapped_comment(note), line]
            else:
                out += [*_wrapped_comment(f"applies only when {spec.applies_when.text()}; {note}"), f"# {line}"]
        out.append("")
    skipped = [n for n in ALL_SECTIONS if not _holds(design, section_condition(n))]
    if link_only:
        out.append("# A link design: no [fabric]. Add one (and the kind's section) to make it a cluster, or take its "
                   "optical I/O into a fabric design with [optical_io] design = \"this file\".")
    elif skipped:
        out.append(f"# Sections {', '.join(f'[{n}]' for n in skipped)} have no effect with [fabric] kind = "
                   f"'{design.fabric.kind}'.")
    return "\n".join(out) + "\n"


def builtin_notes(path: Path) -> tuple[str, ...]:
    """The comment lines at the top of a design file (a built-in's account of its numbers)."""
    notes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        notes.append(line[1:].strip())
    return tuple(notes)


COMMENT_WIDTH = 100  # characters per comment line of a written design file


def _wrapped_comment(text: str) -> list[str]:
    """A comment above a key, wrapped to COMMENT_WIDTH; a line never starts 'name = ' (it would read as a key left
    commented out): the word before it moves down."""
    import re
    import textwrap

    parts = textwrap.wrap(text, COMMENT_WIDTH - 2, break_on_hyphens=False)
    for i in range(1, len(parts)):
        if re.match(r"\w+ = ", parts[i]) and " " in parts[i - 1]:
            head, last = parts[i - 1].rsplit(" ", 1)
            parts[i - 1], parts[i] = head, f"{last} {parts[i]}"
    return [f"# {part}" for part in parts]


def written_design_toml(name: str | None = None, overrides: list[str] | None = None) -> str:
    """The design `name` (a built-in or a file; None: the built-in sip-ring), written out in full."""
    shown_name = name or DEFAULT_DESIGN
    design = load_design(name, overrides)
    path = resolve(shown_name)
    is_builtin = path.parent == BUILTIN_DIR
    title = (f"the built-in '{shown_name}', every field written out" if is_builtin
             else f"{shown_name}, every field written out")
    if overrides:
        title += f" (with --set {' '.join(overrides)})"
    return design_toml(design, title, builtin_notes(path) if is_builtin else ())


# --- the field table ------------------------------------------------------------------------------------------
def field_rows() -> list[dict]:
    """One row per declared field: section, key, unit, the library default (a key left out of a file), the
    built-in sip-ring's value (no DESIGN named; '–' where the key has no effect there), range, when it applies,
    whether a sweep may vary it, help and source."""
    builtin = load_design(None)
    rows = []
    for section, cls in ALL_SECTIONS.items():
        holder = section_of(builtin, section)
        for key, spec in specs(cls).items():
            value = getattr(holder, key)
            if not key_applies(builtin, section, key):
                in_builtin = "–"
            elif spec.unit in TEXT_SPECS or spec.integer:
                in_builtin = str(value)
            elif spec.unit == "1":
                in_builtin = f"{value:g}"
            else:
                in_builtin = spec.show(value)
            rows.append({"section": section, "key": key, "unit": spec.unit if spec.unit != "1" else "—",
                         "default": spec.default_text, "sip-ring": in_builtin, "range": spec.range_text(),
                         "applies when": spec.applies_when.text() if spec.applies_when else "",
                         "sweepable": spec.sweepable, "help": spec.help, "source": spec.source})
    return rows


def field_notes() -> list[str]:
    """What the field table's columns mean, and when whole sections apply."""
    sections = {}
    for name in ALL_SECTIONS:
        cond = section_condition(name)
        if cond is not None:
            sections.setdefault(cond.text(), []).append(f"[{name}]")
    return ["default: the value a key left out of a design file takes (an empty file is these defaults). "
            "sip-ring: the built-in design used when no DESIGN is named ('–': no effect there). "
            "sweepable: a numeric design axis, which a sweep may step over a range (start:stop:count) and explain "
            "moves; a sweep varies any other key over a list of values (key=a,b,c).",
            *(f"The keys of {', '.join(names)} apply only when {cond}." for cond, names in sections.items())]
