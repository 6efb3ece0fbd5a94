"""The component catalog: prices and power of GPUs, servers, NICs, transceivers, switches, OCS ports, optical
chiplets, lasers, fiber and packaging, as data with a source, a date and a confidence tag on every entry.

The shipped catalog is `fabric/catalog/components.toml`; its header documents the keys. User files have the
same format and are merged on top of it: a user table may override single keys of an existing entry, or add
a new entry (which must then be complete). Every override is recorded in `Catalog.overrides` so a report can
show which numbers are not the shipped ones.

Values are read with `core.units.parse_value` and stored as SI floats (USD, W). Every problem in a file is
an `InputError` naming the file, the entry and the key.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from core import toml_files
from core.errors import InputError, shown
from core.records import record
from core.toml_files import TAGS
from core.units import parse_value

ROLES = ("compute", "network")
LEVELS = ("low", "typical", "high")

PRICE_KEYS = tuple(f"price_{level}" for level in LEVELS)
POWER_RANGE_KEYS = tuple(f"power_{level}" for level in LEVELS)
TEXT_KEYS = ("description", "unit", "role", "source", "date", "tag")
REQUIRED_KEYS = TEXT_KEYS + PRICE_KEYS  # plus `power` or all of power_low/typical/high
OPTICS_KEYS = ("boundary", "port_rate", "host_serdes_power", "drive")
SWITCH_KEYS = ("switching_time", "ports")  # an optical circuit switch's (ocs.): device reconfiguration time, radix
KNOWN_KEYS = frozenset(REQUIRED_KEYS + ("power",) + POWER_RANGE_KEYS + ("notes",) + OPTICS_KEYS + SWITCH_KEYS)

# What an optics entry's power figure includes (fabrics-2026.md K1). The optics of a fabric are added up at B1; an
# entry given at B2 converts to B1 where it declares the host SerDes part (`host_serdes_power`), and a B0 figure
# (no laser) cannot be added to the others: `fabric.cost.optics_power` refuses, naming the entries.
BOUNDARIES = {
    "front_end": "B0 optical front end: modulator drivers, TIAs and photonics (no laser, no DSP, no host SerDes)",
    "optics": "B1 optics per port: the module or engine that serves the port, its laser included (a separately "
              "listed laser, e.g. an external laser module or a comb line, is part of it)",
    "port": "B2 whole port: B1 plus the host SerDes lanes on the switch or NIC ASIC that drive it",
}
OPTICS_CATEGORIES = ("transceiver", "cpo", "els")  # entries whose power must say its boundary
LINK_OPTICS = ("sip", "laser")  # the optical I/O's own parts, which may say theirs
DRIVES = {"retimed": "a DSP retimes the signal in the module", "linear": "linear drivers and TIAs, no retimer: the "
          "host SerDes equalise the whole channel (LPO)"}  # a pluggable module's electrical side (transceiver.)

_DATE = re.compile(r"^(?P<year>\d{4})(?:-(?P<month>\d{2}))?$", re.ASCII)  # ASCII digits, as every number read
_ENTRY_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


@record(kw_only=True)
class Component:
    """One catalog entry in SI: prices in USD and power in W per item, each as (low, typical, high)."""

    key: str
    description: str
    unit: str
    role: str
    price_usd: tuple[float, float, float]
    power_w: tuple[float, float, float]
    source: str
    date: str
    tag: str
    notes: str = ""
    files: tuple[str, ...] = ()  # the files that defined or changed this entry, shipped catalog first
    boundary: str = ""  # what the power figure includes (BOUNDARIES); "" for entries that are not optics
    port_rate_bps: float | None = None  # the port rate the power figure is given at (optics entries)
    host_serdes_w: float | None = None  # the host SerDes part of a B2 ("port") figure, W per item
    drive: str = ""  # a pluggable module's: "retimed" or "linear" (DRIVES)
    switching_time_s: float | None = None  # an optical circuit switch's device reconfiguration time (ocs.)
    ports: int | None = None  # an optical circuit switch's ports per side (ocs.)

    @property
    def is_network(self) -> bool:
        return self.role == "network"


@record
class Override:
    """A key of an existing entry replaced by a later file."""

    file: str
    entry: str
    key: str
    old: object
    new: object

    def __str__(self) -> str:
        return f"{self.file}: [{self.entry}] {self.key} = {shown(self.new, 200)} (was {shown(self.old, 200)})"


@record
class Catalog:
    """A validated, merged catalog. Look entries up with `catalog["gpu.a100_sxm4"]` or `catalog.get(...)`."""

    components: Mapping[str, Component]
    files: tuple[str, ...]
    overrides: tuple[Override, ...] = ()
    added: tuple[tuple[str, str], ...] = ()  # (file, entry) for entries a user file added
    rates: object = None  # fabric.reliability.Rates of its parts' failures, read with it (None: read when needed)

    def get(self, key: str) -> Component:
        """The entry `key` ("category.name"); InputError listing close names when it does not exist."""
        try:
            return self.components[key]
        except (KeyError, TypeError):
            raise InputError(f"no catalog entry {key!r}{_close_names_text(str(key), self.components)}") from None

    def __getitem__(self, key: str) -> Component:
        return self.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self.components

    def __iter__(self) -> Iterator[str]:
        return iter(self.components)

    def __len__(self) -> int:
        return len(self.components)

    def keys(self):
        return self.components.keys()

    def values(self):
        return self.components.values()

    def items(self):
        return self.components.items()

    def category(self, name: str) -> tuple[Component, ...]:
        """All entries of one category ("gpu", "ocs", ...), in file order."""
        return tuple(c for k, c in self.components.items() if k.split(".", 1)[0] == name)


# --- loading -----------------------------------------------------------------------------------------------
def default_catalog_path() -> Path:
    """The shipped catalog file, `catalog/components.toml` beside this module (package data, see pyproject)."""
    return Path(__file__).with_name("catalog") / "components.toml"


def load_catalog(*user_files, base=None) -> Catalog:
    """Load the shipped catalog (or `base`), then merge each user file in order.

    A user file may override single keys of an existing entry or add complete new entries. Changing `power`
    replaces a power_low/typical/high triple and vice versa. Overridden numbers without a new `source` keep the
    old source text with a note of which file changed which key. The shipped catalog alone is built once a process
    (`shipped_catalog`: a Catalog cannot be changed).
    """
    if not user_files and base is None:
        return shipped_catalog()
    return _merged_catalog(user_files, base)


@lru_cache(maxsize=1)  # the shipped catalog, built once a process: every command reads it, a report many times
def shipped_catalog() -> Catalog:
    """The shipped catalog with nothing merged on top."""
    return _merged_catalog((), None)


def _merged_catalog(user_files, base) -> Catalog:
    base_file = default_catalog_path() if base is None else base
    raw: dict[str, dict[str, object]] = {}
    origin: dict[str, dict[str, str]] = {}  # entry → key → file that set it
    files: list[str] = []
    overrides: list[Override] = []
    added: list[tuple[str, str]] = []
    causes: list[tuple[str, dict]] = []  # (file, its [cause.NAME] tables), in the order the files are given

    for position, path in enumerate((base_file, *user_files)):
        name = str(path)
        files.append(name)
        entries = _read_entries(path, name)
        if position > 0:  # a user file's failure causes ([cause.NAME]) go to the rates, not the components
            causes.append((name, {e.partition(".")[2]: t for e, t in entries.items() if e.startswith("cause.")}))
            entries = {e: t for e, t in entries.items() if not e.startswith("cause.")}
        for entry, table in entries.items():
            for key, value in table.items():
                _check_key(name, entry, key)
                _check_value_type(name, entry, key, value)
            if entry not in raw:
                raw[entry] = dict(table)
                origin[entry] = {key: name for key in table}
                if position > 0:
                    added.append((name, entry))
                continue
            merged, keys_from = raw[entry], origin[entry]
            before = dict(merged)
            if "power" in table:
                for key in POWER_RANGE_KEYS:
                    merged.pop(key, None)
                    keys_from.pop(key, None)
            if any(key in table for key in POWER_RANGE_KEYS):
                merged.pop("power", None)
                keys_from.pop("power", None)
            changed_numbers = []
            for key, value in table.items():
                if merged.get(key) == value:
                    continue
                old = before.get(key)
                if old is None and key == "power" and POWER_RANGE_KEYS[0] in before:
                    old = " / ".join(str(before.get(k)) for k in POWER_RANGE_KEYS)
                elif old is None and key in POWER_RANGE_KEYS and "power" in before:
                    old = before["power"]
                overrides.append(Override(file=name, entry=entry, key=key, old=old, new=value))
                merged[key] = value
                keys_from[key] = name
                if key in PRICE_KEYS or key == "power" or key in POWER_RANGE_KEYS:
                    changed_numbers.append(key)
            if changed_numbers and "source" not in table and "source" in merged:
                merged["source"] = f"{merged['source']}; {', '.join(changed_numbers)} overridden in {name}"
                keys_from["source"] = name

    components = {}
    for entry, table in raw.items():
        components[entry] = _build_component(entry, table, origin[entry])
    from fabric.reliability import load_rates, merged_causes

    rates = load_rates()
    for file, tables in causes:
        rates, changed = merged_causes(rates, tables, file, components)
        for cause, key, old, value in changed:
            if key == "added":
                added.append((file, f"cause.{cause}"))
            else:
                overrides.append(Override(file=file, entry=f"cause.{cause}", key=key, old=old, new=value))
    return Catalog(
        components=MappingProxyType(components),
        files=tuple(files),
        overrides=tuple(overrides),
        added=tuple(added),
        rates=rates,
    )


def _read_entries(path, name: str) -> dict[str, dict[str, object]]:
    """Parse one file into {"category.name": {key: value}} checking only the table structure."""
    try:
        found = Path(path).exists()
    except (OSError, ValueError):  # a name too long for the file system: no such file either
        found = False
    if not found:
        raise InputError(f"{name}: catalog file not found")
    try:
        document = toml_files.read(path, "TOML catalog file")
    except InputError as exc:
        detail = str(exc).removeprefix(f"{path}: ")
        if detail.startswith("malformed TOML: "):
            raise InputError(f"{name}: not valid TOML ({detail.removeprefix('malformed TOML: ')})") from None
        raise InputError(f"{name}: {detail}") from None

    entries: dict[str, dict[str, object]] = {}
    for category, tables in document.items():
        if not isinstance(tables, dict):
            raise InputError(
                f"{name}: top-level key {shown(category)} = {shown(tables)}: expected a table of entries, "
                f"e.g. [{category}.some_name]"
            )
        if not _ENTRY_NAME.match(category):
            raise InputError(f"{name}: [{category}]: category names use letters, digits, '_' and '-'")
        for entry_name, table in tables.items():
            entry = f"{category}.{entry_name}"
            if not isinstance(table, dict):
                raise InputError(
                    f"{name}: [{category}] {entry_name} = {shown(table)}: expected an entry table [{entry}]; "
                    f"entries sit one level below a category"
                )
            if not _ENTRY_NAME.match(entry_name):
                raise InputError(f"{name}: [{entry}]: entry names use letters, digits, '_' and '-'")
            entries[entry] = table
    return entries


def _check_key(name: str, entry: str, key: str) -> None:
    if key in KNOWN_KEYS:
        return
    close = difflib.get_close_matches(key, sorted(KNOWN_KEYS), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(sorted(KNOWN_KEYS))}"
    raise InputError(f"{name}: [{entry}] unknown key {shown(key)}{hint}")


def _check_value_type(name: str, entry: str, key: str, value: object) -> None:
    if key == "date" and isinstance(value, int) and not isinstance(value, bool):
        return  # a bare year is fine
    if not isinstance(value, str):
        texts = TEXT_KEYS + ("notes", "boundary", "drive")
        expected = "a string with a unit, e.g. '1000 USD' or '9 W'" if key not in texts else "a string"
        raise InputError(f"{name}: [{entry}] {key} = {shown(value)}: expected {expected}")


def _check_present(entry: str, table: Mapping[str, object], keys_from: Mapping[str, str], definer: str,
                   where) -> None:
    """InputError for a required key missing (power, or its whole low/typical/high range), both forms of power
    given, or an empty text."""
    missing = [key for key in REQUIRED_KEYS if key not in table]
    has_power = "power" in table
    power_range_given = [key for key in POWER_RANGE_KEYS if key in table]
    if has_power and power_range_given:  # only possible within one file
        raise InputError(f"{where('power')}: give either `power` or power_low/typical/high, not both")
    if not has_power:
        if not power_range_given:
            missing.append("power")
        else:
            missing.extend(key for key in POWER_RANGE_KEYS if key not in table)
    if missing:
        files = " / ".join(dict.fromkeys(keys_from.values())) or definer
        raise InputError(f"{files}: [{entry}] missing key(s): {', '.join(missing)}")
    for key in ("description", "unit", "source"):
        if not str(table[key]).strip():
            raise InputError(f"{where(key)} is empty; expected a non-empty string")


def _optics_keys(entry: str, table: Mapping[str, object], definer: str, where, lowest_power_w: float) -> tuple:
    """(boundary, drive, port rate, host SerDes power) of an entry: what an optics entry's power includes, whether
    a pluggable module retimes, its port rate and the host SerDes part of a whole-port figure."""
    boundary = str(table.get("boundary", ""))
    if boundary and boundary not in BOUNDARIES:
        raise InputError(f"{where('boundary')} = {shown(boundary)}: expected one of {', '.join(BOUNDARIES)} "
                         f"(fabrics-2026.md K1){_did_you_mean(boundary, BOUNDARIES)}")
    if not boundary and entry.split(".", 1)[0] in OPTICS_CATEGORIES:
        named = ", ".join(f"{k} ({v.split(' ', 1)[0]})" for k, v in BOUNDARIES.items())
        raise InputError(f"{definer}: [{entry}] missing key boundary: an optics entry says what its power includes, "
                         f"one of {named}")
    category = entry.split(".", 1)[0]
    if boundary and category not in OPTICS_CATEGORIES + LINK_OPTICS:
        raise InputError(f"{where('boundary')}: only optics entries ({', '.join(OPTICS_CATEGORIES + LINK_OPTICS)}) "
                         f"state a power boundary; [{entry}] is counted with the switches, NICs and servers")
    drive = str(table.get("drive", ""))
    if drive and drive not in DRIVES:
        raise InputError(f"{where('drive')} = {shown(drive)}: expected one of {', '.join(DRIVES)}"
                         f"{_did_you_mean(drive, DRIVES)}")
    if bool(drive) != (category == "transceiver"):
        raise InputError(f"{definer}: [{entry}] " + ("missing key drive: a pluggable module says whether a DSP "
                                                     "retimes its signal ('retimed') or not ('linear')"
                                                     if not drive else "drive: only pluggable modules "
                                                     "(transceiver.) have one"))
    port_rate = _parse_number(table["port_rate"], "bit/s", where("port_rate")) if "port_rate" in table else None
    if port_rate is not None and port_rate <= 0:
        raise InputError(f"{where('port_rate')} = {shown(table['port_rate'])}: expected a rate above zero")
    host_serdes = (_parse_number(table["host_serdes_power"], "W", where("host_serdes_power"))
                   if "host_serdes_power" in table else None)
    if host_serdes is not None and boundary != "port":
        raise InputError(f"{where('host_serdes_power')}: only a whole-port figure (boundary = \"port\") has a host "
                         f"SerDes part to take out; this entry's boundary is {boundary or 'not stated'}")
    if host_serdes is not None and host_serdes > lowest_power_w:
        raise InputError(f"{where('host_serdes_power')} = {shown(table['host_serdes_power'])}: above the entry's "
                         f"lowest power ({lowest_power_w:g} W), of which it is a part")
    return boundary, drive, port_rate, host_serdes


def _build_component(entry: str, table: Mapping[str, object], keys_from: Mapping[str, str]) -> Component:
    definer = keys_from.get("description") or next(iter(keys_from.values()), "?")

    def where(key: str) -> str:
        return f"{keys_from.get(key, definer)}: [{entry}] {key}"

    _check_present(entry, table, keys_from, definer, where)
    role = table["role"]
    if role not in ROLES:
        raise InputError(f"{where('role')} = {shown(role)}: expected one of {', '.join(ROLES)}{_did_you_mean(role, ROLES)}")
    tag = table["tag"]
    if tag not in TAGS:
        raise InputError(f"{where('tag')} = {shown(tag)}: expected one of {', '.join(TAGS)}{_did_you_mean(tag, TAGS)}")
    date = _parse_date(table["date"], where("date"))

    prices = tuple(_parse_number(table[key], "USD", where(key)) for key in PRICE_KEYS)
    _check_ordered(prices, PRICE_KEYS, entry, keys_from, definer, "USD")
    if "power" in table:
        power = _parse_number(table["power"], "W", where("power"))
        powers = (power, power, power)
    else:
        powers = tuple(_parse_number(table[key], "W", where(key)) for key in POWER_RANGE_KEYS)
        _check_ordered(powers, POWER_RANGE_KEYS, entry, keys_from, definer, "W")
    boundary, drive, port_rate, host_serdes = _optics_keys(entry, table, definer, where, powers[0])

    switching, ports = _switch_keys(entry, table, where)
    files = tuple(dict.fromkeys(keys_from.values()))
    return Component(
        key=entry,
        description=str(table["description"]),
        unit=str(table["unit"]),
        role=str(role),
        price_usd=prices,
        power_w=powers,
        source=str(table["source"]),
        date=date,
        tag=str(tag),
        notes=str(table.get("notes", "")),
        files=files,
        boundary=boundary,
        port_rate_bps=port_rate,
        host_serdes_w=host_serdes,
        drive=drive,
        switching_time_s=switching,
        ports=ports,
    )


def _switch_keys(entry: str, table: Mapping[str, object], where) -> tuple[float | None, int | None]:
    """An optical circuit switch's `switching_time` (s, ≥ 0) and `ports` (a whole number ≥ 2); only `ocs.` entries
    have them."""
    given = [key for key in SWITCH_KEYS if key in table]
    if given and entry.split(".", 1)[0] != "ocs":
        raise InputError(f"{where(given[0])}: only optical circuit switches (ocs.) have one")
    switching = (_parse_number(table["switching_time"], "s", where("switching_time"))
                 if "switching_time" in table else None)
    if switching is not None and switching < 0:
        raise InputError(f"{where('switching_time')} = {shown(table['switching_time'])}: expected a time ≥ 0")
    ports = None
    if "ports" in table:
        ports = _parse_number(table["ports"], "1", where("ports"))
        if not (ports >= 2 and ports == int(ports)):
            raise InputError(f"{where('ports')} = {shown(table['ports'])}: expected a whole number ≥ 2")
        ports = int(ports)
    return switching, ports


def _parse_number(value, spec: str, where: str) -> float:
    try:
        number = parse_value(value, spec)
    except InputError as exc:
        raise InputError(f"{where} = {shown(value)}: {exc}") from None
    if not math.isfinite(number):
        raise InputError(f"{where} = {shown(value)}: expected a finite value")
    if number < 0:
        raise InputError(f"{where} = {shown(value)}: expected a value ≥ 0")
    return number


def _check_ordered(values, keys, entry: str, keys_from: Mapping[str, str], definer: str, unit: str) -> None:
    low, typical, high = values
    if low <= typical <= high:
        return
    files = list(dict.fromkeys(keys_from.get(key, definer) for key in keys))
    given = ", ".join(f"{key} = {value:g} {unit}" for key, value in zip(keys, values))
    raise InputError(
        f"{' / '.join(files)}: [{entry}] {keys[0]}, {keys[1]}, {keys[2]}: expected "
        f"{keys[0]} ≤ {keys[1]} ≤ {keys[2]}, got {given}"
    )


def _parse_date(value, where: str) -> str:
    text = str(value)
    match = _DATE.match(text)
    if not match or not 1990 <= int(match["year"]) <= 2100 or (match["month"] and not 1 <= int(match["month"]) <= 12):
        raise InputError(f"{where} = {shown(value)}: expected a year or YYYY-MM, e.g. '2023' or '2023-06'")
    return text


def _did_you_mean(value, choices) -> str:
    close = difflib.get_close_matches(str(value), list(choices), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def _close_names_text(key: str, names) -> str:
    close = difflib.get_close_matches(key, list(names), n=5, cutoff=0.5)
    if not close:
        category = key.split(".", 1)[0]
        close = [name for name in names if name.split(".", 1)[0] == category][:8]
    if not close:
        categories = sorted({name.split(".", 1)[0] for name in names})
        return f"; categories: {', '.join(categories)}"
    return f"; close names: {', '.join(close)}"
