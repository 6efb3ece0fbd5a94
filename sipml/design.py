"""Design-point files: TOML with dimensioned values written as strings with units.

    [link]
    data_rate = "25 Gbit/s"
    wavelengths_per_fiber = 8

    [fabric]
    kind = "sip-ring"

Each section maps to a frozen dataclass (`photonics.design` for the optical link, `fabric.design` for the
fabric); each key to a declared field (unit, bounds, help, source). Unknown sections or keys, sections that do
not apply to the fabric kind, wrong units, out-of-range, NaN or infinite values are InputErrors that name the
file, the section, the key and the value. Built-in designs (`sipml/designs/*.toml`) are found by name.
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from pathlib import Path

from core.errors import InputError
from core.fields import specs
from fabric.design import ClusterDesign, FabricSection
from fabric.registry import get_kind, sections
from photonics.design import SECTIONS, LinkDesign

FABRIC_SECTIONS: dict[str, type] = {"fabric": FabricSection, **sections()}
ALL_SECTIONS: dict[str, type] = {**SECTIONS, **FABRIC_SECTIONS}
BUILTIN_DIR = Path(__file__).with_name("designs")
DEFAULT_DESIGN = "sip-ring"  # what `budget`, `check`, `fabric` use when no design is named


def _holder(design: ClusterDesign, section: str):
    if section in SECTIONS:
        return getattr(design.link, section)
    return design.fabric if section == "fabric" else design.topology


def _is(section: str, key: str, *values):
    def test(design: ClusterDesign) -> bool:
        return getattr(_holder(design, section), key) in values
    test.text = f"[{section}] {key} = " + " or ".join(f"'{v}'" for v in values)
    return test


def _amplified(design: ClusterDesign) -> bool:
    return design.topology.amplifier_every > 0


_amplified.text = "[sip_ring] amplifier_every > 0"


def _all(*tests):
    def test(design: ClusterDesign) -> bool:
        return all(t(design) for t in tests)
    test.text = " and ".join(t.text for t in tests)
    return test


def _link_kind_fits_fabric(design: ClusterDesign) -> bool:
    return not design.has_fabric or design.link.link.kind == "ring-wdm"


_link_kind_fits_fabric.text = ("it is 'ring-wdm' or the design has no [fabric] (the SiP fabrics are built from "
                              "ring-wdm chiplets)")
_RING_WDM = _is("link", "kind", "ring-wdm")
_POINT_TO_POINT = _is("link", "kind", "point-to-point")
# keys of the optical sections that only a ring-wdm link uses (a point-to-point link has [transmitter] instead)
_RING_WDM_KEYS = {("link", "wavelengths_per_fiber"), ("link", "channel_spacing"),
                  *(("ring", key) for key in specs(SECTIONS["ring"])),
                  *(("modulator", key) for key in specs(SECTIONS["modulator"])),
                  *(("laser", key) for key in specs(SECTIONS["laser"])
                    if key not in ("kind", "rin", "eye_safety_limit")),
                  *(("loss", key) for key in ("coupler", "waveguide_loss", "tx_waveguide_length", "rx_waveguide_length",
                                              "bends", "bend_loss", "crossings", "crossing_loss", "splitters",
                                              "splitter_loss")),
                  *(("tuning", key) for key in specs(SECTIONS["tuning"])),
                  *(("package", key) for key in specs(SECTIONS["package"]))}

# (section, key) → when the key has an effect; a key given where it has none is an input error, not a no-op.
APPLIES_WHEN = {
    ("receiver", "sensitivity"): _is("receiver", "model", "given"),
    ("receiver", "sensitivity_type"): _is("receiver", "model", "given"),
    ("receiver", "reference_extinction_ratio"): _all(_is("receiver", "model", "given"),
                                                     _is("receiver", "sensitivity_type", "average")),
    ("receiver", "noise_density"): _is("receiver", "model", "thermal-noise"),
    ("receiver", "dark_current"): _is("receiver", "model", "ge-photodiode"),
    ("laser", "flatness"): _is("laser", "kind", "comb"),
    ("ring", "propagation_loss"): _is("ring", "loss_model", "given"),
    ("ring", "bend_fit_coefficient"): _is("ring", "loss_model", "bend-fit"),
    ("ring", "bend_fit_exponent"): _is("ring", "loss_model", "bend-fit"),
    ("ring", "bend_fit_straight_loss"): _is("ring", "loss_model", "bend-fit"),
    ("tuning", "sigma_local"): _is("tuning", "strategy", "full-thermal", "athermal"),
    ("tuning", "sigma_system"): _is("tuning", "strategy", "full-thermal", "athermal"),
    ("tuning", "t_min"): _is("tuning", "strategy", "full-thermal"),
    ("tuning", "t_max"): _is("tuning", "strategy", "full-thermal"),
    ("tuning", "temperature"): _is("tuning", "strategy", "full-thermal"),
    ("tuning", "target_yield"): _is("tuning", "strategy", "full-thermal", "athermal"),
    ("ring", "dn_dt"): _is("ring", "tuning_model", "dn-dt"),
    ("ring", "tuning_efficiency"): _is("ring", "tuning_model", "given"),
    ("link", "kind"): _link_kind_fits_fabric,
    ("link", "ber"): _is("link", "fec", "none"),
    **{("link", key): _is("link", "fec", "given") for key in ("fec_threshold", "fec_overhead", "fec_latency")},
    ("fiber", "modal_bandwidth"): _is("fiber", "type", "mmf"),
    **{("transmitter", key): _POINT_TO_POINT for key in specs(SECTIONS["transmitter"]) if key != "spectral_width"},
    ("transmitter", "spectral_width"): _all(_POINT_TO_POINT, _is("laser", "kind", "dml", "vcsel")),
    ("sip_ring", "amplifier"): _amplified,
    ("sip_ring", "amplifier_gain"): _amplified,
    ("sip_ring", "amplifier_noise_figure"): _amplified,
    ("electrical", "nvls_speedup"): _is("electrical", "in_network_reduction", "nvls"),
    ("electrical", "nvls_latency"): _is("electrical", "in_network_reduction", "nvls"),
}
APPLIES_WHEN.update({key: _all(_RING_WDM, APPLIES_WHEN[key]) if key in APPLIES_WHEN else _RING_WDM
                     for key in _RING_WDM_KEYS})


def builtin_designs() -> dict[str, Path]:
    """Name → file of every built-in design."""
    return {p.stem: p for p in sorted(BUILTIN_DIR.glob("*.toml"))}


def _suggest(word: str, options) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def build_section(cls, values: dict, where: str):
    """Build one section dataclass from a mapping of key → raw value, validating each field."""
    declared = specs(cls)
    kwargs = {}
    for key, raw in values.items():
        if key not in declared:
            raise InputError(f"{where}: unknown key '{key}'{_suggest(key, declared)}; "
                             f"known keys: {', '.join(declared)}")
        try:
            kwargs[key] = declared[key].parse(raw)
        except InputError as exc:
            raise InputError(f"{where} {key} = {raw!r}: {exc}") from None
    return cls(**kwargs)


def design_from_mapping(data: dict, source: str = "<design>") -> ClusterDesign:
    """A design from a parsed TOML mapping; `source` names the file in error messages."""
    built = {}
    for name, values in data.items():
        if name not in ALL_SECTIONS:
            raise InputError(f"{source}: unknown section [{name}]{_suggest(name, ALL_SECTIONS)}; "
                             f"known sections: {', '.join(ALL_SECTIONS)}")
        if not isinstance(values, dict):
            raise InputError(f"{source}: '{name}' must be a [section] table, got {values!r}")
        built[name] = build_section(ALL_SECTIONS[name], values, f"{source}: [{name}]")
    fabric = built.get("fabric", FabricSection())
    try:
        kind = get_kind(fabric.kind)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    for name in built:
        if name in FABRIC_SECTIONS and name != "fabric" and name != kind.section:
            where = f"its settings live in [{kind.section}]" if kind.section else "it has no section of its own"
            raise InputError(f"{source}: section [{name}] does not apply to [fabric] kind = '{kind.name}' ({where})")
    link = LinkDesign(**{k: v for k, v in built.items() if k in SECTIONS})
    try:
        design = ClusterDesign(link=link, fabric=fabric, topology=built.get(kind.section), has_fabric="fabric" in built)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    for name, values in data.items():
        for key in values:
            applies = APPLIES_WHEN.get((name, key))
            if applies is not None and not applies(design):
                raise InputError(f"{source}: [{name}] {key} has no effect here: it applies only when {applies.text}")
    return design


def resolve(design: str | Path) -> Path:
    """A design file's path: the file itself, or a built-in design of that name."""
    path = Path(design)
    if path.exists() or path.suffix:
        return path
    builtins = builtin_designs()
    if str(design) in builtins:
        return builtins[str(design)]
    raise InputError(f"{design}: no such file or built-in design{_suggest(str(design), builtins)}; built-in: "
                     f"{', '.join(builtins)}")


def read_toml(path: Path) -> dict:
    """Parse a TOML file, turning every failure into an InputError that names the file."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a TOML design file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: malformed TOML: {exc}") from None


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """Apply `section.key=value` overrides (from `--set`) to a parsed design mapping. The value is read as
    TOML when it parses (numbers, quoted strings), else taken as text ("25 Gbit/s" needs no quotes)."""
    merged = {name: dict(values) if isinstance(values, dict) else values for name, values in data.items()}
    for item in overrides:
        target, sep, text = item.partition("=")
        section, dot, key = target.strip().partition(".")
        if not sep or not dot or not section or not key:
            raise InputError(f"--set {item!r}: expected section.key=value, e.g. link.data_rate='50 Gbit/s'")
        try:
            value = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = text.strip()
        merged.setdefault(section, {})[key] = value
    return merged


def load_design(path: str | Path | None, overrides: list[str] | None = None) -> ClusterDesign:
    """The design in `path` (a file or a built-in name; None: the default built-in design, sip-ring), with
    `--set` overrides."""
    data = read_toml(resolve(path if path is not None else DEFAULT_DESIGN))
    source = str(path) if path is not None else DEFAULT_DESIGN
    if overrides:
        data = apply_overrides(data, overrides)
        source += " (with --set)"
    return design_from_mapping(data, source)


def design_toml(design: ClusterDesign, title: str) -> str:
    """A complete, commented TOML file of `design`: every field that applies with its value, unit range and
    source; fields that do not apply to this design are written as comments saying when they would."""
    out = [f"# sipml design point: {title}.", "# Values with a dimension are strings with units; see `sipml fields`.",
           "# Lines starting '# key =' do not apply to this design; each says when it would.", ""]
    kind = get_kind(design.fabric.kind)
    written = {**SECTIONS, "fabric": FabricSection}
    if kind.section:
        written[kind.section] = kind.section_type
    for name, cls in written.items():
        out.append(f"[{name}]")
        holder = _holder(design, name)
        for f in dataclasses.fields(cls):
            spec = f.metadata["spec"]
            value = getattr(holder, f.name)
            if spec.unit in ("choice", "text"):
                shown = f'"{value}"'
            elif spec.unit == "1":
                shown = f"{value:g}" if isinstance(value, float) else str(value)
            else:
                shown = f'"{spec.default_text if value == f.default else spec.show(value)}"'
            source = spec.source if value == f.default else f"this design (default {spec.default_text}: {spec.source})"
            note = f"# {spec.help}; {spec.range_text()}; source: {source}"
            applies = APPLIES_WHEN.get((name, f.name))
            if applies is not None and not applies(design):
                out.append(f"# {f.name} = {shown}  (applies when {applies.text})")
            else:
                out.append(f"{f.name} = {shown}  {note}")
        out.append("")
    return "\n".join(out)


def default_design_toml() -> str:
    """The default built-in design, written out in full."""
    return design_toml(load_design(None), f"the built-in default '{DEFAULT_DESIGN}' (SiP-ML's SiP-Ring), every "
                       "field written out")
